/* test_oom.c: allocation failure on the daemon's request paths. The daemon
 * runs in this process (http_start on a free loopback port) and the test
 * talks HTTP to it over a socket; between requests it arms failalloc.h so
 * that the nth allocation of the next request fails, for nth = 1, 2, ...
 * until a request makes fewer than nth allocations.
 *
 * Every request path allocates through failalloc.h: the request state and
 * body (http.c), jansson (json_set_alloc_funcs, set by http_global_init) for query answers and error
 * bodies, the tile cache (cache_set_alloc_funcs), render and PNG encoding
 * (render.c, pngenc.c through libpng's allocator), and libmicrohttpd
 * response objects (failalloc_fail_here before each is created).
 *
 * Asserted for a tile (a cache miss each time), a point, a batch of points,
 * a bad request, a graph's tile, a graph's point and POST /api/graphs: while the armed allocation fails the answer is 503 with
 * the JSON error body, or exactly the normal answer where the code can do
 * without that allocation (a tile the cache could not keep is still sent);
 * never a crash, a hang, a damaged body, another status or a cached failure; the request that needs no failure gets exactly the normal
 * bytes; right after each failure the same request is answered normally.
 * LeakSanitizer checks at exit, after http_stop, that nothing leaked.
 *
 * Render threads keep their scratch blocks between tiles (server/base/scratch.h);
 * here they keep none (scratch_set_keep(0)), so every tile allocates them
 * and each of those allocations is failed in turn, as on a thread's first
 * tile.
 *
 * Only test code arms failalloc (failalloc_arm); the daemon never does, so a
 * release build has no way to turn failures on. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "service/config.h"
#include "base/failalloc.h"
#include "net/http.h"
#include "noise.h"
#include "noise_graph.h"
#include "tiles/fieldsrc.h"
#include "tiles/render.h"
#include "base/scratch.h"
#include "test.h"
#include "test_server_util.h"

static http_server *srv;
static unsigned int port;

typedef struct {
    int status;
    char *body; /* NUL-terminated (the test bodies hold no NUL but PNGs do: use len) */
    size_t len;
    char content_type[64];
} reply;

