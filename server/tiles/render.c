/* render.c: field -> PNG tile: tile geometry, palettes, hillshading, the
 * zero line (see render.h).
 *
 * One noise_field_grid() call per tile (on a field prepared for it) fills the values (and the gradients
 * when shading); then each pixel becomes a palette index, a grey level or a
 * shaded RGB colour, and pngenc encodes the result.
 *
 * Quantisation (the exact rules the tests check):
 * - gray, unshaded, no zero line: 8-bit grayscale, g = lround((v+1)*127.5)
 *   clamped to 0..255 (v = -1 -> 0, v = 0 -> 128, v = 1 -> 255). Grayscale
 *   rather than indexed because it encodes to the same IDAT bytes minus the
 *   780-byte PLTE chunk at the same speed (BENCHMARKS.md).
 * - every other unshaded tile: indexed, k = floor((v+1)*127) clamped to
 *   0..254, so 255 value levels with the boundary between k = 126 and 127
 *   exactly at v = 0 (the coastline); the palette colour of k is the colour
 *   of the level's centre value (k+0.5)/127 - 1; index 255 is reserved for
 *   the zero line. The PLTE always has 256 entries.
 * - shaded: RGB, the unshaded colour (gray: the 256-level grey) times the
 *   hillshade factor, rounded.
 *
 * Hillshading: Lambertian light from azimuth 315 deg (north-west; north is
 * -y, up on screen) at altitude 45 deg. The surface is h = v / frequency
 * with a vertical exaggeration RELIEF, i.e. slopes are taken in the
 * field's own units (plane units times frequency): the gradient is analytic
 * and in plane units, so no neighbour pixels or tiles are needed and tiles
 * join without seams, a place has the same light at every zoom (as a DEM
 * hillshade has), and changing frequency only rescales the picture. The
 * factor is ambient + (1-ambient) * cos(angle)/sin(altitude), so flat
 * ground keeps its palette colour, slopes facing the light brighten and
 * slopes facing away darken.
 *
 * Zero line: pixel (i, j) is marked when v(i, j) and v(i+1, j), or v(i, j)
 * and v(i, j+1), lie on different sides of 0 (v < 0 versus v >= 0). The
 * grid has one extra row and column for the neighbours of the last ones, so
 * the line continues across tile borders.
 */
#include "tiles/render.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/failalloc.h"
#include "tiles/pngenc.h"
#include "tiles/webpenc.h"
#include "base/scratch.h"

#define N_LEVELS 255        /* value levels of the indexed palettes */
#define ZERO_INDEX 255      /* the palette index of the zero line */
static const unsigned char zero_rgb[3] = {228, 26, 28}; /* red, against every palette */

#define RELIEF 0.4          /* vertical exaggeration, see above */
#define AMBIENT 0.35

/* ---- palette names ---- */

static const char *const palette_names[] = {"gray", "terrain", "viridis", NULL};

const char *const *render_palette_names(void)
{
    return palette_names;
}

int render_palette_from_name(const char *name, render_palette *out)
{
    for (int k = 0; name && palette_names[k]; k++)
        if (strcmp(name, palette_names[k]) == 0) {
            *out = (render_palette)k;
            return 0;
        }
    return -1;
}

/* ---- colours ---- */

typedef render_stop stop;

/* Terrain: deep sea dark blue, lighter toward the coast; a sharp step at 0
 * from pale shallow water to sand makes the coastline; then grass, forest,
 * rock and snow. Two stops at the same value make a sharp band edge. */
static const stop terrain_stops[] = {
    {-1.00, {10, 26, 76}},    {-0.55, {22, 62, 134}},   {-0.20, {48, 112, 182}},
    {-0.04, {112, 172, 220}}, {0.00, {160, 206, 236}},  {0.00, {228, 214, 158}},
    {0.05, {214, 198, 140}},  {0.06, {150, 190, 100}},  {0.25, {88, 156, 64}},
    {0.30, {52, 118, 48}},    {0.48, {36, 86, 38}},     {0.52, {118, 104, 84}},
    {0.66, {150, 140, 130}},  {0.72, {236, 236, 240}},  {1.00, {255, 255, 255}},
};

/* Viridis (matplotlib's perceptually uniform map by van der Walt and
 * Smith), from its published colours at t = 0, 0.1, ..., 1, interpolated
 * linearly in sRGB: within 2 levels of the 256-entry original. */
static const stop viridis_stops[] = {
    {0.0, {68, 1, 84}},    {0.1, {72, 36, 117}},  {0.2, {65, 68, 135}},  {0.3, {53, 95, 141}},
    {0.4, {42, 120, 142}}, {0.5, {33, 145, 140}}, {0.6, {34, 168, 132}}, {0.7, {68, 191, 112}},
    {0.8, {122, 209, 81}}, {0.9, {189, 223, 38}}, {1.0, {253, 231, 37}},
};

