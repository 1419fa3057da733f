/* plan.c: what one export covers: field, region, mapping, tile ids in
 * export order, counts, one tile rendered (see plan.h). */
#include "export/plan.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"
#include "base/monotime.h"
#include "export/pmtiles.h"
#include "base/errors.h"
#include "service/graphs.h"
#include "service/heightsreq.h"
#include "service/params.h"
#include "service/query.h"

/* The presets, for an export that names one (a command runs one export:
 * made once, kept until the process ends). */
static graphs *export_graphs(char *err, size_t err_size)
{
    static graphs *g;
    if (g == NULL)
        g = graphs_create(NULL, err, err_size);
    return g;
}

/* A graph field's query: g= taken out (into *g_text; NULL for a name), the
 * kinds' field parameters refused. */
static int graph_args(query_args *args, int named, const char **g_text, char *err, size_t err_size)
{
    size_t kept = 0;
    *g_text = NULL;
    for (size_t i = 0; i < args->n; i++) {
        param_row row;
        if (strcmp(args->names[i], "g") == 0 && !named) {
            *g_text = args->values[i];
            continue;
        }
        if (params_find(args->names[i], PARAMS_FIELD, &row) == 0 && row.id < 0) {
            snprintf(err, err_size,
                     "%s is a parameter of a kind, not of a graph: set it on a source node in g",
                     args->names[i]);
            return -1;
        }
        args->names[kept] = args->names[i];
        args->values[kept] = args->values[i];
        kept++;
    }
    args->n = kept;
    return 0;
}

/* The plain message of err (a graph's error carries its JSON pointer
 * first: errors.h), "at POINTER: MESSAGE". */
static void pointer_plain(char *err, size_t err_size)
{
    char pointer[300], msg[ERRORS_MSG_MAX];
    const char *m = errors_split_pointer(err, pointer, sizeof pointer);
    if (m == err)
        return;
    snprintf(msg, sizeof msg, "%s", m);
    snprintf(err, err_size, "graph at '%s': %s", pointer, msg);
}

