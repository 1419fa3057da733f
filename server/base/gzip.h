/* gzip.h: gzip (RFC 1952) compression of response bodies, whole or as a
 * stream of pieces (the bands of a grid), through zlib's deflate.
 *
 * Why zlib and not fastz.h: fastz writes one deflate block for a whole
 * buffer and finds only runs of a byte; a streamed body needs blocks that
 * end as each band is written, and JSON's repeated keys and separators are
 * matches at long distances (BENCHMARKS.md, "Compression").
 */
#ifndef GZIP_H
#define GZIP_H

#include <stddef.h>

#include "base/bytebuf.h"

typedef struct gzip_stream gzip_stream;

/* What a body holds, which decides how it is compressed (BENCHMARKS.md,
 * "Compression"): text (JSON: repeated keys and separators, LZ77 matches pay)
 * at zlib level 1; numbers (.npy, .r16: the low bytes of noise samples are
 * random, matches are rare, Huffman coding alone gets the same ratio at a
 * third of the time) with Z_HUFFMAN_ONLY. */
typedef enum { GZIP_TEXT = 0, GZIP_NUMBERS } gzip_content;

/* A new stream for content; NULL out of memory. Free with gzip_destroy()
 * (gzip_destroy(NULL) does nothing). */
gzip_stream *gzip_create(gzip_content content);
void gzip_destroy(gzip_stream *gz);

/* Compresses data[0..n) and appends what deflate emits to out; with finish
 * 1 this is the last piece and the gzip trailer follows. Returns 0, or -1
 * out of memory (the stream is then unusable). */
int gzip_write(gzip_stream *gz, const void *data, size_t n, int finish, bytebuf *out);

/* A whole body: returns 0 and a malloc()ed *out_gz of
 * *out_size bytes that the caller frees, or -1 out of memory (*out_gz NULL). */
int gzip_buffer(gzip_content content, const void *data, size_t n, unsigned char **out_gz,
                size_t *out_size);

/* 1 if an Accept-Encoding header value (NULL: absent) accepts gzip: a
 * "gzip" or "x-gzip" or "*" coding whose q is not 0. */
int gzip_accepted(const char *accept_encoding);

#endif