/* The colour at t by linear interpolation between stops; at a doubled stop
 * the upper one wins (t = 0 is land). */
static void interpolate(const stop *s, size_t n, double t, unsigned char rgb[3])
{
    size_t k = 0;
    while (k + 1 < n && t >= s[k + 1].at)
        k++;
    if (k + 1 >= n || t <= s[k].at) {
        memcpy(rgb, s[k].rgb, 3);
        return;
    }
    double f = (t - s[k].at) / (s[k + 1].at - s[k].at);
    for (int c = 0; c < 3; c++)
        rgb[c] = (unsigned char)lround(s[k].rgb[c] + f * (s[k + 1].rgb[c] - s[k].rgb[c]));
}

static int gray_level(double v)
{
    double t = (v + 1.0) * 127.5;
    if (!(t > 0.0))
        return 0;
    if (t >= 255.0)
        return 255;
    return (int)(t + 0.5); /* lround for t >= 0 */
}

static int level_index(double v)
{
    double t = (v + 1.0) * 127.0;
    if (!(t > 0.0))
        return 0;
    if (t >= N_LEVELS - 1)
        return N_LEVELS - 1;
    return (int)t; /* floor for t >= 0 */
}

/* The palette's colour at value v in [-1, 1], before quantisation. */
static void palette_color_at(render_palette palette, double v, unsigned char rgb[3])
{
    switch (palette) {
    case RENDER_TERRAIN:
        interpolate(terrain_stops, sizeof terrain_stops / sizeof terrain_stops[0], v, rgb);
        break;
    case RENDER_VIRIDIS:
        interpolate(viridis_stops, sizeof viridis_stops / sizeof viridis_stops[0], (v + 1.0) / 2.0,
                    rgb);
        break;
    default:
        rgb[0] = rgb[1] = rgb[2] = (unsigned char)gray_level(v);
        break;
    }
}

static double level_center(int k)
{
    return (k + 0.5) / 127.0 - 1.0;
}

void render_palette_color(render_palette palette, double value, unsigned char out_rgb[3])
{
    if (palette == RENDER_GRAY)
        palette_color_at(palette, value, out_rgb);
    else
        palette_color_at(palette, level_center(level_index(value)), out_rgb);
}

/* The 256-entry PLTE of an indexed tile: the 255 levels, then the zero line. */
static void build_plte(render_palette palette, unsigned char plte[768])
{
    for (int k = 0; k < N_LEVELS; k++)
        palette_color_at(palette, level_center(k), plte + 3 * k);
    memcpy(plte + 3 * ZERO_INDEX, zero_rgb, 3);
}

/* The level colours of the options: the ramp's when it has one (a ramp
 * picture is quantised to the same 255 levels as the palettes, so it has
 * the palettes' one-byte-per-pixel tiles), else the palette's. */
static void build_table(const render_opts *o, unsigned char plte[768])
{
    if (o->ramp.n > 0) {
        for (int k = 0; k < N_LEVELS; k++)
            interpolate(o->ramp.stops, (size_t)o->ramp.n, level_center(k), plte + 3 * k);
        memcpy(plte + 3 * ZERO_INDEX, zero_rgb, 3);
    } else {
        build_plte(o->palette, plte);
    }
}

/* Gray pictures are grey levels, not a level table: only without a ramp. */
static int is_gray(const render_opts *o)
{
    return o->palette == RENDER_GRAY && o->ramp.n == 0;
}

/* ---- pictures of any window, row by row ---- */

void render_colors_init(render_colors *c, const render_opts *opts, double frequency)
{
    assert((int)opts->palette >= 0 && opts->palette < RENDER_PALETTE_COUNT);
    c->opts = *opts;
    c->inv_frequency = 1.0 / frequency;
    if (!is_gray(opts))
        build_table(opts, c->table);
}

static double shade_factor(double gx, double gy, double inv_frequency);
static unsigned char scale_channel(int c, double f);

