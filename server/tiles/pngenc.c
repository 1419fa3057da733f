/* pngenc.c: PNG encoding into a growable memory buffer through libpng
 * (see pngenc.h).
 *
 * libpng reports errors by longjmp to the setjmp in pngenc_encode(). Nothing
 * that changes after the setjmp lives in a local: the output buffer and the
 * out-of-memory flag are in a struct reached through libpng's io/mem
 * pointers, and the png/info pointers are set before it, so the cleanup
 * after a longjmp sees the true state.
 */
#include "tiles/pngenc.h"

#include <libdeflate.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/failalloc.h"
#include "base/scratch.h"
#include "tiles/fastz.h"

/* Settings, chosen with `bench_tiles --explore` (BENCHMARKS.md, "Tiles:
 * render and encode") on 6-octave Perlin tiles at zoom 3 (busy) and zoom 8
 * (smooth), against libpng's defaults (level 6, adaptive filters):
 * - the fixed Up filter: smooth fields make rows alike, so Up leaves small
 *   residues and runs of equal ones; Sub and Paeth cost more time for no
 *   better size once runs are coded, adaptive filtering 1.7x Up's time;
 * - fastz (runs + one dynamic Huffman block) rather than zlib: for RGB
 *   (shaded) tiles zlib's fastest useful settings (level 1 with Z_RLE or
 *   Z_HUFFMAN_ONLY) still spend ~3 ms on Huffman coding, only 3.6-4.3x
 *   faster than the defaults, while fastz is ~10x faster at the same size
 *   as Z_RLE (1.11x the defaults' bytes on busy tiles); for gray and
 *   indexed tiles it is ~2x faster than Z_RLE at +2% bytes and ~14x faster
 *   than the defaults at +1%.
 * The same for all three formats. */
pngenc_settings pngenc_tile_settings(pngenc_format format)
{
    pngenc_settings s = {.level = 1, .strategy = Z_RLE, .filters = PNG_FILTER_UP,
                         .engine = PNGENC_FASTZ};
    (void)format;
    return s;
}

pngenc_settings pngenc_libpng_default_settings(void)
{
    pngenc_settings s = {.level = Z_DEFAULT_COMPRESSION, .strategy = Z_DEFAULT_STRATEGY,
                         .filters = PNG_ALL_FILTERS, .engine = PNGENC_ZLIB};
    return s;
}

typedef struct {
    unsigned char *data;
    size_t size, capacity;
    int out_of_memory; /* an allocation failed: report PNGENC_ENOMEM */
} out_buffer;

static void on_error(png_structp png, png_const_charp message)
{
    (void)message;
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

static png_voidp on_malloc(png_structp png, png_alloc_size_t size)
{
    void *p = failalloc_malloc(size);
    if (!p) {
        out_buffer *b = png_get_mem_ptr(png);
        b->out_of_memory = 1;
    }
    return p;
}

static void on_free(png_structp png, png_voidp p)
{
    (void)png;
    free(p);
}

static void on_write(png_structp png, png_bytep bytes, png_size_t n)
{
    out_buffer *b = png_get_io_ptr(png);
    if (n > b->capacity - b->size) {
        size_t cap = b->capacity ? b->capacity : 4096;
        while (cap - b->size < n) {
            if (cap > SIZE_MAX / 2) {
                b->out_of_memory = 1;
                png_error(png, "output too large");
            }
            cap *= 2;
        }
        unsigned char *p = failalloc_realloc(b->data, cap);
        if (!p) {
            b->out_of_memory = 1;
            png_error(png, "out of memory");
        }
        b->data = p;
        b->capacity = cap;
    }
    memcpy(b->data + b->size, bytes, n);
    b->size += n;
}

static void on_flush(png_structp png)
{
    (void)png;
}

/* ---- the fastz engine: the PNG container written here, the image data
 * compressed by fastz.h ---- */

static unsigned char *put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
    return p + 4;
}

/* Finishes the chunk whose 4-byte type starts at type (data follows it, n
 * bytes): writes the length before it and the CRC after; returns the end. */
static unsigned char *end_chunk(unsigned char *type, size_t n)
{
    put32(type - 4, (uint32_t)n);
    /* libdeflate's CRC-32 (carry-less multiply where the CPU has it; zlib
     * 1.2.13's is table-driven): the same CRC */
    return put32(type + 4 + n, libdeflate_crc32(0, type, n + 4));
}

