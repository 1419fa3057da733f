/* test_api.c: the JSON endpoints and error bodies called directly: shapes,
 * and every allocation failing once in turn gives a clean 503 (or success),
 * never a partial reply, a crash or a leak (ASan checks leaks at exit). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "service/api.h"
#include "base/errors.h"
#include "base/failalloc.h"
#include "service/metrics.h"
#include "test.h"
#include "test_server_util.h"

/* Calls op with the nth allocation failing, for nth = 1, 2, ... until op
 * makes fewer allocations than nth. Each run must succeed or say 503. */
static void each_failure(const char *what, int (*op)(reply *))
{
    long nth;
    int saw_failure = 0;
    for (nth = 1; nth < 100000; nth++) {
        reply rp = REPLY_INIT;
        failalloc_arm(nth);
        int rc = op(&rp);
        int fired = failalloc_fired();
        failalloc_arm(0);
        CHECKF(rc == 0 || rc == ERR_NOMEM, "%s nth %ld: rc %d", what, nth, rc);
        CHECKF(rc != 0 || (rp.status != 0 && rp.body != NULL), "%s nth %ld: no reply", what, nth);
        if (rc != 0)
            saw_failure = 1;
        reply_release(&rp);
        if (!fired)
            break;
    }
    CHECKF(saw_failure, "%s: no allocation failure was reported as 503", what);
    reply rp = REPLY_INIT;
    CHECKF(op(&rp) == 0, "%s disarmed", what);
    reply_release(&rp);
}

static int op_point(reply *rp)
{
    const char *kv[] = {"x", "1.5", "y", "-2.25", "octaves", "3", "t", "0.5"};
    query_args a = test_query_args(kv, 4);
    route r = {ROUTE_POINT, NOISE_SIMPLEX, 3, 0, 0, 0, 1, ROUTE_EXT_PNG, ROUTE_FIELD_KIND, ""};
    char err[ERRORS_MSG_MAX];
    query_result q;
    int rc = query_parse(&a, r.kind, r.seed, QUERY_POINT, &q, err, sizeof err);
    return rc != 0 ? rc : api_point(&r, &q, rp);
}

static int op_points(reply *rp)
{
    static const char body[] = "{\"points\":[[0,0],[1.5,-2.5],[1e3,-1e-3],[7,8]]}";
    query_args a = test_query_args(NULL, 0);
    route r = {ROUTE_POINTS, NOISE_PERLIN, 7, 0, 0, 0, 1, ROUTE_EXT_PNG, ROUTE_FIELD_KIND, ""};
    char err[ERRORS_MSG_MAX];
    query_result q;
    int rc = query_parse(&a, r.kind, r.seed, 0, &q, err, sizeof err);
    return rc != 0 ? rc : api_points(&r, &q, body, sizeof body - 1, rp, err, sizeof err);
}

static int op_tilejson(reply *rp)
{
    const char *kv[] = {"palette", "terrain", "warp", "0.5"};
    query_args a = test_query_args(kv, 2);
    route r = {ROUTE_TILEJSON, NOISE_VALUE, 1, 0, 0, 0, 1, ROUTE_EXT_PNG, ROUTE_FIELD_KIND, ""};
    char err[ERRORS_MSG_MAX];
    return api_tilejson(&r, &a, "http://127.0.0.1:8080", rp, err, sizeof err);
}

static int op_error(reply *rp)
{
    reply_error(rp, ERR_BAD_REQUEST, "octaves must be an integer in 1..16, got '20'");
    return rp->status == 400 ? 0 : ERR_NOMEM;
}

static metrics *the_metrics;
static int op_metrics(reply *rp)
{
    size_t len;
    char *text = metrics_text(the_metrics, NULL, &len);
    if (text == NULL)
        return ERR_NOMEM;
    rp->status = 200;
    rp->body_kind = REPLY_OWNED;
    rp->body = rp->owned = text;
    rp->size = len;
    return 0;
}

