/* test_graph_parse.c: unit tests of the graph language (noise/graph_parse.c,
 * noise/graph_json.c): canonical texts and JSON of known graphs, the node
 * pointers, a table of bad inputs (code, pointer, message), many spellings
 * of the same graphs giving one text, and seeded random graphs: encode ->
 * decode -> encode is the identity, the canonical JSON parses back to the
 * same text, and distinct graphs never share a text.
 */
#include "graph_ir.h"
#include "noise.h"
#include "noise_graph.h"
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char text_buf[65536], json_buf[1 << 20];

/* parse JSON (starts with '{', '[', '"' or is a JSON literal) or decode text */
static noise_graph *parse_any(const char *s, noise_graph_error *err)
{
    return noise_graph_parse_json(s, strlen(s), err);
}

static const char *text_of(const noise_graph *g)
{
    int n = noise_graph_encode(g, text_buf, sizeof text_buf);
    return n < 0 ? "(encode failed)" : text_buf;
}

/* ---- known graphs: JSON -> canonical text ---- */

typedef struct {
    const char *json;
    const char *text;
    int nodes, depth;
} canon_case;

static const canon_case canon_cases[] = {
    { "{\"node\":\"perlin\"}", "perlin", 1, 1 },
    { "{\"node\":\"add\",\"inputs\":[{\"node\":\"fractal\",\"inputs\":[{\"node\":\"perlin\",\"frequency\":0.01}],"
      "\"octaves\":6},{\"node\":\"mul\",\"inputs\":[0.5,{\"node\":\"x\"}]}]}",
      "add(fractal(perlin(frequency:0.01),octaves:6),mul(0.5,x))", 6, 3 },
    { "1.5", "1.5", 1, 1 },
    /* JSON escapes and whitespace */
    { " {\"n\\u006fde\" :\t\"per\\u006cin\",\r\n\"fractal\":\"ridg\\u0065d\"} ", "perlin(fractal:ridged)", 1, 1 },
    { "-0", "0", 1, 1 },
    { "{\"node\":\"constant\",\"value\":-2.5e0}", "-2.5", 1, 1 },
    { "{\"node\":\"perlin\",\"seed\":-1}", "perlin(seed:4294967295)", 1, 1 },
    { "{\"node\":\"perlin\",\"seed\":4294967295}", "perlin(seed:4294967295)", 1, 1 },
    { "{\"node\":\"perlin\",\"seed\":0,\"frequency\":1,\"octaves\":1,\"lattice\":\"square\",\"gradients\":\"table\"}",
      "perlin", 1, 1 },
    { "{\"node\":\"cellular\",\"return\":\"f2-f1\",\"jitter\":0.5,\"distance\":\"euclidean\"}",
      "cellular(return:f2-f1,jitter:0.5)", 1, 1 },
    { "{\"node\":\"simplex\",\"t\":0.25,\"octaves\":4,\"fractal\":\"ridged\"}",
      "simplex(octaves:4,fractal:ridged,t:0.25)", 1, 1 },
    { "{\"node\":\"classic\",\"fade\":\"quintic\",\"period\":64}", "classic(period:64,fade:quintic)", 1, 1 },
    { "{\"node\":\"mul\",\"inputs\":[{\"node\":\"x\"},{\"node\":\"x\"}]}", "mul(x,x)", 2, 2 },
    { "{\"nodes\":{\"h\":{\"node\":\"perlin\",\"frequency\":2}},\"output\":{\"node\":\"add\",\"inputs\":[\"h\","
      "{\"node\":\"abs\",\"inputs\":[\"h\"]}]}}",
      "add(perlin(frequency:2),abs($1))", 3, 3 },
    /* the same with inline copies: merged */
    { "{\"node\":\"add\",\"inputs\":[{\"node\":\"perlin\",\"frequency\":2},{\"node\":\"abs\",\"inputs\":["
      "{\"frequency\":2,\"node\":\"perlin\"}]}]}",
      "add(perlin(frequency:2),abs($1))", 3, 3 },
    { "{\"node\":\"curve\",\"inputs\":[{\"node\":\"perlin\"}],\"points\":[[-1,-1],[0,0.5],[1,1]]}",
      "curve(perlin,points:(-1,-1,0,0.5,1,1))", 2, 2 },
    { "{\"node\":\"curve\",\"inputs\":[{\"node\":\"perlin\"}],\"points\":[-1,-1,0,0.5,1,1]}",
      "curve(perlin,points:(-1,-1,0,0.5,1,1))", 2, 2 },
    { "{\"node\":\"terrace\",\"inputs\":[{\"node\":\"value\"}],\"points\":[0,0.5,1],\"invert\":true,\"smooth\":false}",
      "terrace(value,points:(0,0.5,1),invert:true)", 2, 2 },
    { "{\"node\":\"fractal\",\"inputs\":[{\"node\":\"perlin\"}],\"type\":\"pingpong\",\"strength\":3}",
      "fractal(perlin,type:pingpong,strength:3)", 2, 2 },
    { "{\"node\":\"fractal\",\"inputs\":[{\"node\":\"perlin\"}],\"type\":\"fbm\",\"octaves\":3,\"lacunarity\":2,"
      "\"gain\":0.5}",
      "fractal(perlin)", 2, 2 },
    { "{\"node\":\"select\",\"inputs\":[-1,1,{\"node\":\"perlin\"}],\"lower\":0,\"upper\":1,\"falloff\":0.5}",
      "select(-1,1,perlin,lower:0,falloff:0.5)", 4, 2 },
    { "{\"node\":\"warp\",\"inputs\":[{\"node\":\"perlin\"},{\"node\":\"value\",\"seed\":1},{\"node\":\"value\","
      "\"seed\":2}],\"amplitude\":0.25}",
      "warp(perlin,value(seed:1),value(seed:2),amplitude:0.25)", 4, 2 },
    { "{\"node\":\"seed_offset\",\"inputs\":[{\"node\":\"perlin\"}],\"seed\":7}", "seed_offset(perlin,seed:7)", 2,
      2 },
    { "{\"node\":\"domain_offset\",\"inputs\":[{\"node\":\"perlin\"}],\"x\":1e6,\"t\":0.001}",
      "domain_offset(perlin,x:1e6,t:0.001)", 2, 2 },
    { "{\"node\":\"distance\",\"px\":3}", "distance(px:3)", 1, 1 },
    /* unused named nodes: checked, then dropped */
    { "{\"nodes\":{\"a\":{\"node\":\"x\"},\"b\":{\"node\":\"y\"}},\"output\":\"a\"}", "x", 1, 1 },
    /* a name naming a name */
    { "{\"nodes\":{\"a\":\"b\",\"b\":{\"node\":\"neg\",\"inputs\":[\"c\"]},\"c\":2},\"output\":{\"node\":"
      "\"add\",\"inputs\":[\"a\",\"c\"]}}",
      "add(neg(2),2)", 3, 3 },
    { "{\"node\":\"distance\",\"px\":0,\"py\":0}", "distance", 1, 1 },
    { "{\"node\":\"div\",\"inputs\":[{\"node\":\"t\"},{\"node\":\"y\"}]}", "div(t,y)", 3, 2 },
    { "{\"node\":\"remap\",\"inputs\":[{\"node\":\"perlin\"}],\"from_min\":0,\"to_max\":2}",
      "remap(perlin,from_min:0,to_max:2)", 2, 2 },
    { "{\"node\":\"clamp\",\"inputs\":[{\"node\":\"perlin\"}],\"min\":-0.5,\"max\":-0.5}",
      "clamp(perlin,min:-0.5,max:-0.5)", 2, 2 },
    { "{\"node\":\"pow\",\"inputs\":[{\"node\":\"perlin\"}],\"exponent\":2}", "pow(perlin)", 2, 2 },
    { "{\"node\":\"powi\",\"inputs\":[{\"node\":\"perlin\"}],\"n\":0}", "powi(perlin,n:0)", 2, 2 },
    { "{\"node\":\"smin\",\"inputs\":[{\"node\":\"perlin\"},{\"node\":\"value\"}],\"k\":0.1}", "smin(perlin,value)",
      3, 2 },
    /* a sub-graph written twice deep down: the repeat is $N of its first writing */
    { "{\"node\":\"blend\",\"inputs\":[{\"node\":\"neg\",\"inputs\":[{\"node\":\"sqrt\",\"inputs\":[{\"node\":"
      "\"perlin\",\"octaves\":2}]}]},{\"node\":\"sqrt\",\"inputs\":[{\"node\":\"perlin\",\"octaves\":2}]},"
      "{\"node\":\"ssqrt\",\"inputs\":[{\"node\":\"x\"}]}]}",
      "blend(neg(sqrt(perlin(octaves:2))),$2,ssqrt(x))", 6, 4 },
};

