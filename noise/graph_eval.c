/* graph_eval.c: prepared field graphs (noise_graph.h): the graph unrolled
 * into a flat program once per seed, then evaluated in chunks of NE_CHUNK
 * samples with exact gradients by the chain rule.
 *
 * Prepare. The graph (graph_ir.h: nodes in post-order) is unrolled into
 * instances: a node in a coordinate context with a seed in effect. A
 * context is the identity (the evaluation's coordinates) or a transform of
 * another one: domain_scale, domain_offset, domain_rotate, warp, and each
 * fractal octave k >= 1 (a scale by lacunarity^k). fractal octaves (hashed
 * seeds), seed_offset and a source's own seed change the seed in effect.
 * Identical instances (same node, context and seed; the seed not counted
 * below a node without sources, the context not counted below one that
 * reads no coordinates) are one, and identical contexts are one, so a
 * sub-graph used twice is evaluated once. Each distinct source instance
 * gets its own noise_field (its spec with its seed). The result is a flat
 * program in topological order: context instructions (coordinates) and
 * value instructions (values and gradients), each writing one slot of
 * 4 x NE_CHUNK doubles (value and 3 gradient rows, or x, y and t); slots
 * are reused once their last reader has run.
 *
 * Evaluate. The program runs over chunks of up to NE_CHUNK samples; each
 * instruction is one tight loop over the chunk. In a grid the identity
 * context is a row (xs and one y), and scale and offset keep a row a row,
 * so sources use the core's row loops; rotate and warp scatter it. A graph
 * whose root is a source in the identity context is that field: the
 * public functions hand it to noise_field_* (the same bits as the kind).
 *
 * Gradients: every value carries d/dx, d/dy (and d/dt in a 3D evaluation)
 * with respect to its own context's coordinates; a domain node turns its
 * input's gradient into its own by J^T (scale: s g; rotate: R^T g; warp:
 * (I + a [dwx; dwy])^T g; octave k: lacunarity^k g). At a kink the value
 * on the side of increasing input is taken (docs/graphs.md lists them).
 *
 * Arithmetic is plain C in a fixed order (no FMA: -ffp-contract=off), the
 * same on every instruction-set path; only the sources run vector code,
 * which gives the scalar path's bits. Rotation uses the core's nl_sincos;
 * power with a real exponent uses its own exp and log (ge_pow): libm's pow
 * differs between libraries and, in glibc, between CPUs (an FMA variant).
 */
/* The chunk loops are plain element-wise arithmetic: let the compiler
 * turn them into SSE2 lanes, which round each lane as the scalar
 * instructions do (no reassociation without -ffast-math; no FMA in the
 * baseline instruction set), so the bits do not change. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE_SIZE__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "fp-contract=off")
#endif

#include "graph_ir.h"
#include "noise.h"
#include "noise_field.h"
#include "noise_graph.h"
#include "noise_lattice.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Context instructions, after the node ops. */
enum { GE_COORDS = NG_OP_COUNT, GE_CTX_SCALE, GE_CTX_OFFSET, GE_CTX_ROTATE, GE_CTX_WARP };

typedef struct {
    int op;       /* ng_op, or GE_* */
    int node;     /* graph node it comes from (-1: the coordinates) */
    int ctx;      /* the value index of the coordinates it reads (sources, x, y, t,
                     distance), or, for a context, the context it transforms */
    int n_in;
    int in[NOISE_GRAPH_MAX_INPUTS]; /* value indices */
    double p[6];
    double *tab;          /* curve, terrace, fractal: owned tables */
    int n_tab;            /* curve, terrace: points */
    noise_field *field;   /* sources (owned by the graph field's list) */
    uint32_t seed;        /* sources: the seed of the field (in effect plus the node's) */
    int fixed_t;          /* sources with their own t */
    int slot;
    int pinned;           /* constants: filled once per call, slot never reused */
    int last_use;
} ge_val;

struct noise_graph_field {
    int n_vals;
    ge_val *vals;
    int root;          /* value index of the graph's output */
    int n_slots;
    noise_field *single; /* the root is this source in the identity context */
    int n_fields;
    noise_field **fields;
    /* cost walk: per graph node, its JSON pointer */
    int n_nodes;
    char *ptr_buf;
    int *ptr_at;
};

/* ---- prepare ---- */

typedef struct {
    uint64_t key[3];
    int val;
} ge_memo;

typedef struct {
    const noise_graph *g;
    ge_val *vals;
    int n_vals, cap_vals;
    ge_memo *memo;
    int memo_cap; /* power of two */
    unsigned char *seeded, *coords; /* per node: sub-graph has a source / reads coordinates */
    noise_field **fields;
    int n_fields;
    int fail;        /* 0, NOISE_GRAPH_ELIMIT or NOISE_GRAPH_ENOMEM */
    int fail_node;   /* the node named in the error */
    int outer_fractal; /* outermost fractal node on the recursion stack, -1 */
    int n_instances;
    int n_memo;
} ge_build;

static uint64_t ge_dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static uint64_t ge_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* The memo slot of key k (an empty one or the match). */
static ge_memo *ge_memo_find(ge_build *B, const uint64_t k[3])
{
    uint64_t h = ge_mix(ge_mix(ge_mix(0, k[0]), k[1]), k[2]);
    size_t mask = (size_t)B->memo_cap - 1;
    for (size_t i = (size_t)(h ^ (h >> 29)) & mask;; i = (i + 1) & mask) {
        ge_memo *m = &B->memo[i];
        if (m->val < 0 || (m->key[0] == k[0] && m->key[1] == k[1] && m->key[2] == k[2]))
            return m;
    }
}

static int ge_new_val(ge_build *B, int op, int node, int ctx)
{
    if (B->n_vals >= 2 * NOISE_GRAPH_MAX_INSTANCES + 8) {
        B->fail = NOISE_GRAPH_ELIMIT;
        B->fail_node = B->outer_fractal >= 0 ? B->outer_fractal : node;
        return -1;
    }
    if (B->n_vals == B->cap_vals) {
        int cap = B->cap_vals ? 2 * B->cap_vals : 64;
        ge_val *nv = realloc(B->vals, (size_t)cap * sizeof *nv);
        if (!nv) {
            B->fail = NOISE_GRAPH_ENOMEM;
            return -1;
        }
        B->vals = nv;
        B->cap_vals = cap;
    }
    ge_val *v = &B->vals[B->n_vals];
    memset(v, 0, sizeof *v);
    v->op = op;
    v->node = node;
    v->ctx = ctx;
    v->slot = -1;
    return B->n_vals++;
}

/* The context `parent` transformed by op with parameters p (wx, wy: the
 * warp's values), merged with an identical one. */
static int ge_context(ge_build *B, int parent, int op, int node, const double *p, int np, int wx, int wy)
{
    uint64_t h = (uint64_t)op;
    for (int i = 0; i < np; i++)
        h = ge_mix(h, ge_dbits(p[i]));
    uint64_t k[3] = { 0x8000000000000000ull | (uint64_t)(uint32_t)parent, h,
                      ((uint64_t)(uint32_t)wx << 32) | (uint32_t)wy };
    ge_memo *m = ge_memo_find(B, k);
    if (m->val >= 0)
        return m->val;
    int c = ge_new_val(B, op, node, parent);
    if (c < 0)
        return -1;
    B->n_memo++;
    ge_val *v = &B->vals[c];
    for (int i = 0; i < np; i++)
        v->p[i] = p[i];
    if (op == GE_CTX_WARP) {
        v->n_in = 2;
        v->in[0] = wx;
        v->in[1] = wy;
    }
    memcpy(m->key, k, sizeof k);
    m->val = c;
    return c;
}

/* A field per distinct (node, seed) of the source instances, once the
 * unrolling has succeeded (the memo finds the one already made). */
static int ge_fields(ge_build *B)
{
    int n_src = 0;
    for (int i = 0; i < B->n_vals; i++)
        n_src += B->vals[i].op == NG_SOURCE;
    B->fields = malloc((size_t)(n_src > 0 ? n_src : 1) * sizeof *B->fields);
    if (!B->fields)
        return -1;
    for (int i = 0; i < B->n_vals; i++) {
        ge_val *v = &B->vals[i];
        if (v->op != NG_SOURCE)
            continue;
        uint64_t k[3] = { 0x4000000000000000ull | (uint64_t)(uint32_t)v->node, v->seed, 0 };
        ge_memo *m = ge_memo_find(B, k);
        if (m->val >= 0) {
            v->field = B->vals[m->val].field;
            continue;
        }
        noise_spec spec = B->g->nodes[v->node].spec;
        spec.seed = v->seed;
        v->field = noise_field_create(&spec);
        if (!v->field)
            return -1;
        B->fields[B->n_fields++] = v->field;
        memcpy(m->key, k, sizeof k);
        m->val = i;
    }
    return 0;
}

