/* fuzz_util.h: what the fuzz harnesses share: the query-string split that
 * libmicrohttpd 0.9.75 applies before the daemon sees its GET arguments, and
 * a failure check that aborts (so libFuzzer records the input). */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"

/* An invariant of the code under test: on failure print it and abort. */
#define FUZZ_ASSERT(cond)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* Splits the query string q (NUL-terminated, modified in place: it must stay
 * alive as long as *a is used) into GET arguments the way libmicrohttpd
 * 0.9.75 does (MHD_parse_arguments_): on '&', each piece at its first '=';
 * '+' becomes a space; then percent-decoding with libmicrohttpd's own
 * MHD_http_unescape, which returns the decoded length (a "%00" makes it
 * differ from strlen). A piece without '=' has a NULL value. Each argument
 * then goes through query_args_add, the check query_collect applies.
 * Returns 0, or -1 when query_args_add refused one (a->msg says why). */
static inline int fuzz_split_query(char *q, query_args *a)
{
    memset(a, 0, sizeof *a);
    if (*q == '\0')
        return 0; /* "/path?" and "/path": no arguments */
    for (char *piece = q; piece != NULL;) {
        char *amp = strchr(piece, '&');
        if (amp != NULL)
            *amp = '\0';
        char *eq = strchr(piece, '=');
        if (eq != NULL)
            *eq = '\0';
        for (char *c = piece; *c != '\0'; c++)
            if (*c == '+')
                *c = ' ';
        size_t klen = MHD_http_unescape(piece);
        size_t vlen = 0;
        char *value = NULL;
        if (eq != NULL) {
            value = eq + 1;
            for (char *c = value; *c != '\0'; c++)
                if (*c == '+')
                    *c = ' ';
            vlen = MHD_http_unescape(value);
        }
        if (query_args_add(a, piece, klen, value, vlen) != 0)
            return -1;
        piece = amp != NULL ? amp + 1 : NULL;
    }
    return 0;
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
