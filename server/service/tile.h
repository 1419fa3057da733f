/* tile.h: cached answers: the one lookup, fill and reply over the tile
 * cache for every cached form of a typed request (fieldreq.h): picture
 * tiles (PNG, render.h) and numeric tiles (.npy, .r16, .png with an
 * encoding, grid.h). Each hit's reply references the cache entry's bytes;
 * conditional requests get 304. A memo of raw request targets lets a
 * picture tile asked for again in the same words be found without parsing
 * its query. */
#ifndef TILE_H
#define TILE_H

#include <stddef.h>
#include <stdint.h>

#include "service/cache.h"
#include "service/fieldreq.h"
#include "service/graphs.h"
#include "service/metrics.h"
#include "service/reply.h"

typedef struct tile_service tile_service;

/* A tile service with a cache of budget_bytes; m (borrowed, may be NULL)
 * receives render times. NULL out of memory. Free with
 * tile_service_destroy() after the HTTP daemon stopped; destroy(NULL) does
 * nothing. */
tile_service *tile_service_create(size_t budget_bytes, metrics *m);
void tile_service_destroy(tile_service *t);

/* The named graphs and prepared graphs graph tiles are rendered from
 * (borrowed; set before the first request). */
void tile_service_set_graphs(tile_service *t, graphs *g);

/* The tile cache (for /metrics). */
cache *tile_service_cache(tile_service *t);

/* The connection thread's fast path, before anything is parsed: when
 * target (the request target as received; NULL: none) is remembered as a
 * picture tile whose entry is cached, returns 1 with *out its answer (200,
 * or 304 when if_none_match matches); 0 when not (*out untouched); or an
 * ERR_* code. */
int tile_memo_lookup(tile_service *t, const char *target, const char *if_none_match,
                     reply *out);

/* The cached answer of fr (a picture or numeric tile), without filling or
 * waiting: 1 with *out filled (200 or 304) when it is cached, remembering
 * target for a picture tile (tile_memo_lookup); 0 when it must be
 * computed (*out untouched); or an ERR_* code. */
int tile_lookup(tile_service *t, const field_request *fr, const char *target,
                const char *if_none_match, reply *out);

/* The answer of fr (a picture or numeric tile) from the cache, computed
 * into it on a miss (single-flight, cache.h): 200 with the bytes of the
 * cache entry out->entry holds (REPLY_ENTRY), or 304 when if_none_match
 * matches. Returns 0; or an ERR_* code with a message in err (ERR_NOMEM
 * out of memory). */
int tile_answer(tile_service *t, const field_request *fr, const char *if_none_match,
                reply *out, char *err, size_t err_size);

#endif
