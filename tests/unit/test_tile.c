/* test_tile.c: the tile endpoint without HTTP: 200 with the PNG bytes of a
 * cache entry, 304 on a matching If-None-Match, one cache entry for
 * equivalent queries, and 503 (never a crash or leak) when any allocation
 * fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/failalloc.h"
#include "test.h"
#include "test_server_util.h"
#include "service/tile.h"

static void test_hit_miss_304(void)
{
    metrics *m = metrics_create();
    tile_service *t = tile_service_create(1 << 20, m);
    route r = {ROUTE_TILE, NOISE_PERLIN, 7, 2, -1, 3, 1, ROUTE_EXT_PNG};
    const char *a[] = {"octaves", "2", "palette", "terrain"};
    const char *b[] = {"palette", "terrain", "octaves", "2.0", "gain", "0.5"};
    query_args qa = test_query_args(a, 2), qb = test_query_args(b, 3);
    reply r1 = REPLY_INIT, r2 = REPLY_INIT, r3 = REPLY_INIT;
    char err[ERRORS_MSG_MAX];
    CHECK(tile_handle(t, NULL, &r, &qa, &r1, err, sizeof err) == 0);
    CHECK(r1.status == 200 && r1.body_kind == REPLY_ENTRY && r1.entry != NULL);
    CHECK(r1.body == cache_entry_data(r1.entry));
    const unsigned char *png = cache_entry_data(r1.entry);
    CHECK(cache_entry_size(r1.entry) > 8 && memcmp(png, "\x89PNG", 4) == 0);
    CHECK(r1.size == cache_entry_size(r1.entry));
    const char *etag = reply_header_value(&r1, "ETag");
    CHECK(etag != NULL && strlen(etag) == 18);
    CHECK(strcmp(r1.content_type, "image/png") == 0);
    CHECK(strcmp(r1.cache_control, "public, max-age=31536000, immutable") == 0);
    CHECK(tile_handle(t, NULL, &r, &qb, &r2, err, sizeof err) == 0);
    CHECK(r2.entry == r1.entry); /* one entry */
    CHECK(tile_handle(t, etag, &r, &qb, &r3, err, sizeof err) == 0);
    CHECK(r3.status == 304 && r3.entry == r1.entry);
    CHECK(strcmp(reply_header_value(&r3, "ETag"), etag) == 0);
    cache_stats st;
    cache_get_stats(tile_service_cache(t), &st);
    CHECK(st.entries == 1 && st.misses == 1 && st.hits == 2);
    reply_release(&r1);
    reply_release(&r2);
    reply_release(&r3);
    const char *bad[] = {"palette", "mauve"};
    query_args qbad = test_query_args(bad, 1);
    CHECK(tile_handle(t, NULL, &r, &qbad, &r1, err, sizeof err) == ERR_BAD_REQUEST);
    CHECK(strstr(err, "palette") != NULL);
    tile_service_destroy(t);
    metrics_destroy(m);
}

/* tile_lookup with the request target: the memo of targets gives the same
 * answer as parsing (entry, ETag, 304), never another target's, and never
 * a tile the cache has let go. */
