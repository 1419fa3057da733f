/* api.c: the JSON endpoints: point, points, tile.json, kinds, healthz,
 * openapi. */
#include "service/api.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heights/batch.h"
#include "base/daemon_limits.h"
#include "base/errors.h"
#include "base/failalloc.h"
#include "heights/grid.h"
#include "service/heightsreq.h"
#include "service/openapi.h"
#include "service/params.h"
#include "tiles/render.h"
#include "heights/stats.h"

/* A json_real for a finite double, JSON null for NaN/Inf (which jansson
 * refuses); NULL out of memory. */
json_t *api_real_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *api_real_array(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a != NULL && i < n; i++)
        if (json_array_append_new(a, api_real_or_null(v[i])) != 0) {
            json_decref(a);
            a = NULL;
        }
    return a;
}

/* The canonical field parameters as a JSON object, numbers as numbers. */
static json_t *params_object(const noise_spec *spec)
{
    char text[512];
    if (noise_spec_canonical(spec, text, sizeof text) < 0)
        return NULL;
    size_t n_params;
    const noise_param *params = noise_params(&n_params);
    json_t *obj = json_object();
    if (obj == NULL)
        return NULL;
    char *save = NULL;
    for (char *pair = strtok_r(text, "&", &save); pair != NULL; pair = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(pair, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        const char *name = pair, *value = eq + 1;
        json_t *v = NULL;
        int numeric = 0;
        for (size_t i = 0; i < n_params; i++) {
            if (strcmp(params[i].name, name) != 0)
                continue;
            numeric = params[i].type != NOISE_PARAM_ENUM;
            if (params[i].type == NOISE_PARAM_INTEGER)
                v = json_integer(strtoll(value, NULL, 10));
            else if (params[i].type == NOISE_PARAM_NUMBER)
                v = json_real(strtod(value, NULL));
            break;
        }
        /* A number whose json_t could not be allocated stays NULL (and fails
         * below), it does not become a string. */
        if (!numeric)
            v = json_string(value);
        if (json_object_set_new(obj, name, v) != 0) {
            json_decref(obj);
            return NULL;
        }
    }
    return obj;
}

/* Fills out with doc (which it takes) as a 200 JSON reply. */
int api_json_reply(json_t *doc, const char *cache_control, reply *out)
{
    if (doc == NULL)
        return ERR_NOMEM;
    int rc = reply_json(out, 200, doc, cache_control);
    json_decref(doc);
    return rc;
}

/* Deterministic answers (same request, same bytes for this version). */
#define API_CACHE_CONTROL "public, max-age=86400"

int api_point(const route *r, const query_result *q, reply *out)
{
    double p[2] = {q->x, q->y}, grad[3] = {0, 0, 0};
    int n_grad = 0;
    double v = noise_eval_point(&q->spec, p, 2, grad, &n_grad);
    /* "o" fails the whole pack on a NULL (out of memory) and releases the
     * other values, so a reply is complete or not sent. */
    json_t *doc = json_pack("{s:s,s:I,s:o,s:f,s:f,s:o,s:o}", "kind", noise_kind_name(r->kind),
                            "seed", (json_int_t)r->seed, "params", params_object(&q->spec),
                            "x", q->x, "y", q->y, "value", api_real_or_null(v), "gradient",
                            api_real_array(grad, (size_t)n_grad));
    return api_json_reply(doc, API_CACHE_CONTROL, out);
}

int api_points(const route *r, const query_result *qr, const char *body, size_t body_len,
               reply *out, char *err, size_t err_size)
{
    /* Parsed straight into an array and answered straight from arrays
     * (batch.h): a few large blocks instead of an allocation per number. */
    batch b;
    int rc = batch_parse(body, body_len, LIMIT_MAX_POINTS, &b, err, err_size);
    if (rc != 0)
        return rc;
    if (b.dims == 3 && qr->spec.has_t) {
        batch_free(&b);
        snprintf(err, err_size, "t is given twice: in the query (t=...) and as the third number "
                                "of each point; send [x, y] points with t, or [x, y, t] points "
                                "without it");
        return ERR_BAD_REQUEST;
    }
    if (b.dims == 3 && noise_spec_planar(&qr->spec)) {
        batch_free(&b);
        const char *variant = r->kind == NOISE_CLASSIC                       ? ""
                              : qr->spec.gradients == NOISE_GRADIENTS_ANGLE ? " with gradients=angle"
                                                                           : " with falloff=quartic";
        snprintf(err, err_size, "%s%s is a 2D field (no third coordinate): send [x, y] points, not [x, y, t]",
                 noise_kind_name(r->kind), variant);
        return ERR_BAD_REQUEST;
    }
    size_t n = b.n;
    int g = (b.dims == 3 || qr->spec.has_t) ? 3 : 2;
    double *values = failalloc_malloc((n ? n : 1) * sizeof *values);
    double *grads = failalloc_malloc((n ? n : 1) * 3 * sizeof *grads);
    char *text = NULL;
    size_t len = 0;
    /* the batch on one prepared field (improved noise shuffles its
     * permutations once per request) */
    noise_field *field = noise_field_init(failalloc_malloc(noise_field_size()), &qr->spec);
    if (values == NULL || grads == NULL || field == NULL) {
        rc = ERR_NOMEM;
        goto done;
    }
    if (n > 0)
        noise_field_points(field, n, b.coords, b.dims, values, grads);
    if (batch_answer_json(values, grads, n, g, &text, &len) != 0) {
        rc = ERR_NOMEM;
        goto done;
    }
    reply_owned(out, 200, "application/json", "no-store", text, len);
done:
    free(field);
    free(values);
    free(grads);
    batch_free(&b);
    return rc;
}

json_t *api_stats_counts(const stats_summary *s)
{
    json_t *counts = json_array();
    for (int k = 0; counts != NULL && k < s->n_bins; k++)
        if (json_array_append_new(counts, json_integer((json_int_t)s->hist[k])) != 0) {
            json_decref(counts);
            counts = NULL;
        }
    return counts;
}

int api_stats(const route *r, const query_result *qr, reply *out)
{
    stats_summary *s = failalloc_malloc(sizeof *s);
    if (s == NULL)
        return ERR_NOMEM;
    if (stats_field(&qr->spec, qr->window.x, qr->window.y, qr->window.step, qr->window.width,
                    qr->window.height, qr->bins, NULL, NULL, s) != 0) {
        free(s);
        return ERR_NOMEM;
    }
    json_t *counts = api_stats_counts(s);
    double n = (double)s->count;
    json_t *doc = json_pack(
        "{s:s,s:I,s:o,s:{s:f,s:f,s:f,s:i,s:i},s:I,s:f,s:f,s:f,s:f,s:f,s:I,s:{s:f,s:f,s:o}}",
        "kind", noise_kind_name(r->kind), "seed", (json_int_t)r->seed, "params", params_object(&qr->spec),
        "window", "x", qr->window.x, "y", qr->window.y, "step", qr->window.step, "width", qr->window.width,
        "height", qr->window.height, "count", (json_int_t)s->count, "min", s->min, "max", s->max,
        "mean", s->mean, "sd", s->sd, "share_beyond_half", (double)s->beyond_half / n,
        "peaks", (json_int_t)s->peaks, "histogram", "min", -1.0, "max", 1.0, "counts", counts);
    free(s);
    return api_json_reply(doc, API_CACHE_CONTROL, out);
}

/* TileJSON's own arguments: mapping=mercator and scale=W (the world's
 * width in plane units, a power of two, route.h), taken out of q into
 * *rest (the field's and picture's arguments). *world: 0 without the
 * mapping. *want_period: with it and no period in the query (the caller
 * then tries period=W, which the field may refuse: kind, lattice,
 * frequency; with it the world wraps without a seam). */
int api_mercator_args(const query_args *q, query_args *rest, long long *world, int *want_period, char *err,
                      size_t err_size)
{
    const char *mapping = NULL, *scale = NULL;
    int has_period = 0;
    *rest = (query_args){0};
    *world = 0;
    *want_period = 0;
    for (size_t i = 0; i < q->n; i++) {
        if (strcmp(q->names[i], "mapping") == 0)
            mapping = q->values[i];
        else if (strcmp(q->names[i], "scale") == 0)
            scale = q->values[i];
        else {
            has_period |= strcmp(q->names[i], "period") == 0;
            rest->names[rest->n] = q->names[i];
            rest->values[rest->n++] = q->values[i];
        }
    }
    char shown[40];
    if (mapping != NULL && strcmp(mapping, "mercator") != 0) {
        snprintf(err, err_size, "mapping must be 'mercator' (or absent: the plane's own tiles), got '%s'",
                 query_shown(mapping, 20, shown, sizeof shown));
        return ERR_BAD_REQUEST;
    }
    if (mapping == NULL) {
        if (scale != NULL) {
            snprintf(err, err_size, "scale applies only with mapping=mercator (the world's width in plane units)");
            return ERR_BAD_REQUEST;
        }
        return 0;
    }
    double w = 32.0; /* default: two zoom-0 tiles across, Web-Mercator zoom m+1 is plane zoom m */
    if (scale != NULL && (query_parse_number(scale, &w) != 0 || !(w >= 1 && w <= ROUTE_MERCATOR_MAX_WORLD) ||
                          w != floor(w) || ((long long)w & ((long long)w - 1)) != 0)) {
        snprintf(err, err_size,
                 "scale (the world's width in plane units) must be a power of two in 1..16777216, got '%s'",
                 query_shown(scale, 20, shown, sizeof shown));
        return ERR_BAD_REQUEST;
    }
    *world = (long long)w;
    *want_period = !has_period && rest->n < LIMIT_QUERY_PARAMS;
    return 0;
}

int api_tilejson(const route *r, const query_args *q_in, const char *base_url, reply *out,
                 char *err, size_t err_size)
{
    query_result qr;
    char tiles[QUERY_RENDER_CANONICAL_MAX + 1400], name[96];
    const char *encoding = NULL, *format = "png";
    query_args args, with;
    long long world = 0;
    int want_period = 0;
    int rc0 = api_mercator_args(q_in, &args, &world, &want_period, err, err_size);
    if (rc0 != 0)
        return rc0;
    char period_text[24];
    snprintf(period_text, sizeof period_text, "%lld", world);
    with = args;
    if (want_period) {
        with.names[with.n] = "period";
        with.values[with.n++] = period_text;
    }
    /* with period=W first; if the field refuses it, as asked */
    const query_args *q = want_period ? &with : &args;
    /* the tile path before {z}: the plane's, or the Web-Mercator route's */
    char path[48] = "";
    if (world > 0)
        snprintf(path, sizeof path, "/mercator/%lld", world);
    if (heightsreq_is_numeric_tile(ROUTE_EXT_PNG, q)) {
        /* numeric PNG tiles (raster-dem sources): the template keeps the
         * encoding and its height parameters */
        grid_request g;
        char canon[1024];
        int rc = heightsreq_parse(q, r->kind, r->seed, 0, ROUTE_EXT_PNG, &g, err, err_size);
        if (rc != 0 && q == &with && want_period)
            rc = heightsreq_parse(q = &args, r->kind, r->seed, 0, ROUTE_EXT_PNG, &g, err, err_size);
        if (rc != 0)
            return rc;
        if (heightsreq_canonical(&g, 0, canon, sizeof canon) < 0)
            return ERR_INTERNAL;
        qr.spec = g.spec;
        encoding = heights_format_name(g.enc.format);
        snprintf(tiles, sizeof tiles, "%s/%s/%" PRIu32 "%s/{z}/{x}/{y}.png?%s", base_url,
                 noise_kind_name(r->kind), r->seed, path, canon);
    } else {
        int rc = query_parse(q, r->kind, r->seed, QUERY_RENDER, &qr, err, err_size);
        if (rc != 0 && q == &with && want_period)
            rc = query_parse(q = &args, r->kind, r->seed, QUERY_RENDER, &qr, err, err_size);
        if (rc != 0)
            return rc;
        char field[512], rend[QUERY_RENDER_CANONICAL_MAX], quality[24] = "";
        if (noise_spec_canonical(&qr.spec, field, sizeof field) < 0 ||
            query_render_canonical(&qr.render, rend, sizeof rend) < 0)
            return ERR_INTERNAL;
        /* quality asks for WebP tiles: the template is .webp (with the
         * quality when the tiles are lossy) */
        if (qr.given[PARAM_QUALITY]) {
            format = "webp";
            if (!render_webp_lossless(&qr.render))
                snprintf(quality, sizeof quality, "&quality=%d", (int)qr.value[PARAM_QUALITY]);
        }
        int n = snprintf(tiles, sizeof tiles, "%s/%s/%" PRIu32 "%s/{z}/{x}/{y}.%s?%s&%s%s", base_url,
                         noise_kind_name(r->kind), r->seed, path, format, field, rend, quality);
        if (n < 0 || (size_t)n >= sizeof tiles)
            return ERR_INTERNAL;
    }
    snprintf(name, sizeof name, "noisetile %s seed %" PRIu32, noise_kind_name(r->kind), r->seed);
    /* The plane is infinite and has no geographic meaning. A Web-Mercator
     * client reading this template as it is sees tile (z, x, y) as its own:
     * the tiles cover its whole world (bounds: the world, i.e. plane
     * [0, 16) x [0, 16) at zoom 0), and the plane's origin is the world's
     * top-left corner (-180, 85.05), the centre given here. tileSize: the
     * tiles are 256 px (MapLibre assumes 512 without it). The whole plane
     * in clients: docs/clients/. */
    json_t *doc = json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:[s],s:i,s:i,s:i,s:s,s:[f,f,f,f],s:[f,f,i],s:s,"
        "s:{s:s,s:I,s:o,s:f,s:i,s:[f,f,f,f],s:s}}",
        "tilejson", "3.0.0", "name", name,
        "description", "Deterministic procedural noise on an infinite plane; "
                       "tile (z,x,y) covers 16/2^z plane units from (x,y)*16/2^z, y downwards.",
        "version", "1.0.0", "scheme", "xyz", "tiles", tiles, "minzoom", 0, "maxzoom", ROUTE_MAX_Z,
        "tileSize", 256, "format", format,
        "bounds", -180.0, -85.05112877980659, 180.0, 85.05112877980659,
        "center", -180.0, 85.05112877980659, 2,
        "attribution", "noisetile",
        "noisetile", "kind", noise_kind_name(r->kind), "seed", (json_int_t)r->seed,
        "params", params_object(&qr.spec), "world_size", RENDER_WORLD_SIZE, "tile_size", 256,
        "plane_bounds", 0.0, 0.0, RENDER_WORLD_SIZE, RENDER_WORLD_SIZE,
        "clients", "the tiles of a Web-Mercator world cover plane [0, 16) x [0, 16); the whole "
                   "plane in Leaflet, OpenLayers and MapLibre: docs/clients/ (plane tile (z, x, y) "
                   "= Web-Mercator tile (z + 1, x + 2^z, y + 2^z) puts the origin at the world's "
                   "centre)");
    if (doc != NULL && world > 0) {
        /* Web-Mercator tile (Z, X, Y) is plane tile (Z - k, X - 2^(Z-1),
         * Y - 2^(Z-1)), world = 16 * 2^k (route.h): the origin at the
         * world's centre, zoom 0 not served */
        int lg = 0;
        while ((1LL << lg) < world)
            lg++;
        int k = lg - 4;
        json_t *nt = json_object_get(doc, "noisetile");
        /* the world wraps without a seam when the field repeats across it */
        double per = qr.spec.period;
        int seamless = per > 0 && fmod((double)world, per) == 0.0;
        json_t *m = json_pack(
            "{s:s,s:I,s:o,s:b,s:s}", "name", "mercator", "scale", (json_int_t)world, "period",
            per > 0 ? json_real(per) : json_null(), "seamless", seamless, "plane_tile",
            "Web-Mercator tile (Z, X, Y), Z >= 1, is plane tile (Z - log2(scale/16), X - 2^(Z-1), "
            "Y - 2^(Z-1)): the plane's origin at the world's centre, scale plane units across");
        char desc[300];
        snprintf(desc, sizeof desc,
                 "Deterministic procedural noise on an infinite plane, as a Web-Mercator world %lld "
                 "plane units wide centred on the plane's origin%s.",
                 world, seamless ? ", the field repeating across it (no seam where the world wraps)"
                                 : "");
        if (m == NULL || nt == NULL || json_object_set_new(nt, "mapping", m) != 0 ||
            json_object_set_new(doc, "minzoom", json_integer(1)) != 0 ||
            json_object_set_new(doc, "maxzoom", json_integer(k < 0 ? ROUTE_MAX_Z + k : ROUTE_MAX_Z)) != 0 ||
            json_object_set_new(doc, "center", json_pack("[f,f,i]", 0.0, 0.0, 2)) != 0 ||
            json_object_set_new(doc, "description", json_string(desc)) != 0) {
            json_decref(doc);
            doc = NULL;
        }
    }
    /* MapLibre's raster-dem sources read "encoding" from the TileJSON */
    if (doc != NULL && encoding != NULL &&
        json_object_set_new(doc, "encoding", json_string(encoding)) != 0) {
        json_decref(doc);
        doc = NULL;
    }
    return api_json_reply(doc, API_CACHE_CONTROL, out);
}

