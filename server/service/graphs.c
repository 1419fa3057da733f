/* graphs.c: named graphs, g= decoding and the cache of prepared graphs
 * (see graphs.h). */
#include "service/graphs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/failalloc.h"
#include "service/cost.h"
#include "service/route.h"

/* graphs/presets.json, built in (the path is relative to the directory
 * make runs in, as the viewer's files are: scripts/embed-www.sh), with a
 * NUL after it. */
__asm__(".section .rodata\n"
        ".balign 16\n"
        "noisetile_presets: .incbin \"graphs/presets.json\"\n"
        "noisetile_presets_end: .byte 0\n"
        ".previous\n");
extern const char noisetile_presets[];
extern const char noisetile_presets_end[];

typedef struct {
    char name[ROUTE_NAME_MAX + 1];
    char *description;
    char *text; /* canonical */
    json_t *json; /* canonical JSON */
} named_graph;

typedef struct {
    char *text; /* NULL: empty slot */
    uint32_t seed;
    fieldsrc_graph *graph;
    double cost[2][2];       /* [gradients][dims - 2] */
    char dominant[2][2][256];
    uint64_t used;
} prepared_slot;

struct graphs {
    named_graph *named;
    size_t n_named;
    pthread_mutex_t lock;
    prepared_slot slots[GRAPHS_PREPARED_MAX];
    uint64_t clock;
    atomic_ulong prepares;
};

/* A parser's error as err: the message, and the pointer (prefixed). */
static void graph_error(const noise_graph_error *e, const char *prefix, char *err, size_t err_size)
{
    char pointer[300];
    snprintf(pointer, sizeof pointer, "%s%s", prefix, e->pointer);
    errors_pointer_message(err, err_size, pointer, e->message[0] ? e->message : "bad graph");
}

int graphs_parse_json(const char *json, size_t len, noise_graph **out, char *err,
                      size_t err_size)
{
    noise_graph_error e;
    memset(&e, 0, sizeof e);
    *out = noise_graph_parse_json(json, len, &e);
    if (*out != NULL)
        return 0;
    if (e.code == NOISE_GRAPH_ENOMEM) {
        snprintf(err, err_size, "out of memory parsing the graph");
        return ERR_NOMEM;
    }
    graph_error(&e, "", err, err_size);
    return ERR_BAD_REQUEST;
}

int graphs_decode(const char *text, size_t len, char *canon, int *is_spec, noise_spec *spec,
                  char *err, size_t err_size)
{
    noise_graph_error e;
    memset(&e, 0, sizeof e);
    *is_spec = 0;
    if (len > NOISE_GRAPH_MAX_TEXT) {
        char m[200];
        snprintf(m, sizeof m,
                 "g is %zu bytes, longer than a graph's canonical text can be (%d): a graph "
                 "this large does not fit in a URL; name it with --graphs FILE instead",
                 len, NOISE_GRAPH_MAX_TEXT);
        errors_pointer_message(err, err_size, "", m);
        return ERR_BAD_REQUEST;
    }
    noise_graph *g = noise_graph_decode(text, len, &e);
    if (g == NULL) {
        if (e.code == NOISE_GRAPH_ENOMEM) {
            snprintf(err, err_size, "out of memory decoding the graph");
            return ERR_NOMEM;
        }
        graph_error(&e, "", err, err_size);
        return ERR_BAD_REQUEST;
    }
    int n = noise_graph_encode(g, canon, GRAPHS_TEXT_MAX);
    if (n < 0) {
        noise_graph_destroy(g);
        errors_pointer_message(err, err_size, "", "the graph's canonical text is too long");
        return ERR_BAD_REQUEST;
    }
    if (noise_graph_as_spec(g, spec))
        *is_spec = 1;
    noise_graph_destroy(g);
    return 0;
}

/* ---- named graphs ---- */

static int names_cmp(const void *a, const void *b)
{
    return strcmp(((const named_graph *)a)->name, ((const named_graph *)b)->name);
}

static void named_free(named_graph *n)
{
    free(n->description);
    free(n->text);
    json_decref(n->json);
}

/* Adds the graphs of doc (an object of {name: {description, graph}}) from
 * source (a file name for messages). */
