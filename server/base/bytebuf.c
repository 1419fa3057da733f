/* bytebuf.c: a growable byte buffer (see bytebuf.h). */
#include "base/bytebuf.h"

#include <stdlib.h>
#include <string.h>

#include "base/failalloc.h"

int bytebuf_reserve(bytebuf *b, size_t n)
{
    if (n <= b->cap - b->len)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < n) {
        if (cap > ((size_t)-1) / 2)
            return -1;
        cap *= 2;
    }
    unsigned char *d = failalloc_realloc(b->data, cap);
    if (d == NULL)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

int bytebuf_append(bytebuf *b, const void *data, size_t n)
{
    if (bytebuf_reserve(b, n) != 0)
        return -1;
    if (n > 0)
        memcpy(b->data + b->len, data, n);
    b->len += n;
    return 0;
}

void bytebuf_free(bytebuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}
