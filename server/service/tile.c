/* tile.c: cached answers (see tile.h): one lookup, fill and reply over the
 * tile cache for picture and numeric tiles, and the memo of targets. */
#include "service/tile.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/errors.h"
#include "base/etag.h"
#include "base/hash.h"
#include "base/monotime.h"
#include "heights/grid.h"
#include "service/heightsreq.h"
#include "tiles/coarse.h"
#include "tiles/render.h"

/* The memo of request targets: what the raw target of a tile request
 * (as received, percent-encoded) comes to, its cache key and ETag, so that
 * a cached tile asked for again in the same words skips parsing its query
 * and printing its canonical text (most of the connection thread's own
 * work for a hit; BENCHMARKS.md, "HTTP"). Both are functions of the target
 * alone, so a remembered pair is never stale; the tile itself is still
 * looked up in the cache, which alone decides what is kept. Picture tiles
 * only: a numeric tile's answer depends on Accept-Encoding too. Direct-mapped,
 * a slot per hash of the target; a longer target or key is not
 * remembered. Slots are guarded by a few striped locks (held for a copy). */
#define MEMO_SLOTS 1024
#define MEMO_LOCKS 16
#define MEMO_TARGET_MAX 256
#define MEMO_KEY_MAX 640

typedef struct {
    uint64_t hash;                 /* of the target; 0: empty */
    char target[MEMO_TARGET_MAX];
    char key[MEMO_KEY_MAX];
    char etag[ETAG_SIZE];          /* "\"<16 hex>\"" */
} memo_slot;

struct tile_service {
    cache *cache;
    metrics *metrics;
    graphs *graphs;                /* graph tiles' prepared graphs (NULL: none) */
    memo_slot *memo;               /* MEMO_SLOTS */
    pthread_mutex_t memo_lock[MEMO_LOCKS];
};

static uint64_t memo_hash(const char *target, size_t len)
{
    uint64_t h = hash_fnv1a(target, len);
    return h != 0 ? h : 1;
}

/* Copies the key and ETag remembered for target into key and etag (sizes
 * MEMO_KEY_MAX and at least 24); 1 if found, else 0. */
static int memo_get(tile_service *t, const char *target, size_t len, uint64_t h, char *key,
                    char *etag)
{
    memo_slot *m = &t->memo[h % MEMO_SLOTS];
    pthread_mutex_t *lock = &t->memo_lock[h % MEMO_LOCKS];
    int found = 0;
    pthread_mutex_lock(lock);
    if (m->hash == h && strncmp(m->target, target, len) == 0 && m->target[len] == '\0') {
        memcpy(key, m->key, strlen(m->key) + 1);
        memcpy(etag, m->etag, strlen(m->etag) + 1);
        found = 1;
    }
    pthread_mutex_unlock(lock);
    return found;
}

static void memo_put(tile_service *t, const char *target, size_t len, uint64_t h,
                     const char *key, const char *etag)
{
    size_t klen = strlen(key), elen = strlen(etag);
    if (len >= MEMO_TARGET_MAX || klen >= MEMO_KEY_MAX || elen >= sizeof t->memo->etag)
        return;
    memo_slot *m = &t->memo[h % MEMO_SLOTS];
    pthread_mutex_t *lock = &t->memo_lock[h % MEMO_LOCKS];
    pthread_mutex_lock(lock);
    m->hash = h;
    memcpy(m->target, target, len);
    m->target[len] = '\0';
    memcpy(m->key, key, klen + 1);
    memcpy(m->etag, etag, elen + 1);
    pthread_mutex_unlock(lock);
}

#define TILE_CACHE_CONTROL "public, max-age=31536000, immutable"

/* What a cache fill needs: the typed request; the error of a failed
 * picture render. */
typedef struct {
    tile_service *t;
    const field_request *fr;
} fill_ctx;

/* The bytes of a missing entry: the PNG of a picture tile, the encoded
 * window of a numeric tile. */
static int fill(void *vctx, const char *key, void **out_data, size_t *out_size, void **out_user)
{
    (void)key;
    fill_ctx *f = vctx;
    const field_request *fr = f->fr;
    unsigned char *bytes = NULL;
    size_t size = 0;
    double t0 = monotime_s();
    fieldsrc_graph *graph = NULL;
    if (fr->graph) {
        /* the graph prepared for its seed, from the cache of prepared graphs */
        char err[ERRORS_MSG_MAX];
        int code = ERR_NOMEM;
        if (f->t->graphs == NULL)
            return ERR_INTERNAL;
        graph = graphs_prepare(f->t->graphs, fr->graph_text, fr->r.seed, fr->gradients, 2, NULL,
                               NULL, &code, err, sizeof err);
        if (graph == NULL)
            return code;
    }
    if (fr->ask == FIELD_ASK_PICTURE_TILE) {
        int webp = fr->r.ext == ROUTE_EXT_WEBP;
        render_format format = webp ? RENDER_WEBP : RENDER_PNG;
        int quality = webp ? (int)fr->q.value[PARAM_QUALITY] : 0;
        int rc = fr->ss > 1 ? coarse_render_tile_src(&fr->q.spec, graph, fr->r.z, fr->r.x, fr->r.y,
                                                     256 * fr->r.scale, fr->ss, &fr->q.render,
                                                     format, quality, &bytes, &size)
                            : render_tile_src(&fr->q.spec, graph, fr->r.z, fr->r.x, fr->r.y,
                                              256 * fr->r.scale, &fr->q.render, format, quality,
                                              &bytes, &size);
        fieldsrc_graph_release(graph);
        if (rc != 0)
            return rc;
    } else {
        grid_request g = fr->g;
        g.graph = graph;
        int rc = grid_render(&g, &bytes, &size);
        fieldsrc_graph_release(graph);
        if (rc != 0)
            return ERR_NOMEM;
    }
    metrics_observe_render(f->t->metrics, monotime_s() - t0);
    *out_data = bytes; /* free()d by the cache when the last reference goes */
    *out_size = size;
    *out_user = NULL;
    return 0;
}

