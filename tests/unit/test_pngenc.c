/* test_pngenc.c: unit tests of the PNG encoder (server/tiles/pngenc.c): every
 * format decodes back (with libpng's reader) to the same pixels and palette,
 * the header says what it should, output is deterministic, bad arguments
 * and failed allocations are reported without leaks. */
#include "base/failalloc.h"
#include "base/scratch.h"
#include "tiles/pngenc.h"
#include "test.h"
#include "test_png.h"

#include <png.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A test image: smooth ramps plus hashed noise in the low bits, so every
 * byte value and both filters' cases occur. */
static unsigned char *make_image(int w, int h, int channels, size_t stride, unsigned seed)
{
    unsigned char *img = malloc(stride * (size_t)h);
    memset(img, 0xA5, stride * (size_t)h); /* padding: must never reach the PNG */
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++)
            for (int c = 0; c < channels; c++) {
                uint32_t x = (uint32_t)(i * 73856093u) ^ (uint32_t)(j * 19349663u) ^
                             (seed + (unsigned)c) * 83492791u;
                x ^= x >> 13;
                x *= 0x5bd1e995u;
                x ^= x >> 15;
                img[(size_t)j * stride + (size_t)i * channels + c] =
                    (unsigned char)((i * 3 + j * 2 + c * 50) + (x & 7));
            }
    return img;
}

/* Walks the chunks: checks the signature, that IHDR comes first and IEND
 * last, and writes the chunk types in order into names (4 chars each). */
static int list_chunks(const unsigned char *png, size_t n, char *names, size_t names_size)
{
    static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    if (n < 8 || memcmp(png, sig, 8) != 0)
        return -1;
    size_t pos = 8, out = 0;
    while (pos + 12 <= n) {
        uint32_t len = rd32(png + pos);
        if (pos + 12 + len > n || out + 5 > names_size)
            return -1;
        memcpy(names + out, png + pos + 4, 4);
        out += 4;
        names[out++] = ' ';
        pos += 12 + len;
    }
    names[out ? out - 1 : 0] = 0;
    return pos == n ? 0 : -1;
}

/* IHDR fields: width, height, bit depth, colour type, interlace */
static void check_ihdr(const unsigned char *png, size_t n, int w, int h, int depth, int ctype)
{
    CHECK(n > 33);
    if (n <= 33)
        return;
    CHECK(rd32(png + 8) == 13 && memcmp(png + 12, "IHDR", 4) == 0);
    CHECK(rd32(png + 16) == (uint32_t)w);
    CHECK(rd32(png + 20) == (uint32_t)h);
    CHECK(png[24] == depth);
    CHECKF(png[25] == ctype, "colour type %d, want %d", png[25], ctype);
    CHECK(png[26] == 0 && png[27] == 0 && png[28] == 0); /* deflate, filter 0, no interlace */
}

/* Decodes png with libpng's simplified reader in the given format. Returns
 * a malloc()ed buffer of w*h*channels bytes, or NULL. */
static unsigned char *decode(const unsigned char *png, size_t n, png_uint_32 format, int w,
                             int h)
{
    int dw = 0, dh = 0;
    unsigned char *out = test_png_decode(png, n, format, &dw, &dh);
    if (out != NULL && (dw != w || dh != h)) {
        free(out);
        return NULL;
    }
    return out;
}

static void test_gray_roundtrip(void)
{
    static const int sizes[][2] = {{256, 256}, {512, 512}, {1, 1}, {3, 7}, {257, 5}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        size_t stride = (size_t)w + 5;
        unsigned char *img = make_image(w, h, 1, stride, 1);
        unsigned char *png = NULL;
        size_t n = 0;
        CHECK(pngenc_encode(img, w, h, stride, PNGENC_GRAY, NULL, 0, NULL, &png, &n) == 0);
        check_ihdr(png, n, w, h, 8, 0);
        char chunks[256];
        CHECK(list_chunks(png, n, chunks, sizeof chunks) == 0);
        CHECKF(strncmp(chunks, "IHDR IDAT", 9) == 0 && strstr(chunks, "PLTE") == NULL,
               "%s", chunks);
        unsigned char *back = decode(png, n, PNG_FORMAT_GRAY, w, h);
        CHECK(back != NULL);
        int diff = 0;
        for (int j = 0; back && j < h; j++)
            diff += memcmp(back + (size_t)j * w, img + (size_t)j * stride, (size_t)w) != 0;
        CHECKF(diff == 0, "%dx%d: %d rows differ", w, h, diff);
        free(back);
        free(png);
        free(img);
    }
}

