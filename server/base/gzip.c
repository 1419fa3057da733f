/* gzip.c: gzip bodies through zlib's deflate (see gzip.h). */
#include "base/gzip.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "base/failalloc.h"

struct gzip_stream {
    z_stream z;
    int broken;
};

gzip_stream *gzip_create(gzip_content content)
{
    gzip_stream *gz = failalloc_calloc(1, sizeof *gz);
    if (gz == NULL)
        return NULL;
    gz->z.zalloc = failalloc_zalloc;
    gz->z.zfree = failalloc_zfree;
    /* windowBits 15 + 16: a gzip header and trailer instead of zlib's */
    int strategy = content == GZIP_NUMBERS ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY;
    if (deflateInit2(&gz->z, 1, Z_DEFLATED, 15 + 16, 8, strategy) != Z_OK) {
        free(gz);
        return NULL;
    }
    return gz;
}

void gzip_destroy(gzip_stream *gz)
{
    if (gz == NULL)
        return;
    deflateEnd(&gz->z);
    free(gz);
}

int gzip_write(gzip_stream *gz, const void *data, size_t n, int finish, bytebuf *out)
{
    if (gz->broken)
        return -1;
    gz->z.next_in = (Bytef *)(uintptr_t)data;
    gz->z.avail_in = (uInt)n;
    /* Z_SYNC_FLUSH at the end of each piece: what was written can be sent
     * now, the client decodes it before the next band arrives */
    int flush = finish ? Z_FINISH : Z_SYNC_FLUSH;
    for (;;) {
        size_t room = deflateBound(&gz->z, gz->z.avail_in) + 64;
        if (bytebuf_reserve(out, room) != 0) {
            gz->broken = 1;
            return -1;
        }
        gz->z.next_out = out->data + out->len;
        gz->z.avail_out = (uInt)(out->cap - out->len);
        int rc = deflate(&gz->z, flush);
        out->len = out->cap - gz->z.avail_out;
        if (rc == Z_STREAM_END || (rc == Z_OK && gz->z.avail_in == 0 && gz->z.avail_out > 0))
            return 0;
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            gz->broken = 1;
            return -1;
        }
    }
}

int gzip_buffer(gzip_content content, const void *data, size_t n, unsigned char **out_gz,
                size_t *out_size)
{
    *out_gz = NULL;
    *out_size = 0;
    gzip_stream *gz = gzip_create(content);
    if (gz == NULL)
        return -1;
    bytebuf b = {0};
    int rc = gzip_write(gz, data, n, 1, &b);
    gzip_destroy(gz);
    if (rc != 0) {
        bytebuf_free(&b);
        return -1;
    }
    *out_gz = b.data;
    *out_size = b.len;
    return 0;
}

/* The q of a coding's parameters (";q=0.5"): 1 unless given. */
static double q_value(const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
            p++;
        if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
            return strtod(p + 2, NULL);
        while (p < end && *p != ';')
            p++;
    }
    return 1.0;
}

int gzip_accepted(const char *ae)
{
    if (ae == NULL)
        return 0;
    int gzip = -1, star = -1; /* -1 not listed, 0 refused, 1 accepted */
    const char *p = ae;
    while (*p != '\0') {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        const char *tok = p;
        while (*p != '\0' && *p != ',' && *p != ';' && *p != ' ' && *p != '\t')
            p++;
        size_t len = (size_t)(p - tok);
        const char *params = p;
        while (*p != '\0' && *p != ',')
            p++;
        int ok = q_value(params, p) > 0.0;
        if ((len == 4 && strncasecmp(tok, "gzip", 4) == 0) ||
            (len == 6 && strncasecmp(tok, "x-gzip", 6) == 0))
            gzip = ok;
        else if (len == 1 && tok[0] == '*')
            star = ok;
    }
    return gzip >= 0 ? gzip : star == 1;
}
