/* render.h: turns a field into a PNG or WebP map tile: tile geometry,
 * palettes and colour ramps, hillshading, the zero line, and the encoding
 * (through pngenc.h and webpenc.h).
 */
#ifndef RENDER_H
#define RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "noise.h"
#include "tiles/fieldsrc.h"
#include "tiles/pngenc.h"

/* The side of tile (0, 0, 0) in plane units (docs/field.md, "Tile geometry"). */
#define RENDER_WORLD_SIZE 16.0

typedef enum { RENDER_GRAY = 0, RENDER_TERRAIN, RENDER_VIRIDIS, RENDER_PALETTE_COUNT } render_palette;

/* A colour ramp (render_ramp_parse in ramp.h): colours at field values,
 * linear between stops in sRGB, the end colours beyond them; two stops at
 * the same value make a sharp edge (the upper one wins there). */
#define RENDER_RAMP_MAX_STOPS 32
typedef struct {
    double at;              /* field value, -1..1, non-decreasing along the ramp */
    unsigned char rgb[3];
} render_stop;
typedef struct {
    int n;                  /* 0: no ramp (the palette colours the tile); else 2..RENDER_RAMP_MAX_STOPS */
    render_stop stops[RENDER_RAMP_MAX_STOPS];
} render_ramp;

typedef struct {
    render_palette palette; /* default RENDER_GRAY */
    int shade;              /* 1: hillshade from the analytic gradient */
    int zero;               /* 1: mark where the value crosses 0 */
    render_ramp ramp;       /* ramp.n > 0: colours from the ramp instead of the
                             * palette, quantised to the palette's 255 levels */
} render_opts;

/* The picture formats of a tile. */
typedef enum { RENDER_PNG = 0, RENDER_WEBP } render_format;

/* Palette names ("gray", "terrain", "viridis"), NULL-terminated, for
 * /api/kinds, OpenAPI and validation messages. */
const char *const *render_palette_names(void);
/* Returns 0 and sets *out, or -1 for an unknown name. */
int render_palette_from_name(const char *name, render_palette *out);

/* The colour an unshaded tile of this palette shows for a field value
 * (clamped to [-1, 1]), as the exact R, G, B bytes of the tile's rules
 * (render.c): gray is lround((v+1)*127.5); terrain and viridis tiles show
 * the colour of the value's level, i.e. of (floor((v+1)*127)+0.5)/127-1. */
void render_palette_color(render_palette palette, double value, unsigned char out_rgb[3]);

/* A picture's colours prepared once for its options and field: the RGB
 * bytes a tile would show, row by row, for windows that are not tiles
 * (grid.png without an encoding). */
typedef struct {
    render_opts opts;
    double inv_frequency;      /* hillshading works in the field's own units */
    unsigned char table[768];  /* the level colours (palettes other than gray) */
} render_colors;

void render_colors_init(render_colors *c, const render_opts *opts, double frequency);

/* Colours one row of width pixels as RGB into out_rgb (3 * width bytes),
 * exactly as an RGB tile of the same options shows them. values: the row's
 * values, width + 1 of them when opts.zero (the right neighbour of the last
 * pixel); below: the next row's values (width + 1, opts.zero only, else
 * NULL); grads: 2 floats per pixel (opts.shade only, else NULL). */
void render_color_row(const render_colors *c, int width, const float *values, const float *below,
                      const float *grads, unsigned char *out_rgb);

/* The plane coordinates of the centre of pixel (i, j) of tile (z, x, y) of
 * width px: ((x + (i+0.5)/px) * S/2^z, (y + (j+0.5)/px) * S/2^z). */
void render_pixel_center(int z, int64_t x, int64_t y, int px, int i, int j,
                         double *out_x, double *out_y);

/* Renders tile (z, x, y) of the field, px x px pixels (256, or 512 for @2x),
 * and encodes it as PNG: indexed (one byte per pixel plus a palette) unless
 * shaded, RGB when shaded; plain gray tiles (no shade, no zero line) are
 * 8-bit grayscale, also one byte per pixel. opts NULL means the defaults.
 * On success returns 0 and sets *out_png to a malloc()ed buffer of
 * *out_size bytes that the caller frees. On failure returns a negative code
 * (RENDER_ENOMEM, RENDER_EPNG) and sets *out_png to NULL. Thread-safe;
 * allocates its own scratch (through failalloc.h). */
int render_tile_png(const noise_spec *spec, int z, int64_t x, int64_t y, int px,
                    const render_opts *opts, unsigned char **out_png, size_t *out_size);

/* render_tile_png in a format: RENDER_PNG is render_tile_png's bytes;
 * RENDER_WEBP is the same pixels as WebP (webpenc.h): lossless when
 * render_webp_lossless(opts) (unshaded tiles: at most 256 colours, where
 * lossless is exact and small), else lossy at quality (1..100,
 * WEBPENC_DEFAULT_QUALITY when the request names none). */
int render_tile(const noise_spec *spec, int z, int64_t x, int64_t y, int px, const render_opts *opts,
                render_format format, int quality, unsigned char **out, size_t *out_size);
/* render_tile of a prepared graph when graph is not NULL (spec is then
 * not used), else of spec. Hillshading divides the gradient by the graph's
 * shading frequency (fieldsrc.h) where a kind uses its frequency. */
int render_tile_src(const noise_spec *spec, const fieldsrc_graph *graph, int z, int64_t x, int64_t y,
                    int px, const render_opts *opts, render_format format, int quality,
                    unsigned char **out, size_t *out_size);
/* 1 if a WebP tile of these options is lossless (quality then unused). */
int render_webp_lossless(const render_opts *opts);

/* Codes from the one error table (errors.h). */
#define RENDER_ENOMEM ERR_NOMEM
#define RENDER_EPNG ERR_PNG

/* Bumped whenever a rendered tile's bytes change for the same request; with
 * NOISE_VERSION it forms the ETag's version part. */
#define RENDER_VERSION 1
/* Likewise for .webp tiles, whose bytes also depend on libwebp's version
 * (webpenc_version()); the cache key and ETag of a WebP tile carry both. */
#define RENDER_WEBP_VERSION 1

/* A tile's px x px pixels (format: PNGENC_GRAY or PNGENC_INDEXED with plte,
 * or PNGENC_RGB) encoded as PNG (webp_quality < 0, the tile settings) or
 * as WebP (webp_quality: WEBPENC_LOSSLESS or 1..100; expanded to RGB
 * first) into a new buffer. Returns 0, RENDER_ENOMEM or RENDER_EPNG. The
 * one encoding step of render_tile_src and coarse_render_tile_src. */
int render_encode(const unsigned char *pixels, int px, pngenc_format format, const unsigned char *plte,
                  int webp_quality, unsigned char **out, size_t *out_size);

#endif
