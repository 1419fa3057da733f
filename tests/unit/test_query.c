/* test_query.c: query parameters -> field spec, render options, point;
 * strict numbers; the tile ETag and its If-None-Match matching. */
#include <math.h>
#include <string.h>

#include "base/errors.h"
#include "base/etag.h"
#include "service/query.h"
#include "test.h"
#include "test_server_util.h"
#include "service/fieldreq.h"

static int qparse(const char *const *kv, size_t n, int flags, query_result *out, char *err,
                  size_t err_size)
{
    query_args a = test_query_args(kv, n);
    return query_parse(&a, NOISE_PERLIN, 7, flags, out, err, err_size);
}

static void test_numbers(void)
{
    static const char *const good[] = {"0", "-0", "1", "2.0", ".5", "5.", "1e3", "1E-3", "-2.5e+2",
                                       "+1"};
    static const double want[] = {0, -0.0, 1, 2, 0.5, 5, 1000, 0.001, -250, 1};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double v = -99;
        CHECKF(query_parse_number(good[i], &v) == 0 && v == want[i], "%s", good[i]);
    }
    static const char *const bad[] = {"", " 1", "1 ", "nan", "inf", "-Infinity", "0x10", "1e",
                                      "1e+", ".", "-", "1e400", "1,5", "1.2.3", "e5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v;
        CHECKF(query_parse_number(bad[i], &v) != 0, "'%s' accepted", bad[i]);
    }
}

static void test_split(void)
{
    query_result q;
    char err[ERRORS_MSG_MAX];
    const char *kv[] = {"palette", "terrain", "octaves", "3", "shade", "1", "zero", "0"};
    CHECK(qparse(kv, 4, QUERY_RENDER, &q, err, sizeof err) == 0);
    CHECK(q.render.palette == RENDER_TERRAIN && q.render.shade == 1 && q.render.zero == 0);
    CHECK(q.spec.octaves == 3 && q.spec.kind == NOISE_PERLIN && q.spec.seed == 7);
    /* Render parameters are unknown where no tile is drawn. */
    CHECK(qparse(kv, 4, QUERY_POINT, &q, err, sizeof err) == ERR_BAD_REQUEST);
    CHECK(strstr(err, "'palette'") != NULL);

    const char *pt[] = {"y", "-2.25", "x", "1.5", "t", "3"};
    CHECK(qparse(pt, 3, QUERY_POINT, &q, err, sizeof err) == 0);
    CHECK(q.x == 1.5 && q.y == -2.25 && q.spec.has_t && q.spec.t == 3);
    CHECK(qparse(pt, 1, QUERY_POINT, &q, err, sizeof err) == ERR_BAD_REQUEST);
    CHECK(strstr(err, "'x'") != NULL);
}

