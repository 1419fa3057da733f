/* fieldreq.c: route + query -> the typed request of a field route, built
 * once at admission (see fieldreq.h). */
#include "service/fieldreq.h"

#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/daemon_limits.h"
#include "base/errors.h"
#include "base/gzip.h"
#include "service/cost.h"
#include "service/heightsreq.h"
#include "tiles/coarse.h"
#include "tiles/render.h"
#include "tiles/webpenc.h"

field_ask fieldreq_ask(const route *r, const query_args *q)
{
    switch (r->id) {
    case ROUTE_TILE:
        if (r->ext == ROUTE_EXT_WEBP)
            return FIELD_ASK_PICTURE_TILE;
        return heightsreq_is_numeric_tile(r->ext, q) ? FIELD_ASK_NUMERIC_TILE
                                                     : FIELD_ASK_PICTURE_TILE;
    case ROUTE_GRID: return FIELD_ASK_GRID;
    case ROUTE_POINT: return FIELD_ASK_POINT;
    case ROUTE_POINTS: return FIELD_ASK_POINTS;
    case ROUTE_STATS: return FIELD_ASK_STATS;
    default: return FIELD_ASK_NONE;
    }
}

/* tile_canonical's calls (fieldreq_key_calls). */
static atomic_ulong tile_key_calls;

unsigned long fieldreq_key_calls(void)
{
    return atomic_load_explicit(&tile_key_calls, memory_order_relaxed) + heightsreq_key_calls();
}

/* label: the kind's name or "graph"; field: the spec's canonical text or
 * "g=<canonical text>". */
static int tile_canonical_of(const route *r, const char *label, const char *field,
                             const render_opts *opts, char *buf, size_t buf_size)
{
    atomic_fetch_add_explicit(&tile_key_calls, 1, memory_order_relaxed);
    char rend[QUERY_RENDER_CANONICAL_MAX];
    if (query_render_canonical(opts, rend, sizeof rend) < 0)
        return -1;
    int n = snprintf(buf, buf_size, "%s/%" PRIu32 "/%d/%" PRId64 "/%" PRId64 "@%dx?%s&%s",
                     label, r->seed, r->z, r->x, r->y, r->scale, field, rend);
    return (n < 0 || (size_t)n >= buf_size) ? -1 : n;
}

int tile_canonical(const route *r, const noise_spec *spec, const render_opts *opts, char *buf,
                   size_t buf_size)
{
    char field[512];
    if (noise_spec_canonical(spec, field, sizeof field) < 0)
        return -1;
    return tile_canonical_of(r, noise_kind_name(r->kind), field, opts, buf, buf_size);
}

int tile_canonical_graph(const route *r, const char *graph_text, const render_opts *opts,
                         char *buf, size_t buf_size)
{
    char field[GRAPHS_TEXT_MAX + 2];
    int n = snprintf(field, sizeof field, "g=%s", graph_text);
    if (n < 0 || (size_t)n >= sizeof field)
        return -1;
    return tile_canonical_of(r, "graph", field, opts, buf, buf_size);
}

int tile_canonical_webp(const route *r, const noise_spec *spec, const render_opts *opts,
                        int quality, char *buf, size_t buf_size)
{
    return tile_canonical_webp_field(r, spec, NULL, opts, quality, buf, buf_size);
}

int tile_canonical_webp_field(const route *r, const noise_spec *spec, const char *graph_text,
                              const render_opts *opts, int quality, char *buf, size_t buf_size)
{
    int n = graph_text != NULL ? tile_canonical_graph(r, graph_text, opts, buf, buf_size)
                               : tile_canonical(r, spec, opts, buf, buf_size);
    if (n < 0)
        return -1;
    /* "...@1x.webp?...": the format in the path part, so that the key
     * (and tile_content_type) tells a WebP tile from the PNG of the same
     * picture; lossless tiles have no quality */
    char *q = strchr(buf, '?');
    size_t tail = strlen(q);
    if ((size_t)n + 5 + 16 >= buf_size)
        return -1;
    memmove(q + 5, q, tail + 1);
    memcpy(q, ".webp", 5);
    n += 5;
    if (!render_webp_lossless(opts))
        n += snprintf(buf + n, buf_size - (size_t)n, "&quality=%d", quality);
    return n;
}