/* Fritsch-Carlson: the cubic of each interval of the curve's points as
 * tab = x[0..n), the last y, then per interval k: y_k, c1, c2, c3, h_k, with
 * value = y_k + t (c1 + t (c2 + t c3)), t = (a - x_k) / h_k. */
static double *ge_curve_table(const ng_node *nd)
{
    int n = nd->n_pts;
    double *tab = malloc(((size_t)n + 1 + 5 * (size_t)n) * sizeof *tab);
    double m[NOISE_GRAPH_MAX_POINTS], d[NOISE_GRAPH_MAX_POINTS];
    if (!tab)
        return NULL;
    const double *pt = nd->pts;
    for (int k = 0; k < n; k++)
        tab[k] = pt[2 * k];
    tab[n] = pt[2 * n - 1];
    for (int k = 0; k + 1 < n; k++)
        d[k] = (pt[2 * k + 3] - pt[2 * k + 1]) / (pt[2 * k + 2] - pt[2 * k]);
    m[0] = d[0];
    m[n - 1] = d[n - 2];
    for (int k = 1; k + 1 < n; k++)
        m[k] = d[k - 1] * d[k] <= 0 ? 0.0 : (d[k - 1] + d[k]) * 0.5;
    for (int k = 0; k + 1 < n; k++) {
        if (d[k] == 0) {
            m[k] = 0;
            m[k + 1] = 0;
            continue;
        }
        double a = m[k] / d[k], b = m[k + 1] / d[k], s = a * a + b * b;
        if (s > 9.0) {
            double tau = 3.0 / sqrt(s);
            m[k] = tau * a * d[k];
            m[k + 1] = tau * b * d[k];
        }
    }
    for (int k = 0; k + 1 < n; k++) {
        double y0 = pt[2 * k + 1], y1 = pt[2 * k + 3], h = pt[2 * k + 2] - pt[2 * k];
        double *c = tab + n + 1 + 5 * k;
        c[0] = y0;
        c[1] = h * m[k];
        c[2] = 3.0 * (y1 - y0) - 2.0 * h * m[k] - h * m[k + 1];
        c[3] = 2.0 * (y0 - y1) + h * m[k] + h * m[k + 1];
        c[4] = h;
    }
    return tab;
}

static int ge_instance(ge_build *B, int node, int ctx, uint32_t seed);

/* A node instance made of value instruction op over inputs in[] (value
 * indices) in context ctx. */
static int ge_emit(ge_build *B, int node, int ctx, const int *in, int n_in)
{
    const ng_node *nd = &B->g->nodes[node];
    int v = ge_new_val(B, (int)nd->op, node, ctx);
    if (v < 0)
        return -1;
    ge_val *V = &B->vals[v];
    V->n_in = n_in;
    for (int i = 0; i < n_in; i++)
        V->in[i] = in[i];
    for (int i = 0; i < 6; i++)
        V->p[i] = nd->p[i];
    B->n_instances++;
    if (B->n_instances > NOISE_GRAPH_MAX_INSTANCES) {
        B->fail = NOISE_GRAPH_ELIMIT;
        B->fail_node = B->outer_fractal >= 0 ? B->outer_fractal : node;
        return -1;
    }
    return v;
}

static int ge_instance_new(ge_build *B, int node, int ctx, uint32_t seed)
{
    const ng_node *nd = &B->g->nodes[node];
    int in[NOISE_GRAPH_MAX_INPUTS];
    int v;
    switch (nd->op) {
    case NG_SOURCE: {
        /* its field is made once the whole graph is unrolled (ge_fields):
         * a graph beyond the limit allocates none */
        v = ge_emit(B, node, ctx, NULL, 0);
        if (v < 0)
            return -1;
        B->vals[v].seed = seed + nd->seed;
        B->vals[v].fixed_t = nd->spec.has_t != 0;
        return v;
    }
    case NG_SEED_OFFSET:
        return ge_instance(B, nd->in[0], ctx, seed + nd->seed);
    case NG_DOMAIN_OFFSET: {
        if (nd->p[0] == 0 && nd->p[1] == 0 && nd->p[2] == 0)
            return ge_instance(B, nd->in[0], ctx, seed);
        int c = ge_context(B, ctx, GE_CTX_OFFSET, node, nd->p, 3, -1, -1);
        return c < 0 ? -1 : ge_instance(B, nd->in[0], c, seed); /* gradient unchanged */
    }
    case NG_DOMAIN_SCALE: {
        if (nd->p[0] == 1.0)
            return ge_instance(B, nd->in[0], ctx, seed);
        int c = ge_context(B, ctx, GE_CTX_SCALE, node, nd->p, 1, -1, -1);
        if (c < 0 || (in[0] = ge_instance(B, nd->in[0], c, seed)) < 0)
            return -1;
        return ge_emit(B, node, ctx, in, 1);
    }
    case NG_DOMAIN_ROTATE: {
        /* degrees to the quadrant and the rest, so 90, 180, 270 are exact */
        double a = fmod(nd->p[0], 360.0);
        if (a < 0)
            a += 360.0;
        if (a == 0)
            return ge_instance(B, nd->in[0], ctx, seed);
        int q = (int)(a / 90.0);
        double r = a - 90.0 * q, s, c;
        if (r == 0) {
            s = 0.0;
            c = 1.0;
        } else {
            nl_sincos(r * (3.141592653589793 / 180.0), &s, &c);
        }
        for (; q > 0; q--) { /* rotate (c, s) by 90 degrees */
            double t = c;
            c = -s;
            s = t;
        }
        double cs[2] = { c, s };
        int cx = ge_context(B, ctx, GE_CTX_ROTATE, node, cs, 2, -1, -1);
        if (cx < 0 || (in[0] = ge_instance(B, nd->in[0], cx, seed)) < 0)
            return -1;
        v = ge_emit(B, node, ctx, in, 1);
        if (v >= 0) {
            B->vals[v].p[0] = c;
            B->vals[v].p[1] = s;
        }
        return v;
    }
    case NG_WARP: {
        if (nd->p[0] == 0)
            return ge_instance(B, nd->in[0], ctx, seed);
        if ((in[1] = ge_instance(B, nd->in[1], ctx, seed)) < 0 || (in[2] = ge_instance(B, nd->in[2], ctx, seed)) < 0)
            return -1;
        int c = ge_context(B, ctx, GE_CTX_WARP, node, nd->p, 1, in[1], in[2]);
        if (c < 0 || (in[0] = ge_instance(B, nd->in[0], c, seed)) < 0)
            return -1;
        return ge_emit(B, node, ctx, in, 3);
    }
    case NG_FRACTAL: {
        int type = (int)nd->p[0], n_oct = (int)nd->p[1];
        double lac = nd->p[2], gain = nd->p[3];
        if (n_oct < 1)
            n_oct = 1;
        if (n_oct > NOISE_GRAPH_MAX_INPUTS)
            n_oct = NOISE_GRAPH_MAX_INPUTS;
        if (n_oct == 1 && type == NG_FRACTAL_FBM) /* (1 n) / 1 */
            return ge_instance(B, nd->in[0], ctx, seed);
        int outer = B->outer_fractal;
        if (outer < 0)
            B->outer_fractal = node;
        double l = 1.0, amp = 1.0, sum = 0.0, ls[NOISE_GRAPH_MAX_INPUTS], amps[NOISE_GRAPH_MAX_INPUTS];
        for (int k = 0; k < n_oct; k++) {
            int c = ctx;
            if (k > 0 && l != 1.0)
                c = ge_context(B, ctx, GE_CTX_SCALE, node, &l, 1, -1, -1);
            if (c < 0 || (in[k] = ge_instance(B, nd->in[0], c, k == 0 ? seed : nl_derive(seed, (uint32_t)k))) < 0) {
                B->outer_fractal = outer;
                return -1;
            }
            ls[k] = l;
            amps[k] = amp;
            sum += amp;
            l *= lac;
            amp *= gain;
        }
        B->outer_fractal = outer;
        v = ge_emit(B, node, ctx, in, n_oct);
        if (v < 0)
            return -1;
        double *tab = malloc(3 * (size_t)n_oct * sizeof *tab);
        if (!tab) {
            B->fail = NOISE_GRAPH_ENOMEM;
            return -1;
        }
        for (int k = 0; k < n_oct; k++) {
            tab[k] = amps[k];
            tab[n_oct + k] = amps[k] * ls[k];
            tab[2 * n_oct + k] = ls[k];
        }
        B->vals[v].tab = tab;
        B->vals[v].n_tab = n_oct;
        B->vals[v].p[5] = sum;
        return v;
    }
    default:
        break;
    }
    /* the rest: inputs in the same context and seed */
    for (int i = 0; i < nd->n_in; i++)
        if ((in[i] = ge_instance(B, nd->in[i], ctx, seed)) < 0)
            return -1;
    v = ge_emit(B, node, ctx, in, nd->n_in);
    if (v < 0)
        return -1;
    ge_val *V = &B->vals[v];
    if (nd->op == NG_CURVE || nd->op == NG_TERRACE) {
        int n = nd->n_pts;
        V->tab = nd->op == NG_CURVE ? ge_curve_table(nd) : malloc((size_t)n * sizeof *V->tab);
        if (!V->tab) {
            B->fail = NOISE_GRAPH_ENOMEM;
            return -1;
        }
        if (nd->op == NG_TERRACE)
            memcpy(V->tab, nd->pts, (size_t)n * sizeof *V->tab);
        V->n_tab = n;
    } else if (nd->op == NG_CONSTANT) {
        V->pinned = 1;
    } else if (nd->op == NG_REMAP) {
        /* (a - from_min) m + to_min */
        V->p[4] = (nd->p[3] - nd->p[2]) / (nd->p[1] - nd->p[0]);
    }
    return v;
}

