/* test_service.c: the service without HTTP (handlers fill a plain reply
 * whose JSON body the test reads), the error table, and two real servers
 * in one process stopped in either order. */
#include <arpa/inet.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "service/config.h"
#include "base/errors.h"
#include "net/http.h"
#include "service/service.h"
#include "test.h"
#include "test_server_util.h"

static service *new_service(const char *public_url)
{
    config cfg;
    char msg[512];
    char *argv[] = {"noisetile", "--cache-mb", "4", "--public-url", (char *)public_url, NULL};
    CHECK(config_parse(&cfg, public_url ? 5 : 3, argv, NULL, msg, sizeof msg) == 0);
    service *s = service_create(&cfg, msg, sizeof msg);
    CHECKF(s != NULL, "%s", msg);
    return s;
}

/* Runs method target through the service; returns the reply's body parsed
 * as JSON (NULL if it is not JSON). */
static json_t *run(service *s, service_request *rq, const char *method, const char *target,
                   reply *out)
{
    static char buf[2048];
    snprintf(buf, sizeof buf, "%s", target);
    rq->method = method;
    rq->target = buf;
    reply_init(out);
    service_handle(s, rq, out);
    if (out->body == NULL || out->content_type == NULL ||
        strcmp(out->content_type, "application/json") != 0)
        return NULL;
    return json_loadb(out->body, (size_t)out->size, 0, NULL);
}

/* Runs GET target through the steps http.c takes: prepare, then for a
 * route that evaluates admit, then run unless answered. Returns the status;
 * *admitted is 1 when the request went past admission to service_run (as
 * on a render-pool worker). */
static unsigned int admit_run(service *s, const char *target, const char *inm,
                              const char *accept_encoding, reply *out, int *admitted)
{
    static char buf[2048];
    static service_request rq;
    memset(&rq, 0, sizeof rq);
    snprintf(buf, sizeof buf, "%s", target);
    rq.method = "GET";
    rq.target = buf;
    rq.raw_target = target;
    rq.if_none_match = inm;
    rq.accept_encoding = accept_encoding;
    reply_init(out);
    *admitted = 0;
    uint64_t cost = 0;
    if (service_prepare(s, &rq, out) != 0)
        return out->status;
    if (route_evaluates(rq.route.id)) {
        if (service_admit(s, &rq, out, &cost) != 0)
            return out->status;
        CHECK(cost > 0 && rq.field.ask != FIELD_ASK_NONE);
        *admitted = 1;
    }
    service_run(s, &rq, out);
    return out->status;
}

/* Issue 26: a request is understood once. On a cache miss the query is
 * parsed and the key printed once, at admission; the worker reads the
 * typed request. A hit asked for in the same words again is found from
 * its target without parsing. */
