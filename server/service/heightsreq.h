/* heightsreq.h: the query of a numeric tile (.npy, .r16, .png?encoding=)
 * or a grid (grid.npy, grid.r16, grid.png) -> a grid_request, and its
 * canonical text (cache key and ETag). Strict like every parameter here: an
 * unknown, repeated, out-of-range or conflicting parameter is refused with
 * a message naming it, its range and the value sent.
 *
 * Parameters besides the field's (docs/heights.md):
 *   grid only: x, y (finite, required), step ((0, 1e6], required), width,
 *     height (integers 1..GRID_MAX_SIDE, required; width*height at most
 *     GRID_MAX_SAMPLES; larger is 413)
 *   .npy: gradient (0, 1)
 *   .png: encoding (gray16, terrarium, mapbox); with terrarium and mapbox
 *     height_scale ((0, 1e6], default 1000) and height_offset ([-1e6, 1e6],
 *     default 0); a grid.png without encoding is a picture and takes
 *     palette, shade and zero like a tile; with an encoding they are refused.
 */
#ifndef HEIGHTSREQ_H
#define HEIGHTSREQ_H

#include <stddef.h>

#include "heights/grid.h"
#include "service/query.h"
#include "service/reply.h"
#include "service/route.h"

/* The extension's name without the dot ("png", "npy", "r16"). */
const char *heightsreq_ext_name(route_ext ext);

/* 1 if a tile request with these arguments is numeric (its extension is
 * .npy or .r16, or a .png has an encoding parameter): answered from the
 * numbers, not by the picture renderer. */
int heightsreq_is_numeric_tile(route_ext ext, const query_args *q);

/* Parses q for a grid (is_grid 1) or a numeric tile (0) of field (kind,
 * seed) with extension ext into *out (for tiles the window, x, y, step,
 * width and height, is the caller's to fill). Returns 0; ERR_BAD_REQUEST or
 * ERR_TOO_LARGE (a side or the sample count over the limits) with a message
 * in err. */
int heightsreq_parse(const query_args *q, noise_kind kind, uint32_t seed, int is_grid,
                     route_ext ext, grid_request *out, char *err, size_t err_size);

/* The canonical text of the request's parameters: the field's, then for
 * grids "&x=..&y=..&step=..&width=..&height=..", then the form's
 * ("&gradient=0", "&encoding=terrarium&height_scale=1000&height_offset=0",
 * or a picture's "&palette=gray&shade=0&zero=0"). Numbers in shortest
 * round-trip form. Returns the length, or -1 if buf is too small. */
int heightsreq_canonical(const grid_request *r, int is_grid, char *buf, size_t buf_size);
/* The same with the field a graph's (graph_text not NULL: "g=<text>"
 * instead of the spec's parameters). */
int heightsreq_canonical_field(const grid_request *r, int is_grid, const char *graph_text,
                               char *buf, size_t buf_size);

/* The key text of a numeric tile or grid request (cache key, hashed into
 * its ETag): "perlin/7/3/-1/2@1x.npy?<canonical>" for tiles (r->z..scale),
 * "perlin/7/grid.npy?<canonical>" for grids, then "#heights<version>", and
 * "#gzip" when the body is gzip-compressed. Returns the length or -1. */
int heightsreq_key(const route *r, const grid_request *g, char *buf, size_t buf_size);
/* The same for a graph (graph_text not NULL): "graph/7/grid.npy?g=...". */
int heightsreq_key_field(const route *r, const grid_request *g, const char *graph_text, char *buf,
                         size_t buf_size);

/* The headers every numeric answer carries besides the caching ones:
 * Content-Type, X-Width, X-Height, and for .npy and .r16 Vary:
 * Accept-Encoding and (g->gzip) Content-Encoding: gzip. Returns 0 or -1
 * (no room in the reply: a bug). */
int heightsreq_headers(const grid_request *g, reply *out);

/* Answers GET/HEAD of a grid g (parsed, gzip decided) whose ETag is etag:
 * 304 when if_none_match matches it (nothing computed), else 200 with the
 * body streamed in bands (REPLY_STREAM with produce: each band is a step
 * of its own, for the render pool; exact Content-Length for plain .npy and
 * .r16, chunked otherwise). Computes nothing itself: cheap enough for the
 * connection thread. Returns 0 and fills *out; or ERR_NOMEM, ERR_INTERNAL.
 * Numeric tiles are cached answers (tile.h). */
/* heightsreq_grid_stream of a graph's grid (g->graph set): its bands'
 * cost from the graph's per-sample cost. */
int heightsreq_grid_stream_cost(const grid_request *g, double graph_cost, const char *etag,
                                const char *if_none_match, reply *out);
int heightsreq_grid_stream(const grid_request *g, const char *etag, const char *if_none_match,
                           reply *out);

/* How many times heightsreq_key ran in this process (a test counter,
 * fieldreq_key_calls). */
unsigned long heightsreq_key_calls(void);

/* Bumped when the bytes of a numeric tile or grid change for the same
 * request; part of their ETags. */
#define HEIGHTS_VERSION 1

#endif
