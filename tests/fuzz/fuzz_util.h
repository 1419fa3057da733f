/* fuzz_util.h: what the fuzz harnesses share: the daemon's query split, and
 * a failure check that aborts (so libFuzzer records the input). */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/query.h"

/* An invariant of the code under test: on failure print it and abort. */
#define FUZZ_ASSERT(cond)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* Splits the query string q (modified in place; it must stay alive as long
 * as *a is used) with the daemon's own query_split. Returns 0, or -1 when
 * it refused an argument (a->msg says why). */
static inline int fuzz_split_query(char *q, query_args *a)
{
    char err[256];
    return query_split(q, a, err, sizeof err) == 0 ? 0 : -1;
}

/* A NUL-terminated copy of data[0..size) (freed by the caller). */
static inline char *fuzz_strndup(const unsigned char *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
