/* plan.h: what one export covers: the field (parsed from its URL form, as
 * the daemon parses it), the region and its mapping onto archive tiles, the
 * tile ids in export order, the counts, and rendering one tile.
 *
 * The plane is infinite and signed; archives address tiles 0..2^z-1. An
 * export maps its region onto an archive whose whole world (archive tile
 * 0/0/0) is the square of 2^k zoom-0 plane tiles with top-left plane tile
 * (ox, oy): archive tile (z, x, y) is plane tile
 *     (z - k, x + ox * 2^(z-k), y + oy * 2^(z-k)),
 * k the smallest offset whose square holds the region, (ox, oy) the zoom-0
 * plane tile of the region's top-left corner. k, ox and oy are in the
 * metadata ("noisetile" object / noisetile_origin row) so a viewer puts the
 * tiles back where they belong.
 *
 * Order: every tile of the export has its archive's PMTiles tile id (zoom,
 * then the Hilbert curve); the tiles are rendered in parallel and written
 * in that order, so an output depends only on the command. Shard K of N is
 * the K-th of N equal consecutive stretches of that order. */
#ifndef EXPORT_PLAN_H
#define EXPORT_PLAN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "heights/grid.h"
#include "service/graphs.h"
#include "service/route.h"
#include "tiles/render.h"

typedef struct {
    noise_kind kind;
    uint32_t seed;
    noise_spec spec;
    render_opts opts;
    int scale;
    route_ext ext;       /* tile files: .png, .npy, .r16 */
    int numeric;         /* 1: the numbers (heightsreq.h), not a picture */
    grid_request grid;   /* numeric: the encoding; the window is per tile */
    /* A graph (graph/SEED?g=... or a preset's name): its canonical text and
     * the graph prepared for the seed (the tiles are rendered from it); a
     * graph that is one kind's field is that kind (graph NULL). */
    char graph_text[GRAPHS_TEXT_MAX];
    fieldsrc_graph *graph;
    char query[GRAPHS_TEXT_MAX + 2300]; /* canonical field and render parameters */
    char url[GRAPHS_TEXT_MAX + 2500];   /* "/perlin/7/{z}/{x}/{y}.png?..." */
    double x0, y0, x1, y1;
    int zmin, zmax;      /* plane zooms */
    int k;               /* archive zoom = plane zoom + k */
    int64_t ox, oy;      /* zoom-0 plane tile at archive (0, 0) */
    char identity[GRAPHS_TEXT_MAX + 3000]; /* what must match to resume */
    char name[256];
    /* The shard: positions [from, to) of the export order, shard k of n.
     * Recorded in the metadata ("shard" in the "noisetile" object, the
     * noisetile_shard row) so merge can tell a complete set. */
    int64_t shard_k, shard_n;
    uint64_t from, to;
} plan;

/* FIELD ("KIND/SEED[?PARAMS]", "graph/SEED?g=TEXT[&PARAMS]" or
 * "NAME/SEED[?PARAMS]" for a preset graph; a leading '/' allowed) into p's
 * kind, seed, spec or graph, render options or numeric encoding (p->ext
 * must be set). Returns 0, or -1 with err. */
int plan_parse_field(const char *text, plan *p, char *err, size_t err_size);

/* "X0,Y0,...": exactly n numbers into out. Returns 0 or -1. */
int plan_parse_doubles(const char *s, double *out, int n);

/* "A" or "A-B" with lo <= A <= B <= hi. Returns 0 or -1. */
int plan_parse_range(const char *s, int64_t lo, int64_t hi, int64_t *a, int64_t *b);

/* Chooses k, ox, oy for the region and fills url, identity and the default
 * name. Returns 0, or -1 with err when the archive zoom would pass 30. */
int plan_mapping(plan *p, char *err, size_t err_size);

/* Web Mercator bounds and centre of the region in its archive. */
typedef struct {
    double min_lon, min_lat, max_lon, max_lat, center_lon, center_lat;
} plan_geo_box;
plan_geo_box plan_geo(const plan *p);

/* The metadata every format carries, as a JSON object (TileJSON names). */
json_t *plan_json(const plan *p);

/* o as compact JSON (jsonout.h), malloc()ed; NULL on failure. */
char *plan_json_text(const json_t *o);

/* Shard k of n of the plan's order: sets shard_k, shard_n, from, to. */
void plan_set_shard(plan *p, int64_t k, int64_t n);

/* The shard record {"index":K,"count":N,"tiles":T} as an object, and as
 * the text of the MBTiles row (the same bytes jsonout gives the object). */
json_t *plan_shard_json(int64_t k, int64_t n, uint64_t tiles);
void plan_shard_text(int64_t k, int64_t n, uint64_t tiles, char *buf, size_t size);

/* Tiles of plane zoom pz, and of the whole export. */
uint64_t plan_zoom_count(const plan *p, int pz);
uint64_t plan_count(const plan *p);

/* The archive tile ids of the export's order, streamed: positions
 * [pos, end) in order, in constant memory (a descent of the quadtree, a
 * few hundred bytes; no list of ids). */
typedef struct {
    uint32_t bx, by;
    int level;
    unsigned char order[4], next;
} plan_iter_frame;
typedef struct {
    const plan *p;
    uint64_t pos, end, skip;
    int pz, az; /* plane and archive zoom */
    uint32_t rx0, ry0, rx1, ry1; /* the zoom's rectangle, archive tiles */
    int depth;
    plan_iter_frame stack[32];
} plan_iter;
void plan_iter_start(plan_iter *it, const plan *p, uint64_t pos, uint64_t end);
/* The next id into *id: 1, or 0 at the end. */
int plan_iter_next(plan_iter *it, uint64_t *id);

/* Renders the tile of archive tile id: its bytes (malloc()ed) in *png.
 * Returns 0 or a RENDER_E* code. */
int plan_render_tile(const plan *p, uint64_t id, unsigned char **png, size_t *size);

/* An estimate of the shard's output from up to 16 tiles spread over its
 * positions (by zoom, so it weighs the zooms as the shard does), in
 * bounded memory and time whatever the size: no tile list is made. */
typedef struct {
    int samples;
    double bytes_per_tile, seconds_per_tile; /* one thread */
} plan_estimate;
void plan_estimate_size(const plan *p, plan_estimate *e);

#endif