int plan_parse_field(const char *text, plan *p, char *err, size_t err_size)
{
    char buf[GRAPHS_TEXT_MAX + 2048];
    if (strlen(text) >= sizeof buf) {
        snprintf(err, err_size, "field too long");
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", text[0] == '/' ? text + 1 : text);
    char *query = strchr(buf, '?');
    if (query != NULL)
        *query++ = '\0';
    char *slash = strchr(buf, '/');
    if (slash == NULL) {
        snprintf(err, err_size, "field must be KIND/SEED[?PARAMS], e.g. 'perlin/7?octaves=5', got '%s'",
                 text);
        return -1;
    }
    *slash = '\0';
    int64_t seed;
    int is_graph = strcmp(buf, "graph") == 0, named = 0;
    graphs *gs = NULL;
    if (!is_graph && noise_kind_from_name(buf, &p->kind) != 0 &&
        route_graph_name_ok(buf, strlen(buf))) {
        char gerr[ERRORS_MSG_MAX];
        gs = export_graphs(gerr, sizeof gerr);
        if (gs == NULL) {
            snprintf(err, err_size, "%s", gerr);
            return -1;
        }
        named = is_graph = graphs_named(gs, buf) != NULL;
    }
    if (is_graph) {
        p->kind = NOISE_PERLIN;
    } else if (noise_kind_from_name(buf, &p->kind) != 0) {
        char known[128];
        size_t used = 0;
        known[0] = '\0';
        for (int k = 0; k < NOISE_KIND_COUNT && used < sizeof known; k++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "",
                                     noise_kind_name((noise_kind)k));
        char names[600] = "";
        if (gs != NULL)
            graphs_names(gs, names, sizeof names);
        snprintf(err, err_size, "unknown kind '%s' (%s%s%s; a graph is graph/SEED?g=...)", buf,
                 known, names[0] ? "; preset graphs: " : "", names);
        return -1;
    }
    if (route_parse_int(slash + 1, strlen(slash + 1), 0, UINT32_MAX, &seed) != 0) {
        snprintf(err, err_size, "seed must be an integer in 0..4294967295, got '%s'", slash + 1);
        return -1;
    }
    p->seed = (uint32_t)seed;
    /* The daemon's own query parsing: '+', percent escapes, the limits. */
    query_args args;
    memset(&args, 0, sizeof args);
    if (query != NULL && query_split(query, &args, err, err_size) != 0)
        return -1;
    p->graph = NULL;
    p->graph_text[0] = '\0';
    char spec_args[1024];
    if (is_graph) {
        const char *g_text;
        if (graph_args(&args, named, &g_text, err, err_size) != 0)
            return -1;
        if (named)
            g_text = graphs_named(gs, buf);
        if (g_text == NULL) {
            snprintf(err, err_size, "a graph field needs g=<canonical text>: graph/SEED?g=...");
            return -1;
        }
        noise_spec spec;
        int is_spec;
        if (graphs_decode(g_text, strlen(g_text), p->graph_text, &is_spec, &spec, err, err_size) != 0) {
            pointer_plain(err, err_size);
            return -1;
        }
        if (is_spec) {
            /* one kind's field: exported as that kind */
            p->kind = spec.kind;
            p->graph_text[0] = '\0';
            query_args extra;
            if (noise_spec_canonical(&spec, spec_args, sizeof spec_args) < 0 ||
                query_split(spec_args, &extra, err, err_size) != 0)
                return -1;
            for (size_t i = 0; i < extra.n; i++)
                if (query_args_add(&args, extra.names[i], strlen(extra.names[i]), extra.values[i],
                                   strlen(extra.values[i])) != 0) {
                    snprintf(err, err_size, "%s", args.msg);
                    return -1;
                }
        } else {
            char gerr[ERRORS_MSG_MAX];
            graphs *prep = gs != NULL ? gs : export_graphs(gerr, sizeof gerr);
            int code;
            p->graph = prep != NULL ? graphs_prepare(prep, p->graph_text, p->seed, 0, 2, NULL, NULL,
                                                     &code, err, err_size)
                                    : NULL;
            if (p->graph == NULL) {
                pointer_plain(err, err_size);
                return -1;
            }
        }
    }
    const char *graph = p->graph != NULL ? p->graph_text : NULL;
    if (heightsreq_is_numeric_tile(p->ext, &args)) {
        /* .npy, .r16, .png?encoding=: the daemon's numeric tiles. */
        p->numeric = 1;
        if (heightsreq_parse(&args, p->kind, p->seed, 0, p->ext, &p->grid, err, err_size) != 0)
            return -1;
        p->grid.gzip = 0;
        p->grid.graph = p->graph;
        p->spec = p->grid.spec;
        if (heightsreq_canonical_field(&p->grid, 0, graph, p->query, sizeof p->query) < 0)
            return -1;
        return 0;
    }
    query_result qr;
    if (query_parse(&args, p->kind, p->seed, QUERY_RENDER, &qr, err, err_size) != 0)
        return -1;
    p->spec = qr.spec;
    p->opts = qr.render;
    char field[GRAPHS_TEXT_MAX + 8], rend[QUERY_RENDER_CANONICAL_MAX];
    if (graph != NULL)
        snprintf(field, sizeof field, "g=%s", graph);
    else if (noise_spec_canonical(&p->spec, field, sizeof field) < 0)
        return -1;
    if (query_render_canonical(&p->opts, rend, sizeof rend) < 0)
        return -1;
    int n = snprintf(p->query, sizeof p->query, "%s&%s", field, rend);
    if (n < 0 || (size_t)n >= sizeof p->query) {
        snprintf(err, err_size, "the field's parameters are too long for an export (a shorter ramp?)");
        return -1;
    }
    return 0;
}

int plan_parse_doubles(const char *s, double *out, int n)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    for (int i = 0; i < n; i++, tok = strtok_r(NULL, ",", &save))
        if (tok == NULL || query_parse_number(tok, &out[i]) != 0)
            return -1;
    return tok == NULL ? 0 : -1;
}

