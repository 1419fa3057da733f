/* render.h: turns a field into a PNG map tile: tile geometry, palettes,
 * hillshading, the zero line, and the encoding (through pngenc.h).
 */
#ifndef RENDER_H
#define RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "noise.h"

/* The side of tile (0, 0, 0) in plane units (docs/field.md, "Tile geometry"). */
#define RENDER_WORLD_SIZE 16.0

typedef enum { RENDER_GRAY = 0, RENDER_TERRAIN, RENDER_VIRIDIS, RENDER_PALETTE_COUNT } render_palette;

typedef struct {
    render_palette palette; /* default RENDER_GRAY */
    int shade;              /* 1: hillshade from the analytic gradient */
    int zero;               /* 1: mark where the value crosses 0 */
} render_opts;

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

/* Codes from the one error table (errors.h). */
#define RENDER_ENOMEM ERR_NOMEM
#define RENDER_EPNG ERR_PNG

/* Bumped whenever a rendered tile's bytes change for the same request; with
 * NOISE_VERSION it forms the ETag's version part. */
#define RENDER_VERSION 1

#endif
