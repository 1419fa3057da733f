/* cache.c: the byte-bounded LRU of encoded tiles with reference-counted
 * entries and single-flight filling (see cache.h).
 *
 * One mutex guards the table, the LRU list and the counters; one condition
 * variable wakes the threads waiting for a fill. An entry's reference count
 * is atomic so that cache_entry_release() needs no lock (and works after
 * cache_destroy()): the cache holds one reference while the entry is linked
 * in its table, each cache_get() caller one more. Whoever drops the last
 * reference frees the entry, calling destroy outside the lock.
 *
 * The cache's own allocations go through replaceable hooks
 * (cache_set_alloc_funcs) rather than server/base/failalloc.h directly, so that
 * this file links on its own (the ThreadSanitizer test build links only
 * cache.c and its test).
 */
#include "service/cache.h"

#include "base/hash.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef enum { ENTRY_FILLING, ENTRY_READY, ENTRY_FAILED } entry_state;

struct cache_entry {
    atomic_uint refs;
    entry_state state;     /* written under the cache lock */
    int error;             /* ENTRY_FAILED: fill's code */
    void *data;
    size_t size;
    void *user;
    cache_destroy_fn destroy; /* copied so the entry can outlive its cache */
    _Atomic(void *) attached;                 /* cache_entry_attach */
    _Atomic(cache_attach_free_fn) attached_free;
    uint64_t hash;
    cache_entry *chain;    /* next in the bucket */
    cache_entry *lru_prev; /* towards the most recently used */
    cache_entry *lru_next; /* towards the least recently used */
    char key[];
};

struct cache {
    pthread_mutex_t lock;
    pthread_cond_t filled; /* broadcast whenever a fill ends */
    cache_destroy_fn destroy;
    cache_entry **buckets;
    size_t n_buckets;      /* a power of two */
    size_t n_linked;       /* entries in the table, filling ones included */
    cache_entry *lru_head; /* most recently used */
    cache_entry *lru_tail;
    cache_stats stats;
};

static void *(*alloc_fn)(size_t) = malloc;
static void (*free_fn)(void *) = free;

void cache_set_alloc_funcs(void *(*malloc_fn)(size_t), void (*release_fn)(void *))
{
    alloc_fn = malloc_fn ? malloc_fn : malloc;
    free_fn = release_fn ? release_fn : free;
}

/* Keys are short canonical request strings. */
static uint64_t hash_key(const char *key)
{
    return hash_fnv1a_str(HASH_FNV1A_INIT, key);
}

static void entry_free(cache_entry *e)
{
    void *att = atomic_load(&e->attached);
    if (att != NULL) {
        cache_attach_free_fn f = atomic_load(&e->attached_free);
        if (f != NULL)
            f(att);
    }
    if (e->state == ENTRY_READY) {
        if (e->destroy)
            e->destroy(e->data, e->size, e->user);
        else
            free(e->data);
    }
    free_fn(e);
}

static void entry_unref(cache_entry *e)
{
    unsigned before = atomic_fetch_sub(&e->refs, 1);
    assert(before > 0);
    if (before == 1)
        entry_free(e);
}

cache *cache_create(size_t budget_bytes, cache_destroy_fn destroy)
{
    cache *c = alloc_fn(sizeof *c);
    if (!c)
        goto fail_cache;
    memset(c, 0, sizeof *c);
    c->n_buckets = 64;
    c->buckets = alloc_fn(c->n_buckets * sizeof *c->buckets);
    if (!c->buckets)
        goto fail_buckets;
    memset(c->buckets, 0, c->n_buckets * sizeof *c->buckets);
    if (pthread_mutex_init(&c->lock, NULL) != 0)
        goto fail_lock;
    if (pthread_cond_init(&c->filled, NULL) != 0)
        goto fail_cond;
    c->destroy = destroy;
    c->stats.budget_bytes = budget_bytes;
    return c;

fail_cond:
    pthread_mutex_destroy(&c->lock);
fail_lock:
    free_fn(c->buckets);
fail_buckets:
    free_fn(c);
fail_cache:
    return NULL;
}

/* ---- table and list; all under c->lock ---- */

