/* route.h: parses a request path into a route: which endpoint, and the
 * kind, seed and tile coordinates it names. Pure string work, no I/O. */
#ifndef ROUTE_H
#define ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "noise.h"

/* The methods a route answers, as bits. Every route answers OPTIONS. */
enum { ROUTE_GET = 1, ROUTE_HEAD = 2, ROUTE_POST = 4, ROUTE_OPTIONS = 8 };
#define ROUTE_READ (ROUTE_GET | ROUTE_HEAD | ROUTE_OPTIONS)
#define ROUTE_WRITE (ROUTE_POST | ROUTE_OPTIONS)

/* What a route takes besides its path (bits of the table's takes column). */
enum { ROUTE_TAKES_QUERY = 1, ROUTE_TAKES_BODY = 2 };

/* How a route is admitted (service_admit, on the connection thread) and
 * run (service_run). Every route but RUN evaluates the field: its query
 * is parsed once at admission into a typed request (fieldreq.h) with its
 * cost, held to the per-request work limit (422), and carried to the
 * worker. */
typedef enum {
    ROUTE_ADMIT_RUN = 0, /* evaluates nothing: run at once on the connection thread */
    ROUTE_ADMIT_CACHED,  /* a cached answer (tiles): a hit is answered at
                            admission, a miss runs on a render-pool worker */
    ROUTE_ADMIT_STREAM,  /* answered at admission by its handler with a stream
                            whose bands render-pool workers make (grids) */
    ROUTE_ADMIT_POOL     /* run on a render-pool worker with its cost */
} route_admit;

/* The route table, written once: XX(ID, name, methods, takes, admit,
 * handler). name labels metrics and logs; takes says whether the handler
 * reads the query string and the body; admit how the request is admitted
 * and run (route_admit); handler is the function service.c binds to the
 * route. route.c expands the table into names, methods, takes and
 * admission, service.c into the dispatch table. */
#define ROUTES_MAP(XX)                                                                      \
    XX(NONE, "none", 0, 0, ROUTE_ADMIT_RUN, handle_none)                                    \
    XX(TILE, "tile", ROUTE_READ, ROUTE_TAKES_QUERY, ROUTE_ADMIT_CACHED, handle_tile)        \
    XX(GRID, "grid", ROUTE_READ, ROUTE_TAKES_QUERY, ROUTE_ADMIT_STREAM, handle_grid)        \
    XX(POINT, "point", ROUTE_READ, ROUTE_TAKES_QUERY, ROUTE_ADMIT_POOL, handle_point)       \
    XX(POINTS, "points", ROUTE_WRITE, ROUTE_TAKES_QUERY | ROUTE_TAKES_BODY, ROUTE_ADMIT_POOL, \
       handle_points)                                                                       \
    XX(STATS, "stats", ROUTE_READ, ROUTE_TAKES_QUERY, ROUTE_ADMIT_POOL, handle_stats)       \
    XX(TILEJSON, "tilejson", ROUTE_READ, ROUTE_TAKES_QUERY, ROUTE_ADMIT_RUN, handle_tilejson) \
    XX(KINDS, "kinds", ROUTE_READ, 0, ROUTE_ADMIT_RUN, handle_kinds)                        \
    XX(GRAPHS, "graphs", ROUTE_READ | ROUTE_POST, ROUTE_TAKES_QUERY | ROUTE_TAKES_BODY,      \
       ROUTE_ADMIT_RUN, handle_graphs)                                                      \
    XX(HEALTHZ, "healthz", ROUTE_READ, 0, ROUTE_ADMIT_RUN, handle_healthz)                  \
    XX(METRICS, "metrics", ROUTE_READ, 0, ROUTE_ADMIT_RUN, handle_metrics)                  \
    XX(OPENAPI, "openapi", ROUTE_READ, 0, ROUTE_ADMIT_RUN, handle_openapi)                  \
    XX(TMS, "tilematrixset", ROUTE_READ, 0, ROUTE_ADMIT_RUN, handle_tms)                    \
    XX(STATIC, "static", ROUTE_READ, 0, ROUTE_ADMIT_RUN, handle_static)

typedef enum {
#define ROUTE_ENUM(id, name, methods, takes, admit, handler) ROUTE_##id,
    ROUTES_MAP(ROUTE_ENUM)
#undef ROUTE_ENUM
    ROUTE_COUNT
} route_id;

/* The file type a tile or grid path ends in. */
typedef enum { ROUTE_EXT_PNG = 0, ROUTE_EXT_NPY, ROUTE_EXT_R16, ROUTE_EXT_WEBP } route_ext;

/* Whose field a field route names (its first segment). */
typedef enum {
    ROUTE_FIELD_KIND = 0, /* /{kind}/...: the kind's field, parameters in the query */
    ROUTE_FIELD_GRAPH,    /* /graph/...: the graph in g= (canonical text) */
    ROUTE_FIELD_NAMED     /* /{name}/...: a preset or a graph loaded with --graphs */
} route_field;

/* A named graph's name: [a-z][a-z0-9_-]{0,31}, not a kind, "graph" or "api". */
#define ROUTE_NAME_MAX 32