const char *tile_content_type(const char *key)
{
    const char *q = strchr(key, '?');
    return q != NULL && q - key >= 5 && memcmp(q - 5, ".webp", 5) == 0 ? "image/webp" : "image/png";
}

void tile_etag(const char *canonical, char *buf, size_t buf_size)
{
    char versions[64];
    /* a WebP tile's bytes also depend on libwebp's encoder */
    if (strcmp(tile_content_type(canonical), "image/webp") == 0)
        snprintf(versions, sizeof versions, "#noise%d#render%d#webp%d-%06x", NOISE_VERSION,
                 RENDER_VERSION, RENDER_WEBP_VERSION, (unsigned)webpenc_version());
    else
        snprintf(versions, sizeof versions, "#noise%d#render%d", NOISE_VERSION, RENDER_VERSION);
    etag_of(canonical, versions, buf, buf_size);
}

/* The points of a batch body, counted cheaply: one '[' per point plus the
 * array's own (an over-count when a malformed body has more; the parser
 * refuses that body anyway). */
static uint64_t count_points(const char *body, size_t len)
{
    uint64_t n = 0;
    for (const char *p = body, *end = body + len; p != NULL && p < end;
         p = memchr(p, '[', (size_t)(end - p))) {
        if (*p == '[')
            n++;
        p++;
    }
    n = n > 0 ? n - 1 : 0;
    return n > LIMIT_MAX_POINTS ? LIMIT_MAX_POINTS : n;
}

static int key_too_long(char *err, size_t err_size)
{
    snprintf(err, err_size, "canonical request too long");
    return ERR_INTERNAL;
}

/* A picture tile: the render options, the key, the pixels' work. */
static int build_picture_tile(field_request *fr, const query_args *q, char *err, size_t err_size)
{
    const route *r = &fr->r;
    int rc = query_parse(q, r->kind, r->seed, QUERY_RENDER, &fr->q, err, err_size);
    if (rc != 0)
        return rc;
    const char *graph = fr->graph ? fr->graph_text : NULL;
    if (r->ext == ROUTE_EXT_WEBP) {
        if (tile_canonical_webp_field(r, &fr->q.spec, graph, &fr->q.render,
                                      (int)fr->q.value[PARAM_QUALITY], fr->key, sizeof fr->key) < 0)
            return key_too_long(err, err_size);
    } else {
        if (fr->q.given[PARAM_QUALITY]) {
            snprintf(err, err_size, "quality applies only to .webp tiles, not .png (PNG is lossless)");
            return ERR_BAD_REQUEST;
        }
        if ((graph != NULL ? tile_canonical_graph(r, graph, &fr->q.render, fr->key, sizeof fr->key)
                           : tile_canonical(r, &fr->q.spec, &fr->q.render, fr->key, sizeof fr->key)) < 0)
            return key_too_long(err, err_size);
    }
    int px = 256 * r->scale, shade = fr->q.render.shade;
    /* Shading needs the analytic gradient; the zero line one more row and
     * column, which the estimate leaves out. */
    fr->gradients = shade;
    /* Below zoom 0: supersampled at the zoom-0 @1x pixel pitch (coarse.h),
     * at most COARSE_MAX_SS per axis, fewer when that work would pass the
     * per-request limit (a refusal only where the point-sampled tile is
     * refused too). The key names the factor: a coarse tile's bytes differ
     * from the point-sampled tile's, so its ETag must too, while every tile
     * at zoom 0 and above keeps its key and ETag. */
    fr->ss = 1;
    if (r->z < 0) {
        int ss = -r->z >= 30 ? COARSE_MAX_SS : (1 << -r->z) / r->scale;
        ss = ss > COARSE_MAX_SS ? COARSE_MAX_SS : ss;
        while (ss > 1 && (fr->graph ? cost_graph(fr->graph_cost, (uint64_t)px * px * ss * ss)
                                    : cost_estimate(&fr->q.spec, (uint64_t)px * px * ss * ss,
                                                    shade)) > COST_REQUEST_LIMIT)
            ss /= 2;
        fr->ss = ss;
    }
    if (fr->ss > 1) {
        /* a coarse WebP tile is lossy even unshaded (coarse.h): its quality
         * is in the key as a lossy tile's is */
        char more[40];
        int lossy_too = r->ext == ROUTE_EXT_WEBP && render_webp_lossless(&fr->q.render);
        if (lossy_too)
            snprintf(more, sizeof more, "&quality=%d&ss=%d", (int)fr->q.value[PARAM_QUALITY], fr->ss);
        else
            snprintf(more, sizeof more, "&ss=%d", fr->ss);
        size_t n = strlen(fr->key);
        if (strlen(more) >= sizeof fr->key - n)
            return key_too_long(err, err_size);
        memcpy(fr->key + n, more, strlen(more) + 1);
    }
    tile_etag(fr->key, fr->etag, sizeof fr->etag);
    fr->samples = (uint64_t)px * (uint64_t)px * (uint64_t)(fr->ss * fr->ss);
    fr->lower_hint = r->scale == 2 ? (shade ? "ask for @1x, or shade=0" : "ask for @1x")
                     : shade      ? "shade=0"
                                  : NULL;
    return 0;
}

