/* test_webpenc.c: unit tests of the WebP encoder (server/tiles/webpenc.c)
 * and of WebP tiles (render_tile): lossless WebP decodes (with libwebp's
 * decoder) to exactly the PNG tile's pixels, lossy WebP stays close to them
 * at the default quality and is smaller than the PNG, the bytes are the
 * same on every call, and bad arguments are refused. The independent
 * decoders (Pillow, dwebp) read the daemon's tiles in tests/http/webp.test.mjs. */
#include "base/scratch.h"
#include "tiles/render.h"
#include "tiles/webpenc.h"
#include "test.h"
#include "test_png.h"

#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>

static void tile_spec(noise_spec *spec)
{
    noise_spec_default(spec, NOISE_PERLIN, 7);
    spec->octaves = 2;
}

/* The same tile as PNG and as WebP; returns the WebP decoded and the PNG's
 * pixels, and the two sizes. */
static void both(const render_opts *o, int quality, unsigned char **png_px, unsigned char **webp_px,
                 size_t *png_size, size_t *webp_size, unsigned char **webp_bytes)
{
    noise_spec spec;
    tile_spec(&spec);
    unsigned char *png = NULL, *webp = NULL;
    CHECK(render_tile(&spec, 2, -1, 1, 256, o, RENDER_PNG, 0, &png, png_size) == 0);
    CHECK(render_tile(&spec, 2, -1, 1, 256, o, RENDER_WEBP, quality, &webp, webp_size) == 0);
    int w = 0, h = 0;
    *png_px = png ? test_png_decode(png, *png_size, PNG_FORMAT_RGB, &w, &h) : NULL;
    CHECK(w == 256 && h == 256);
    int ww = 0, wh = 0;
    *webp_px = webp ? WebPDecodeRGB(webp, *webp_size, &ww, &wh) : NULL;
    CHECK(*webp_px != NULL && ww == 256 && wh == 256);
    CHECK(webp && *webp_size > 12 && memcmp(webp, "RIFF", 4) == 0 && memcmp(webp + 8, "WEBP", 4) == 0);
    free(png);
    *webp_bytes = webp;
}

/* Unshaded tiles (palette levels, grey levels, the zero line): lossless
 * WebP (VP8L), exactly the PNG's pixels. */
static void test_unshaded_is_lossless_and_exact(void)
{
    render_opts all[] = {{.palette = RENDER_GRAY}, {.palette = RENDER_TERRAIN}, {.palette = RENDER_VIRIDIS, .zero = 1}};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        CHECK(render_webp_lossless(&all[k]));
        unsigned char *a = NULL, *b = NULL, *bytes = NULL;
        size_t pn = 0, wn = 0;
        both(&all[k], 0, &a, &b, &pn, &wn, &bytes);
        CHECKF(a && b && memcmp(a, b, 256 * 256 * 3) == 0, "options %zu: lossless WebP differs from the PNG", k);
        CHECK(bytes && memcmp(bytes + 12, "VP8L", 4) == 0);
        free(a);
        WebPFree(b);
        free(bytes);
    }
}

/* Shaded tiles: lossy (VP8) at the default quality 80, close to the PNG
 * (PSNR over 30 dB) and several times smaller; a higher quality is closer
 * and larger. */
static void test_shaded_is_lossy_close_and_small(void)
{
    render_opts o = {.palette = RENDER_TERRAIN, .shade = 1};
    CHECK(!render_webp_lossless(&o));
    double psnr[2];
    size_t sizes[2];
    int qs[2] = {0, 95};
    for (int q = 0; q < 2; q++) {
        unsigned char *a = NULL, *b = NULL, *bytes = NULL;
        size_t pn = 0, wn = 0;
        both(&o, qs[q], &a, &b, &pn, &wn, &bytes);
        double se = 0;
        for (size_t i = 0; a && b && i < 256 * 256 * 3; i++)
            se += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        psnr[q] = 10 * log10(255.0 * 255.0 / (se / (256 * 256 * 3)));
        sizes[q] = wn;
        CHECK(bytes && memcmp(bytes + 12, "VP8 ", 4) == 0);
        if (q == 0)
            CHECKF(wn * 3 < pn, "WebP %zu bytes, PNG %zu", wn, pn);
        free(a);
        WebPFree(b);
        free(bytes);
    }
    CHECKF(psnr[0] > 30.0, "PSNR at quality 80: %.1f dB", psnr[0]);
    CHECKF(psnr[1] > psnr[0] && sizes[1] > sizes[0], "quality 95: %.1f dB %zu bytes, 80: %.1f dB %zu bytes",
           psnr[1], sizes[1], psnr[0], sizes[0]);
}

/* Same request, same bytes; another quality, other bytes. */
static void test_deterministic(void)
{
    noise_spec spec;
    tile_spec(&spec);
    render_opts o = {.palette = RENDER_VIRIDIS, .shade = 1};
    unsigned char *a = NULL, *b = NULL, *c = NULL;
    size_t na = 0, nb = 0, nc = 0;
    CHECK(render_tile(&spec, 3, -5, 2, 256, &o, RENDER_WEBP, 0, &a, &na) == 0);
    CHECK(render_tile(&spec, 3, -5, 2, 256, &o, RENDER_WEBP, WEBPENC_DEFAULT_QUALITY, &b, &nb) == 0);
    CHECK(render_tile(&spec, 3, -5, 2, 256, &o, RENDER_WEBP, 40, &c, &nc) == 0);
    CHECK(a && b && na == nb && memcmp(a, b, na) == 0);
    CHECK(c && (nc != na || memcmp(a, c, na) != 0));
    free(a);
    free(b);
    free(c);
}

static void test_bad_arguments(void)
{
    unsigned char px[12] = {0}, *out = (unsigned char *)1;
    size_t n = 7;
    CHECK(webpenc_encode(px, 2, 2, 6, 101, &out, &n) == ERR_INVALID && out == NULL && n == 0);
    CHECK(webpenc_encode(px, 2, 2, 6, -1, &out, &n) == ERR_INVALID);
    CHECK(webpenc_encode(px, 2, 2, 5, 80, &out, &n) == ERR_INVALID);
    CHECK(webpenc_encode(px, 0, 2, 6, 80, &out, &n) == ERR_INVALID);
    CHECK(webpenc_encode(NULL, 2, 2, 6, 80, &out, &n) == ERR_INVALID);
    CHECK(webpenc_encode(px, 2, 2, 6, WEBPENC_LOSSLESS, &out, &n) == 0 && out && n > 0);
    free(out);
    CHECK(webpenc_version() >= 0x010000);
}

int main(void)
{
    RUN(test_unshaded_is_lossless_and_exact);
    RUN(test_shaded_is_lossy_close_and_small);
    RUN(test_deterministic);
    RUN(test_bad_arguments);
    return t_done();
}
