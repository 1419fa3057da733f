/* graphapi.h: the JSON answers of graph requests: /point, POST /points,
 * /stats and tile.json of /graph/{seed}/...?g= and /{name}/{seed}/...,
 * and POST /api/graphs. A graph that is one kind's field is answered as
 * that kind (service.c turns its URL into the kind's), so these see only
 * true graphs. */
#ifndef GRAPHAPI_H
#define GRAPHAPI_H

#include <stddef.h>

#include "service/graphs.h"
#include "service/query.h"
#include "service/reply.h"
#include "service/route.h"

/* r: the route (seed; a named graph's name); text: the canonical text;
 * graph: prepared for r->seed. */
int graphapi_point(const route *r, const char *text, const fieldsrc_graph *graph,
                   const query_result *q, reply *out);
int graphapi_points(const route *r, const char *text, const fieldsrc_graph *graph,
                    const char *body, size_t body_len, reply *out, char *err, size_t err_size);
int graphapi_stats(const route *r, const char *text, const fieldsrc_graph *graph,
                   const query_result *q, reply *out);
/* tile.json of a graph route; q: its query without g. */
int graphapi_tilejson(const route *r, const char *text, const query_args *q,
                      const char *base_url, reply *out, char *err, size_t err_size);
/* POST /api/graphs?seed=S with the graph's JSON in body. */
int graphapi_post(const query_args *q, const char *body, size_t body_len, const char *base_url,
                  reply *out, char *err, size_t err_size);

#endif
