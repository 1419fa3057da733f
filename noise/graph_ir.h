/* graph_ir.h: internal to noise/: a parsed graph as the parser
 * (graph_parse.c) builds it and the evaluator (graph_eval.c) reads it.
 * Prefix ng_ / NG_. The user-facing reference is docs/graphs.md; this is
 * the node table it documents.
 *
 * Nodes are stored in canonical order: a post-order walk from the root,
 * inputs left to right, each distinct node at its first visit; so every
 * input index is smaller than its node's, the root is the last node, and
 * two graphs are the same graph exactly when their node arrays are equal
 * (identical sub-graphs are merged when the graph is built).
 *
 * Every parameter is a double in p[] (integers and enum words as their
 * whole-number value); a parameter at its default is still stored.
 *
 * op                 inputs       p[] slots: name (default; range)
 * NG_SOURCE          0            spec: the kind and its parameters (every query
 *                                 parameter of the kind, same defaults, ranges and
 *                                 checks as noise_spec_parse; spec.seed 0);
 *                                 seed: offset added to the seed in effect
 * NG_CONSTANT        0            p0 value (required; finite)
 * NG_X, NG_Y, NG_T   0            -            (the evaluation's coordinate)
 * NG_DISTANCE        0            p0 px (0), p1 py (0): euclidean distance from (px, py)
 * NG_ADD, NG_MULTIPLY 2..16       -            left to right
 * NG_MIN, NG_MAX     2..16        -            ties: the earlier input
 * NG_SUBTRACT        2            -            a - b
 * NG_DIVIDE          2            -            a / b', b' = b where |b| >= 1e-9, else
 *                                              +-1e-9 with b's sign (+0: +)
 * NG_SMIN, NG_SMAX   2            p0 k (0.1; (0, 1e6]): quadratic smooth min/max
 * NG_NEGATE, NG_ABS  1            -
 * NG_POW             1            p0 exponent (2; (0, 16]): sign(a) |a|^e
 * NG_POWI            1            p0 n (2; integer 0..16): a^n
 * NG_SQRT            1            -            sqrt(max(a, 0))
 * NG_SSQRT           1            -            sign(a) sqrt(|a|)
 * NG_CLAMP           1            p0 min (-1), p1 max (1); min <= max
 * NG_SCALE_BIAS      1            p0 scale (1), p1 bias (0): a * scale + bias
 * NG_REMAP           1            p0 from_min (-1), p1 from_max (1), p2 to_min (0),
 *                                 p3 to_max (1); from_min != from_max; not clamped
 * NG_CURVE           1            pts: x0, y0, x1, y1, ... (2..64 points, x strictly
 *                                 increasing): monotone cubic (Fritsch-Carlson)
 *                                 through them, the end values outside
 * NG_TERRACE         1            pts: x0, x1, ... (2..64, strictly increasing);
 *                                 p0 invert (0; 0/1), p1 smooth (0; 0/1): libnoise's
 *                                 Terrace (alpha^2), smooth: 3 alpha^2 - 2 alpha^3
 * NG_BLEND           3 a, b, c    -            a + (b - a) (c + 1) / 2 (libnoise Blend)
 * NG_SELECT          3 a, b, c    p0 lower (-1), p1 upper (1), p2 falloff (0; >= 0,
 *                                 at most (upper - lower) / 2): libnoise's Select:
 *                                 b where lower <= c <= upper, else a, s-curve
 *                                 blended over +-falloff around each bound
 * NG_DOMAIN_SCALE    1            p0 scale (1; nonzero, |scale| <= 1e6): input at p * scale
 * NG_DOMAIN_OFFSET   1            p0 x (0), p1 y (0), p2 t (0): input at p + offset
 * NG_DOMAIN_ROTATE   1            p0 angle (0; degrees, |angle| <= 360): input at
 *                                 (x cos - y sin, x sin + y cos, t)
 * NG_WARP            3 s, wx, wy  p0 amplitude (1; |a| <= 1e6): s at
 *                                 (x + a wx(p), y + a wy(p), t)
 * NG_FRACTAL         1            p0 type (fbm 0, ridged 1, turbulence 2, pingpong 3),
 *                                 p1 octaves (3; 1..16), p2 lacunarity (2; [1, 16]),
 *                                 p3 gain (0.5; (0, 1]), p4 strength (2; (0, 16],
 *                                 pingpong only): octave k = the input at
 *                                 lacunarity^k p with the seed in effect for k = 0,
 *                                 hashed with k (as a kind's octaves) for k >= 1;
 *                                 finished as the kinds are (noise.h), pingpong:
 *                                 2 sum amp_k pp((n_k + 1) strength) / sum amp - 1,
 *                                 pp(v) = 1 - |1 - (v mod 2)|; not clamped
 * NG_SEED_OFFSET     1            seed: offset added to the seed in effect for its input
 */
#ifndef GRAPH_IR_H
#define GRAPH_IR_H

#include <stddef.h>
#include <stdint.h>

#include "noise.h"
#include "noise_graph.h"

typedef enum {
    NG_SOURCE = 0,
    NG_CONSTANT,
    NG_X,
    NG_Y,
    NG_T,
    NG_DISTANCE,
    NG_ADD,
    NG_SUBTRACT,
    NG_MULTIPLY,
    NG_DIVIDE,
    NG_MIN,
    NG_MAX,
    NG_SMIN,
    NG_SMAX,
    NG_NEGATE,
    NG_ABS,
    NG_POW,
    NG_POWI,
    NG_SQRT,
    NG_SSQRT,
    NG_CLAMP,
    NG_SCALE_BIAS,
    NG_REMAP,
    NG_CURVE,
    NG_TERRACE,
    NG_BLEND,
    NG_SELECT,
    NG_DOMAIN_SCALE,
    NG_DOMAIN_OFFSET,
    NG_DOMAIN_ROTATE,
    NG_WARP,
    NG_FRACTAL,
    NG_SEED_OFFSET,
    NG_OP_COUNT
} ng_op;

enum { NG_FRACTAL_FBM = 0, NG_FRACTAL_RIDGED, NG_FRACTAL_TURBULENCE, NG_FRACTAL_PINGPONG };

#define NG_MAX_PARAMS 6

typedef struct {
    ng_op op;
    int n_in;
    int in[NOISE_GRAPH_MAX_INPUTS]; /* indices into noise_graph.nodes, each < this node's */
    noise_spec spec;                /* NG_SOURCE */
    uint32_t seed;                  /* NG_SOURCE, NG_SEED_OFFSET: the offset */
    double p[NG_MAX_PARAMS];
    int n_pts;                      /* NG_CURVE: points (pairs in pts); NG_TERRACE: values */
    double pts[2 * NOISE_GRAPH_MAX_POINTS];
} ng_node;

struct noise_graph {
    int n;            /* nodes; the root is nodes[n - 1] */
    ng_node *nodes;
    int depth;
};

/* The node's name as written in JSON and text ("perlin" for a source of
 * kind perlin, "scale_bias", ...). */
const char *ng_node_name(const ng_node *node);
/* The JSON pointer of node i in the graph's canonical JSON
 * (noise_graph_to_json), for messages naming a node. Returns its length. */
int ng_node_pointer(const noise_graph *g, int i, char *buf, size_t buf_size);

#endif
