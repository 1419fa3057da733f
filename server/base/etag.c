/* etag.c: strong ETags and If-None-Match (see etag.h). */
#include "base/etag.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/hash.h"

void etag_of(const char *canonical, const char *versions, char *buf, size_t buf_size)
{
    uint64_t h = hash_fnv1a_str(hash_fnv1a_str(HASH_FNV1A_INIT, canonical), versions);
    snprintf(buf, buf_size, "\"%016" PRIx64 "\"", h);
}

int etag_matches(const char *inm, const char *etag)
{
    if (inm == NULL)
        return 0;
    size_t elen = strlen(etag);
    const char *p = inm;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (*p == '\0')
            return 0;
        if (*p == '*')
            return 1;
        if (p[0] == 'W' && p[1] == '/')
            p += 2; /* If-None-Match compares weakly */
        const char *end = p;
        if (*p == '"') {
            end = strchr(p + 1, '"');
            if (end == NULL)
                return 0;
            end++;
        } else {
            while (*end != '\0' && *end != ',')
                end++;
        }
        if ((size_t)(end - p) == elen && memcmp(p, etag, elen) == 0)
            return 1;
        p = end;
        while (*p != '\0' && *p != ',')
            p++;
    }
}
