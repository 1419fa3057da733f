/* api.h: the JSON endpoints: /point, /points, /tile.json, and the
 * document of /api/kinds. */
#ifndef API_H
#define API_H

#include <stddef.h>

#include <jansson.h>

#include "heights/stats.h"
#include "service/query.h"
#include "service/reply.h"
#include "service/route.h"

/* Each returns 0 and fills *out, or an ERR_* code (with a message in err
 * where it takes one). The evaluating ones take their query parsed once
 * (query_parse with the flags named; the service's typed request,
 * fieldreq.h, holds it). */

/* GET /{kind}/{seed}/point?x=&y=&<field params>: q from QUERY_POINT. */
int api_point(const route *r, const query_result *q, reply *out);

/* POST /{kind}/{seed}/points?<field params> with body[0..body_len): q from
 * flags 0; the body is parsed here (batch.h). */
int api_points(const route *r, const query_result *q, const char *body, size_t body_len,
               reply *out, char *err, size_t err_size);

/* GET /{kind}/{seed}/stats?x=&y=&step=&width=&height=[&bins=]&<field params>:
 * statistics of the window's samples (stats.h) as JSON; q from
 * QUERY_WINDOW | QUERY_BINS. */
int api_stats(const route *r, const query_result *q, reply *out);

/* GET /{kind}/{seed}/tile.json?<field and render params>; base_url is the
 * scheme and authority the tiles template starts with ("http://h:p"). */
int api_tilejson(const route *r, const query_args *q, const char *base_url, reply *out,
                 char *err, size_t err_size);

/* Shared with graphapi.c (graph answers): a JSON number for a finite
 * double, null for NaN/Inf; a JSON array of n doubles (null for NaN/Inf;
 * NULL out of memory); a 200 JSON reply of doc (taken; NULL
 * doc: ERR_NOMEM); TileJSON's own arguments, mapping=mercator and scale=W
 * (the world's width in plane units, a power of two, route.h), taken out of
 * q into *rest: *world 0 without the mapping, *want_period 1 when the
 * mapping is asked and the query names no period. */
json_t *api_real_or_null(double v);
json_t *api_real_array(const double *v, size_t n);
/* The histogram counts of s as a JSON array (NULL out of memory). */
json_t *api_stats_counts(const stats_summary *s);
int api_json_reply(json_t *doc, const char *cache_control, reply *out);
int api_mercator_args(const query_args *q, query_args *rest, long long *world, int *want_period, char *err,
                      size_t err_size);

/* The body of GET /api/kinds as a new JSON object (caller decrefs). */
json_t *api_kinds_document(void);

/* The body of GET /api/tilematrixset.json: the plane's tile grid as an
 * OGC Two Dimensional Tile Matrix Set (2.0, JSON encoding), zooms 0..30;
 * TileCol = x + 2^31 and TileRow = y + 2^31 (a matrix counts from 0), the
 * point of origin the top-left corner of tile (z, -2^31, -2^31). */
json_t *api_tms_document(void);

#endif