static int encode_fastz(const unsigned char *pixels, int width, int height, size_t stride_bytes,
                        pngenc_format format, int color_type, int bpp,
                        const unsigned char *palette_rgb, int n_palette, int filter,
                        unsigned char **out_png, size_t *out_size)
{
    size_t row = (size_t)width * (size_t)bpp, raw_size = (row + 1) * (size_t)height;
    int filter_type = filter == PNG_FILTER_UP ? 2 : filter == PNG_FILTER_SUB ? 1 : 0;
    unsigned char *raw = scratch_take(SCRATCH_ROWS, raw_size);
    if (!raw)
        return PNGENC_ENOMEM;
    for (int j = 0; j < height; j++) {
        const unsigned char *in = pixels + (size_t)j * stride_bytes;
        const unsigned char *up = j ? in - stride_bytes : NULL;
        unsigned char *f = raw + (size_t)j * (row + 1);
        *f++ = (unsigned char)filter_type;
        if (filter_type == 2 && up)
            for (size_t i = 0; i < row; i++)
                f[i] = (unsigned char)(in[i] - up[i]);
        else if (filter_type == 1)
            for (size_t i = 0; i < row; i++)
                f[i] = (unsigned char)(in[i] - (i >= (size_t)bpp ? in[i - bpp] : 0));
        else
            memcpy(f, in, row);
    }

    size_t plte = format == PNGENC_INDEXED ? 12 + 3 * (size_t)n_palette : 0;
    size_t bound = 8 + 25 + plte + 12 + fastz_bound(raw_size) + 12;
    unsigned char *png = failalloc_malloc(bound);
    if (!png) {
        scratch_give(SCRATCH_ROWS, raw);
        return PNGENC_ENOMEM;
    }
    static const unsigned char signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    unsigned char *p = png;
    memcpy(p, signature, 8);
    p += 8;
    unsigned char *type = p + 4;
    memcpy(type, "IHDR", 4);
    p = put32(type + 4, (uint32_t)width);
    p = put32(p, (uint32_t)height);
    *p++ = 8;                          /* bit depth */
    *p++ = (unsigned char)color_type;
    *p++ = 0;                          /* deflate */
    *p++ = 0;                          /* adaptive filtering (filter method 0) */
    *p++ = 0;                          /* no interlace */
    p = end_chunk(type, 13);
    if (plte) {
        type = p + 4;
        memcpy(type, "PLTE", 4);
        memcpy(type + 4, palette_rgb, 3 * (size_t)n_palette);
        p = end_chunk(type, 3 * (size_t)n_palette);
    }
    type = p + 4;
    memcpy(type, "IDAT", 4);
    size_t z = fastz_compress(raw, raw_size, type + 4);
    scratch_give(SCRATCH_ROWS, raw);
    if (!z) {
        free(png);
        return PNGENC_ENOMEM;
    }
    p = end_chunk(type, z);
    type = p + 4;
    memcpy(type, "IEND", 4);
    p = end_chunk(type, 0);

    size_t size = (size_t)(p - png);
    unsigned char *fit = failalloc_realloc(png, size); /* give back the slack */
    *out_png = fit ? fit : png;
    *out_size = size;
    return 0;
}

int pngenc_encode(const unsigned char *pixels, int width, int height, size_t stride_bytes,
                  pngenc_format format, const unsigned char *palette_rgb, int n_palette,
                  const pngenc_settings *settings, unsigned char **out_png, size_t *out_size)
{
    static const int color_types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_PALETTE,
                                      PNG_COLOR_TYPE_RGB};
    static const int channels[] = {1, 1, 3};
    *out_png = NULL;
    *out_size = 0;
    if (!pixels || width < 1 || height < 1 || width > 65535 || height > 65535 ||
        (int)format < 0 || format > PNGENC_RGB ||
        stride_bytes < (size_t)width * (size_t)channels[format] ||
        (format == PNGENC_INDEXED && (!palette_rgb || n_palette < 1 || n_palette > 256)))
        return PNGENC_EINVAL;
    pngenc_settings s = settings ? *settings : pngenc_tile_settings(format);
    if (s.engine == PNGENC_FASTZ) {
        if (s.filters != PNG_FILTER_NONE && s.filters != PNG_FILTER_SUB &&
            s.filters != PNG_FILTER_UP)
            return PNGENC_EINVAL;
        return encode_fastz(pixels, width, height, stride_bytes, format, color_types[format],
                            channels[format], palette_rgb, n_palette, s.filters, out_png,
                            out_size);
    }
    if (s.engine != PNGENC_ZLIB)
        return PNGENC_EINVAL;

    /* The buffer state changes between setjmp and a longjmp, so it lives on
     * the heap, not in an automatic variable (C11 7.13.2.1). */
    out_buffer *buf = failalloc_malloc(sizeof *buf);
    if (!buf)
        return PNGENC_ENOMEM;
    memset(buf, 0, sizeof *buf);
    /* a first guess at the size, so most tiles never reallocate */
    buf->capacity = (size_t)width * (size_t)height * (size_t)channels[format] / 2 + 1024;
    buf->data = failalloc_malloc(buf->capacity);
    if (!buf->data) {
        free(buf);
        return PNGENC_ENOMEM;
    }

    int rc = PNGENC_EPNG;
    png_infop info = NULL;
    png_structp png = png_create_write_struct_2(PNG_LIBPNG_VER_STRING, NULL, on_error,
                                                on_warning, buf, on_malloc, on_free);
    if (!png) {
        rc = PNGENC_ENOMEM;
        goto fail_png;
    }
    info = png_create_info_struct(png);
    if (!info) {
        rc = PNGENC_ENOMEM;
        goto fail_info;
    }
    if (setjmp(png_jmpbuf(png))) {
        rc = buf->out_of_memory ? PNGENC_ENOMEM : PNGENC_EPNG;
        goto fail_info;
    }

    png_set_write_fn(png, buf, on_write, on_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, color_types[format],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (format == PNGENC_INDEXED) {
        png_color plte[256];
        for (int k = 0; k < n_palette; k++) {
            plte[k].red = palette_rgb[3 * k];
            plte[k].green = palette_rgb[3 * k + 1];
            plte[k].blue = palette_rgb[3 * k + 2];
        }
        png_set_PLTE(png, info, plte, n_palette);
    }
    png_set_compression_level(png, s.level);
    png_set_compression_strategy(png, s.strategy);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, s.filters);
    png_write_info(png, info);
    for (int j = 0; j < height; j++)
        png_write_row(png, pixels + (size_t)j * stride_bytes);
    png_write_end(png, NULL);

    png_destroy_write_struct(&png, &info);
    *out_png = buf->data;
    *out_size = buf->size;
    free(buf);
    return 0;

fail_info:
    png_destroy_write_struct(&png, &info);
fail_png:
    free(buf->data);
    free(buf);
    return rc;
}