static void test_canonical_texts(void)
{
    for (size_t i = 0; i < sizeof canon_cases / sizeof canon_cases[0]; i++) {
        const canon_case *c = &canon_cases[i];
        noise_graph_error err;
        noise_graph *g = parse_any(c->json, &err);
        CHECKF(g != NULL, "%s: %d %s %s", c->json, err.code, err.pointer, err.message);
        if (!g)
            continue;
        CHECKF(strcmp(text_of(g), c->text) == 0, "%s: got %s, want %s", c->json, text_buf, c->text);
        CHECKF(noise_graph_node_count(g) == c->nodes, "%s: %d nodes", c->text, noise_graph_node_count(g));
        CHECKF(noise_graph_depth(g) == c->depth, "%s: depth %d", c->text, noise_graph_depth(g));
        /* the text decodes to the same graph */
        noise_graph *h = noise_graph_decode(c->text, strlen(c->text), &err);
        CHECKF(h != NULL, "%s: %d %s", c->text, err.code, err.message);
        if (h) {
            CHECK(strcmp(text_of(h), c->text) == 0);
            noise_graph_destroy(h);
        }
        noise_graph_destroy(g);
    }
}

/* ---- canonical JSON and node pointers ---- */

static void test_json_and_pointers(void)
{
    noise_graph_error err;
    const char *t = "add(perlin(seed:3),abs($1),x,x,2,2)";
    noise_graph *g = noise_graph_decode(t, strlen(t), &err);
    CHECKF(g != NULL, "%s", err.message);
    if (!g)
        return;
    CHECK(noise_graph_to_json(g, json_buf, sizeof json_buf) > 0);
    CHECKF(strcmp(json_buf,
                  "{\"nodes\":{\"n0\":{\"node\":\"perlin\",\"frequency\":1,\"octaves\":1,\"lacunarity\":2,\"gain\":"
                  "0.5,\"fractal\":\"fbm\",\"warp\":0,\"lattice\":\"square\",\"gradients\":\"table\",\"seed\":3},"
                  "\"n1\":{\"node\":\"x\"}},\"output\":{\"node\":\"add\",\"inputs\":[\"n0\",{\"node\":\"abs\","
                  "\"inputs\":[\"n0\"]},\"n1\",\"n1\",2,2]}}") == 0,
           "%s", json_buf);
    const char *want[] = { "/nodes/n0", "/output/inputs/1", "/nodes/n1", "/output/inputs/4", "/output" };
    CHECK(noise_graph_node_count(g) == 5);
    for (int i = 0; i < 5 && i < noise_graph_node_count(g); i++) {
        char p[256];
        ng_node_pointer(g, i, p, sizeof p);
        CHECKF(strcmp(p, want[i]) == 0, "node %d (%s): %s, want %s", i, ng_node_name(&g->nodes[i]), p, want[i]);
    }
    CHECK(strcmp(ng_node_name(&g->nodes[0]), "perlin") == 0);
    CHECK(strcmp(ng_node_name(&g->nodes[1]), "abs") == 0);
    CHECK(g->nodes[4].op == NG_ADD && g->nodes[4].n_in == 6);
    CHECK(g->nodes[0].op == NG_SOURCE && g->nodes[0].seed == 3 && g->nodes[0].spec.kind == NOISE_PERLIN);
    /* a small buffer: refused, no overflow */
    char small[10];
    CHECK(noise_graph_to_json(g, small, sizeof small) == NOISE_ENOSPACE);
    CHECK(noise_graph_encode(g, small, sizeof small) == NOISE_ENOSPACE);
    CHECK(noise_graph_encode(g, text_buf, strlen(t)) == NOISE_ENOSPACE);
    CHECK(noise_graph_encode(g, text_buf, strlen(t) + 1) == (int)strlen(t));
    noise_graph_destroy(g);

    /* without shared nodes the document is the root object */
    t = "fractal(perlin(frequency:0.5),octaves:4)";
    g = noise_graph_decode(t, strlen(t), &err);
    CHECK(g != NULL);
    if (g) {
        char p[256];
        ng_node_pointer(g, 0, p, sizeof p);
        CHECK(strcmp(p, "/inputs/0") == 0);
        ng_node_pointer(g, 1, p, sizeof p);
        CHECK(strcmp(p, "") == 0);
        noise_graph_to_json(g, json_buf, sizeof json_buf);
        CHECKF(strcmp(json_buf, "{\"node\":\"fractal\",\"inputs\":[{\"node\":\"perlin\",\"frequency\":0.5,\"octaves\":"
                                "1,\"lacunarity\":2,\"gain\":0.5,\"fractal\":\"fbm\",\"warp\":0,\"lattice\":\"square\","
                                "\"gradients\":\"table\",\"seed\":0}],\"type\":\"fbm\",\"octaves\":4,\"lacunarity\":2,"
                                "\"gain\":0.5}") == 0,
               "%s", json_buf);
        noise_graph_destroy(g);
    }
}

/* ---- specs: one-node graphs ---- */

static void test_specs(void)
{
    const char *names[] = { "frequency", "octaves", "fractal", "lattice" };
    const char *values[] = { "0.02", "5", "ridged", "triangle" };
    noise_spec spec, back;
    CHECK(noise_spec_parse(&spec, NOISE_VALUE, 99, 4, names, values, NULL, 0) == 0);
    noise_graph *g = noise_graph_from_spec(&spec);
    CHECK(g != NULL);
    if (!g)
        return;
    CHECK(strcmp(text_of(g), "value(frequency:0.02,octaves:5,fractal:ridged,lattice:triangle)") == 0);
    CHECK(noise_graph_as_spec(g, &back) == 1);
    char a[512], b[512];
    noise_spec_canonical(&spec, a, sizeof a);
    noise_spec_canonical(&back, b, sizeof b);
    CHECK(strcmp(a, b) == 0 && back.kind == NOISE_VALUE && back.seed == 0);
    CHECK(noise_graph_planar(g) == 0);
    noise_graph_destroy(g);
    /* every kind at its defaults is its bare name */
    for (int k = 0; k < NOISE_KIND_COUNT; k++) {
        noise_spec_default(&spec, (noise_kind)k, 5);
        g = noise_graph_from_spec(&spec);
        CHECK(g && strcmp(text_of(g), noise_kind_name((noise_kind)k)) == 0);
        CHECK(g && noise_graph_planar(g) == (k == NOISE_CLASSIC));
        noise_graph_destroy(g);
    }
    /* fields a kind does not use: the graph is the one its text reads as */
    noise_spec_default(&spec, NOISE_SIMPLEX, 0);
    spec.lattice = NOISE_TRIANGLE;
    spec.distance = NOISE_CHEBYSHEV;
    spec.t = 5; /* has_t 0: no t */
    g = noise_graph_from_spec(&spec);
    noise_graph_error e2;
    noise_graph *h = noise_graph_decode("simplex", 7, &e2);
    CHECK(g && h && strcmp(text_of(g), "simplex") == 0);
    CHECK(g && h && noise_graph_as_spec(g, &back) && back.lattice == NOISE_SQUARE &&
          back.distance == NOISE_EUCLIDEAN && back.t == 0);
    noise_graph_destroy(g);
    noise_graph_destroy(h);
    /* a seed offset or a second node: not a spec */
    noise_graph_error err;
    const char *t = "perlin(seed:1)";
    g = noise_graph_decode(t, strlen(t), &err);
    CHECK(g && noise_graph_as_spec(g, &back) == 0);
    noise_graph_destroy(g);
    t = "neg(perlin)";
    g = noise_graph_decode(t, strlen(t), &err);
    CHECK(g && noise_graph_as_spec(g, &back) == 0);
    noise_graph_destroy(g);
    /* planar: every source planar and no t node */
    const char *planar[][2] = { { "add(classic,perlin(gradients:angle))", "1" },
                                { "add(classic,perlin)", "0" },
                                { "add(classic,t)", "0" },
                                { "x", "0" } };
    for (size_t i = 0; i < sizeof planar / sizeof planar[0]; i++) {
        g = noise_graph_decode(planar[i][0], strlen(planar[i][0]), &err);
        CHECKF(g != NULL, "%s: %s", planar[i][0], err.message);
        CHECKF(g && noise_graph_planar(g) == (planar[i][1][0] == '1'), "%s", planar[i][0]);
        noise_graph_destroy(g);
    }
}

/* ---- bad input: code, pointer, message ---- */

typedef struct {
    int json;           /* 1: JSON, 0: canonical text */
    const char *input;
    int code;
    const char *pointer;
    const char *message; /* a substring */
} bad_case;