static void test_parsed_once(void)
{
    service *s = new_service(NULL);
    static const struct {
        const char *target;
        int keys; /* keys printed (tiles and grids) */
    } misses[] = {
        {"/perlin/7/2/1/1.png?octaves=3&palette=terrain&shade=1", 1},   /* picture tile */
        {"/perlin/7/2/1/1@2x.png?octaves=2", 1},                        /* picture @2x */
        {"/perlin/7/2/1/1.npy?octaves=3&gradient=1", 1},                /* numeric tile */
        {"/simplex/3/4/-2/5.r16?warp=0.5", 1},                          /* numeric tile */
        {"/perlin/7/2/1/1.png?encoding=terrarium&height_scale=50", 1},  /* numeric PNG */
        {"/perlin/7/grid.r16?x=0&y=0&step=0.5&width=9&height=7", 1},    /* grid (stream) */
        {"/perlin/7/point?x=1&y=2&octaves=2", 0},
        {"/perlin/7/stats?x=0&y=0&step=0.5&width=16&height=16", 0},
    };
    for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++) {
        const char *t = misses[i].target;
        unsigned long p0 = query_parse_calls(), k0 = fieldreq_key_calls();
        reply rp;
        int admitted;
        CHECKF(admit_run(s, t, NULL, NULL, &rp, &admitted) == 200, "%s: %u", t, rp.status);
        /* the grid is answered at admission; the others run as on a worker */
        CHECKF(admitted == (strstr(t, "grid") == NULL), "%s", t);
        CHECKF(query_parse_calls() - p0 == 1, "%s: parsed %lu times", t, query_parse_calls() - p0);
        CHECKF(fieldreq_key_calls() - k0 == (unsigned long)misses[i].keys, "%s: keyed %lu times", t,
               fieldreq_key_calls() - k0);
        reply_release(&rp);
    }
    /* Hits: a picture tile found by its key (parsed once, remembered),
     * then by its target alone (nothing parsed); a numeric tile (its answer
     * varies with Accept-Encoding) parsed once per request. */
    const char *pic = misses[0].target, *num = misses[2].target;
    unsigned long want_parses[] = {1, 0, 0}, want_num[] = {1, 1, 1};
    for (int k = 0; k < 3; k++) {
        unsigned long p0 = query_parse_calls(), k0 = fieldreq_key_calls();
        reply rp;
        int admitted;
        CHECK(admit_run(s, pic, NULL, NULL, &rp, &admitted) == 200 && !admitted);
        CHECK(rp.body_kind == REPLY_ENTRY);
        CHECKF(query_parse_calls() - p0 == want_parses[k], "picture hit %d", k);
        CHECKF(fieldreq_key_calls() - k0 == want_parses[k], "picture hit %d", k);
        reply_release(&rp);
        p0 = query_parse_calls();
        CHECK(admit_run(s, num, NULL, NULL, &rp, &admitted) == 200 && !admitted);
        CHECKF(query_parse_calls() - p0 == want_num[k], "numeric hit %d", k);
        reply_release(&rp);
    }
    service_destroy(s);
}

/* Issue 27: every request that evaluates the field is held to the work
 * limit; grids too, GET and HEAD alike, before anything is computed. */
static void test_grid_work_limit(void)
{
    service *s = new_service(NULL);
    reply rp;
    int admitted;
    const char *big = "/perlin/1/grid.npy?x=0&y=0&step=0.5&width=4097&height=4097&octaves=16&warp=1&t=1";
    CHECK(admit_run(s, big, NULL, NULL, &rp, &admitted) == 422 && !admitted);
    CHECK(rp.error == ERR_TOO_COSTLY && rp.body_kind == REPLY_OWNED);
    json_t *doc = json_loadb(rp.body, (size_t)rp.size, 0, NULL);
    const char *msg = json_string_value(json_object_get(json_object_get(doc, "error"), "message"));
    CHECKF(msg != NULL && strstr(msg, "estimated work 3222.8M units (16785409 samples x 16 "
                                      "octaves x warp 3 x gradients 1 x t 4)") != NULL &&
               strstr(msg, "over the limit of 400.0M units per request") != NULL,
           "%s", msg ? msg : "(none)");
    json_decref(doc);
    reply_release(&rp);
    /* the largest window at one octave: within the limit, a stream */
    const char *ok = "/perlin/1/grid.npy?x=0&y=0&step=0.5&width=4097&height=4097";
    CHECK(admit_run(s, ok, NULL, NULL, &rp, &admitted) == 200 && !admitted);
    CHECK(rp.body_kind == REPLY_STREAM && rp.size == 128 + 4ULL * 4097 * 4097);
    reply_release(&rp);
    /* gradients count */
    CHECK(admit_run(s, "/perlin/1/grid.npy?x=0&y=0&step=1&width=4097&height=4097&octaves=12",
                    NULL, NULL, &rp, &admitted) == 200);
    reply_release(&rp);
    CHECK(admit_run(s, "/perlin/1/grid.npy?x=0&y=0&step=1&width=4097&height=4097&octaves=12&gradient=1",
                    NULL, NULL, &rp, &admitted) == 422);
    reply_release(&rp);
    /* a grid's limit is its own: over one request's 50M, within a grid's
     * (6 octaves and warp: 302M) */
    CHECK(admit_run(s, "/perlin/1/grid.npy?x=0&y=0&step=1&width=4097&height=4097&octaves=6&warp=1",
                    NULL, NULL, &rp, &admitted) == 200);
    reply_release(&rp);
    CHECK(admit_run(s, "/perlin/1/stats?x=0&y=0&step=1&width=4097&height=4097&octaves=6&warp=1",
                    NULL, NULL, &rp, &admitted) == 422);
    reply_release(&rp);
    service_destroy(s);
}