int plan_parse_range(const char *s, int64_t lo, int64_t hi, int64_t *a, int64_t *b)
{
    const char *dash = strchr(s + 1, '-'); /* a leading '-' is a sign */
    if (dash == NULL) {
        if (route_parse_int(s, strlen(s), lo, hi, a) != 0)
            return -1;
        *b = *a;
        return 0;
    }
    if (route_parse_int(s, (size_t)(dash - s), lo, hi, a) != 0 ||
        route_parse_int(dash + 1, strlen(dash + 1), lo, hi, b) != 0 || *b < *a)
        return -1;
    return 0;
}

/* Plane tile range of zoom pz covering the region: [*a, *b] in x (or y). */
static void cover(double lo, double hi, int pz, int64_t *a, int64_t *b)
{
    double n = ldexp(1.0, pz) / RENDER_WORLD_SIZE;
    *a = (int64_t)floor(lo * n);
    *b = (int64_t)ceil(hi * n) - 1;
    if (*b < *a)
        *b = *a;
}

int plan_mapping(plan *p, char *err, size_t err_size)
{
    p->ox = (int64_t)floor(p->x0 / RENDER_WORLD_SIZE);
    p->oy = (int64_t)floor(p->y0 / RENDER_WORLD_SIZE);
    p->k = 0;
    while (RENDER_WORLD_SIZE * ((double)p->ox + ldexp(1.0, p->k)) < p->x1 ||
           RENDER_WORLD_SIZE * ((double)p->oy + ldexp(1.0, p->k)) < p->y1)
        p->k++;
    if (p->zmax + p->k > 30) {
        snprintf(err, err_size,
                 "the region needs archive zoom %d at plane zoom %d (archives go to 30; "
                 "PMTiles readers to 26): export a smaller region or lower zooms",
                 p->zmax + p->k, p->zmax);
        return -1;
    }
    const char *label = p->graph != NULL ? "graph" : noise_kind_name(p->kind);
    snprintf(p->url, sizeof p->url, "/%s/%" PRIu32 "/{z}/{x}/{y}%s.%s?%s", label, p->seed,
             p->scale == 2 ? "@2x" : "", heightsreq_ext_name(p->ext), p->query);
    char b[4][32];
    noise_format_double(p->x0, b[0], sizeof b[0]);
    noise_format_double(p->y0, b[1], sizeof b[1]);
    noise_format_double(p->x1, b[2], sizeof b[2]);
    noise_format_double(p->y1, b[3], sizeof b[3]);
    snprintf(p->identity, sizeof p->identity,
             "noisetile export; %s; bbox %s,%s,%s,%s; plane zoom %d-%d; noise %d; render %d",
             p->url, b[0], b[1], b[2], b[3], p->zmin, p->zmax, NOISE_VERSION, RENDER_VERSION);
    if (p->name[0] == '\0')
        snprintf(p->name, sizeof p->name, "noisetile %s/%" PRIu32, label, p->seed);
    return 0;
}

/* Web Mercator longitude/latitude of archive-world fraction (u, v). */
static double lon_of(double u) { return u * 360.0 - 180.0; }
static double lat_of(double v) { return atan(sinh(M_PI * (1.0 - 2.0 * v))) * 180.0 / M_PI; }

plan_geo_box plan_geo(const plan *p)
{
    double w = RENDER_WORLD_SIZE * ldexp(1.0, p->k);
    double u0 = (p->x0 - RENDER_WORLD_SIZE * (double)p->ox) / w;
    double u1 = (p->x1 - RENDER_WORLD_SIZE * (double)p->ox) / w;
    double v0 = (p->y0 - RENDER_WORLD_SIZE * (double)p->oy) / w;
    double v1 = (p->y1 - RENDER_WORLD_SIZE * (double)p->oy) / w;
    plan_geo_box g = {lon_of(u0), lat_of(v1), lon_of(u1), lat_of(v0), lon_of((u0 + u1) / 2),
             lat_of((v0 + v1) / 2)};
    return g;
}