static const bad_case bad_cases[] = {
    /* not JSON / not the grammar, with the character */
    { 1, "", NOISE_GRAPH_ESYNTAX, "", "empty" },
    { 1, "{\"node\":\"perlin\"", NOISE_GRAPH_ESYNTAX, "", "at the end of the document (character 17)" },
    { 1, "{\"node\":\"perlin\",}", NOISE_GRAPH_ESYNTAX, "", "character 18" },
    { 1, "{\"node\":'perlin'}", NOISE_GRAPH_ESYNTAX, "", "character 9" },
    { 1, "{\"node\":\"perlin\"} x", NOISE_GRAPH_ESYNTAX, "", "more after the end" },
    { 1, "{\"node\":\"add\",\"inputs\":[01,2]}", NOISE_GRAPH_ESYNTAX, "", "leading zero" },
    { 1, "{\"node\":\"add\",\"inputs\":[1.,2]}", NOISE_GRAPH_ESYNTAX, "", "decimal point" },
    { 1, "{\"node\":\"add\",\"inputs\":[NaN,2]}", NOISE_GRAPH_ESYNTAX, "", "character 25" },
    { 1, "{\"node\":\"per\\ud800lin\"}", NOISE_GRAPH_ESYNTAX, "", "surrogate" },
    { 1, "{\"node\":\"per\xff\"}", NOISE_GRAPH_ESYNTAX, "", "UTF-8" },
    { 1, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
         "[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
      NOISE_GRAPH_ELIMIT, "", "more than 128 deep" },
    { 0, "", NOISE_GRAPH_ESYNTAX, "", "empty" },
    { 0, "add(x,y", NOISE_GRAPH_ESYNTAX, "", "character 8" },
    { 0, "add(x,,y)", NOISE_GRAPH_ESYNTAX, "", "character 7" },
    { 0, "add(x, y)", NOISE_GRAPH_ESYNTAX, "", "character 7" },
    { 0, "add(x,y))", NOISE_GRAPH_ESYNTAX, "", "character 9" },
    { 0, "perlin(frequency:)", NOISE_GRAPH_ESYNTAX, "", "character 18" },
    { 0, "add(x,$)", NOISE_GRAPH_ESYNTAX, "", "'$' not followed" },
    { 0, "curve(x,points:(0,1,)", NOISE_GRAPH_ESYNTAX, "", "character 21" },
    /* unknown node: the names listed */
    { 1, "{\"node\":\"perlinn\"}", NOISE_GRAPH_ENODE, "/node", "unknown node 'perlinn'; nodes: value, perlin," },
    { 1, "{\"node\":\"add\",\"inputs\":[1,{\"node\":\"foo\"}]}", NOISE_GRAPH_ENODE, "/inputs/1/node",
      "seed_offset" },
    { 1, "{\"inputs\":[]}", NOISE_GRAPH_ENODE, "", "needs \"node\"" },
    { 1, "{\"node\":3}", NOISE_GRAPH_ENODE, "/node", "must be a node name" },
    { 0, "add(x,foo(y))", NOISE_GRAPH_ENODE, "/inputs/1/node", "unknown node 'foo'" },
    /* wrong input count or type */
    { 1, "{\"node\":\"add\",\"inputs\":[1]}", NOISE_GRAPH_EINPUTS, "/inputs", "add takes 2 to 16 inputs, got 1" },
    { 1, "{\"node\":\"add\"}", NOISE_GRAPH_EINPUTS, "", "add takes 2 to 16 inputs, got 0" },
    { 1, "{\"node\":\"neg\",\"inputs\":[1,2]}", NOISE_GRAPH_EINPUTS, "/inputs", "neg takes 1 input, got 2" },
    { 1, "{\"node\":\"blend\",\"inputs\":[1,2]}", NOISE_GRAPH_EINPUTS, "/inputs", "blend takes 3 inputs, got 2" },
    { 1, "{\"node\":\"perlin\",\"inputs\":[1]}", NOISE_GRAPH_EINPUTS, "/inputs", "perlin takes no inputs, got 1" },
    { 1, "{\"node\":\"neg\",\"inputs\":{\"a\":1}}", NOISE_GRAPH_EINPUTS, "/inputs", "inputs must be an array" },
    { 1, "{\"node\":\"neg\",\"inputs\":[\"hills\"]}", NOISE_GRAPH_EINPUTS, "/inputs/0",
      "got the string 'hills'" },
    { 1, "{\"node\":\"neg\",\"inputs\":[true]}", NOISE_GRAPH_EINPUTS, "/inputs/0", "got a boolean" },
    { 1, "{\"node\":\"neg\",\"inputs\":[[1]]}", NOISE_GRAPH_EINPUTS, "/inputs/0", "got an array" },
    { 1, "{\"nodes\":{\"a\":{\"node\":\"x\"}},\"output\":{\"node\":\"neg\",\"inputs\":[\"b\"]}}",
      NOISE_GRAPH_EINPUTS, "/output/inputs/0", "no node named 'b'" },
    { 0, "neg(x,y)", NOISE_GRAPH_EINPUTS, "/inputs", "neg takes 1 input, got 2" },
    { 0, "add(x,$5)", NOISE_GRAPH_EINPUTS, "/inputs/1", "$5 refers to a node not written before it" },
    /* parameters: unknown, duplicate, out of range, wrong type */
    { 1, "{\"node\":\"perlin\",\"octaves\":20}", NOISE_GRAPH_EPARAM, "/octaves",
      "perlin: octaves must be an integer in 1..16, got '20'" },
    { 1, "{\"node\":\"perlin\",\"octaves\":\"4\"}", NOISE_GRAPH_EPARAM, "/octaves", "must be a number, got the string" },
    { 1, "{\"node\":\"perlin\",\"lattice\":1}", NOISE_GRAPH_EPARAM, "/lattice", "must be a word (a string), got 1" },
    { 1, "{\"node\":\"perlin\",\"frequency\":0.5,\"octave\":2}", NOISE_GRAPH_EPARAM, "/octave",
      "unknown parameter 'octave'" },
    { 1, "{\"node\":\"perlin\",\"distance\":\"manhattan\"}", NOISE_GRAPH_EPARAM, "/distance",
      "applies only to cellular" },
    { 1, "{\"node\":\"perlin\",\"octaves\":2,\"octaves\":3}", NOISE_GRAPH_EPARAM, "/octaves", "given twice" },
    { 1, "{\"node\":\"perlin\",\"seed\":4294967296}", NOISE_GRAPH_EPARAM, "/seed",
      "seed must be an integer in -2147483648..4294967295, got 4294967296" },
    { 1, "{\"node\":\"perlin\",\"seed\":-2147483649}", NOISE_GRAPH_EPARAM, "/seed", "got -2147483649" },
    { 1, "{\"node\":\"perlin\",\"seed\":1.5}", NOISE_GRAPH_EPARAM, "/seed", "got 1.5" },
    { 1, "{\"node\":\"perlin\",\"t\":1e400}", NOISE_GRAPH_EPARAM, "/t", "t must be a finite number, got '1e400'" },
    { 1, "{\"node\":\"classic\",\"t\":1}", NOISE_GRAPH_EPARAM, "/t", "a 2D field" },
    { 1, "{\"node\":\"simplex\",\"period\":4}", NOISE_GRAPH_EPARAM, "/period", "no square period" },
    { 1, "{\"node\":\"perlin\",\"period\":3.5}", NOISE_GRAPH_EPARAM, "/period", "whole number" },
    { 1, "{\"node\":\"perlin\",\"\\ud83d\\ude00\":1}", NOISE_GRAPH_EPARAM, "/\xf0\x9f\x98\x80",
      "unknown parameter '?\?\?\?'" },
    { 1, "{\"node\":\"perlin\",\"fractal\":\"\\u0000\"}", NOISE_GRAPH_EPARAM, "/fractal", "got '?'" },
    { 1, "{\"node\":\"x\",\"k\":1}", NOISE_GRAPH_EPARAM, "/k", "x takes no parameters" },
    { 1, "{\"node\":\"smin\",\"inputs\":[1,2],\"k\":0}", NOISE_GRAPH_EPARAM, "/k",
      "smin: k must be a number in (0, 1e6], got 0" },
    { 1, "{\"node\":\"smin\",\"inputs\":[1,2],\"kk\":1}", NOISE_GRAPH_EPARAM, "/kk", "unknown parameter 'kk'; known: k" },
    { 1, "{\"node\":\"pow\",\"inputs\":[1],\"exponent\":17}", NOISE_GRAPH_EPARAM, "/exponent", "(0, 16]" },
    { 1, "{\"node\":\"powi\",\"inputs\":[1],\"n\":2.5}", NOISE_GRAPH_EPARAM, "/n", "an integer in 0..16" },
    { 1, "{\"node\":\"domain_scale\",\"inputs\":[1],\"scale\":0}", NOISE_GRAPH_EPARAM, "/scale", "nonzero" },
    { 1, "{\"node\":\"domain_rotate\",\"inputs\":[1],\"angle\":400}", NOISE_GRAPH_EPARAM, "/angle", "[-360, 360]" },
    { 1, "{\"node\":\"warp\",\"inputs\":[1,2,3],\"amplitude\":2e6}", NOISE_GRAPH_EPARAM, "/amplitude", "1e6" },
    { 1, "{\"node\":\"scale_bias\",\"inputs\":[1],\"scale\":\"2\"}", NOISE_GRAPH_EPARAM, "/scale",
      "a finite number, got the string '2'" },
    { 1, "{\"node\":\"terrace\",\"inputs\":[1],\"points\":[0,1],\"invert\":2}", NOISE_GRAPH_EPARAM, "/invert",
      "true or false" },
    { 1, "{\"node\":\"fractal\",\"inputs\":[1],\"type\":\"billow\"}", NOISE_GRAPH_EPARAM, "/type",
      "one of fbm, ridged, turbulence, pingpong" },
    { 1, "{\"node\":\"fractal\",\"inputs\":[1],\"octaves\":17}", NOISE_GRAPH_EPARAM, "/octaves", "1..16" },
    { 1, "{\"node\":\"fractal\",\"inputs\":[1],\"gain\":0}", NOISE_GRAPH_EPARAM, "/gain", "(0, 1]" },
    { 1, "{\"node\":\"fractal\",\"inputs\":[1],\"strength\":3}", NOISE_GRAPH_EPARAM, "/strength",
      "strength applies only to type pingpong" },
    { 1, "{\"node\":\"seed_offset\",\"inputs\":[1],\"seed\":\"1\"}", NOISE_GRAPH_EPARAM, "/seed", "integer" },
    { 1, "{\"node\":\"constant\"}", NOISE_GRAPH_EPARAM, "", "constant needs the parameter value" },
    { 0, "perlin(octaves:20)", NOISE_GRAPH_EPARAM, "/octaves", "octaves must be an integer in 1..16" },
    { 0, "add(x,perlin(foo:1))", NOISE_GRAPH_EPARAM, "/inputs/1/foo", "unknown parameter 'foo'" },
    { 0, "perlin(inputs:1)", NOISE_GRAPH_ESYNTAX, "", "named like a node's own key" },
    /* non-finite constants */
    { 1, "{\"node\":\"add\",\"inputs\":[1e400,2]}", NOISE_GRAPH_EPARAM, "/inputs/0",
      "a constant must be a finite number, got 1e400" },
    { 1, "{\"node\":\"constant\",\"value\":-1e999}", NOISE_GRAPH_EPARAM, "/value", "finite" },
    { 1, "1e400", NOISE_GRAPH_EPARAM, "", "finite" },
    /* curve and terrace points */
    { 1, "{\"node\":\"curve\",\"inputs\":[1],\"points\":[[0,0],[0,1]]}", NOISE_GRAPH_EPARAM, "/points/1",
      "strictly increasing, got 0 after 0 (point 1)" },
    { 1, "{\"node\":\"curve\",\"inputs\":[1],\"points\":[0,0,1,1,0.5,2]}", NOISE_GRAPH_EPARAM, "/points/4",
      "got 0.5 after 1" },
    { 1, "{\"node\":\"curve\",\"inputs\":[1],\"points\":[[0,0]]}", NOISE_GRAPH_EPARAM, "/points",
      "at least 2 points, got 1" },
    { 1, "{\"node\":\"curve\",\"inputs\":[1],\"points\":[0,0,1]}", NOISE_GRAPH_EPARAM, "/points", "even count" },
    { 1, "{\"node\":\"curve\",\"inputs\":[1],\"points\":[[0,0],[1]]}", NOISE_GRAPH_EPARAM, "/points/1",
      "[x, y] pair" },
    { 1, "{\"node\":\"curve\",\"inputs\":[1],\"points\":[[0,0],[1,\"a\"]]}", NOISE_GRAPH_EPARAM, "/points/1/1",
      "finite numbers, got the string 'a'" },
    { 1, "{\"node\":\"curve\",\"inputs\":[1]}", NOISE_GRAPH_EPARAM, "", "curve needs the parameter points" },
    { 1, "{\"node\":\"terrace\",\"inputs\":[1],\"points\":[1,0.5]}", NOISE_GRAPH_EPARAM, "/points/1",
      "strictly increasing" },
    { 1, "{\"node\":\"terrace\",\"inputs\":[1],\"points\":[[0,1],[2,3]]}", NOISE_GRAPH_EPARAM, "/points/0",
      "points must be finite numbers, got an array" },
    { 1, "{\"node\":\"terrace\",\"inputs\":[1],\"points\":3}", NOISE_GRAPH_EPARAM, "/points", "must be an array" },
    /* rules between parameters */
    { 1, "{\"node\":\"clamp\",\"inputs\":[1],\"min\":2}", NOISE_GRAPH_EPARAM, "/min",
      "clamp: min must be at most max, got min 2 and max 1" },
    { 1, "{\"node\":\"clamp\",\"inputs\":[1],\"min\":0,\"max\":-1}", NOISE_GRAPH_EPARAM, "/max", "at most max" },
    { 1, "{\"node\":\"remap\",\"inputs\":[1],\"from_min\":1}", NOISE_GRAPH_EPARAM, "/from_min",
      "from_min and from_max must differ, both are 1" },
    { 1, "{\"node\":\"select\",\"inputs\":[1,2,3],\"falloff\":1.5}", NOISE_GRAPH_EPARAM, "/falloff",
      "falloff must be at most (upper - lower) / 2 = 1, got 1.5" },
    { 1, "{\"node\":\"select\",\"inputs\":[1,2,3],\"lower\":2}", NOISE_GRAPH_EPARAM, "/lower",
      "lower must be at most upper" },
    { 1, "{\"node\":\"select\",\"inputs\":[1,2,3],\"falloff\":-1}", NOISE_GRAPH_EPARAM, "/falloff", ">= 0" },
    /* named nodes: cycles, documents */
    { 1, "{\"nodes\":{\"a\":{\"node\":\"abs\",\"inputs\":[\"b\"]},\"b\":{\"node\":\"neg\",\"inputs\":[\"a\"]}},"
         "\"output\":\"a\"}",
      NOISE_GRAPH_ECYCLE, "/nodes/b/inputs/0", "the named node 'a' refers to itself" },
    { 1, "{\"nodes\":{\"a\":{\"node\":\"abs\",\"inputs\":[\"a\"]}},\"output\":{\"node\":\"neg\",\"inputs\":[\"a\"]}}",
      NOISE_GRAPH_ECYCLE, "/nodes/a/inputs/0", "refers to itself" },
    { 0, "add(x,abs($0))", NOISE_GRAPH_ECYCLE, "/inputs/1/inputs/0", "$0 refers to a node that contains it" },
    { 1, "{\"nodes\":{\"a\":{\"node\":\"x\"}}}", NOISE_GRAPH_ESYNTAX, "", "needs \"output\"" },
    { 1, "{\"nodes\":[],\"output\":1}", NOISE_GRAPH_ESYNTAX, "/nodes", "must be an object" },
    { 1, "{\"nodes\":{\"a\":1,\"a\":2},\"output\":\"a\"}", NOISE_GRAPH_ESYNTAX, "/nodes/a", "given twice" },
    { 1, "{\"nodes\":{},\"output\":1,\"extra\":1}", NOISE_GRAPH_ESYNTAX, "/extra", "unknown key 'extra'" },
    { 1, "{\"nodes\":{\"a/b~\":{\"node\":\"perlin\",\"octaves\":0}},\"output\":\"a/b~\"}", NOISE_GRAPH_EPARAM,
      "/nodes/a~1b~0/octaves", "octaves" },
    { 1, "[1,2]", NOISE_GRAPH_ESYNTAX, "", "a graph is a node object" },
    /* entries of "nodes" the output does not use are checked too */
    { 1, "{\"nodes\":{\"a\":{\"node\":\"x\"},\"b\":{\"node\":\"perlin\",\"octaves\":0}},\"output\":\"a\"}",
      NOISE_GRAPH_EPARAM, "/nodes/b/octaves", "octaves must be" },
    { 1, "{\"nodes\":{\"a\":{\"node\":\"x\"},\"c\":{\"node\":\"neg\",\"inputs\":[\"c\"]}},\"output\":\"a\"}",
      NOISE_GRAPH_ECYCLE, "/nodes/c/inputs/0", "refers to itself" },
    { 1, "\"a\"", NOISE_GRAPH_EINPUTS, "", "has none" },
    /* limits */
    { 1, "{\"node\":\"add\",\"inputs\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}", NOISE_GRAPH_ELIMIT, "/inputs",
      "add takes 2 to 16 inputs, got 17" },
    { 1, "{\"node\":\"curve\",\"inputs\":[1],\"points\":[0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7,8,8,9,9,10,10,11,11,12,12,13,"
         "13,14,14,15,15,16,16,17,17,18,18,19,19,20,20,21,21,22,22,23,23,24,24,25,25,26,26,27,27,28,28,29,29,30,30,"
         "31,31,32,32,33,33,34,34,35,35,36,36,37,37,38,38,39,39,40,40,41,41,42,42,43,43,44,44,45,45,46,46,47,47,48,"
         "48,49,49,50,50,51,51,52,52,53,53,54,54,55,55,56,56,57,57,58,58,59,59,60,60,61,61,62,62,63,63,64,64]}",
      NOISE_GRAPH_ELIMIT, "/points", "at most 64 points, got 65" },
    /* canonical form */
    { 0, "perlin(octaves:2.0)", NOISE_GRAPH_ECANONICAL, "",
      "not in canonical form (it differs from character 17); canonical: perlin(octaves:2)" },
    { 0, "perlin(lattice:square)", NOISE_GRAPH_ECANONICAL, "", "canonical: perlin" },
    { 0, "perlin(seed:-1)", NOISE_GRAPH_ECANONICAL, "", "canonical: perlin(seed:4294967295)" },
    { 0, "add(perlin(frequency:2),perlin(frequency:2))", NOISE_GRAPH_ECANONICAL, "",
      "canonical: add(perlin(frequency:2),$1)" },
    { 0, "mul(x,$1)", NOISE_GRAPH_ECANONICAL, "", "canonical: mul(x,x)" },
    { 0, "fractal(perlin,octaves:3)", NOISE_GRAPH_ECANONICAL, "", "canonical: fractal(perlin)" },
    { 0, "terrace(x,points:(0,1),invert:1)", NOISE_GRAPH_ECANONICAL, "", "invert:true" },
    { 0, "constant(value:1)", NOISE_GRAPH_ECANONICAL, "", "canonical: 1" },
    { 0, "-0", NOISE_GRAPH_ECANONICAL, "", "canonical: 0" },
    { 0, "perlin(gain:0.5,octaves:2)", NOISE_GRAPH_ECANONICAL, "", "canonical: perlin(octaves:2)" },
    { 0, "add(1.50,x)", NOISE_GRAPH_ECANONICAL, "", "canonical: add(1.5,x)" },
};

