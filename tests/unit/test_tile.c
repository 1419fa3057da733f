/* test_tile.c: cached answers without HTTP (service/tile.c): picture and
 * numeric tiles through one lookup, fill and reply: 200 with the bytes of
 * a cache entry, 304 on a matching If-None-Match, one cache entry for
 * equivalent queries, the memo of targets, and 503 (never a crash or leak)
 * when any allocation fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/failalloc.h"
#include "test.h"
#include "test_server_util.h"
#include "service/tile.h"

/* fr for route r and query q (the service's admission step). */
static int build(field_request *fr, const route *r, const query_args *q, const char *accept_encoding,
                 char *err)
{
    return fieldreq_build(fr, fieldreq_ask(r, q), r, q, accept_encoding, NULL, 0, err,
                          ERRORS_MSG_MAX);
}

static void test_hit_miss_304(void)
{
    metrics *m = metrics_create();
    tile_service *t = tile_service_create(1 << 20, m);
    route r = {ROUTE_TILE, NOISE_PERLIN, 7, 2, -1, 3, 1, ROUTE_EXT_PNG, ROUTE_FIELD_KIND, ""};
    const char *a[] = {"octaves", "2", "palette", "terrain"};
    const char *b[] = {"palette", "terrain", "octaves", "2.0", "gain", "0.5"};
    query_args qa = test_query_args(a, 2), qb = test_query_args(b, 3);
    reply r1 = REPLY_INIT, r2 = REPLY_INIT, r3 = REPLY_INIT;
    char err[ERRORS_MSG_MAX];
    static field_request fa, fb;
    CHECK(build(&fa, &r, &qa, NULL, err) == 0 && fa.ask == FIELD_ASK_PICTURE_TILE);
    CHECK(build(&fb, &r, &qb, NULL, err) == 0 && strcmp(fa.key, fb.key) == 0);
    CHECK(strcmp(fa.etag, fb.etag) == 0);
    CHECK(tile_lookup(t, &fa, NULL, NULL, &r1) == 0 && r1.status == 0);
    CHECK(tile_answer(t, &fa, NULL, &r1, err, sizeof err) == 0);
    CHECK(r1.status == 200 && r1.body_kind == REPLY_ENTRY && r1.entry != NULL);
    CHECK(r1.body == cache_entry_data(r1.entry));
    const unsigned char *png = cache_entry_data(r1.entry);
    CHECK(cache_entry_size(r1.entry) > 8 && memcmp(png, "\x89PNG", 4) == 0);
    CHECK(r1.size == cache_entry_size(r1.entry));
    const char *etag = reply_header_value(&r1, "ETag");
    CHECK(etag != NULL && strlen(etag) == 18 && strcmp(etag, fa.etag) == 0);
    CHECK(strcmp(r1.content_type, "image/png") == 0 && r1.n_headers == 1);
    CHECK(strcmp(r1.cache_control, "public, max-age=31536000, immutable") == 0);
    CHECK(tile_answer(t, &fb, NULL, &r2, err, sizeof err) == 0);
    CHECK(r2.entry == r1.entry); /* one entry */
    CHECK(tile_lookup(t, &fb, NULL, etag, &r3) == 1);
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
    CHECK(build(&fa, &r, &qbad, NULL, err) == ERR_BAD_REQUEST);
    CHECK(strstr(err, "palette") != NULL);
    tile_service_destroy(t);
    metrics_destroy(m);
}

/* A numeric tile goes through the same lookup, fill and reply, with its
 * own headers; gzip is another entry with another ETag. */
static void test_numeric(void)
{
    metrics *m = metrics_create();
    tile_service *t = tile_service_create(1 << 22, m);
    route r = {ROUTE_TILE, NOISE_PERLIN, 7, 2, -1, 3, 1, ROUTE_EXT_NPY, ROUTE_FIELD_KIND, ""};
    const char *a[] = {"octaves", "2"};
    query_args qa = test_query_args(a, 1);
    char err[ERRORS_MSG_MAX];
    static field_request plain, gz;
    CHECK(build(&plain, &r, &qa, NULL, err) == 0 && plain.ask == FIELD_ASK_NUMERIC_TILE);
    CHECK(build(&gz, &r, &qa, "gzip", err) == 0 && gz.g.gzip && !plain.g.gzip);
    CHECK(strcmp(plain.key, gz.key) != 0 && strcmp(plain.etag, gz.etag) != 0);
    CHECK(plain.g.width == 256 && plain.g.height == 256 && plain.samples == 256 * 256);
    reply r1 = REPLY_INIT, r2 = REPLY_INIT, r3 = REPLY_INIT;
    CHECK(tile_lookup(t, &plain, "/perlin/7/2/-1/3.npy?octaves=2", NULL, &r1) == 0);
    CHECK(tile_answer(t, &plain, NULL, &r1, err, sizeof err) == 0);
    CHECK(r1.status == 200 && r1.body_kind == REPLY_ENTRY && r1.size == 128 + 4 * 256 * 256);
    CHECK(memcmp(r1.body, "\x93NUMPY", 6) == 0);
    CHECK(strcmp(r1.content_type, "application/x-npy") == 0);
    CHECK(strcmp(reply_header_value(&r1, "ETag"), plain.etag) == 0);
    CHECK(strcmp(reply_header_value(&r1, "X-Width"), "256") == 0);
    CHECK(r1.vary == REPLY_VARY_ACCEPT_ENCODING && r1.content_encoding == NULL);
    CHECK(tile_lookup(t, &plain, "/perlin/7/2/-1/3.npy?octaves=2", plain.etag, &r2) == 1);
    CHECK(r2.status == 304 && r2.entry == r1.entry);
    /* numeric answers are not remembered by target (they vary with
     * Accept-Encoding) */
    CHECK(tile_memo_lookup(t, "/perlin/7/2/-1/3.npy?octaves=2", NULL, &r3) == 0);
    CHECK(tile_answer(t, &gz, NULL, &r3, err, sizeof err) == 0);
    CHECK(r3.entry != r1.entry && strcmp(r3.content_encoding, "gzip") == 0);
    reply_release(&r1);
    reply_release(&r2);
    reply_release(&r3);
    tile_service_destroy(t);
    metrics_destroy(m);
}