json_t *plan_json(const plan *p)
{
    plan_geo_box g = plan_geo(p);
    json_t *o = json_object(), *nt = json_object();
    json_object_set_new(o, "tilejson", json_string("3.0.0"));
    json_object_set_new(o, "name", json_string(p->name));
    json_object_set_new(o, "description",
                        json_string("procedural noise tiles rendered by noisetile export"));
    json_object_set_new(o, "attribution", json_string("noisetile"));
    json_object_set_new(o, "version", json_string("1.0.0"));
    json_object_set_new(o, "type", json_string("baselayer"));
    json_object_set_new(o, "format", json_string(heightsreq_ext_name(p->ext)));
    json_object_set_new(o, "tileSize", json_integer(256 * p->scale));
    json_object_set_new(o, "minzoom", json_integer(p->zmin + p->k));
    json_object_set_new(o, "maxzoom", json_integer(p->zmax + p->k));
    json_object_set_new(o, "bounds", json_pack("[ffff]", g.min_lon, g.min_lat, g.max_lon, g.max_lat));
    json_object_set_new(o, "center", json_pack("[ffi]", g.center_lon, g.center_lat, p->zmin + p->k));
    json_object_set_new(nt, "field", json_string(p->url));
    json_object_set_new(nt, "noise_version", json_integer(NOISE_VERSION));
    json_object_set_new(nt, "render_version", json_integer(RENDER_VERSION));
    json_object_set_new(nt, "bbox", json_pack("[ffff]", p->x0, p->y0, p->x1, p->y1));
    json_object_set_new(nt, "plane_zoom", json_pack("[ii]", p->zmin, p->zmax));
    json_object_set_new(nt, "zoom_offset", json_integer(p->k));
    json_object_set_new(nt, "origin_tile", json_pack("[II]", (json_int_t)p->ox, (json_int_t)p->oy));
    json_object_set_new(nt, "mapping",
                        json_string("archive tile (z, x, y) is plane tile (z - zoom_offset, "
                                    "x + origin_tile[0] * 2^(z - zoom_offset), "
                                    "y + origin_tile[1] * 2^(z - zoom_offset)); "
                                    "y grows downward (XYZ)"));
    json_object_set_new(nt, "shard", plan_shard_json(p->shard_k, p->shard_n, p->to - p->from));
    json_object_set_new(o, "noisetile", nt);
    return o;
}

char *plan_json_text(const json_t *o)
{
    char *text = NULL;
    size_t len;
    if (jsonout_dump(o, &text, &len) != 0)
        text = NULL;
    return text;
}

/* ---- the tile list ---- */

uint64_t plan_zoom_count(const plan *p, int pz)
{
    int64_t ax, bx, ay, by;
    cover(p->x0, p->x1, pz, &ax, &bx);
    cover(p->y0, p->y1, pz, &ay, &by);
    return (uint64_t)(bx - ax + 1) * (uint64_t)(by - ay + 1);
}

uint64_t plan_count(const plan *p)
{
    uint64_t n = 0;
    for (int z = p->zmin; z <= p->zmax; z++)
        n += plan_zoom_count(p, z);
    return n;
}

/* ---- the order, streamed ----
 *
 * Within an archive zoom the order is the Hilbert curve, the tile id's
 * order. Every aligned square of 2^L x 2^L tiles is one stretch of the
 * curve, so the tiles of the zoom's rectangle come in order from a descent
 * of the quadtree that visits a square's four quarters in the order of
 * their ids and skips those outside the rectangle; a start position is
 * reached by skipping whole quarters by their count of rectangle tiles. */

