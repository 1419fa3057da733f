/* noise_graph.h: field graphs: fields composed of nodes (sources,
 * arithmetic, shaping, domain transforms, fractals over any sub-graph),
 * evaluated in bands of rows or at points with exact gradients by the chain
 * rule. Part of the installable core: libc and libm only, like noise.h.
 * docs/graphs.md is the language reference (every node, its inputs,
 * parameters, defaults, formula and the one-sided derivative it gives at
 * its kinks); this header is the C interface.
 *
 * A graph is written two ways:
 * - JSON (the document users write and POST): a node is an object
 *   {"node": NAME, "inputs": [INPUT, ...], PARAM: VALUE, ...}; an input is
 *   a node object, a number (a constant node) or a string naming an entry
 *   of the top-level "nodes" object when the document is
 *   {"nodes": {NAME: NODE, ...}, "output": INPUT} (a sub-graph written once
 *   and used several times). Key order, whitespace, number spellings and
 *   parameters left at their default do not matter.
 * - the canonical text (URLs, cache keys, the C library's exchange form),
 *   e.g. add(fractal(perlin(frequency:0.01),octaves:6),mul(0.5,x)):
 *     node  := NAME [ "(" item { "," item } ")" ] | NUMBER | "$" INDEX
 *     item  := node                  (inputs first, in order)
 *            | KEY ":" value         (then parameters, in the node's
 *                                     canonical order, defaults omitted)
 *     value := NUMBER | WORD | "(" NUMBER { "," NUMBER } ")"
 *   Numbers in noise_format_double's shortest round-trip form; a constant
 *   is its bare number; "$N" repeats the N-th node written so far (0-based,
 *   counting every NAME node in the order written, constants not counted),
 *   used for each repeated sub-graph after its first occurrence. Only URL
 *   path/query-safe characters appear: letters, digits, ( ) , : $ . - _
 *   Identical sub-graphs are merged (hash-consed) when a graph is built,
 *   so a graph has exactly one canonical text however it was written, and
 *   a sub-graph used twice is evaluated once.
 *
 * Seeds: a graph is prepared for a seed (the URL's). A source node's
 * "seed" parameter is an offset added to the seed in effect (mod 2^32,
 * default 0); "seed_offset" shifts it for its input's sub-graph; octave
 * k >= 1 of "fractal" evaluates its input with the seed in effect hashed
 * with k exactly as a kind's octaves are (noise.h). A graph that is one
 * source node with seed offset 0 is that kind: the same values bit for bit
 * as noise_field_* on its spec, on every path.
 *
 * Coordinates: a graph is evaluated at (x, y) (2D: gradients d/dx, d/dy)
 * or at (x, y, t) (3D points, gradients with d/dt). Sources without their
 * own "t" parameter follow the evaluation (2D or 3D at its t); a source
 * with "t" is the 3D field at that fixed t as for a kind URL. Node values
 * are doubles and are not clamped (a picture or a 16-bit encoding of a
 * graph clamps to [-1, 1] as it does for a kind).
 */
#ifndef NOISE_GRAPH_H
#define NOISE_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "noise.h"

/* Limits (the parser refuses a graph beyond them, naming the node). */
#define NOISE_GRAPH_MAX_NODES 256      /* distinct nodes after merging */
#define NOISE_GRAPH_MAX_DEPTH 32       /* longest input chain */
#define NOISE_GRAPH_MAX_INPUTS 16      /* inputs of one n-ary node */
#define NOISE_GRAPH_MAX_POINTS 64      /* control points of curve/terrace */
#define NOISE_GRAPH_MAX_TEXT 4000      /* canonical text: fits in any URL */
#define NOISE_GRAPH_MAX_INSTANCES 4096 /* nodes once fractals are unrolled */

/* Error codes (negative; 0 is success), beside noise.h's. */
enum {
    NOISE_GRAPH_ESYNTAX = -20,    /* not JSON / not the canonical grammar */
    NOISE_GRAPH_ENODE = -21,      /* unknown node name */
    NOISE_GRAPH_EINPUTS = -22,    /* wrong number or type of inputs */
    NOISE_GRAPH_EPARAM = -23,     /* unknown, duplicate or out-of-range parameter */
    NOISE_GRAPH_ECYCLE = -24,     /* a named node refers to itself */
    NOISE_GRAPH_ELIMIT = -25,     /* beyond a NOISE_GRAPH_MAX_* limit */
    NOISE_GRAPH_ECANONICAL = -26, /* decodable text that is not the canonical form */
    NOISE_GRAPH_ENOMEM = -27
};

