/* test_server_util.h: helpers the server unit tests share. */
#ifndef TEST_SERVER_UTIL_H
#define TEST_SERVER_UTIL_H

#include <string.h>

#include "query.h"

/* Query arguments from n name/value pairs kv[2i], kv[2i+1], as
 * query_collect() would hand them over. */
static inline query_args test_query_args(const char *const *kv, size_t n)
{
    query_args a;
    memset(&a, 0, sizeof a);
    for (size_t i = 0; i < n; i++) {
        a.names[i] = kv[2 * i];
        a.values[i] = kv[2 * i + 1];
    }
    a.n = n;
    return a;
}

#endif