/* A numeric tile or a grid: the grid request, the key, the work. */
static int build_numbers(field_request *fr, const query_args *q, const char *accept_encoding,
                         char *err, size_t err_size)
{
    const route *r = &fr->r;
    grid_request *g = &fr->g;
    int is_grid = fr->ask == FIELD_ASK_GRID;
    int rc = heightsreq_parse(q, r->kind, r->seed, is_grid, r->ext, g, err, err_size);
    if (rc != 0)
        return rc;
    if (!is_grid) {
        /* the tile's pixel centres, as render_tile_png samples them */
        int px = 256 * r->scale;
        render_pixel_center(r->z, r->x, r->y, px, 0, 0, &g->x, &g->y);
        g->step = ldexp(RENDER_WORLD_SIZE, -r->z) / px;
        g->width = g->height = px;
    }
    g->gzip = r->ext != ROUTE_EXT_PNG && gzip_accepted(accept_encoding);
    if (heightsreq_key_field(r, g, fr->graph ? fr->graph_text : NULL, fr->key, sizeof fr->key) < 0)
        return key_too_long(err, err_size);
    tile_etag(fr->key, fr->etag, sizeof fr->etag);
    fr->samples = (uint64_t)g->width * (uint64_t)g->height;
    if (is_grid) {
        /* gradients for .npy with gradient=1 and for shaded pictures */
        fr->gradients = (g->enc.format == HEIGHTS_NPY && g->enc.gradient && !g->picture) ||
                        (g->picture && g->render.shade);
        fr->lower_hint = "ask for fewer samples (a smaller width or height, in several requests)";
    } else {
        fr->gradients = g->enc.format == HEIGHTS_NPY && g->enc.gradient;
        fr->lower_hint = r->scale == 2 ? "ask for @1x" : NULL;
    }
    return 0;
}

int fieldreq_build(field_request *fr, field_ask ask, const route *r, const query_args *q,
                   const char *accept_encoding, const char *body, size_t body_len, char *err,
                   size_t err_size)
{
    return fieldreq_build_graph(fr, ask, r, q, NULL, NULL, accept_encoding, body, body_len, err,
                                err_size);
}