/* Tiles of the rectangle in the square of side 2^level at (bx, by). */
static uint64_t overlap(const plan_iter *it, uint32_t bx, uint32_t by, int level)
{
    uint64_t side = (uint64_t)1 << level;
    uint64_t x0 = bx > it->rx0 ? bx : it->rx0, y0 = by > it->ry0 ? by : it->ry0;
    uint64_t x1 = bx + side - 1 < it->rx1 ? bx + side - 1 : it->rx1;
    uint64_t y1 = by + side - 1 < it->ry1 ? by + side - 1 : it->ry1;
    return x0 <= x1 && y0 <= y1 ? (x1 - x0 + 1) * (y1 - y0 + 1) : 0;
}

static void push(plan_iter *it, uint32_t bx, uint32_t by, int level)
{
    plan_iter_frame *f = &it->stack[++it->depth];
    f->bx = bx;
    f->by = by;
    f->level = level;
    f->next = 0;
    if (level == 0)
        return;
    /* The quarters in the order of their ids (any tile of a quarter
     * stands for it). */
    uint32_t h = (uint32_t)1 << (level - 1);
    uint64_t key[4];
    for (int c = 0; c < 4; c++) {
        key[c] = pmtiles_tile_id(it->az, bx + (c & 1) * h, by + (c >> 1) * h);
        f->order[c] = (unsigned char)c;
    }
    for (int a = 1; a < 4; a++)
        for (int b = a; b > 0 && key[f->order[b - 1]] > key[f->order[b]]; b--) {
            unsigned char t = f->order[b];
            f->order[b] = f->order[b - 1];
            f->order[b - 1] = t;
        }
}

/* Starts plane zoom pz, skip tiles into it. */
static void start_zoom(plan_iter *it, int pz, uint64_t skip)
{
    const plan *p = it->p;
    int64_t ax, bx, ay, by;
    cover(p->x0, p->x1, pz, &ax, &bx);
    cover(p->y0, p->y1, pz, &ay, &by);
    int64_t offx = p->ox * ((int64_t)1 << pz), offy = p->oy * ((int64_t)1 << pz);
    it->pz = pz;
    it->az = pz + p->k;
    it->rx0 = (uint32_t)(ax - offx);
    it->rx1 = (uint32_t)(bx - offx);
    it->ry0 = (uint32_t)(ay - offy);
    it->ry1 = (uint32_t)(by - offy);
    it->skip = skip;
    it->depth = -1;
    push(it, 0, 0, it->az);
}

void plan_iter_start(plan_iter *it, const plan *p, uint64_t pos, uint64_t end)
{
    memset(it, 0, sizeof *it);
    it->p = p;
    it->pos = pos;
    it->end = end;
    uint64_t at = 0;
    int pz = p->zmin;
    for (; pz < p->zmax && at + plan_zoom_count(p, pz) <= pos; pz++)
        at += plan_zoom_count(p, pz);
    start_zoom(it, pz, pos - at);
}

int plan_iter_next(plan_iter *it, uint64_t *id)
{
    if (it->pos >= it->end)
        return 0;
    for (;;) {
        if (it->depth < 0) { /* this zoom is done: the next one */
            if (it->pz >= it->p->zmax)
                return 0;
            start_zoom(it, it->pz + 1, 0);
        }
        plan_iter_frame *f = &it->stack[it->depth];
        if (f->level == 0) {
            *id = pmtiles_tile_id(it->az, f->bx, f->by);
            it->depth--;
            it->pos++;
            return 1;
        }
        if (f->next == 4) {
            it->depth--;
            continue;
        }
        int c = f->order[f->next++];
        uint32_t h = (uint32_t)1 << (f->level - 1);
        uint32_t cx = f->bx + (c & 1) * h, cy = f->by + (c >> 1) * h;
        uint64_t n = overlap(it, cx, cy, f->level - 1);
        if (n == 0)
            continue;
        if (it->skip >= n) {
            it->skip -= n;
            continue;
        }
        push(it, cx, cy, f->level - 1);
    }
}

