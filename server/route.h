/* route.h: parses a request path into a route: which endpoint, and the
 * kind, seed and tile coordinates it names. Pure string work, no I/O. */
#ifndef ROUTE_H
#define ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "noise.h"

typedef enum {
    ROUTE_NONE = 0,  /* no endpoint: 404 */
    ROUTE_TILE,      /* GET /{kind}/{seed}/{z}/{x}/{y}.png, @2x.png */
    ROUTE_POINT,     /* GET /{kind}/{seed}/point */
    ROUTE_POINTS,    /* POST /{kind}/{seed}/points */
    ROUTE_TILEJSON,  /* GET /{kind}/{seed}/tile.json */
    ROUTE_KINDS,     /* GET /api/kinds */
    ROUTE_HEALTHZ,   /* GET /healthz */
    ROUTE_METRICS,   /* GET /metrics */
    ROUTE_OPENAPI,   /* GET /openapi.json */
    ROUTE_STATIC,    /* GET anything else: a file under --static */
    ROUTE_COUNT
} route_id;

typedef struct {
    route_id id;
    noise_kind kind;  /* field routes */
    uint32_t seed;    /* field routes */
    int z;            /* tiles: 0..30 */
    int64_t x, y;     /* tiles: int32 range */
    int scale;        /* tiles: 1, or 2 for @2x */
} route;

#define ROUTE_MAX_Z 30

/* Parses path (the raw, still percent-encoded path of the request, without
 * the query string). Returns 0 and fills *out (id ROUTE_STATIC for any path
 * that is not an API shape); or ERR_UNKNOWN_KIND / ERR_BAD_REQUEST (a seed,
 * z, x or y that is not a strict decimal in its range) with a message in err
 * naming the segment, its range and what was sent. */
int route_parse(const char *path, route *out, char *err, size_t err_size);

/* A short label for metrics and logs: "tile", "point", ... */
const char *route_name(route_id id);

/* The methods a route answers, as an Allow header value. */
const char *route_allow(route_id id);

/* 1 if the route answers method ("GET", "HEAD", "POST", "OPTIONS"). */
int route_allows(route_id id, const char *method);

/* Strict decimal integer parse of s[0..len): an optional '-' (no '+'), then
 * 1..20 digits, nothing else, value in [min, max]. Returns 0 and sets *out,
 * or -1. */
int route_parse_int(const char *s, size_t len, int64_t min, int64_t max, int64_t *out);

#endif
