/* plan.c: what one export covers: field, region, mapping, tile ids in
 * export order, counts, one tile rendered (see plan.h). */
#include "export/plan.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"
#include "export/pmtiles.h"
#include "service/heightsreq.h"
#include "service/query.h"

int plan_parse_field(const char *text, plan *p, char *err, size_t err_size)
{
    char buf[2048];
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
    if (noise_kind_from_name(buf, &p->kind) != 0) {
        char known[128];
        size_t used = 0;
        known[0] = '\0';
        for (int k = 0; k < NOISE_KIND_COUNT && used < sizeof known; k++)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", k ? ", " : "",
                                     noise_kind_name((noise_kind)k));
        snprintf(err, err_size, "unknown kind '%s' (%s)", buf, known);
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
    if (heightsreq_is_numeric_tile(p->ext, &args)) {
        /* .npy, .r16, .png?encoding=: the daemon's numeric tiles. */
        p->numeric = 1;
        if (heightsreq_parse(&args, p->kind, p->seed, 0, p->ext, &p->grid, err, err_size) != 0)
            return -1;
        p->grid.gzip = 0;
        p->spec = p->grid.spec;
        if (heightsreq_canonical(&p->grid, 0, p->query, sizeof p->query) < 0)
            return -1;
        return 0;
    }
    query_result qr;
    if (query_parse(&args, p->kind, p->seed, QUERY_RENDER, &qr, err, err_size) != 0)
        return -1;
    p->spec = qr.spec;
    p->opts = qr.render;
    char field[512], rend[128];
    if (noise_spec_canonical(&p->spec, field, sizeof field) < 0 ||
        query_render_canonical(&p->opts, rend, sizeof rend) < 0)
        return -1;
    snprintf(p->query, sizeof p->query, "%s&%s", field, rend);
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
    snprintf(p->url, sizeof p->url, "/%s/%" PRIu32 "/{z}/{x}/{y}%s.%s?%s",
             noise_kind_name(p->kind), p->seed, p->scale == 2 ? "@2x" : "",
             heightsreq_ext_name(p->ext), p->query);
    char b[4][32];
    noise_format_double(p->x0, b[0], sizeof b[0]);
    noise_format_double(p->y0, b[1], sizeof b[1]);
    noise_format_double(p->x1, b[2], sizeof b[2]);
    noise_format_double(p->y1, b[3], sizeof b[3]);
    snprintf(p->identity, sizeof p->identity,
             "noisetile export; %s; bbox %s,%s,%s,%s; plane zoom %d-%d; noise %d; render %d",
             p->url, b[0], b[1], b[2], b[3], p->zmin, p->zmax, NOISE_VERSION, RENDER_VERSION);
    if (p->name[0] == '\0')
        snprintf(p->name, sizeof p->name, "noisetile %s/%" PRIu32, noise_kind_name(p->kind),
                 p->seed);
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

int plan_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

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

int64_t plan_ids(const plan *p, uint64_t from, uint64_t to, uint64_t **out, char *err,
                 size_t err_size)
{
    uint64_t *ids = malloc((to - from ? to - from : 1) * sizeof *ids), at = 0, n = 0;
    if (ids == NULL) {
        snprintf(err, err_size, "out of memory for %" PRIu64 " tile ids", to - from);
        return -1;
    }
    for (int pz = p->zmin; pz <= p->zmax && at < to; pz++) {
        uint64_t c = plan_zoom_count(p, pz);
        if (at + c <= from) {
            at += c;
            continue;
        }
        if (c > PLAN_MAX_TILES) {
            snprintf(err, err_size, "plane zoom %d has %" PRIu64 " tiles, over one run's %" PRIu64
                     ": split it with --shard", pz, c, PLAN_MAX_TILES);
            free(ids);
            return -1;
        }
        uint64_t *z = malloc(c * sizeof *z), m = 0;
        if (z == NULL) {
            snprintf(err, err_size, "out of memory");
            free(ids);
            return -1;
        }
        int64_t ax, bx, ay, by;
        cover(p->x0, p->x1, pz, &ax, &bx);
        cover(p->y0, p->y1, pz, &ay, &by);
        int az = pz + p->k;
        int64_t offx = p->ox * ((int64_t)1 << pz), offy = p->oy * ((int64_t)1 << pz);
        for (int64_t y = ay; y <= by; y++)
            for (int64_t x = ax; x <= bx; x++)
                z[m++] = pmtiles_tile_id(az, (uint32_t)(x - offx), (uint32_t)(y - offy));
        qsort(z, m, sizeof *z, plan_cmp_u64);
        for (uint64_t i = 0; i < m; i++, at++)
            if (at >= from && at < to)
                ids[n++] = z[i];
        free(z);
    }
    *out = ids;
    return (int64_t)n;
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

int plan_render_tile(const plan *p, uint64_t id, unsigned char **png, size_t *size)
{
    int pz;
    int64_t px, py;
    plane_tile(p, id, &pz, &px, &py);
    if (p->numeric) {
        /* The window of the tile's pixel centres, as the daemon answers it. */
        grid_request g = p->grid;
        int n = 256 * p->scale;
        render_pixel_center(pz, px, py, n, 0, 0, &g.x, &g.y);
        g.step = ldexp(RENDER_WORLD_SIZE, -pz) / n;
        g.width = g.height = n;
        return grid_render(&g, png, size) == 0 ? 0 : RENDER_ENOMEM;
    }
    return render_tile_png(&p->spec, pz, px, py, 256 * p->scale, &p->opts, png, size);
}