static void test_indexed_roundtrip_and_palette(void)
{
    int w = 256, h = 256;
    for (int n_pal = 256; n_pal >= 2; n_pal /= 4) {
        unsigned char pal[3 * 256];
        for (int k = 0; k < n_pal; k++) {
            pal[3 * k] = (unsigned char)(k * 7);
            pal[3 * k + 1] = (unsigned char)(255 - k);
            pal[3 * k + 2] = (unsigned char)(k * k);
        }
        unsigned char *img = make_image(w, h, 1, (size_t)w, 2);
        for (int p = 0; p < w * h; p++)
            img[p] = (unsigned char)(img[p] % n_pal);
        unsigned char *png = NULL;
        size_t n = 0;
        CHECK(pngenc_encode(img, w, h, (size_t)w, PNGENC_INDEXED, pal, n_pal, NULL, &png, &n) ==
              0);
        check_ihdr(png, n, w, h, 8, 3);
        char chunks[256];
        CHECK(list_chunks(png, n, chunks, sizeof chunks) == 0);
        CHECKF(strncmp(chunks, "IHDR PLTE IDAT", 14) == 0, "%s", chunks);
        /* the PLTE chunk holds exactly our palette */
        CHECK(png && rd32(png + 33) == (uint32_t)(3 * n_pal) && memcmp(png + 37, "PLTE", 4) == 0);
        CHECK(png && memcmp(png + 41, pal, (size_t)(3 * n_pal)) == 0);
        /* every pixel decodes to its palette colour */
        unsigned char *rgb = decode(png, n, PNG_FORMAT_RGB, w, h);
        CHECK(rgb != NULL);
        int bad = 0;
        for (int p = 0; rgb && p < w * h; p++)
            bad += memcmp(rgb + 3 * p, pal + 3 * img[p], 3) != 0;
        CHECKF(bad == 0, "palette size %d: %d pixels differ", n_pal, bad);
        free(rgb);
        free(png);
        free(img);
    }
}

static void test_rgb_roundtrip(void)
{
    static const int sizes[][2] = {{256, 256}, {512, 512}, {1, 1}, {5, 3}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        size_t stride = 3 * (size_t)w + 1;
        unsigned char *img = make_image(w, h, 3, stride, 3);
        unsigned char *png = NULL;
        size_t n = 0;
        CHECK(pngenc_encode(img, w, h, stride, PNGENC_RGB, NULL, 0, NULL, &png, &n) == 0);
        check_ihdr(png, n, w, h, 8, 2);
        unsigned char *back = decode(png, n, PNG_FORMAT_RGB, w, h);
        CHECK(back != NULL);
        int diff = 0;
        for (int j = 0; back && j < h; j++)
            diff += memcmp(back + (size_t)j * 3 * w, img + (size_t)j * stride, 3 * (size_t)w) != 0;
        CHECKF(diff == 0, "%dx%d: %d rows differ", w, h, diff);
        free(back);
        free(png);
        free(img);
    }
}

/* Every settings combination the benchmark uses, and both engines with
 * each filter they take, decode to the same pixels in every format, for
 * smooth, noisy, constant and incompressible images. */
