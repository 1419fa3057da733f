/* test_heightsreq.c: unit tests of the numeric tile and grid query parser
 * (server/service/heightsreq.c): what each form accepts, the limits at and beyond
 * them (400 and 413), conflicts, messages naming parameter, range and value;
 * canonical text equal for equal requests. */
#include "base/errors.h"
#include "service/heightsreq.h"
#include "test.h"

#include <string.h>

/* Parses "a=1&b=2" (no decoding) for a grid or tile of perlin/7. */
static int parse(const char *query, int is_grid, route_ext ext, grid_request *out, char *err)
{
    static char buf[1024];
    query_args q;
    memset(&q, 0, sizeof q);
    snprintf(buf, sizeof buf, "%s", query);
    char *save = NULL;
    for (char *pair = strtok_r(buf, "&", &save); pair; pair = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(pair, '=');
        *eq = '\0';
        q.names[q.n] = pair;
        q.values[q.n] = eq + 1;
        q.n++;
    }
    err[0] = '\0';
    return heightsreq_parse(&q, NOISE_PERLIN, 7, is_grid, ext, out, err, ERRORS_MSG_MAX);
}

#define WIN "x=0&y=0&step=0.5&width=8&height=8"

static void expect(const char *query, int is_grid, route_ext ext, int want, const char *const *words)
{
    grid_request r;
    char err[ERRORS_MSG_MAX];
    int rc = parse(query, is_grid, ext, &r, err);
    CHECKF(rc == want, "%s: rc %d, want %d (%s)", query, rc, want, err);
    for (int k = 0; words && words[k]; k++)
        CHECKF(strstr(err, words[k]) != NULL, "%s: message '%s' lacks '%s'", query, err, words[k]);
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_accepts(void)
{
    grid_request r;
    char err[ERRORS_MSG_MAX];
    CHECK(parse(WIN "&octaves=3&gradient=1", 1, ROUTE_EXT_NPY, &r, err) == 0);
    CHECK(r.width == 8 && r.height == 8 && r.step == 0.5 && r.enc.format == HEIGHTS_NPY && r.enc.gradient == 1 && r.spec.octaves == 3);
    CHECK(parse(WIN "&encoding=terrarium&height_scale=250&height_offset=-10", 1, ROUTE_EXT_PNG, &r, err) == 0);
    CHECK(r.enc.format == HEIGHTS_TERRARIUM && r.enc.height_scale == 250 && r.enc.height_offset == -10 && !r.picture);
    CHECK(parse(WIN "&palette=terrain&shade=1", 1, ROUTE_EXT_PNG, &r, err) == 0);
    CHECK(r.picture && r.render.palette == RENDER_TERRAIN && r.render.shade);
    CHECK(parse("encoding=mapbox", 0, ROUTE_EXT_PNG, &r, err) == 0 && r.enc.format == HEIGHTS_MAPBOX && r.enc.height_scale == 1000);
    CHECK(parse("octaves=2", 0, ROUTE_EXT_R16, &r, err) == 0 && r.enc.format == HEIGHTS_R16);
    /* the limits themselves */
    CHECK(parse("x=0&y=0&step=1e6&width=8193&height=2048", 1, ROUTE_EXT_R16, &r, err) == 0);
    CHECK(parse("x=0&y=0&step=1e-300&width=4097&height=4097", 1, ROUTE_EXT_R16, &r, err) == 0);
    CHECK(parse("x=-1e300&y=1e300&step=1&width=1&height=1", 1, ROUTE_EXT_NPY, &r, err) == 0);
    CHECK(parse(WIN "&encoding=mapbox&height_scale=1e6&height_offset=-1e6", 1, ROUTE_EXT_PNG, &r, err) == 0);
    const char *q;
    query_args qa = {.n = 1, .names = {"encoding"}, .values = {"gray16"}};
    CHECK(heightsreq_is_numeric_tile(ROUTE_EXT_PNG, &qa));
    qa.names[0] = q = "palette";
    CHECK(!heightsreq_is_numeric_tile(ROUTE_EXT_PNG, &qa) && heightsreq_is_numeric_tile(ROUTE_EXT_NPY, &qa));
}

static void test_refuses(void)
{
    expect("x=0&y=0&step=0&width=8&height=8", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("step", "(0, 1e6]", "'0'"));
    expect("x=0&y=0&step=-1&width=8&height=8", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("step", "'-1'"));
    expect("x=0&y=0&step=1000001&width=8&height=8", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("step", "'1000001'"));
    expect("x=0&y=0&step=nan&width=8&height=8", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("step", "'nan'"));
    expect("x=1e999&y=0&step=1&width=8&height=8", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("x must", "'1e999'"));
    expect("x=0&y=0&step=1&width=0&height=8", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("width", "1..8193", "'0'"));
    expect("x=0&y=0&step=1&width=2.5&height=8", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("width", "integer", "'2.5'"));
    expect("x=0&y=0&step=1&width=8&height=-3", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("height", "'-3'"));
    expect("x=0&y=0&step=1&width=8194&height=8", 1, ROUTE_EXT_NPY, ERR_TOO_LARGE, W("width", "8193", "'8194'"));
    expect("x=0&y=0&step=1&width=8193&height=2049", 1, ROUTE_EXT_R16, ERR_TOO_LARGE, W("16785409", "16787457"));
    expect("x=0&y=0&step=1&width=8", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("missing", "'height'"));
    expect(WIN "&step=2", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("'step' given twice"));
    expect(WIN "&gradient=1", 1, ROUTE_EXT_R16, ERR_BAD_REQUEST, W("gradient", ".npy", ".r16"));
    expect(WIN "&gradient=2", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("gradient", "0 or 1", "'2'"));
    expect(WIN "&encoding=gray16", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("encoding", ".png", ".npy"));
    expect(WIN "&encoding=gray8", 1, ROUTE_EXT_PNG, ERR_BAD_REQUEST, W("encoding", "gray16, terrarium, mapbox", "'gray8'"));
    expect(WIN "&encoding=terrarium&palette=terrain", 1, ROUTE_EXT_PNG, ERR_BAD_REQUEST, W("encoding=terrarium", "palette"));
    expect("encoding=gray16&zero=1", 0, ROUTE_EXT_PNG, ERR_BAD_REQUEST, W("encoding=gray16", "zero"));
    expect(WIN "&encoding=gray16&height_scale=2", 1, ROUTE_EXT_PNG, ERR_BAD_REQUEST, W("height_scale", "terrarium", "mapbox"));
    expect(WIN "&height_offset=2", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("height_offset", "terrarium"));
    expect(WIN "&encoding=mapbox&height_scale=0", 1, ROUTE_EXT_PNG, ERR_BAD_REQUEST, W("height_scale", "(0, 1e6]", "'0'"));
    expect(WIN "&encoding=mapbox&height_offset=-1000001", 1, ROUTE_EXT_PNG, ERR_BAD_REQUEST, W("height_offset", "[-1e6, 1e6]", "'-1000001'"));
    expect(WIN "&palette=gray", 1, ROUTE_EXT_R16, ERR_BAD_REQUEST, W("unknown parameter 'palette'"));
    expect("x=1", 0, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("unknown parameter 'x'"));
    expect(WIN "&octaves=17", 1, ROUTE_EXT_NPY, ERR_BAD_REQUEST, W("octaves", "1..16", "'17'"));
}

static void test_canonical(void)
{
    grid_request a, b;
    char err[ERRORS_MSG_MAX], ca[1024], cb[1024];
    CHECK(parse("x=1&y=-0&step=0.5&width=10&height=10&octaves=2", 1, ROUTE_EXT_R16, &a, err) == 0);
    CHECK(parse("height=10.0&width=10&step=5e-1&y=0&x=1.0&octaves=2.0&gain=0.5", 1, ROUTE_EXT_R16, &b, err) == 0);
    CHECK(heightsreq_canonical(&a, 1, ca, sizeof ca) > 0 && heightsreq_canonical(&b, 1, cb, sizeof cb) > 0);
    CHECKF(strcmp(ca, cb) == 0, "%s vs %s", ca, cb);
    CHECK(strstr(ca, "&x=1&y=0&step=0.5&width=10&height=10") != NULL);
    CHECK(parse(WIN "&encoding=terrarium", 1, ROUTE_EXT_PNG, &a, err) == 0);
    CHECK(parse(WIN "&encoding=terrarium&height_scale=1000&height_offset=0", 1, ROUTE_EXT_PNG, &b, err) == 0);
    heightsreq_canonical(&a, 1, ca, sizeof ca);
    heightsreq_canonical(&b, 1, cb, sizeof cb);
    CHECKF(strcmp(ca, cb) == 0 && strstr(ca, "encoding=terrarium&height_scale=1e3&height_offset=0"), "%s vs %s", ca, cb);
    CHECK(parse(WIN "&encoding=mapbox", 1, ROUTE_EXT_PNG, &b, err) == 0);
    heightsreq_canonical(&b, 1, cb, sizeof cb);
    CHECK(strcmp(ca, cb) != 0);
    CHECK(parse("gradient=1", 0, ROUTE_EXT_NPY, &a, err) == 0 && parse("", 0, ROUTE_EXT_NPY, &b, err) == 0);
    heightsreq_canonical(&a, 0, ca, sizeof ca);
    heightsreq_canonical(&b, 0, cb, sizeof cb);
    CHECK(strcmp(ca, cb) != 0 && strstr(ca, "gradient=1") && strstr(cb, "gradient=0"));
}

int main(void)
{
    RUN(test_accepts);
    RUN(test_refuses);
    RUN(test_canonical);
    return t_done();
}
