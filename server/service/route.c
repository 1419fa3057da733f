/* route.c: request path -> endpoint and its path parameters. */
#include "service/route.h"

#include <stdio.h>
#include <string.h>

#include "base/errors.h"
#include "service/query.h"

int route_parse_int(const char *s, size_t len, int64_t min, int64_t max, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (len > 0 && s[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == len || len - i > 19)
        return -1;
    /* Accumulate as a negative number so that INT64_MIN would fit. */
    int64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        int d = s[i] - '0';
        if (v < (INT64_MIN + d) / 10)
            return -1;
        v = v * 10 - d;
    }
    if (!neg) {
        if (v == INT64_MIN)
            return -1;
        v = -v;
    }
    if (v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Copies a path segment for a message, shortened and printable. */
static void quote_seg(const char *s, size_t len, char *buf, size_t buf_size)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 4 < buf_size; i++)
        buf[n++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    if (n < len && n + 4 <= buf_size) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
}

static int bad_number(const char *what, const char *range, const char *s, size_t len,
                      char *err, size_t err_size)
{
    char q[80];
    quote_seg(s, len, q, sizeof q);
    snprintf(err, err_size, "%s must be a decimal integer in %s, got '%s'", what, range, q);
    return ERR_BAD_REQUEST;
}

static int seg_is(const char *s, size_t len, const char *lit)
{
    return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

#define MAX_SEGS 7
/* Decoded segments longer than this are no API segment (numbers and names
 * are short); they are kept as sent. */
#define SEG_MAX 64

/* Segment i of the path, percent-decoded into buf when it fits. */
static void decode_seg(const char *raw, size_t raw_len, char *buf, const char **out,
                       size_t *out_len)
{
    if (raw_len >= SEG_MAX) {
        *out = raw;
        *out_len = raw_len;
        return;
    }
    memcpy(buf, raw, raw_len);
    buf[raw_len] = '\0';
    *out_len = query_unescape(buf);
    *out = buf;
}

static int wrong_shape(const char *path, char *err, size_t err_size)
{
    char q[120];
    quote_seg(path, strlen(path), q, sizeof q);
    snprintf(err, err_size, "no route %s: the URLs of a field are " ROUTE_FIELD_FORMS, q);
    return ERR_NOT_FOUND;
}

int route_parse(const char *path, route *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    out->scale = 1;
    if (err_size > 0)
        err[0] = '\0';
    out->id = ROUTE_STATIC;
    if (strcmp(path, "/healthz") == 0) { out->id = ROUTE_HEALTHZ; return 0; }
    if (strcmp(path, "/metrics") == 0) { out->id = ROUTE_METRICS; return 0; }
    if (strcmp(path, "/openapi.json") == 0) { out->id = ROUTE_OPENAPI; return 0; }
    if (strcmp(path, "/api/kinds") == 0) { out->id = ROUTE_KINDS; return 0; }
    if (strcmp(path, "/api/graphs") == 0) { out->id = ROUTE_GRAPHS; return 0; }
    if (strcmp(path, "/api/tilematrixset.json") == 0) { out->id = ROUTE_TMS; return 0; }
    if (path[0] != '/')
        return 0;

    const char *seg[MAX_SEGS];
    size_t len[MAX_SEGS];
    char dec[MAX_SEGS][SEG_MAX];
    size_t n = 0;
    int deep = 0;
    const char *p = path + 1;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t l = slash ? (size_t)(slash - p) : strlen(p);
        if (n == MAX_SEGS) {
            deep = 1; /* too deep for an API route */
            break;
        }
        decode_seg(p, l, dec[n], &seg[n], &len[n]);
        n++;
        if (slash == NULL)
            break;
        p = slash + 1;
    }

    route_id id = ROUTE_STATIC;
    size_t ext_len = 0;
    /* /{kind}/{seed}/mercator/{S}/{Z}/{X}/{Y}.png: a Web-Mercator tile (route.h) */
    int mercator = n == 7 && seg_is(seg[2], len[2], "mercator");
    if (n == 5 || mercator || (n == 3 && len[2] > 5 && memcmp(seg[2], "grid.", 5) == 0)) {
        /* tiles and grids: the extension says the form */
        const char *last = seg[n - 1];
        size_t l = len[n - 1];
        if (l >= 4 && memcmp(last + l - 4, ".png", 4) == 0)
            out->ext = ROUTE_EXT_PNG, ext_len = 4;
        else if (l >= 4 && memcmp(last + l - 4, ".npy", 4) == 0)
            out->ext = ROUTE_EXT_NPY, ext_len = 4;
        else if (l >= 4 && memcmp(last + l - 4, ".r16", 4) == 0)
            out->ext = ROUTE_EXT_R16, ext_len = 4;
        else if (n != 3 && l >= 5 && memcmp(last + l - 5, ".webp", 5) == 0)
            out->ext = ROUTE_EXT_WEBP, ext_len = 5; /* tiles only: grids stay numbers or PNG */
    }
    if (deep) {
        id = ROUTE_STATIC;
    } else if (n == 3 && len[2] > 5 && memcmp(seg[2], "grid.", 5) == 0) {
        if (ext_len == 0 || len[2] != 8) {
            char q[80];
            quote_seg(seg[2], len[2], q, sizeof q);
            snprintf(err, err_size, "no grid form '%s' (grid.npy, grid.r16, grid.png)", q);
            out->id = ROUTE_GRID;
            return ERR_NOT_FOUND;
        }
        id = ROUTE_GRID;
    } else if (n == 3 && seg_is(seg[2], len[2], "point"))
        id = ROUTE_POINT;
    else if (n == 3 && seg_is(seg[2], len[2], "points"))
        id = ROUTE_POINTS;
    else if (n == 3 && seg_is(seg[2], len[2], "stats"))
        id = ROUTE_STATS;
    else if (n == 3 && seg_is(seg[2], len[2], "tile.json"))
        id = ROUTE_TILEJSON;
    else if ((n == 5 || mercator) && ext_len > 0)
        id = ROUTE_TILE;
    if (id == ROUTE_STATIC) {
        /* A path that starts with a kind meant a field: say what its URLs
         * look like (a viewer file of that name is still served first). */
        char first[16];
        noise_kind k;
        if (len[0] > 0 && len[0] < sizeof first && n >= 2) {
            memcpy(first, seg[0], len[0]);
            first[len[0]] = '\0';
            if (noise_kind_from_name(first, &k) == 0 || strcmp(first, "graph") == 0)
                return wrong_shape(path, err, err_size);
        }
        return 0;
    }

    /* The kind: a known name, or 404 naming the kinds there are. */
    char kind_name[ROUTE_NAME_MAX + 1];
    if (len[0] >= sizeof kind_name || len[0] == 0 || memchr(seg[0], '\0', len[0]) != NULL)
        goto unknown_kind; /* "%00" would cut the name: "perlin%00evil" is no kind */
    memcpy(kind_name, seg[0], len[0]);
    kind_name[len[0]] = '\0';
    if (strcmp(kind_name, "graph") == 0) {
        out->field = ROUTE_FIELD_GRAPH;
        out->kind = NOISE_PERLIN; /* not used: the field is g= */
    } else if (noise_kind_from_name(kind_name, &out->kind) != 0) {
        if (!route_graph_name_ok(kind_name, len[0]))
            goto unknown_kind;
        out->field = ROUTE_FIELD_NAMED;
        out->kind = NOISE_PERLIN;
        memcpy(out->name, kind_name, len[0] + 1);
    }

    int64_t v;
    if (route_parse_int(seg[1], len[1], 0, UINT32_MAX, &v) != 0)
        return bad_number("seed", "0..4294967295", seg[1], len[1], err, err_size);
    out->seed = (uint32_t)v;

    int64_t world = 0, wz = 0, wmax = INT32_MAX;
    int k = 0;
    if (id == ROUTE_TILE && mercator) {
        /* the world's width: 2^(4+k) plane units, 2^k zoom-0 tiles */
        if (route_parse_int(seg[3], len[3], 1, ROUTE_MERCATOR_MAX_WORLD, &world) != 0 ||
            (world & (world - 1)) != 0) {
            char q[40];
            quote_seg(seg[3], len[3], q, sizeof q);
            snprintf(err, err_size,
                     "the world's width in plane units must be a power of two in 1..16777216 "
                     "(16 is one zoom-0 tile), got '%s'", q);
            return ERR_BAD_REQUEST;
        }
        int lg = 0;
        while (((int64_t)1 << lg) < world)
            lg++;
        k = lg - 4;
        if (route_parse_int(seg[4], len[4], 0, 0, &wz) == 0) {
            snprintf(err, err_size,
                     "Web-Mercator zoom 0 is not served (its one tile, centred on the plane's "
                     "origin, is no plane tile): zooms are 1..30, as TileJSON's minzoom says");
            return ERR_BAD_REQUEST;
        }
        if (route_parse_int(seg[4], len[4], 1, ROUTE_MAX_Z, &wz) != 0)
            return bad_number("Web-Mercator z", "1..30", seg[4], len[4], err, err_size);
        if (wz - k > ROUTE_MAX_Z) {
            snprintf(err, err_size,
                     "Web-Mercator zoom %d with a world %lld units wide is plane zoom %d: the "
                     "plane's tiles stop at zoom 30 (Web-Mercator zoom %d at this width)",
                     (int)wz, (long long)world, (int)(wz - k), ROUTE_MAX_Z + k);
            return ERR_BAD_REQUEST;
        }
        wmax = ((int64_t)1 << wz) - 1;
    }
    if (id == ROUTE_TILE) {
        int zs = mercator ? 4 : 2; /* the z segment; x and y follow it */
        char range[40];
        snprintf(range, sizeof range, "0..%lld", (long long)wmax);
        if (mercator)
            v = wz;
        else if (route_parse_int(seg[2], len[2], ROUTE_MIN_Z, ROUTE_MAX_Z, &v) != 0)
            return bad_number("z", "-2..30", seg[2], len[2], err, err_size);
        out->z = (int)v;
        if (route_parse_int(seg[zs + 1], len[zs + 1], mercator ? 0 : INT32_MIN, wmax, &out->x) != 0)
            return bad_number("x", mercator ? range : "-2147483648..2147483647", seg[zs + 1],
                              len[zs + 1], err, err_size);
        size_t ylen = len[zs + 2] - ext_len; /* without ".png", ".webp", ".npy", ".r16" */
        const char *at = memchr(seg[zs + 2], '@', ylen);
        if (at != NULL) {
            size_t slen = ylen - (size_t)(at - seg[zs + 2]);
            if (!seg_is(at, slen, "@2x")) {
                char q[40];
                quote_seg(at, slen, q, sizeof q);
                snprintf(err, err_size,
                         "tile scale '%s' does not exist: a tile is {y}.png (256 px) or "
                         "{y}@2x.png (512 px)", q);
                return ERR_BAD_REQUEST;
            }
            out->scale = 2;
            ylen -= 3;
        }
        if (route_parse_int(seg[zs + 2], ylen, mercator ? 0 : INT32_MIN, wmax, &out->y) != 0)
            return bad_number("y", mercator ? range : "-2147483648..2147483647", seg[zs + 2], ylen,
                              err, err_size);
        if (mercator) {
            /* the plane's origin at the world's centre: the plane tile */
            int64_t half = (int64_t)1 << (wz - 1);
            out->z = (int)(wz - k);
            out->x -= half;
            out->y -= half;
        }
    }
    out->id = id;
    return 0;

unknown_kind: {
        char q[80], kinds[80] = "";
        quote_seg(seg[0], len[0], q, sizeof q);
        for (int k = 0; k < NOISE_KIND_COUNT; k++) {
            size_t used = strlen(kinds);
            snprintf(kinds + used, sizeof kinds - used, "%s%s", k ? ", " : "",
                     noise_kind_name((noise_kind)k));
        }
        snprintf(err, err_size, "unknown kind '%s' (kinds: %s)", q, kinds);
        out->id = id;
        return ERR_UNKNOWN_KIND;
    }
}

int route_graph_name_ok(const char *s, size_t len)
{
    if (len == 0 || len > ROUTE_NAME_MAX || s[0] < 'a' || s[0] > 'z')
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
              s[i] == '-'))
            return 0;
    char name[ROUTE_NAME_MAX + 1];
    memcpy(name, s, len);
    name[len] = '\0';
    noise_kind k;
    return noise_kind_from_name(name, &k) != 0 && strcmp(name, "graph") != 0 &&
           strcmp(name, "api") != 0;
}

