/* heights.h: the field's values as numbers for programs: the byte formats
 * (.npy float32, .r16 and 16-bit gray PNG samples, Terrarium and Mapbox
 * Terrain-RGB pixels), encoded one row at a time, and the parameters that
 * choose them. Pure functions, no I/O, no allocation.
 *
 * The mappings (README.md, "Heights for programs"; tests/unit/test_heights.c):
 * - 16-bit (.r16, gray16): u = floor((v + 1) * 32767.5 + 0.5) clamped to
 *   0..65535, v the float32 sample widened to double: -1 -> 0, 0 -> 32768,
 *   1 -> 65535; back: v ~ u / 32767.5 - 1, within 1/65535 of the range.
 * - height in metres: h = v * height_scale + height_offset (double).
 * - Terrarium: q = floor((h + 32768) * 256 + 0.5) clamped to 0..2^24-1,
 *   R = q >> 16, G = (q >> 8) & 255, B = q & 255; decoders compute
 *   R*256 + G + B/256 - 32768 (within 1/512 m of h); heights outside
 *   [-32768, 32767.99609375] clamp to those ends.
 * - Mapbox Terrain-RGB: q = floor((h + 10000) * 10 + 0.5) clamped to
 *   0..2^24-1, R, G, B as above; decoders compute -10000 + q * 0.1 (within
 *   0.05 m); heights outside [-10000, 1667721.5] clamp.
 */
#ifndef HEIGHTS_H
#define HEIGHTS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    HEIGHTS_NPY = 0,     /* NumPy 1.0, little-endian float32, C order */
    HEIGHTS_R16,         /* headerless little-endian uint16, row-major */
    HEIGHTS_GRAY16,      /* PNG rows: big-endian uint16 gray (PNG's byte order) */
    HEIGHTS_TERRARIUM,   /* PNG rows: 8-bit RGB, Terrarium */
    HEIGHTS_MAPBOX,      /* PNG rows: 8-bit RGB, Mapbox Terrain-RGB */
    HEIGHTS_FORMAT_COUNT
} heights_format;

/* How values become bytes. */
typedef struct {
    heights_format format;
    int gradient;          /* .npy only: 1 adds the gradient after each value */
    double height_scale;   /* terrarium, mapbox: metres per unit of value */
    double height_offset;  /* terrarium, mapbox: metres at value 0 */
} heights_opts;

#define HEIGHTS_DEFAULT_SCALE 1000.0
#define HEIGHTS_MAX_SCALE 1e6
#define HEIGHTS_MAX_OFFSET 1e6

/* The encodings a PNG can carry ("gray16", "terrarium", "mapbox"),
 * NULL-terminated, for /api/kinds, OpenAPI and messages. */
const char *const *heights_encoding_names(void);
/* Returns 0 and sets *out to HEIGHTS_GRAY16, _TERRARIUM or _MAPBOX, or -1. */
int heights_encoding_from_name(const char *name, heights_format *out);
/* The name of a PNG encoding, or of the file type ("npy", "r16"). */
const char *heights_format_name(heights_format f);

/* The 16-bit sample of a value (see above). */
uint16_t heights_u16(double v);
/* The Terrarium and Mapbox pixels of a height in metres (see above). */
void heights_terrarium(double h, unsigned char rgb[3]);
void heights_mapbox(double h, unsigned char rgb[3]);

/* Numbers per sample in a row of this encoding: 1 (value) for every format
 * but .npy with gradient: 3 (value, d/dx, d/dy), or 4 with t (n_grad 3). */
int heights_channels(const heights_opts *o, int n_grad);

/* Bytes of one encoded row of width samples (PNG rows without the filter
 * byte). */
size_t heights_row_bytes(const heights_opts *o, int n_grad, int width);

/* Encodes one row: values[width] and, for .npy with gradient, grads with
 * n_grad (2 or 3) floats per sample, into out (heights_row_bytes bytes). */
void heights_encode_row(const heights_opts *o, int width, const float *values,
                        const float *grads, int n_grad, unsigned char *out);

/* The NumPy format 1.0 header for a C-order <f4 array of shape
 * (height, width) when channels is 1, else (height, width, channels), padded
 * with spaces to a multiple of 64 bytes and ending in '\n', as numpy writes
 * it. buf must hold HEIGHTS_NPY_HEADER_MAX bytes. Returns the length. */
#define HEIGHTS_NPY_HEADER_MAX 128
size_t heights_npy_header(int height, int width, int channels, unsigned char *buf);

/* The MIME type of a format's body. */
const char *heights_content_type(heights_format f);

#endif