static void test_errors_name_the_parameter(void)
{
    static const struct { const char *k, *v, *needle; int flags; } cases[] = {
        {"octaves", "17", "octaves", 0},   {"palette", "pink", "palette", QUERY_RENDER},
        {"shade", "2", "shade", QUERY_RENDER}, {"zero", "", "zero", QUERY_RENDER},
        {"x", "nan", "'nan'", QUERY_POINT}, {"bogus", "1", "'bogus'", QUERY_RENDER},
        {"frequency", "inf", "frequency", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *kv[] = {cases[i].k, cases[i].v, "x", "0", "y", "0"};
        size_t n = 1; /* x, y after it are not passed */
        query_result q;
        char err[ERRORS_MSG_MAX] = "";
        int rc = qparse(kv, n, cases[i].flags, &q, err, sizeof err);
        CHECKF(rc == ERR_BAD_REQUEST, "%s=%s -> %d", cases[i].k, cases[i].v, rc);
        CHECKF(strstr(err, cases[i].needle) != NULL, "%s=%s: %s", cases[i].k, cases[i].v, err);
    }
    const char *dup[] = {"shade", "1", "shade", "1"};
    query_result q;
    char err[ERRORS_MSG_MAX];
    CHECK(qparse(dup, 2, QUERY_RENDER, &q, err, sizeof err) == ERR_BAD_REQUEST);
    CHECK(strstr(err, "shade") && strstr(err, "twice"));
}

/* Messages come from the parameter table: the exact text a user reads. */
static void test_messages_from_the_table(void)
{
    static const struct { const char *k, *v, *msg; int flags; } cases[] = {
        {"shade", "true", "shade must be 0 or 1, got 'true'", QUERY_RENDER},
        {"palette", "pink", "palette must be one of gray, terrain, viridis, got 'pink'", QUERY_RENDER},
        {"x", "1e999", "x must be a finite decimal number, got '1e999'", QUERY_POINT},
        {"palette", "gray", "unknown parameter 'palette' (this endpoint takes: frequency, octaves, "
                            "lacunarity, gain, fractal, warp, gradients, falloff, t, x, y)", QUERY_POINT},
        {"bogus", "1", "unknown parameter 'bogus' (this endpoint takes: frequency, octaves, "
                       "lacunarity, gain, fractal, warp, gradients, falloff, t, palette, shade, zero, quality, ramp)",
         QUERY_RENDER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *kv[] = {cases[i].k, cases[i].v};
        query_args a = test_query_args(kv, 1);
        query_result q;
        char err[ERRORS_MSG_MAX] = "";
        CHECK(query_parse(&a, NOISE_SIMPLEX, 1, cases[i].flags, &q, err, sizeof err) ==
              ERR_BAD_REQUEST);
        CHECKF(strcmp(err, cases[i].msg) == 0, "%s=%s: %s", cases[i].k, cases[i].v, err);
    }
    const char *lat[] = {"lattice", "triangle"};
    query_args a = test_query_args(lat, 1);
    query_result q;
    char err[ERRORS_MSG_MAX] = "";
    CHECK(query_parse(&a, NOISE_SIMPLEX, 1, 0, &q, err, sizeof err) == ERR_BAD_REQUEST);
    CHECKF(strcmp(err, "parameter 'lattice' applies only to value and perlin, not to simplex; got 'triangle'") == 0,
           "%s", err);
    CHECK(query_parse(&a, NOISE_PERLIN, 1, QUERY_RENDER, &q, err, sizeof err) == 0);
    CHECK(q.spec.lattice == NOISE_TRIANGLE && q.render.palette == RENDER_GRAY && !q.render.shade);
    CHECK(q.given[PARAM_PALETTE] == 0 && q.value[PARAM_PALETTE] == 0);
}

/* The window of /stats (and grids): x, y, step, width, height; bins. */
static void test_window(void)
{
    query_result q;
    char err[ERRORS_MSG_MAX];
    const char *w[] = {"width", "641", "x", "0", "y", "-2.5", "step", "0.0625", "height", "3", "bins", "8"};
    CHECK(qparse(w, 5, QUERY_WINDOW, &q, err, sizeof err) == 0);
    CHECK(q.window.x == 0 && q.window.y == -2.5 && q.window.step == 0.0625 && q.window.width == 641 &&
          q.window.height == 3);
    CHECK(qparse(w, 5, QUERY_WINDOW | QUERY_BINS, &q, err, sizeof err) == 0 && q.bins == 32);
    CHECK(qparse(w, 6, QUERY_WINDOW | QUERY_BINS, &q, err, sizeof err) == 0 && q.bins == 8);
    /* bins only where statistics are made; a point has no step */
    CHECK(qparse(w, 6, QUERY_WINDOW, &q, err, sizeof err) == ERR_BAD_REQUEST && strstr(err, "'bins'"));
    CHECK(qparse(w, 5, QUERY_POINT, &q, err, sizeof err) == ERR_BAD_REQUEST && strstr(err, "'width'"));
    /* each of the five is required, in a message naming it and its range */
    for (size_t drop = 0; drop < 5; drop++) {
        const char *kv[10];
        size_t n = 0;
        for (size_t i = 0; i < 5; i++)
            if (i != drop) {
                kv[2 * n] = w[2 * i];
                kv[2 * n + 1] = w[2 * i + 1];
                n++;
            }
        CHECK(qparse(kv, n, QUERY_WINDOW, &q, err, sizeof err) == ERR_BAD_REQUEST);
        CHECKF(strstr(err, "missing") && strstr(err, w[2 * drop]), "without %s: %s", w[2 * drop], err);
    }
    CHECK(qparse(w + 2, 4, QUERY_WINDOW, &q, err, sizeof err) == ERR_BAD_REQUEST);
    CHECKF(strstr(err, "missing parameter 'width' (1..8193)"), "%s", err);
    static const struct { const char *k, *v; const char *needle; } bad[] = {
        {"step", "0", "step must be a number in (0, 1e6], got '0'"},
        {"step", "-1", "step"},
        {"step", "1e7", "step"},
        {"width", "0", "width must be an integer in 1..8193, got '0'"},
        {"width", "2.5", "width"},
        {"x", "inf", "x must be a finite decimal number"},
        {"bins", "0", "bins must be an integer in 1..256, got '0'"},
        {"bins", "257", "'257'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *kv[12];
        memcpy(kv, w, sizeof kv);
        for (size_t k = 0; k < 6; k++)
            if (strcmp(kv[2 * k], bad[i].k) == 0)
                kv[2 * k + 1] = bad[i].v;
        int rc = qparse(kv, 6, QUERY_WINDOW | QUERY_BINS, &q, err, sizeof err);
        CHECKF(rc == ERR_BAD_REQUEST && strstr(err, bad[i].needle), "%s=%s: %d %s", bad[i].k, bad[i].v, rc, err);
    }
    /* a side over its limit is a 413, like too many samples (issue 11) */
    const char *wide[] = {"x", "0", "y", "0", "step", "1", "width", "8194", "height", "1"};
    CHECK(qparse(wide, 5, QUERY_WINDOW, &q, err, sizeof err) == ERR_TOO_LARGE);
    CHECKF(strstr(err, "width must be an integer in 1..8193, got '8194'"), "%s", err);
    wide[7] = "8193";
    CHECK(qparse(wide, 5, QUERY_WINDOW, &q, err, sizeof err) == 0);
    /* the largest window allowed, and one sample more */
    const char *big[] = {"x", "0", "y", "0", "step", "1", "width", "4097", "height", "4097"};
    CHECK(qparse(big, 5, QUERY_WINDOW, &q, err, sizeof err) == 0);
    big[7] = "4098";
    CHECK(qparse(big, 5, QUERY_WINDOW, &q, err, sizeof err) == ERR_TOO_LARGE);
    CHECKF(strstr(err, "4098 x 4097 = 16789506 samples, at most 16785409"), "%s", err);
}

static void test_canonical_and_etag(void)
{
    route r = {ROUTE_TILE, NOISE_PERLIN, 7, 3, -1, 2, 1, ROUTE_EXT_PNG, ROUTE_FIELD_KIND, ""};
    const char *a[] = {"octaves", "2", "gain", "0.25"};
    const char *b[] = {"gain", ".25", "octaves", "2.0", "frequency", "1", "palette", "gray"};
    query_result qa, qb;
    char err[ERRORS_MSG_MAX], ka[1024], kb[1024], ea[32], eb[32];
    CHECK(qparse(a, 2, QUERY_RENDER, &qa, err, sizeof err) == 0);
    CHECK(qparse(b, 4, QUERY_RENDER, &qb, err, sizeof err) == 0);
    CHECK(tile_canonical(&r, &qa.spec, &qa.render, ka, sizeof ka) > 0);
    CHECK(tile_canonical(&r, &qb.spec, &qb.render, kb, sizeof kb) > 0);
    CHECKF(strcmp(ka, kb) == 0, "%s vs %s", ka, kb);
    CHECK(strncmp(ka, "perlin/7/3/-1/2@1x?", 19) == 0);
    tile_etag(ka, ea, sizeof ea);
    tile_etag(kb, eb, sizeof eb);
    CHECK(strcmp(ea, eb) == 0 && strlen(ea) == 18 && ea[0] == '"' && ea[17] == '"');
    r.scale = 2;
    CHECK(tile_canonical(&r, &qa.spec, &qa.render, kb, sizeof kb) > 0);
    tile_etag(kb, eb, sizeof eb);
    CHECK(strcmp(ea, eb) != 0);

    CHECK(etag_matches(ea, ea));
    CHECK(etag_matches("*", ea));
    char list[96];
    snprintf(list, sizeof list, "\"x\", W/%s", ea);
    CHECK(etag_matches(list, ea));
    snprintf(list, sizeof list, "\"a\",%s ,\"b\"", ea);
    CHECK(etag_matches(list, ea));
    CHECK(!etag_matches(NULL, ea));
    CHECK(!etag_matches("", ea));
    CHECK(!etag_matches("\"0000000000000000\"", ea));
    CHECK(!etag_matches("\"unterminated", ea));
}

int main(void)
{
    RUN(test_numbers);
    RUN(test_split);
    RUN(test_errors_name_the_parameter);
    RUN(test_messages_from_the_table);
    RUN(test_window);
    RUN(test_canonical_and_etag);
    return t_done();
}