static void test_lookup_memo(void)
{
    metrics *m = metrics_create();
    tile_service *t = tile_service_create(1 << 16, m);
    route r = {ROUTE_TILE, NOISE_PERLIN, 7, 2, -1, 3, 1, ROUTE_EXT_PNG};
    const char *a[] = {"octaves", "2", "palette", "terrain"};
    query_args qa = test_query_args(a, 2);
    const char *target = "/perlin/7/2/-1/3.png?octaves=2&palette=terrain";
    char err[ERRORS_MSG_MAX];
    reply rp = REPLY_INIT, rh = REPLY_INIT, plain = REPLY_INIT;
    uint64_t cost = 0, cost2 = 0;
    CHECK(tile_lookup(t, target, NULL, &r, &qa, &rp, &cost, err, sizeof err) == 0);
    CHECK(cost > 0 && rp.entry == NULL);
    CHECK(tile_handle(t, NULL, &r, &qa, &rh, err, sizeof err) == 0);
    char etag[32];
    snprintf(etag, sizeof etag, "%s", reply_header_value(&rh, "ETag"));
    /* First hit (parsed, remembered), then hits through the memo. */
    for (int i = 0; i < 3; i++) {
        reply hit = REPLY_INIT, cond = REPLY_INIT;
        CHECKF(tile_lookup(t, target, NULL, &r, &qa, &hit, &cost2, err, sizeof err) == 1, "%d", i);
        CHECK(hit.status == 200 && hit.entry == rh.entry && hit.size == rh.size);
        CHECK(strcmp(reply_header_value(&hit, "ETag"), etag) == 0);
        CHECK(tile_lookup(t, target, etag, &r, &qa, &cond, &cost2, err, sizeof err) == 1);
        CHECK(cond.status == 304 && cond.entry == rh.entry);
        reply_release(&hit);
        reply_release(&cond);
    }
    CHECK(tile_lookup(t, NULL, NULL, &r, &qa, &plain, &cost2, err, sizeof err) == 1);
    CHECK(plain.entry == rh.entry && strcmp(reply_header_value(&plain, "ETag"), etag) == 0);
    reply_release(&plain);
    /* Another target (another tile) is its own: not cached, a miss. */
    route r2 = {ROUTE_TILE, NOISE_PERLIN, 7, 2, 0, 3, 1, ROUTE_EXT_PNG};
    reply other = REPLY_INIT;
    CHECK(tile_lookup(t, "/perlin/7/2/0/3.png?octaves=2&palette=terrain", NULL, &r2, &qa, &other,
                      &cost2, err, sizeof err) == 0);
    CHECK(other.entry == NULL && cost2 == cost);
    reply_release(&rh);
    /* Evicted (the tile is the least recently used, so the first eviction
     * takes it): the remembered target finds no tile and asks for a render,
     * with its cost. */
    cache_stats st;
    cache_get_stats(tile_service_cache(t), &st);
    for (int64_t x = 10; x < 1000 && st.evictions == 0; x++) {
        route rx = {ROUTE_TILE, NOISE_PERLIN, 7, 12, x, 3, 1, ROUTE_EXT_PNG};
        reply tmp = REPLY_INIT;
        CHECK(tile_handle(t, NULL, &rx, &qa, &tmp, err, sizeof err) == 0);
        reply_release(&tmp);
        cache_get_stats(tile_service_cache(t), &st);
    }
    CHECK(st.evictions > 0);
    reply gone = REPLY_INIT;
    cost2 = 0;
    CHECK(tile_lookup(t, target, NULL, &r, &qa, &gone, &cost2, err, sizeof err) == 0);
    CHECK(gone.entry == NULL && cost2 == cost);
    tile_service_destroy(t);
    metrics_destroy(m);
}

static void test_out_of_memory(void)
{
    metrics *m = metrics_create();
    tile_service *t = tile_service_create(1 << 20, m);
    const char *kv[] = {"shade", "1", "octaves", "3"};
    query_args q = test_query_args(kv, 2);
    int saw_503 = 0;
    long n_runs = 0;
    for (long nth = 1; nth < 100000; nth++) {
        n_runs = nth;
        /* A new tile each time, so every call renders. */
        route r = {ROUTE_TILE, NOISE_SIMPLEX, 1, 3, nth, -nth, 1, ROUTE_EXT_PNG};
        reply rp = REPLY_INIT;
        char err[ERRORS_MSG_MAX];
        failalloc_arm(nth);
        int rc = tile_handle(t, NULL, &r, &q, &rp, err, sizeof err);
        int fired = failalloc_fired();
        failalloc_arm(0);
        CHECKF(rc == 0 || rc == ERR_NOMEM, "nth %ld: rc %d", nth, rc);
        CHECKF(rc != 0 || (rp.status == 200 && rp.body != NULL), "nth %ld", nth);
        saw_503 |= rc == ERR_NOMEM;
        reply_release(&rp);
        if (!fired)
            break;
    }
    CHECK(saw_503);
    CHECKF(n_runs >= 5, "only %ld allocations on the tile path?", n_runs);
    tile_service_destroy(t);
    metrics_destroy(m);
}

int main(void)
{
    /* The cache's own allocations fail on cue too. */
    cache_set_alloc_funcs(failalloc_malloc, free);
    RUN(test_hit_miss_304);
    RUN(test_lookup_memo);
    RUN(test_out_of_memory);
    return t_done();
}