static void test_point_body(void)
{
    service *s = new_service(NULL);
    service_request rq = {0};
    reply rp;
    json_t *doc = run(s, &rq, "GET", "/perlin/7/point?x=1.5&y=-2.25&octaves=3", &rp);
    CHECK(rp.status == 200 && rq.route.id == ROUTE_POINT && doc != NULL);
    noise_spec spec;
    noise_spec_default(&spec, NOISE_PERLIN, 7);
    spec.octaves = 3;
    double p[2] = {1.5, -2.25}, grad[3];
    double v = noise_eval_point(&spec, p, 2, grad, NULL);
    CHECK(json_real_value(json_object_get(doc, "value")) == v);
    json_t *g = json_object_get(doc, "gradient");
    CHECK(json_array_size(g) == 2 && json_real_value(json_array_get(g, 0)) == grad[0] &&
          json_real_value(json_array_get(g, 1)) == grad[1]);
    CHECK(strcmp(json_string_value(json_object_get(doc, "kind")), "perlin") == 0);
    CHECK(json_integer_value(json_object_get(json_object_get(doc, "params"), "octaves")) == 3);
    CHECK(rp.cache_control != NULL && strstr(rp.cache_control, "public") != NULL);
    json_decref(doc);
    reply_release(&rp);
    service_destroy(s);
}

static void test_errors_and_methods(void)
{
    service *s = new_service(NULL);
    service_request rq = {0};
    reply rp;
    json_t *doc = run(s, &rq, "GET", "/perlin/7/point?x=1&y=2&octaves=20", &rp);
    json_t *e = json_object_get(doc, "error");
    CHECK(rp.status == 400 && json_integer_value(json_object_get(e, "status")) == 400);
    CHECK(strstr(json_string_value(json_object_get(e, "message")), "octaves") != NULL);
    CHECK(strcmp(rp.cache_control, "no-store") == 0);
    json_decref(doc);
    reply_release(&rp);

    doc = run(s, &rq, "DELETE", "/perlin/7/point", &rp);
    CHECK(rp.status == 405 && strcmp(reply_header_value(&rp, "Allow"), "GET, HEAD, OPTIONS") == 0);
    json_decref(doc);
    reply_release(&rp);

    doc = run(s, &rq, "OPTIONS", "/perlin/7/points", &rp);
    CHECK(rp.status == 204 && doc == NULL && rp.size == 0);
    CHECK(strcmp(reply_header_value(&rp, "Access-Control-Allow-Methods"), "POST, OPTIONS") == 0);
    reply_release(&rp);

    doc = run(s, &rq, "GET", "/mauve/7/point?x=1&y=1", &rp);
    CHECK(rp.status == 404 && doc != NULL);
    CHECK(strstr(json_string_value(json_object_get(json_object_get(doc, "error"), "message")),
                 "perlin") != NULL);
    json_decref(doc);
    reply_release(&rp);

    static const char body[] = "{\"points\":[[0,0],[1,2]]}";
    rq.body = body;
    rq.body_len = sizeof body - 1;
    doc = run(s, &rq, "POST", "/value/1/points", &rp);
    CHECK(rp.status == 200 && json_array_size(json_object_get(doc, "values")) == 2);
    json_decref(doc);
    reply_release(&rp);
    rq.body_too_large = 1;
    doc = run(s, &rq, "POST", "/value/1/points", &rp);
    CHECK(rp.status == 413 && rp.error == ERR_TOO_LARGE);
    json_decref(doc);
    reply_release(&rp);
    service_destroy(s);
}

