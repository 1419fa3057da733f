/* fieldreq.h: the typed request of a route that evaluates the field, built
 * once at admission (service_admit, on the connection thread) from the
 * route and its query, and carried to the worker (service_run) inside the
 * service request: what is asked (a picture tile, a numeric tile, a grid, a
 * point, a batch, statistics), the parsed field and options, the cache key
 * and ETag of the cached forms, and the estimated work (cost.h). The worker
 * reads only this: it never parses the query or prints a key again. */
#ifndef FIELDREQ_H
#define FIELDREQ_H

#include <stddef.h>
#include <stdint.h>

#include "base/etag.h"
#include "heights/grid.h"
#include "service/graphs.h"
#include "service/query.h"
#include "service/route.h"

/* What a field route asks for. */
typedef enum {
    FIELD_ASK_NONE = 0,    /* not built (a route that does not evaluate) */
    FIELD_ASK_PICTURE_TILE, /* {z}/{x}/{y}.png: a rendered picture (cached) */
    FIELD_ASK_NUMERIC_TILE, /* .npy, .r16, .png?encoding=: numbers (cached) */
    FIELD_ASK_GRID,         /* grid.{npy,r16,png}: a window streamed in bands */
    FIELD_ASK_POINT,        /* /point: one value and its gradient */
    FIELD_ASK_POINTS,       /* POST /points: a batch */
    FIELD_ASK_STATS         /* /stats: statistics of a window */
} field_ask;

/* The longest cache key (tiles) or ETag text (grids): a graph's
 * canonical text, a ramp and the rest. */
#define FIELDREQ_KEY_MAX 8192

typedef struct {
    field_ask ask;
    route r;                /* the route's copy: kind, seed, z/x/y, scale, ext */
    /* The parsed query. Picture tiles: q.spec and q.render; point: q.spec,
     * q.x, q.y; batch: q.spec; stats: q.spec, q.window, q.bins. Numeric
     * tiles and grids: g (spec, window, encoding, picture, gzip; a tile's
     * window is its pixel centres). */
    query_result q;
    grid_request g;
    /* Tiles and grids: the key text (a tile's cache key) and its ETag. */
    char key[FIELDREQ_KEY_MAX];
    char etag[ETAG_SIZE];
    /* The estimated work (cost.h) of evaluating it: samples, with
     * gradients or not; the hint a refusal adds to what to lower. */
    uint64_t samples;
    int gradients;
    const char *lower_hint;
    uint64_t cost;          /* cost_estimate of the above (never 0) */
    /* Picture tiles below zoom 0: sub-pixels per axis (coarse.h), 1 for
     * every other tile; in the key as "&ss=N" when over 1. */
    int ss;
    /* A graph request (/graph/ or a named graph that is not a single
     * kind): the graph's canonical text is the field (q.spec / g.spec are
     * a default spec, unused); its per-sample cost and the JSON pointer of
     * the node dominating it are set when its cost is checked
     * (fieldreq_check_cost). */
    int graph;
    double graph_cost;
    char graph_dominant[256];
    char graph_text[GRAPHS_TEXT_MAX];
} field_request;

/* What route r with query arguments q asks for (FIELD_ASK_NONE for a route
 * that does not evaluate the field). Cheap: the route id, a tile's
 * extension and whether its query names an encoding. */
field_ask fieldreq_ask(const route *r, const query_args *q);

/* Builds *out for ask (fieldreq_ask's answer for r and q): parses q once
 * (query_parse or heightsreq_parse), and for tiles and grids prints the key
 * and ETag (gzip when accept_encoding allows it, for .npy and .r16); the
 * cost for a batch counts the points of body[0..body_len) (NULL: none).
 * Returns 0; or an ERR_* code with a message in err (a bad query: 400, a
 * window too large: 413). Never evaluates the field. */
int fieldreq_build(field_request *out, field_ask ask, const route *r, const query_args *q,
                   const char *accept_encoding, const char *body, size_t body_len, char *err,
                   size_t err_size);

/* fieldreq_build of a graph: graph_text (canonical) is the field of the
 * request (NULL: the kind's, as fieldreq_build), graph_cost its per-sample
 * cost without and with gradients (graphs_prepare; it sets the request's
 * cost and how far a tile below zoom 0 is supersampled). The route's kind
 * is not used; q must hold no field parameter. */
int fieldreq_build_graph(field_request *out, field_ask ask, const route *r, const query_args *q,
                         const char *graph_text, const double *graph_cost,
                         const char *accept_encoding, const char *body, size_t body_len, char *err,
                         size_t err_size);

/* The field a built request evaluates. */
const noise_spec *fieldreq_spec(const field_request *fr);

/* 0 when the request's work is within its limit (COST_GRID_LIMIT for a
 * grid, else COST_REQUEST_LIMIT); else ERR_TOO_COSTLY with a message in err naming
 * the cost, the limit and what to lower (cost_check). */
int fieldreq_check_cost(const field_request *fr, char *err, size_t err_size);

/* A graph request's cost from its per-sample cost (graphs_prepare) and
 * its samples: sets fr->graph_cost, fr->graph_dominant and fr->cost. */
void fieldreq_set_graph_cost(field_request *fr, double per_sample, const char *dominant);

/* The canonical request text of a picture tile, its cache key and hashed
 * into its ETag: "perlin/7/3/-1/2@1x?<field canonical>&palette=gray&shade=0&zero=0".
 * Returns the length, or -1 if buf is too small. */
int tile_canonical(const route *r, const noise_spec *spec, const render_opts *opts,
                   char *buf, size_t buf_size);
/* The same for a graph: "graph/7/3/-1/2@1x?g=<canonical text>&palette=...". */
int tile_canonical_graph(const route *r, const char *graph_text, const render_opts *opts,
                         char *buf, size_t buf_size);
/* The same for a .webp tile: "perlin/7/3/-1/2@1x.webp?<...>" and, for a
 * lossy tile (render_webp_lossless), "&quality=Q". */
int tile_canonical_webp(const route *r, const noise_spec *spec, const render_opts *opts,
                        int quality, char *buf, size_t buf_size);
/* The .webp key of a graph tile (graph_text not NULL) or a kind's. */
int tile_canonical_webp_field(const route *r, const noise_spec *spec, const char *graph_text,
                              const render_opts *opts, int quality, char *buf, size_t buf_size);
/* The Content-Type of a picture tile's key: "image/webp" or "image/png". */
const char *tile_content_type(const char *key);

/* The quoted strong ETag (base/etag.h) of a key text (tiles and grids) and
 * the noise and render versions. buf must hold ETAG_SIZE bytes. */
void tile_etag(const char *canonical, char *buf, size_t buf_size);

/* A test counter, process-wide: how many keys were printed so far
 * (tile_canonical's and heightsreq_key's calls). With query_parse_calls
 * (query.h), a unit test checks that a request is parsed and keyed once. */
unsigned long fieldreq_key_calls(void);

#endif
