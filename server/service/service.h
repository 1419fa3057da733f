/* service.h: the daemon's service without HTTP: its state (tile cache,
 * metrics, the documents built once), the route table bound to handlers,
 * and dispatch: a request's facts in, a filled reply out. The connection
 * layer (http.c) is its only HTTP-speaking caller; unit tests and fuzz
 * targets call it directly and read the reply.
 *
 * A request is answered in steps so that a render pool can run the last on
 * a worker thread, each step driven by the route table (route.h: what a
 * route takes, how it is admitted, its handler): service_prepare()
 * (connection thread, cheap: path, query split, method; answers errors,
 * OPTIONS and 405 itself); for a route that evaluates the field,
 * service_admit() (connection thread: parses the query ONCE into the typed
 * request rq->field with its cache key, ETag and cost; answers cached
 * tiles, grids, bad queries and work over the limit); and service_run()
 * (the route's handler, which reads the typed request and never the query;
 * callable from any thread). service_handle() does them all. */
#ifndef SERVICE_H
#define SERVICE_H

#include <stddef.h>
#include <stdint.h>

#include "service/config.h"
#include "service/fieldreq.h"
#include "service/graphs.h"
#include "service/metrics.h"
#include "service/query.h"
#include "service/reply.h"
#include "service/route.h"

typedef struct service service;

/* The facts of one request, set by the connection layer. Every pointer is
 * borrowed and must stay valid until the reply is done (the HTTP library keeps
 * a connection's header strings until its response is finished, also while
 * it is suspended). */
typedef struct {
    const char *method;          /* "GET", ... */
    char *target;                /* the raw request target, NUL-terminated;
                                    cut and decoded in place by prepare */
    const char *raw_target;      /* the target as received, left as it is
                                    (NULL: none): keys tile.c's memo */
    const char *body;            /* POST body (NULL: none) */
    size_t body_len;
    int body_too_large;          /* over LIMIT_BODY_BYTES (read and dropped) */
    int body_no_memory;          /* could not be stored */
    /* Request headers the handlers read (NULL when absent). */
    const char *if_none_match;
    const char *host;
    const char *forwarded;
    const char *x_forwarded_proto;
    const char *x_forwarded_host;
    const char *accept_encoding;

    /* Set by service_prepare. */
    route route;                 /* .id ROUTE_NONE until known */
    char *path;                  /* the raw path: in target, or "/" */
    query_args query;            /* decoded arguments (routes that take them) */
    char authority[256];         /* an absolute-form target's host[:port],
                                    which then stands for Host */
    char root[2];                /* "/" for "http://host" with no path */
    /* Set by service_prepare on a graph route (/graph/{seed}/...?g= or
     * /{name}/{seed}/...): graph 1 and the canonical text; a graph that is
     * one kind's field (one source node, seed offset 0) is turned into
     * its kind's URL instead (route.field ROUTE_FIELD_KIND, its
     * parameters added to the query from graph_args), so its answers are
     * the kind's bytes. */
    int graph;
    char graph_text[GRAPHS_TEXT_MAX];
    char graph_args[1024];

    /* Set by service_admit for a route that evaluates the field: the
     * request understood once (fieldreq.h), what service_run reads. */
    field_request field;
} service_request;

/* A service for cfg (copied): its metrics, a tile cache of cfg->cache_mb
 * MiB, the /api/kinds, /healthz and /openapi.json documents. Returns NULL
 * with a message in err on failure (out of memory). Free with
 * service_destroy() once no reply that borrows from it is in flight (after
 * the HTTP daemon stopped). destroy(NULL) does nothing. Two services in one
 * process share nothing. */
service *service_create(const config *cfg, char *err, size_t err_size);
void service_destroy(service *s);

/* The address URLs the daemon writes fall back to when neither
 * --public-url nor the request's headers name one ("http://127.0.0.1:8080").
 * Call before the first request. */
void service_set_fallback_base(service *s, const char *base_url);

/* The service's counters (the connection layer counts requests there). */
metrics *service_metrics(service *s);

/* Step 1, on the connection thread: routes rq (sets rq->route, rq->path,
 * rq->query). Returns 1 if *out is the complete answer (an error, OPTIONS,
 * 405, 413, a bad query), or 0 if the route's handler must run
 * (service_run). Never evaluates the field. */
int service_prepare(service *s, service_request *rq, reply *out);

/* Step 1b, on the connection thread, for a prepared request whose route
 * evaluates (route_evaluates): builds the typed request rq->field (the
 * query parsed once, key, ETag, cost; fieldreq.h) and answers at once what
 * needs no evaluation: a cached tile (200 or 304; a picture tile asked in
 * the same words is found from its raw target without parsing), a bad
 * query, a request whose estimated work is over the per-request limit
 * (422, cost.h), and a grid (a stream whose bands are made by its produce
 * step, reply.h); returns 1 with *out complete. Otherwise returns 0 with
 * *out untouched and *out_cost the estimated work of service_run (for the
 * render pool's bound). Never evaluates the field and never waits for a
 * render. */
int service_admit(service *s, service_request *rq, reply *out, uint64_t *out_cost);

/* Step 2: the handler of rq->route on a prepared (and, for a route that
 * evaluates, admitted) request; always leaves a complete reply in *out
 * (errors as JSON error replies). Thread-safe. */
void service_run(service *s, const service_request *rq, reply *out);

/* All the steps: prepare, admit (routes that evaluate), run. */
void service_handle(service *s, service_request *rq, reply *out);

#endif