static void test_documents(void)
{
    service *s = new_service(NULL);
    service_request rq = {0};
    reply rp;
    json_t *doc = run(s, &rq, "GET", "/api/kinds", &rp);
    CHECK(rp.status == 200 && rp.body_kind == REPLY_BORROWED);
    CHECK(json_array_size(json_object_get(doc, "kinds")) == NOISE_KIND_COUNT);
    json_decref(doc);
    reply_release(&rp);
    doc = run(s, &rq, "GET", "/healthz", &rp);
    CHECK(strcmp(json_string_value(json_object_get(doc, "status")), "ok") == 0);
    json_decref(doc);
    reply_release(&rp);
    doc = run(s, &rq, "GET", "/openapi.json", &rp);
    CHECK(strcmp(json_string_value(json_object_get(doc, "openapi")), "3.1.0") == 0);
    json_decref(doc);
    reply_release(&rp);
    reply_init(&rp);
    rq.method = "GET";
    char target[] = "/metrics";
    rq.target = target;
    service_handle(s, &rq, &rp);
    CHECK(rp.status == 200 && rp.body_kind == REPLY_OWNED && rp.size > 0);
    CHECK(strstr(rp.body, "noisetile_") != NULL);
    reply_release(&rp);
    service_destroy(s);
}

static const char *tiles_url(json_t *doc)
{
    return json_string_value(json_array_get(json_object_get(doc, "tiles"), 0));
}

static void test_tilejson_base_url(void)
{
    service *s = new_service(NULL);
    service_set_fallback_base(s, "http://127.0.0.1:9");
    service_request rq = {0};
    reply rp;
    rq.host = "evil.example";
    json_t *doc = run(s, &rq, "GET", "/value/3/tile.json", &rp);
    CHECK(rp.status == 200 && strncmp(tiles_url(doc), "http://evil.example/value/3/", 28) == 0);
    CHECK(rp.vary == (REPLY_VARY_BASE_URL | REPLY_VARY_ACCEPT_ENCODING));
    json_decref(doc);
    reply_release(&rp);
    rq.x_forwarded_proto = "https, http";
    rq.x_forwarded_host = "tiles.example:8443";
    doc = run(s, &rq, "GET", "/value/3/tile.json", &rp);
    CHECK(strncmp(tiles_url(doc), "https://tiles.example:8443/value/3/", 35) == 0);
    json_decref(doc);
    reply_release(&rp);
    rq.forwarded = "for=1.2.3.4;proto=http;host=\"fwd.example\", for=5.6.7.8";
    doc = run(s, &rq, "GET", "/value/3/tile.json", &rp);
    CHECK(strncmp(tiles_url(doc), "http://fwd.example/value/3/", 27) == 0);
    json_decref(doc);
    reply_release(&rp);
    memset(&rq, 0, sizeof rq);
    rq.host = "bad host\"<";
    doc = run(s, &rq, "GET", "/value/3/tile.json", &rp);
    CHECK(strncmp(tiles_url(doc), "http://127.0.0.1:9/value/3/", 27) == 0);
    json_decref(doc);
    reply_release(&rp);
    service_destroy(s);

    s = new_service("https://maps.example/noise/");
    memset(&rq, 0, sizeof rq);
    rq.host = "evil.example";
    doc = run(s, &rq, "GET", "/value/3/tile.json", &rp);
    CHECK(strncmp(tiles_url(doc), "https://maps.example/noise/value/3/", 35) == 0);
    /* --public-url: the document no longer depends on Host (only on
     * Accept-Encoding, as every JSON answer does) */
    CHECK(rp.vary == REPLY_VARY_ACCEPT_ENCODING);
    json_decref(doc);
    reply_release(&rp);
    service_destroy(s);
}

