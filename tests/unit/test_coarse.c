/* test_coarse.c: tiles below zoom 0 (tiles/coarse.h): each pixel is the
 * rounded mean of the zoom-0 tile pixels under it, for every kind of
 * picture (gray, palette with the zero line, shaded, a ramp), at negative
 * indices; the same request gives the same bytes; a failed allocation is
 * reported as RENDER_ENOMEM and leaks nothing. */
#include "base/failalloc.h"
#include "noise.h"
#include "test.h"
#include "test_png.h"
#include "tiles/coarse.h"
#include "tiles/render.h"

#include <stdlib.h>
#include <string.h>

#define PX 32 /* small tiles: the same rules at any size */

static noise_spec field(uint32_t seed, int octaves)
{
    noise_spec s;
    noise_spec_default(&s, NOISE_PERLIN, seed);
    s.octaves = octaves;
    return s;
}

/* RGB pixels of a tile: render_tile at ss 1, coarse_render_tile above. */
static unsigned char *rgb_of(const noise_spec *s, int z, int64_t x, int64_t y, int ss,
                             const render_opts *o)
{
    unsigned char *png = NULL;
    size_t n = 0;
    int rc = ss > 1 ? coarse_render_tile(s, z, x, y, PX, ss, o, RENDER_PNG, 0, &png, &n)
                    : render_tile(s, z, x, y, PX, o, RENDER_PNG, 0, &png, &n);
    if (rc != 0)
        return NULL;
    int w = 0, h = 0;
    unsigned char *rgb = test_png_decode(png, n, PNG_FORMAT_RGB, &w, &h);
    free(png);
    if (rgb != NULL && (w != PX || h != PX)) {
        free(rgb);
        return NULL;
    }
    return rgb;
}

/* Tile (z, x, y), z < 0, against the mean of the 4^-z zoom-0 tiles of the
 * same size it covers; returns the count of differing bytes (-1: a render
 * failed). */
static int differs_from_mean(const noise_spec *s, int z, int64_t x, int64_t y, const render_opts *o)
{
    int k = 1 << -z, n = k * k;
    unsigned char *got = rgb_of(s, z, x, y, k, o);
    unsigned *sum = calloc((size_t)PX * PX * 3, sizeof *sum);
    int bad = got == NULL || sum == NULL ? -1 : 0;
    for (int ty = 0; bad >= 0 && ty < k; ty++)
        for (int tx = 0; bad >= 0 && tx < k; tx++) {
            unsigned char *t = rgb_of(s, 0, x * k + tx, y * k + ty, 1, o);
            if (t == NULL) {
                bad = -1;
                break;
            }
            for (int j = 0; j < PX; j++)
                for (int i = 0; i < PX; i++)
                    for (int c = 0; c < 3; c++)
                        sum[(((ty * PX + j) / k) * PX + (tx * PX + i) / k) * 3 + c] +=
                            t[(j * PX + i) * 3 + c];
            free(t);
        }
    for (int p = 0; bad >= 0 && p < PX * PX * 3; p++)
        bad += got[p] != (sum[p] + (unsigned)n / 2) / (unsigned)n;
    free(got);
    free(sum);
    return bad;
}

static void test_mean_of_zoom0(void)
{
    noise_spec s = field(7, 5);
    render_ramp ramp = {.n = 3, .stops = {{-1, {0, 0, 90}}, {0, {250, 250, 250}}, {1, {120, 40, 0}}}};
    const render_opts opts[] = {
        {.palette = RENDER_GRAY},
        {.palette = RENDER_TERRAIN, .zero = 1},
        {.palette = RENDER_VIRIDIS, .shade = 1},
        {.palette = RENDER_GRAY, .shade = 1, .zero = 1},
        {.palette = RENDER_GRAY, .ramp = ramp},
    };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        CHECKF(differs_from_mean(&s, -1, -1, 0, &opts[i]) == 0, "options %zu, zoom -1", i);
        CHECKF(differs_from_mean(&s, -2, 0, -1, &opts[i]) == 0, "options %zu, zoom -2", i);
    }
}

/* Gray tiles without shade or zero line stay 8-bit gray; the others are RGB;
 * WebP is lossy (VP8) even unshaded. */
static void test_formats(void)
{
    noise_spec s = field(3, 4);
    render_opts gray = {.palette = RENDER_GRAY}, terrain = {.palette = RENDER_TERRAIN};
    unsigned char *a = NULL, *b = NULL, *w = NULL;
    size_t na = 0, nb = 0, nw = 0;
    CHECK(coarse_render_tile(&s, -2, 0, 0, PX, 4, &gray, RENDER_PNG, 0, &a, &na) == 0);
    CHECK(coarse_render_tile(&s, -2, 0, 0, PX, 4, &terrain, RENDER_PNG, 0, &b, &nb) == 0);
    CHECK(coarse_render_tile(&s, -2, 0, 0, PX, 4, &terrain, RENDER_WEBP, 0, &w, &nw) == 0);
    CHECK(a != NULL && na > 26 && a[25] == 0); /* IHDR colour type 0: gray */
    CHECK(b != NULL && nb > 26 && b[25] == 2); /* 2: RGB */
    CHECK(w != NULL && nw > 16 && memcmp(w + 8, "WEBPVP8 ", 8) == 0);
    /* the same request, the same bytes */
    unsigned char *again = NULL;
    size_t n2 = 0;
    CHECK(coarse_render_tile(&s, -2, 0, 0, PX, 4, &terrain, RENDER_PNG, 0, &again, &n2) == 0);
    CHECK(again != NULL && n2 == nb && memcmp(again, b, nb) == 0);
    free(a);
    free(b);
    free(w);
    free(again);
}

static void test_allocation_failure(void)
{
    noise_spec s = field(2, 2);
    render_opts o = {.palette = RENDER_TERRAIN, .shade = 1, .zero = 1};
    int n_failed = 0, wrong = 0;
    for (int f = 0; f < 2; f++)
        for (long nth = 1; nth < 1000; nth++) {
            failalloc_arm(nth);
            unsigned char *out = (unsigned char *)&s;
            size_t n = 1;
            int rc = coarse_render_tile(&s, -1, 0, 0, PX, 2, &o, f ? RENDER_WEBP : RENDER_PNG, 0, &out, &n);
            int fired = failalloc_fired();
            failalloc_arm(0);
            if (!fired) {
                CHECK(rc == 0 && out != NULL);
                free(out);
                break;
            }
            n_failed++;
            if (rc == 0) /* the encoder's final shrink may fail: not an error */
                wrong += out == NULL || n < 20;
            else
                wrong += rc != RENDER_ENOMEM || out != NULL;
            free(out);
        }
    CHECKF(wrong == 0, "%d of %d failures misreported", wrong, n_failed);
    CHECK(n_failed >= 6);
}

int main(void)
{
    RUN(test_mean_of_zoom0);
    RUN(test_formats);
    RUN(test_allocation_failure);
    return t_done();
}
