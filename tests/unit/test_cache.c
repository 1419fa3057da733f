/* test_cache.c: unit tests of the tile cache (server/service/cache.c): byte bound,
 * LRU order, references across eviction and destruction, single-flight
 * filling, error propagation, counters, allocation failure.
 *
 * Links only server/service/cache.c (it also builds under ThreadSanitizer), so the
 * allocation-failure test brings its own failing allocator.
 */
#include "service/cache.h"
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- a fill that makes recognisable data and counts its calls ---- */

/* The data of key k, size n: the key, then bytes derived from it, so a
 * reader can check an entry's bytes are still the ones it was given. */
static unsigned char *make_data(const char *key, size_t n)
{
    unsigned char *d = malloc(n ? n : 1);
    size_t kl = strlen(key);
    for (size_t i = 0; i < n; i++)
        d[i] = i < kl ? (unsigned char)key[i] : (unsigned char)(i * 31 + kl);
    return d;
}

static int data_ok(const cache_entry *e, const char *key, size_t n)
{
    if (cache_entry_size(e) != n)
        return 0;
    unsigned char *want = make_data(key, n);
    int ok = memcmp(cache_entry_data(e), want, n) == 0;
    free(want);
    return ok;
}

typedef struct {
    atomic_int calls;
    size_t size;       /* bytes each fill makes; 0: parse from key "name:size" */
    int error;         /* < 0: fail with it */
    int sleep_ms;
    cache *c;          /* for waiting on the other threads */
    uint64_t wait_shared; /* wait until stats.fills_shared reaches it (5 s max) */
} fill_ctx;