typedef struct {
    route_id id;
    noise_kind kind;  /* field routes */
    uint32_t seed;    /* field routes */
    int z;            /* tiles: ROUTE_MIN_Z..30 (Web-Mercator tiles: down to -19) */
    int64_t x, y;     /* tiles: int32 range */
    int scale;        /* tiles: 1, or 2 for @2x */
    route_ext ext;    /* tiles and grids: .png, .npy or .r16; tiles also .webp */
    route_field field; /* field routes: a kind (0), /graph/ or a named graph */
    char name[ROUTE_NAME_MAX + 1]; /* ROUTE_FIELD_NAMED: the name as written */
} route;

#define ROUTE_MAX_Z 30
/* Tiles below zoom 0 show a coarser view directly (a zoom -2 tile covers
 * 64 plane units, 4 x 4 zoom-0 tiles): a zoomed-out map asks for a
 * screenful of them rather than 16 zoom-0 tiles each shrunk to 64 px.
 * Web-Mercator clients (TileJSON, the TMS) keep 0..30. */
#define ROUTE_MIN_Z (-2)

/* Web-Mercator tiles: /{kind}/{seed}/mercator/{W}/{Z}/{X}/{Y}.png (@2x,
 * .webp, .npy, .r16 as plane tiles) for clients that know only the
 * Web-Mercator grid (MapLibre): the world is W plane units wide, W = 16 *
 * 2^k a power of two 1..ROUTE_MERCATOR_MAX_WORLD, with the plane's origin
 * at its centre, so Web-Mercator tile (Z, X, Y), Z 1..30, 0 <= X, Y < 2^Z,
 * is plane tile (Z - k, X - 2^(Z-1), Y - 2^(Z-1)): route_parse returns
 * that ROUTE_TILE (the same key, bytes and ETag). Its plane zoom may be
 * below ROUTE_MIN_Z (down to 1 - 20); it must not pass 30. Zoom 0 (the
 * whole world in one tile, centred on the origin) is not a plane tile:
 * clients take zoom 1 (TileJSON says minzoom 1). */
#define ROUTE_MERCATOR_MAX_WORLD 16777216

/* The URL forms of a field, as messages name them to a user whose URL has
 * none of these shapes. */
#define ROUTE_FIELD_FORMS                                                               \
    "/{kind}/{seed}/{z}/{x}/{y}.png, /{kind}/{seed}/{z}/{x}/{y}@2x.png (.webp, .npy, .r16 too), " \
    "/{kind}/{seed}/mercator/{width}/{z}/{x}/{y}.png, "                                 \
    "/{kind}/{seed}/grid.{npy,r16,png}?x=..&y=..&step=..&width=..&height=.., "           \
    "/{kind}/{seed}/point?x=..&y=.., POST /{kind}/{seed}/points, /{kind}/{seed}/tile.json, "   \
    "/{kind}/{seed}/stats"

/* Parses path (the raw, still percent-encoded path of the request, without
 * the query string); each segment is percent-decoded as the query is
 * (query_unescape), so /per%6Cin/7/point is /perlin/7/point. A field shape
 * whose first segment is "graph" is a graph route (field ROUTE_FIELD_GRAPH),
 * one whose first segment may be a graph's name (route_graph_name_ok) a
 * named route (ROUTE_FIELD_NAMED, out->name: the service says whether it
 * exists). Returns 0 and
 * fills *out (id ROUTE_STATIC for any path that is not an API shape); or,
 * with a message in err: ERR_UNKNOWN_KIND (a field shape whose kind is not
 * a kind: the message names the kinds); ERR_NOT_FOUND (a path starting with
 * a kind that has no field shape: the message names ROUTE_FIELD_FORMS; out->id
 * is ROUTE_STATIC); ERR_BAD_REQUEST (a seed, z, x or y that is not a strict
 * decimal in its range, naming the segment, its range and what was sent; a
 * tile scale other than @2x, naming the forms). */
int route_parse(const char *path, route *out, char *err, size_t err_size);

/* A short label for metrics and logs: "tile", "point", ... ("none" for an
 * id out of range). */
const char *route_name(route_id id);

/* The ROUTE_GET... bits of the methods a route answers. */
unsigned int route_methods(route_id id);

/* The ROUTE_TAKES_... bits of what a route reads besides its path. */
unsigned int route_takes(route_id id);

/* How the route is admitted and run (the table's admit column). */
route_admit route_admission(route_id id);

/* 1 if the route may evaluate the field: its admission is not
 * ROUTE_ADMIT_RUN. */
int route_evaluates(route_id id);

/* The ROUTE_GET... bit of a method name ("GET" -> ROUTE_GET), 0 for any
 * other method. */
unsigned int route_method_bit(const char *method);

/* The methods of a route as an Allow header value: "GET, HEAD, OPTIONS". */
const char *route_allow(route_id id);

/* 1 if the route answers method ("GET", "HEAD", "POST", "OPTIONS"). */
int route_allows(route_id id, const char *method);

/* Strict decimal integer parse of s[0..len): an optional '-' (no '+'), then
 * 1..20 digits, nothing else, value in [min, max]. Returns 0 and sets *out,
 * or -1. */
int route_parse_int(const char *s, size_t len, int64_t min, int64_t max, int64_t *out);

/* 1 if s[0..len) may name a graph: [a-z][a-z0-9_-]{0,31}, not a kind name,
 * "graph" or "api". */
int route_graph_name_ok(const char *s, size_t len);

#endif
