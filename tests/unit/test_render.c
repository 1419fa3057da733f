/* test_render.c: unit tests of tile rendering (server/tiles/render.c): geometry,
 * pixel values against the field, seamless borders, palettes, hillshading,
 * the zero line, extreme tile indices, determinism, allocation failure. */
#include "base/failalloc.h"
#include "base/scratch.h"
#include "noise.h"
#include "tiles/render.h"
#include "test.h"

#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static noise_spec field(uint32_t seed, int octaves)
{
    noise_spec s;
    noise_spec_default(&s, NOISE_PERLIN, seed);
    s.octaves = octaves;
    return s;
}

static double field_at(const noise_spec *s, int z, int64_t x, int64_t y, int px, int i, int j)
{
    double p[2];
    render_pixel_center(z, x, y, px, i, j, &p[0], &p[1]);
    return noise_eval_point(s, p, 2, NULL, NULL);
}

typedef struct {
    unsigned char *png;
    size_t size;
    unsigned char *pix; /* decoded, px*px*channels */
    int px, channels;
} tile;

/* Renders and decodes a tile as gray (channels 1) or RGB (channels 3).
 * Returns 0, or -1 after recording a failure. */
static int get_tile(tile *t, const noise_spec *s, int z, int64_t x, int64_t y, int px,
                    render_palette pal, int shade, int zero, int channels)
{
    memset(t, 0, sizeof *t);
    render_opts o = {.palette = pal, .shade = shade, .zero = zero};
    int rc = render_tile_png(s, z, x, y, px, &o, &t->png, &t->size);
    CHECKF(rc == 0, "render %d/%lld/%lld: %d", z, (long long)x, (long long)y, rc);
    if (rc)
        return -1;
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, t->png, t->size)) {
        CHECKF(0, "libpng cannot read the tile: %s", img.message);
        return -1;
    }
    CHECK((int)img.width == px && (int)img.height == px);
    img.format = channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
    t->pix = malloc(PNG_IMAGE_SIZE(img));
    t->px = px;
    t->channels = channels;
    if (!png_image_finish_read(&img, NULL, t->pix, 0, NULL)) {
        CHECKF(0, "libpng cannot decode the tile: %s", img.message);
        return -1;
    }
    return 0;
}

static void free_tile(tile *t)
{
    free(t->png);
    free(t->pix);
}

static const unsigned char *pixel(const tile *t, int i, int j)
{
    return t->pix + ((size_t)j * t->px + i) * t->channels;
}

static int color_type(const tile *t)
{
    return t->size > 25 ? t->png[25] : -1;
}

/* ---- geometry ---- */

static void test_palette_names(void)
{
    const char *const *names = render_palette_names();
    CHECK(strcmp(names[0], "gray") == 0 && strcmp(names[1], "terrain") == 0 &&
          strcmp(names[2], "viridis") == 0 && names[3] == NULL);
    for (int k = 0; names[k]; k++) {
        render_palette p = RENDER_PALETTE_COUNT;
        CHECK(render_palette_from_name(names[k], &p) == 0 && (int)p == k);
    }
    render_palette p = RENDER_VIRIDIS;
    CHECK(render_palette_from_name("grey", &p) == -1 && p == RENDER_VIRIDIS);
    CHECK(render_palette_from_name("", &p) == -1);
    CHECK(render_palette_from_name("Gray", &p) == -1);
    CHECK(render_palette_from_name(NULL, &p) == -1);
}

static void test_pixel_center(void)
{
    double x, y;
    render_pixel_center(0, 0, 0, 256, 0, 0, &x, &y);
    CHECK(x == 16.0 / 512 && y == 16.0 / 512);
    render_pixel_center(0, 0, 0, 256, 255, 128, &x, &y);
    CHECK(x == 16.0 - 16.0 / 512 && y == 8.0 + 16.0 / 512);
    render_pixel_center(1, -1, 1, 256, 0, 255, &x, &y); /* side 8 */
    CHECK(x == -8.0 + 8.0 / 512 && y == 16.0 - 8.0 / 512);
    render_pixel_center(3, 5, -7, 512, 511, 0, &x, &y); /* side 2 */
    CHECK(x == 12.0 - 2.0 / 1024 && y == -14.0 + 2.0 / 1024);
    /* extremes are exact: x = -2^31 at z = 30 is -2^31 * 2^-26 = -32 */
    render_pixel_center(30, -2147483648LL, 2147483647LL, 256, 0, 255, &x, &y);
    CHECK(x == (-2147483648.0 + 0.5 / 256) * ldexp(16.0, -30));
    CHECK(y == (2147483647.0 + 255.5 / 256) * ldexp(16.0, -30));
    CHECK(x < -31.99 && x > -32.0 && y > 31.99 && y < 32.0);
}

