/* test_png.h: a PNG decoded by libpng's simplified reader, for the unit
 * tests that compare encoded pictures pixel by pixel. */
#ifndef TEST_PNG_H
#define TEST_PNG_H

#include <png.h>
#include <stdlib.h>
#include <string.h>

/* The n bytes at png decoded in format (PNG_FORMAT_GRAY, PNG_FORMAT_RGB,
 * ...; indexed and gray images are expanded to it), its size in *w and *h
 * (either may be NULL). Returns a malloc()ed buffer of w*h*channels bytes,
 * or NULL if libpng cannot read it. */
static inline unsigned char *test_png_decode(const unsigned char *png, size_t n,
                                             png_uint_32 format, int *w, int *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, png, n))
        return NULL;
    img.format = format;
    unsigned char *buf = malloc(PNG_IMAGE_SIZE(img));
    if (buf == NULL || !png_image_finish_read(&img, NULL, buf, 0, NULL)) {
        free(buf);
        png_image_free(&img);
        return NULL;
    }
    if (w != NULL)
        *w = (int)img.width;
    if (h != NULL)
        *h = (int)img.height;
    return buf;
}

#endif