static void check_bad(const bad_case *c)
{
    noise_graph_error err;
    memset(&err, 0x55, sizeof err);
    noise_graph *g = c->json ? noise_graph_parse_json(c->input, strlen(c->input), &err)
                             : noise_graph_decode(c->input, strlen(c->input), &err);
    CHECKF(g == NULL, "%s: accepted as %s", c->input, g ? text_of(g) : "");
    noise_graph_destroy(g);
    if (g)
        return;
    CHECKF(err.code == c->code, "%.80s: code %d, want %d (%s)", c->input, err.code, c->code, err.message);
    CHECKF(memchr(err.pointer, '\0', sizeof err.pointer) && strcmp(err.pointer, c->pointer) == 0,
           "%.80s: pointer '%s', want '%s'", c->input, err.pointer, c->pointer);
    CHECKF(memchr(err.message, '\0', sizeof err.message) && strstr(err.message, c->message) != NULL,
           "%.80s: message '%s' lacks '%s'", c->input, err.message, c->message);
}

static void test_bad_inputs(void)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
        check_bad(&bad_cases[i]);
    /* err may be NULL */
    CHECK(noise_graph_parse_json("{", 1, NULL) == NULL);
    CHECK(noise_graph_decode("(", 1, NULL) == NULL);
}

/* limits that need long inputs */
static void test_limits(void)
{
    static char buf[1 << 16];
    noise_graph_error err;
    /* depth: 32 nested negations of x (33 nodes deep) */
    size_t n = 0;
    for (int i = 0; i < NOISE_GRAPH_MAX_DEPTH; i++)
        n += (size_t)sprintf(buf + n, "neg(");
    n += (size_t)sprintf(buf + n, "x");
    for (int i = 0; i < NOISE_GRAPH_MAX_DEPTH; i++)
        buf[n++] = ')';
    buf[n] = '\0';
    noise_graph *g = noise_graph_decode(buf, n, &err);
    CHECK(g == NULL && err.code == NOISE_GRAPH_ELIMIT && strstr(err.message, "more than 32 nodes deep"));
    /* 31 + x: fits, depth 32 */
    g = noise_graph_decode(buf + 4, n - 5, &err);
    CHECKF(g != NULL && noise_graph_depth(g) == 32, "%s", g ? "" : err.message);
    noise_graph_destroy(g);
    /* a named node reused deeper than the limit allows */
    n = (size_t)sprintf(buf, "{\"nodes\":{\"d\":");
    for (int i = 0; i < 30; i++)
        n += (size_t)sprintf(buf + n, "{\"node\":\"neg\",\"inputs\":[");
    n += (size_t)sprintf(buf + n, "1");
    for (int i = 0; i < 30; i++)
        n += (size_t)sprintf(buf + n, "]}");
    n += (size_t)sprintf(buf + n, "},\"output\":{\"node\":\"add\",\"inputs\":[\"d\",{\"node\":\"abs\",\"inputs\":[{"
                                  "\"node\":\"abs\",\"inputs\":[\"d\"]}]}]}}");
    g = noise_graph_parse_json(buf, n, &err);
    CHECKF(g == NULL && err.code == NOISE_GRAPH_ELIMIT && strcmp(err.pointer, "/output/inputs/1/inputs/0/inputs/0") == 0,
           "%d %s %s", err.code, err.pointer, err.message);
    noise_graph_destroy(g);
    /* 257 distinct nodes: add of constants 0..256 in groups */
    n = (size_t)sprintf(buf, "{\"node\":\"add\",\"inputs\":[");
    for (int grp = 0; grp < 16; grp++) {
        n += (size_t)sprintf(buf + n, "%s{\"node\":\"add\",\"inputs\":[", grp ? "," : "");
        for (int k = 0; k < 16; k++)
            n += (size_t)sprintf(buf + n, "%s%d", k ? "," : "", grp * 16 + k);
        n += (size_t)sprintf(buf + n, "]}");
    }
    n += (size_t)sprintf(buf + n, "]}");
    g = noise_graph_parse_json(buf, n, &err); /* 256 constants + 16 adds + 1 */
    CHECKF(g == NULL && err.code == NOISE_GRAPH_ELIMIT && strstr(err.message, "more than 256 distinct nodes"), "%s",
           err.message);
    noise_graph_destroy(g);
    /* the same constants repeated: merged, fits */
    n = (size_t)sprintf(buf, "{\"node\":\"add\",\"inputs\":[");
    for (int grp = 0; grp < 16; grp++) {
        n += (size_t)sprintf(buf + n, "%s{\"node\":\"add\",\"inputs\":[", grp ? "," : "");
        for (int k = 0; k < 16; k++)
            n += (size_t)sprintf(buf + n, "%s%d", k ? "," : "", k);
        n += (size_t)sprintf(buf + n, "]}");
    }
    n += (size_t)sprintf(buf + n, "]}");
    g = noise_graph_parse_json(buf, n, &err);
    CHECKF(g != NULL && noise_graph_node_count(g) == 18, "%s", g ? "" : err.message);
    noise_graph_destroy(g);
    /* too long for a URL: 200 distinct curves of 10 points each */
    n = (size_t)sprintf(buf, "{\"node\":\"add\",\"inputs\":[");
    for (int grp = 0; grp < 10; grp++) {
        n += (size_t)sprintf(buf + n, "%s{\"node\":\"add\",\"inputs\":[", grp ? "," : "");
        for (int k = 0; k < 16; k++) {
            n += (size_t)sprintf(buf + n, "%s{\"node\":\"curve\",\"inputs\":[{\"node\":\"x\"}],\"points\":[", k ? "," : "");
            for (int q = 0; q < 10; q++)
                n += (size_t)sprintf(buf + n, "%s[%d.125,%d]", q ? "," : "", q, grp * 16 + k);
            n += (size_t)sprintf(buf + n, "]}");
        }
        n += (size_t)sprintf(buf + n, "]}");
    }
    n += (size_t)sprintf(buf + n, "]}");
    g = noise_graph_parse_json(buf, n, &err);
    CHECKF(g == NULL && err.code == NOISE_GRAPH_ELIMIT && strstr(err.message, "too long for a URL"), "%s",
           err.message);
    noise_graph_destroy(g);
    /* names naming names, 100 deep: bounded */
    n = (size_t)sprintf(buf, "{\"nodes\":{");
    for (int i = 0; i < 100; i++)
        n += (size_t)sprintf(buf + n, "\"a%d\":\"a%d\",", i, i + 1);
    n += (size_t)sprintf(buf + n, "\"a100\":1},\"output\":\"a0\"}");
    g = noise_graph_parse_json(buf, n, &err);
    CHECKF(g == NULL && err.code == NOISE_GRAPH_ELIMIT && strstr(err.message, "named nodes refer to named nodes"),
           "%s", err.message);
    noise_graph_destroy(g);
    /* text beyond the limit: refused before reading */
    memset(buf, 'x', NOISE_GRAPH_MAX_TEXT + 1);
    g = noise_graph_decode(buf, NOISE_GRAPH_MAX_TEXT + 1, &err);
    CHECK(g == NULL && err.code == NOISE_GRAPH_ELIMIT && strstr(err.message, "too long"));
}