tile_service *tile_service_create(size_t budget_bytes, metrics *m)
{
    tile_service *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->cache = cache_create(budget_bytes, NULL);
    t->memo = calloc(MEMO_SLOTS, sizeof *t->memo);
    if (t->cache == NULL || t->memo == NULL) {
        cache_destroy(t->cache);
        free(t->memo);
        free(t);
        return NULL;
    }
    for (int i = 0; i < MEMO_LOCKS; i++)
        pthread_mutex_init(&t->memo_lock[i], NULL);
    t->metrics = m;
    return t;
}

void tile_service_destroy(tile_service *t)
{
    if (t == NULL)
        return;
    cache_destroy(t->cache);
    for (int i = 0; i < MEMO_LOCKS; i++)
        pthread_mutex_destroy(&t->memo_lock[i]);
    free(t->memo);
    free(t);
}

cache *tile_service_cache(tile_service *t) { return t->cache; }

void tile_service_set_graphs(tile_service *t, graphs *g) { t->graphs = g; }

/* The answer from entry e (whose reference passes to *out) for fr (NULL:
 * a picture tile found through the memo). A matching If-None-Match gets
 * status 304 with the same headers: the connection layer then sends them
 * (with the 200's Content-Length) and no body, and keeps the connection. */
static int entry_reply(const field_request *fr, const char *key, cache_entry *e, const char *inm,
                       const char *etag, reply *out)
{
    int numbers = fr != NULL && fr->ask == FIELD_ASK_NUMERIC_TILE;
    out->status = etag_matches(inm, etag) ? 304 : 200;
    /* numbers: heightsreq_headers; pictures: PNG or WebP, as the key says */
    out->content_type = numbers ? NULL : tile_content_type(key);
    out->cache_control = TILE_CACHE_CONTROL;
    out->body_kind = REPLY_ENTRY;
    out->entry = e;
    out->body = cache_entry_data(e);
    out->size = cache_entry_size(e);
    if (reply_header(out, "ETag", etag) != 0 || (numbers && heightsreq_headers(&fr->g, out) != 0)) {
        reply_release(out);
        return ERR_INTERNAL;
    }
    return 0;
}

int tile_memo_lookup(tile_service *t, const char *target, const char *inm, reply *out)
{
    char key[MEMO_KEY_MAX], etag[ETAG_SIZE];
    cache_entry *e = NULL;
    size_t tlen = target != NULL ? strlen(target) : 0;
    if (target == NULL || tlen >= MEMO_TARGET_MAX)
        return 0;
    uint64_t h = memo_hash(target, tlen);
    if (!memo_get(t, target, tlen, h, key, etag) || cache_lookup(t->cache, key, &e) != 0)
        return 0;
    int rc = entry_reply(NULL, key, e, inm, etag, out);
    return rc != 0 ? rc : 1;
}

int tile_lookup(tile_service *t, const field_request *fr, const char *target, const char *inm,
                reply *out)
{
    cache_entry *e = NULL;
    if (cache_lookup(t->cache, fr->key, &e) != 0)
        return 0;
    size_t tlen = target != NULL ? strlen(target) : 0;
    if (fr->ask == FIELD_ASK_PICTURE_TILE && target != NULL && tlen < MEMO_TARGET_MAX)
        memo_put(t, target, tlen, memo_hash(target, tlen), fr->key, fr->etag);
    int rc = entry_reply(fr, fr->key, e, inm, fr->etag, out);
    return rc != 0 ? rc : 1;
}

int tile_answer(tile_service *t, const field_request *fr, const char *inm, reply *out,
                char *err, size_t err_size)
{
    fill_ctx f = {t, fr};
    cache_entry *e = NULL;
    int rc = cache_get(t->cache, fr->key, fill, &f, &e, NULL);
    if (rc != 0) {
        if (rc == ERR_NOMEM)
            return rc;
        snprintf(err, err_size, "tile rendering failed: %s", errors_strerror(rc));
        return ERR_INTERNAL;
    }
    return entry_reply(fr, fr->key, e, inm, fr->etag, out);
}
