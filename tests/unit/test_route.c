/* test_route.c: request paths -> routes: shapes, strict numbers, ranges. */
#include <string.h>

#include "base/errors.h"
#include "service/route.h"
#include "test.h"

static int parse(const char *path, route *r)
{
    char err[256];
    return route_parse(path, r, err, sizeof err);
}

static void test_api_routes(void)
{
    route r;
    CHECK(parse("/healthz", &r) == 0 && r.id == ROUTE_HEALTHZ);
    CHECK(parse("/metrics", &r) == 0 && r.id == ROUTE_METRICS);
    CHECK(parse("/openapi.json", &r) == 0 && r.id == ROUTE_OPENAPI);
    CHECK(parse("/api/kinds", &r) == 0 && r.id == ROUTE_KINDS);
    CHECK(parse("/perlin/7/point", &r) == 0 && r.id == ROUTE_POINT && r.kind == NOISE_PERLIN &&
          r.seed == 7);
    CHECK(parse("/simplex/4294967295/points", &r) == 0 && r.id == ROUTE_POINTS &&
          r.seed == 4294967295u);
    CHECK(parse("/value/0/tile.json", &r) == 0 && r.id == ROUTE_TILEJSON && r.kind == NOISE_VALUE);
    CHECK(parse("/", &r) == 0 && r.id == ROUTE_STATIC);
    CHECK(parse("/viewer.js", &r) == 0 && r.id == ROUTE_STATIC);
    CHECK(parse("/perlin/7/pointz", &r) == ERR_NOT_FOUND && r.id == ROUTE_STATIC);
    CHECK(parse("/perlin/7/0/0/0.jpg", &r) == ERR_NOT_FOUND && r.id == ROUTE_STATIC);
    CHECK(parse("/a/b/c/d/e/f/g.png", &r) == 0 && r.id == ROUTE_STATIC);
}

static void test_tiles(void)
{
    route r;
    CHECK(parse("/improved/3/30/2147483647/-2147483648.png", &r) == 0);
    CHECK(r.id == ROUTE_TILE && r.kind == NOISE_IMPROVED && r.seed == 3 && r.z == 30 &&
          r.x == 2147483647 && r.y == -2147483648LL && r.scale == 1);
    CHECK(parse("/perlin/0/0/-1/-1@2x.png", &r) == 0);
    CHECK(r.id == ROUTE_TILE && r.z == 0 && r.x == -1 && r.y == -1 && r.scale == 2);
    CHECK(parse("/perlin/0/00/007/0.png", &r) == 0 && r.x == 7);
    /* Web-Mercator tiles are the plane tiles of the mapping (route.h):
     * W = 32 = 16 * 2^1, (Z, X, Y) = (3, 5, 2) is (2, 5 - 4, 2 - 4) */
    CHECK(parse("/perlin/7/mercator/32/3/5/2.png", &r) == 0);
    CHECK(r.id == ROUTE_TILE && r.kind == NOISE_PERLIN && r.seed == 7 && r.z == 2 && r.x == 1 &&
          r.y == -2 && r.scale == 1 && r.ext == ROUTE_EXT_PNG);
    /* W = 1 = 16 * 2^-4: Z 26 is plane zoom 30 */
    CHECK(parse("/perlin/7/mercator/1/26/0/67108863@2x.webp", &r) == 0);
    CHECK(r.z == 30 && r.x == -33554432 && r.y == 33554431 && r.scale == 2 &&
          r.ext == ROUTE_EXT_WEBP);
    CHECK(parse("/perlin/7/mercator/1/27/0/0.png", &r) == ERR_BAD_REQUEST);
    CHECK(parse("/perlin/7/mercator/32/0/0/0.png", &r) == ERR_BAD_REQUEST);
    CHECK(parse("/perlin/7/mercator/24/1/0/0.png", &r) == ERR_BAD_REQUEST);
    CHECK(parse("/perlin/7/mercator/32/1/2/0.png", &r) == ERR_BAD_REQUEST);
}