static void test_out_of_memory(void)
{
    the_metrics = metrics_create();
    for (int i = 0; i < ROUTE_COUNT; i++)
        for (unsigned s = 200; s < 600; s += 7)
            metrics_count_request(the_metrics, (route_id)i, s);
    each_failure("point", op_point);
    each_failure("points", op_points);
    each_failure("tilejson", op_tilejson);
    each_failure("error body", op_error);
    each_failure("metrics", op_metrics);
    metrics_destroy(the_metrics);
}

/* The route of POST /KIND/7/points, and its query (kv: n name, value
 * pairs) parsed into q. */
static route points_route(noise_kind kind, const char *const *kv, size_t n, query_result *q)
{
    query_args a = test_query_args(kv, n);
    route r = {ROUTE_POINTS, kind, 7, 0, 0, 0, 1, ROUTE_EXT_PNG, ROUTE_FIELD_KIND, ""};
    char err[ERRORS_MSG_MAX] = "";
    CHECKF(query_parse(&a, r.kind, r.seed, 0, q, err, sizeof err) == 0, "%s", err);
    return r;
}

static void test_points_shapes(void)
{
    static const struct { const char *body; int rc; } cases[] = {
        {"{\"points\":[[0,0],[1,2]]}", 0},
        {"{\"points\":[[0,0,1]]}", 0},
        {"{\"points\":[]}", 0},
        {"", ERR_BAD_JSON},
        {"[]", ERR_BAD_JSON},
        {"{\"points\":{}}", ERR_BAD_JSON},
        {"{\"points\":[[0]]}", ERR_BAD_JSON},
        {"{\"points\":[[0,0,0,0]]}", ERR_BAD_JSON},
        {"{\"points\":[[0,0],[0,0,0]]}", ERR_BAD_JSON},
        {"{\"points\":[[0,null]]}", ERR_BAD_JSON},
        {"{\"points\":[[0,true]]}", ERR_BAD_JSON},
        {"{\"points\":[[0,0]],\"x\":1}", ERR_BAD_JSON},
        {"{\"points\":[[0,0]]} trailing", ERR_BAD_JSON},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        query_result q;
        route r = points_route(NOISE_PERLIN, NULL, 0, &q);
        reply rp = REPLY_INIT;
        char err[ERRORS_MSG_MAX] = "";
        int rc = api_points(&r, &q, cases[i].body, strlen(cases[i].body), &rp, err, sizeof err);
        CHECKF(rc == cases[i].rc, "%s -> %d (%s)", cases[i].body, rc, err);
        CHECKF(rc != 0 || rp.status == 200, "%s", cases[i].body);
        CHECKF(rc == 0 || err[0] != '\0', "%s: no message", cases[i].body);
        reply_release(&rp);
    }
}

/* t in the query and a third number in the points: two values for one
 * coordinate is an error naming both, not a silent choice. */
static void test_points_conflicting_t(void)
{
    static const char body3[] = "{\"points\":[[0,0,1]]}", body2[] = "{\"points\":[[0,0]]}";
    const char *kv[] = {"t", "5"};
    query_result q;
    route r = points_route(NOISE_SIMPLEX, kv, 1, &q);
    reply rp = REPLY_INIT;
    char err[ERRORS_MSG_MAX] = "";
    CHECK(api_points(&r, &q, body3, sizeof body3 - 1, &rp, err, sizeof err) == ERR_BAD_REQUEST);
    CHECKF(strstr(err, "t is given twice") != NULL, "%s", err);
    CHECK(api_points(&r, &q, body2, sizeof body2 - 1, &rp, err, sizeof err) == 0);
    json_t *doc = json_loadb(rp.body, (size_t)rp.size, 0, NULL);
    CHECK(json_array_size(json_array_get(json_object_get(doc, "gradients"), 0)) == 3);
    json_decref(doc);
    reply_release(&rp);
}

int main(void)
{
    /* jansson's allocations fail on cue too. */
    json_set_alloc_funcs(failalloc_malloc, free);
    RUN(test_points_shapes);
    RUN(test_points_conflicting_t);
    RUN(test_out_of_memory);
    return t_done();
}