/* ---- random graphs, spelled many ways ---- */

static uint64_t rng_state;
static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}
static int rnd_n(int n) { return (int)(rnd() % (uint32_t)n); }

/* A test-side graph: node, its inputs, parameters as name + value (numbers
 * as doubles, words as strings); sharing by pointer. */
typedef struct tnode tnode;
struct tnode {
    const char *name;
    int constant; /* 1: a number */
    double value;
    int n_in;
    tnode *in[NOISE_GRAPH_MAX_INPUTS];
    int n_p;
    const char *pname[16];
    int ptype[16]; /* 0 number, 1 word, 2 bool, 3 points (pairs), 4 points (values) */
    double pnum[16];
    const char *pword[16];
    int n_pts;
    double pts[2 * 8];
    int is_default[16];/* may be left out */
    int uses;          /* references, for named spellings */
    char label[16];
    int emitted;
};

static tnode pool[4096];
static int pool_n;

static tnode *tn(const char *name)
{
    tnode *t = &pool[pool_n++];
    memset(t, 0, sizeof *t);
    t->name = name;
    return t;
}

static void tp_num(tnode *t, const char *name, double v, double def)
{
    t->pname[t->n_p] = name;
    t->ptype[t->n_p] = 0;
    t->pnum[t->n_p] = v;
    t->is_default[t->n_p] = v == def;
    t->n_p++;
}

