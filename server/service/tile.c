/* tile.c: the tile endpoint: canonical request -> ETag and cache key;
 * cached PNG bytes that every hit's reply references. */
#include "service/tile.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/cost.h"
#include "base/errors.h"
#include "base/etag.h"
#include "base/failalloc.h"
#include "base/hash.h"
#include "base/monotime.h"
#include "tiles/render.h"

/* The memo of request targets: what the raw target of a tile request
 * (as received, percent-encoded) comes to, its cache key and ETag, so that
 * a cached tile asked for again in the same words skips parsing its query
 * and printing its canonical text (most of the connection thread's own
 * work for a hit; BENCHMARKS.md, "HTTP"). Both are functions of the target
 * alone, so a remembered pair is never stale; the tile itself is still
 * looked up in the cache, which alone decides what is kept. Direct-mapped,
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
    char etag[24];                 /* "\"<16 hex>\"" */
} memo_slot;

struct tile_service {
    cache *cache;
    metrics *metrics;
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

/* What a cache fill needs to render one tile. */
typedef struct {
    tile_service *t;
    const route *r;
    const query_result *q;
    int error;
} fill_ctx;

static int fill(void *vctx, const char *key, void **out_data, size_t *out_size, void **out_user)
{
    (void)key;
    fill_ctx *f = vctx;
    unsigned char *png = NULL;
    size_t size = 0;
    double t0 = monotime_s();
    int rc = render_tile_png(&f->q->spec, f->r->z, f->r->x, f->r->y, 256 * f->r->scale,
                             &f->q->render, &png, &size);
    double seconds = monotime_s() - t0;
    if (rc != 0) {
        f->error = rc;
        return rc;
    }
    metrics_observe_render(f->t->metrics, seconds);
    *out_data = png; /* free()d by the cache when the last reference goes */
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

metrics *tile_service_metrics(tile_service *t) { return t->metrics; }

int tile_canonical(const route *r, const noise_spec *spec, const render_opts *opts, char *buf,
                   size_t buf_size)
{
    char field[512], rend[128];
    if (noise_spec_canonical(spec, field, sizeof field) < 0 ||
        query_render_canonical(opts, rend, sizeof rend) < 0)
        return -1;
    int n = snprintf(buf, buf_size, "%s/%" PRIu32 "/%d/%" PRId64 "/%" PRId64 "@%dx?%s&%s",
                     noise_kind_name(r->kind), r->seed, r->z, r->x, r->y, r->scale, field, rend);
    return (n < 0 || (size_t)n >= buf_size) ? -1 : n;
}

void tile_etag(const char *canonical, char *buf, size_t buf_size)
{
    char versions[48];
    snprintf(versions, sizeof versions, "#noise%d#render%d", NOISE_VERSION, RENDER_VERSION);
    etag_of(canonical, versions, buf, buf_size);
}

/* The cache key and ETag of a tile request; 0, or an ERR_* code. */
static int tile_key(const route *r, const query_args *q, query_result *qr, char *key,
                    size_t key_size, char *etag, size_t etag_size, char *err, size_t err_size)
{
    int rc = query_parse(q, r->kind, r->seed, QUERY_RENDER, qr, err, err_size);
    if (rc != 0)
        return rc;
    if (tile_canonical(r, &qr->spec, &qr->render, key, key_size) < 0) {
        snprintf(err, err_size, "canonical request too long");
        return ERR_INTERNAL;
    }
    tile_etag(key, etag, etag_size);
    return 0;
}

/* The answer from entry e (whose reference passes to *out). A matching
 * If-None-Match gets status 304 with the same headers: the connection
 * layer then sends them (with the 200's Content-Length) and no body, and
 * keeps the connection. */
static int entry_reply(cache_entry *e, const char *inm, const char *etag, reply *out)
{
    out->status = etag_matches(inm, etag) ? 304 : 200;
    out->content_type = "image/png";
    out->cache_control = TILE_CACHE_CONTROL;
    out->body_kind = REPLY_ENTRY;
    out->entry = e;
    out->body = cache_entry_data(e);
    out->size = cache_entry_size(e);
    if (reply_header(out, "ETag", etag) != 0) {
        reply_release(out);
        return ERR_INTERNAL;
    }
    return 0;
}

int tile_handle(tile_service *t, const char *inm, const route *r, const query_args *q,
                reply *out, char *err, size_t err_size)
{
    query_result qr;
    char key[1024], etag[32];
    int rc = tile_key(r, q, &qr, key, sizeof key, etag, sizeof etag, err, err_size);
    if (rc != 0)
        return rc;
    fill_ctx f = {t, r, &qr, 0};
    cache_entry *e = NULL;
    rc = cache_get(t->cache, key, fill, &f, &e, NULL);
    if (rc != 0) {
        if (rc == ERR_NOMEM)
            return rc;
        snprintf(err, err_size, "tile rendering failed: %s", errors_strerror(rc));
        return ERR_INTERNAL;
    }
    return entry_reply(e, inm, etag, out);
}

int tile_lookup(tile_service *t, const char *target, const char *inm, const route *r,
                const query_args *q, reply *out, uint64_t *out_cost, char *err,
                size_t err_size)
{
    query_result qr;
    char key[1024], etag[32];
    cache_entry *e = NULL;
    size_t tlen = target != NULL ? strlen(target) : 0;
    uint64_t h = target != NULL && tlen < MEMO_TARGET_MAX ? memo_hash(target, tlen) : 0;
    if (h != 0 && memo_get(t, target, tlen, h, key, etag) && cache_lookup(t->cache, key, &e) == 0) {
        int rc = entry_reply(e, inm, etag, out);
        return rc != 0 ? rc : 1;
    }
    int rc = tile_key(r, q, &qr, key, sizeof key, etag, sizeof etag, err, err_size);
    if (rc != 0)
        return rc;
    if (cache_lookup(t->cache, key, &e) == 0) {
        if (h != 0)
            memo_put(t, target, tlen, h, key, etag);
        rc = entry_reply(e, inm, etag, out);
        return rc != 0 ? rc : 1;
    }
    int px = 256 * r->scale;
    /* Shading needs the analytic gradient; the zero line one more row and
     * column, which the estimate leaves out. */
    const char *hint = r->scale == 2 ? (qr.render.shade ? "ask for @1x, or shade=0" : "ask for @1x")
                       : qr.render.shade ? "shade=0" : NULL;
    if (cost_check(&qr.spec, (uint64_t)px * (uint64_t)px, qr.render.shade, hint, err,
                   err_size) != 0)
        return ERR_TOO_COSTLY;
    *out_cost = cost_estimate(&qr.spec, (uint64_t)px * (uint64_t)px, qr.render.shade);
    return 0;
}
