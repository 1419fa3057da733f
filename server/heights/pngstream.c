/* pngstream.c: a row-at-a-time PNG writer over zlib (see pngstream.h). */
#include "heights/pngstream.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include <zlib.h>

#include "base/failalloc.h"

struct pngstream {
    z_stream z;
    size_t row_bytes;
    int rows_left;
    unsigned char *prev;     /* the previous row (zeros before the first) */
    unsigned char *filtered; /* filter byte + the Up-filtered row */
    unsigned char chunk[PNGSTREAM_CHUNK];
    int broken;
};

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Appends one chunk: length, type, data, CRC of type and data. */
static int put_chunk(bytebuf *out, const char type[4], const unsigned char *data, size_t n)
{
    if (bytebuf_reserve(out, n + 12) != 0)
        return -1;
    unsigned char *p = out->data + out->len;
    put32(p, (uint32_t)n);
    memcpy(p + 4, type, 4);
    if (n > 0)
        memcpy(p + 8, data, n);
    /* libdeflate's CRC-32 (carry-less multiply; zlib's is table-driven): the same sum */
    put32(p + 8 + n, libdeflate_crc32(0, p + 4, n + 4));
    out->len += n + 12;
    return 0;
}

pngstream *pngstream_create(int width, int height, pngstream_format format, bytebuf *out)
{
    if (width < 1 || height < 1)
        return NULL;
    pngstream *ps = failalloc_calloc(1, sizeof *ps);
    if (ps == NULL)
        return NULL;
    ps->row_bytes = (size_t)width * (format == PNGSTREAM_GRAY16 ? 2 : 3);
    ps->rows_left = height;
    ps->prev = failalloc_calloc(1, ps->row_bytes);
    ps->filtered = failalloc_malloc(ps->row_bytes + 1);
    if (ps->prev == NULL || ps->filtered == NULL)
        goto fail;
    ps->z.zalloc = failalloc_zalloc;
    ps->z.zfree = failalloc_zfree;
    int strategy = format == PNGSTREAM_PICTURE ? Z_RLE : Z_HUFFMAN_ONLY;
    if (deflateInit2(&ps->z, 1, Z_DEFLATED, 15, 8, strategy) != Z_OK)
        goto fail;
    ps->z.next_out = ps->chunk;
    ps->z.avail_out = sizeof ps->chunk;

    static const unsigned char signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    unsigned char ihdr[13];
    put32(ihdr, (uint32_t)width);
    put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = format == PNGSTREAM_GRAY16 ? 16 : 8; /* bit depth */
    ihdr[9] = format == PNGSTREAM_GRAY16 ? 0 : 2;  /* colour type: gray, RGB */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;           /* deflate, adaptive filters, no interlace */
    size_t len0 = out->len;
    if (bytebuf_append(out, signature, sizeof signature) != 0 ||
        put_chunk(out, "IHDR", ihdr, sizeof ihdr) != 0) {
        out->len = len0;
        deflateEnd(&ps->z);
        goto fail;
    }
    return ps;

fail:
    free(ps->filtered);
    free(ps->prev);
    free(ps);
    return NULL;
}

void pngstream_destroy(pngstream *ps)
{
    if (ps == NULL)
        return;
    deflateEnd(&ps->z);
    free(ps->filtered);
    free(ps->prev);
    free(ps);
}

int pngstream_row(pngstream *ps, const unsigned char *row, bytebuf *out)
{
    if (ps->broken || ps->rows_left <= 0)
        return -1;
    ps->rows_left--;
    /* Up: each byte minus the byte above it (smooth fields: small numbers) */
    ps->filtered[0] = 2;
    for (size_t i = 0; i < ps->row_bytes; i++)
        ps->filtered[i + 1] = (unsigned char)(row[i] - ps->prev[i]);
    memcpy(ps->prev, row, ps->row_bytes);

    int finish = ps->rows_left == 0;
    ps->z.next_in = ps->filtered;
    ps->z.avail_in = (uInt)(ps->row_bytes + 1);
    for (;;) {
        int rc = deflate(&ps->z, finish ? Z_FINISH : Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
            goto broken;
        if (ps->z.avail_out == 0 || (rc == Z_STREAM_END && ps->z.avail_out < sizeof ps->chunk)) {
            if (put_chunk(out, "IDAT", ps->chunk, sizeof ps->chunk - ps->z.avail_out) != 0)
                goto broken;
            ps->z.next_out = ps->chunk;
            ps->z.avail_out = sizeof ps->chunk;
        }
        if (rc == Z_STREAM_END)
            return put_chunk(out, "IEND", NULL, 0) == 0 ? 0 : (ps->broken = 1, -1);
        if (!finish && ps->z.avail_in == 0 && ps->z.avail_out > 0)
            return 0;
    }
broken:
    ps->broken = 1;
    return -1;
}