/* The value index of node in context ctx with seed in effect (merged). */
static int ge_instance(ge_build *B, int node, int ctx, uint32_t seed)
{
    if (B->fail)
        return -1;
    if (!B->seeded[node])
        seed = 0;
    if (!B->coords[node])
        ctx = 0;
    uint64_t k[3] = { (uint64_t)(uint32_t)node, (uint64_t)(uint32_t)ctx, seed };
    ge_memo *m = ge_memo_find(B, k);
    if (m->val >= 0)
        return m->val;
    int v = ge_instance_new(B, node, ctx, seed);
    if (v < 0)
        return -1;
    if (++B->n_memo > B->memo_cap / 2) { /* pass-through nodes add entries without instances */
        B->fail = NOISE_GRAPH_ELIMIT;
        B->fail_node = node;
        return -1;
    }
    m = ge_memo_find(B, k); /* the table did not move, but an inner call may have filled this slot's chain */
    memcpy(m->key, k, sizeof k);
    m->val = v;
    return v;
}

static void ge_free_vals(ge_val *vals, int n)
{
    for (int i = 0; i < n; i++)
        free(vals[i].tab);
    free(vals);
}

void noise_graph_field_destroy(noise_graph_field *f)
{
    if (!f)
        return;
    ge_free_vals(f->vals, f->n_vals);
    for (int i = 0; i < f->n_fields; i++)
        noise_field_destroy(f->fields[i]);
    free(f->fields);
    free(f->ptr_buf);
    free(f->ptr_at);
    free(f);
}