/* ---- values ---- */

/* Every pixel of a gray tile is the field at the pixel's centre, to one grey
 * level (the tile samples in float), and nearly all are exact. */
static void check_gray_tile_matches_field(const noise_spec *s, int z, int64_t x, int64_t y,
                                          int px)
{
    tile t;
    if (get_tile(&t, s, z, x, y, px, RENDER_GRAY, 0, 0, 1) == 0) {
        CHECK(color_type(&t) == 0); /* 8-bit grayscale */
        int off = 0, exact = 0, worst = 0;
        for (int j = 0; j < px; j++)
            for (int i = 0; i < px; i++) {
                double v = field_at(s, z, x, y, px, i, j);
                long want = lround((v + 1.0) * 127.5);
                want = want < 0 ? 0 : want > 255 ? 255 : want;
                int d = abs((int)(pixel(&t, i, j)[0] - want));
                off += d > 1;
                exact += d == 0;
                worst = d > worst ? d : worst;
            }
        CHECKF(off == 0, "tile %d/%lld/%lld@%d: %d pixels off by more than one level (worst %d)",
               z, (long long)x, (long long)y, px, off, worst);
        CHECKF(exact > px * px * 99 / 100, "only %d of %d pixels exact", exact, px * px);
    }
    free_tile(&t);
}

static void test_gray_pixels_match_field(void)
{
    noise_spec s = field(7, 6);
    check_gray_tile_matches_field(&s, 0, 0, 0, 256);
    check_gray_tile_matches_field(&s, 3, -2, 5, 256);
    check_gray_tile_matches_field(&s, 12, 1234, -4321, 256);
}

static void test_2x_pixels_match_field(void)
{
    noise_spec s = field(11, 4);
    check_gray_tile_matches_field(&s, 2, 1, -1, 512);
    check_gray_tile_matches_field(&s, 9, -300, 77, 512);
}

static void test_extreme_tile_indices(void)
{
    noise_spec s = field(3, 3);
    const int64_t lo = -2147483648LL, hi = 2147483647LL;
    check_gray_tile_matches_field(&s, 30, lo, hi, 256);
    check_gray_tile_matches_field(&s, 30, hi, lo, 256);
    check_gray_tile_matches_field(&s, 0, lo, lo, 256);
    check_gray_tile_matches_field(&s, 0, hi, hi, 256);
    /* and the other formats render there too */
    tile t;
    if (get_tile(&t, &s, 30, lo, lo, 256, RENDER_TERRAIN, 1, 1, 3) == 0)
        CHECK(color_type(&t) == 2);
    free_tile(&t);
}

/* ---- seamless borders ---- */

/* Mean absolute difference (summed over channels) between column a of ta
 * and column b of tb; rows when rows is 1. */
static double mad(const tile *ta, int a, const tile *tb, int b, int rows)
{
    double sum = 0;
    for (int k = 0; k < ta->px; k++) {
        const unsigned char *p = rows ? pixel(ta, k, a) : pixel(ta, a, k);
        const unsigned char *q = rows ? pixel(tb, k, b) : pixel(tb, b, k);
        for (int c = 0; c < ta->channels; c++)
            sum += abs(p[c] - q[c]);
    }
    return sum / ta->px;
}

/* Tiles (x, y) and its right (or lower) neighbour: the step across the
 * border is like the steps between the columns (rows) next to it. */
static void check_seamless(const noise_spec *s, int z, int64_t x, int64_t y, render_palette pal,
                           int shade, int channels)
{
    double border = 0, inner = 0;
    for (int dir = 0; dir < 2; dir++) { /* 0: columns (x+1), 1: rows (y+1) */
        tile a, b;
        int ok = get_tile(&a, s, z, x, y, 256, pal, shade, 0, channels) == 0 &&
                 get_tile(&b, s, z, x + (dir == 0), y + (dir == 1), 256, pal, shade, 0,
                          channels) == 0;
        if (ok) {
            double bd = mad(&a, 255, &b, 0, dir);
            double in = (mad(&a, 253, &a, 254, dir) + mad(&a, 254, &a, 255, dir) +
                         mad(&b, 0, &b, 1, dir) + mad(&b, 1, &b, 2, dir)) /
                        4;
            CHECKF(bd > 0.5 * in && bd < 1.6 * in,
                   "%s border of %d/%lld/%lld (palette %d shade %d): %.2f, inside %.2f",
                   dir ? "lower" : "right", z, (long long)x, (long long)y, pal, shade, bd, in);
            border += bd;
            inner += in;
        }
        free_tile(&a);
        free_tile(&b);
    }
    CHECK(inner > 0); /* the field is not flat there, so the test can see a seam */
}

