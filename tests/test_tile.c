/* test_tile.c: the tile endpoint without HTTP: 200 with the PNG bytes of a
 * cache entry, 304 on a matching If-None-Match, one cache entry for
 * equivalent queries, and 503 (never a crash or leak) when any allocation
 * fails. */
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "failalloc.h"
#include "test.h"
#include "test_server_util.h"
#include "tile.h"

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
    RUN(test_out_of_memory);
    return t_done();
}