static void test_error_table(void)
{
    /* Distinct codes are guaranteed by the compiler (errors.c switches on
     * them); here: each has a status, a text, and none collides with the
     * noise core's codes. */
    static const int codes[] = {
#define CODE(name, code, status, text) ERR_##name,
        ERRORS_MAP(CODE)
#undef CODE
    };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        CHECK(codes[i] < NOISE_ENOSPACE && codes[i] < -99);
        CHECK(errors_status(codes[i]) >= 400 && errors_status(codes[i]) < 600);
        CHECK(strcmp(errors_strerror(codes[i]), "internal error") != 0 ||
              codes[i] == ERR_INTERNAL);
        for (size_t j = 0; j < i; j++)
            CHECK(codes[i] != codes[j]);
    }
    CHECK(errors_status(ERR_NOMEM) == 503 && errors_status(ERR_FRAMING) == 400);
    CHECK(errors_status(-12) == 500 && strcmp(errors_name(ERR_URI_TOO_LONG), "URI_TOO_LONG") == 0);
}

/* GET target from 127.0.0.1:port; returns the status (0 on failure) and
 * the body in buf. */
static int http_get(unsigned int port, const char *target, char *buf, size_t size)
{
    int fd = test_connect_loopback(port, 10);
    if (fd < 0)
        return 0;
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                     target);
    if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        close(fd);
        return 0;
    }
    size_t got = 0;
    ssize_t r;
    while (got + 1 < size && (r = recv(fd, buf + got, size - 1 - got, 0)) > 0)
        got += (size_t)r;
    buf[got] = '\0';
    close(fd);
    int status = 0;
    sscanf(buf, "HTTP/1.1 %d", &status);
    return status;
}

static http_server *start_one(void)
{
    config cfg;
    char msg[512];
    char *argv[] = {"noisetile", "--port", "0", "--threads", "1", "--cache-mb", "4", NULL};
    CHECK(config_parse(&cfg, 7, argv, NULL, msg, sizeof msg) == 0);
    http_server *s = http_start(&cfg, msg, sizeof msg);
    CHECKF(s != NULL, "%s", msg);
    return s;
}

/* Each server owns its documents, cache and fallback response: stopping
 * one leaves the other answering every kind of reply. */
static void check_serves(http_server *s, const char *who)
{
    static char buf[65536];
    CHECKF(http_get(http_port(s), "/healthz", buf, sizeof buf) == 200, "%s healthz", who);
    CHECKF(http_get(http_port(s), "/api/kinds", buf, sizeof buf) == 200 &&
               strstr(buf, "\"kinds\"") != NULL, "%s kinds", who);
    CHECKF(http_get(http_port(s), "/perlin/1/0/0/0.png", buf, sizeof buf) == 200, "%s tile",
           who);
    CHECKF(http_get(http_port(s), "/perlin/1/point?x=1", buf, sizeof buf) == 400 &&
               strstr(buf, "missing parameter 'y'") != NULL, "%s error", who);
}

static void test_two_servers(void)
{
    for (int order = 0; order < 2; order++) {
        http_server *a = start_one(), *b = start_one();
        if (a == NULL || b == NULL) {
            http_stop(a, 100);
            http_stop(b, 100);
            return;
        }
        CHECK(http_port(a) != http_port(b));
        check_serves(a, "a");
        check_serves(b, "b");
        http_server *first = order == 0 ? a : b, *second = order == 0 ? b : a;
        http_stop(first, 1000);
        check_serves(second, order == 0 ? "b after a stopped" : "a after b stopped");
        http_stop(second, 1000);
    }
}

int main(void)
{
    http_global_init();
    RUN(test_parsed_once);
    RUN(test_grid_work_limit);
    RUN(test_point_body);
    RUN(test_errors_and_methods);
    RUN(test_documents);
    RUN(test_tilejson_base_url);
    RUN(test_error_table);
    RUN(test_two_servers);
    http_global_shutdown();
    return t_done();
}