static int add_named(graphs *gs, json_t *doc, const char *source, char *err, size_t err_size)
{
    if (!json_is_object(doc)) {
        snprintf(err, err_size, "%s: must be a JSON object {name: {\"description\": ..., \"graph\": ...}}",
                 source);
        return -1;
    }
    const char *name;
    json_t *entry;
    json_object_foreach(doc, name, entry) {
        if (!route_graph_name_ok(name, strlen(name))) {
            snprintf(err, err_size,
                     "%s: graph name '%.40s' (at /%.40s) must match [a-z][a-z0-9_-]{0,31} and may "
                     "not be a kind, graph or api", source, name, name);
            return -1;
        }
        if (graphs_named(gs, name) != NULL) {
            snprintf(err, err_size, "%s: graph '%s' is defined twice (a preset has that name)",
                     source, name);
            return -1;
        }
        json_t *graph = json_object_get(entry, "graph");
        json_t *desc = json_object_get(entry, "description");
        if (!json_is_object(entry) || graph == NULL || (desc != NULL && !json_is_string(desc))) {
            snprintf(err, err_size,
                     "%s: graph '%s' (at /%s) must be {\"description\": \"...\", \"graph\": <graph>}",
                     source, name, name);
            return -1;
        }
        char *text = json_dumps(graph, JSON_COMPACT | JSON_ENCODE_ANY);
        noise_graph_error e;
        memset(&e, 0, sizeof e);
        noise_graph *g = text != NULL ? noise_graph_parse_json(text, strlen(text), &e) : NULL;
        free(text);
        if (g == NULL) {
            snprintf(err, err_size, "%s: graph '%s' at /%s/graph%s: %s", source, name, name,
                     e.pointer, e.message[0] ? e.message : "out of memory");
            return -1;
        }
        char *canon = malloc(GRAPHS_TEXT_MAX), *js = malloc(64 * 1024);
        int ok = canon != NULL && js != NULL && noise_graph_encode(g, canon, GRAPHS_TEXT_MAX) >= 0 &&
                 noise_graph_to_json(g, js, 64 * 1024) >= 0;
        noise_graph_destroy(g);
        json_t *cj = ok ? json_loads(js, 0, NULL) : NULL;
        free(js);
        named_graph *grown = ok && cj != NULL ? realloc(gs->named, (gs->n_named + 1) * sizeof *grown) : NULL;
        if (grown == NULL) {
            free(canon);
            json_decref(cj);
            snprintf(err, err_size, "%s: graph '%s': its canonical text is over %d bytes, or out of memory",
                     source, name, NOISE_GRAPH_MAX_TEXT);
            return -1;
        }
        gs->named = grown;
        named_graph *n = &gs->named[gs->n_named++];
        memset(n, 0, sizeof *n);
        snprintf(n->name, sizeof n->name, "%s", name);
        n->description = strdup(desc != NULL ? json_string_value(desc) : "");
        n->text = canon;
        n->json = cj;
        if (n->description == NULL) {
            snprintf(err, err_size, "out of memory");
            return -1;
        }
        /* kept sorted: graphs_named bsearches, lists come out in order */
        qsort(gs->named, gs->n_named, sizeof *gs->named, names_cmp);
    }
    return 0;
}

graphs *graphs_create(const char *user_file, char *err, size_t err_size)
{
    graphs *gs = calloc(1, sizeof *gs);
    if (gs == NULL) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&gs->lock, NULL);
    json_error_t je;
    json_t *presets = json_loadb(noisetile_presets, (size_t)(noisetile_presets_end - noisetile_presets),
                                 0, &je);
    if (presets == NULL) {
        snprintf(err, err_size, "graphs/presets.json (built in): %s at line %d", je.text, je.line);
        graphs_destroy(gs);
        return NULL;
    }
    int rc = add_named(gs, presets, "graphs/presets.json (built in)", err, err_size);
    json_decref(presets);
    if (rc == 0 && user_file != NULL && user_file[0] != '\0') {
        json_t *doc = json_load_file(user_file, JSON_REJECT_DUPLICATES, &je);
        if (doc == NULL) {
            snprintf(err, err_size, "--graphs %s: %s (line %d, column %d)", user_file, je.text,
                     je.line, je.column);
            rc = -1;
        } else {
            char source[4200];
            snprintf(source, sizeof source, "--graphs %s", user_file);
            rc = add_named(gs, doc, source, err, err_size);
            json_decref(doc);
        }
    }
    if (rc != 0) {
        graphs_destroy(gs);
        return NULL;
    }
    return gs;
}

void graphs_destroy(graphs *gs)
{
    if (gs == NULL)
        return;
    for (size_t i = 0; i < gs->n_named; i++)
        named_free(&gs->named[i]);
    free(gs->named);
    for (int i = 0; i < GRAPHS_PREPARED_MAX; i++) {
        free(gs->slots[i].text);
        fieldsrc_graph_release(gs->slots[i].graph);
    }
    pthread_mutex_destroy(&gs->lock);
    free(gs);
}

static const named_graph *find_named(const graphs *gs, const char *name)
{
    named_graph key;
    snprintf(key.name, sizeof key.name, "%s", name);
    if (strlen(name) > ROUTE_NAME_MAX || gs->n_named == 0)
        return NULL;
    return bsearch(&key, gs->named, gs->n_named, sizeof *gs->named, names_cmp);
}

