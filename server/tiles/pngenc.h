/* pngenc.h: PNG encoding of 8-bit gray, indexed and RGB images into a
 * memory buffer, with settings chosen for tile serving: through libpng and
 * zlib, or (the tile default) with the image data compressed by fastz.h.
 *
 * Output bytes depend only on the pixels, the palette and the settings: no
 * time chunk, no text chunk, no uninitialised bytes, so the same tile always
 * encodes to the same bytes (docs/field.md, "Numbers").
 */
#ifndef PNGENC_H
#define PNGENC_H

#include <stddef.h>

#include "base/errors.h"

typedef enum {
    PNGENC_GRAY = 0, /* 1 byte per pixel, grey level */
    PNGENC_INDEXED,  /* 1 byte per pixel, index into a palette (PLTE) */
    PNGENC_RGB       /* 3 bytes per pixel, R G B */
} pngenc_format;

/* Who compresses the image data. */
typedef enum {
    PNGENC_ZLIB = 0, /* libpng writes the PNG, zlib compresses with level/strategy */
    PNGENC_FASTZ     /* fastz.h: byte runs + one dynamic Huffman block (level and
                      * strategy unused; filters one of NONE, SUB, UP) */
} pngenc_engine;

/* Compression and row-filter settings. */
typedef struct {
    int level;    /* zlib level 0..9 */
    int strategy; /* Z_DEFAULT_STRATEGY, Z_FILTERED, Z_RLE, ... */
    int filters;  /* a PNG_FILTER_* mask (PNG_ALL_FILTERS: libpng's adaptive choice) */
    pngenc_engine engine;
} pngenc_settings;

/* The settings the tile server uses for a format: measured in
 * bench/bench_tiles.c, reasons in pngenc.c and BENCHMARKS.md. */
pngenc_settings pngenc_tile_settings(pngenc_format format);
/* libpng's own defaults (level 6, default strategy, adaptive filters), the
 * baseline the benchmark compares against. */
pngenc_settings pngenc_libpng_default_settings(void);

/* Encodes a width x height image (1..65535 each) whose row j starts at
 * pixels + j*stride_bytes. For PNGENC_INDEXED, palette_rgb holds n_palette
 * (1..256) R,G,B triplets and every pixel must be < n_palette; otherwise
 * palette_rgb is ignored (may be NULL). settings NULL means
 * pngenc_tile_settings(format).
 * On success returns 0 and sets *out_png to a malloc()ed buffer of
 * *out_size bytes that the caller frees. On failure returns PNGENC_EINVAL
 * (bad arguments or settings), PNGENC_ENOMEM or PNGENC_EPNG (libpng failed) and sets
 * *out_png to NULL and *out_size to 0. Thread-safe. Memory comes from
 * failalloc.h's wrappers, so tests can fail any allocation. */
int pngenc_encode(const unsigned char *pixels, int width, int height, size_t stride_bytes,
                  pngenc_format format, const unsigned char *palette_rgb, int n_palette,
                  const pngenc_settings *settings, unsigned char **out_png, size_t *out_size);

/* Codes from the one error table (errors.h). */
#define PNGENC_EINVAL ERR_INVALID
#define PNGENC_ENOMEM ERR_NOMEM
#define PNGENC_EPNG ERR_PNG

#endif