static cache_entry *table_find(const cache *c, const char *key, uint64_t hash)
{
    for (cache_entry *e = c->buckets[hash & (c->n_buckets - 1)]; e; e = e->chain)
        if (e->hash == hash && strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

/* Doubles the bucket array when the table gets fuller than one entry per
 * bucket. Failing to grow is harmless (longer chains), so it is not an error. */
static void table_maybe_grow(cache *c)
{
    if (c->n_linked < c->n_buckets || c->n_buckets > SIZE_MAX / 2 / sizeof *c->buckets)
        return;
    size_t n = c->n_buckets * 2;
    cache_entry **b = alloc_fn(n * sizeof *b);
    if (!b)
        return;
    memset(b, 0, n * sizeof *b);
    for (size_t i = 0; i < c->n_buckets; i++) {
        cache_entry *e = c->buckets[i];
        while (e) {
            cache_entry *next = e->chain;
            e->chain = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    free_fn(c->buckets);
    c->buckets = b;
    c->n_buckets = n;
}

static void table_insert(cache *c, cache_entry *e)
{
    cache_entry **slot = &c->buckets[e->hash & (c->n_buckets - 1)];
    e->chain = *slot;
    *slot = e;
    c->n_linked++;
    table_maybe_grow(c);
}

static void lru_remove(cache *c, cache_entry *e)
{
    if (e->lru_prev)
        e->lru_prev->lru_next = e->lru_next;
    else
        c->lru_head = e->lru_next;
    if (e->lru_next)
        e->lru_next->lru_prev = e->lru_prev;
    else
        c->lru_tail = e->lru_prev;
    e->lru_prev = e->lru_next = NULL;
}

static void lru_push_front(cache *c, cache_entry *e)
{
    e->lru_prev = NULL;
    e->lru_next = c->lru_head;
    if (c->lru_head)
        c->lru_head->lru_prev = e;
    else
        c->lru_tail = e;
    c->lru_head = e;
}

/* Takes e out of the table (and the LRU list and the counters if it is
 * ready). The cache's reference is left for the caller to drop, after
 * unlocking, so that destroy never runs under the lock. */
static void unlink_entry(cache *c, cache_entry *e)
{
    cache_entry **p = &c->buckets[e->hash & (c->n_buckets - 1)];
    while (*p != e)
        p = &(*p)->chain;
    *p = e->chain;
    e->chain = NULL;
    c->n_linked--;
    if (e->state == ENTRY_READY) {
        lru_remove(c, e);
        c->stats.bytes -= e->size;
        c->stats.entries--;
    }
}

/* Evicts least recently used entries, other than keep, until the budget
 * holds; chains them through ->chain onto *dropped for entry_unref later. */
static void evict_to_budget(cache *c, const cache_entry *keep, cache_entry **dropped)
{
    while (c->stats.bytes > c->stats.budget_bytes && c->lru_tail && c->lru_tail != keep) {
        cache_entry *victim = c->lru_tail;
        unlink_entry(c, victim);
        c->stats.evictions++;
        victim->chain = *dropped;
        *dropped = victim;
    }
}

static void unref_list(cache_entry *e)
{
    while (e) {
        cache_entry *next = e->chain;
        entry_unref(e);
        e = next;
    }
}

/* ---- public ---- */

void cache_destroy(cache *c)
{
    if (!c)
        return;
    /* No cache_get() may be running: the caller stops its threads first. */
    for (size_t i = 0; i < c->n_buckets; i++) {
        cache_entry *e = c->buckets[i];
        while (e) {
            cache_entry *next = e->chain;
            assert(e->state == ENTRY_READY);
            entry_unref(e);
            e = next;
        }
    }
    pthread_cond_destroy(&c->filled);
    pthread_mutex_destroy(&c->lock);
    free_fn(c->buckets);
    free_fn(c);
}

/* Waits for another thread's fill of e (referenced by the caller, lock
 * held); returns 0 with e ready or the fill's error. */
static int wait_for_fill(cache *c, cache_entry *e)
{
    while (e->state == ENTRY_FILLING)
        pthread_cond_wait(&c->filled, &c->lock);
    return e->state == ENTRY_READY ? 0 : e->error;
}

void *cache_entry_attach(cache_entry *e, void *obj, cache_attach_free_fn free_fn)
{
    void *expected = NULL;
    if (atomic_compare_exchange_strong(&e->attached, &expected, obj)) {
        atomic_store(&e->attached_free, free_fn);
        return obj;
    }
    return expected;
}

void *cache_entry_attached(const cache_entry *e)
{
    return atomic_load(&((cache_entry *)e)->attached);
}

int cache_lookup(cache *c, const char *key, cache_entry **out)
{
    assert(c && key && out);
    uint64_t hash = hash_key(key);
    *out = NULL;
    pthread_mutex_lock(&c->lock);
    cache_entry *e = table_find(c, key, hash);
    if (e == NULL || e->state != ENTRY_READY) {
        pthread_mutex_unlock(&c->lock);
        return CACHE_EMISS;
    }
    atomic_fetch_add(&e->refs, 1);
    lru_remove(c, e);
    lru_push_front(c, e);
    c->stats.hits++;
    pthread_mutex_unlock(&c->lock);
    *out = e;
    return 0;
}

int cache_get(cache *c, const char *key, cache_fill_fn fill, void *ctx,
              cache_entry **out, int *out_hit)
{
    assert(c && key && fill && out);
    uint64_t hash = hash_key(key);
    size_t key_len = strlen(key);
    cache_entry *dropped = NULL;
    int rc;

    *out = NULL;
    pthread_mutex_lock(&c->lock);
    cache_entry *e = table_find(c, key, hash);
    if (e && e->state == ENTRY_READY) {
        atomic_fetch_add(&e->refs, 1);
        lru_remove(c, e);
        lru_push_front(c, e);
        c->stats.hits++;
        pthread_mutex_unlock(&c->lock);
        if (out_hit)
            *out_hit = 1;
        *out = e;
        return 0;
    }
    c->stats.misses++;
    if (e) { /* a fill in progress: share it */
        c->stats.fills_shared++;
        atomic_fetch_add(&e->refs, 1);
        rc = wait_for_fill(c, e);
        pthread_mutex_unlock(&c->lock);
        goto done;
    }

    if (key_len > SIZE_MAX - sizeof *e - 1 || !(e = alloc_fn(sizeof *e + key_len + 1))) {
        pthread_mutex_unlock(&c->lock);
        return CACHE_ENOMEM;
    }
    memset(e, 0, sizeof *e);
    memcpy(e->key, key, key_len + 1);
    e->hash = hash;
    e->state = ENTRY_FILLING;
    e->destroy = c->destroy;
    atomic_init(&e->refs, 2); /* the cache's and ours */
    atomic_init(&e->attached, NULL);
    atomic_init(&e->attached_free, NULL);
    table_insert(c, e);
    pthread_mutex_unlock(&c->lock);

    void *data = NULL, *user = NULL;
    size_t size = 0;
    rc = fill(ctx, key, &data, &size, &user);

    pthread_mutex_lock(&c->lock);
    if (rc < 0) {
        e->state = ENTRY_FAILED;
        e->error = rc;
        unlink_entry(c, e); /* an error is not cached: the next call retries */
        e->chain = dropped;
        dropped = e;
    } else {
        rc = 0;
        if (size > c->stats.budget_bytes) {
            /* returned to its callers, never kept (unlinked while still
             * filling, so the counters are not touched) */
            unlink_entry(c, e);
            e->chain = dropped;
            dropped = e;
        }
        e->data = data;
        e->size = size;
        e->user = user;
        e->state = ENTRY_READY;
        if (size <= c->stats.budget_bytes) {
            lru_push_front(c, e);
            c->stats.bytes += size;
            c->stats.entries++;
            evict_to_budget(c, e, &dropped);
        }
    }
    pthread_cond_broadcast(&c->filled);
    pthread_mutex_unlock(&c->lock);

done:
    unref_list(dropped);
    if (rc < 0) {
        entry_unref(e);
        return rc;
    }
    if (out_hit)
        *out_hit = 0;
    *out = e;
    return 0;
}

const void *cache_entry_data(const cache_entry *e)
{
    return e->data;
}

size_t cache_entry_size(const cache_entry *e)
{
    return e->size;
}

void *cache_entry_user(const cache_entry *e)
{
    return e->user;
}

void cache_entry_release(cache_entry *e)
{
    if (e)
        entry_unref(e);
}

void cache_get_stats(cache *c, cache_stats *out)
{
    pthread_mutex_lock(&c->lock);
    *out = c->stats;
    pthread_mutex_unlock(&c->lock);
}