static void test_seamless_borders(void)
{
    /* A frequency that puts no lattice line on a tile border: on a lattice
     * line the fade flattens every octave's gradient change, which would make
     * a border smoother than the columns next to it. */
    noise_spec s = field(5, 6);
    s.frequency = 0.73;
    /* (borders off the axes x = 0 and y = 0 too: lattice lines of every
     * octave at any frequency) */
    check_seamless(&s, 2, 1, 1, RENDER_GRAY, 0, 1);
    check_seamless(&s, 3, -3, -5, RENDER_GRAY, 0, 1);
    check_seamless(&s, 1, 3, -3, RENDER_TERRAIN, 0, 3);
    check_seamless(&s, 2, 1, 2, RENDER_GRAY, 1, 3);
    check_seamless(&s, 4, -3, 2, RENDER_TERRAIN, 1, 3);
    check_seamless(&s, 3, 2, -3, RENDER_VIRIDIS, 1, 3);
}

/* ---- palettes ---- */

static double luma(const unsigned char c[3])
{
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

/* CIE 1976 lightness of an sRGB colour */
static double cie_lstar(const unsigned char c[3])
{
    double lin[3];
    for (int k = 0; k < 3; k++) {
        double u = c[k] / 255.0;
        lin[k] = u <= 0.04045 ? u / 12.92 : pow((u + 0.055) / 1.055, 2.4);
    }
    double y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    return y > 216.0 / 24389 ? 116 * cbrt(y) - 16 : y * 24389.0 / 27;
}

static void test_palette_colors(void)
{
    unsigned char c[3], d[3];
    /* gray: lround((v+1)*127.5), clamped */
    render_palette_color(RENDER_GRAY, -1.0, c);
    CHECK(c[0] == 0 && c[1] == 0 && c[2] == 0);
    render_palette_color(RENDER_GRAY, 0.0, c);
    CHECK(c[0] == 128 && c[1] == 128 && c[2] == 128);
    render_palette_color(RENDER_GRAY, -0.5, c);
    CHECK(c[0] == 64);
    render_palette_color(RENDER_GRAY, 1.0, c);
    CHECK(c[0] == 255);
    render_palette_color(RENDER_GRAY, 7.0, c);
    CHECK(c[0] == 255);

    /* terrain: deep sea dark blue, lighter toward the coast */
    double prev = -1;
    int darker_inland = 0;
    for (double v = -1.0; v < 0; v += 1.0 / 127) {
        render_palette_color(RENDER_TERRAIN, v, c);
        CHECKF(c[2] > c[0] && c[2] > c[1], "sea at %.3f: %d,%d,%d", v, c[0], c[1], c[2]);
        darker_inland += luma(c) < prev;
        prev = luma(c);
    }
    CHECK(darker_inland == 0);
    /* the coastline: a sharp change of colour at 0 */
    render_palette_color(RENDER_TERRAIN, -0.001, c);
    render_palette_color(RENDER_TERRAIN, 0.001, d);
    CHECKF(abs(c[0] - d[0]) + abs(c[1] - d[1]) + abs(c[2] - d[2]) > 120,
           "coast %d,%d,%d | %d,%d,%d", c[0], c[1], c[2], d[0], d[1], d[2]);
    CHECK(d[0] > d[2] && d[1] > d[2]); /* beach: sand */
    render_palette_color(RENDER_TERRAIN, 0.15, c);
    CHECK(c[1] > c[0] && c[1] > c[2]); /* grass */
    render_palette_color(RENDER_TERRAIN, 0.4, d);
    CHECK(d[1] > d[0] && d[1] > d[2] && luma(d) < luma(c)); /* darker forest */
    render_palette_color(RENDER_TERRAIN, 0.6, c);
    CHECK(abs(c[0] - c[1]) < 40 && abs(c[1] - c[2]) < 40 && c[0] > 90); /* rock */
    render_palette_color(RENDER_TERRAIN, 0.95, c);
    CHECK(c[0] > 230 && c[1] > 230 && c[2] > 230); /* snow */

    /* viridis: its published end colours; lightness rising all the way */
    render_palette_color(RENDER_VIRIDIS, -1.0, c);
    CHECKF(abs(c[0] - 68) <= 3 && abs(c[1] - 1) <= 3 && abs(c[2] - 84) <= 3, "%d,%d,%d", c[0],
           c[1], c[2]);
    render_palette_color(RENDER_VIRIDIS, 1.0, c);
    CHECKF(abs(c[0] - 253) <= 3 && abs(c[1] - 231) <= 3 && abs(c[2] - 37) <= 3, "%d,%d,%d",
           c[0], c[1], c[2]);
    render_palette_color(RENDER_VIRIDIS, 0.0, c); /* the middle: #21918c */
    CHECKF(abs(c[0] - 33) <= 3 && abs(c[1] - 145) <= 3 && abs(c[2] - 140) <= 3, "%d,%d,%d",
           c[0], c[1], c[2]);
    /* perceptually uniform: CIE L* rises evenly over the 255 levels (every
     * 16 levels by 3..7, from about 15 to 91), never falling by more than
     * rounding */
    double lstar[255];
    for (int k = 0; k < 255; k++) {
        render_palette_color(RENDER_VIRIDIS, (k + 0.5) / 127.0 - 1.0, c);
        lstar[k] = cie_lstar(c);
    }
    int falls = 0, uneven = 0;
    for (int k = 0; k + 1 < 255; k++)
        falls += lstar[k + 1] < lstar[k] - 0.1;
    for (int k = 0; k + 16 < 255; k += 16)
        uneven += lstar[k + 16] - lstar[k] < 3.0 || lstar[k + 16] - lstar[k] > 7.0;
    CHECK(falls == 0 && uneven == 0);
    CHECKF(lstar[0] < 20 && lstar[254] > 85, "L* %.1f..%.1f", lstar[0], lstar[254]);
}

/* Every pixel of an unshaded palette tile has the palette colour of the
 * field value at its centre; the tile is indexed with a 256-entry PLTE. */
static void test_palette_tiles_match_field(void)
{
    noise_spec s = field(21, 5);
    for (int pal = RENDER_TERRAIN; pal <= RENDER_VIRIDIS; pal++) {
        tile t;
        if (get_tile(&t, &s, 2, -1, 2, 256, (render_palette)pal, 0, 0, 3) == 0) {
            CHECK(color_type(&t) == 3);
            CHECK(t.size > 41 && memcmp(t.png + 37, "PLTE", 4) == 0 &&
                  t.png[33] == 0 && t.png[34] == 0 && t.png[35] == 3 && t.png[36] == 0); /* 768 bytes */
            int bad = 0;
            for (int j = 0; j < 256; j++)
                for (int i = 0; i < 256; i++) {
                    double v = field_at(&s, 2, -1, 2, 256, i, j);
                    /* a float sample just across a level boundary may take
                     * the neighbouring level */
                    unsigned char want[3], lo[3], hi[3];
                    render_palette_color((render_palette)pal, v, want);
                    render_palette_color((render_palette)pal, v - 1e-5, lo);
                    render_palette_color((render_palette)pal, v + 1e-5, hi);
                    const unsigned char *got = pixel(&t, i, j);
                    bad += memcmp(got, want, 3) && memcmp(got, lo, 3) && memcmp(got, hi, 3);
                }
            CHECKF(bad == 0, "palette %d: %d pixels off", pal, bad);
        }
        free_tile(&t);
    }
}

/* ---- the zero line ---- */

static void test_zero_line(void)
{
    noise_spec s = field(9, 4);
    const int z = 2, px = 256, gw = px + 1;
    /* the field at every pixel centre of the tile plus one column and row
     * beyond (which belong to the next tiles), once for all palettes */
    double *field_v = malloc(sizeof(double) * gw * gw);
    for (int j = 0; j < gw; j++)
        for (int i = 0; i < gw; i++)
            field_v[j * gw + i] = field_at(&s, z, 0, 0, px, i, j);
    for (int pal = RENDER_GRAY; pal <= RENDER_VIRIDIS; pal++) {
        tile plain, zero, right;
        int ok = get_tile(&plain, &s, z, 0, 0, px, (render_palette)pal, 0, 0, 3) == 0 &&
                 get_tile(&zero, &s, z, 0, 0, px, (render_palette)pal, 0, 1, 3) == 0 &&
                 get_tile(&right, &s, z, 1, 0, px, (render_palette)pal, 0, 1, 3) == 0;
        if (ok) {
            CHECK(color_type(&zero) == 3); /* indexed, gray included */
            /* the marking colour: the first pixel that changed clearly (gray
             * tiles with the zero line have 255 grey levels, not 256, so
             * other pixels may differ by one level) */
            const unsigned char *mark = NULL;
            int changed = 0;
            for (size_t p = 0; p < (size_t)px * px; p++) {
                const unsigned char *a = zero.pix + 3 * p, *b = plain.pix + 3 * p;
                int d = abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]);
                if (d > 8) {
                    mark = mark ? mark : a;
                    changed++;
                }
            }
            CHECK(mark != NULL);
            int wrong = 0, marked = 0, unclear = 0, at_right_edge = 0;
            for (int j = 0; mark && j < px; j++)
                for (int i = 0; i < px; i++) {
                    /* the pixel's right and lower neighbours may lie in the
                     * next tiles: the field there is known all the same */
                    double v = field_v[j * gw + i];
                    double vr = field_v[j * gw + i + 1];
                    double vd = field_v[(j + 1) * gw + i];
                    int want = (v < 0) != (vr < 0) || (v < 0) != (vd < 0);
                    int near = fabs(v) < 1e-5 || fabs(vr) < 1e-5 || fabs(vd) < 1e-5;
                    int got = memcmp(pixel(&zero, i, j), mark, 3) == 0;
                    if (got) {
                        marked++;
                        at_right_edge += i == px - 1;
                    }
                    if (got != want) {
                        if (near)
                            unclear++;
                        else
                            wrong++;
                    }
                }
            CHECKF(wrong == 0, "palette %d: %d pixels wrongly (un)marked", pal, wrong);
            CHECK(unclear < 10);
            CHECK(marked > 100); /* the tile really crosses 0 */
            CHECK(marked == changed); /* every clearly changed pixel has the one colour */
            /* a colour no value has in this palette */
            int value_clash = 0;
            for (int k = 0; mark && k <= 2000; k++) {
                unsigned char c[3];
                render_palette_color((render_palette)pal, k / 1000.0 - 1.0, c);
                value_clash += abs(c[0] - mark[0]) + abs(c[1] - mark[1]) + abs(c[2] - mark[2]) < 60;
            }
            CHECK(value_clash == 0);
            CHECK(at_right_edge > 0); /* marks reach the border (from the extra column) */
            /* the next tile's first column follows the same rule: the line
             * is one function of the plane's pixel grid, with no seam */
            int wrong_next = 0;
            for (int j = 0; mark && j < px; j++) {
                double v = field_at(&s, z, 1, 0, px, 0, j);
                double vr = field_at(&s, z, 1, 0, px, 1, j);
                double vd = field_at(&s, z, 1, 0, px, 0, j + 1);
                int want = (v < 0) != (vr < 0) || (v < 0) != (vd < 0);
                int near = fabs(v) < 1e-5 || fabs(vr) < 1e-5 || fabs(vd) < 1e-5;
                wrong_next += !near && want != (memcmp(pixel(&right, 0, j), mark, 3) == 0);
            }
            CHECK(wrong_next == 0);
        }
        free_tile(&plain);
        free_tile(&zero);
        free_tile(&right);
    }
    free(field_v);
}