static void test_settings_roundtrip(void)
{
    pngenc_settings all[] = {pngenc_libpng_default_settings(),
                             pngenc_tile_settings(PNGENC_GRAY),
                             pngenc_tile_settings(PNGENC_INDEXED),
                             pngenc_tile_settings(PNGENC_RGB),
                             {9, 0, PNG_FILTER_PAETH, PNGENC_ZLIB},
                             {0, 0, PNG_FILTER_NONE, PNGENC_ZLIB},
                             {1, 3 /* Z_RLE */, PNG_FILTER_SUB, PNGENC_ZLIB},
                             {0, 0, PNG_FILTER_NONE, PNGENC_FASTZ},
                             {0, 0, PNG_FILTER_SUB, PNGENC_FASTZ},
                             {0, 0, PNG_FILTER_UP, PNGENC_FASTZ}};
    static const int sizes[][2] = {{64, 48}, {1, 1}, {300, 7}, {256, 256}};
    unsigned char pal[768];
    for (int k = 0; k < 768; k++)
        pal[k] = (unsigned char)(k * 11);
    int bad = 0, tried = 0;
    for (size_t sz = 0; sz < sizeof sizes / sizeof sizes[0]; sz++)
        for (int kind = 0; kind < 3; kind++) /* ramps+noise, constant, random */
            for (int f = PNGENC_GRAY; f <= PNGENC_RGB; f++) {
                int w = sizes[sz][0], h = sizes[sz][1], ch = f == PNGENC_RGB ? 3 : 1;
                size_t stride = (size_t)w * ch + 3;
                unsigned char *img = make_image(w, h, ch, stride, 4);
                for (int j = 0; j < h; j++)
                    for (size_t i = 0; i < (size_t)w * ch; i++) {
                        unsigned char *px = img + (size_t)j * stride + i;
                        if (kind == 1)
                            *px = 77;
                        else if (kind == 2)
                            *px = (unsigned char)((i * 2654435761u + (size_t)j * 40503u) >> 13);
                    }
                for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
                    unsigned char *png = NULL;
                    size_t n = 0;
                    tried++;
                    if (pngenc_encode(img, w, h, stride, (pngenc_format)f, pal, 256, &all[k], &png,
                                      &n) != 0) {
                        bad++;
                        continue;
                    }
                    check_ihdr(png, n, w, h, 8, f == PNGENC_GRAY ? 0 : f == PNGENC_RGB ? 2 : 3);
                    unsigned char *back = decode(png, n, f == PNGENC_GRAY ? PNG_FORMAT_GRAY
                                                                          : PNG_FORMAT_RGB, w, h);
                    int ok = back != NULL, dch = f == PNGENC_GRAY ? 1 : 3; /* decoded */
                    for (int j = 0; ok && j < h; j++)
                        for (int i = 0; ok && i < w; i++) {
                            const unsigned char *src = img + (size_t)j * stride + (size_t)i * ch;
                            const unsigned char *want = f == PNGENC_INDEXED ? pal + 3 * src[0] : src;
                            ok = memcmp(back + ((size_t)j * w + i) * dch, want, (size_t)dch) == 0;
                        }
                    if (!ok) {
                        bad++;
                        fprintf(stderr, "  %dx%d image %d format %d settings %zu differs\n", w,
                                h, kind, f, k);
                    }
                    free(back);
                    free(png);
                }
                free(img);
            }
    CHECKF(bad == 0, "%d of %d encodes wrong", bad, tried);
    /* fastz takes one fixed filter of None, Sub, Up */
    unsigned char img[4] = {1, 2, 3, 4}, *png = NULL;
    size_t n = 0;
    pngenc_settings paeth = {0, 0, PNG_FILTER_PAETH, PNGENC_FASTZ};
    CHECK(pngenc_encode(img, 2, 2, 2, PNGENC_GRAY, NULL, 0, &paeth, &png, &n) == PNGENC_EINVAL);
    CHECK(png == NULL);
}

static void test_deterministic(void)
{
    int w = 256, h = 256;
    for (int f = PNGENC_GRAY; f <= PNGENC_RGB; f++) {
        int ch = f == PNGENC_RGB ? 3 : 1;
        size_t stride = (size_t)w * ch + 7;
        unsigned char *a = make_image(w, h, ch, stride, 5);
        unsigned char *b = make_image(w, h, ch, stride, 5);
        /* different padding bytes in the second copy */
        for (int j = 0; j < h; j++)
            memset(b + (size_t)j * stride + (size_t)w * ch, j, 7);
        unsigned char pal[768];
        for (int k = 0; k < 768; k++)
            pal[k] = (unsigned char)(k * 5);
        unsigned char *pa = NULL, *pb = NULL;
        size_t na = 0, nb = 0;
        CHECK(pngenc_encode(a, w, h, stride, (pngenc_format)f, pal, 256, NULL, &pa, &na) == 0);
        CHECK(pngenc_encode(b, w, h, stride, (pngenc_format)f, pal, 256, NULL, &pb, &nb) == 0);
        CHECKF(na == nb && na > 0 && memcmp(pa, pb, na) == 0, "format %d", f);
        char chunks[512];
        CHECK(list_chunks(pa, na, chunks, sizeof chunks) == 0);
        /* nothing but image data: no time, text or physical-size chunks */
        CHECKF(!strstr(chunks, "tIME") && !strstr(chunks, "tEXt") && !strstr(chunks, "pHYs") &&
                   !strstr(chunks, "gAMA"),
               "%s", chunks);
        free(pa);
        free(pb);
        free(a);
        free(b);
    }
}