/* ---- the documents built once ---- */

/* A number of row r as JSON: an integer for integer rows. */
static json_t *row_number(const param_row *r, double v)
{
    return r->p.type == NOISE_PARAM_INTEGER ? json_integer((json_int_t)v) : json_real(v);
}

/* One row of the parameter table (params.h) as /api/kinds shows it. */
static json_t *param_json(const param_row *r)
{
    const noise_param *p = &r->p;
    json_t *o = json_object(), *kinds = json_array();
    if (o == NULL || kinds == NULL) {
        json_decref(o);
        json_decref(kinds);
        return NULL;
    }
    const char *type = r->flag                          ? "flag"
                       : p->type == NOISE_PARAM_NUMBER  ? "number"
                       : p->type == NOISE_PARAM_INTEGER ? "integer"
                                                        : "enum";
    json_object_set_new(o, "name", json_string(p->name));
    json_object_set_new(o, "type", json_string(type));
    json_object_set_new(o, "description", json_string(p->description ? p->description : ""));
    if (r->flag) {
        json_object_set_new(o, "choices", json_pack("[i,i]", 0, 1));
    } else if (p->type == NOISE_PARAM_ENUM) {
        json_t *c = json_array();
        for (size_t i = 0; p->choices != NULL && p->choices[i] != NULL; i++)
            json_array_append_new(c, json_string(p->choices[i]));
        json_object_set_new(o, "choices", c);
    } else {
        json_object_set_new(o, "minimum", row_number(r, p->min));
        json_object_set_new(o, "maximum", row_number(r, p->max));
        json_object_set_new(o, "exclusiveMinimum", json_boolean(p->min_exclusive));
        json_object_set_new(o, "exclusiveMaximum", json_boolean(p->max_exclusive));
    }
    if (p->type == NOISE_PARAM_ENUM && p->default_choice != NULL)
        json_object_set_new(o, "default", json_string(p->default_choice));
    else if (p->type != NOISE_PARAM_ENUM && !p->optional)
        json_object_set_new(o, "default", row_number(r, p->default_number));
    /* Optional: a request may leave it out (a default applies, or, for t,
     * absent has its own meaning). */
    json_object_set_new(o, "optional", json_boolean(!r->required));
    for (int k = 0; k < NOISE_KIND_COUNT; k++)
        if (noise_param_applies(p, (noise_kind)k))
            json_array_append_new(kinds, json_string(noise_kind_name((noise_kind)k)));
    json_object_set_new(o, "kinds", kinds);
    return o;
}