/* ---- hillshading ---- */

/* Shaded pixels are brighter where the slope faces the light (north-west:
 * the gradient points south-east, +x +y) and darker where it faces away;
 * flat places keep the unshaded colour. */
static void test_hillshade_follows_gradient(void)
{
    noise_spec s = field(13, 3);
    const int z = 3, px = 256;
    tile flat, lit;
    if (get_tile(&flat, &s, z, 1, 1, px, RENDER_GRAY, 0, 0, 1) == 0 &&
        get_tile(&lit, &s, z, 1, 1, px, RENDER_GRAY, 1, 0, 3) == 0) {
        CHECK(color_type(&lit) == 2);
        int agree = 0, disagree = 0, flat_kept = 0, n_flat = 0;
        for (int j = 0; j < px; j += 2)
            for (int i = 0; i < px; i += 2) {
                double p[2], g[2];
                render_pixel_center(z, 1, 1, px, i, j, &p[0], &p[1]);
                noise_eval_point(&s, p, 2, g, NULL);
                int base = pixel(&flat, i, j)[0];
                int shaded = pixel(&lit, i, j)[0];
                CHECK(pixel(&lit, i, j)[1] == shaded && pixel(&lit, i, j)[2] == shaded);
                /* uphill toward +x+y (south-east): the slope faces the
                 * light; the part of the slope across the light's
                 * direction only tilts the surface sideways */
                double along = g[0] + g[1], across = g[0] - g[1];
                double steep = hypot(g[0], g[1]);
                if (steep < 0.02) {
                    n_flat++;
                    flat_kept += abs(shaded - base) <= 3;
                } else if (fabs(along) > 0.3 && fabs(across) < 0.3 * fabs(along) && base > 20 &&
                           base < 200) {
                    if ((shaded > base) == (along > 0))
                        agree++;
                    else
                        disagree++;
                }
            }
        CHECKF(agree > 300 && disagree == 0, "agree %d disagree %d", agree, disagree);
        CHECK(flat_kept == n_flat);
    }
    free_tile(&flat);
    free_tile(&lit);
}