static void test_bad_numbers(void)
{
    static const char *const bad[] = {
        "/perlin/7/31/0/0.png", "/perlin/7/-3/0/0.png", "/perlin/7//0/0.png",
        "/perlin/7/1/2147483648/0.png", "/perlin/7/1/0/-2147483649.png",
        "/perlin/7/1/+1/0.png", "/perlin/7/1/1.0/0.png", "/perlin/7/1/0/.png",
        "/perlin/7/1/0/@2x.png",
        "/perlin/4294967296/point", "/perlin/-1/point", "/perlin//point", "/perlin/1e3/point",
        "/perlin/%2537/point", "/perlin/7/1/0/99999999999999999999999.png", "/perlin/7/1/-/0.png",
        "/perlin/7%2F1/point", "/perlin/7%00/point",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        route r;
        char err[256] = "";
        int rc = route_parse(bad[i], &r, err, sizeof err);
        CHECKF(rc == ERR_BAD_REQUEST, "%s -> %d", bad[i], rc);
        CHECKF(strstr(err, "must be a decimal integer") != NULL, "%s: %s", bad[i], err);
    }
}

/* The path is percent-decoded segment by segment, as the query is; wrong
 * shapes under a kind name the URL forms. */
static void test_decoding_and_shapes(void)
{
    route r;
    char err[512];
    CHECK(route_parse("/per%6Cin/%37/point", &r, err, sizeof err) == 0 && r.id == ROUTE_POINT &&
          r.kind == NOISE_PERLIN && r.seed == 7);
    CHECK(route_parse("/value/1/2/%2D3/4%40%32x.png", &r, err, sizeof err) == 0 &&
          r.id == ROUTE_TILE && r.x == -3 && r.y == 4 && r.scale == 2);
    CHECK(route_parse("/perlin/7/3/1/1", &r, err, sizeof err) == ERR_NOT_FOUND);
    CHECKF(strcmp(err, "no route /perlin/7/3/1/1: the URLs of a field are " ROUTE_FIELD_FORMS) == 0,
           "%s", err);
    CHECK(route_parse("/simplex/7/pointz", &r, err, sizeof err) == ERR_NOT_FOUND);
    CHECK(route_parse("/perlin/7/3/1/1@3x.png", &r, err, sizeof err) == ERR_BAD_REQUEST);
    CHECKF(strcmp(err, "tile scale '@3x' does not exist: a tile is {y}.png (256 px) or "
                       "{y}@2x.png (512 px)") == 0, "%s", err);
    CHECK(route_parse("/perlin/7/3/1/1@2x@2x.png", &r, err, sizeof err) == ERR_BAD_REQUEST);
    CHECK(strstr(err, "'@2x@2x'") != NULL);
    CHECK(route_parse("/vendor/leaflet/leaflet.js", &r, err, sizeof err) == 0 && r.id == ROUTE_STATIC);
}

static void test_unknown_kind(void)
{
    route r;
    char err[256];
    /* a lower-case name may be a named graph: the service knows which */
    CHECK(route_parse("/worley/7/0/0/0.png", &r, err, sizeof err) == 0);
    CHECK(r.id == ROUTE_TILE && r.field == ROUTE_FIELD_NAMED && strcmp(r.name, "worley") == 0);
    CHECK(route_parse("/graph/7/point", &r, err, sizeof err) == 0);
    CHECK(r.id == ROUTE_POINT && r.field == ROUTE_FIELD_GRAPH);
    CHECK(route_parse("/perlin/7/point", &r, err, sizeof err) == 0 && r.field == ROUTE_FIELD_KIND);
    CHECK(route_parse("/Worley/7/0/0/0.png", &r, err, sizeof err) == ERR_UNKNOWN_KIND);
    CHECK(strstr(err, "'Worley'") != NULL);
    CHECK(route_parse("/PERLIN/7/point", &r, err, sizeof err) == ERR_UNKNOWN_KIND);
    CHECK(route_parse("/abcdefghijabcdefghijabcdefghijabc/7/point", &r, err, sizeof err) ==
          ERR_UNKNOWN_KIND); /* 33 characters: no name */
    CHECK(route_graph_name_ok("my-hills_2", 10) && !route_graph_name_ok("api", 3) &&
          !route_graph_name_ok("graph", 5) && !route_graph_name_ok("simplex", 7) &&
          !route_graph_name_ok("2d", 2) && !route_graph_name_ok("a.b", 3));
    CHECK(route_parse("//7/point", &r, err, sizeof err) == ERR_UNKNOWN_KIND);
}