static void tp_word(tnode *t, const char *name, const char *w, const char *def)
{
    t->pname[t->n_p] = name;
    t->ptype[t->n_p] = 1;
    t->pword[t->n_p] = w;
    t->is_default[t->n_p] = def && strcmp(w, def) == 0;
    t->n_p++;
}

static double pick(const double *choices, int n) { return choices[rnd_n(n)]; }

static double rnd_number(void)
{
    static const double nice[] = { 0, 1, -1, 0.5, 2, 0.25, 1e-7, 1e6, 123.456, -3.75, 0.1, 1.0 / 3 };
    if (rnd_n(3) == 0)
        return ((double)rnd() - 2147483648.0) / 65536.0;
    return pick(nice, sizeof nice / sizeof nice[0]);
}

static tnode *gen(int depth, tnode **made, int *n_made);

static const char *const kinds[] = { "value", "perlin", "simplex", "improved", "cellular", "classic" };

static tnode *gen_source(void)
{
    int k = rnd_n(6);
    tnode *t = tn(kinds[k]);
    static const double freqs[] = { 1, 0.01, 0.5, 2, 1e6, 0.003 };
    if (rnd_n(2))
        tp_num(t, "frequency", pick(freqs, 6), 1);
    if (rnd_n(2))
        tp_num(t, "octaves", 1 + rnd_n(16), 1);
    if (rnd_n(3) == 0)
        tp_num(t, "lacunarity", 1 + rnd_n(15) * 0.5, 2);
    if (rnd_n(3) == 0)
        tp_num(t, "gain", (1 + rnd_n(8)) / 8.0, 0.5);
    if (rnd_n(3) == 0) {
        static const char *fr[] = { "fbm", "turbulence", "ridged" };
        tp_word(t, "fractal", fr[rnd_n(3)], "fbm");
    }
    if (rnd_n(4) == 0)
        tp_num(t, "warp", rnd_n(4) * 0.5, 0);
    int planar = k == 5;
    if ((k == 0 || k == 1) && rnd_n(3) == 0)
        tp_word(t, "lattice", rnd_n(2) ? "triangle" : "square", "square");
    if (k == 4) {
        static const char *dist[] = { "euclidean", "manhattan", "chebyshev" };
        static const char *ret[] = { "f1", "f2", "f2-f1", "cell" };
        if (rnd_n(2))
            tp_word(t, "distance", dist[rnd_n(3)], "euclidean");
        if (rnd_n(2))
            tp_word(t, "return", ret[rnd_n(4)], "f1");
        if (rnd_n(2))
            tp_num(t, "jitter", rnd_n(5) / 4.0, 1);
    }
    if (k == 5 && rnd_n(2)) {
        static const char *fades[] = { "linear", "cubic", "quintic" };
        tp_word(t, "fade", fades[rnd_n(3)], "linear");
    }
    if ((k == 1 || k == 2) && rnd_n(4) == 0) {
        tp_word(t, "gradients", "angle", "table");
        planar = 1;
    }
    if (!planar && rnd_n(4) == 0)
        tp_num(t, "t", rnd_number(), NAN);
    if (rnd_n(3) == 0) {
        t->pname[t->n_p] = "seed";
        t->ptype[t->n_p] = 0;
        t->pnum[t->n_p] = rnd_n(4) ? rnd_n(5) : (double)rnd();
        t->is_default[t->n_p] = t->pnum[t->n_p] == 0;
        t->n_p++;
    }
    return t;
}

static tnode *gen(int depth, tnode **made, int *n_made)
{
    tnode *t;
    /* reuse an earlier sub-graph: shared */
    if (*n_made > 0 && rnd_n(6) == 0) {
        t = made[rnd_n(*n_made)];
        t->uses++;
        return t;
    }
    int leaf = depth <= 0 || rnd_n(4) == 0;
    if (leaf) {
        int c = rnd_n(6);
        if (c < 3)
            t = gen_source();
        else if (c == 3) {
            t = tn("constant");
            t->constant = 1;
            t->value = rnd_number();
        } else if (c == 4) {
            static const char *xyt[] = { "x", "y", "t" };
            t = tn(xyt[rnd_n(3)]);
        } else {
            t = tn("distance");
            if (rnd_n(2))
                tp_num(t, "px", rnd_number(), 0);
            if (rnd_n(2))
                tp_num(t, "py", rnd_number(), 0);
        }
    } else {
        static const char *const ops1[] = { "neg", "abs", "sqrt", "ssqrt", "pow", "powi", "clamp", "scale_bias",
                                            "remap", "curve", "terrace", "domain_scale", "domain_offset",
                                            "domain_rotate", "fractal", "seed_offset" };
        static const char *const opsn[] = { "add", "mul", "min", "max", "sub", "div", "smin", "smax", "blend",
                                            "select", "warp" };
        int unary = rnd_n(2);
        const char *name = unary ? ops1[rnd_n(16)] : opsn[rnd_n(11)];
        t = tn(name);
        int n_in = 1;
        if (!unary) {
            if (!strcmp(name, "add") || !strcmp(name, "mul") || !strcmp(name, "min") || !strcmp(name, "max"))
                n_in = 2 + rnd_n(3);
            else if (!strcmp(name, "blend") || !strcmp(name, "select") || !strcmp(name, "warp"))
                n_in = 3;
            else
                n_in = 2;
        }
        for (int i = 0; i < n_in; i++)
            t->in[t->n_in++] = gen(depth - 1 - rnd_n(2), made, n_made);
        if (!strcmp(name, "smin") || !strcmp(name, "smax")) {
            if (rnd_n(2))
                tp_num(t, "k", rnd_n(2) ? 0.1 : 0.3, 0.1);
        } else if (!strcmp(name, "pow")) {
            if (rnd_n(2))
                tp_num(t, "exponent", (1 + rnd_n(32)) / 2.0, 2);
        } else if (!strcmp(name, "powi")) {
            if (rnd_n(2))
                tp_num(t, "n", rnd_n(17), 2);
        } else if (!strcmp(name, "clamp")) {
            double a = rnd_number(), b = rnd_number();
            if (a > b) {
                double s = a;
                a = b;
                b = s;
            }
            if (a <= 1 || rnd_n(2))
                tp_num(t, "min", a, -1);
            tp_num(t, "max", b, 1);
            if (a > 1 && t->n_p == 1) /* keep min <= max with min at its default */
                t->n_p = 0;
        } else if (!strcmp(name, "scale_bias")) {
            if (rnd_n(2))
                tp_num(t, "scale", rnd_number(), 1);
            if (rnd_n(2))
                tp_num(t, "bias", rnd_number(), 0);
        } else if (!strcmp(name, "remap")) {
            double a = rnd_number();
            tp_num(t, "from_min", a, -1);
            tp_num(t, "from_max", a + 1 + rnd_n(3), 1);
            if (rnd_n(2))
                tp_num(t, "to_min", rnd_number(), 0);
            if (rnd_n(2))
                tp_num(t, "to_max", rnd_number(), 1);
        } else if (!strcmp(name, "curve") || !strcmp(name, "terrace")) {
            int curve = name[0] == 'c';
            t->pname[t->n_p] = "points";
            t->ptype[t->n_p] = curve ? 3 : 4;
            t->n_p++;
            t->n_pts = 2 + rnd_n(6);
            double x = rnd_number() - 10;
            for (int q = 0; q < t->n_pts; q++) {
                x += 0.125 * (1 + rnd_n(16));
                if (curve) {
                    t->pts[2 * q] = x;
                    t->pts[2 * q + 1] = rnd_number();
                } else {
                    t->pts[q] = x;
                }
            }
            if (!curve) {
                for (int b = 0; b < 2; b++)
                    if (rnd_n(2)) {
                        t->pname[t->n_p] = b ? "smooth" : "invert";
                        t->ptype[t->n_p] = 2;
                        t->pnum[t->n_p] = rnd_n(2);
                        t->is_default[t->n_p] = t->pnum[t->n_p] == 0;
                        t->n_p++;
                    }
            }
        } else if (!strcmp(name, "select")) {
            double lo = -rnd_n(3), hi = rnd_n(3);
            tp_num(t, "lower", lo, -1);
            tp_num(t, "upper", hi, 1);
            if (rnd_n(2))
                tp_num(t, "falloff", (hi - lo) / (2 + rnd_n(3)), 0);
        } else if (!strcmp(name, "domain_scale")) {
            if (rnd_n(2))
                tp_num(t, "scale", rnd_n(2) ? 0.5 : -4, 1);
        } else if (!strcmp(name, "domain_offset")) {
            if (rnd_n(2))
                tp_num(t, "x", rnd_number(), 0);
            if (rnd_n(2))
                tp_num(t, "y", rnd_number(), 0);
            if (rnd_n(2))
                tp_num(t, "t", rnd_number(), 0);
        } else if (!strcmp(name, "domain_rotate")) {
            if (rnd_n(2))
                tp_num(t, "angle", rnd_n(721) - 360, 0);
        } else if (!strcmp(name, "warp")) {
            if (rnd_n(2))
                tp_num(t, "amplitude", rnd_number() / 1e3, 1);
        } else if (!strcmp(name, "fractal")) {
            static const char *types[] = { "fbm", "ridged", "turbulence", "pingpong" };
            int ty = rnd_n(4);
            if (ty || rnd_n(2))
                tp_word(t, "type", types[ty], "fbm");
            if (rnd_n(2))
                tp_num(t, "octaves", 1 + rnd_n(16), 3);
            if (rnd_n(2))
                tp_num(t, "lacunarity", 1 + rnd_n(30) * 0.5, 2);
            if (rnd_n(2))
                tp_num(t, "gain", (1 + rnd_n(8)) / 8.0, 0.5);
            if (ty == 3 && rnd_n(2))
                tp_num(t, "strength", (1 + rnd_n(32)) / 2.0, 2);
        } else if (!strcmp(name, "seed_offset")) {
            t->pname[t->n_p] = "seed";
            t->ptype[t->n_p] = 0;
            t->pnum[t->n_p] = rnd_n(3) ? rnd_n(9) : (double)rnd();
            t->is_default[t->n_p] = t->pnum[t->n_p] == 0;
            t->n_p++;
        }
    }
    if (*n_made < 256)
        made[(*n_made)++] = t;
    t->uses = 1;
    return t;
}