/* The rows routes take, as a JSON array. */
static json_t *rows_json(unsigned int routes)
{
    json_t *a = json_array();
    size_t n = params_count();
    for (size_t i = 0; a != NULL && i < n; i++) {
        param_row r = params_row(i);
        if ((r.routes & routes) && json_array_append_new(a, param_json(&r)) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *api_tms_document(void)
{
    json_t *matrices = json_array();
    for (int z = 0; matrices != NULL && z <= ROUTE_MAX_Z; z++) {
        double cell = RENDER_WORLD_SIZE / 256.0 / ldexp(1.0, z);
        double origin = -2147483648.0 * RENDER_WORLD_SIZE / ldexp(1.0, z);
        char id[12];
        snprintf(id, sizeof id, "%d", z);
        if (json_array_append_new(
                matrices,
                json_pack("{s:s,s:f,s:f,s:s,s:[f,f],s:i,s:i,s:I,s:I}", "id", id,
                          /* the standard's 0.28 mm pixel, one plane unit a metre */
                          "scaleDenominator", cell / 0.00028, "cellSize", cell, "cornerOfOrigin",
                          "topLeft", "pointOfOrigin", origin, origin, "tileWidth", 256, "tileHeight",
                          256, "matrixWidth", (json_int_t)4294967296LL, "matrixHeight",
                          (json_int_t)4294967296LL)) != 0) {
            json_decref(matrices);
            matrices = NULL;
        }
    }
    if (matrices == NULL)
        return NULL;
    return json_pack(
        "{s:s,s:s,s:s,s:{s:s},s:[s,s],s:o,s:{s:s,s:s}}", "id", "NoisetilePlane", "title",
        "noisetile's infinite plane", "description",
        "The daemon's tiles: tile (z, x, y) covers 16/2^z plane units from (x, y) * 16/2^z, y "
        "downwards, x and y any int32. A tile matrix counts from 0, so TileCol = x + 2147483648 and "
        "TileRow = y + 2147483648; clients with their own grids (OpenLayers, Leaflet) use the "
        "origin (0, 0) and negative tiles directly (docs/clients/).",
        "crs", "wkt",
        "ENGCRS[\"noisetile plane\",EDATUM[\"noisetile\"],CS[Cartesian,2],"
        "AXIS[\"x\",east,ORDER[1],LENGTHUNIT[\"plane unit\",1]],"
        "AXIS[\"y\",south,ORDER[2],LENGTHUNIT[\"plane unit\",1]]]",
        "orderedAxes", "x", "y", "tileMatrices", matrices, "noisetile", "tile_url",
        "/{kind}/{seed}/{z}/{x}/{y}.png with x = TileCol - 2147483648, y = TileRow - 2147483648",
        "tilejson", "/{kind}/{seed}/tile.json");
}

/* One line per kind for the viewer's kind buttons (docs/field.md has the
 * whole definitions). */
static const char *kind_description(noise_kind k)
{
    switch (k) {
    case NOISE_VALUE: return "Value noise: a random height at each lattice point, blended smoothly; soft, blobby hills.";
    case NOISE_PERLIN: return "Perlin gradient noise on the square lattice (as Islands builds it): the classic terrain look.";
    case NOISE_SIMPLEX: return "Simplex noise on a triangular lattice: no square grid artefacts, cheaper in 3D.";
    case NOISE_IMPROVED: return "Ken Perlin's 2002 Improved Noise, bit for bit his Java reference at seed 0; repeats every 256 cells.";
    case NOISE_CELLULAR: return "Worley cellular noise: distances to jittered feature points; cells, cracks and stones.";
    case NOISE_CLASSIC: return "The C perlin(x, y) of Wikipedia's Perlin noise article: 2D, its own hash and gradients.";
    default: return "";
    }
}

json_t *api_kinds_document(void)
{
    json_t *doc = json_object(), *kinds = json_array(), *palettes = json_array();
    if (doc == NULL || kinds == NULL || palettes == NULL)
        goto fail;
    json_object_set_new(doc, "kinds", kinds);
    json_object_set_new(doc, "parameters", rows_json(PARAMS_FIELD));
    json_object_set_new(doc, "palettes", palettes);
    json_t *descriptions = json_object();
    for (int k = 0; k < NOISE_KIND_COUNT; k++) {
        json_array_append_new(kinds, json_string(noise_kind_name((noise_kind)k)));
        json_object_set_new(descriptions, noise_kind_name((noise_kind)k),
                            json_string(kind_description((noise_kind)k)));
    }
    /* kinds stays a list of names; the one-line descriptions beside it */
    json_object_set_new(doc, "kind_descriptions", descriptions);
    const char *const *pal = render_palette_names();
    for (size_t i = 0; pal[i] != NULL; i++)
        json_array_append_new(palettes, json_string(pal[i]));
    json_object_set_new(doc, "render", rows_json(PARAMS_RENDER));
    json_object_set_new(doc, "point", rows_json(PARAMS_POINT));
    json_object_set_new(doc, "window", rows_json(PARAMS_WINDOW));
    json_object_set_new(doc, "stats", rows_json(PARAMS_STATS));
    json_object_set_new(doc, "tiles", json_pack(
        "{s:f,s:i,s:i,s:i,s:i,s:s,s:s}", "world_size", RENDER_WORLD_SIZE, "tile_size", 256,
        "tile_size_2x", 512, "minzoom", ROUTE_MIN_Z, "maxzoom", ROUTE_MAX_Z,
        "url", "/{kind}/{seed}/{z}/{x}/{y}.png", "url_2x", "/{kind}/{seed}/{z}/{x}/{y}@2x.png"));
    json_object_set_new(doc, "npy", rows_json(PARAMS_NPY));
    json_object_set_new(doc, "encoding", rows_json(PARAMS_ENCODING));
    json_object_set_new(doc, "heights", json_pack(
        "{s:[s,s,s],s:s,s:s,s:s,s:{s:s,s:s,s:s,s:s,s:s}}",
        "tile_formats", "png", "npy", "r16",
        "tile_url", "/{kind}/{seed}/{z}/{x}/{y}.{npy,r16} and .png?encoding=",
        "grid_url", "/{kind}/{seed}/grid.{npy,r16,png}",
        "grid_sample", "sample (i, j) is the field at (x + i*step, y + j*step)",
        "mappings",
        "npy", "NumPy 1.0, <f4, C order, shape (height, width); gradient=1: (height, width, 3)",
        "r16", "little-endian uint16 u = floor((v + 1) * 32767.5 + 0.5) clamped to 0..65535",
        "gray16", "16-bit grayscale PNG of the same u",
        "terrarium", "h = R*256 + G + B/256 - 32768 (nearest 1/256 m, clamped)",
        "mapbox", "h = -10000 + (R*65536 + G*256 + B)*0.1 (nearest 0.1 m, clamped)"));
    json_object_set_new(doc, "limits", json_pack(
        "{s:i,s:i,s:i,s:I,s:I,s:I,s:i,s:I,s:f}", "max_points", LIMIT_MAX_POINTS,
        "max_body_bytes", LIMIT_BODY_BYTES, "max_query_params", LIMIT_QUERY_PARAMS,
        "seed_max", (json_int_t)UINT32_MAX, "tile_index_max", (json_int_t)INT32_MAX,
        "window_max_samples", (json_int_t)QUERY_WINDOW_MAX_SAMPLES,
        "grid_max_side", LIMIT_GRID_SIDE, "grid_max_samples", (json_int_t)LIMIT_GRID_SAMPLES,
        "grid_max_step", LIMIT_GRID_STEP));
    return doc;
fail:
    json_decref(doc);
    json_decref(kinds);
    json_decref(palettes);
    return NULL;
}