static void test_bad_arguments(void)
{
    unsigned char img[16] = {0}, pal[6] = {0};
    unsigned char *png = (unsigned char *)img;
    size_t n = 99;
    CHECK(pngenc_encode(NULL, 2, 2, 2, PNGENC_GRAY, NULL, 0, NULL, &png, &n) == PNGENC_EINVAL);
    CHECK(png == NULL && n == 0);
    CHECK(pngenc_encode(img, 0, 2, 2, PNGENC_GRAY, NULL, 0, NULL, &png, &n) == PNGENC_EINVAL);
    CHECK(pngenc_encode(img, 2, -1, 2, PNGENC_GRAY, NULL, 0, NULL, &png, &n) == PNGENC_EINVAL);
    CHECK(pngenc_encode(img, 2, 2, 5, PNGENC_RGB, NULL, 0, NULL, &png, &n) == PNGENC_EINVAL);
    CHECK(pngenc_encode(img, 2, 2, 2, PNGENC_INDEXED, NULL, 2, NULL, &png, &n) == PNGENC_EINVAL);
    CHECK(pngenc_encode(img, 2, 2, 2, PNGENC_INDEXED, pal, 0, NULL, &png, &n) == PNGENC_EINVAL);
    CHECK(pngenc_encode(img, 2, 2, 2, PNGENC_INDEXED, pal, 257, NULL, &png, &n) == PNGENC_EINVAL);
    CHECK(pngenc_encode(img, 2, 2, 2, (pngenc_format)7, NULL, 0, NULL, &png, &n) == PNGENC_EINVAL);
    CHECK(png == NULL && n == 0);
    /* libpng rejects a zlib level out of range: an error, not a crash */
    pngenc_settings bad = {.level = 42, .strategy = 0, .filters = PNG_FILTER_UP};
    CHECK(pngenc_encode(img, 2, 2, 2, PNGENC_GRAY, NULL, 0, &bad, &png, &n) == PNGENC_EPNG);
    CHECK(png == NULL && n == 0);
}

/* Fails each allocation of an encode in turn: each gives PNGENC_ENOMEM and
 * NULL, with nothing leaked (LeakSanitizer), and the loop ends with an
 * encode that needed no failure. */
static void check_allocation_failure(const pngenc_settings *settings, int min_failures)
{
    int w = 300, h = 200; /* larger than the first buffer guess for noisy RGB */
    unsigned char *img = make_image(w, h, 3, 3 * (size_t)w, 6);
    for (int p = 0; p < 3 * w * h; p++)
        img[p] = (unsigned char)(img[p] * 151u + (unsigned)p * 2654435761u); /* incompressible */
    unsigned char *want = NULL;
    size_t want_n = 0;
    CHECK(pngenc_encode(img, w, h, 3 * (size_t)w, PNGENC_RGB, NULL, 0, settings, &want, &want_n) ==
          0);
    int n_failed = 0, wrong = 0;
    long nth;
    scratch_set_keep(0); /* every attempt allocates its scratch (scratch.h) */
    for (nth = 1; nth < 1000; nth++) {
        failalloc_arm(nth);
        unsigned char *png = NULL;
        size_t n = 0;
        int rc = pngenc_encode(img, w, h, 3 * (size_t)w, PNGENC_RGB, NULL, 0, settings, &png, &n);
        int fired = failalloc_fired();
        failalloc_arm(0);
        if (!fired) {
            CHECK(rc == 0 && n == want_n && memcmp(png, want, n) == 0);
            free(png);
            break;
        }
        n_failed++;
        if (rc == 0) /* a failure the encoder may absorb (fastz's final shrink) */
            wrong += n != want_n || memcmp(png, want, n) != 0;
        else
            wrong += rc != PNGENC_ENOMEM || png != NULL || n != 0;
        free(png);
    }
    CHECKF(wrong == 0, "%d of %d failures misreported", wrong, n_failed);
    CHECKF(n_failed >= min_failures, "only %d allocations", n_failed);
    scratch_set_keep(SCRATCH_KEEP);
    free(want);
    free(img);
}

static void test_allocation_failure(void)
{
    /* libpng: the buffer state, libpng's structs, zlib's state, a growth */
    pngenc_settings zlib_rle = {1, 3 /* Z_RLE */, PNG_FILTER_UP, PNGENC_ZLIB};
    check_allocation_failure(&zlib_rle, 5);
    /* fastz: filtered rows, output, tokens (the final shrink may fail
     * harmlessly: it is not an error) */
    pngenc_settings fast = {0, 0, PNG_FILTER_UP, PNGENC_FASTZ};
    check_allocation_failure(&fast, 3);
}

int main(void)
{
    RUN(test_gray_roundtrip);
    RUN(test_indexed_roundtrip_and_palette);
    RUN(test_rgb_roundtrip);
    RUN(test_settings_roundtrip);
    RUN(test_deterministic);
    RUN(test_bad_arguments);
    RUN(test_allocation_failure);
    return t_done();
}