int fieldreq_build_graph(field_request *fr, field_ask ask, const route *r, const query_args *q,
                         const char *graph_text, const double *graph_cost,
                         const char *accept_encoding, const char *body, size_t body_len, char *err,
                         size_t err_size)
{
    fr->graph = graph_text != NULL;
    /* a picture's cost: with gradients when shaded (set again by the
     * route's gradients below) */
    fr->graph_cost = graph_cost != NULL ? graph_cost[0] : 0;
    if (graph_cost != NULL && ask == FIELD_ASK_PICTURE_TILE) {
        for (size_t i = 0; i < q->n; i++)
            if (strcmp(q->names[i], "shade") == 0 && strcmp(q->values[i], "1") == 0)
                fr->graph_cost = graph_cost[1];
    }
    fr->graph_dominant[0] = '\0';
    if (graph_text != NULL)
        snprintf(fr->graph_text, sizeof fr->graph_text, "%s", graph_text);
    else
        fr->graph_text[0] = '\0';
    fr->ask = ask;
    fr->r = *r;
    fr->key[0] = fr->etag[0] = '\0';
    fr->samples = 1;
    fr->gradients = 0;
    fr->lower_hint = NULL;
    fr->cost = 1;
    fr->ss = 1;
    int rc = 0;
    switch (ask) {
    case FIELD_ASK_PICTURE_TILE:
        rc = build_picture_tile(fr, q, err, err_size);
        break;
    case FIELD_ASK_NUMERIC_TILE:
    case FIELD_ASK_GRID:
        rc = build_numbers(fr, q, accept_encoding, err, err_size);
        break;
    case FIELD_ASK_POINT:
        rc = query_parse(q, r->kind, r->seed, QUERY_POINT, &fr->q, err, err_size);
        fr->gradients = 1; /* every point answer has its gradient */
        break;
    case FIELD_ASK_POINTS:
        rc = query_parse(q, r->kind, r->seed, 0, &fr->q, err, err_size);
        fr->samples = body != NULL ? count_points(body, body_len) : 0;
        fr->gradients = 1;
        fr->lower_hint = "send fewer points";
        break;
    case FIELD_ASK_STATS:
        rc = query_parse(q, r->kind, r->seed, QUERY_WINDOW | QUERY_BINS, &fr->q, err, err_size);
        fr->samples = (uint64_t)fr->q.window.width * (uint64_t)fr->q.window.height;
        fr->lower_hint = "ask for fewer samples (a larger step, a smaller width or height)";
        break;
    case FIELD_ASK_NONE:
        snprintf(err, err_size, "no field request for route %s", route_name(r->id));
        return ERR_INTERNAL;
    }
    if (rc != 0) {
        fr->ask = FIELD_ASK_NONE;
        return rc;
    }
    fr->cost = cost_estimate(fieldreq_spec(fr), fr->samples > 0 ? fr->samples : 1,
                             fr->gradients);
    if (fr->graph && graph_cost != NULL) {
        fr->graph_cost = graph_cost[fr->gradients ? 1 : 0];
        fr->cost = cost_graph(fr->graph_cost, fr->samples > 0 ? fr->samples : 1);
    }
    return 0;
}

void fieldreq_set_graph_cost(field_request *fr, double per_sample, const char *dominant)
{
    fr->graph_cost = per_sample;
    snprintf(fr->graph_dominant, sizeof fr->graph_dominant, "%s", dominant);
    fr->cost = cost_graph(per_sample, fr->samples > 0 ? fr->samples : 1);
}

const noise_spec *fieldreq_spec(const field_request *fr)
{
    return fr->ask == FIELD_ASK_NUMERIC_TILE || fr->ask == FIELD_ASK_GRID ? &fr->g.spec
                                                                          : &fr->q.spec;
}

int fieldreq_check_cost(const field_request *fr, char *err, size_t err_size)
{
    uint64_t limit = fr->ask == FIELD_ASK_GRID ? COST_GRID_LIMIT : COST_REQUEST_LIMIT;
    if (fr->cost <= limit)
        return 0;
    if (fr->graph) {
        char msg[ERRORS_MSG_MAX];
        if (cost_check_graph(fr->graph_cost, fr->samples, fr->gradients, limit, fr->graph_dominant,
                             fr->lower_hint, msg, sizeof msg) == 0)
            return 0;
        errors_pointer_message(err, err_size, fr->graph_dominant, msg);
        return ERR_TOO_COSTLY;
    }
    return cost_check(fieldreq_spec(fr), fr->samples, fr->gradients, limit, fr->lower_hint, err,
                      err_size) != 0
               ? ERR_TOO_COSTLY
               : 0;
}