static const struct {
    const char *name;
    unsigned int methods;
    unsigned int takes;
    route_admit admit;
} table[ROUTE_COUNT] = {
#define ROUTE_FACTS(id, name, methods, takes, admit, handler) \
    [ROUTE_##id] = {name, methods, takes, admit},
    ROUTES_MAP(ROUTE_FACTS)
#undef ROUTE_FACTS
};

const char *route_name(route_id id) { return (unsigned)id < ROUTE_COUNT ? table[id].name : "none"; }

unsigned int route_methods(route_id id) { return (unsigned)id < ROUTE_COUNT ? table[id].methods : 0; }

unsigned int route_takes(route_id id) { return (unsigned)id < ROUTE_COUNT ? table[id].takes : 0; }

route_admit route_admission(route_id id)
{
    return (unsigned)id < ROUTE_COUNT ? table[id].admit : ROUTE_ADMIT_RUN;
}

int route_evaluates(route_id id) { return route_admission(id) != ROUTE_ADMIT_RUN; }

unsigned int route_method_bit(const char *method)
{
    if (strcmp(method, "GET") == 0) return ROUTE_GET;
    if (strcmp(method, "HEAD") == 0) return ROUTE_HEAD;
    if (strcmp(method, "POST") == 0) return ROUTE_POST;
    if (strcmp(method, "OPTIONS") == 0) return ROUTE_OPTIONS;
    return 0;
}

const char *route_allow(route_id id)
{
    /* Every combination of the four bits, in the order RFC 9110 examples use. */
    static const char *const text[16] = {
        "", "GET", "HEAD", "GET, HEAD", "POST", "GET, POST", "HEAD, POST", "GET, HEAD, POST",
        "OPTIONS", "GET, OPTIONS", "HEAD, OPTIONS", "GET, HEAD, OPTIONS", "POST, OPTIONS",
        "GET, POST, OPTIONS", "HEAD, POST, OPTIONS", "GET, HEAD, POST, OPTIONS",
    };
    return text[route_methods(id) & 15];
}

int route_allows(route_id id, const char *method)
{
    unsigned int bit = route_method_bit(method);
    return bit != 0 && (route_methods(id) & bit) != 0;
}
