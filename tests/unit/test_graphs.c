/* test_graphs.c: the service's side of field graphs (service/graphs.h):
 * the presets built in, --graphs files good and bad, g= decoding with its
 * pointer, a one-source graph recognised as its kind, the keys of graph
 * requests, the error body's pointer, and the graph cost message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errors.h"
#include "service/cost.h"
#include "service/fieldreq.h"
#include "service/graphs.h"
#include "service/reply.h"
#include "test.h"

static void test_presets_built_in(void)
{
    char err[ERRORS_MSG_MAX] = "";
    graphs *g = graphs_create(NULL, err, sizeof err);
    CHECKF(g != NULL, "%s", err);
    if (g == NULL)
        return;
    char names[600];
    graphs_names(g, names, sizeof names);
    CHECKF(strstr(names, "continents") != NULL, "%s", names);
    const char *text = graphs_named(g, "continents");
    CHECK(text != NULL && strlen(text) > 10);
    CHECK(graphs_named(g, "nosuch") == NULL);
    CHECK(graphs_named(g, "perlin") == NULL);
    json_t *doc = graphs_list_document(g);
    CHECK(doc != NULL && json_array_size(json_object_get(doc, "graphs")) >= 4);
    json_decref(doc);
    graphs_destroy(g);
}

/* Writes text to a temporary file; its name into path (64 bytes). */
static void temp_file(const char *text, char *path)
{
    snprintf(path, 64, "/tmp/noisetile-test-graphs-XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
}

static void test_user_file(void)
{
    char path[64], err[ERRORS_MSG_MAX] = "";
    temp_file("{\"hills\": {\"description\": \"d\", \"graph\": {\"node\": \"add\", \"inputs\": "
              "[{\"node\": \"perlin\"}, 0.5]}}}",
              path);
    graphs *g = graphs_create(path, err, sizeof err);
    CHECKF(g != NULL, "%s", err);
    if (g != NULL) {
        CHECK(graphs_named(g, "hills") != NULL && graphs_named(g, "continents") != NULL);
        graphs_destroy(g);
    }
    unlink(path);

    static const struct {
        const char *file, *want1, *want2;
    } bad[] = {
        {"{\"hills\": {\"graph\": {\"node\": \"perlin\", \"octaves\": 40}}}", "'hills'", "/hills/graph/octaves"},
        {"{\"Hills\": {\"graph\": {\"node\": \"perlin\"}}}", "'Hills'", "[a-z]"},
        {"{\"simplex\": {\"graph\": {\"node\": \"perlin\"}}}", "'simplex'", "kind"},
        {"{\"continents\": {\"graph\": {\"node\": \"perlin\"}}}", "continents", "twice"},
        {"{\"x\": {\"description\": 3, \"graph\": {\"node\": \"perlin\"}}}", "'x'", "description"},
        {"[1, 2]", "JSON object", ""},
        {"{\"a\": ", "--graphs", "line"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        temp_file(bad[i].file, path);
        err[0] = '\0';
        g = graphs_create(path, err, sizeof err);
        CHECKF(g == NULL, "%s", bad[i].file);
        CHECKF(strstr(err, bad[i].want1) != NULL && strstr(err, bad[i].want2) != NULL, "%s", err);
        graphs_destroy(g);
        unlink(path);
    }
    err[0] = '\0';
    CHECK(graphs_create("/nonexistent/graphs.json", err, sizeof err) == NULL);
    CHECKF(strstr(err, "/nonexistent/graphs.json") != NULL, "%s", err);
}

static void test_decode(void)
{
    char canon[GRAPHS_TEXT_MAX], err[ERRORS_MSG_MAX], pointer[300];
    int is_spec;
    noise_spec spec;
    const char *t = "perlin(octaves:3)";
    CHECK(graphs_decode(t, strlen(t), canon, &is_spec, &spec, err, sizeof err) == 0);
    CHECK(is_spec == 1 && spec.kind == NOISE_PERLIN && spec.octaves == 3 && strcmp(canon, t) == 0);
    t = "perlin(octaves:3,seed:1)"; /* a seed offset: a graph, not the kind */
    CHECK(graphs_decode(t, strlen(t), canon, &is_spec, &spec, err, sizeof err) == 0 && is_spec == 0);
    t = "add(perlin,0.5)";
    CHECK(graphs_decode(t, strlen(t), canon, &is_spec, &spec, err, sizeof err) == 0 && is_spec == 0);
    /* not canonical: the message quotes the canonical form; a pointer */
    t = "add(perlin(frequency:5e-1),1)";
    CHECK(graphs_decode(t, strlen(t), canon, &is_spec, &spec, err, sizeof err) == ERR_BAD_REQUEST);
    const char *msg = errors_split_pointer(err, pointer, sizeof pointer);
    CHECKF(msg != err && strstr(msg, "add(perlin(frequency:0.5),1)") != NULL, "%s", msg);
    /* too long for a URL */
    char *big = malloc(NOISE_GRAPH_MAX_TEXT + 10);
    memset(big, '1', NOISE_GRAPH_MAX_TEXT + 9);
    big[NOISE_GRAPH_MAX_TEXT + 9] = '\0';
    CHECK(graphs_decode(big, strlen(big), canon, &is_spec, &spec, err, sizeof err) == ERR_BAD_REQUEST);
    msg = errors_split_pointer(err, pointer, sizeof pointer);
    CHECKF(strstr(msg, "URL") != NULL, "%s", msg);
    free(big);
}

static void test_keys_and_cost_message(void)
{
    route r = {ROUTE_TILE, NOISE_PERLIN, 7, 3, -1, 2, 1, ROUTE_EXT_PNG, ROUTE_FIELD_GRAPH, ""};
    render_opts o = {.palette = RENDER_TERRAIN, .shade = 1};
    char key[FIELDREQ_KEY_MAX];
    CHECK(tile_canonical_graph(&r, "add(perlin,0.5)", &o, key, sizeof key) > 0);
    CHECKF(strcmp(key, "graph/7/3/-1/2@1x?g=add(perlin,0.5)&palette=terrain&shade=1&zero=0") == 0,
           "%s", key);
    char err[ERRORS_MSG_MAX];
    CHECK(cost_check_graph(2.5, 1000, 0, 50000000ULL, "/inputs/1", NULL, err, sizeof err) == 0);
    CHECK(cost_check_graph(2000.5, 512 * 512, 1, 50000000ULL, "/inputs/1", "ask for @1x", err,
                           sizeof err) == -1);
    CHECKF(strstr(err, "524.4M") != NULL && strstr(err, "50.0M") != NULL &&
               strstr(err, "/inputs/1") != NULL && strstr(err, "ask for @1x") != NULL,
           "%s", err);
    CHECK(cost_graph(0.1, 10) == 1 && cost_graph(0.25, 10) == 3 && cost_graph(0, 5) == 1);
}

static void test_error_pointer_in_body(void)
{
    reply rp = REPLY_INIT;
    char err[ERRORS_MSG_MAX];
    errors_pointer_message(err, sizeof err, "/inputs/0/octaves", "octaves must be 1..16");
    reply_error(&rp, ERR_BAD_REQUEST, err);
    CHECKF(rp.status == 400 && strstr((const char *)rp.body, "\"pointer\":\"/inputs/0/octaves\"") != NULL &&
               strstr((const char *)rp.body, "\"message\":\"octaves must be 1..16\"") != NULL,
           "%.*s", (int)rp.size, (const char *)rp.body);
    reply_release(&rp);
    /* the whole document: an empty pointer is still given */
    errors_pointer_message(err, sizeof err, "", "not JSON");
    reply_error(&rp, ERR_BAD_REQUEST, err);
    CHECK(strstr((const char *)rp.body, "\"pointer\":\"\"") != NULL);
    reply_release(&rp);
    /* other errors have none */
    reply_error(&rp, ERR_BAD_REQUEST, "plain");
    CHECK(strstr((const char *)rp.body, "pointer") == NULL);
    reply_release(&rp);
}

int main(void)
{
    RUN(test_presets_built_in);
    RUN(test_user_file);
    RUN(test_decode);
    RUN(test_keys_and_cost_message);
    RUN(test_error_pointer_in_body);
    return t_done();
}
