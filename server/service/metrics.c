/* metrics.c: atomic request/render counters and their Prometheus text. */
#include "service/metrics.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/failalloc.h"

/* Upper bounds (seconds) of the render-time histogram buckets; +Inf is
 * implicit. A cold 256-px tile takes about 1-20 ms (BENCHMARKS.md, "Tiles: render and encode"). */
static const double render_buckets[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                        0.05,   0.1,   0.25,   0.5,   1.0,  2.5};
#define N_BUCKETS (sizeof render_buckets / sizeof render_buckets[0])
#define N_STATUS 600

struct metrics {
    metrics_extra_fn extra; /* more exposition text (the connection layer's) */
    void *extra_ctx;
    atomic_uint_fast64_t requests[ROUTE_COUNT][N_STATUS];
    atomic_uint_fast64_t render_bucket[N_BUCKETS + 1]; /* not cumulative; last: +Inf */
    atomic_uint_fast64_t render_count;
    atomic_uint_fast64_t render_ns;
};

metrics *metrics_create(void)
{
    /* calloc's zero bytes are valid zero atomics on every target we build. */
    return calloc(1, sizeof(metrics));
}

void metrics_destroy(metrics *m) { free(m); }

void metrics_count_request(metrics *m, route_id route, unsigned int status)
{
    if (m == NULL)
        return;
    if ((unsigned)route >= ROUTE_COUNT)
        route = ROUTE_NONE;
    if (status >= N_STATUS)
        status = 0;
    atomic_fetch_add_explicit(&m->requests[route][status], 1, memory_order_relaxed);
}

void metrics_set_extra(metrics *m, metrics_extra_fn fn, void *ctx)
{
    m->extra = fn;
    m->extra_ctx = ctx;
}

void metrics_observe_render(metrics *m, double seconds)
{
    if (m == NULL)
        return;
    size_t b = 0;
    while (b < N_BUCKETS && seconds > render_buckets[b])
        b++;
    atomic_fetch_add_explicit(&m->render_bucket[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->render_count, 1, memory_order_relaxed);
    uint64_t ns = seconds > 0 ? (uint64_t)(seconds * 1e9 + 0.5) : 0;
    atomic_fetch_add_explicit(&m->render_ns, ns, memory_order_relaxed);
}

/* A growing text buffer; on allocation failure it sets failed and stops. */
typedef struct {
    char *p;
    size_t len, cap;
    int failed;
} buf;

static void put(buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2 + (size_t)n;
        char *np = failalloc_realloc(b->p, cap);
        if (np == NULL) {
            b->failed = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
}

static void header(buf *b, const char *name, const char *type, const char *help)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

char *metrics_text(metrics *m, cache *c, size_t *out_len)
{
    buf b = {failalloc_malloc(8192), 0, 8192, 0};
    if (b.p == NULL)
        return NULL;
    b.p[0] = '\0';

    header(&b, "noisetile_http_requests_total", "counter",
           "HTTP requests answered, by route and status (status 0: connection ended first).");
    for (int r = 0; r < ROUTE_COUNT; r++)
        for (int s = 0; s < N_STATUS; s++) {
            uint64_t v = atomic_load_explicit(&m->requests[r][s], memory_order_relaxed);
            if (v != 0)
                put(&b, "noisetile_http_requests_total{route=\"%s\",status=\"%d\"} %llu\n",
                    route_name((route_id)r), s, (unsigned long long)v);
        }

    header(&b, "noisetile_render_seconds", "histogram",
           "Time to render and encode one tile that was not in the cache.");
    uint64_t cum = 0;
    for (size_t i = 0; i <= N_BUCKETS; i++) {
        cum += atomic_load_explicit(&m->render_bucket[i], memory_order_relaxed);
        if (i < N_BUCKETS)
            put(&b, "noisetile_render_seconds_bucket{le=\"%g\"} %llu\n", render_buckets[i],
                (unsigned long long)cum);
        else
            put(&b, "noisetile_render_seconds_bucket{le=\"+Inf\"} %llu\n",
                (unsigned long long)cum);
    }
    /* The count is the +Inf bucket, so the two always agree in one scrape. */
    put(&b, "noisetile_render_seconds_sum %.9f\n",
        (double)atomic_load_explicit(&m->render_ns, memory_order_relaxed) * 1e-9);
    put(&b, "noisetile_render_seconds_count %llu\n", (unsigned long long)cum);

    if (c != NULL) {
        cache_stats st;
        cache_get_stats(c, &st);
        header(&b, "noisetile_cache_hits_total", "counter", "Tile cache lookups that found the tile.");
        put(&b, "noisetile_cache_hits_total %llu\n", (unsigned long long)st.hits);
        header(&b, "noisetile_cache_misses_total", "counter",
               "Tile cache lookups that had to render (or wait for a render of) the tile.");
        put(&b, "noisetile_cache_misses_total %llu\n", (unsigned long long)st.misses);
        header(&b, "noisetile_cache_fills_shared_total", "counter",
               "Misses that waited for another request's render of the same tile.");
        put(&b, "noisetile_cache_fills_shared_total %llu\n", (unsigned long long)st.fills_shared);
        header(&b, "noisetile_cache_evictions_total", "counter",
               "Tiles evicted to stay within the byte budget.");
        put(&b, "noisetile_cache_evictions_total %llu\n", (unsigned long long)st.evictions);
        header(&b, "noisetile_cache_bytes", "gauge", "Bytes of encoded tiles in the cache.");
        put(&b, "noisetile_cache_bytes %llu\n", (unsigned long long)st.bytes);
        header(&b, "noisetile_cache_entries", "gauge", "Tiles in the cache.");
        put(&b, "noisetile_cache_entries %llu\n", (unsigned long long)st.entries);
        header(&b, "noisetile_cache_budget_bytes", "gauge", "The cache's byte budget (--cache-mb).");
        put(&b, "noisetile_cache_budget_bytes %llu\n", (unsigned long long)st.budget_bytes);
    }
    if (m->extra != NULL && !b.failed) {
        size_t len = 0;
        char *more = m->extra(m->extra_ctx, &len);
        if (more == NULL)
            b.failed = 1;
        else
            put(&b, "%s", more);
        free(more);
    }
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    *out_len = b.len;
    return b.p;
}
