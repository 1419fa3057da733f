/* tile.h: the tile endpoint: canonical request, ETag, conditional requests,
 * and rendered PNGs kept in the tile cache, referenced by every hit's
 * reply. */
#ifndef TILE_H
#define TILE_H

#include <stddef.h>

#include "service/cache.h"
#include "service/metrics.h"
#include "service/query.h"
#include "service/reply.h"
#include "service/route.h"

typedef struct tile_service tile_service;

/* A tile service with a cache of budget_bytes; m (borrowed, may be NULL)
 * receives render times. NULL out of memory. Free with
 * tile_service_destroy() after the HTTP daemon stopped; destroy(NULL) does
 * nothing. */
tile_service *tile_service_create(size_t budget_bytes, metrics *m);
void tile_service_destroy(tile_service *t);

/* The tile cache (for /metrics, and numeric tiles share it). */
cache *tile_service_cache(tile_service *t);

/* The metrics render times go to (may be NULL). */
metrics *tile_service_metrics(tile_service *t);

/* Answers GET/HEAD of tile route r with query q (a picture; numeric tiles
 * are heightsreq.h's): 200 with the PNG (body
 * REPLY_ENTRY: the cache entry out->entry holds), or 304 when if_none_match (the request's
 * If-None-Match header, NULL if absent) matches. Returns 0 and fills *out;
 * or an ERR_* code with a message in err (ERR_NOMEM out of memory). */
int tile_handle(tile_service *t, const char *if_none_match, const route *r,
                const query_args *q, reply *out, char *err, size_t err_size);

/* The connection thread's half of tile_handle: never renders, never waits.
 * Returns 1 with *out the answer when the tile is cached (200 or 304, as
 * tile_handle); 0 when it must be rendered, with *out_cost its estimated
 * work (cost.h) and *out untouched; or an ERR_* code with a message in err
 * (a bad query; ERR_TOO_COSTLY over the per-request limit). target, the
 * request target as received (NULL: none), keys a memo of the cache key
 * and ETag it comes to: a cached tile asked for again in the same words is
 * found without parsing r's query again. */
int tile_lookup(tile_service *t, const char *target, const char *if_none_match, const route *r,
                const query_args *q, reply *out, uint64_t *out_cost, char *err,
                size_t err_size);

/* The canonical request text of a tile, used as cache key and hashed into
 * the ETag: "perlin/7/3/-1/2@1x?<field canonical>&palette=gray&shade=0&zero=0".
 * Returns the length, or -1 if buf is too small. */
int tile_canonical(const route *r, const noise_spec *spec, const render_opts *opts,
                   char *buf, size_t buf_size);

/* The quoted strong ETag (base/etag.h) of a canonical request text and the
 * noise and render versions. buf must hold ETAG_SIZE bytes. */
void tile_etag(const char *canonical, char *buf, size_t buf_size);

#endif
