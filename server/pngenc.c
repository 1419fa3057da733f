/* pngenc.c: PNG encoding into a growable memory buffer through libpng
 * (see pngenc.h).
 *
 * libpng reports errors by longjmp to the setjmp in pngenc_encode(). Nothing
 * that changes after the setjmp lives in a local: the output buffer and the
 * out-of-memory flag are in a struct reached through libpng's io/mem
 * pointers, and the png/info pointers are set before it, so the cleanup
 * after a longjmp sees the true state.
 */
#include "pngenc.h"

#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "failalloc.h"

/* Settings, chosen with `bench_tiles --explore` (BENCHMARKS.md, "Tiles:
 * render and encode") on 6-octave Perlin tiles at zoom 3 (busy) and zoom 8
 * (smooth), against libpng's defaults (level 6, adaptive filters):
 * - the fixed Up filter: smooth fields make rows alike, so Up leaves small
 *   residues; Sub and Paeth cost more time for no better size once RLE
 *   follows, and adaptive filtering costs 1.7x the time of Up;
 * - zlib's Z_RLE strategy (level 1; the level does not matter to it): as
 *   fast as level 1's default strategy but it finds the runs of equal
 *   residues that Up makes, which matters on smooth tiles: for gray at
 *   zoom 8, 2.3 KB against 3.9 KB for level 1 and 2.6 KB for the defaults;
 *   at zoom 3 it matches the defaults' size. Z_HUFFMAN_ONLY is as fast but
 *   3.4x larger on smooth tiles.
 * The same for all three formats. */
pngenc_settings pngenc_tile_settings(pngenc_format format)
{
    pngenc_settings s = {.level = 1, .strategy = Z_RLE, .filters = PNG_FILTER_UP};
    (void)format;
    return s;
}

pngenc_settings pngenc_libpng_default_settings(void)
{
    pngenc_settings s = {.level = Z_DEFAULT_COMPRESSION, .strategy = Z_DEFAULT_STRATEGY,
                         .filters = PNG_ALL_FILTERS};
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