/* Entry sizes are taken from the key's ":N" suffix when ctx->size is 0. */
static size_t key_size(const fill_ctx *f, const char *key)
{
    if (f->size)
        return f->size;
    const char *colon = strrchr(key, ':');
    return colon ? (size_t)strtoul(colon + 1, NULL, 10) : 1;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int user_marker;

static int test_fill(void *ctx, const char *key, void **out_data, size_t *out_size,
                     void **out_user)
{
    fill_ctx *f = ctx;
    atomic_fetch_add(&f->calls, 1);
    if (f->sleep_ms)
        sleep_ms(f->sleep_ms);
    if (f->wait_shared) {
        for (int i = 0; i < 5000; i++) {
            cache_stats st;
            cache_get_stats(f->c, &st);
            if (st.fills_shared >= f->wait_shared)
                break;
            sleep_ms(1);
        }
    }
    if (f->error < 0)
        return f->error;
    size_t n = key_size(f, key);
    *out_data = make_data(key, n);
    *out_size = n;
    *out_user = &user_marker;
    return 0;
}

/* destroy callback: counts calls and checks each block is freed once */
static atomic_int n_destroyed;
static atomic_long bytes_destroyed;

static void count_destroy(void *data, size_t size, void *user)
{
    (void)user;
    atomic_fetch_add(&n_destroyed, 1);
    atomic_fetch_add(&bytes_destroyed, (long)size);
    free(data); /* ASan reports a second free of the same block */
}

static void reset_destroyed(void)
{
    atomic_store(&n_destroyed, 0);
    atomic_store(&bytes_destroyed, 0);
}

/* get + release; returns the hit flag, or -1 on error */
static int touch(cache *c, const char *key, fill_ctx *f)
{
    cache_entry *e = NULL;
    int hit = -1;
    int rc = cache_get(c, key, test_fill, f, &e, &hit);
    if (rc != 0)
        return -1;
    cache_entry_release(e);
    return hit;
}

/* ---- tests ---- */

static void test_hit_and_miss(void)
{
    fill_ctx f = {.size = 100};
    cache *c = cache_create(1000, NULL);
    CHECK(c != NULL);
    cache_entry *e = NULL;
    int hit = 7;
    CHECK(cache_get(c, "a", test_fill, &f, &e, &hit) == 0);
    CHECK(hit == 0);
    CHECK(e != NULL && data_ok(e, "a", 100));
    CHECK(e != NULL && cache_entry_user(e) == &user_marker);
    const void *first = e ? cache_entry_data(e) : NULL;
    cache_entry_release(e);

    e = NULL;
    CHECK(cache_get(c, "a", test_fill, &f, &e, &hit) == 0);
    CHECK(hit == 1);
    CHECK(e != NULL && cache_entry_data(e) == first);
    cache_entry_release(e);
    CHECK(atomic_load(&f.calls) == 1);

    /* keys are copied: a key buffer reused by the caller still finds its entry */
    char key[8];
    strcpy(key, "b");
    CHECK(touch(c, key, &f) == 0);
    strcpy(key, "x");
    CHECK(touch(c, "b", &f) == 1);
    CHECK(touch(c, "B", &f) == 0); /* keys are case-sensitive */
    cache_destroy(c);
}

static void test_byte_bound(void)
{
    enum { BUDGET = 10000, N = 2000 };
    fill_ctx f = {0};
    reset_destroyed();
    cache *c = cache_create(BUDGET, count_destroy);
    int held_over = 0;
    size_t inserted = 0;
    srand(1);
    for (int i = 0; i < N; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%d:%d", i, 1 + rand() % 700);
        CHECK(touch(c, key, &f) == 0);
        inserted++;
        cache_stats st;
        cache_get_stats(c, &st);
        if (st.bytes > BUDGET)
            held_over++;
    }
    CHECK(held_over == 0);
    cache_stats st;
    cache_get_stats(c, &st);
    CHECK(st.budget_bytes == BUDGET);
    CHECK(st.misses == N && st.hits == 0);
    CHECK(st.entries > 0 && st.entries < N);
    CHECKF(st.evictions + st.entries == inserted, "evictions %llu entries %zu",
           (unsigned long long)st.evictions, st.entries);
    /* nothing held: every evicted entry was destroyed at once */
    CHECK((uint64_t)atomic_load(&n_destroyed) == st.evictions);
    /* the budget is used, not just respected: the newest entries fill it
     * to within one entry's size */
    CHECKF(st.bytes > BUDGET - 700, "bytes %zu", st.bytes);
    size_t bytes_kept = st.bytes;
    cache_destroy(c);
    CHECK(atomic_load(&n_destroyed) == N);
    CHECK((size_t)atomic_load(&bytes_destroyed) >= bytes_kept);
}

static void test_lru_order(void)
{
    fill_ctx f = {.size = 100};
    cache *c = cache_create(300, NULL);
    CHECK(touch(c, "a", &f) == 0);
    CHECK(touch(c, "b", &f) == 0);
    CHECK(touch(c, "c", &f) == 0);
    CHECK(touch(c, "a", &f) == 1); /* a is now the most recent: b is the oldest */
    CHECK(touch(c, "d", &f) == 0); /* evicts b */
    cache_stats st;
    cache_get_stats(c, &st);
    CHECK(st.evictions == 1 && st.entries == 3 && st.bytes == 300);
    CHECK(touch(c, "a", &f) == 1);
    CHECK(touch(c, "c", &f) == 1);
    CHECK(touch(c, "d", &f) == 1);
    CHECK(touch(c, "b", &f) == 0); /* was evicted; refilling evicts a (oldest) */
    CHECK(touch(c, "c", &f) == 1);
    CHECK(touch(c, "d", &f) == 1);
    CHECK(touch(c, "b", &f) == 1);
    CHECK(touch(c, "a", &f) == 0);
    CHECK(atomic_load(&f.calls) == 6);
    cache_destroy(c);
}

static void test_referenced_entry_survives_eviction(void)
{
    fill_ctx f = {.size = 100};
    reset_destroyed();
    cache *c = cache_create(300, count_destroy);
    cache_entry *held = NULL;
    CHECK(cache_get(c, "held", test_fill, &f, &held, NULL) == 0);
    for (int i = 0; i < 20; i++) {
        char key[32];
        snprintf(key, sizeof key, "other%d", i);
        CHECK(touch(c, key, &f) == 0);
    }
    cache_stats st;
    cache_get_stats(c, &st);
    CHECK(st.bytes <= 300 && st.entries == 3);
    /* evicted but not freed: still readable and intact (ASan watches) */
    CHECK(atomic_load(&n_destroyed) == 17); /* 18 evicted, one of them held */
    CHECK(held && data_ok(held, "held", 100));
    /* the key is gone from the cache: a new lookup fills a new entry */
    cache_entry *again = NULL;
    int hit = -1;
    CHECK(cache_get(c, "held", test_fill, &f, &again, &hit) == 0);
    CHECK(hit == 0 && again != held);
    CHECK(again && data_ok(again, "held", 100));
    CHECK(atomic_load(&n_destroyed) == 18); /* the refill evicted one more */
    cache_entry_release(held);
    CHECK(atomic_load(&n_destroyed) == 19); /* the last reference frees it */
    cache_entry_release(again);
    CHECK(atomic_load(&n_destroyed) == 19); /* still cached */
    cache_destroy(c);
    CHECK(atomic_load(&n_destroyed) == 22);
}

static void test_destroy_once_including_after_cache_destroy(void)
{
    fill_ctx f = {.size = 10};
    reset_destroyed();
    cache *c = cache_create(1000, count_destroy);
    cache_entry *held[3] = {0};
    CHECK(cache_get(c, "h0", test_fill, &f, &held[0], NULL) == 0);
    CHECK(cache_get(c, "h1", test_fill, &f, &held[1], NULL) == 0);
    CHECK(cache_get(c, "h1", test_fill, &f, &held[2], NULL) == 0); /* two refs */
    for (int i = 0; i < 5; i++) {
        char key[32];
        snprintf(key, sizeof key, "free%d", i);
        CHECK(touch(c, key, &f) == 0);
    }
    CHECK(atomic_load(&n_destroyed) == 0);
    cache_destroy(c);
    CHECK(atomic_load(&n_destroyed) == 5); /* the unreferenced ones */
    CHECK(held[0] && data_ok(held[0], "h0", 10));
    cache_entry_release(held[0]);
    CHECK(atomic_load(&n_destroyed) == 6);
    cache_entry_release(held[1]);
    CHECK(atomic_load(&n_destroyed) == 6); /* h1 still has one reference */
    CHECK(held[2] && data_ok(held[2], "h1", 10));
    cache_entry_release(held[2]);
    CHECK(atomic_load(&n_destroyed) == 7);
    cache_destroy(NULL);
    cache_entry_release(NULL);
}

static void test_oversized_entry_returned_not_kept(void)
{
    fill_ctx f = {0};
    reset_destroyed();
    cache *c = cache_create(100, count_destroy);
    CHECK(touch(c, "small:60", &f) == 0);
    cache_entry *big = NULL;
    int hit = -1;
    CHECK(cache_get(c, "big:101", test_fill, &f, &big, &hit) == 0);
    CHECK(hit == 0 && big && data_ok(big, "big:101", 101));
    cache_stats st;
    cache_get_stats(c, &st);
    CHECK(st.entries == 1 && st.bytes == 60 && st.evictions == 0); /* small kept */
    CHECK(atomic_load(&n_destroyed) == 0);
    cache_entry_release(big);
    CHECK(atomic_load(&n_destroyed) == 1);
    CHECK(touch(c, "big:101", &f) == 0); /* not kept: a miss again */
    CHECK(touch(c, "small:60", &f) == 1);
    CHECK(touch(c, "exact:100", &f) == 0); /* exactly the budget is kept */
    CHECK(touch(c, "exact:100", &f) == 1);
    cache_destroy(c);
    CHECK(atomic_load(&n_destroyed) == 4);
}

/* ---- threads ---- */

enum { N_THREADS = 16 };

typedef struct {
    cache *c;
    fill_ctx *f;
    const char *key;
    pthread_barrier_t *start;
    int rc, hit;
    const void *data;
    int intact;
} getter;

static void *getter_main(void *arg)
{
    getter *g = arg;
    cache_entry *e = NULL;
    pthread_barrier_wait(g->start);
    g->rc = cache_get(g->c, g->key, test_fill, g->f, &e, &g->hit);
    if (g->rc == 0) {
        g->data = cache_entry_data(e);
        g->intact = data_ok(e, g->key, g->f->size);
        cache_entry_release(e);
    } else {
        g->data = e; /* must be NULL */
    }
    return NULL;
}

static void run_getters(cache *c, fill_ctx *f, const char *key, getter *g)
{
    pthread_t th[N_THREADS];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, N_THREADS);
    for (int i = 0; i < N_THREADS; i++) {
        g[i] = (getter){.c = c, .f = f, .key = key, .start = &start, .rc = 1};
        pthread_create(&th[i], NULL, getter_main, &g[i]);
    }
    for (int i = 0; i < N_THREADS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
}

static void test_single_flight(void)
{
    cache *c = cache_create(1 << 20, NULL);
    /* the fill sleeps 50 ms, then waits (up to 5 s) until the 15 others are
     * waiting for it, so every one of them has really missed */
    fill_ctx f = {.size = 4096, .sleep_ms = 50, .c = c, .wait_shared = N_THREADS - 1};
    getter g[N_THREADS];
    run_getters(c, &f, "tile/7/1/2", g);
    CHECK(atomic_load(&f.calls) == 1);
    int n_ok = 0, n_same = 0, n_intact = 0, n_hit = 0;
    for (int i = 0; i < N_THREADS; i++) {
        n_ok += g[i].rc == 0;
        n_same += g[i].data == g[0].data;
        n_intact += g[i].intact;
        n_hit += g[i].hit == 1;
    }
    CHECK(n_ok == N_THREADS && n_same == N_THREADS && n_intact == N_THREADS);
    CHECK(n_hit == 0);
    cache_stats st;
    cache_get_stats(c, &st);
    CHECKF(st.misses == N_THREADS && st.fills_shared == N_THREADS - 1 && st.hits == 0,
           "misses %llu shared %llu hits %llu", (unsigned long long)st.misses,
           (unsigned long long)st.fills_shared, (unsigned long long)st.hits);
    CHECK(st.entries == 1 && st.bytes == 4096);
    CHECK(touch(c, "tile/7/1/2", &f) == 1);
    CHECK(atomic_load(&f.calls) == 1);
    cache_destroy(c);
}

static void *get_once(void *arg)
{
    getter *g = arg;
    cache_entry *e = NULL;
    g->rc = cache_get(g->c, g->key, test_fill, g->f, &e, &g->hit);
    cache_entry_release(e);
    return NULL;
}

static void test_lookup_never_fills_or_waits(void)
{
    cache *c = cache_create(1 << 20, NULL);
    fill_ctx f = {.size = 64, .sleep_ms = 300};
    cache_entry *e = (cache_entry *)&f;
    CHECK(cache_lookup(c, "k", &e) == CACHE_EMISS && e == NULL);
    CHECK(atomic_load(&f.calls) == 0);
    /* While another thread fills "k", a lookup answers at once: a miss. */
    getter g = {.c = c, .f = &f, .key = "k", .rc = 1};
    pthread_t th;
    pthread_create(&th, NULL, get_once, &g);
    while (atomic_load(&f.calls) == 0)
        sleep_ms(1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(cache_lookup(c, "k", &e) == CACHE_EMISS && e == NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double waited_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    CHECKF(waited_ms < 100, "lookup waited %.1f ms for a fill", waited_ms);
    pthread_join(th, NULL);
    CHECK(g.rc == 0 && g.hit == 0);
    /* Once filled: a hit with the same bytes, and counted as one. */
    CHECK(cache_lookup(c, "k", &e) == 0 && e != NULL && data_ok(e, "k", 64));
    cache_entry_release(e);
    cache_stats st;
    cache_get_stats(c, &st);
    CHECK(st.hits == 1 && st.misses == 1 && atomic_load(&f.calls) == 1);
    cache_destroy(c);
}

static atomic_int attach_freed;
static void attach_free(void *obj)
{
    atomic_fetch_add(&attach_freed, 1);
    free(obj);
}

static void test_attachment_kept_once_freed_with_entry(void)
{
    cache *c = cache_create(1 << 20, NULL);
    fill_ctx f = {.size = 64};
    cache_entry *e = NULL;
    CHECK(cache_get(c, "k", test_fill, &f, &e, NULL) == 0);
    CHECK(cache_entry_attached(e) == NULL);
    void *a = malloc(8), *b = malloc(8);
    CHECK(cache_entry_attach(e, a, attach_free) == a);
    /* A second attacher gets the first one back and frees its own. */
    CHECK(cache_entry_attach(e, b, attach_free) == a);
    free(b);
    cache_entry_release(e);
    CHECK(cache_lookup(c, "k", &e) == 0 && cache_entry_attached(e) == a);
    cache_entry_release(e);
    CHECK(atomic_load(&attach_freed) == 0);
    cache_destroy(c); /* frees the entry, and its attachment once */
    CHECK(atomic_load(&attach_freed) == 1);
}

static void test_fill_error_shared_then_retried(void)
{
    cache *c = cache_create(1 << 20, NULL);
    fill_ctx f = {.size = 64, .sleep_ms = 50, .error = -5, .c = c,
                  .wait_shared = N_THREADS - 1};
    getter g[N_THREADS];
    run_getters(c, &f, "broken", g);
    CHECK(atomic_load(&f.calls) == 1);
    int n_err = 0, n_null = 0;
    for (int i = 0; i < N_THREADS; i++) {
        n_err += g[i].rc == -5;
        n_null += g[i].data == NULL;
    }
    CHECK(n_err == N_THREADS && n_null == N_THREADS);
    cache_stats st;
    cache_get_stats(c, &st);
    CHECK(st.entries == 0 && st.bytes == 0);
    CHECK(st.misses == N_THREADS && st.fills_shared == N_THREADS - 1);

    /* the error was not cached: the next call fills again, and succeeds */
    f.error = 0;
    f.sleep_ms = 0;
    f.wait_shared = 0;
    cache_entry *e = NULL;
    int hit = -1;
    CHECK(cache_get(c, "broken", test_fill, &f, &e, &hit) == 0);
    CHECK(hit == 0 && atomic_load(&f.calls) == 2);
    CHECK(e && data_ok(e, "broken", 64));
    cache_entry_release(e);
    CHECK(touch(c, "broken", &f) == 1);

    /* a single caller gets the error too, with *out set to NULL */
    f.error = -104;
    e = (cache_entry *)&f;
    CHECK(cache_get(c, "other", test_fill, &f, &e, NULL) == -104);
    CHECK(e == NULL);
    cache_destroy(c);
}

/* Many threads, few keys, a small budget, entries held across other calls:
 * every entry a thread reads holds the bytes of its own key. Mostly for
 * ThreadSanitizer. */
typedef struct {
    cache *c;
    fill_ctx *f;
    unsigned seed;
    int bad;
} stress_arg;

static void *stress_main(void *arg)
{
    stress_arg *a = arg;
    cache_entry *held = NULL;
    char held_key[32] = "";
    for (int i = 0; i < 3000; i++) {
        a->seed = a->seed * 1103515245u + 12345u;
        char key[32];
        snprintf(key, sizeof key, "s%u:%u", (a->seed >> 16) % 40, 50 + (a->seed >> 16) % 40);
        cache_entry *e = NULL;
        if (cache_get(a->c, key, test_fill, a->f, &e, NULL) != 0 ||
            !data_ok(e, key, key_size(a->f, key))) {
            a->bad++;
            cache_entry_release(e);
            continue;
        }
        if (i % 7 == 0) {
            if (held && !data_ok(held, held_key, key_size(a->f, held_key)))
                a->bad++;
            cache_entry_release(held);
            held = e;
            strcpy(held_key, key);
        } else {
            cache_entry_release(e);
        }
        if (i % 500 == 0) {
            cache_stats st;
            cache_get_stats(a->c, &st);
            if (st.bytes > st.budget_bytes)
                a->bad++;
        }
    }
    cache_entry_release(held);
    return NULL;
}

static void test_concurrent_stress(void)
{
    enum { T = 4 };
    fill_ctx f = {0};
    reset_destroyed();
    cache *c = cache_create(600, count_destroy);
    pthread_t th[T];
    stress_arg a[T];
    for (int i = 0; i < T; i++) {
        a[i] = (stress_arg){.c = c, .f = &f, .seed = 17u * (unsigned)i + 1};
        pthread_create(&th[i], NULL, stress_main, &a[i]);
    }
    int bad = 0;
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        bad += a[i].bad;
    }
    CHECK(bad == 0);
    cache_stats st;
    cache_get_stats(c, &st);
    CHECK(st.hits + st.misses == (uint64_t)T * 3000);
    CHECK(st.hits > 0 && st.evictions > 0);
    CHECK(st.bytes <= 600);
    CHECK(st.misses - st.fills_shared == (uint64_t)atomic_load(&f.calls));
    cache_destroy(c);
    CHECK(atomic_load(&n_destroyed) == atomic_load(&f.calls)); /* every fill freed once */
}

static void test_stats_counts(void)
{
    fill_ctx f = {0};
    cache *c = cache_create(250, NULL);
    cache_stats st;
    cache_get_stats(c, &st);
    CHECK(st.hits == 0 && st.misses == 0 && st.evictions == 0 && st.fills_shared == 0);
    CHECK(st.bytes == 0 && st.entries == 0 && st.budget_bytes == 250);
    touch(c, "a:100", &f);
    touch(c, "b:100", &f);
    touch(c, "a:100", &f);
    touch(c, "a:100", &f);
    touch(c, "c:50", &f);
    cache_get_stats(c, &st);
    CHECK(st.hits == 2 && st.misses == 3 && st.evictions == 0);
    CHECK(st.bytes == 250 && st.entries == 3);
    touch(c, "d:120", &f); /* 370 bytes: evicts b (oldest), then a: c + d */
    cache_get_stats(c, &st);
    CHECK(st.hits == 2 && st.misses == 4 && st.evictions == 2);
    CHECK(st.bytes == 170 && st.entries == 2);
    CHECK(touch(c, "c:50", &f) == 1);
    CHECK(touch(c, "d:120", &f) == 1);
    f.error = -1;
    CHECK(touch(c, "e:1", &f) == -1);
    cache_get_stats(c, &st);
    CHECK(st.hits == 4 && st.misses == 5 && st.bytes == 170 && st.entries == 2);
    CHECK(st.fills_shared == 0 && st.evictions == 2);
    cache_destroy(c);
}

/* ---- allocation failure: a failing allocator for the cache's own memory ---- */

static long alloc_nth, alloc_calls;

static void *failing_malloc(size_t n)
{
    if (++alloc_calls == alloc_nth)
        return NULL;
    return malloc(n);
}

static void test_allocation_failure(void)
{
    cache_set_alloc_funcs(failing_malloc, free);
    /* cache_create: every allocation failing in turn gives NULL, no leak */
    int n_create_fail = 0;
    for (alloc_nth = 1;; alloc_nth++) {
        alloc_calls = 0;
        cache *c = cache_create(1000, NULL);
        if (alloc_calls < alloc_nth) { /* nothing failed: done */
            CHECK(c != NULL);
            cache_destroy(c);
            break;
        }
        CHECK(c == NULL);
        n_create_fail++;
        cache_destroy(c);
    }
    CHECK(n_create_fail == 2);

    /* cache_get on a miss: the entry allocation fails -> CACHE_ENOMEM, fill
     * not called, nothing cached; the next call works */
    fill_ctx f = {.size = 10};
    alloc_nth = 0;
    cache *c = cache_create(1 << 20, NULL);
    alloc_calls = 0;
    alloc_nth = 1;
    cache_entry *e = (cache_entry *)&f;
    CHECK(cache_get(c, "k", test_fill, &f, &e, NULL) == CACHE_ENOMEM);
    CHECK(e == NULL && atomic_load(&f.calls) == 0);
    cache_stats st;
    cache_get_stats(c, &st);
    CHECK(st.entries == 0 && st.bytes == 0);
    CHECK(touch(c, "k", &f) == 0);
    CHECK(touch(c, "k", &f) == 1);

    /* a failed table growth is not an error: 200 entries with every growth
     * allocation failing still all work */
    int n_missed = 0, n_grow_failed = 0, n_found = 0;
    for (int i = 0; i < 200; i++) {
        char key[32];
        snprintf(key, sizeof key, "g%d", i);
        alloc_calls = 0;
        alloc_nth = 2; /* the entry succeeds, a growth (if any) fails */
        n_missed += touch(c, key, &f) == 0;
        n_grow_failed += alloc_calls == 2;
    }
    alloc_nth = 0;
    for (int i = 0; i < 200; i++) {
        char key[32];
        snprintf(key, sizeof key, "g%d", i);
        n_found += touch(c, key, &f) == 1;
    }
    CHECK(n_missed == 200 && n_found == 200);
    CHECKF(n_grow_failed > 100, "%d growths failed", n_grow_failed);
    cache_destroy(c);
    cache_set_alloc_funcs(NULL, NULL);
}

int main(void)
{
    RUN(test_hit_and_miss);
    RUN(test_byte_bound);
    RUN(test_lru_order);
    RUN(test_referenced_entry_survives_eviction);
    RUN(test_destroy_once_including_after_cache_destroy);
    RUN(test_oversized_entry_returned_not_kept);
    RUN(test_single_flight);
    RUN(test_lookup_never_fills_or_waits);
    RUN(test_attachment_kept_once_freed_with_entry);
    RUN(test_fill_error_shared_then_retried);
    RUN(test_concurrent_stress);
    RUN(test_stats_counts);
    RUN(test_allocation_failure);
    return t_done();
}