/* What was wrong and where: pointer is a JSON pointer (RFC 6901) to the
 * offending node or parameter in the document as written ("/inputs/1/octaves",
 * "/nodes/hills"; for canonical text, the pointer into the equivalent JSON
 * document), message a sentence naming the problem ("octaves must be an
 * integer in 1..16, got 20"). */
typedef struct {
    int code;
    char pointer[256];
    char message[512];
} noise_graph_error;

/* A parsed, validated graph in canonical form. Immutable: any number of
 * threads may use one. */
typedef struct noise_graph noise_graph;

/* From a JSON document (len bytes, need not be NUL-terminated). NULL on
 * failure with *err filled (err may be NULL). */
noise_graph *noise_graph_parse_json(const char *json, size_t len, noise_graph_error *err);
/* From the canonical text. Text that decodes but is not canonical is refused
 * with NOISE_GRAPH_ECANONICAL and a message quoting the canonical form (when
 * it fits), so a cache never holds two spellings of one graph. */
noise_graph *noise_graph_decode(const char *text, size_t len, noise_graph_error *err);
/* The one-node graph of a kind's spec (its seed is not used: the graph is
 * prepared for a seed like any other). NULL if memory ran out. */
noise_graph *noise_graph_from_spec(const noise_spec *spec);
void noise_graph_destroy(noise_graph *g);

/* The canonical text / canonical JSON (every parameter, defaults included,
 * keys in canonical order, shared sub-graphs as top-level "nodes" named
 * "n0", "n1", ...). Return the length written (NUL excluded) or
 * NOISE_ENOSPACE. */
int noise_graph_encode(const noise_graph *g, char *buf, size_t buf_size);
int noise_graph_to_json(const noise_graph *g, char *buf, size_t buf_size);

/* If the graph is a single source node with seed offset 0, its spec
 * (kind and parameters; seed 0) into *spec and 1; else 0. */
int noise_graph_as_spec(const noise_graph *g, noise_spec *spec);
/* Distinct nodes, and the longest input chain. */
int noise_graph_node_count(const noise_graph *g);
int noise_graph_depth(const noise_graph *g);
/* 1 if every source in it is planar (noise_spec_planar): no t. */
int noise_graph_planar(const noise_graph *g);

/* ---- prepared graphs ---- */

/* A graph prepared for one seed (source fields built, fractals unrolled):
 * immutable, any number of threads may evaluate it at once. NULL on failure
 * (memory, or NOISE_GRAPH_ELIMIT when unrolling exceeds
 * NOISE_GRAPH_MAX_INSTANCES) with *err filled. */
typedef struct noise_graph_field noise_graph_field;
/* The field keeps what it needs: the graph may be destroyed once it is
 * prepared. */
noise_graph_field *noise_graph_prepare(const noise_graph *g, uint32_t seed, noise_graph_error *err);
void noise_graph_field_destroy(noise_graph_field *f);

/* As noise_field_point, noise_field_points and noise_field_grid_rows
 * (noise.h): the same layouts, the same row and sample positions; the
 * grid's values and gradients rounded to float at the end. These allocate
 * their working memory (freed before they return); they return 0, or
 * NOISE_GRAPH_ENOMEM and write nothing. */
int noise_graph_field_point(const noise_graph_field *f, const double *p, int dims, double *value, double *grad,
                            int *n_grad);
int noise_graph_field_points(const noise_graph_field *f, size_t n_points, const double *points, int dims,
                             double *out_values, double *out_grads);
int noise_graph_field_grid_rows(const noise_graph_field *f, double x0, double y0, double step, int width,
                                int row0, int rows, float *out_values, float *out_grads);

/* The work of one sample, walked over the unrolled nodes: the sum of
 * source_cost(spec, gradients, ctx) over source instances (the spec with its
 * seed in effect and the evaluation's dimension applied: has_t set for a 3D
 * evaluation) plus node_cost per other node instance. The caller's cost
 * model (the daemon's cost.h) supplies both. *dominant (if not NULL)
 * receives the JSON pointer, in the canonical JSON, of the node whose
 * instances cost most together. */
double noise_graph_field_cost(const noise_graph_field *f, int gradients, int dims,
                              double (*source_cost)(const noise_spec *spec, int gradients, void *ctx),
                              void *ctx, double node_cost, char *dominant, size_t dominant_size);

#endif
