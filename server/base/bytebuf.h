/* bytebuf.h: a growable byte buffer, the sink of the streaming encoders
 * (gzip.h, pngstream.h) and of the grid's bands. Memory from failalloc.h. */
#ifndef BYTEBUF_H
#define BYTEBUF_H

#include <stddef.h>

typedef struct {
    unsigned char *data; /* malloc()ed; NULL while cap is 0 */
    size_t len, cap;
} bytebuf;

/* Makes room for n more bytes after len. Returns 0, or -1 out of memory
 * (the buffer is unchanged). */
int bytebuf_reserve(bytebuf *b, size_t n);
/* Appends data[0..n). Returns 0, or -1 out of memory (unchanged). */
int bytebuf_append(bytebuf *b, const void *data, size_t n);
/* Frees the memory and zeroes b; bytebuf_free on a zeroed buffer does
 * nothing. */
void bytebuf_free(bytebuf *b);

#endif