static void reply_free(reply *r)
{
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* One request on a fresh connection (Connection: close), read to EOF.
 * Returns 0, or -1 if the connection failed or the answer is not HTTP. */
static int request(const char *method, const char *target, const char *body, reply *out)
{
    memset(out, 0, sizeof *out);
    int fd = test_connect_loopback(port, 20);
    if (fd < 0)
        return -1;
    size_t blen = body ? strlen(body) : 0;
    char head[1024];
    int hn = snprintf(head, sizeof head,
                      "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                      "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                      method, target, blen);
    if (send(fd, head, (size_t)hn, MSG_NOSIGNAL) != hn ||
        (blen > 0 && send(fd, body, blen, MSG_NOSIGNAL) != (ssize_t)blen)) {
        close(fd);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        ssize_t n = recv(fd, buf + len, cap - len, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    char *end = strstr(buf, "\r\n\r\n");
    if (end == NULL || sscanf(buf, "HTTP/1.1 %d", &out->status) != 1) {
        free(buf);
        return -1;
    }
    *end = '\0';
    const char *ct = strstr(buf, "\r\nContent-Type: ");
    if (ct != NULL)
        sscanf(ct + 16, "%63[^\r]", out->content_type);
    out->len = len - (size_t)(end + 4 - buf);
    out->body = malloc(out->len + 1);
    memcpy(out->body, end + 4, out->len);
    out->body[out->len] = '\0';
    free(buf);
    return 0;
}

static int same_reply(const reply *a, const reply *b)
{
    return a->status == b->status && a->len == b->len && memcmp(a->body, b->body, a->len) == 0 &&
           strcmp(a->content_type, b->content_type) == 0;
}

static int is_503(const reply *r)
{
    static const char prefix[] = "{\"error\":{\"status\":503,\"message\":\"";
    return r->status == 503 && strcmp(r->content_type, "application/json") == 0 &&
           strncmp(r->body, prefix, sizeof prefix - 1) == 0 && r->body[r->len - 1] == '}';
}

/* The loop: returns the number of allocation failures answered 503, and
 * CHECKs every answer: 503 with the JSON error body, or exactly the normal
 * answer when the code could do without that allocation. want(nth) gives the target and the normal
 * answer of iteration nth. */
typedef const char *(*target_fn)(long nth, reply *normal);

static long fail_each_allocation(const char *name, const char *method, const char *body,
                                 target_fn target)
{
    long nth, n_failed = 0, n_503 = 0, n_absorbed = 0;
    int bad = 0;
    for (nth = 1; nth < 5000 && bad < 5; nth++) {
        reply want, got, after;
        const char *t = target(nth, &want);
        failalloc_arm(nth);
        int rc = request(method, t, body, &got);
        int fired = failalloc_fired();
        failalloc_arm(0);
        CHECKF(rc == 0, "%s: no HTTP answer with allocation %ld failing", name, nth);
        if (!fired) {
            CHECKF(rc == 0 && same_reply(&got, &want),
                   "%s: the request that needs no failure (%ld) got %d, %zu bytes, not the "
                   "normal %d, %zu bytes", name, nth, got.status, got.len, want.status, want.len);
            reply_free(&got);
            reply_free(&want);
            break;
        }
        n_failed++;
        if (rc == 0 && is_503(&got)) {
            n_503++;
        } else if (rc == 0 && same_reply(&got, &want)) {
            n_absorbed++; /* e.g. the cache could not keep the tile: served anyway */
        } else {
            CHECKF(0, "%s: allocation %ld failing: status %d, %zu bytes '%.120s' (want 503 JSON "
                   "or the normal %d, %zu bytes)", name, nth, got.status, got.len,
                   got.status == 200 && got.content_type[0] == 'i' ? "(png)" : got.body,
                   want.status, want.len);
            bad++;
        }
        /* And the daemon carries on: the same request right after is normal. */
        rc = request(method, t, body, &after);
        if (rc != 0 || !same_reply(&after, &want)) {
            CHECKF(0, "%s: after allocation %ld failed, the same request got %d (want %d)", name,
                   nth, after.status, want.status);
            bad++;
        }
        reply_free(&got);
        reply_free(&after);
        reply_free(&want);
    }
    CHECKF(nth < 5000, "%s: more than 5000 allocations?", name);
    printf("# %s: %ld allocations failed one at a time: %ld answered 503, %ld absorbed "
           "(normal answer)\n", name, n_failed, n_503, n_absorbed);
    return n_503;
}

/* ---- the requests ---- */

static char target_buf[256];

/* A new tile each time (x = nth), so every request is a cache miss that
 * renders, encodes and inserts; the normal answer is the PNG render.c makes
 * for it in this process. */
static const char *tile_target(long nth, reply *normal)
{
    noise_spec spec;
    noise_spec_default(&spec, NOISE_PERLIN, 7);
    spec.octaves = 3;
    render_opts opts = {.palette = RENDER_TERRAIN, .shade = 1, .zero = 0};
    unsigned char *png = NULL;
    size_t size = 0;
    memset(normal, 0, sizeof *normal);
    if (render_tile_png(&spec, 4, nth, -3, 256, &opts, &png, &size) == 0) {
        normal->status = 200;
        normal->body = (char *)png;
        normal->len = size;
        snprintf(normal->content_type, sizeof normal->content_type, "image/png");
    }
    snprintf(target_buf, sizeof target_buf,
             "/perlin/7/4/%ld/-3.png?octaves=3&palette=terrain&shade=1", nth);
    return target_buf;
}

#define GRAPH_TEXT "add(perlin(octaves:3),mul(0.5,simplex))"

/* A graph's tile, a new one each time; the normal answer rendered here
 * from the graph prepared in this process. */
static const char *graph_tile_target(long nth, reply *normal)
{
    noise_graph *g = noise_graph_decode(GRAPH_TEXT, strlen(GRAPH_TEXT), NULL);
    noise_graph_field *f = g != NULL ? noise_graph_prepare(g, 7, NULL) : NULL;
    noise_graph_destroy(g);
    fieldsrc_graph *src = f != NULL ? fieldsrc_graph_create(f, 1.0) : NULL;
    render_opts opts = {.palette = RENDER_TERRAIN};
    unsigned char *png = NULL;
    size_t size = 0;
    memset(normal, 0, sizeof *normal);
    if (src != NULL && render_tile_src(NULL, src, 4, nth, -3, 256, &opts, RENDER_PNG, 0, &png, &size) == 0) {
        normal->status = 200;
        normal->body = (char *)png;
        normal->len = size;
        snprintf(normal->content_type, sizeof normal->content_type, "image/png");
    }
    fieldsrc_graph_release(src);
    snprintf(target_buf, sizeof target_buf, "/graph/7/4/%ld/-3.png?g=" GRAPH_TEXT "&palette=terrain", nth);
    return target_buf;
}

static reply point_normal, points_normal, bad_normal, graph_point_normal, graph_post_normal;

static const char *copy_normal(reply *normal, const reply *from)
{
    *normal = *from;
    normal->body = malloc(from->len + 1);
    memcpy(normal->body, from->body, from->len + 1);
    return NULL;
}

#define POINT_TARGET "/simplex/42/point?x=0.25&y=-1.5&octaves=4&fractal=ridged&t=0.5"
#define POINTS_TARGET "/value/3/points?octaves=2&warp=0.5"
#define BAD_TARGET "/perlin/7/point?x=1&octaves=99"

static const char *point_target(long nth, reply *normal)
{
    (void)nth;
    copy_normal(normal, &point_normal);
    return POINT_TARGET;
}

static const char *points_target(long nth, reply *normal)
{
    (void)nth;
    copy_normal(normal, &points_normal);
    return POINTS_TARGET;
}

static const char *bad_target(long nth, reply *normal)
{
    (void)nth;
    copy_normal(normal, &bad_normal);
    return BAD_TARGET;
}

#define GRAPH_POINT_TARGET "/graph/42/point?g=" GRAPH_TEXT "&x=0.25&y=-1.5"
#define GRAPH_POST_TARGET "/api/graphs?seed=3"

static const char *graph_point_target(long nth, reply *normal)
{
    (void)nth;
    copy_normal(normal, &graph_point_normal);
    return GRAPH_POINT_TARGET;
}

static const char *graph_post_target(long nth, reply *normal)
{
    (void)nth;
    copy_normal(normal, &graph_post_normal);
    return GRAPH_POST_TARGET;
}

static const char graph_body[] =
    "{\"node\":\"add\",\"inputs\":[{\"node\":\"perlin\",\"octaves\":3},"
    "{\"node\":\"mul\",\"inputs\":[0.5,{\"node\":\"simplex\"}]}]}";

static const char points_body[] =
    "{\"points\":[[0,0],[0.5,-1.25],[3,4],[1e6,-1e-6],[-7.5,2.25],[0.125,0.875],"
    "[10,20],[-30,40],[1,1],[2,3]]}";

static void test_tile(void)
{
    long n = fail_each_allocation("tile", "GET", NULL, tile_target);
    /* request state, cache entry, render scratch, PNG buffers, libpng and
     * zlib state, the response */
    CHECKF(n >= 8, "only %ld allocations on the tile path", n);
}

static void test_point(void)
{
    CHECK(request("GET", POINT_TARGET, NULL, &point_normal) == 0 && point_normal.status == 200);
    CHECK(strstr(point_normal.body, "\"gradient\":[") != NULL);
    long n = fail_each_allocation("point", "GET", NULL, point_target);
    CHECKF(n >= 10, "only %ld allocations on the point path", n);
    reply_free(&point_normal);
}

static void test_points(void)
{
    CHECK(request("POST", POINTS_TARGET, points_body, &points_normal) == 0 &&
          points_normal.status == 200);
    long n = fail_each_allocation("points", "POST", points_body, points_target);
    /* request state, body, coordinates, values, gradients, the answer's
     * text, the response (batch.h: no allocation per number) */
    CHECKF(n >= 7, "only %ld allocations on the points path", n);
    reply_free(&points_normal);
}

static void test_bad_request(void)
{
    CHECK(request("GET", BAD_TARGET, NULL, &bad_normal) == 0 && bad_normal.status == 400);
    long n = fail_each_allocation("400 answer", "GET", NULL, bad_target);
    CHECKF(n >= 3, "only %ld allocations on the error path", n);
    reply_free(&bad_normal);
}

static void test_graph_tile(void)
{
    long n = fail_each_allocation("graph tile", "GET", NULL, graph_tile_target);
    CHECKF(n >= 8, "only %ld allocations on the graph tile path", n);
}

static void test_graph_point_and_post(void)
{
    CHECK(request("GET", GRAPH_POINT_TARGET, NULL, &graph_point_normal) == 0 &&
          graph_point_normal.status == 200);
    CHECK(strstr(graph_point_normal.body, "\"graph\":\"" GRAPH_TEXT "\"") != NULL);
    long n = fail_each_allocation("graph point", "GET", NULL, graph_point_target);
    CHECKF(n >= 5, "only %ld allocations on the graph point path", n);
    reply_free(&graph_point_normal);
    CHECK(request("POST", GRAPH_POST_TARGET, graph_body, &graph_post_normal) == 0 &&
          graph_post_normal.status == 200);
    n = fail_each_allocation("POST /api/graphs", "POST", graph_body, graph_post_target);
    CHECKF(n >= 5, "only %ld allocations on the POST /api/graphs path", n);
    reply_free(&graph_post_normal);
}

int main(void)
{
    config cfg;
    char msg[512];
    char *argv[] = {"noisetile", "--port", "0", "--threads", "1", "--cache-mb", "16", NULL};
    scratch_set_keep(0);
    if (config_parse(&cfg, 7, argv, NULL, msg, sizeof msg) != 0) {
        fprintf(stderr, "config: %s\n", msg);
        return 1;
    }
    http_global_init();
    srv = http_start(&cfg, msg, sizeof msg);
    if (srv == NULL) {
        fprintf(stderr, "http_start: %s\n", msg);
        return 1;
    }
    port = http_port(srv);
    RUN(test_tile);
    RUN(test_point);
    RUN(test_points);
    RUN(test_bad_request);
    RUN(test_graph_tile);
    RUN(test_graph_point_and_post);
    http_stop(srv, 1000);
    http_global_shutdown();
    return t_done();
}