/* ---- bytes ---- */

static void test_deterministic_bytes(void)
{
    noise_spec s = field(17, 6);
    for (int pal = RENDER_GRAY; pal <= RENDER_VIRIDIS; pal++)
        for (int shade = 0; shade <= 1; shade++)
            for (int zero = 0; zero <= 1; zero++) {
                render_opts o = {.palette = (render_palette)pal, .shade = shade, .zero = zero};
                unsigned char *a = NULL, *b = NULL;
                size_t na = 0, nb = 0;
                CHECK(render_tile_png(&s, 4, -3, 7, 256, &o, &a, &na) == 0);
                CHECK(render_tile_png(&s, 4, -3, 7, 256, &o, &b, &nb) == 0);
                CHECKF(na == nb && na > 0 && memcmp(a, b, na) == 0, "palette %d shade %d zero %d",
                       pal, shade, zero);
                free(a);
                free(b);
            }
    /* and a different seed or tile gives different bytes */
    noise_spec t = field(18, 6);
    unsigned char *a = NULL, *b = NULL, *c = NULL;
    size_t na = 0, nb = 0, nc = 0;
    CHECK(render_tile_png(&s, 4, -3, 7, 256, NULL, &a, &na) == 0);
    CHECK(render_tile_png(&t, 4, -3, 7, 256, NULL, &b, &nb) == 0);
    CHECK(render_tile_png(&s, 4, -3, 8, 256, NULL, &c, &nc) == 0);
    CHECK(!(na == nb && memcmp(a, b, na) == 0));
    CHECK(!(na == nc && memcmp(a, c, na) == 0));
    free(a);
    free(b);
    free(c);
}