void render_color_row(const render_colors *c, int width, const float *values, const float *below,
                      const float *grads, unsigned char *out_rgb)
{
    const render_opts *o = &c->opts;
    for (int i = 0; i < width; i++) {
        unsigned char *out = out_rgb + 3 * (size_t)i;
        if (o->zero) {
            int neg = values[i] < 0.0f;
            if (neg != (values[i + 1] < 0.0f) || neg != (below[i] < 0.0f)) {
                memcpy(out, zero_rgb, 3);
                continue;
            }
        }
        if (is_gray(o)) {
            int g = gray_level(values[i]);
            unsigned char v = o->shade ? scale_channel(g, shade_factor(grads[2 * i], grads[2 * i + 1],
                                                                       c->inv_frequency))
                                       : (unsigned char)g;
            out[0] = out[1] = out[2] = v;
        } else {
            const unsigned char *base = c->table + 3 * level_index(values[i]);
            if (o->shade) {
                double f = shade_factor(grads[2 * i], grads[2 * i + 1], c->inv_frequency);
                for (int k = 0; k < 3; k++)
                    out[k] = scale_channel(base[k], f);
            } else {
                memcpy(out, base, 3);
            }
        }
    }
}

/* ---- geometry ---- */

void render_pixel_center(int z, int64_t x, int64_t y, int px, int i, int j,
                         double *out_x, double *out_y)
{
    double side = ldexp(RENDER_WORLD_SIZE, -z);
    *out_x = ((double)x + (i + 0.5) / px) * side;
    *out_y = ((double)y + (j + 0.5) / px) * side;
}

/* ---- rendering ---- */

static int crosses_zero(const float *v, int stride, int i, int j)
{
    const float *p = v + (size_t)j * stride + i;
    int neg = p[0] < 0.0f;
    return neg != (p[1] < 0.0f) || neg != (p[stride] < 0.0f);
}

/* The hillshade factor for a gradient in plane units. */
static double shade_factor(double gx, double gy, double inv_frequency)
{
    /* light direction (towards the light): azimuth 315 deg, altitude 45 deg,
     * screen axes x right, y down, z up: (cos 45 sin 315, -cos 45 cos 315,
     * sin 45), written out so that no build depends on libm's cos/sin */
    const double lx = -0.5, ly = -0.5, lz = M_SQRT1_2;
    double sx = RELIEF * gx * inv_frequency, sy = RELIEF * gy * inv_frequency;
    /* normal (-sx, -sy, 1) / |...| */
    double lambert = (-sx * lx - sy * ly + lz) / sqrt(sx * sx + sy * sy + 1.0);
    if (lambert < 0.0)
        lambert = 0.0;
    return AMBIENT + (1.0 - AMBIENT) * lambert / lz;
}

static unsigned char scale_channel(int c, double f)
{
    double t = c * f + 0.5;
    return (unsigned char)(t >= 255.0 ? 255 : (int)t);
}

int render_webp_lossless(const render_opts *opts)
{
    return !opts || !opts->shade;
}

int render_tile_png(const noise_spec *spec, int z, int64_t x, int64_t y, int px,
                    const render_opts *opts, unsigned char **out_png, size_t *out_size)
{
    return render_tile(spec, z, x, y, px, opts, RENDER_PNG, 0, out_png, out_size);
}

/* The tile's pixels as RGB for the WebP encoder (it takes RGB only). */
static void expand_rgb(const unsigned char *pixels, size_t n_px, pngenc_format format,
                       const unsigned char *plte, unsigned char *rgb)
{
    for (size_t p = 0; p < n_px; p++) {
        if (format == PNGENC_GRAY)
            rgb[3 * p] = rgb[3 * p + 1] = rgb[3 * p + 2] = pixels[p];
        else
            memcpy(rgb + 3 * p, plte + 3 * (size_t)pixels[p], 3);
    }
}

int render_encode(const unsigned char *pixels, int px, pngenc_format format, const unsigned char *plte,
                  int webp_quality, unsigned char **out, size_t *out_size)
{
    int rc;
    if (webp_quality < 0) {
        rc = pngenc_encode(pixels, px, px, (size_t)px * (format == PNGENC_RGB ? 3 : 1), format,
                           format == PNGENC_INDEXED ? plte : NULL, 256, NULL, out, out_size);
        return rc == PNGENC_ENOMEM ? RENDER_ENOMEM : rc < 0 ? RENDER_EPNG : rc;
    }
    size_t n_px = (size_t)px * (size_t)px;
    if (format == PNGENC_RGB) {
        rc = webpenc_encode(pixels, px, px, (size_t)px * 3, webp_quality, out, out_size);
    } else { /* WebP takes RGB */
        unsigned char *rgb = failalloc_malloc(n_px * 3);
        if (!rgb)
            return RENDER_ENOMEM;
        expand_rgb(pixels, n_px, format, plte, rgb);
        rc = webpenc_encode(rgb, px, px, (size_t)px * 3, webp_quality, out, out_size);
        free(rgb);
    }
    return rc < 0 && rc != RENDER_ENOMEM ? RENDER_EPNG : rc;
}

