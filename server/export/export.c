/* export.c: `noisetile export` and `noisetile merge` (see export.h).
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
#include "export/export.h"

/* Messages naming long paths are cut to the caller's buffer on purpose.
 * (GCC only: clang, which builds the fuzz targets, has no such warning.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "heights/grid.h"
#include "service/heightsreq.h"
#include "base/jsonout.h"
#include "base/monotime.h"
#include "export/mbtiles.h"
#include "export/pmtiles.h"
#include "export/progress.h"
#include "service/query.h"
#include "tiles/render.h"
#include "service/route.h"

#define MAX_TILES ((uint64_t)1 << 28) /* per zoom level of one run: 2 GiB of ids */
#define MBTILES_BATCH 1000            /* tiles per transaction */
#define SPOOL_MAGIC "noisetile-spool 1\n"

typedef enum { FMT_NONE = 0, FMT_MBTILES, FMT_PMTILES, FMT_DIR } out_format;

static const char *format_name(out_format f)
{
    return f == FMT_MBTILES ? "mbtiles" : f == FMT_PMTILES ? "pmtiles" : "dir";
}

/* ---- the plan: field, region, mapping ---- */

typedef struct {
    noise_kind kind;
    uint32_t seed;
    noise_spec spec;
    render_opts opts;
    int scale;
    route_ext ext;       /* tile files: .png, .npy, .r16 */
    int numeric;         /* 1: the numbers (heightsreq.h), not a picture */
    grid_request grid;   /* numeric: the encoding; the window is per tile */
    char query[1024];    /* canonical field and render parameters */
    char url[1200];      /* "/perlin/7/{z}/{x}/{y}.png?..." */
    double x0, y0, x1, y1;
    int zmin, zmax;      /* plane zooms */
    int k;               /* archive zoom = plane zoom + k */
    int64_t ox, oy;      /* zoom-0 plane tile at archive (0, 0) */
    char identity[1600]; /* what must match to resume */
    char name[256];
} plan;

static int parse_field(const char *text, plan *p, char *err, size_t err_size)
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

static int parse_doubles(const char *s, double *out, int n)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    for (int i = 0; i < n; i++, tok = strtok_r(NULL, ",", &save))
        if (tok == NULL || query_parse_number(tok, &out[i]) != 0)
            return -1;
    return tok == NULL ? 0 : -1;
}

static int parse_range(const char *s, int64_t lo, int64_t hi, int64_t *a, int64_t *b)
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

static int plan_mapping(plan *p, char *err, size_t err_size)
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

typedef struct {
    double min_lon, min_lat, max_lon, max_lat, center_lon, center_lat;
} geo;

static geo plan_geo(const plan *p)
{
    double w = RENDER_WORLD_SIZE * ldexp(1.0, p->k);
    double u0 = (p->x0 - RENDER_WORLD_SIZE * (double)p->ox) / w;
    double u1 = (p->x1 - RENDER_WORLD_SIZE * (double)p->ox) / w;
    double v0 = (p->y0 - RENDER_WORLD_SIZE * (double)p->oy) / w;
    double v1 = (p->y1 - RENDER_WORLD_SIZE * (double)p->oy) / w;
    geo g = {lon_of(u0), lat_of(v1), lon_of(u1), lat_of(v0), lon_of((u0 + u1) / 2),
             lat_of((v0 + v1) / 2)};
    return g;
}