const char *graphs_named(const graphs *gs, const char *name)
{
    const named_graph *n = find_named(gs, name);
    return n != NULL ? n->text : NULL;
}

void graphs_names(const graphs *gs, char *buf, size_t buf_size)
{
    size_t used = 0;
    if (buf_size > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < gs->n_named && used < buf_size; i++) {
        int w = snprintf(buf + used, buf_size - used, "%s%s", i ? ", " : "", gs->named[i].name);
        used += w > 0 ? (size_t)w : 0;
    }
}

json_t *graphs_list_document(const graphs *gs)
{
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < gs->n_named; i++) {
        const named_graph *n = &gs->named[i];
        json_t *o = json_pack("{s:s,s:s,s:s,s:O}", "name", n->name, "description", n->description,
                              "graph", n->text, "json", n->json);
        if (o == NULL || json_array_append_new(list, o) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list != NULL ? json_pack("{s:o}", "graphs", list) : NULL;
}

/* ---- prepared graphs ---- */

typedef struct {
    double max_frequency;
} cost_ctx;

static double source_cost(const noise_spec *spec, int gradients, void *vctx)
{
    cost_ctx *c = vctx;
    if (spec->frequency > c->max_frequency)
        c->max_frequency = spec->frequency;
    return cost_source(spec, gradients, NULL);
}

fieldsrc_graph *graphs_prepare(graphs *gs, const char *canon, uint32_t seed, int gradients,
                               int dims, double *cost, char *dominant, int *code, char *err,
                               size_t err_size)
{
    int gi = gradients ? 1 : 0, di = dims == 3 ? 1 : 0;
    pthread_mutex_lock(&gs->lock);
    for (int i = 0; i < GRAPHS_PREPARED_MAX; i++) {
        prepared_slot *s = &gs->slots[i];
        if (s->text != NULL && s->seed == seed && strcmp(s->text, canon) == 0) {
            s->used = ++gs->clock;
            *code = 0;
            fieldsrc_graph *g = fieldsrc_graph_retain(s->graph);
            if (cost != NULL)
                *cost = s->cost[gi][di];
            if (dominant != NULL)
                memcpy(dominant, s->dominant[gi][di], 256);
            pthread_mutex_unlock(&gs->lock);
            return g;
        }
    }
    pthread_mutex_unlock(&gs->lock);

    /* prepared outside the lock: another request may do the same meanwhile,
     * and the later one's copy is dropped */
    prepared_slot fresh;
    memset(&fresh, 0, sizeof fresh);
    noise_graph_error e;
    memset(&e, 0, sizeof e);
    *code = ERR_NOMEM;
    noise_graph *g = noise_graph_decode(canon, strlen(canon), &e);
    noise_graph_field *f = g != NULL ? noise_graph_prepare(g, seed, &e) : NULL;
    noise_graph_destroy(g);
    if (f == NULL) {
        if (e.code != NOISE_GRAPH_ENOMEM && e.code != 0) {
            *code = ERR_BAD_REQUEST;
            graph_error(&e, "", err, err_size);
        } else {
            snprintf(err, err_size, "out of memory preparing the graph");
        }
        return NULL;
    }
    cost_ctx c = {0};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            fresh.cost[a][b] = noise_graph_field_cost(f, a, b + 2, source_cost, &c, COST_GRAPH_NODE,
                                                      fresh.dominant[a][b], 256);
    fresh.graph = fieldsrc_graph_create(f, c.max_frequency);
    fresh.text = strdup(canon);
    fresh.seed = seed;
    if (fresh.graph == NULL || fresh.text == NULL) {
        fieldsrc_graph_release(fresh.graph);
        free(fresh.text);
        snprintf(err, err_size, "out of memory preparing the graph");
        return NULL;
    }
    *code = 0;
    atomic_fetch_add_explicit(&gs->prepares, 1, memory_order_relaxed);
    if (cost != NULL)
        *cost = fresh.cost[gi][di];
    if (dominant != NULL)
        memcpy(dominant, fresh.dominant[gi][di], 256);
    fieldsrc_graph *out = fieldsrc_graph_retain(fresh.graph);

    pthread_mutex_lock(&gs->lock);
    int victim = 0;
    for (int i = 0; i < GRAPHS_PREPARED_MAX; i++) {
        if (gs->slots[i].text == NULL) {
            victim = i;
            break;
        }
        if (gs->slots[i].used < gs->slots[victim].used)
            victim = i;
    }
    prepared_slot old = gs->slots[victim];
    fresh.used = ++gs->clock;
    gs->slots[victim] = fresh;
    pthread_mutex_unlock(&gs->lock);
    free(old.text);
    fieldsrc_graph_release(old.graph);
    return out;
}

unsigned long graphs_prepare_count(const graphs *gs)
{
    return atomic_load_explicit(&gs->prepares, memory_order_relaxed);
}
