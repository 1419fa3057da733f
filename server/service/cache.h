/* cache.h: the LRU cache of encoded tiles, bounded in bytes, shared by the
 * daemon's worker threads, with single-flight filling of missing entries.
 *
 * Entries are reference-counted: a lookup returns a reference that the caller
 * releases with cache_entry_release(); eviction unlinks an entry at once but
 * frees it (through its destroy callback) only when its last reference goes.
 */
#ifndef CACHE_H
#define CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"

typedef struct cache cache;
typedef struct cache_entry cache_entry;

/* Produces the bytes for a missing key. Returns 0 and sets *out_data (freed
 * later by destroy, or by free() if destroy is NULL), *out_size (the bytes
 * charged against the budget) and *out_user (any companion object, such as a
 * prepared HTTP response; may be NULL); or returns a negative error code,
 * which cache_get() passes back. Called without the cache lock held. */
typedef int (*cache_fill_fn)(void *ctx, const char *key, void **out_data,
                             size_t *out_size, void **out_user);

/* Frees an entry's data and user object, once nobody holds it. */
typedef void (*cache_destroy_fn)(void *data, size_t size, void *user);

/* Creates a cache that holds at most budget_bytes of entry data (an entry
 * larger than the budget is returned to its caller but not kept). destroy may
 * be NULL (data is then free()d). Returns NULL on allocation failure.
 * Free with cache_destroy(). */
cache *cache_create(size_t budget_bytes, cache_destroy_fn destroy);

/* Frees the cache and every entry nobody holds. Entries still referenced are
 * freed when released. cache_destroy(NULL) does nothing. */
void cache_destroy(cache *c);

/* Returns the entry for key, filling it with fill(ctx, key, ...) on a miss.
 * Concurrent calls for the same missing key call fill once: the others wait
 * for it and share its result (or its error). On success returns 0 and sets
 * *out to a referenced entry, and *out_hit (if not NULL) to 1 for a hit, 0
 * for a miss; the caller must cache_entry_release(*out). On failure returns
 * fill's negative code (or CACHE_ENOMEM) and sets *out to NULL. */
int cache_get(cache *c, const char *key, cache_fill_fn fill, void *ctx,
              cache_entry **out, int *out_hit);

/* From the one error table (errors.h). */
#define CACHE_ENOMEM ERR_NOMEM

/* The ready entry for key without filling or waiting: for threads that must
 * never block (the connection threads answer hits, and hand misses to the
 * render pool, which calls cache_get()). Returns 0 and sets *out to a
 * referenced entry (release it with cache_entry_release()) and counts a
 * hit; or returns CACHE_EMISS with *out NULL when the key is absent or
 * still being filled, counting nothing (the cache_get() that follows
 * counts the miss). */
int cache_lookup(cache *c, const char *key, cache_entry **out);

#define CACHE_EMISS (-2)

const void *cache_entry_data(const cache_entry *e);
size_t cache_entry_size(const cache_entry *e);
void *cache_entry_user(const cache_entry *e);
/* An object attached to an entry by whoever serves it (the connection
 * layer attaches the response it built from the entry's bytes, so that
 * every later hit reuses it), freed with free_fn when the entry is freed.
 * Returns the entry's attachment: obj if there was none, or the one
 * another thread attached first (the caller then frees its own obj).
 * Thread-safe; cache_entry_attached() returns it (NULL when none). */
typedef void (*cache_attach_free_fn)(void *obj);
void *cache_entry_attach(cache_entry *e, void *obj, cache_attach_free_fn free_fn);
void *cache_entry_attached(const cache_entry *e);

/* Drops a reference from cache_get(); release(NULL) does nothing. */
void cache_entry_release(cache_entry *e);

typedef struct {
    uint64_t hits, misses, evictions;
    uint64_t fills_shared; /* misses that waited for another thread's fill */
    size_t bytes, entries, budget_bytes;
} cache_stats;

/* A consistent snapshot of the counters. hits + misses counts every
 * cache_get(); fills_shared is the part of misses that waited for another
 * thread's fill instead of calling fill; bytes and entries cover the entries
 * the cache keeps (not fills in progress, not over-budget entries). */
void cache_get_stats(cache *c, cache_stats *out);

/* Replaces the allocator of the cache's own memory (the cache, its table,
 * its entries and key copies; not the data fill returns), e.g. with
 * failalloc_malloc to test out-of-memory paths. Process-wide: call before
 * creating any cache and before any thread uses one; NULL restores
 * malloc/free. free_fn must free what malloc_fn returns. */
void cache_set_alloc_funcs(void *(*malloc_fn)(size_t), void (*free_fn)(void *));

#endif