int render_tile(const noise_spec *spec, int z, int64_t x, int64_t y, int px, const render_opts *opts,
                render_format out_format, int quality, unsigned char **out_png, size_t *out_size)
{
    return render_tile_src(spec, NULL, z, x, y, px, opts, out_format, quality, out_png, out_size);
}

int render_tile_src(const noise_spec *spec, const fieldsrc_graph *graph, int z, int64_t x, int64_t y,
                    int px, const render_opts *opts, render_format out_format, int quality,
                    unsigned char **out_png, size_t *out_size)
{
    static const render_opts defaults = {.palette = RENDER_GRAY};
    assert((spec || graph) && out_png && out_size);
    assert(px >= 1 && px <= 4096 && z >= -64 && z <= 1000);
    *out_png = NULL;
    *out_size = 0;
    if (!opts)
        opts = &defaults;
    assert((int)opts->palette >= 0 && opts->palette < RENDER_PALETTE_COUNT);

    /* the zero line needs the right and lower neighbours: one more column and row */
    int extra = opts->zero ? 1 : 0;
    int gw = px + extra;
    size_t n_grid = (size_t)gw * (size_t)gw;
    size_t n_px = (size_t)px * (size_t)px;
    int channels = opts->shade ? 3 : 1;
    /* this thread's scratch (scratch.h): no fresh pages per tile */
    float *values = scratch_take(SCRATCH_VALUES, n_grid * sizeof *values);
    float *grads = opts->shade ? scratch_take(SCRATCH_GRADS, 2 * n_grid * sizeof *grads) : NULL;
    unsigned char *pixels = scratch_take(SCRATCH_PIXELS, n_px * (size_t)channels);
    /* the field prepared once for the tile (octave seeds, permutations),
     * or the request's prepared graph */
    fieldsrc field;
    int have_field = fieldsrc_init(&field, spec, graph) == 0;
    int rc = RENDER_ENOMEM;
    if (!values || (opts->shade && !grads) || !pixels || !have_field)
        goto done;

    double x0, y0;
    render_pixel_center(z, x, y, px, 0, 0, &x0, &y0);
    double step = ldexp(RENDER_WORLD_SIZE, -z) / px;
    if (fieldsrc_grid(&field, x0, y0, step, gw, gw, values, grads) != 0)
        goto done;

    pngenc_format format;
    unsigned char plte[768];
    if (opts->shade) {
        format = PNGENC_RGB;
        double inv_frequency = 1.0 / fieldsrc_shade_frequency(&field);
        unsigned char table[3 * 256];
        if (!is_gray(opts))
            build_table(opts, table);
        for (int j = 0; j < px; j++) {
            unsigned char *row = pixels + (size_t)j * 3 * px;
            for (int i = 0; i < px; i++) {
                size_t g = (size_t)j * gw + i;
                unsigned char *out = row + 3 * i;
                if (extra && crosses_zero(values, gw, i, j)) {
                    memcpy(out, zero_rgb, 3);
                    continue;
                }
                double f = shade_factor(grads[2 * g], grads[2 * g + 1], inv_frequency);
                if (is_gray(opts)) {
                    unsigned char c = scale_channel(gray_level(values[g]), f);
                    out[0] = out[1] = out[2] = c;
                } else {
                    const unsigned char *base = table + 3 * level_index(values[g]);
                    for (int c = 0; c < 3; c++)
                        out[c] = scale_channel(base[c], f);
                }
            }
        }
    } else if (is_gray(opts) && !extra) {
        format = PNGENC_GRAY;
        for (size_t p = 0; p < n_px; p++)
            pixels[p] = (unsigned char)gray_level(values[p]);
    } else {
        format = PNGENC_INDEXED;
        build_table(opts, plte);
        for (int j = 0; j < px; j++) {
            unsigned char *row = pixels + (size_t)j * px;
            const float *vrow = values + (size_t)j * gw;
            for (int i = 0; i < px; i++)
                row[i] = (unsigned char)level_index(vrow[i]);
            if (extra)
                for (int i = 0; i < px; i++)
                    if (crosses_zero(values, gw, i, j))
                        row[i] = ZERO_INDEX;
        }
    }

    rc = render_encode(pixels, px, format, plte,
                       out_format == RENDER_PNG            ? -1
                       : render_webp_lossless(opts)        ? WEBPENC_LOSSLESS
                       : quality == 0                      ? WEBPENC_DEFAULT_QUALITY
                                                           : quality,
                       out_png, out_size);

done:
    if (have_field)
        fieldsrc_free(&field);
    scratch_give(SCRATCH_PIXELS, pixels);
    scratch_give(SCRATCH_GRADS, grads);
    scratch_give(SCRATCH_VALUES, values);
    return rc;
}