static void test_parse_int(void)
{
    int64_t v;
    CHECK(route_parse_int("0", 1, 0, 10, &v) == 0 && v == 0);
    CHECK(route_parse_int("-9223372036854775808", 20, INT64_MIN, INT64_MAX, &v) == 0 &&
          v == INT64_MIN);
    CHECK(route_parse_int("9223372036854775807", 19, INT64_MIN, INT64_MAX, &v) == 0 &&
          v == INT64_MAX);
    CHECK(route_parse_int("9223372036854775808", 19, INT64_MIN, INT64_MAX, &v) != 0);
    CHECK(route_parse_int("-9223372036854775809", 20, INT64_MIN, INT64_MAX, &v) != 0);
    CHECK(route_parse_int("", 0, 0, 10, &v) != 0);
    CHECK(route_parse_int("-", 1, -10, 10, &v) != 0);
    CHECK(route_parse_int("11", 2, 0, 10, &v) != 0);
    CHECK(route_parse_int("12", 1, 0, 10, &v) == 0 && v == 1); /* length-bounded */
}

static void test_methods(void)
{
    CHECK(route_allows(ROUTE_TILE, "GET") && route_allows(ROUTE_TILE, "HEAD"));
    CHECK(!route_allows(ROUTE_TILE, "POST") && !route_allows(ROUTE_TILE, "DELETE"));
    CHECK(route_allows(ROUTE_POINTS, "POST") && !route_allows(ROUTE_POINTS, "GET"));
    CHECK(route_allows(ROUTE_POINTS, "OPTIONS") && route_allows(ROUTE_STATIC, "OPTIONS"));
    CHECK(strcmp(route_allow(ROUTE_POINTS), "POST, OPTIONS") == 0);
    CHECK(strcmp(route_allow(ROUTE_KINDS), "GET, HEAD, OPTIONS") == 0);
}

/* The table's takes and admit columns: what each route reads and how it
 * is admitted; every route that evaluates the field (and only those) goes
 * through admission. */
static void test_admission(void)
{
    CHECK(route_takes(ROUTE_POINTS) == (ROUTE_TAKES_QUERY | ROUTE_TAKES_BODY));
    CHECK(route_takes(ROUTE_TILE) == ROUTE_TAKES_QUERY && route_takes(ROUTE_TILEJSON) == ROUTE_TAKES_QUERY);
    CHECK(route_takes(ROUTE_KINDS) == 0 && route_takes(ROUTE_STATIC) == 0);
    CHECK(route_admission(ROUTE_TILE) == ROUTE_ADMIT_CACHED);
    CHECK(route_admission(ROUTE_GRID) == ROUTE_ADMIT_STREAM);
    CHECK(route_admission(ROUTE_POINT) == ROUTE_ADMIT_POOL && route_admission(ROUTE_POINTS) == ROUTE_ADMIT_POOL);
    CHECK(route_admission(ROUTE_STATS) == ROUTE_ADMIT_POOL);
    CHECK(route_admission(ROUTE_TILEJSON) == ROUTE_ADMIT_RUN && route_admission(ROUTE_METRICS) == ROUTE_ADMIT_RUN);
    CHECK(route_admission(ROUTE_COUNT) == ROUTE_ADMIT_RUN && route_takes((route_id)99) == 0);
    int evaluating = 0;
    for (int id = 0; id < ROUTE_COUNT; id++) {
        CHECK(route_evaluates((route_id)id) == (route_admission((route_id)id) != ROUTE_ADMIT_RUN));
        evaluating += route_evaluates((route_id)id);
        /* a route that evaluates reads its query */
        CHECK(!route_evaluates((route_id)id) || (route_takes((route_id)id) & ROUTE_TAKES_QUERY));
    }
    CHECK(evaluating == 5);
}

int main(void)
{
    RUN(test_api_routes);
    RUN(test_tiles);
    RUN(test_bad_numbers);
    RUN(test_decoding_and_shapes);
    RUN(test_unknown_kind);
    RUN(test_parse_int);
    RUN(test_methods);
    RUN(test_admission);
    return t_done();
}