/* The memo of targets gives the same answer as parsing (entry, ETag, 304),
 * never another target's, and never a tile the cache has let go. */
static void test_lookup_memo(void)
{
    metrics *m = metrics_create();
    tile_service *t = tile_service_create(1 << 16, m);
    route r = {ROUTE_TILE, NOISE_PERLIN, 7, 2, -1, 3, 1, ROUTE_EXT_PNG, ROUTE_FIELD_KIND, ""};
    const char *a[] = {"octaves", "2", "palette", "terrain"};
    query_args qa = test_query_args(a, 2);
    const char *target = "/perlin/7/2/-1/3.png?octaves=2&palette=terrain";
    char err[ERRORS_MSG_MAX];
    static field_request fa;
    CHECK(build(&fa, &r, &qa, NULL, err) == 0);
    reply rp = REPLY_INIT, rh = REPLY_INIT, plain = REPLY_INIT;
    CHECK(tile_memo_lookup(t, target, NULL, &rp) == 0);
    CHECK(tile_lookup(t, &fa, target, NULL, &rp) == 0 && rp.entry == NULL);
    CHECK(tile_answer(t, &fa, NULL, &rh, err, sizeof err) == 0);
    /* rendered, but not remembered until a lookup finds it */
    CHECK(tile_memo_lookup(t, target, NULL, &rp) == 0);
    CHECK(tile_lookup(t, &fa, target, NULL, &plain) == 1 && plain.entry == rh.entry);
    reply_release(&plain);
    for (int i = 0; i < 3; i++) {
        reply hit = REPLY_INIT, cond = REPLY_INIT;
        CHECKF(tile_memo_lookup(t, target, NULL, &hit) == 1, "%d", i);
        CHECK(hit.status == 200 && hit.entry == rh.entry && hit.size == rh.size);
        CHECK(strcmp(reply_header_value(&hit, "ETag"), fa.etag) == 0);
        CHECK(strcmp(hit.content_type, "image/png") == 0 && hit.n_headers == 1);
        CHECK(tile_memo_lookup(t, target, fa.etag, &cond) == 1);
        CHECK(cond.status == 304 && cond.entry == rh.entry);
        reply_release(&hit);
        reply_release(&cond);
    }
    /* Another target (another tile) is its own. */
    reply other = REPLY_INIT;
    CHECK(tile_memo_lookup(t, "/perlin/7/2/0/3.png?octaves=2&palette=terrain", NULL, &other) == 0);
    CHECK(tile_memo_lookup(t, NULL, NULL, &other) == 0 && other.status == 0);
    reply_release(&rh);
    /* Evicted (the tile is the least recently used, so the first eviction
     * takes it): the remembered target finds no tile. */
    cache_stats st;
    cache_get_stats(tile_service_cache(t), &st);
    static field_request fx;
    for (int64_t x = 10; x < 1000 && st.evictions == 0; x++) {
        route rx = {ROUTE_TILE, NOISE_PERLIN, 7, 12, x, 3, 1, ROUTE_EXT_PNG, ROUTE_FIELD_KIND, ""};
        reply tmp = REPLY_INIT;
        CHECK(build(&fx, &rx, &qa, NULL, err) == 0);
        CHECK(tile_answer(t, &fx, NULL, &tmp, err, sizeof err) == 0);
        reply_release(&tmp);
        cache_get_stats(tile_service_cache(t), &st);
    }
    CHECK(st.evictions > 0);
    reply gone = REPLY_INIT;
    CHECK(tile_memo_lookup(t, target, NULL, &gone) == 0 && gone.entry == NULL);
    CHECK(tile_lookup(t, &fa, target, NULL, &gone) == 0 && gone.entry == NULL);
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
    static field_request fr;
    for (long nth = 1; nth < 100000; nth++) {
        n_runs = nth;
        /* A new tile each time, so every call renders. */
        route r = {ROUTE_TILE, NOISE_SIMPLEX, 1, 3, nth, -nth, 1, ROUTE_EXT_PNG, ROUTE_FIELD_KIND, ""};
        reply rp = REPLY_INIT;
        char err[ERRORS_MSG_MAX];
        CHECK(build(&fr, &r, &q, NULL, err) == 0);
        failalloc_arm(nth);
        int rc = tile_answer(t, &fr, NULL, &rp, err, sizeof err);
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
    RUN(test_numeric);
    RUN(test_lookup_memo);
    RUN(test_out_of_memory);
    return t_done();
}