/* ---- JSON spelling ---- */

typedef struct {
    char *b;
    size_t n, cap;
    int style; /* 0: plain (the reference spelling); else random spellings */
} out_t;

static void o_put(out_t *o, const char *s)
{
    size_t n = strlen(s);
    if (o->n + n + 1 > o->cap)
        return;
    memcpy(o->b + o->n, s, n + 1);
    o->n += n;
}

static void o_ws(out_t *o)
{
    static const char *ws[] = { "", "", " ", "\n", "\t", "\r\n  " };
    if (o->style)
        o_put(o, ws[rnd_n(6)]);
}

/* v spelled one of many ways (the same double) */
static void o_num(out_t *o, double v)
{
    char s[64], t[96];
    noise_format_double(v == 0 ? 0.0 : v, s, sizeof s);
    if (!o->style) {
        o_put(o, s);
        return;
    }
    switch (rnd_n(7)) {
    case 0: snprintf(t, sizeof t, "%.17g", v); break;
    case 1: snprintf(t, sizeof t, "%.20e", v); break;
    case 2:
        if (v == 0) {
            snprintf(t, sizeof t, rnd_n(2) ? "-0" : "-0.0e-5");
            break;
        }
        /* fallthrough */
    case 3: {
        /* digits D and exponent E of the shortest form, spelled D000eE-3 */
        char digits[40];
        int nd = 0, exp10 = 0, seen_point = 0, neg = s[0] == '-';
        const char *p = s + neg;
        for (; *p && *p != 'e'; p++) {
            if (*p == '.') {
                seen_point = 1;
                continue;
            }
            digits[nd++] = *p;
            if (seen_point)
                exp10--;
        }
        if (*p == 'e')
            exp10 += atoi(p + 1);
        digits[nd] = '\0';
        int z = rnd_n(4);
        /* strip leading zeros (JSON forbids them) but keep one digit */
        char *d = digits;
        while (d[0] == '0' && d[1] != '\0')
            d++;
        if (d[0] == '0')
            z = 0; /* "000" is no JSON number */
        snprintf(t, sizeof t, "%s%s%.*se%d", neg ? "-" : "", d, z, "000", exp10 - z);
        break;
    }
    case 4: snprintf(t, sizeof t, "%.25g", v); break;
    default: snprintf(t, sizeof t, "%s", s); break;
    }
    /* %g may write "1e+20": JSON takes it; "inf" never happens here */
    o_put(o, t);
}

static void emit(out_t *o, tnode *t, int top);

static void emit_param(out_t *o, tnode *t, int k)
{
    o_put(o, "\"");
    o_put(o, t->pname[k]);
    o_put(o, "\"");
    o_ws(o);
    o_put(o, ":");
    o_ws(o);
    switch (t->ptype[k]) {
    case 0: o_num(o, t->pnum[k]); break;
    case 1:
        o_put(o, "\"");
        o_put(o, t->pword[k]);
        o_put(o, "\"");
        break;
    case 2: o_put(o, o->style && rnd_n(3) == 0 ? (t->pnum[k] ? "1" : "0") : (t->pnum[k] ? "true" : "false")); break;
    default: {
        int pairs = t->ptype[k] == 3, nested = pairs && (!o->style || rnd_n(2));
        o_put(o, "[");
        int n_vals = pairs ? 2 * t->n_pts : t->n_pts;
        for (int q = 0; q < n_vals; q++) {
            if (q)
                o_put(o, ",");
            o_ws(o);
            if (nested && q % 2 == 0)
                o_put(o, "[");
            o_num(o, t->pts[q]);
            if (nested && q % 2 == 1)
                o_put(o, "]");
        }
        o_put(o, "]");
    }
    }
}

static void emit_object(out_t *o, tnode *t)
{
    /* members: node, inputs, params; shuffled in random spellings */
    int order[20], n = 0;
    order[n++] = -2;
    if (t->n_in)
        order[n++] = -1;
    for (int k = 0; k < t->n_p; k++)
        if (!(o->style && t->is_default[k] && rnd_n(2)))
            order[n++] = k;
    if (o->style)
        for (int i = n - 1; i > 0; i--) {
            int j = rnd_n(i + 1), s = order[i];
            order[i] = order[j];
            order[j] = s;
        }
    o_put(o, "{");
    for (int i = 0; i < n; i++) {
        if (i)
            o_put(o, ",");
        o_ws(o);
        if (order[i] == -2) {
            o_put(o, "\"node\":\"");
            o_put(o, t->name);
            o_put(o, "\"");
        } else if (order[i] == -1) {
            o_put(o, "\"inputs\":[");
            for (int k = 0; k < t->n_in; k++) {
                if (k)
                    o_put(o, ",");
                o_ws(o);
                emit(o, t->in[k], 0);
            }
            o_put(o, "]");
        } else {
            emit_param(o, t, order[i]);
        }
        o_ws(o);
    }
    o_put(o, "}");
}

static void emit(out_t *o, tnode *t, int top)
{
    if (t->label[0] && !top) {
        o_put(o, "\"");
        o_put(o, t->label);
        o_put(o, "\"");
        return;
    }
    if (t->constant) {
        if (o->style && rnd_n(4) == 0) {
            o_put(o, "{\"node\":\"constant\",\"value\":");
            o_num(o, t->value);
            o_put(o, "}");
        } else {
            o_num(o, t->value);
        }
        return;
    }
    emit_object(o, t);
}

static void clear_labels(tnode *t)
{
    t->label[0] = '\0';
    for (int k = 0; k < t->n_in; k++)
        clear_labels(t->in[k]);
}

static int n_labels;
static tnode *labelled[256];

static void assign_labels(tnode *t, int all)
{
    for (int k = 0; k < t->n_in; k++)
        assign_labels(t->in[k], all);
    if (!t->label[0] && t->uses > 1 && (all || rnd_n(2)) && n_labels < 256) {
        snprintf(t->label, sizeof t->label, "s%d_%d", n_labels, rnd_n(100));
        labelled[n_labels++] = t;
    }
}

/* The graph rooted at t as JSON: style 0 the plain spelling (inline
 * copies), else random spellings (shared sub-graphs named or not). */
static void spell(tnode *root, int style, char *buf, size_t cap)
{
    out_t o = { buf, 0, cap, style };
    buf[0] = '\0';
    clear_labels(root);
    n_labels = 0;
    if (style && rnd_n(2))
        assign_labels(root, 0);
    if (n_labels == 0) {
        o_ws(&o);
        emit(&o, root, 1);
        o_ws(&o);
        return;
    }
    o_put(&o, "{\"nodes\":{");
    /* in random order: a name may be used before its entry */
    int order[256];
    for (int i = 0; i < n_labels; i++)
        order[i] = i;
    for (int i = n_labels - 1; i > 0; i--) {
        int j = rnd_n(i + 1), s = order[i];
        order[i] = order[j];
        order[j] = s;
    }
    for (int i = 0; i < n_labels; i++) {
        tnode *t = labelled[order[i]];
        o_put(&o, i ? ",\"" : "\"");
        o_put(&o, t->label);
        o_put(&o, "\":");
        emit(&o, t, 1);
    }
    o_put(&o, "},");
    o_ws(&o);
    o_put(&o, "\"output\":");
    emit(&o, root, root->label[0] ? 0 : 1);
    o_put(&o, "}");
}

static char spell_buf[1 << 20], ref_text[65536];

/* the graph's nodes as a string independent of the encoder: for telling
 * graphs apart */