/* Plane tile of archive tile id. */
static void plane_tile(const plan *p, uint64_t id, int *pz, int64_t *px, int64_t *py)
{
    int az;
    uint32_t ax, ay;
    pmtiles_tile_zxy(id, &az, &ax, &ay);
    *pz = az - p->k;
    *px = (int64_t)ax + p->ox * ((int64_t)1 << *pz);
    *py = (int64_t)ay + p->oy * ((int64_t)1 << *pz);
}

static int render_plane(const plan *p, int pz, int64_t px, int64_t py, unsigned char **png,
                        size_t *size)
{
    if (p->numeric) {
        /* The window of the tile's pixel centres, as the daemon answers it. */
        grid_request g = p->grid;
        int n = 256 * p->scale;
        render_pixel_center(pz, px, py, n, 0, 0, &g.x, &g.y);
        g.step = ldexp(RENDER_WORLD_SIZE, -pz) / n;
        g.width = g.height = n;
        return grid_render(&g, png, size) == 0 ? 0 : RENDER_ENOMEM;
    }
    return render_tile_src(&p->spec, p->graph, pz, px, py, 256 * p->scale, &p->opts, RENDER_PNG, 0,
                           png, size);
}

int plan_render_tile(const plan *p, uint64_t id, unsigned char **png, size_t *size)
{
    int pz;
    int64_t px, py;
    plane_tile(p, id, &pz, &px, &py);
    return render_plane(p, pz, px, py, png, size);
}

void plan_set_shard(plan *p, int64_t k, int64_t n)
{
    uint64_t total = plan_count(p);
    p->shard_k = k;
    p->shard_n = n;
    p->from = (uint64_t)((__uint128_t)total * (uint64_t)k / (uint64_t)n);
    p->to = (uint64_t)((__uint128_t)total * (uint64_t)(k + 1) / (uint64_t)n);
}

json_t *plan_shard_json(int64_t k, int64_t n, uint64_t tiles)
{
    return json_pack("{sIsIsI}", "index", (json_int_t)k, "count", (json_int_t)n, "tiles",
                     (json_int_t)tiles);
}

void plan_shard_text(int64_t k, int64_t n, uint64_t tiles, char *buf, size_t size)
{
    snprintf(buf, size, "{\"index\":%" PRId64 ",\"count\":%" PRId64 ",\"tiles\":%" PRIu64 "}", k,
             n, tiles);
}

/* The plane tile at position pos of the order, its zoom exact, its place
 * in the zoom's rectangle row by row (not the Hilbert order: an estimate
 * needs tiles of the right zooms spread over the region, not the exact
 * ones). */
static void sample_tile(const plan *p, uint64_t pos, int *pz, int64_t *px, int64_t *py)
{
    uint64_t at = 0;
    for (int z = p->zmin; z <= p->zmax; z++) {
        uint64_t c = plan_zoom_count(p, z);
        if (pos < at + c || z == p->zmax) {
            int64_t ax, bx, ay, by;
            cover(p->x0, p->x1, z, &ax, &bx);
            cover(p->y0, p->y1, z, &ay, &by);
            uint64_t w = (uint64_t)(bx - ax + 1), j = pos - at < c ? pos - at : c - 1;
            *pz = z;
            *px = ax + (int64_t)(j % w);
            *py = ay + (int64_t)(j / w);
            return;
        }
        at += c;
    }
}

void plan_estimate_size(const plan *p, plan_estimate *e)
{
    uint64_t n = p->to - p->from;
    int samples = n < 16 ? (int)n : 16;
    double bytes = 0, t0 = monotime_s();
    for (int s = 0; s < samples; s++) {
        int pz = p->zmin;
        int64_t px = 0, py = 0;
        sample_tile(p, p->from + (uint64_t)((__uint128_t)s * n / (uint64_t)samples), &pz, &px, &py);
        unsigned char *png = NULL;
        size_t size = 0;
        if (render_plane(p, pz, px, py, &png, &size) == 0)
            bytes += (double)size;
        free(png);
    }
    e->samples = samples;
    e->bytes_per_tile = samples ? bytes / samples : 0;
    e->seconds_per_tile = samples ? (monotime_s() - t0) / samples : 0;
}