static void test_allocation_failure(void)
{
    noise_spec s = field(2, 2);
    render_opts o = {.palette = RENDER_TERRAIN, .shade = 1, .zero = 1};
    int n_failed = 0, wrong = 0;
    scratch_set_keep(0); /* every attempt allocates its scratch, as a thread's first tile does */
    for (long nth = 1; nth < 1000; nth++) {
        failalloc_arm(nth);
        unsigned char *png = (unsigned char *)&s;
        size_t n = 1;
        int rc = render_tile_png(&s, 1, 0, 0, 64, &o, &png, &n);
        int fired = failalloc_fired();
        failalloc_arm(0);
        if (!fired) {
            CHECK(rc == 0 && png != NULL);
            free(png);
            break;
        }
        n_failed++;
        if (rc == 0) /* the encoder's final shrink may fail: not an error */
            wrong += png == NULL || n < 100;
        else
            wrong += rc != RENDER_ENOMEM || png != NULL;
        free(png);
    }
    CHECKF(wrong == 0, "%d of %d failures misreported", wrong, n_failed);
    CHECK(n_failed >= 4); /* scratch buffers, and the encoder's */
    scratch_set_keep(SCRATCH_KEEP);
}

int main(void)
{
    RUN(test_palette_names);
    RUN(test_pixel_center);
    RUN(test_gray_pixels_match_field);
    RUN(test_2x_pixels_match_field);
    RUN(test_extreme_tile_indices);
    RUN(test_seamless_borders);
    RUN(test_palette_colors);
    RUN(test_palette_tiles_match_field);
    RUN(test_zero_line);
    RUN(test_hillshade_follows_gradient);
    RUN(test_deterministic_bytes);
    RUN(test_allocation_failure);
    return t_done();
}
