/* hash.h: FNV-1a 64, the one hash of the daemon: cache keys, ETags, the
 * render pool's client buckets and PMTiles' duplicate-tile check. Not for
 * anything an attacker could aim at a table without a bound: every table it
 * feeds is bounded in size. */
#ifndef HASH_H
#define HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV1A_INIT 0xcbf29ce484222325ULL

/* h carried on over size bytes at data (start from HASH_FNV1A_INIT). */
static inline uint64_t hash_fnv1a_update(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* h carried on over the NUL-terminated string s. */
static inline uint64_t hash_fnv1a_str(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

/* The hash of size bytes at data. */
static inline uint64_t hash_fnv1a(const void *data, size_t size)
{
    return hash_fnv1a_update(HASH_FNV1A_INIT, data, size);
}

#endif
