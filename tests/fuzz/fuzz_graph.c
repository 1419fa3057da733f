/* fuzz_graph.c: libFuzzer target for the graph language (noise/graph_parse.c,
 * noise/graph_json.c). The input is given to both readers: as canonical
 * text to noise_graph_decode and as a JSON document to
 * noise_graph_parse_json.
 *
 * Invariants: a refusal has a NOISE_GRAPH_E* code, a message (printable,
 * NUL-terminated) and a pointer that is "" or starts with '/'; a graph
 * decoded from text encodes back to exactly that text; any graph has 1..256
 * nodes and depth 1..32, inputs before their node, its canonical text fits
 * NOISE_GRAPH_MAX_TEXT and is refused (NOISE_ENOSPACE, no overflow) by a
 * buffer one byte short; decoding that text gives the same text; its
 * canonical JSON parses back to the same text; every node has a pointer
 * into that JSON. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "graph_ir.h"
#include "noise_graph.h"

static char text[NOISE_GRAPH_MAX_TEXT + 1], again[NOISE_GRAPH_MAX_TEXT + 1];

static void check_error(const noise_graph_error *err)
{
    FUZZ_ASSERT(err->code <= NOISE_GRAPH_ESYNTAX && err->code >= NOISE_GRAPH_ENOMEM);
    FUZZ_ASSERT(memchr(err->message, '\0', sizeof err->message) != NULL);
    FUZZ_ASSERT(err->message[0] != '\0');
    for (const char *c = err->message; *c; c++)
        FUZZ_ASSERT(*c >= 0x20 && *c < 0x7f);
    FUZZ_ASSERT(memchr(err->pointer, '\0', sizeof err->pointer) != NULL);
    FUZZ_ASSERT(err->pointer[0] == '\0' || err->pointer[0] == '/');
}

static void check_graph(const noise_graph *g)
{
    int n = noise_graph_node_count(g), depth = noise_graph_depth(g);
    FUZZ_ASSERT(n >= 1 && n <= NOISE_GRAPH_MAX_NODES);
    FUZZ_ASSERT(depth >= 1 && depth <= NOISE_GRAPH_MAX_DEPTH);
    for (int i = 0; i < n; i++) {
        const ng_node *nd = &g->nodes[i];
        FUZZ_ASSERT((unsigned)nd->op < NG_OP_COUNT);
        FUZZ_ASSERT(nd->n_in >= 0 && nd->n_in <= NOISE_GRAPH_MAX_INPUTS);
        for (int k = 0; k < nd->n_in; k++)
            FUZZ_ASSERT(nd->in[k] >= 0 && nd->in[k] < i);
        char p[512];
        ng_node_pointer(g, i, p, sizeof p);
        FUZZ_ASSERT(i == n - 1 || p[0] == '/');
    }
    int len = noise_graph_encode(g, text, sizeof text);
    FUZZ_ASSERT(len > 0 && len <= NOISE_GRAPH_MAX_TEXT);
    FUZZ_ASSERT(noise_graph_encode(g, again, (size_t)len) == NOISE_ENOSPACE);
    noise_graph_error err;
    noise_graph *h = noise_graph_decode(text, (size_t)len, &err);
    FUZZ_ASSERT(h != NULL);
    FUZZ_ASSERT(noise_graph_encode(h, again, sizeof again) == len && memcmp(text, again, (size_t)len) == 0);
    FUZZ_ASSERT(noise_graph_node_count(h) == n && noise_graph_depth(h) == depth);
    noise_graph_destroy(h);
    size_t cap = 1 << 20;
    char *json = malloc(cap);
    FUZZ_ASSERT(json != NULL);
    int jl = noise_graph_to_json(g, json, cap);
    FUZZ_ASSERT(jl > 0);
    h = noise_graph_parse_json(json, (size_t)jl, &err);
    FUZZ_ASSERT(h != NULL);
    FUZZ_ASSERT(noise_graph_encode(h, again, sizeof again) == len && memcmp(text, again, (size_t)len) == 0);
    noise_graph_destroy(h);
    free(json);
    noise_spec spec;
    if (noise_graph_as_spec(g, &spec)) {
        FUZZ_ASSERT(n == 1);
        noise_graph *s = noise_graph_from_spec(&spec);
        FUZZ_ASSERT(s != NULL);
        FUZZ_ASSERT(noise_graph_encode(s, again, sizeof again) == len && memcmp(text, again, (size_t)len) == 0);
        noise_graph_destroy(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    noise_graph_error err;
    noise_graph *g = noise_graph_decode((const char *)data, size, &err);
    if (g) {
        check_graph(g);
        /* the decoder takes only the canonical text */
        FUZZ_ASSERT(noise_graph_encode(g, text, sizeof text) == (int)size && memcmp(text, data, size) == 0);
        noise_graph_destroy(g);
    } else {
        check_error(&err);
    }
    g = noise_graph_parse_json((const char *)data, size, &err);
    if (g) {
        check_graph(g);
        noise_graph_destroy(g);
    } else {
        check_error(&err);
    }
    return 0;
}