/* The metadata every format carries, as a JSON object (TileJSON names). */
static json_t *plan_json(const plan *p)
{
    geo g = plan_geo(p);
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

static char *json_text(json_t *o)
{
    char *text = NULL;
    size_t len;
    if (jsonout_dump(o, &text, &len) != 0)
        text = NULL;
    return text;
}

/* ---- the tile list ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t zoom_count(const plan *p, int pz)
{
    int64_t ax, bx, ay, by;
    cover(p->x0, p->x1, pz, &ax, &bx);
    cover(p->y0, p->y1, pz, &ay, &by);
    return (uint64_t)(bx - ax + 1) * (uint64_t)(by - ay + 1);
}

static uint64_t plan_count(const plan *p)
{
    uint64_t n = 0;
    for (int z = p->zmin; z <= p->zmax; z++)
        n += zoom_count(p, z);
    return n;
}

/* The archive tile ids of positions [from, to) of the export's order, in
 * order, into a malloc()ed *out. Returns the count, or -1 with err. */
static int64_t plan_ids(const plan *p, uint64_t from, uint64_t to, uint64_t **out, char *err,
                        size_t err_size)
{
    uint64_t *ids = malloc((to - from ? to - from : 1) * sizeof *ids), at = 0, n = 0;
    if (ids == NULL) {
        snprintf(err, err_size, "out of memory for %" PRIu64 " tile ids", to - from);
        return -1;
    }
    for (int pz = p->zmin; pz <= p->zmax && at < to; pz++) {
        uint64_t c = zoom_count(p, pz);
        if (at + c <= from) {
            at += c;
            continue;
        }
        if (c > MAX_TILES) {
            snprintf(err, err_size, "plane zoom %d has %" PRIu64 " tiles, over one run's %" PRIu64
                     ": split it with --shard", pz, c, MAX_TILES);
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
        qsort(z, m, sizeof *z, cmp_u64);
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

static int render_id(const plan *p, uint64_t id, unsigned char **png, size_t *size)
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

/* ---- signals ---- */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

/* ---- outputs ---- */

typedef struct {
    out_format format;
    const char *path;
    const plan *p;
    mbtiles *mb;
    FILE *spool;
    char spool_path[4200];
    char last_dir[4300]; /* directory export: the column made last */
    unsigned batch;
    uint64_t bytes;
} sink;

static int mkdirs(char *path)
{
    for (char *s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        int rc = mkdir(path, 0755);
        *s = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

static int write_file(const char *path, const void *data, size_t size)
{
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (f == NULL)
        return -1;
    int ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

static void dir_tile_path(const char *root, const plan *p, uint64_t id, char *buf, size_t n)
{
    int z;
    uint32_t x, y;
    pmtiles_tile_zxy(id, &z, &x, &y);
    snprintf(buf, n, "%s/%d/%" PRIu32 "/%" PRIu32 ".%s", root, z, x, y, heightsreq_ext_name(p->ext));
}

static const char *const mb_meta_names[] = {"name", "format", "minzoom", "maxzoom", "bounds",
                                            "center", "type", "description", "version",
                                            "attribution", "noisetile_field", "noisetile_origin",
                                            "noisetile_export", NULL};

/* A number in plain decimal, shortest that reads back the same ("-180",
 * "85.051128779806589"): MBTiles readers parse bounds with strtod-likes. */
static void plain_number(double v, char *buf, size_t n)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* The MBTiles metadata rows of a plan, in mb_meta_names order. */
static int mb_meta_values(const plan *p, char values[][1700])
{
    geo g = plan_geo(p);
    json_t *o = plan_json(p), *nt = json_object_get(o, "noisetile");
    json_t *origin = json_deep_copy(nt);
    json_object_del(origin, "field");
    char *origin_text = json_text(origin);
    json_decref(origin);
    char b[6][32];
    plain_number(g.min_lon, b[0], 32);
    plain_number(g.min_lat, b[1], 32);
    plain_number(g.max_lon, b[2], 32);
    plain_number(g.max_lat, b[3], 32);
    plain_number(g.center_lon, b[4], 32);
    plain_number(g.center_lat, b[5], 32);
    snprintf(values[0], 1700, "%s", p->name);
    snprintf(values[1], 1700, "png");
    snprintf(values[2], 1700, "%d", p->zmin + p->k);
    snprintf(values[3], 1700, "%d", p->zmax + p->k);
    snprintf(values[4], 1700, "%s,%s,%s,%s", b[0], b[1], b[2], b[3]);
    snprintf(values[5], 1700, "%s,%s,%d", b[4], b[5], p->zmin + p->k);
    snprintf(values[6], 1700, "baselayer");
    snprintf(values[7], 1700, "%s", json_string_value(json_object_get(o, "description")));
    snprintf(values[8], 1700, "1.0.0");
    snprintf(values[9], 1700, "noisetile");
    snprintf(values[10], 1700, "%s", p->url);
    snprintf(values[11], 1700, "%s", origin_text ? origin_text : "{}");
    snprintf(values[12], 1700, "%s", p->identity);
    free(origin_text);
    json_decref(o);
    return 0;
}

/* Writes the metadata rows in one transaction (the same way in export and
 * merge, so their files come out the same). */
static int mb_write_meta(mbtiles *mb, char values[][1700])
{
    char err[256];
    if (mbtiles_begin(mb, err, sizeof err) != 0)
        return -1;
    for (int i = 0; mb_meta_names[i]; i++)
        if (mbtiles_set_meta(mb, mb_meta_names[i], values[i]) != 0)
            return -1;
    return mbtiles_commit(mb, err, sizeof err);
}

/* Opens the output; for a resumable output also finds what is done and
 * removes it from ids (keeping order). *done receives how many. */
static int sink_open(sink *s, const char *shard_tag, uint64_t *ids, int64_t *n_ids,
                     uint64_t *done, char *err, size_t err_size)
{
    *done = 0;
    if (s->format == FMT_DIR) {
        char path[4200];
        snprintf(path, sizeof path, "%s", s->path);
        if (mkdirs(path) != 0) {
            snprintf(err, err_size, "%s: %s", s->path, strerror(errno));
            return -1;
        }
        char meta_path[4200];
        snprintf(meta_path, sizeof meta_path, "%s/metadata.json", s->path);
        json_t *o = plan_json(s->p);
        /* TileJSON's tiles: relative to metadata.json. */
        char tiles[32];
        snprintf(tiles, sizeof tiles, "{z}/{x}/{y}.%s", heightsreq_ext_name(s->p->ext));
        json_object_set_new(o, "tiles", json_pack("[s]", tiles));
        char *text = json_text(o);
        json_decref(o);
        json_t *old = json_load_file(meta_path, 0, NULL);
        if (old != NULL) {
            json_t *now = json_loads(text, 0, NULL);
            int same = json_equal(old, now);
            json_decref(now);
            json_decref(old);
            if (!same) {
                free(text);
                snprintf(err, err_size,
                         "%s holds another export (its metadata.json differs); remove it or "
                         "choose another directory", s->path);
                return -1;
            }
        }
        int rc = text ? write_file(meta_path, text, strlen(text)) : -1;
        free(text);
        if (rc != 0) {
            snprintf(err, err_size, "%s: %s", meta_path, strerror(errno));
            return -1;
        }
        int64_t keep = 0;
        for (int64_t i = 0; i < *n_ids; i++) {
            char tp[4300];
            dir_tile_path(s->path, s->p, ids[i], tp, sizeof tp);
            if (access(tp, F_OK) == 0)
                (*done)++;
            else
                ids[keep++] = ids[i];
        }
        *n_ids = keep;
        return 0;
    }
    if (s->format == FMT_MBTILES) {
        int existed = access(s->path, F_OK) == 0;
        s->mb = mbtiles_open(s->path, 1, err, err_size);
        if (s->mb == NULL)
            return -1;
        char old[1700];
        if (existed) {
            int rc = mbtiles_get_meta(s->mb, "noisetile_export", old, sizeof old);
            if (rc != 0 || strcmp(old, s->p->identity) != 0) {
                snprintf(err, err_size,
                         "%s exists and holds %s; remove it or choose another name", s->path,
                         rc == 0 ? "another export" : "no noisetile export");
                return -1;
            }
        } else {
            char values[16][1700];
            mb_meta_values(s->p, values);
            if (mb_write_meta(s->mb, values) != 0) {
                snprintf(err, err_size, "%s: cannot write metadata", s->path);
                return -1;
            }
        }
        int64_t keep = 0;
        for (int64_t i = 0; i < *n_ids; i++) {
            int z;
            uint32_t x, y;
            pmtiles_tile_zxy(ids[i], &z, &x, &y);
            int has = existed ? mbtiles_has(s->mb, z, x, y) : 0;
            if (has < 0) {
                snprintf(err, err_size, "%s: read error", s->path);
                return -1;
            }
            if (has)
                (*done)++;
            else
                ids[keep++] = ids[i];
        }
        *n_ids = keep;
        return 0;
    }
    /* PMTiles: tiles go to a spool file first; the archive is written from
     * it at the end. A spool left by an interrupted run is resumed. */
    snprintf(s->spool_path, sizeof s->spool_path, "%s.part", s->path);
    char head[2048];
    snprintf(head, sizeof head, "%s%s%s\n", SPOOL_MAGIC, s->p->identity, shard_tag);
    s->spool = fopen(s->spool_path, "r+b");
    if (s->spool == NULL) {
        s->spool = fopen(s->spool_path, "w+b");
        if (s->spool == NULL || fwrite(head, 1, strlen(head), s->spool) != strlen(head) ||
            fflush(s->spool) != 0) {
            snprintf(err, err_size, "%s: %s", s->spool_path, strerror(errno));
            return -1;
        }
        return 0;
    }
    char old[2048];
    size_t hl = strlen(head);
    if (fread(old, 1, hl, s->spool) != hl || memcmp(old, head, hl) != 0) {
        snprintf(err, err_size,
                 "%s holds the partial work of another export; remove it to start this one",
                 s->spool_path);
        return -1;
    }
    /* Records: id (8 bytes LE), length (4 bytes LE), bytes. A record cut
     * short by a kill is dropped. */
    uint64_t *have = NULL;
    size_t n_have = 0, cap_have = 0;
    off_t good = (off_t)hl;
    unsigned char rec[12];
    while (fread(rec, 1, 12, s->spool) == 12) {
        uint64_t id = 0;
        uint32_t len = 0;
        for (int i = 7; i >= 0; i--)
            id = id << 8 | rec[i];
        for (int i = 11; i >= 8; i--)
            len = len << 8 | rec[i];
        if (len == 0 || fseeko(s->spool, (off_t)len, SEEK_CUR) != 0)
            break;
        off_t end = ftello(s->spool);
        struct stat st;
        if (fstat(fileno(s->spool), &st) != 0 || end > st.st_size)
            break;
        if (n_have == cap_have) {
            cap_have = cap_have ? cap_have * 2 : 1024;
            uint64_t *h = realloc(have, cap_have * sizeof *h);
            if (h == NULL) {
                free(have);
                snprintf(err, err_size, "out of memory");
                return -1;
            }
            have = h;
        }
        have[n_have++] = id;
        good = end;
        s->bytes += len;
    }
    if (ftruncate(fileno(s->spool), good) != 0 || fseeko(s->spool, good, SEEK_SET) != 0) {
        free(have);
        snprintf(err, err_size, "%s: %s", s->spool_path, strerror(errno));
        return -1;
    }
    qsort(have, n_have, sizeof *have, cmp_u64);
    int64_t keep = 0;
    for (int64_t i = 0; i < *n_ids; i++) {
        if (n_have && bsearch(&ids[i], have, n_have, sizeof *have, cmp_u64))
            (*done)++;
        else
            ids[keep++] = ids[i];
    }
    *n_ids = keep;
    free(have);
    return 0;
}

static int sink_put(sink *s, uint64_t id, const unsigned char *png, size_t size, char *err,
                    size_t err_size)
{
    s->bytes += size;
    if (s->format == FMT_DIR) {
        char tp[4300];
        dir_tile_path(s->path, s->p, id, tp, sizeof tp);
        char *slash = strrchr(tp, '/');
        *slash = '\0';
        int rc = 0;
        if (strcmp(tp, s->last_dir) != 0) { /* Hilbert order: neighbours often share a column */
            rc = mkdirs(tp);
            snprintf(s->last_dir, sizeof s->last_dir, "%s", rc == 0 ? tp : "");
        }
        *slash = '/';
        if (rc != 0 || write_file(tp, png, size) != 0) {
            snprintf(err, err_size, "%s: %s", tp, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (s->format == FMT_MBTILES) {
        int z;
        uint32_t x, y;
        pmtiles_tile_zxy(id, &z, &x, &y);
        if (mbtiles_put(s->mb, z, x, y, png, size, err, err_size) < 0)
            return -1;
        if (++s->batch == MBTILES_BATCH) {
            s->batch = 0;
            return mbtiles_commit(s->mb, err, err_size);
        }
        return 0;
    }
    unsigned char rec[12];
    for (int i = 0; i < 8; i++)
        rec[i] = (unsigned char)(id >> (8 * i));
    for (int i = 0; i < 4; i++)
        rec[8 + i] = (unsigned char)((uint32_t)size >> (8 * i));
    if (fwrite(rec, 1, 12, s->spool) != 12 || fwrite(png, 1, size, s->spool) != size) {
        snprintf(err, err_size, "%s: %s", s->spool_path, strerror(errno));
        return -1;
    }
    if (++s->batch == MBTILES_BATCH) {
        s->batch = 0;
        fflush(s->spool);
    }
    return 0;
}

/* ---- PMTiles from tiles somewhere: the spool, or shard archives ---- */

typedef struct {
    FILE **files;
} pm_src;

static int pm_read(void *ctx, const pmtiles_tile *t, unsigned char *buf)
{
    pm_src *src = ctx;
    FILE *f = src->files[t->src];
    return fseeko(f, (off_t)t->src_offset, SEEK_SET) == 0 && fread(buf, 1, t->length, f) == t->length
               ? 0
               : -1;
}

static int cmp_tile(const void *a, const void *b)
{
    const pmtiles_tile *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Header fields from the metadata object (bounds, center, zooms). */
static int pm_info_from_json(json_t *o, const char *text, pmtiles_info *info)
{
    json_t *b = json_object_get(o, "bounds"), *c = json_object_get(o, "center");
    if (!json_is_array(b) || json_array_size(b) != 4 || !json_is_array(c) ||
        json_array_size(c) != 3)
        return -1;
    info->min_lon = json_number_value(json_array_get(b, 0));
    info->min_lat = json_number_value(json_array_get(b, 1));
    info->max_lon = json_number_value(json_array_get(b, 2));
    info->max_lat = json_number_value(json_array_get(b, 3));
    info->center_lon = json_number_value(json_array_get(c, 0));
    info->center_lat = json_number_value(json_array_get(c, 1));
    info->center_zoom = (int)json_integer_value(json_array_get(c, 2));
    info->min_zoom = (int)json_integer_value(json_object_get(o, "minzoom"));
    info->max_zoom = (int)json_integer_value(json_object_get(o, "maxzoom"));
    info->metadata_json = text;
    return 0;
}

/* Sorts tiles, drops exact duplicates (the same id with the same bytes;
 * different bytes is an error) and writes the archive. */
static int pm_finish(const char *path, const char *meta_text, pmtiles_tile *tiles, size_t n,
                     FILE **files, char *err, size_t err_size)
{
    if (n == 0) {
        snprintf(err, err_size, "no tiles to write");
        return -1;
    }
    qsort(tiles, n, sizeof *tiles, cmp_tile);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && tiles[m - 1].id == tiles[i].id) {
            if (tiles[m - 1].hash != tiles[i].hash || tiles[m - 1].length != tiles[i].length) {
                snprintf(err, err_size, "tile id %" PRIu64 " appears twice with different bytes",
                         tiles[i].id);
                return -1;
            }
            continue;
        }
        tiles[m++] = tiles[i];
    }
    json_t *o = json_loads(meta_text, 0, NULL);
    pmtiles_info info;
    int rc = o && pm_info_from_json(o, meta_text, &info) == 0 ? 0 : -1;
    if (rc != 0)
        snprintf(err, err_size, "metadata lacks bounds, center or zooms");
    pm_src src = {files};
    if (rc == 0)
        rc = pmtiles_write(path, &info, tiles, m, pm_read, &src, err, err_size);
    json_decref(o);
    return rc;
}

/* Index of the spool: every record's id, offset, length, hash. */
/* Makes room for one more element in a growing array of n elements,
 * doubling *cap (from 4096) when it is full. Returns the array (moved or
 * not), or NULL out of memory or when the size would overflow: then arr is
 * unchanged and still the caller's. */
static void *grow_one(void *arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t c = *cap ? *cap * 2 : 4096;
    if (c < *cap || c > ((size_t)-1) / elem)
        return NULL;
    void *p = realloc(arr, c * elem);
    if (p != NULL)
        *cap = c;
    return p;
}

static int spool_index(FILE *f, size_t head_len, pmtiles_tile **out, size_t *n_out)
{
    pmtiles_tile *t = NULL;
    size_t n = 0, cap = 0;
    unsigned char rec[12], *data = NULL;
    size_t data_cap = 0;
    if (fseeko(f, (off_t)head_len, SEEK_SET) != 0)
        return -1;
    while (fread(rec, 1, 12, f) == 12) {
        uint64_t id = 0;
        uint32_t len = 0;
        for (int i = 7; i >= 0; i--)
            id = id << 8 | rec[i];
        for (int i = 11; i >= 8; i--)
            len = len << 8 | rec[i];
        if (len > data_cap) {
            unsigned char *d = realloc(data, len);
            if (d == NULL)
                goto fail;
            data = d;
            data_cap = len;
        }
        off_t at = ftello(f);
        if (fread(data, 1, len, f) != len)
            goto fail;
        pmtiles_tile *nt = grow_one(t, &cap, n, sizeof *t);
        if (nt == NULL)
            goto fail;
        t = nt;
        t[n++] = (pmtiles_tile){id, 0, len, (uint64_t)at, pmtiles_hash(data, len)};
    }
    free(data);
    *out = t;
    *n_out = n;
    return 0;
fail:
    free(data);
    free(t);
    return -1;
}

static int count_one(void *ctx, uint64_t id, uint64_t off, uint32_t len)
{
    (void)id;
    (void)off;
    (void)len;
    (*(uint64_t *)ctx)++;
    return 0;
}

/* 1 if path is already this export's finished archive (the same metadata,
 * n tiles), so running the command again has nothing to do. */
static int pm_complete(const char *path, const plan *p, uint64_t n)
{
    char err[256];
    if (access(path, F_OK) != 0)
        return 0;
    pmtiles_reader *r = pmtiles_reader_open(path, err, sizeof err);
    json_t *o = plan_json(p);
    char *meta = json_text(o);
    json_decref(o);
    uint64_t count = 0;
    int same = r && meta && strcmp(pmtiles_reader_metadata(r), meta) == 0 &&
               pmtiles_reader_each(r, count_one, &count, err, sizeof err) == 0 && count == n;
    free(meta);
    pmtiles_reader_close(r);
    return same;
}

/* ---- the render pool ---- */

typedef struct {
    int ready, rc;
    unsigned char *png;
    size_t size;
} slot;

typedef struct {
    const plan *p;
    const uint64_t *ids;
    size_t n, next, written, window;
    slot *slots;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
} pool;

static void *worker(void *arg)
{
    pool *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->stop && w->next < w->n && w->next >= w->written + w->window)
            pthread_cond_wait(&w->work, &w->mu);
        if (w->stop || w->next >= w->n)
            break;
        size_t i = w->next++;
        pthread_mutex_unlock(&w->mu);
        unsigned char *png = NULL;
        size_t size = 0;
        int rc = render_id(w->p, w->ids[i], &png, &size);
        pthread_mutex_lock(&w->mu);
        w->slots[i % w->window] = (slot){1, rc, png, size};
        pthread_cond_broadcast(&w->done);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* ---- argument parsing ---- */

static const char export_usage[] =
    "usage: noisetile export FIELD -o OUTPUT --zoom Z|A-B (--bbox X0,Y0,X1,Y1 | --tiles Z/X0-X1/Y0-Y1)\n"
    "                        [--format mbtiles|pmtiles|dir] [--scale 1|2] [--jobs N]\n"
    "                        [--shard K/N] [--name TEXT] [--progress-seconds S] [--dry-run]\n"
    "\n"
    "Renders the tiles of one field over plane zooms A..B and a region into an\n"
    "MBTiles file, a PMTiles archive or a z/x/y.png directory; each tile has the\n"
    "bytes the daemon answers for the same URL.\n"
    "\n"
    "  FIELD            KIND/SEED with the URL's parameters, e.g.\n"
    "                   'perlin/7?octaves=5&palette=terrain&shade=1'\n"
    "  -o, --output     OUTPUT.mbtiles, OUTPUT.pmtiles, or a directory\n"
    "  --format         mbtiles, pmtiles or dir (default: from OUTPUT's name)\n"
    "  --zoom           plane zoom or range, 0..30\n"
    "  --bbox           region in plane units (x right, y down), X0<X1, Y0<Y1\n"
    "  --tiles          region as the plane tiles Z/X0-X1/Y0-Y1 (zoom Z unless --zoom)\n"
    "  --scale 2        512-pixel tiles (the daemon's @2x)\n"
    "  --ext npy|r16    numeric tiles (directory exports): the daemon's .npy or\n"
    "                   .r16 tiles; PNG heights: encoding=gray16|terrarium|mapbox\n"
    "                   in FIELD (any format)\n"
    "  --jobs N         render threads, 1..256 (default: number of cores)\n"
    "  --shard K/N      only the K-th (0..N-1) of N equal parts; join with noisetile merge\n"
    "  --progress-seconds S   plain progress line interval off a terminal (default 5)\n"
    "  --dry-run        print the tile count and a size and time estimate, write nothing\n"
    "\n"
    "Archives number tiles 0..2^z-1: archive tile (z, x, y) is plane tile\n"
    "(z-k, x + ox*2^(z-k), y + oy*2^(z-k)), with k, ox, oy chosen to hold the\n"
    "region and recorded in the metadata. Interrupted (Ctrl-C, SIGTERM), the\n"
    "output stays valid and the same command resumes.\n";

static const char merge_usage[] =
    "usage: noisetile merge -o OUTPUT INPUT...\n"
    "\n"
    "Joins the shard outputs of one export (`noisetile export --shard K/N`), all\n"
    "MBTiles, all PMTiles or all directories, into OUTPUT: the same bytes as the\n"
    "export run as one process.\n";

static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (strcmp(argv[*i], name) == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static out_format format_of(const char *path)
{
    size_t n = strlen(path);
    if (n > 8 && strcmp(path + n - 8, ".mbtiles") == 0)
        return FMT_MBTILES;
    if (n > 8 && strcmp(path + n - 8, ".pmtiles") == 0)
        return FMT_PMTILES;
    return FMT_DIR;
}

static int usage_error(const char *cmd, const char *usage, const char *fmt, const char *what)
{
    fprintf(stderr, "noisetile %s: ", cmd);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n%s", usage);
    return 2;
}

int export_main(int argc, char **argv)
{
    plan p;
    memset(&p, 0, sizeof p);
    p.scale = 1;
    const char *field = NULL, *out = NULL, *v;
    out_format format = FMT_NONE;
    int have_zoom = 0, have_region = 0, dry_run = 0;
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t shard_k = 0, shard_n = 1;
    double plain_seconds = 5;
    char err[1024];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(export_usage, stdout);
            return 0;
        } else if (strcmp(a, "--dry-run") == 0) {
            dry_run = 1;
        } else if ((v = opt_value(argc, argv, &i, "-o")) || (v = opt_value(argc, argv, &i, "--output"))) {
            out = v;
        } else if ((v = opt_value(argc, argv, &i, "--format"))) {
            format = strcmp(v, "mbtiles") == 0   ? FMT_MBTILES
                     : strcmp(v, "pmtiles") == 0 ? FMT_PMTILES
                     : strcmp(v, "dir") == 0     ? FMT_DIR
                                                 : FMT_NONE;
            if (format == FMT_NONE)
                return usage_error("export", export_usage,
                                   "--format must be mbtiles, pmtiles or dir, got '%s'", v);
        } else if ((v = opt_value(argc, argv, &i, "--zoom"))) {
            int64_t a0, b0;
            if (parse_range(v, 0, ROUTE_MAX_Z, &a0, &b0) != 0)
                return usage_error("export", export_usage,
                                   "--zoom must be Z or A-B with 0 <= A <= B <= 30, got '%s'", v);
            p.zmin = (int)a0;
            p.zmax = (int)b0;
            have_zoom = 1;
        } else if ((v = opt_value(argc, argv, &i, "--bbox"))) {
            double b[4];
            if (parse_doubles(v, b, 4) != 0 || !(b[0] < b[2]) || !(b[1] < b[3]) ||
                fabs(b[0]) > 1e9 || fabs(b[1]) > 1e9 || fabs(b[2]) > 1e9 || fabs(b[3]) > 1e9)
                return usage_error("export", export_usage,
                                   "--bbox must be X0,Y0,X1,Y1 with X0<X1, Y0<Y1, |values| <= 1e9, got '%s'", v);
            p.x0 = b[0];
            p.y0 = b[1];
            p.x1 = b[2];
            p.y1 = b[3];
            have_region = 1;
        } else if ((v = opt_value(argc, argv, &i, "--tiles"))) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            char *s1 = strchr(buf, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
            int64_t z, xa, xb, ya, yb;
            if (s2 == NULL)
                return usage_error("export", export_usage, "--tiles must be Z/X0-X1/Y0-Y1, got '%s'", v);
            *s1 = *s2 = '\0';
            if (route_parse_int(buf, strlen(buf), 0, ROUTE_MAX_Z, &z) != 0 ||
                parse_range(s1 + 1, INT32_MIN, INT32_MAX, &xa, &xb) != 0 ||
                parse_range(s2 + 1, INT32_MIN, INT32_MAX, &ya, &yb) != 0)
                return usage_error("export", export_usage,
                                   "--tiles must be Z/X0-X1/Y0-Y1 (z 0..30, x and y int32, X0<=X1, Y0<=Y1), got '%s'", v);
            double side = RENDER_WORLD_SIZE / ldexp(1.0, (int)z);
            p.x0 = (double)xa * side;
            p.x1 = (double)(xb + 1) * side;
            p.y0 = (double)ya * side;
            p.y1 = (double)(yb + 1) * side;
            if (!have_zoom)
                p.zmin = p.zmax = (int)z;
            have_region = 2;
        } else if ((v = opt_value(argc, argv, &i, "--ext"))) {
            p.ext = strcmp(v, "png") == 0   ? ROUTE_EXT_PNG
                    : strcmp(v, "npy") == 0 ? ROUTE_EXT_NPY
                    : strcmp(v, "r16") == 0 ? ROUTE_EXT_R16
                                            : (route_ext)-1;
            if ((int)p.ext < 0)
                return usage_error("export", export_usage, "--ext must be png, npy or r16, got '%s'", v);
        } else if ((v = opt_value(argc, argv, &i, "--scale"))) {
            if (strcmp(v, "1") != 0 && strcmp(v, "2") != 0)
                return usage_error("export", export_usage, "--scale must be 1 or 2, got '%s'", v);
            p.scale = v[0] - '0';
        } else if ((v = opt_value(argc, argv, &i, "--jobs"))) {
            int64_t j;
            if (route_parse_int(v, strlen(v), 1, 256, &j) != 0)
                return usage_error("export", export_usage, "--jobs must be an integer in 1..256, got '%s'", v);
            jobs = (long)j;
        } else if ((v = opt_value(argc, argv, &i, "--shard"))) {
            const char *sl = strchr(v, '/');
            if (sl == NULL || route_parse_int(v, (size_t)(sl - v), 0, 1000000, &shard_k) != 0 ||
                route_parse_int(sl + 1, strlen(sl + 1), 1, 1000000, &shard_n) != 0 ||
                shard_k >= shard_n)
                return usage_error("export", export_usage,
                                   "--shard must be K/N with 0 <= K < N <= 1000000, got '%s'", v);
        } else if ((v = opt_value(argc, argv, &i, "--name"))) {
            if (strlen(v) >= sizeof p.name)
                return usage_error("export", export_usage, "--name is too long: '%s'", v);
            snprintf(p.name, sizeof p.name, "%s", v);
        } else if ((v = opt_value(argc, argv, &i, "--progress-seconds"))) {
            if (query_parse_number(v, &plain_seconds) != 0 || !(plain_seconds > 0) ||
                plain_seconds > 3600)
                return usage_error("export", export_usage,
                                   "--progress-seconds must be a number in (0, 3600], got '%s'", v);
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("export", export_usage, "unknown option '%s'", a);
        } else if (field == NULL) {
            field = a;
        } else {
            return usage_error("export", export_usage, "unexpected argument '%s'", a);
        }
    }
    if (field == NULL)
        return usage_error("export", export_usage, "%s", "missing FIELD");
    if (out == NULL)
        return usage_error("export", export_usage, "%s", "missing -o OUTPUT");
    if (!have_region)
        return usage_error("export", export_usage, "%s", "missing --bbox or --tiles (the plane is infinite)");
    if (!have_zoom && have_region != 2)
        return usage_error("export", export_usage, "%s", "missing --zoom");
    if (parse_field(field, &p, err, sizeof err) != 0) {
        fprintf(stderr, "noisetile export: %s\n", err);
        return 2;
    }
    if (plan_mapping(&p, err, sizeof err) != 0) {
        fprintf(stderr, "noisetile export: %s\n", err);
        return 2;
    }
    if (format == FMT_NONE)
        format = format_of(out);
    if (p.ext != ROUTE_EXT_PNG && format != FMT_DIR)
        return usage_error("export", export_usage, "--ext %s tiles go to a directory export only",
                           heightsreq_ext_name(p.ext));

    uint64_t total = plan_count(&p);
    uint64_t from = (uint64_t)((__uint128_t)total * (uint64_t)shard_k / (uint64_t)shard_n);
    uint64_t to = (uint64_t)((__uint128_t)total * (uint64_t)(shard_k + 1) / (uint64_t)shard_n);
    char shard_tag[64] = "";
    if (shard_n > 1)
        snprintf(shard_tag, sizeof shard_tag, "; shard %" PRId64 "/%" PRId64, shard_k, shard_n);

    if (dry_run) {
        uint64_t n = to - from;
        printf("noisetile export: %" PRIu64 " tiles%s (plane zoom %d-%d, archive zoom %d-%d) of %s\n",
               n, shard_tag, p.zmin, p.zmax, p.zmin + p.k, p.zmax + p.k, p.url);
        printf("output: %s (%s); archive tile (z, x, y) = plane tile (z-%d, x%+" PRId64
               "*2^(z-%d), y%+" PRId64 "*2^(z-%d))\n",
               out, format_name(format), p.k, p.ox, p.k, p.oy, p.k);
        uint64_t *ids = NULL;
        int64_t m = plan_ids(&p, from, to, &ids, err, sizeof err);
        if (m < 0) {
            fprintf(stderr, "noisetile export: %s\n", err);
            return 1;
        }
        int samples = m < 16 ? (int)m : 16;
        double bytes = 0, t0 = monotime_s();
        for (int s = 0; s < samples; s++) {
            unsigned char *png = NULL;
            size_t size = 0;
            if (render_id(&p, ids[(uint64_t)s * (uint64_t)m / (uint64_t)samples], &png, &size) == 0)
                bytes += (double)size;
            free(png);
        }
        double per = samples ? (monotime_s() - t0) / samples : 0;
        free(ids);
        char size_text[32], time_text[32];
        progress_format_bytes(samples ? bytes / samples * (double)n : 0, size_text, sizeof size_text);
        progress_format_seconds(per * (double)n / (double)jobs, time_text, sizeof time_text);
        printf("estimate from %d sample tiles: %.0f bytes/tile, %s, %s with %ld threads\n", samples,
               samples ? bytes / samples : 0, size_text, time_text, jobs);
        return 0;
    }

    uint64_t *ids = NULL;
    int64_t n_ids = plan_ids(&p, from, to, &ids, err, sizeof err);
    if (n_ids < 0) {
        fprintf(stderr, "noisetile export: %s\n", err);
        return 1;
    }
    uint64_t n_shard = (uint64_t)n_ids, already = 0;
    if (format == FMT_PMTILES && pm_complete(out, &p, n_shard)) {
        fprintf(stderr, "noisetile export: %s is complete (%" PRIu64 " tiles%s): nothing to do\n",
                out, n_shard, shard_tag);
        free(ids);
        return 0;
    }
    sink s = {format, out, &p, NULL, NULL, "", "", 0, 0};
    if (sink_open(&s, shard_tag, ids, &n_ids, &already, err, sizeof err) != 0) {
        fprintf(stderr, "noisetile export: %s\n", err);
        mbtiles_close(s.mb);
        if (s.spool)
            fclose(s.spool);
        free(ids);
        return 1;
    }
    if (already > 0)
        fprintf(stderr, "noisetile export: resuming: %" PRIu64 " of %" PRIu64 " tiles already in %s\n",
                already, n_shard, format == FMT_PMTILES ? s.spool_path : out);

    /* Render in parallel, write in order. Workers start with the stop
     * signals blocked, so only this thread sees them. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigset_t stopset, old;
    sigemptyset(&stopset);
    sigaddset(&stopset, SIGINT);
    sigaddset(&stopset, SIGTERM);
    pool w;
    memset(&w, 0, sizeof w);
    w.p = &p;
    w.ids = ids;
    w.n = (size_t)n_ids;
    w.window = (size_t)jobs * 8;
    w.slots = calloc(w.window, sizeof *w.slots);
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.work, NULL);
    pthread_cond_init(&w.done, NULL);
    pthread_t *threads = calloc((size_t)jobs, sizeof *threads);
    long started = 0;
    pthread_sigmask(SIG_BLOCK, &stopset, &old);
    for (; w.slots && threads && started < jobs; started++)
        if (pthread_create(&threads[started], NULL, worker, &w) != 0)
            break;
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    progress *prog = progress_create(stderr, isatty(STDERR_FILENO), plain_seconds, n_shard,
                                     "noisetile export");
    int rc = started > 0 && prog ? 0 : -1;
    if (rc != 0)
        snprintf(err, sizeof err, "cannot start the render threads");
    uint64_t done = already;
    if (rc == 0)
        progress_update(prog, done, s.bytes);
    for (size_t i = 0; rc == 0 && i < w.n; i++) {
        slot got;
        pthread_mutex_lock(&w.mu);
        while (!w.slots[i % w.window].ready && !stop_signal) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 200000000;
            if (until.tv_nsec >= 1000000000) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&w.done, &w.mu, &until);
        }
        if (stop_signal) {
            pthread_mutex_unlock(&w.mu);
            break;
        }
        got = w.slots[i % w.window];
        w.slots[i % w.window] = (slot){0, 0, NULL, 0};
        w.written = i + 1;
        pthread_cond_broadcast(&w.work);
        pthread_mutex_unlock(&w.mu);
        if (got.rc != 0) {
            snprintf(err, sizeof err, "rendering a tile failed (%d)", got.rc);
            rc = -1;
        } else {
            rc = sink_put(&s, ids[i], got.png, got.size, err, sizeof err);
        }
        free(got.png);
        done++;
        progress_update(prog, done, s.bytes);
    }
    pthread_mutex_lock(&w.mu);
    w.stop = 1;
    pthread_cond_broadcast(&w.work);
    pthread_mutex_unlock(&w.mu);
    for (long t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    for (size_t k = 0; w.slots && k < w.window; k++)
        free(w.slots[k].png);
    free(w.slots);
    free(threads);
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.work);
    pthread_cond_destroy(&w.done);

    int sig = stop_signal;
    if (prog && rc == 0)
        progress_finish(prog, done, s.bytes);
    progress_destroy(prog);

    /* Close the output: commit, or flush the spool; the archive at the end. */
    if (s.mb != NULL) {
        char e2[256];
        if (mbtiles_commit(s.mb, e2, sizeof e2) != 0 && rc == 0) {
            snprintf(err, sizeof err, "%s", e2);
            rc = -1;
        }
        mbtiles_close(s.mb);
    }
    if (s.spool != NULL && fflush(s.spool) != 0 && rc == 0) {
        snprintf(err, sizeof err, "%s: %s", s.spool_path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && !sig && s.spool != NULL) {
        pmtiles_tile *tiles = NULL;
        size_t n_tiles = 0;
        char head[2048];
        snprintf(head, sizeof head, "%s%s%s\n", SPOOL_MAGIC, p.identity, shard_tag);
        json_t *o = plan_json(&p);
        char *meta = json_text(o);
        json_decref(o);
        if (meta == NULL || spool_index(s.spool, strlen(head), &tiles, &n_tiles) != 0) {
            snprintf(err, sizeof err, "%s: cannot read back", s.spool_path);
            rc = -1;
        } else {
            FILE *files[1] = {s.spool};
            rc = pm_finish(out, meta, tiles, n_tiles, files, err, sizeof err);
        }
        free(meta);
        free(tiles);
        if (rc == 0)
            remove(s.spool_path);
    }
    if (s.spool != NULL)
        fclose(s.spool);
    free(ids);
    if (rc != 0) {
        fprintf(stderr, "noisetile export: %s\n", err);
        return 1;
    }
    if (sig) {
        if (format == FMT_PMTILES)
            fprintf(stderr,
                    "noisetile export: %s: stopped after %" PRIu64 " of %" PRIu64
                    " tiles. A PMTiles archive is written at the end, so %s is not there yet; "
                    "the tiles so far are kept in %s: run the same command again to resume.\n",
                    sig == SIGINT ? "SIGINT" : "SIGTERM", done, n_shard, out, s.spool_path);
        else
            fprintf(stderr,
                    "noisetile export: %s: stopped after %" PRIu64 " of %" PRIu64
                    " tiles; %s is valid with the tiles so far: run the same command again to "
                    "resume.\n",
                    sig == SIGINT ? "SIGINT" : "SIGTERM", done, n_shard, out);
        return 128 + sig;
    }
    fprintf(stderr, "noisetile export: wrote %" PRIu64 " tiles%s to %s\n", n_shard, shard_tag, out);
    return 0;
}

/* ---- merge ---- */

typedef struct {
    pmtiles_tile *t;
    size_t n, cap;
    uint32_t src;
    pmtiles_reader *r;
    unsigned char *buf;
    size_t buf_cap;
} pm_collect;

static int pm_collect_one(void *ctx, uint64_t id, uint64_t off, uint32_t len)
{
    pm_collect *c = ctx;
    pmtiles_tile *t = grow_one(c->t, &c->cap, c->n, sizeof *t);
    if (t == NULL)
        return 1;
    c->t = t;
    if (len > c->buf_cap) {
        unsigned char *b = realloc(c->buf, len);
        if (b == NULL)
            return 1;
        c->buf = b;
        c->buf_cap = len;
    }
    if (pmtiles_reader_read(c->r, off, len, c->buf) != 0)
        return 1;
    c->t[c->n++] = (pmtiles_tile){id, c->src, len, off, pmtiles_hash(c->buf, len)};
    return 0;
}

static int merge_pmtiles(const char *out, char **in, int n_in, char *err, size_t err_size)
{
    if (n_in <= 0 || n_in > 100000)
        return -1;
    pmtiles_reader **r = calloc((size_t)n_in, sizeof *r);
    FILE **files = calloc((size_t)n_in, sizeof *files);
    pm_collect c = {0};
    int rc = r && files ? 0 : -1;
    for (int i = 0; rc == 0 && i < n_in; i++) {
        r[i] = pmtiles_reader_open(in[i], err, err_size);
        if (r[i] == NULL) {
            rc = -1;
            break;
        }
        if (i > 0 && strcmp(pmtiles_reader_metadata(r[i]), pmtiles_reader_metadata(r[0])) != 0) {
            snprintf(err, err_size, "%s and %s are not shards of the same export (metadata differs)",
                     in[0], in[i]);
            rc = -1;
            break;
        }
        files[i] = fopen(in[i], "rb");
        c.src = (uint32_t)i;
        c.r = r[i];
        if (files[i] == NULL || pmtiles_reader_each(r[i], pm_collect_one, &c, err, err_size) != 0) {
            snprintf(err, err_size, "%s: unreadable tiles", in[i]);
            rc = -1;
        }
    }
    if (rc == 0)
        rc = pm_finish(out, pmtiles_reader_metadata(r[0]), c.t, c.n, files, err, err_size);
    for (int i = 0; i < n_in; i++) {
        pmtiles_reader_close(r ? r[i] : NULL);
        if (files && files[i])
            fclose(files[i]);
    }
    free(r);
    free(files);
    free(c.t);
    free(c.buf);
    return rc;
}

typedef struct {
    uint64_t id;
    int src;
} mb_key;

typedef struct {
    mb_key *k;
    size_t n, cap;
    int src;
} mb_collect;

static int mb_collect_one(void *ctx, int z, uint32_t x, uint32_t y, const unsigned char *d,
                          size_t size)
{
    (void)d;
    (void)size;
    mb_collect *c = ctx;
    mb_key *k = grow_one(c->k, &c->cap, c->n, sizeof *k);
    if (k == NULL)
        return 1;
    c->k = k;
    c->k[c->n++] = (mb_key){pmtiles_tile_id(z, x, y), c->src};
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    const mb_key *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->src - y->src;
}

static int merge_mbtiles(const char *out, char **in, int n_in, char *err, size_t err_size)
{
    if (n_in <= 0 || n_in > 100000)
        return -1;
    if (access(out, F_OK) == 0) {
        snprintf(err, err_size, "%s exists; merge writes a new file", out);
        return -1;
    }
    mbtiles **m = calloc((size_t)n_in, sizeof *m), *o = NULL;
    mb_collect c = {0};
    char values[16][1700], v[1700];
    int rc = m ? 0 : -1;
    for (int i = 0; rc == 0 && i < n_in; i++) {
        m[i] = mbtiles_open(in[i], 0, err, err_size);
        if (m[i] == NULL) {
            rc = -1;
            break;
        }
        for (int k = 0; rc == 0 && mb_meta_names[k]; k++) {
            if (mbtiles_get_meta(m[i], mb_meta_names[k], v, sizeof v) != 0 ||
                (i > 0 && strcmp(v, values[k]) != 0)) {
                snprintf(err, err_size, "%s: metadata '%s' %s", in[i], mb_meta_names[k],
                         i > 0 ? "differs from the first input's" : "missing");
                rc = -1;
            }
            if (i == 0)
                snprintf(values[k], sizeof values[k], "%s", v);
        }
        c.src = i;
        if (rc == 0 && mbtiles_each(m[i], mb_collect_one, &c) != 0) {
            snprintf(err, err_size, "%s: unreadable tiles", in[i]);
            rc = -1;
        }
    }
    if (rc == 0) {
        qsort(c.k, c.n, sizeof *c.k, cmp_key);
        o = mbtiles_open(out, 1, err, err_size);
        if (o == NULL || mb_write_meta(o, values) != 0)
            rc = -1;
    }
    unsigned batch = 0;
    for (size_t i = 0; rc == 0 && i < c.n; i++) {
        int z;
        uint32_t x, y;
        pmtiles_tile_zxy(c.k[i].id, &z, &x, &y);
        unsigned char *data = NULL, *first = NULL;
        size_t size = 0, first_size = 0;
        if (mbtiles_get(m[c.k[i].src], z, x, y, &data, &size) != 0) {
            snprintf(err, err_size, "%s: unreadable tile %d/%u/%u", in[c.k[i].src], z, x, y);
            rc = -1;
        } else if (i > 0 && c.k[i].id == c.k[i - 1].id) {
            /* The same tile in two inputs: kept once if the bytes agree. */
            if (mbtiles_get(o, z, x, y, &first, &first_size) != 0 || first_size != size ||
                memcmp(first, data, size) != 0) {
                snprintf(err, err_size, "tile %d/%u/%u differs between %s and another input", z,
                         x, y, in[c.k[i].src]);
                rc = -1;
            }
            free(first);
            free(data);
            continue;
        } else if (mbtiles_put(o, z, x, y, data, size, err, err_size) < 0) {
            rc = -1;
        }
        free(data);
        if (rc == 0 && ++batch == MBTILES_BATCH) {
            batch = 0;
            rc = mbtiles_commit(o, err, err_size);
        }
    }
    if (o != NULL && rc == 0)
        rc = mbtiles_commit(o, err, err_size);
    mbtiles_close(o);
    if (rc != 0 && o != NULL)
        remove(out);
    for (int i = 0; m && i < n_in; i++)
        mbtiles_close(m[i]);
    free(m);
    free(c.k);
    return rc;
}

/* Copies every z/x/y.png of in into out, and metadata.json (which must be
 * the same in every input). */
static int merge_dir(const char *out, char **in, int n_in, char *err, size_t err_size)
{
    char first[4200], path[4300];
    snprintf(first, sizeof first, "%s/metadata.json", in[0]);
    json_t *meta0 = json_load_file(first, 0, NULL);
    if (meta0 == NULL) {
        snprintf(err, err_size, "%s: missing or unreadable", first);
        return -1;
    }
    int rc = 0;
    snprintf(path, sizeof path, "%s", out);
    if (mkdirs(path) != 0) {
        snprintf(err, err_size, "%s: %s", out, strerror(errno));
        rc = -1;
    }
    for (int i = 0; rc == 0 && i < n_in; i++) {
        snprintf(path, sizeof path, "%s/metadata.json", in[i]);
        json_t *meta = json_load_file(path, 0, NULL);
        int same = meta && json_equal(meta, meta0);
        json_decref(meta);
        if (!same) {
            snprintf(err, err_size, "%s: not a shard of the same export as %s", in[i], in[0]);
            rc = -1;
            break;
        }
        DIR *dz = opendir(in[i]);
        struct dirent *ez, *ex, *ey;
        while (rc == 0 && dz && (ez = readdir(dz)) != NULL) {
            if (ez->d_name[0] < '0' || ez->d_name[0] > '9')
                continue;
            char zdir[4300];
            snprintf(zdir, sizeof zdir, "%s/%s", in[i], ez->d_name);
            DIR *dx = opendir(zdir);
            while (rc == 0 && dx && (ex = readdir(dx)) != NULL) {
                if (ex->d_name[0] < '0' || ex->d_name[0] > '9')
                    continue;
                char xdir[4600];
                snprintf(xdir, sizeof xdir, "%s/%s", zdir, ex->d_name);
                DIR *dy = opendir(xdir);
                while (rc == 0 && dy && (ey = readdir(dy)) != NULL) {
                    size_t len = strlen(ey->d_name);
                    if (len < 5 || strcmp(ey->d_name + len - 4, ".png") != 0)
                        continue;
                    char src[4900], dst[4900];
                    snprintf(src, sizeof src, "%s/%s", xdir, ey->d_name);
                    snprintf(dst, sizeof dst, "%s/%s/%s", out, ez->d_name, ex->d_name);
                    FILE *f = fopen(src, "rb");
                    unsigned char *data = NULL;
                    long size = -1;
                    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
                        fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)size + 1)) &&
                        fread(data, 1, (size_t)size, f) == (size_t)size && mkdirs(dst) == 0) {
                        snprintf(dst, sizeof dst, "%s/%s/%s/%s", out, ez->d_name, ex->d_name,
                                 ey->d_name);
                        if (write_file(dst, data, (size_t)size) != 0)
                            rc = -1;
                    } else {
                        rc = -1;
                    }
                    if (rc != 0)
                        snprintf(err, err_size, "copying %s: %s", src, strerror(errno));
                    free(data);
                    if (f)
                        fclose(f);
                }
                if (dy)
                    closedir(dy);
            }
            if (dx)
                closedir(dx);
        }
        if (dz)
            closedir(dz);
    }
    if (rc == 0) {
        char *text = json_text(meta0);
        snprintf(path, sizeof path, "%s/metadata.json", out);
        if (text == NULL || write_file(path, text, strlen(text)) != 0) {
            snprintf(err, err_size, "%s: cannot write", path);
            rc = -1;
        }
        free(text);
    }
    json_decref(meta0);
    return rc;
}

int export_merge_main(int argc, char **argv)
{
    const char *out = NULL, *v;
    char **in = calloc((size_t)argc, sizeof *in);
    int n_in = 0;
    char err[1024];
    if (in == NULL)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(merge_usage, stdout);
            free(in);
            return 0;
        } else if ((v = opt_value(argc, argv, &i, "-o")) || (v = opt_value(argc, argv, &i, "--output"))) {
            out = v;
        } else if (argv[i][0] == '-') {
            free(in);
            return usage_error("merge", merge_usage, "unknown option '%s'", argv[i]);
        } else {
            in[n_in++] = argv[i];
        }
    }
    if (out == NULL || n_in == 0) {
        free(in);
        return usage_error("merge", merge_usage, "%s", out ? "no INPUT" : "missing -o OUTPUT");
    }
    out_format f = format_of(out);
    for (int i = 0; i < n_in; i++)
        if (format_of(in[i]) != f) {
            fprintf(stderr, "noisetile merge: %s is not a %s like %s\n", in[i], format_name(f), out);
            free(in);
            return 2;
        }
    int rc = f == FMT_PMTILES   ? merge_pmtiles(out, in, n_in, err, sizeof err)
             : f == FMT_MBTILES ? merge_mbtiles(out, in, n_in, err, sizeof err)
                                : merge_dir(out, in, n_in, err, sizeof err);
    free(in);
    if (rc != 0) {
        fprintf(stderr, "noisetile merge: %s\n", err);
        return 1;
    }
    fprintf(stderr, "noisetile merge: wrote %s from %d inputs\n", out, n_in);
    return 0;
}