static void fingerprint(const noise_graph *g, char *out, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < g->n && n < cap; i++) {
        const ng_node *nd = &g->nodes[i];
        n += (size_t)snprintf(out + n, cap - n, "[%d %d %u", (int)nd->op, nd->n_in, (unsigned)nd->seed);
        for (int k = 0; k < nd->n_in && n < cap; k++)
            n += (size_t)snprintf(out + n, cap - n, " i%d", nd->in[k]);
        for (int k = 0; k < NG_MAX_PARAMS && n < cap; k++)
            n += (size_t)snprintf(out + n, cap - n, " %a", nd->p[k]);
        for (int k = 0; k < (nd->op == NG_CURVE ? 2 : 1) * nd->n_pts && n < cap; k++)
            n += (size_t)snprintf(out + n, cap - n, " %a", nd->pts[k]);
        if (nd->op == NG_SOURCE && n < cap) {
            n += (size_t)snprintf(out + n, cap - n, " k%d ", (int)nd->spec.kind);
            int m = noise_spec_canonical(&nd->spec, out + n, cap - n);
            n += m > 0 ? (size_t)m : 0;
        }
        if (n < cap)
            n += (size_t)snprintf(out + n, cap - n, "]");
    }
}

typedef struct {
    char *text;
    char *print;
} seen_t;

static int cmp_seen(const void *a, const void *b)
{
    return strcmp(((const seen_t *)a)->text, ((const seen_t *)b)->text);
}

static void test_random_graphs(void)
{
    enum { GRAPHS = 1500, SPELLINGS = 50 };
    static seen_t seen[GRAPHS];
    static char print[1 << 17];
    int n_seen = 0, spelled_graphs = 0;
    rng_state = 12345;
    for (int gi = 0; gi < GRAPHS; gi++) {
        pool_n = 0;
        tnode *made[256];
        int n_made = 0;
        tnode *root = gen(1 + rnd_n(7), made, &n_made);
        spell(root, 0, spell_buf, sizeof spell_buf);
        noise_graph_error err;
        noise_graph *g = noise_graph_parse_json(spell_buf, strlen(spell_buf), &err);
        if (!g) {
            /* the generator stays in range; only the length limits may refuse */
            CHECKF(err.code == NOISE_GRAPH_ELIMIT, "graph %d: %s: %d %s %s", gi, spell_buf, err.code, err.pointer,
                   err.message);
            continue;
        }
        int len = noise_graph_encode(g, ref_text, sizeof ref_text);
        CHECK(len > 0 && len <= NOISE_GRAPH_MAX_TEXT);
        /* decode(encode) is the identity */
        noise_graph *h = noise_graph_decode(ref_text, (size_t)len, &err);
        CHECKF(h != NULL, "%s: %d %s %s", ref_text, err.code, err.pointer, err.message);
        if (h) {
            CHECKF(strcmp(text_of(h), ref_text) == 0, "%s -> %s", ref_text, text_buf);
            char p1[4096], p2[4096];
            fingerprint(g, p1, sizeof p1);
            fingerprint(h, p2, sizeof p2);
            CHECK(strcmp(p1, p2) == 0);
            noise_graph_destroy(h);
        }
        /* the canonical JSON reads back to the same text, and so does every
         * pointer ng_node_pointer gives (well formed, one per node) */
        int jl = noise_graph_to_json(g, json_buf, sizeof json_buf);
        CHECK(jl > 0);
        h = noise_graph_parse_json(json_buf, (size_t)jl, &err);
        CHECKF(h != NULL && strcmp(text_of(h), ref_text) == 0, "%s: %s", json_buf, h ? text_buf : err.message);
        noise_graph_destroy(h);
        for (int i = 0; i < g->n; i++) {
            char p[512];
            ng_node_pointer(g, i, p, sizeof p);
            CHECKF(i == g->n - 1 || p[0] == '/', "node %d of %s: '%s'", i, ref_text, p);
        }
        /* other spellings: the same text */
        if (gi % 5 == 0) {
            spelled_graphs++;
            for (int s = 0; s < SPELLINGS; s++) {
                spell(root, 1, spell_buf, sizeof spell_buf);
                h = noise_graph_parse_json(spell_buf, strlen(spell_buf), &err);
                CHECKF(h != NULL && strcmp(text_of(h), ref_text) == 0, "%s\n  gives %s\n  want %s", spell_buf,
                       h ? text_buf : err.message, ref_text);
                noise_graph_destroy(h);
            }
        }
        fingerprint(g, print, sizeof print);
        seen[n_seen].text = strdup(ref_text);
        seen[n_seen].print = strdup(print);
        n_seen++;
        noise_graph_destroy(g);
    }
    /* equal texts exactly for equal node arrays */
    qsort(seen, (size_t)n_seen, sizeof seen[0], cmp_seen);
    int distinct = n_seen > 0;
    for (int i = 1; i < n_seen; i++) {
        int same_text = strcmp(seen[i].text, seen[i - 1].text) == 0;
        CHECKF(!same_text || strcmp(seen[i].print, seen[i - 1].print) == 0, "two graphs share %s", seen[i].text);
        distinct += !same_text;
    }
    /* and no two distinct arrays got one text: count distinct prints too */
    for (int i = 0; i < n_seen; i++) {
        char *t = seen[i].text;
        seen[i].text = seen[i].print;
        seen[i].print = t;
    }
    qsort(seen, (size_t)n_seen, sizeof seen[0], cmp_seen);
    int distinct_prints = n_seen > 0;
    for (int i = 1; i < n_seen; i++)
        distinct_prints += strcmp(seen[i].text, seen[i - 1].text) != 0;
    CHECKF(distinct == distinct_prints, "%d texts for %d graphs", distinct, distinct_prints);
    CHECKF(distinct > GRAPHS * 8 / 10, "only %d distinct graphs of %d", distinct, n_seen);
    CHECK(spelled_graphs >= 250);
    printf("# %d random graphs, %d distinct, %d spelled %d ways each\n", n_seen, distinct, spelled_graphs, SPELLINGS);
    for (int i = 0; i < n_seen; i++) {
        free(seen[i].text);
        free(seen[i].print);
    }
}

/* Fixed graphs, hand-written spellings: one text. */
static void test_spellings(void)
{
    const char *groups[][8] = {
        { "fractal(perlin(frequency:0.01),octaves:6)",
          "{\"node\":\"fractal\",\"octaves\":6,\"inputs\":[{\"node\":\"perlin\",\"frequency\":0.01}]}",
          " { \"inputs\" : [ { \"frequency\" : 1e-2 , \"node\" : \"perlin\" } ] , \"node\" : \"fractal\" , "
          "\"octaves\" : 6.0 } ",
          "{\"node\":\"fractal\",\"inputs\":[{\"node\":\"perlin\",\"frequency\":10e-3,\"octaves\":1,\"seed\":0,"
          "\"lattice\":\"square\"}],\"octaves\":60e-1,\"type\":\"fbm\",\"gain\":0.5,\"lacunarity\":2}",
          "{\"nodes\":{\"p\":{\"node\":\"perlin\",\"frequency\":0.010}},\"output\":{\"node\":\"fractal\",\"inputs\":"
          "[\"p\"],\"octaves\":0.6e1}}",
          "{\"nodes\":{\"f\":{\"node\":\"fractal\",\"inputs\":[\"p\"],\"octaves\":6},\"p\":{\"node\":\"perlin\","
          "\"frequency\":0.01}},\"output\":\"f\"}",
          NULL },
        { "add(perlin(seed:7),mul(0.5,$1),$1)",
          "{\"node\":\"add\",\"inputs\":[{\"node\":\"perlin\",\"seed\":7},{\"node\":\"mul\",\"inputs\":[0.5,{\"node\":"
          "\"perlin\",\"seed\":7.0}]},{\"node\":\"perlin\",\"seed\":-4294967289e0,\"seed\":7}]}",
          "{\"node\":\"add\",\"inputs\":[{\"node\":\"perlin\",\"seed\":7},{\"node\":\"mul\",\"inputs\":[5e-1,{\"node\":"
          "\"perlin\",\"seed\":7.0}]},{\"node\":\"perlin\",\"seed\":70e-1}]}",
          "{\"nodes\":{\"a\":{\"node\":\"perlin\",\"seed\":7},\"b\":\"a\"},\"output\":{\"node\":\"add\",\"inputs\":[\"a\","
          "{\"node\":\"mul\",\"inputs\":[{\"node\":\"constant\",\"value\":0.5},\"b\"]},\"a\"]}}",
          NULL },
    };
    for (size_t gi = 0; gi < sizeof groups / sizeof groups[0]; gi++) {
        const char *want = groups[gi][0];
        for (int k = 1; groups[gi][k]; k++) {
            noise_graph_error err;
            noise_graph *g = noise_graph_parse_json(groups[gi][k], strlen(groups[gi][k]), &err);
            if (strstr(groups[gi][k], "-4294967289e0")) {
                /* a duplicate key is refused, whatever its values */
                CHECKF(g == NULL && err.code == NOISE_GRAPH_EPARAM && strcmp(err.pointer, "/inputs/2/seed") == 0,
                       "%s", err.message);
                noise_graph_destroy(g);
                continue;
            }
            CHECKF(g && strcmp(text_of(g), want) == 0, "%s: %s", groups[gi][k], g ? text_buf : err.message);
            noise_graph_destroy(g);
        }
    }
}

int main(void)
{
    RUN(test_canonical_texts);
    RUN(test_json_and_pointers);
    RUN(test_specs);
    RUN(test_bad_inputs);
    RUN(test_limits);
    RUN(test_spellings);
    RUN(test_random_graphs);
    return t_done();
}
