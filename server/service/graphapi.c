/* graphapi.c: JSON answers of graph requests (see graphapi.h). */
#include "service/graphapi.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/daemon_limits.h"
#include "base/errors.h"
#include "base/failalloc.h"
#include "heights/batch.h"
#include "heights/stats.h"
#include "service/api.h"
#include "service/heightsreq.h"
#include "service/params.h"
#include "tiles/render.h"

#define API_CACHE_CONTROL "public, max-age=86400"

/* {"name"?: ..., "graph": text, "seed": S}: the head of every answer. */
static json_t *head(const route *r, const char *text)
{
    json_t *doc = json_object();
    if (doc == NULL)
        return NULL;
    if ((r->field == ROUTE_FIELD_NAMED &&
         json_object_set_new(doc, "name", json_string(r->name)) != 0) ||
        json_object_set_new(doc, "graph", json_string(text)) != 0 ||
        json_object_set_new(doc, "seed", json_integer((json_int_t)r->seed)) != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* Sets key to v (taken) in doc; on failure frees doc and returns NULL
 * (json_object_set_new releases v itself when it fails). */
static json_t *with(json_t *doc, const char *key, json_t *v)
{
    if (doc == NULL || v == NULL) {
        json_decref(v);
        json_decref(doc);
        return NULL;
    }
    if (json_object_set_new(doc, key, v) != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int graphapi_point(const route *r, const char *text, const fieldsrc_graph *graph,
                   const query_result *q, reply *out)
{
    fieldsrc f;
    double p[2] = {q->x, q->y}, grad[3] = {0, 0, 0}, v = 0;
    int n_grad = 0;
    fieldsrc_init(&f, NULL, graph);
    if (fieldsrc_point(&f, p, 2, &v, grad, &n_grad) != 0)
        return ERR_NOMEM;
    json_t *doc = head(r, text);
    doc = with(doc, "x", json_real(q->x));
    doc = with(doc, "y", json_real(q->y));
    doc = with(doc, "value", api_real_or_null(v));
    doc = with(doc, "gradient", api_real_array(grad, (size_t)n_grad));
    return api_json_reply(doc, API_CACHE_CONTROL, out);
}

int graphapi_points(const route *r, const char *text, const fieldsrc_graph *graph,
                    const char *body, size_t body_len, reply *out, char *err, size_t err_size)
{
    (void)r;
    batch b;
    int rc = batch_parse(body, body_len, LIMIT_MAX_POINTS, &b, err, err_size);
    if (rc != 0)
        return rc;
    if (b.dims == 3) {
        /* a planar graph (its sources 2D functions, no t node) has no third
         * coordinate, as for those kinds */
        noise_graph *parsed = noise_graph_decode(text, strlen(text), NULL);
        int planar = parsed != NULL && noise_graph_planar(parsed);
        noise_graph_destroy(parsed);
        if (planar) {
            batch_free(&b);
            snprintf(err, err_size, "this graph is 2D (its sources are 2D fields: classic, or "
                                    "gradients=angle / falloff=quartic): send [x, y] points, not "
                                    "[x, y, t]");
            return ERR_BAD_REQUEST;
        }
    }
    size_t n = b.n;
    int g = b.dims == 3 ? 3 : 2;
    double *values = failalloc_malloc((n ? n : 1) * sizeof *values);
    double *grads = failalloc_malloc((n ? n : 1) * 3 * sizeof *grads);
    char *answer = NULL;
    size_t len = 0;
    fieldsrc f;
    fieldsrc_init(&f, NULL, graph);
    if (values == NULL || grads == NULL ||
        (n > 0 && fieldsrc_points(&f, n, b.coords, b.dims, values, grads) != 0) ||
        batch_answer_json(values, grads, n, g, &answer, &len) != 0) {
        rc = ERR_NOMEM;
    } else {
        reply_owned(out, 200, "application/json", "no-store", answer, len);
    }
    free(values);
    free(grads);
    batch_free(&b);
    return rc;
}

int graphapi_stats(const route *r, const char *text, const fieldsrc_graph *graph,
                   const query_result *qr, reply *out)
{
    stats_summary *s = failalloc_malloc(sizeof *s);
    if (s == NULL)
        return ERR_NOMEM;
    if (stats_field_src(NULL, graph, qr->window.x, qr->window.y, qr->window.step, qr->window.width,
                        qr->window.height, qr->bins, NULL, NULL, s) != 0) {
        free(s);
        return ERR_NOMEM;
    }
    json_t *counts = api_stats_counts(s);
    double n = (double)s->count;
    json_t *doc = head(r, text);
    doc = with(doc, "window",
               json_pack("{s:f,s:f,s:f,s:i,s:i}", "x", qr->window.x, "y", qr->window.y, "step",
                         qr->window.step, "width", qr->window.width, "height", qr->window.height));
    doc = with(doc, "count", json_integer((json_int_t)s->count));
    doc = with(doc, "min", json_real(s->min));
    doc = with(doc, "max", json_real(s->max));
    doc = with(doc, "mean", json_real(s->mean));
    doc = with(doc, "sd", json_real(s->sd));
    doc = with(doc, "share_beyond_half", json_real((double)s->beyond_half / n));
    doc = with(doc, "peaks", json_integer((json_int_t)s->peaks));
    doc = with(doc, "histogram",
               counts != NULL ? json_pack("{s:f,s:f,s:o}", "min", -1.0, "max", 1.0, "counts", counts)
                              : NULL);
    free(s);
    return api_json_reply(doc, API_CACHE_CONTROL, out);
}

/* The TileJSON object of a graph's tiles: tiles is the template. */
static json_t *tilejson_object(const route *r, const char *text, const char *tiles,
                               const char *format, const char *encoding)
{
    char name[96];
    if (r->field == ROUTE_FIELD_NAMED)
        snprintf(name, sizeof name, "noisetile %s seed %" PRIu32, r->name, r->seed);
    else
        snprintf(name, sizeof name, "noisetile graph seed %" PRIu32, r->seed);
    json_t *nt = head(r, text);
    nt = with(nt, "world_size", json_real(RENDER_WORLD_SIZE));
    nt = with(nt, "tile_size", json_integer(256));
    nt = with(nt, "plane_bounds", json_pack("[f,f,f,f]", 0.0, 0.0, RENDER_WORLD_SIZE, RENDER_WORLD_SIZE));
    nt = with(nt, "clients",
              json_string("the tiles of a Web-Mercator world cover plane [0, 16) x [0, 16); the "
                          "whole plane in Leaflet, OpenLayers and MapLibre: docs/clients/"));
    if (nt == NULL)
        return NULL;
    json_t *doc = json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:[s],s:i,s:i,s:i,s:s,s:[f,f,f,f],s:[f,f,i],s:s,s:o}",
        "tilejson", "3.0.0", "name", name,
        "description", "A field graph of deterministic procedural noise on an infinite plane; "
                       "tile (z,x,y) covers 16/2^z plane units from (x,y)*16/2^z, y downwards.",
        "version", "1.0.0", "scheme", "xyz", "tiles", tiles, "minzoom", 0, "maxzoom", ROUTE_MAX_Z,
        "tileSize", 256, "format", format,
        "bounds", -180.0, -85.05112877980659, 180.0, 85.05112877980659,
        "center", -180.0, 85.05112877980659, 2, "attribution", "noisetile", "noisetile", nt);
    if (doc != NULL && encoding != NULL)
        doc = with(doc, "encoding", json_string(encoding));
    return doc;
}

/* "BASE/graph/S" plus "?g=TEXT" for the query, or "BASE/NAME/S" and "". */
static void prefix_of(const route *r, const char *text, const char *base, char *path,
                      size_t path_size, char *g, size_t g_size)
{
    if (r->field == ROUTE_FIELD_NAMED) {
        snprintf(path, path_size, "%s/%s/%" PRIu32, base, r->name, r->seed);
        g[0] = '\0';
    } else {
        snprintf(path, path_size, "%s/graph/%" PRIu32, base, r->seed);
        snprintf(g, g_size, "g=%s", text);
    }
}

int graphapi_tilejson(const route *r, const char *text, const query_args *q_in,
                      const char *base_url, reply *out, char *err, size_t err_size)
{
    query_args rest;
    long long world = 0;
    int want_period; /* a graph's period lives in its sources: not added */
    int rc0 = api_mercator_args(q_in, &rest, &world, &want_period, err, err_size);
    if (rc0 != 0)
        return rc0;
    const query_args *q = &rest;
    char path[800], g[GRAPHS_TEXT_MAX + 4];
    size_t tiles_size = GRAPHS_TEXT_MAX + QUERY_RENDER_CANONICAL_MAX + 2048;
    char *tiles = malloc(tiles_size);
    if (tiles == NULL)
        return ERR_NOMEM;
    prefix_of(r, text, base_url, path, sizeof path, g, sizeof g);
    if (world > 0) {
        size_t n = strlen(path);
        snprintf(path + n, sizeof path - n, "/mercator/%lld", world);
    }
    const char *encoding = NULL, *format = "png";
    int n;
    if (heightsreq_is_numeric_tile(ROUTE_EXT_PNG, q)) {
        grid_request gr;
        char canon[1024];
        int rc = heightsreq_parse(q, r->kind, r->seed, 0, ROUTE_EXT_PNG, &gr, err, err_size);
        if (rc != 0 || heightsreq_canonical(&gr, 0, canon, sizeof canon) < 0) {
            free(tiles);
            return rc != 0 ? rc : ERR_INTERNAL;
        }
        /* the spec's parameters (a default spec's) are not the graph's: keep
         * what follows them, the encoding and its heights */
        const char *enc = strstr(canon, "&encoding=");
        encoding = heights_format_name(gr.enc.format);
        n = snprintf(tiles, tiles_size, "%s/{z}/{x}/{y}.png?%s%s%s", path, g, g[0] ? "&" : "",
                     enc != NULL ? enc + 1 : "");
    } else {
        query_result qr;
        int rc = query_parse(q, r->kind, r->seed, QUERY_RENDER, &qr, err, err_size);
        if (rc != 0) {
            free(tiles);
            return rc;
        }
        char rend[QUERY_RENDER_CANONICAL_MAX], quality[24] = "";
        if (query_render_canonical(&qr.render, rend, sizeof rend) < 0) {
            free(tiles);
            return ERR_INTERNAL;
        }
        if (qr.given[PARAM_QUALITY]) {
            format = "webp";
            if (!render_webp_lossless(&qr.render))
                snprintf(quality, sizeof quality, "&quality=%d", (int)qr.value[PARAM_QUALITY]);
        }
        n = snprintf(tiles, tiles_size, "%s/{z}/{x}/{y}.%s?%s%s%s%s", path, format, g,
                     g[0] ? "&" : "", rend, quality);
    }
    if (n < 0 || (size_t)n >= tiles_size) {
        free(tiles);
        return ERR_INTERNAL;
    }
    json_t *doc = tilejson_object(r, text, tiles, format, encoding);
    free(tiles);
    if (doc != NULL && world > 0) {
        /* as a kind's (api.c): Web-Mercator tile (Z, X, Y) is plane tile
         * (Z - k, X - 2^(Z-1), Y - 2^(Z-1)), world = 16 * 2^k; a graph has
         * no period, so its world has a seam where it wraps */
        int lg = 0;
        while ((1LL << lg) < world)
            lg++;
        int k = lg - 4;
        json_t *m = json_pack(
            "{s:s,s:I,s:n,s:b,s:s}", "name", "mercator", "scale", (json_int_t)world, "period",
            "seamless", 0, "plane_tile",
            "Web-Mercator tile (Z, X, Y), Z >= 1, is plane tile (Z - log2(scale/16), X - 2^(Z-1), "
            "Y - 2^(Z-1)): the plane's origin at the world's centre, scale plane units across");
        char desc[300];
        snprintf(desc, sizeof desc,
                 "A field graph of deterministic procedural noise on an infinite plane, as a "
                 "Web-Mercator world %lld plane units wide centred on the plane's origin.", world);
        if (m == NULL || json_object_set_new(json_object_get(doc, "noisetile"), "mapping", m) != 0 ||
            json_object_set_new(doc, "minzoom", json_integer(1)) != 0 ||
            json_object_set_new(doc, "maxzoom", json_integer(k < 0 ? ROUTE_MAX_Z + k : ROUTE_MAX_Z)) != 0 ||
            json_object_set_new(doc, "center", json_pack("[f,f,i]", 0.0, 0.0, 2)) != 0 ||
            json_object_set_new(doc, "description", json_string(desc)) != 0) {
            json_decref(doc);
            doc = NULL;
        }
    }
    return api_json_reply(doc, API_CACHE_CONTROL, out);
}

int graphapi_post(const query_args *q, const char *body, size_t body_len, const char *base_url,
                  reply *out, char *err, size_t err_size)
{
    route r;
    memset(&r, 0, sizeof r);
    r.field = ROUTE_FIELD_GRAPH;
    r.kind = NOISE_PERLIN;
    for (size_t i = 0; i < q->n; i++) {
        int64_t v;
        if (strcmp(q->names[i], "seed") != 0) {
            char b[64];
            snprintf(err, err_size, "unknown parameter '%s' (POST /api/graphs takes: seed)",
                     query_shown(q->names[i], 40, b, sizeof b));
            return ERR_BAD_REQUEST;
        }
        if (route_parse_int(q->values[i], strlen(q->values[i]), 0, UINT32_MAX, &v) != 0) {
            char b[64];
            snprintf(err, err_size, "seed must be a decimal integer in 0..4294967295, got '%s'",
                     query_shown(q->values[i], 40, b, sizeof b));
            return ERR_BAD_REQUEST;
        }
        r.seed = (uint32_t)v;
    }
    if (body == NULL || body_len == 0) {
        errors_pointer_message(err, err_size, "",
                               "POST /api/graphs takes the graph's JSON document as its body");
        return ERR_BAD_REQUEST;
    }
    noise_graph *g;
    int rc = graphs_parse_json(body, body_len, &g, err, err_size);
    if (rc != 0)
        return rc;
    /* a graph that cannot be prepared (unrolled beyond the instance limit)
     * is refused now, not at its first tile */
    noise_graph_error e;
    memset(&e, 0, sizeof e);
    noise_graph_field *prepared = noise_graph_prepare(g, r.seed, &e);
    if (prepared == NULL) {
        noise_graph_destroy(g);
        if (e.code == NOISE_GRAPH_ENOMEM || e.code == 0)
            return ERR_NOMEM;
        errors_pointer_message(err, err_size, e.pointer, e.message);
        return ERR_BAD_REQUEST;
    }
    noise_graph_field_destroy(prepared);
    char *text = malloc(GRAPHS_TEXT_MAX), *js = malloc(256 * 1024);
    size_t ts = GRAPHS_TEXT_MAX + 1024;
    char *tiles = malloc(ts), *point = malloc(ts), *grid = malloc(ts);
    json_t *doc = NULL;
    rc = ERR_NOMEM;
    if (text == NULL || js == NULL || tiles == NULL || point == NULL || grid == NULL)
        goto done;
    if (noise_graph_encode(g, text, GRAPHS_TEXT_MAX) < 0) {
        char m[200];
        snprintf(m, sizeof m,
                 "the graph's canonical text is over %d bytes: too long for a URL (name it "
                 "with --graphs FILE instead)", NOISE_GRAPH_MAX_TEXT);
        errors_pointer_message(err, err_size, "", m);
        rc = ERR_BAD_REQUEST;
        goto done;
    }
    if (noise_graph_to_json(g, js, 256 * 1024) < 0)
        goto done;
    json_t *canon_json = json_loads(js, 0, NULL);
    char path[800], gq[GRAPHS_TEXT_MAX + 4];
    prefix_of(&r, text, base_url, path, sizeof path, gq, sizeof gq);
    snprintf(tiles, ts, "%s/{z}/{x}/{y}.png?%s", path, gq);
    snprintf(point, ts, "%s/point?%s&x={x}&y={y}", path, gq);
    snprintf(grid, ts, "%s/grid.npy?%s", path, gq);
    doc = json_pack("{s:s,s:o,s:i,s:i,s:s,s:o,s:s,s:s}", "graph", text, "json", canon_json,
                    "nodes", noise_graph_node_count(g), "depth", noise_graph_depth(g), "tiles",
                    tiles, "tilejson", tilejson_object(&r, text, tiles, "png", NULL), "point",
                    point, "grid", grid);
    rc = api_json_reply(doc, "no-store", out);
done:
    noise_graph_destroy(g);
    free(text);
    free(js);
    free(tiles);
    free(point);
    free(grid);
    return rc;
}