static void ge_error(noise_graph_error *err, const noise_graph *g, int code, int node, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void ge_error(noise_graph_error *err, const noise_graph *g, int code, int node, const char *fmt, ...)
{
    if (!err)
        return;
    err->code = code;
    err->pointer[0] = 0;
    if (node >= 0 && g)
        ng_node_pointer(g, node, err->pointer, sizeof err->pointer);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

/* 1 if the instruction reads its context's coordinates. */
static int ge_reads_ctx(const ge_val *v)
{
    return v->op > GE_COORDS || v->op == NG_SOURCE || v->op == NG_X || v->op == NG_Y || v->op == NG_T ||
           v->op == NG_DISTANCE;
}

/* Slots: each value gets one when it is computed; an input's slot is
 * free again after its last reader (never the output's or a constant's). */
static int ge_assign_slots(noise_graph_field *f)
{
    int n = f->n_vals;
    int *free_list = malloc((size_t)(n + 1) * sizeof *free_list), n_free = 0, n_slots = 0;
    if (!free_list)
        return -1;
    for (int i = 0; i < n; i++)
        f->vals[i].last_use = -1;
    for (int i = 0; i < n; i++) {
        ge_val *v = &f->vals[i];
        for (int j = 0; j < v->n_in; j++)
            f->vals[v->in[j]].last_use = i;
        if (ge_reads_ctx(v))
            f->vals[v->ctx].last_use = i;
    }
    f->vals[f->root].last_use = INT_MAX;
    for (int i = 0; i < n; i++) {
        ge_val *v = &f->vals[i];
        /* a constant, filled once per call, has a slot of its own */
        v->slot = n_free && !v->pinned ? free_list[--n_free] : n_slots++;
        if (v->pinned)
            v->last_use = INT_MAX;
        /* release inputs read for the last time here */
        int rd[NOISE_GRAPH_MAX_INPUTS + 1], nr = 0;
        for (int j = 0; j < v->n_in; j++)
            rd[nr++] = v->in[j];
        if (ge_reads_ctx(v))
            rd[nr++] = v->ctx;
        for (int j = 0; j < nr; j++) {
            ge_val *u = &f->vals[rd[j]];
            if (u->last_use == i) {
                u->last_use = -2; /* released (an input read twice is released once) */
                free_list[n_free++] = u->slot;
            }
        }
    }
    free(free_list);
    f->n_slots = n_slots;
    return 0;
}

static void ge_flags(const noise_graph *g, unsigned char *seeded, unsigned char *coords)
{
    for (int i = 0; i < g->n; i++) {
        const ng_node *nd = &g->nodes[i];
        seeded[i] = nd->op == NG_SOURCE;
        coords[i] = nd->op == NG_SOURCE || nd->op == NG_X || nd->op == NG_Y || nd->op == NG_T ||
                    nd->op == NG_DISTANCE;
        for (int j = 0; j < nd->n_in; j++) {
            seeded[i] |= seeded[nd->in[j]];
            coords[i] |= coords[nd->in[j]];
        }
    }
}

noise_graph_field *noise_graph_prepare(const noise_graph *g, uint32_t seed, noise_graph_error *err)
{
    noise_graph_field *f = calloc(1, sizeof *f);
    ge_build B;
    memset(&B, 0, sizeof B);
    B.g = g;
    B.outer_fractal = -1;
    B.memo_cap = 4 * 4 * NOISE_GRAPH_MAX_INSTANCES;
    B.memo = malloc((size_t)B.memo_cap * sizeof *B.memo);
    B.seeded = malloc((size_t)(g->n > 0 ? g->n : 1));
    B.coords = malloc((size_t)(g->n > 0 ? g->n : 1));
    if (!f || !B.memo || !B.seeded || !B.coords || g->n < 1) {
        free(f);
        free(B.memo);
        free(B.seeded);
        free(B.coords);
        if (g->n < 1)
            ge_error(err, NULL, NOISE_GRAPH_EINPUTS, -1, "the graph has no nodes");
        else
            ge_error(err, NULL, NOISE_GRAPH_ENOMEM, -1, "out of memory preparing the graph");
        return NULL;
    }
    for (int i = 0; i < B.memo_cap; i++)
        B.memo[i].val = -1;
    ge_flags(g, B.seeded, B.coords);
    int c0 = ge_new_val(&B, GE_COORDS, -1, -1);
    int root = c0 < 0 ? -1 : ge_instance(&B, g->n - 1, 0, seed);
    if (root >= 0 && ge_fields(&B) != 0) {
        B.fail = NOISE_GRAPH_ENOMEM;
        root = -1;
    }
    free(B.memo);
    free(B.seeded);
    free(B.coords);
    f->vals = B.vals;
    f->n_vals = B.n_vals;
    f->fields = B.fields;
    f->n_fields = B.n_fields;
    f->root = root;
    if (root < 0) {
        if (B.fail == NOISE_GRAPH_ELIMIT)
            ge_error(err, g, NOISE_GRAPH_ELIMIT, B.fail_node,
                     "the graph unrolls to more than %d node instances (fractal octaves and domain transforms "
                     "multiply the nodes below them); the %s node here unrolls too far: use fewer octaves "
                     "or fewer nodes below it",
                     NOISE_GRAPH_MAX_INSTANCES, ng_node_name(&g->nodes[B.fail_node]));
        else
            ge_error(err, NULL, NOISE_GRAPH_ENOMEM, -1, "out of memory preparing the graph");
        noise_graph_field_destroy(f);
        return NULL;
    }
    if (f->vals[root].op == NG_SOURCE && f->vals[root].ctx == 0)
        f->single = f->vals[root].field;
    /* the nodes' JSON pointers, for the cost walk's answer */
    f->n_nodes = g->n;
    f->ptr_at = malloc((size_t)(g->n + 1) * sizeof *f->ptr_at);
    size_t cap = 64 * (size_t)g->n + 64, len = 0;
    f->ptr_buf = malloc(cap);
    if (f->ptr_at && f->ptr_buf) {
        for (int i = 0; i < g->n; i++) {
            char buf[1024];
            int l = ng_node_pointer(g, i, buf, sizeof buf);
            if (l < 0 || l >= (int)sizeof buf)
                l = 0;
            if (len + (size_t)l + 1 > cap) {
                char *nb = realloc(f->ptr_buf, 2 * cap + (size_t)l + 1);
                if (!nb)
                    break;
                f->ptr_buf = nb;
                cap = 2 * cap + (size_t)l + 1;
            }
            f->ptr_at[i] = (int)len;
            memcpy(f->ptr_buf + len, buf, (size_t)l);
            f->ptr_buf[len + (size_t)l] = 0;
            len += (size_t)l + 1;
        }
    }
    if (!f->ptr_at || !f->ptr_buf || ge_assign_slots(f) != 0) {
        ge_error(err, NULL, NOISE_GRAPH_ENOMEM, -1, "out of memory preparing the graph");
        noise_graph_field_destroy(f);
        return NULL;
    }
    return f;
}

/* ---- evaluate ---- */

/* value, d/dx, d/dy, d/dt (vg); or x, y, t (a[0..2]) */
typedef union {
    double a[4][NE_CHUNK];
    struct {
        double v[NE_CHUNK];
        ne_grad g;
    } vg;
} ge_slot;

/* What a context slot holds: y a row's one value (yrow) or per sample, t
 * one value (!tarr) or per sample. */
typedef struct {
    int yrow, tarr;
    double y, t;
} ge_cmeta;

typedef struct {
    const noise_graph_field *f;
    ge_slot *slots;
    ge_cmeta *meta; /* per value */
    int nc;         /* gradient components: 2, or 3 in 3D */
    int d3;
    int want;
} ge_state;

#define V_(i) (S->slots[S->f->vals[i].slot].a[0])
#define G_(i) (S->slots[S->f->vals[i].slot].vg.g)

/* c = the fill of y (a row's y, or per sample) */
static const double *ge_ys(ge_state *S, int ctx, int n, double *tmp)
{
    const ge_cmeta *m = &S->meta[ctx];
    if (!m->yrow)
        return S->slots[S->f->vals[ctx].slot].a[1];
    for (int i = 0; i < n; i++)
        tmp[i] = m->y;
    return tmp;
}

static const double *ge_ts(ge_state *S, int ctx, int n, double *tmp)
{
    const ge_cmeta *m = &S->meta[ctx];
    if (m->tarr)
        return S->slots[S->f->vals[ctx].slot].a[2];
    for (int i = 0; i < n; i++)
        tmp[i] = m->t;
    return tmp;
}

static void ge_zero_grad(ge_state *S, double (*g)[NE_CHUNK], int n)
{
    for (int c = 0; c < S->nc; c++)
        memset(g[c], 0, (size_t)n * sizeof(double));
}

/* x^e for x >= 0, e > 0, as exp(e log x) with only +, -, *, / and exact
 * scalings by powers of 2, so the same bits on every build and CPU (libm's
 * pow is not: glibc picks an FMA variant on CPUs that have it). log x =
 * k ln 2 + 2 atanh(s), s = (m - 1) / (m + 1), m = x / 2^k in [sqrt(1/2),
 * sqrt(2)) (|s| < 0.1716; the series to s^21: truncation below 3e-17);
 * exp y = 2^j exp(r), |r| <= ln(2) / 2, Taylor to degree 13 (truncation
 * below 5e-18). Against glibc's pow: within 5e-15 relative where
 * |e log x| <= 20, 2e-14 over x in (0, 2), e in [1, 16] (measured at 10^6
 * points; the rounding of y = e log x, |y| 2^-53, dominates);
 * tests/unit/test_graph_eval.c allows 2e-15 + 2.5e-16 |y|. */
#define GE_LN2_HI 0.6931471803691238   /* 0x1.62e42feep-1: ln 2's first 33 bits */
#define GE_LN2_LO 1.9082149292705877e-10
static const double ge_inv_odd[14] = { 1.0,        1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,
                                        1.0 / 11,   1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19,
                                        1.0 / 21,   1.0 / 23, 1.0 / 25, 1.0 / 27 };
static const double ge_inv_fact[17] = { 1.0,
                                        1.0,
                                        1.0 / 2,
                                        1.0 / 6,
                                        1.0 / 24,
                                        1.0 / 120,
                                        1.0 / 720,
                                        1.0 / 5040,
                                        1.0 / 40320,
                                        1.0 / 362880,
                                        1.0 / 3628800,
                                        1.0 / 39916800,
                                        1.0 / 479001600,
                                        1.0 / 6227020800.0,
                                        1.0 / 87178291200.0,
                                        1.0 / 1307674368000.0,
                                        1.0 / 20922789888000.0 };

static double ge_pow(double x, double e)
{
    if (!(x > 0))
        return x == 0 ? 0.0 : x; /* 0, or NaN */
    if (x == INFINITY)
        return x;
    /* x = m 2^k, m in [1, 2), from the bits (subnormals scaled up first) */
    uint64_t u;
    int k = 0;
    if (x < 0x1p-1022) {
        x *= 0x1p54;
        k = -54;
    }
    memcpy(&u, &x, sizeof u);
    k += (int)(u >> 52) - 1023;
    u = (u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    double m;
    memcpy(&m, &u, sizeof m);
    if (m >= 1.4142135623730951) {
        m *= 0.5;
        k++;
    }
    double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double p = ge_inv_odd[10];
    for (int j = 9; j >= 0; j--)
        p = ge_inv_odd[j] + s2 * p;
    double lm = 2.0 * s * p; /* log m */
    double y = e * ((double)k * GE_LN2_HI + ((double)k * GE_LN2_LO + lm));
    if (y > 709.8)
        return INFINITY;
    if (y < -745.2)
        return 0.0;
    double h = y * 1.4426950408889634 + 0.5; /* y / ln 2, to the nearest: floor(h) */
    int64_t hi = (int64_t)h;
    hi -= h < (double)hi;
    double jf = (double)hi;
    double r = (y - jf * GE_LN2_HI) - jf * GE_LN2_LO;
    double q = ge_inv_fact[13];
    for (int j = 12; j >= 0; j--)
        q = ge_inv_fact[j] + r * q;
    int ji = (int)jf;
    if (ji < -1021 || ji > 1022)
        return ldexp(q, ji);
    uint64_t sb = (uint64_t)(ji + 1023) << 52; /* 2^ji exactly */
    double sc;
    memcpy(&sc, &sb, sizeof sc);
    return q * sc;
}

/* ge_pow(|a[i]|, e) into r[i] for i < n: the same numbers, computed a
 * stage at a time over the chunk (each stage a loop the compiler can run
 * on lanes; one sample's Horner chains are long, the chunk's are
 * independent); zeros, subnormals, infinities, NaN and results outside
 * the normal range by ge_pow itself. */
static void ge_pow_n(const double *a, int n, double e, double *r)
{
    double s[NE_CHUNK], s2[NE_CHUNK], kk[NE_CHUNK], p[NE_CHUNK];
    unsigned char special[NE_CHUNK];
    for (int i = 0; i < n; i++) {
        double x = fabs(a[i]), m;
        special[i] = !(x >= 0x1p-1022) || x == INFINITY;
        if (special[i])
            x = 1.0;
        uint64_t u;
        memcpy(&u, &x, sizeof u);
        int k = (int)(u >> 52) - 1023;
        u = (u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
        memcpy(&m, &u, sizeof m);
        if (m >= 1.4142135623730951) {
            m *= 0.5;
            k++;
        }
        s[i] = (m - 1.0) / (m + 1.0);
        kk[i] = (double)k;
    }
    for (int i = 0; i < n; i++) {
        s2[i] = s[i] * s[i];
        p[i] = ge_inv_odd[10];
    }
    for (int j = 9; j >= 0; j--)
        for (int i = 0; i < n; i++)
            p[i] = ge_inv_odd[j] + s2[i] * p[i];
    for (int i = 0; i < n; i++) {
        double lm = 2.0 * s[i] * p[i];
        double y = e * (kk[i] * GE_LN2_HI + (kk[i] * GE_LN2_LO + lm));
        if (y > 709.8 || y < -745.2) {
            special[i] = 1;
            y = 0.0;
        }
        double h = y * 1.4426950408889634 + 0.5;
        int hi = (int)h;
        hi -= h < (double)hi;
        double jf = (double)hi;
        s[i] = (y - jf * GE_LN2_HI) - jf * GE_LN2_LO; /* r */
        kk[i] = jf;
        p[i] = ge_inv_fact[13];
    }
    for (int j = 12; j >= 0; j--)
        for (int i = 0; i < n; i++)
            p[i] = ge_inv_fact[j] + s[i] * p[i];
    for (int i = 0; i < n; i++) {
        int ji = (int)kk[i];
        if (special[i] || ji < -1021 || ji > 1022) {
            r[i] = special[i] ? ge_pow(fabs(a[i]), e) : ldexp(p[i], ji);
            continue;
        }
        uint64_t sb = (uint64_t)(ji + 1023) << 52;
        double sc;
        memcpy(&sc, &sb, sizeof sc);
        r[i] = p[i] * sc;
    }
}

/* pingpong's triangle wave and its slope: v mod 2 (floored) folded */
static inline double ge_pp(double v, double *slope)
{
    double m = v - 2.0 * floor(v * 0.5);
    *slope = m < 1.0 ? 1.0 : -1.0;
    return 1.0 - fabs(1.0 - m);
}

static void ge_context_run(ge_state *S, const ge_val *v, int vi, int n)
{
    ge_cmeta *pm = &S->meta[v->ctx], *m = &S->meta[vi];
    double(*out)[NE_CHUNK] = S->slots[v->slot].a;
    const double(*in)[NE_CHUNK] = (const double(*)[NE_CHUNK])S->slots[S->f->vals[v->ctx].slot].a;
    const double *px = in[0];
    *m = *pm;
    switch (v->op) {
    case GE_CTX_SCALE: {
        double s = v->p[0];
        for (int i = 0; i < n; i++)
            out[0][i] = px[i] * s;
        if (pm->yrow)
            m->y = pm->y * s;
        else
            for (int i = 0; i < n; i++)
                out[1][i] = in[1][i] * s;
        if (pm->tarr)
            for (int i = 0; i < n; i++)
                out[2][i] = in[2][i] * s;
        else
            m->t = pm->t * s;
        break;
    }
    case GE_CTX_OFFSET: {
        double ox = v->p[0], oy = v->p[1], ot = v->p[2];
        for (int i = 0; i < n; i++)
            out[0][i] = px[i] + ox;
        if (pm->yrow)
            m->y = pm->y + oy;
        else
            for (int i = 0; i < n; i++)
                out[1][i] = in[1][i] + oy;
        if (pm->tarr)
            for (int i = 0; i < n; i++)
                out[2][i] = in[2][i] + ot;
        else
            m->t = pm->t + ot;
        break;
    }
    case GE_CTX_ROTATE: {
        double c = v->p[0], s = v->p[1];
        if (pm->yrow) {
            double y = pm->y, ys = y * s, yc = y * c;
            for (int i = 0; i < n; i++) {
                out[0][i] = px[i] * c - ys;
                out[1][i] = px[i] * s + yc;
            }
        } else {
            for (int i = 0; i < n; i++) {
                double x = px[i], y = in[1][i];
                out[0][i] = x * c - y * s;
                out[1][i] = x * s + y * c;
            }
        }
        m->yrow = 0;
        if (pm->tarr)
            memcpy(out[2], in[2], (size_t)n * sizeof(double));
        break;
    }
    case GE_CTX_WARP: {
        double a = v->p[0];
        const double *wx = V_(v->in[0]), *wy = V_(v->in[1]);
        for (int i = 0; i < n; i++)
            out[0][i] = px[i] + a * wx[i];
        if (pm->yrow) {
            double y = pm->y;
            for (int i = 0; i < n; i++)
                out[1][i] = y + a * wy[i];
        } else {
            for (int i = 0; i < n; i++)
                out[1][i] = in[1][i] + a * wy[i];
        }
        m->yrow = 0;
        if (pm->tarr)
            memcpy(out[2], in[2], (size_t)n * sizeof(double));
        break;
    }
    default:
        break;
    }
}

static void ge_source_run(ge_state *S, const ge_val *v, int n)
{
    const ge_cmeta *m = &S->meta[v->ctx];
    const double(*c)[NE_CHUNK] = (const double(*)[NE_CHUNK])S->slots[S->f->vals[v->ctx].slot].a;
    double *out = S->slots[v->slot].a[0];
    double(*g)[NE_CHUNK] = S->want ? S->slots[v->slot].vg.g : NULL;
    if (S->d3 && !v->fixed_t) {
        double ty[NE_CHUNK], tt[NE_CHUNK];
        const double *ys = m->yrow ? ge_ys(S, v->ctx, n, ty) : c[1];
        ne_field_chunk(v->field, n, c[0], ys, 0.0, ge_ts(S, v->ctx, n, tt), out, g);
        return;
    }
    ne_field_chunk(v->field, n, c[0], m->yrow ? NULL : c[1], m->y, NULL, out, g);
    if (g && S->d3)
        memset(g[2], 0, (size_t)n * sizeof(double)); /* a fixed t: no d/dt */
}

/* n-ary min (lt 1) / max (lt 0): the first of equal values wins */
static void ge_minmax(ge_state *S, const ge_val *v, int n, int is_min)
{
    double *out = V_(v - S->f->vals);
    const double *a0 = V_(v->in[0]);
    int want = S->want;
    double(*g)[NE_CHUNK] = G_(v - S->f->vals);
    memcpy(out, a0, (size_t)n * sizeof(double));
    if (want)
        for (int c = 0; c < S->nc; c++)
            memcpy(g[c], G_(v->in[0])[c], (size_t)n * sizeof(double));
    for (int j = 1; j < v->n_in; j++) {
        const double *b = V_(v->in[j]);
        const double(*gb)[NE_CHUNK] = (const double(*)[NE_CHUNK])G_(v->in[j]);
        if (!want) {
            if (is_min)
                for (int i = 0; i < n; i++)
                    out[i] = b[i] < out[i] ? b[i] : out[i];
            else
                for (int i = 0; i < n; i++)
                    out[i] = b[i] > out[i] ? b[i] : out[i];
            continue;
        }
        for (int i = 0; i < n; i++) {
            int take = is_min ? b[i] < out[i] : b[i] > out[i];
            if (take) {
                out[i] = b[i];
                for (int c = 0; c < S->nc; c++)
                    g[c][i] = gb[c][i];
            }
        }
    }
}

static void ge_value_run(ge_state *S, int vi, int n)
{
    const noise_graph_field *f = S->f;
    const ge_val *v = &f->vals[vi];
    double *out = V_(vi);
    double(*g)[NE_CHUNK] = G_(vi);
    int want = S->want, nc = S->nc;
    const double *a = v->n_in > 0 ? V_(v->in[0]) : NULL;
    const double(*ga)[NE_CHUNK] = v->n_in > 0 ? (const double(*)[NE_CHUNK])G_(v->in[0]) : NULL;
    const double *b = v->n_in > 1 ? V_(v->in[1]) : NULL;
    const double(*gb)[NE_CHUNK] = v->n_in > 1 ? (const double(*)[NE_CHUNK])G_(v->in[1]) : NULL;
    switch ((ng_op)v->op) {
    case NG_SOURCE:
        ge_source_run(S, v, n);
        return;
    case NG_CONSTANT:
        for (int i = 0; i < n; i++)
            out[i] = v->p[0];
        if (want)
            ge_zero_grad(S, g, n);
        return;
    case NG_X:
    case NG_Y:
    case NG_T: {
        int axis = v->op == NG_X ? 0 : v->op == NG_Y ? 1 : 2;
        double tmp[NE_CHUNK];
        const double *src = axis == 0   ? S->slots[f->vals[v->ctx].slot].a[0]
                            : axis == 1 ? ge_ys(S, v->ctx, n, tmp)
                                        : ge_ts(S, v->ctx, n, tmp);
        memcpy(out, src, (size_t)n * sizeof(double));
        if (want) {
            ge_zero_grad(S, g, n);
            if (axis < nc)
                for (int i = 0; i < n; i++)
                    g[axis][i] = 1.0;
        }
        return;
    }
    case NG_DISTANCE: {
        double ty[NE_CHUNK];
        const double *xs = S->slots[f->vals[v->ctx].slot].a[0], *ys = ge_ys(S, v->ctx, n, ty);
        double px = v->p[0], py = v->p[1];
        for (int i = 0; i < n; i++) {
            double dx = xs[i] - px, dy = ys[i] - py, d = sqrt(dx * dx + dy * dy);
            out[i] = d;
            if (want) {
                g[0][i] = d > 0 ? dx / d : 0.0;
                g[1][i] = d > 0 ? dy / d : 0.0;
            }
        }
        if (want && nc == 3)
            memset(g[2], 0, (size_t)n * sizeof(double));
        return;
    }
    case NG_ADD:
        for (int i = 0; i < n; i++)
            out[i] = a[i] + b[i];
        for (int j = 2; j < v->n_in; j++) {
            const double *c = V_(v->in[j]);
            for (int i = 0; i < n; i++)
                out[i] += c[i];
        }
        if (want)
            for (int c = 0; c < nc; c++) {
                for (int i = 0; i < n; i++)
                    g[c][i] = ga[c][i] + gb[c][i];
                for (int j = 2; j < v->n_in; j++) {
                    const double *gc = G_(v->in[j])[c];
                    for (int i = 0; i < n; i++)
                        g[c][i] += gc[i];
                }
            }
        return;
    case NG_SUBTRACT:
        for (int i = 0; i < n; i++)
            out[i] = a[i] - b[i];
        if (want)
            for (int c = 0; c < nc; c++)
                for (int i = 0; i < n; i++)
                    g[c][i] = ga[c][i] - gb[c][i];
        return;
    case NG_MULTIPLY:
        /* product rule left to right: (P, dP) <- (P b, dP b + P db) */
        if (want)
            for (int c = 0; c < nc; c++)
                for (int i = 0; i < n; i++)
                    g[c][i] = ga[c][i] * b[i] + a[i] * gb[c][i];
        for (int i = 0; i < n; i++)
            out[i] = a[i] * b[i];
        for (int j = 2; j < v->n_in; j++) {
            const double *c2 = V_(v->in[j]);
            if (want) {
                const double(*gc)[NE_CHUNK] = (const double(*)[NE_CHUNK])G_(v->in[j]);
                for (int c = 0; c < nc; c++)
                    for (int i = 0; i < n; i++)
                        g[c][i] = g[c][i] * c2[i] + out[i] * gc[c][i];
            }
            for (int i = 0; i < n; i++)
                out[i] *= c2[i];
        }
        return;
    case NG_DIVIDE:
        for (int i = 0; i < n; i++) {
            double d = b[i], db = 1.0;
            if (fabs(d) < 1e-9) {
                d = d < 0 ? -1e-9 : 1e-9; /* 0 (either zero): + */
                db = 0.0;
            }
            double q = a[i] / d;
            out[i] = q;
            if (want)
                for (int c = 0; c < nc; c++)
                    g[c][i] = (ga[c][i] - q * (db * gb[c][i])) / d;
        }
        return;
    case NG_MIN:
    case NG_MAX:
        ge_minmax(S, v, n, v->op == NG_MIN);
        return;
    case NG_SMIN:
    case NG_SMAX: {
        double k = v->p[0], q = 0.25 * k;
        int smax = v->op == NG_SMAX;
        for (int i = 0; i < n; i++) {
            double x = a[i], y = b[i], d = fabs(x - y), h = k - d;
            h = h > 0 ? h / k : 0.0;
            /* the winner (a on ties) and its weight */
            int first = smax ? x >= y : x <= y;
            double m = first ? x : y, e = h * h * q;
            out[i] = smax ? m + e : m - e;
            if (want) {
                double wa = first ? 1.0 - 0.5 * h : 0.5 * h, wb = 1.0 - wa;
                for (int c = 0; c < nc; c++)
                    g[c][i] = wa * ga[c][i] + wb * gb[c][i];
            }
        }
        return;
    }
    case NG_NEGATE:
        for (int i = 0; i < n; i++)
            out[i] = -a[i];
        if (want)
            for (int c = 0; c < nc; c++)
                for (int i = 0; i < n; i++)
                    g[c][i] = -ga[c][i];
        return;
    case NG_ABS:
        for (int i = 0; i < n; i++)
            out[i] = fabs(a[i]);
        if (want)
            for (int c = 0; c < nc; c++)
                for (int i = 0; i < n; i++)
                    g[c][i] = a[i] < 0 ? -ga[c][i] : ga[c][i];
        return;
    case NG_POW: {
        /* sign(a) |a|^e (ge_pow); the slope e |a|^e / |a|, 0 at a = 0
         * for e != 1 (e < 1: infinite there) */
        double e = v->p[0];
        if (e != 1.0)
            ge_pow_n(a, n, e, out);
        for (int i = 0; i < n; i++) {
            double x = fabs(a[i]), r = e == 1.0 ? x : out[i];
            out[i] = a[i] < 0 ? -r : r;
            if (want) {
                double s = e == 1.0 ? 1.0 : x > 0 ? e * r / x : 0.0;
                for (int c = 0; c < nc; c++)
                    g[c][i] = s * ga[c][i];
            }
        }
        return;
    }
    case NG_POWI: {
        int p = (int)v->p[0];
        for (int i = 0; i < n; i++) {
            double x = a[i], r = 1.0, r1 = 1.0; /* x^p, x^(p-1) */
            for (int k = 0; k < p; k++) {
                r1 = r;
                r = k == 0 ? x : r * x;
            }
            out[i] = r;
            if (want) {
                double s = p == 0 ? 0.0 : (double)p * r1;
                for (int c = 0; c < nc; c++)
                    g[c][i] = s * ga[c][i];
            }
        }
        return;
    }
    case NG_SQRT:
        for (int i = 0; i < n; i++) {
            double x = a[i] > 0 ? a[i] : 0.0, r = sqrt(x);
            out[i] = r;
            if (want) {
                double s = r > 0 ? 0.5 / r : 0.0;
                for (int c = 0; c < nc; c++)
                    g[c][i] = s * ga[c][i];
            }
        }
        return;
    case NG_SSQRT:
        for (int i = 0; i < n; i++) {
            double r = sqrt(fabs(a[i]));
            out[i] = a[i] < 0 ? -r : r;
            if (want) {
                double s = r > 0 ? 0.5 / r : 0.0;
                for (int c = 0; c < nc; c++)
                    g[c][i] = s * ga[c][i];
            }
        }
        return;
    case NG_CLAMP: {
        double lo = v->p[0], hi = v->p[1];
        /* in two steps without a branch (max, then min) */
        for (int i = 0; i < n; i++) {
            double x = a[i] < lo ? lo : a[i];
            out[i] = x > hi ? hi : x;
        }
        if (want)
            for (int c = 0; c < nc; c++)
                for (int i = 0; i < n; i++)
                    g[c][i] = a[i] >= lo && a[i] <= hi ? ga[c][i] : 0.0;
        return;
    }
    case NG_SCALE_BIAS: {
        double s = v->p[0], o = v->p[1];
        for (int i = 0; i < n; i++)
            out[i] = a[i] * s + o;
        if (want)
            for (int c = 0; c < nc; c++)
                for (int i = 0; i < n; i++)
                    g[c][i] = ga[c][i] * s;
        return;
    }
    case NG_REMAP: {
        double f0 = v->p[0], t0 = v->p[2], m = v->p[4];
        for (int i = 0; i < n; i++)
            out[i] = (a[i] - f0) * m + t0;
        if (want)
            for (int c = 0; c < nc; c++)
                for (int i = 0; i < n; i++)
                    g[c][i] = ga[c][i] * m;
        return;
    }
    case NG_CURVE: {
        const double *xs = v->tab;
        int np = v->n_tab;
        const double *coef = xs + np + 1;
        for (int i = 0; i < n; i++) {
            double x = a[i], val, s;
            if (x < xs[0]) {
                val = coef[0];
                s = 0.0;
            } else if (x > xs[np - 1]) {
                val = xs[np]; /* the last point's y */
                s = 0.0;
            } else if (x == xs[np - 1]) {
                /* the last point itself: its y, the spline's slope there (t = 1) */
                const double *c = coef + 5 * (np - 2);
                val = xs[np];
                s = (c[1] + (2.0 * c[2] + 3.0 * c[3])) / c[4];
            } else {
                int lo = 0, hi = np - 2; /* largest k with xs[k] <= x */
                if (np <= 12) {
                    for (int k = 1; k <= np - 2; k++) /* a count: no branch to mispredict */
                        lo += xs[k] <= x;
                } else {
                    while (lo < hi) {
                        int mid = (lo + hi + 1) / 2;
                        if (xs[mid] <= x)
                            lo = mid;
                        else
                            hi = mid - 1;
                    }
                }
                const double *c = coef + 5 * lo;
                double t = (x - xs[lo]) / c[4];
                val = c[0] + t * (c[1] + t * (c[2] + t * c[3]));
                s = (c[1] + t * (2.0 * c[2] + 3.0 * c[3] * t)) / c[4];
            }
            out[i] = val;
            if (want)
                for (int c = 0; c < nc; c++)
                    g[c][i] = s * ga[c][i];
        }
        return;
    }
    case NG_TERRACE: {
        const double *xs = v->tab;
        int np = v->n_tab, invert = v->p[0] != 0, smooth = v->p[1] != 0;
        for (int i = 0; i < n; i++) {
            double x = a[i], val, s = 0.0;
            /* idx: how many points are <= x (libnoise's loop) */
            int lo = 0, hi = np;
            if (np <= 12) {
                for (int k = 0; k < np; k++) /* a count: no branch to mispredict */
                    lo += xs[k] <= x;
            } else {
                while (lo < hi) {
                    int mid = (lo + hi) / 2;
                    if (xs[mid] <= x)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
            }
            int i0 = lo - 1 < 0 ? 0 : lo - 1 > np - 1 ? np - 1 : lo - 1;
            int i1 = lo > np - 1 ? np - 1 : lo;
            if (i0 == i1) {
                val = xs[i1];
            } else {
                double v0 = xs[i0], v1 = xs[i1], u = (x - v0) / (v1 - v0);
                if (invert) {
                    u = 1.0 - u;
                    double tmp = v0;
                    v0 = v1;
                    v1 = tmp;
                }
                double w = smooth ? u * u * (3.0 - 2.0 * u) : u * u;
                double dw = smooth ? 6.0 * u * (1.0 - u) : 2.0 * u;
                val = (1.0 - w) * v0 + w * v1;
                s = dw; /* (v1 - v0) dw du / dx, the same either way round */
            }
            out[i] = val;
            if (want)
                for (int c = 0; c < nc; c++)
                    g[c][i] = s * ga[c][i];
        }
        return;
    }
    case NG_BLEND: {
        const double *cc = V_(v->in[2]);
        const double(*gc)[NE_CHUNK] = (const double(*)[NE_CHUNK])G_(v->in[2]);
        for (int i = 0; i < n; i++) {
            double w = (cc[i] + 1.0) * 0.5, d = b[i] - a[i];
            out[i] = a[i] + d * w;
            if (want)
                for (int c = 0; c < nc; c++)
                    g[c][i] = ga[c][i] + (gb[c][i] - ga[c][i]) * w + d * (0.5 * gc[c][i]);
        }
        return;
    }
    case NG_SELECT: {
        /* libnoise's Select: b where lower <= c <= upper, else a; with a
         * falloff, LinearInterp(a, b, s) over (lower - falloff, lower +
         * falloff) and LinearInterp(b, a, s) over (upper - falloff, upper +
         * falloff), s = SCurve3 of the position in the band */
        const double *cc = V_(v->in[2]);
        const double(*gc)[NE_CHUNK] = (const double(*)[NE_CHUNK])G_(v->in[2]);
        double lower = v->p[0], upper = v->p[1], fo = v->p[2];
        for (int i = 0; i < n; i++) {
            double x = cc[i];
            int band = 0, pick_b = 0; /* band: 1 lower edge, 2 upper edge */
            double e0 = 0, e1 = 1;
            if (fo > 0) {
                if (x < lower - fo) {
                    pick_b = 0;
                } else if (x < lower + fo) {
                    band = 1;
                    e0 = lower - fo;
                    e1 = lower + fo;
                } else if (x < upper - fo) {
                    pick_b = 1;
                } else if (x < upper + fo) {
                    band = 2;
                    e0 = upper - fo;
                    e1 = upper + fo;
                } else {
                    pick_b = 0;
                }
            } else {
                pick_b = !(x < lower || x > upper);
            }
            if (!band) {
                out[i] = pick_b ? b[i] : a[i];
                if (want)
                    for (int c = 0; c < nc; c++)
                        g[c][i] = pick_b ? gb[c][i] : ga[c][i];
                continue;
            }
            const double *p0 = band == 1 ? a : b, *p1 = band == 1 ? b : a;
            const double(*g0)[NE_CHUNK] = band == 1 ? ga : gb;
            const double(*g1)[NE_CHUNK] = band == 1 ? gb : ga;
            double w = e1 - e0, u = (x - e0) / w, s3 = u * u * (3.0 - 2.0 * u);
            out[i] = (1.0 - s3) * p0[i] + s3 * p1[i];
            if (want) {
                double ds = 6.0 * u * (1.0 - u) / w, d = p1[i] - p0[i];
                for (int c = 0; c < nc; c++)
                    g[c][i] = (1.0 - s3) * g0[c][i] + s3 * g1[c][i] + d * (ds * gc[c][i]);
            }
        }
        return;
    }
    case NG_DOMAIN_SCALE: {
        double s = v->p[0];
        memcpy(out, a, (size_t)n * sizeof(double));
        if (want)
            for (int c = 0; c < nc; c++)
                for (int i = 0; i < n; i++)
                    g[c][i] = s * ga[c][i];
        return;
    }
    case NG_DOMAIN_ROTATE: {
        /* p' = R p: grad = R^T g' */
        double co = v->p[0], si = v->p[1];
        memcpy(out, a, (size_t)n * sizeof(double));
        if (want) {
            for (int i = 0; i < n; i++) {
                double gx = ga[0][i], gy = ga[1][i];
                g[0][i] = co * gx + si * gy;
                g[1][i] = co * gy - si * gx;
            }
            if (nc == 3)
                memcpy(g[2], ga[2], (size_t)n * sizeof(double));
        }
        return;
    }
    case NG_WARP: {
        /* p' = p + amp (wx, wy): grad = J^T g', J = I + amp [dwx; dwy] */
        double am = v->p[0];
        memcpy(out, a, (size_t)n * sizeof(double));
        if (want) {
            const double(*gx)[NE_CHUNK] = gb;
            const double(*gy)[NE_CHUNK] = (const double(*)[NE_CHUNK])G_(v->in[2]);
            for (int i = 0; i < n; i++) {
                double d0x = ga[0][i], d0y = ga[1][i];
                g[0][i] = d0x * (1.0 + am * gx[0][i]) + d0y * (am * gy[0][i]);
                g[1][i] = d0x * (am * gx[1][i]) + d0y * (1.0 + am * gy[1][i]);
                if (nc == 3)
                    g[2][i] = d0x * (am * gx[2][i]) + d0y * (am * gy[2][i]) + ga[2][i];
            }
        }
        return;
    }
    case NG_FRACTAL: {
        int type = (int)f->vals[vi].p[0], no = v->n_tab;
        const double *amp = v->tab, *af = v->tab + no, *ls = v->tab + 2 * no;
        double sum = v->p[5], strength = v->p[4];
        double w[NE_CHUNK];
        double(*wg)[NE_CHUNK] = NULL;
        double wgbuf[3][NE_CHUNK];
        for (int i = 0; i < n; i++)
            out[i] = 0.0;
        if (want)
            ge_zero_grad(S, g, n);
        if (type == NG_FRACTAL_RIDGED) {
            for (int i = 0; i < n; i++)
                w[i] = 1.0;
            if (want) {
                wg = wgbuf;
                ge_zero_grad(S, wg, n);
            }
        }
        for (int k = 0; k < no; k++) {
            const double *nv = V_(v->in[k]);
            const double(*ng)[NE_CHUNK] = (const double(*)[NE_CHUNK])G_(v->in[k]);
            double A = amp[k], AF = af[k], L = ls[k];
            switch (type) {
            case NG_FRACTAL_FBM:
                for (int i = 0; i < n; i++)
                    out[i] += A * nv[i];
                if (want)
                    for (int c = 0; c < nc; c++)
                        for (int i = 0; i < n; i++)
                            g[c][i] += AF * ng[c][i];
                break;
            case NG_FRACTAL_TURBULENCE:
                for (int i = 0; i < n; i++) {
                    double s = nv[i] < 0 ? -1.0 : 1.0;
                    out[i] += A * (s * nv[i]);
                    if (want) {
                        double sf = s * AF;
                        for (int c = 0; c < nc; c++)
                            g[c][i] += sf * ng[c][i];
                    }
                }
                break;
            case NG_FRACTAL_RIDGED:
                /* as the kinds (noise_eval.c): signal = (1 - |n|)^2 w,
                 * w = clamp(2 signal, 0, 1) for the next octave */
                for (int i = 0; i < n; i++) {
                    double s = nv[i] < 0 ? -1.0 : 1.0;
                    double r = 1.0 - s * nv[i];
                    double wi = w[i];
                    double sig = r * r * wi;
                    double w2 = sig * 2.0;
                    out[i] += A * sig;
                    if (want) {
                        double kk = -2.0 * r * s * wi * L;
                        for (int c = 0; c < nc; c++) {
                            double dsig = kk * ng[c][i] + (r * r) * wg[c][i];
                            g[c][i] += A * dsig;
                            wg[c][i] = w2 < 1.0 ? 2.0 * dsig : 0.0;
                        }
                    }
                    w[i] = w2 < 1.0 ? w2 : 1.0;
                }
                break;
            default: /* pingpong: pp((n + 1) strength) */
                for (int i = 0; i < n; i++) {
                    double sl, p = ge_pp((nv[i] + 1.0) * strength, &sl);
                    out[i] += A * p;
                    if (want) {
                        double kf = sl * strength * AF;
                        for (int c = 0; c < nc; c++)
                            g[c][i] += kf * ng[c][i];
                    }
                }
                break;
            }
        }
        if (type == NG_FRACTAL_FBM) {
            for (int i = 0; i < n; i++)
                out[i] = out[i] / sum;
            if (want)
                for (int c = 0; c < nc; c++)
                    for (int i = 0; i < n; i++)
                        g[c][i] = g[c][i] / sum;
        } else {
            for (int i = 0; i < n; i++)
                out[i] = 2.0 * out[i] / sum - 1.0;
            if (want)
                for (int c = 0; c < nc; c++)
                    for (int i = 0; i < n; i++)
                        g[c][i] = 2.0 * g[c][i] / sum;
        }
        return;
    }
    case NG_SEED_OFFSET:
    case NG_DOMAIN_OFFSET:
    case NG_OP_COUNT:
        break; /* never instructions (prepare passes them through) */
    }
}

/* Runs the program over n samples whose coordinates are in slot 0's
 * context (filled by the caller, with S->meta[0]). first: the first chunk
 * of a call (constants are filled then). */
static void ge_run(ge_state *S, int n, int first)
{
    const noise_graph_field *f = S->f;
    for (int i = 1; i < f->n_vals; i++) {
        const ge_val *v = &f->vals[i];
        if (v->pinned && !first)
            continue;
        if (v->op > GE_COORDS)
            ge_context_run(S, v, i, n);
        else if (v->pinned)
            ge_value_run(S, i, NE_CHUNK);
        else
            ge_value_run(S, i, n);
    }
}

static int ge_state_init(ge_state *S, const noise_graph_field *f, int d3, int want)
{
    S->f = f;
    S->d3 = d3;
    S->nc = d3 ? 3 : 2;
    S->want = want;
    S->slots = malloc((size_t)f->n_slots * sizeof *S->slots);
    S->meta = malloc((size_t)f->n_vals * sizeof *S->meta);
    if (!S->slots || !S->meta) {
        free(S->slots);
        free(S->meta);
        return NOISE_GRAPH_ENOMEM;
    }
    return 0;
}

static void ge_state_free(ge_state *S)
{
    free(S->slots);
    free(S->meta);
}

int noise_graph_field_points(const noise_graph_field *f, size_t n_points, const double *points, int dims,
                             double *out_values, double *out_grads)
{
    if (f->single) {
        noise_field_points(f->single, n_points, points, dims, out_values, out_grads);
        return 0;
    }
    ge_state S;
    int d3 = dims == 3;
    if (ge_state_init(&S, f, d3, out_grads != NULL) != 0)
        return NOISE_GRAPH_ENOMEM;
    double(*c)[NE_CHUNK] = S.slots[f->vals[0].slot].a;
    int stride = d3 ? 3 : 2, gn = d3 ? 3 : 2;
    const double *rv = S.slots[f->vals[f->root].slot].a[0];
    const double(*rg)[NE_CHUNK] = (const double(*)[NE_CHUNK])S.slots[f->vals[f->root].slot].vg.g;
    for (size_t i0 = 0; i0 < n_points; i0 += NE_CHUNK) {
        int m = n_points - i0 < NE_CHUNK ? (int)(n_points - i0) : NE_CHUNK;
        const double *p = points + (size_t)stride * i0;
        for (int i = 0; i < m; i++) {
            c[0][i] = p[stride * i];
            c[1][i] = p[stride * i + 1];
            if (d3)
                c[2][i] = p[stride * i + 2];
        }
        S.meta[0].yrow = 0;
        S.meta[0].tarr = d3;
        S.meta[0].y = 0.0;
        S.meta[0].t = 0.0;
        ge_run(&S, m, i0 == 0);
        memcpy(out_values + i0, rv, (size_t)m * sizeof(double));
        if (out_grads)
            for (int i = 0; i < m; i++)
                for (int k = 0; k < gn; k++)
                    out_grads[(i0 + (size_t)i) * (size_t)gn + (size_t)k] = rg[k][i];
    }
    ge_state_free(&S);
    return 0;
}

int noise_graph_field_point(const noise_graph_field *f, const double *p, int dims, double *value, double *grad,
                            int *n_grad)
{
    if (f->single) {
        double v = noise_field_point(f->single, p, dims, grad, n_grad);
        if (value)
            *value = v;
        return 0;
    }
    double v, g[3];
    int rc = noise_graph_field_points(f, 1, p, dims == 3 ? 3 : 2, &v, grad ? g : NULL);
    if (rc != 0)
        return rc;
    if (value)
        *value = v;
    if (grad)
        memcpy(grad, g, (dims == 3 ? 3 : 2) * sizeof(double));
    if (n_grad)
        *n_grad = dims == 3 ? 3 : 2;
    return 0;
}

int noise_graph_field_grid_rows(const noise_graph_field *f, double x0, double y0, double step, int width,
                                int row0, int rows, float *out_values, float *out_grads)
{
    if (f->single) {
        noise_field_grid_rows(f->single, x0, y0, step, width, row0, rows, out_values, out_grads);
        return 0;
    }
    if (width <= 0 || rows <= 0 || row0 < 0 || row0 > INT_MAX - rows)
        return 0;
    ge_state S;
    if (ge_state_init(&S, f, 0, out_grads != NULL) != 0)
        return NOISE_GRAPH_ENOMEM;
    double *cx = S.slots[f->vals[0].slot].a[0];
    const double *rv = S.slots[f->vals[f->root].slot].a[0];
    const double(*rg)[NE_CHUNK] = (const double(*)[NE_CHUNK])S.slots[f->vals[f->root].slot].vg.g;
    int first = 1;
    for (int j = 0; j < rows; j++) {
        double y = y0 + (double)(row0 + j) * step;
        for (int i0 = 0; i0 < width; i0 += NE_CHUNK) {
            int m = width - i0 < NE_CHUNK ? width - i0 : NE_CHUNK;
            for (int i = 0; i < m; i++)
                cx[i] = x0 + (double)(i0 + i) * step;
            S.meta[0].yrow = 1;
            S.meta[0].tarr = 0;
            S.meta[0].y = y;
            S.meta[0].t = 0.0;
            ge_run(&S, m, first);
            first = 0;
            size_t base = (size_t)j * (size_t)width + (size_t)i0;
            for (int i = 0; i < m; i++)
                out_values[base + i] = (float)rv[i];
            if (out_grads)
                for (int i = 0; i < m; i++) {
                    out_grads[2 * (base + (size_t)i)] = (float)rg[0][i];
                    out_grads[2 * (base + (size_t)i) + 1] = (float)rg[1][i];
                }
        }
    }
    ge_state_free(&S);
    return 0;
}

/* ---- cost ---- */

double noise_graph_field_cost(const noise_graph_field *f, int gradients, int dims,
                              double (*source_cost)(const noise_spec *spec, int gradients, void *ctx),
                              void *ctx, double node_cost, char *dominant, size_t dominant_size)
{
    double total = 0.0;
    double *per = calloc((size_t)(f->n_nodes > 0 ? f->n_nodes : 1), sizeof *per);
    for (int i = 1; i < f->n_vals; i++) {
        const ge_val *v = &f->vals[i];
        double c;
        if (v->op == NG_SOURCE) {
            noise_spec spec = *noise_field_spec(v->field);
            if (dims == 3 && !spec.has_t) {
                spec.has_t = 1;
                spec.t = 0.0;
            }
            c = source_cost ? source_cost(&spec, gradients, ctx) : 0.0;
        } else {
            c = node_cost;
        }
        total += c;
        if (per && v->node >= 0 && v->node < f->n_nodes)
            per[v->node] += c;
    }
    if (dominant && dominant_size > 0) {
        dominant[0] = 0;
        int best = -1;
        for (int i = 0; per && i < f->n_nodes; i++)
            if (best < 0 || per[i] > per[best])
                best = i;
        if (best >= 0 && f->ptr_buf)
            snprintf(dominant, dominant_size, "%s", f->ptr_buf + f->ptr_at[best]);
    }
    free(per);
    return total;
}
