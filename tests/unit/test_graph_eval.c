/* test_graph_eval.c: prepared field graphs (noise_graph.h, graph_eval.c):
 * a one-source graph is its kind bit for bit; every node's gradient is the
 * derivative of its value (central differences at 10,000 random points, 2D
 * and 3D, through fractals, warps, rotations and scales); grid rows are the
 * points at the same coordinates; a shared sub-graph is evaluated once;
 * every instruction-set path gives the same bits; unrolling beyond the
 * limit is refused naming the node.
 *
 * Graphs are built here as node arrays (graph_ir.h), so these tests do not
 * depend on the parser.
 */
#include "graph_ir.h"
#include "noise.h"
#include "noise_graph.h"
#include "test.h"
#include "test_noise_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building graphs ---- */

#define TG_MAX 64
typedef struct {
    ng_node nodes[TG_MAX];
    int n;
    noise_graph g;
} tg;

static int tg_node(tg *G, ng_op op, int n_in, const int *in)
{
    ng_node *nd = &G->nodes[G->n];
    memset(nd, 0, sizeof *nd);
    nd->op = op;
    nd->n_in = n_in;
    for (int i = 0; i < n_in; i++)
        nd->in[i] = in[i];
    return G->n++;
}

/* defaults of the node table for the ops whose parameters matter */
static int tg_op(tg *G, ng_op op, int a, int b, int c)
{
    int in[3] = { a, b, c }, n = c >= 0 ? 3 : b >= 0 ? 2 : a >= 0 ? 1 : 0;
    int i = tg_node(G, op, n, in);
    ng_node *nd = &G->nodes[i];
    switch (op) {
    case NG_SMIN:
    case NG_SMAX:
        nd->p[0] = 0.1;
        break;
    case NG_POW:
    case NG_POWI:
        nd->p[0] = 2;
        break;
    case NG_CLAMP:
        nd->p[0] = -1;
        nd->p[1] = 1;
        break;
    case NG_SCALE_BIAS:
        nd->p[0] = 1;
        break;
    case NG_REMAP:
        nd->p[0] = -1;
        nd->p[1] = 1;
        nd->p[2] = 0;
        nd->p[3] = 1;
        break;
    case NG_SELECT:
        nd->p[0] = -1;
        nd->p[1] = 1;
        break;
    case NG_DOMAIN_SCALE:
        nd->p[0] = 1;
        break;
    case NG_WARP:
        nd->p[0] = 1;
        break;
    case NG_FRACTAL:
        nd->p[0] = NG_FRACTAL_FBM;
        nd->p[1] = 3;
        nd->p[2] = 2;
        nd->p[3] = 0.5;
        nd->p[4] = 2;
        break;
    default:
        break;
    }
    return i;
}

static int tg_nary(tg *G, ng_op op, int n, const int *in) { return tg_node(G, op, n, in); }

static int tg_src(tg *G, const noise_spec *s, uint32_t seed_offset)
{
    int i = tg_node(G, NG_SOURCE, 0, NULL);
    G->nodes[i].spec = *s;
    G->nodes[i].spec.seed = 0;
    G->nodes[i].seed = seed_offset;
    return i;
}

static int tg_kind(tg *G, noise_kind k, double freq)
{
    noise_spec s;
    noise_spec_default(&s, k, 0);
    s.frequency = freq;
    return tg_src(G, &s, 0);
}

static int tg_const(tg *G, double v)
{
    int i = tg_node(G, NG_CONSTANT, 0, NULL);
    G->nodes[i].p[0] = v;
    return i;
}

static int tg_fractal(tg *G, int a, int type, int octaves, double lac, double gain)
{
    int i = tg_op(G, NG_FRACTAL, a, -1, -1);
    G->nodes[i].p[0] = type;
    G->nodes[i].p[1] = octaves;
    G->nodes[i].p[2] = lac;
    G->nodes[i].p[3] = gain;
    return i;
}

/* the graph whose root is the last node */
static const noise_graph *tg_graph(tg *G)
{
    G->g.n = G->n;
    G->g.nodes = G->nodes;
    G->g.depth = 1;
    return &G->g;
}

/* ---- one source is the kind ---- */

static int same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

#define GW 70 /* not a multiple of anything: a partial chunk per row */
#define GR 5
#define NP 300

/* spec s as a one-node graph prepared for seed: grids, points (2D and 3D)
 * and single points against noise_field_* on s at that seed */
static int one_source_agrees(const noise_spec *s, uint32_t seed, uint32_t seed_offset, int wrap_offset)
{
    tg G = { .n = 0 };
    int src = tg_src(&G, s, 0);
    if (seed_offset) {
        int so = tg_op(&G, NG_SEED_OFFSET, src, -1, -1);
        G.nodes[so].seed = seed_offset;
    }
    if (wrap_offset) /* a domain_offset of 0: the identity */
        tg_op(&G, NG_DOMAIN_OFFSET, G.n - 1, -1, -1);
    noise_graph_error err;
    noise_graph_field *gf = noise_graph_prepare(tg_graph(&G), seed, &err);
    noise_spec k = *s;
    k.seed = seed + seed_offset;
    noise_field *kf = noise_field_create(&k);
    int ok = gf && kf;
    if (!ok) {
        noise_graph_field_destroy(gf);
        noise_field_destroy(kf);
        return 0;
    }
    static float v1[GW * GR], g1[2 * GW * GR], v2[GW * GR], g2[2 * GW * GR];
    noise_field_grid_rows(kf, -13.1, 7.7, 0.37, GW, 3, GR, v1, g1);
    ok &= noise_graph_field_grid_rows(gf, -13.1, 7.7, 0.37, GW, 3, GR, v2, g2) == 0;
    ok &= same_bits(v1, v2, sizeof v1) && same_bits(g1, g2, sizeof g1);
    noise_field_grid_rows(kf, -13.1, 7.7, 0.37, GW, 3, GR, v1, NULL);
    ok &= noise_graph_field_grid_rows(gf, -13.1, 7.7, 0.37, GW, 3, GR, v2, NULL) == 0;
    ok &= same_bits(v1, v2, sizeof v1);
    static double p2[2 * NP], p3[3 * NP], pv1[NP], pv2[NP], pg1[3 * NP], pg2[3 * NP];
    tn_scatter(-3.3, 2.9, 0.61, NP, p2, p3);
    int dims_list[2] = { 2, 3 };
    for (int d = 0; d < 2; d++) {
        int dims = dims_list[d];
        const double *p = dims == 2 ? p2 : p3;
        memset(pg1, 0, sizeof pg1);
        memset(pg2, 0, sizeof pg2);
        noise_field_points(kf, NP, p, dims, pv1, pg1);
        ok &= noise_graph_field_points(gf, NP, p, dims, pv2, pg2) == 0;
        ok &= same_bits(pv1, pv2, sizeof pv1) && same_bits(pg1, pg2, sizeof pg1);
        double v, g[3] = { 0, 0, 0 }, gg[3] = { 0, 0, 0 }, vv = 0;
        int ng = 0, ng2 = 0;
        v = noise_field_point(kf, p + dims * 7, dims, g, &ng);
        ok &= noise_graph_field_point(gf, p + dims * 7, dims, &vv, gg, &ng2) == 0;
        ok &= same_bits(&v, &vv, sizeof v) && same_bits(g, gg, sizeof g) && ng == ng2;
    }
    noise_graph_field_destroy(gf);
    noise_field_destroy(kf);
    return ok;
}

/* the golden modes (test_noise_golden.c) and a few more parameter sets */
static void set_mode(noise_spec *s, int m)
{
    switch (m) {
    case 0: tn_golden_spec(s, NOISE_FBM, 1, 0, 0); break;
    case 1: tn_golden_spec(s, NOISE_FBM, 5, 0, 0); break;
    case 2: tn_golden_spec(s, NOISE_TURBULENCE, 4, 0, 0); break;
    case 3: tn_golden_spec(s, NOISE_RIDGED, 4, 0, 0); break;
    case 4: tn_golden_spec(s, NOISE_FBM, 3, 1.5, 0); break;
    case 5: tn_golden_spec(s, NOISE_FBM, 2, 0, 1); break;
    case 6: /* other lacunarity, gain, frequency */
        s->octaves = 3;
        s->lacunarity = 2.7;
        s->gain = 0.35;
        s->frequency = 0.031;
        break;
    default: break;
    }
}
#define N_MODES 7

static void test_one_source_is_the_kind(void)
{
    int checked = 0;
    for (int b = 0; b < TN_N_BASES; b++)
        for (int m = 0; m < N_MODES; m++) {
            noise_spec s;
            noise_spec_default(&s, tn_bases[b].kind, 0);
            tn_apply(&s, b);
            set_mode(&s, m);
            if (s.has_t && noise_spec_planar(&s))
                continue; /* 2D functions take no t */
            uint32_t seeds[2] = { 0, 1234567 };
            for (int k = 0; k < 2; k++) {
                CHECKF(one_source_agrees(&s, seeds[k], 0, 0), "%s mode %d seed %u", tn_bases[b].name, m,
                       (unsigned)seeds[k]);
                checked++;
            }
            /* a seed_offset around it, or a domain_offset of 0: still the kind */
            CHECKF(one_source_agrees(&s, 77, 1000, 0), "%s mode %d seed_offset", tn_bases[b].name, m);
            CHECKF(one_source_agrees(&s, 77, 0, 1), "%s mode %d offset 0", tn_bases[b].name, m);
        }
    /* periodic and cellular variants */
    noise_spec s;
    noise_spec_default(&s, NOISE_PERLIN, 0);
    s.period = 16;
    s.octaves = 3;
    CHECK(one_source_agrees(&s, 5, 0, 0));
    noise_spec_default(&s, NOISE_CELLULAR, 0);
    s.distance = NOISE_MANHATTAN;
    s.cell_return = NOISE_F2_F1;
    s.jitter = 0.6;
    CHECK(one_source_agrees(&s, 5, 0, 0));
    printf("# %d kind/mode/seed combinations checked\n", checked);
}

/* ---- gradients against central differences ---- */

/* A test graph: its name, and its evaluation. */
typedef struct {
    const char *name;
    tg G;
    int creased; /* kinks inside (abs, min, clamp, ridged...): points near one are skipped */
} case_graph;

static double eval_at(const noise_graph_field *f, const double *p, int dims, double *g)
{
    double v = 0;
    noise_graph_field_point(f, p, dims, &v, g, NULL);
    return v;
}

/* max over the points of |analytic - central| / (1 + |analytic|) per
 * component; points whose forward and backward differences disagree (a
 * kink within h), or whose central difference has not converged (it
 * differs from the one at 2h by half the tolerance: a singular slope
 * within a few h), are skipped and counted. */
static int grad_check(const char *name, const noise_graph_field *f, int dims, int n, double h, double tol,
                      int *skipped, double *worst)
{
    uint64_t st = 0x1234567ull ^ (uint64_t)dims;
    int bad = 0;
    *skipped = 0;
    *worst = 0;
    for (int i = 0; i < n; i++) {
        double p[3] = { tn_uniform(&st, -40, 40), tn_uniform(&st, -40, 40), tn_uniform(&st, -5, 5) };
        double g[3] = { 0, 0, 0 }, v = eval_at(f, p, dims, g);
        double v0 = v;
        int skip = 0;
        double err[3] = { 0, 0, 0 };
        for (int c = 0; c < dims; c++) {
            double q[3] = { p[0], p[1], p[2] };
            q[c] = p[c] + h;
            double vp = eval_at(f, q, dims, NULL);
            q[c] = p[c] - h;
            double vm = eval_at(f, q, dims, NULL);
            double fwd = (vp - v0) / h, bwd = (v0 - vm) / h, cen = (vp - vm) / (2 * h);
            if (fabs(fwd - bwd) > 1e-3 * (1 + fabs(g[c])) + 1e-3 * fabs(cen)) {
                skip = 1;
                break;
            }
            err[c] = fabs(g[c] - cen) / (1 + fabs(g[c]));
            if (err[c] > tol) {
                /* is the difference quotient itself converged? Near a
                 * singular slope (pow with e < 1, sqrt at 0) its truncation
                 * error is large: the quotient at 2h then differs as much */
                q[c] = p[c] + 2 * h;
                double vp2 = eval_at(f, q, dims, NULL);
                q[c] = p[c] - 2 * h;
                double vm2 = eval_at(f, q, dims, NULL);
                double cen2 = (vp2 - vm2) / (4 * h);
                if (fabs(cen2 - cen) > 0.5 * tol * (1 + fabs(g[c]))) {
                    skip = 1;
                    break;
                }
            }
        }
        if (skip) {
            (*skipped)++;
            continue;
        }
        for (int c = 0; c < dims; c++) {
            if (err[c] > *worst)
                *worst = err[c];
            if (err[c] > tol && bad < 3) {
                fprintf(stderr, "  %s %dD at (%.17g, %.17g, %.17g): d%d analytic %.12g\n", name, dims, p[0], p[1],
                        p[2], c, g[c]);
                bad++;
            }
        }
    }
    return bad == 0;
}

#define N_CASES 48
static case_graph cases[N_CASES];
static int n_cases;

static tg *new_case(const char *name, int creased)
{
    case_graph *c = &cases[n_cases++];
    c->name = name;
    c->creased = creased;
    c->G.n = 0;
    return &c->G;
}

/* three smooth sources at low frequency */
static void three(tg *G, int *a, int *b, int *c)
{
    *a = tg_kind(G, NOISE_PERLIN, 0.21);
    *b = tg_kind(G, NOISE_SIMPLEX, 0.13);
    *c = tg_kind(G, NOISE_VALUE, 0.17);
}

static void build_cases(void)
{
    if (n_cases)
        return;
    tg *G;
    int a, b, c, in[4];
    G = new_case("add", 0);
    three(G, &a, &b, &c);
    in[0] = a, in[1] = b, in[2] = c;
    tg_nary(G, NG_ADD, 3, in);
    G = new_case("subtract", 0);
    three(G, &a, &b, &c);
    tg_op(G, NG_SUBTRACT, a, b, -1);
    G = new_case("multiply", 0);
    three(G, &a, &b, &c);
    in[0] = a, in[1] = b, in[2] = c, in[3] = tg_node(G, NG_X, 0, NULL);
    tg_nary(G, NG_MULTIPLY, 4, in);
    G = new_case("divide", 0);
    three(G, &a, &b, &c);
    {
        int d = tg_op(G, NG_SCALE_BIAS, b, -1, -1);
        G->nodes[d].p[0] = 0.5;
        G->nodes[d].p[1] = 1.6;
        tg_op(G, NG_DIVIDE, a, d, -1);
    }
    G = new_case("min", 1);
    three(G, &a, &b, &c);
    in[0] = a, in[1] = b, in[2] = c;
    tg_nary(G, NG_MIN, 3, in);
    G = new_case("max", 1);
    three(G, &a, &b, &c);
    in[0] = a, in[1] = b, in[2] = c;
    tg_nary(G, NG_MAX, 3, in);
    G = new_case("smin", 0);
    three(G, &a, &b, &c);
    G->nodes[tg_op(G, NG_SMIN, a, b, -1)].p[0] = 0.4;
    G = new_case("smax", 0);
    three(G, &a, &b, &c);
    G->nodes[tg_op(G, NG_SMAX, a, b, -1)].p[0] = 0.25;
    G = new_case("negate", 0);
    three(G, &a, &b, &c);
    tg_op(G, NG_NEGATE, a, -1, -1);
    G = new_case("abs", 1);
    three(G, &a, &b, &c);
    tg_op(G, NG_ABS, a, -1, -1);
    G = new_case("pow 2.5", 0);
    three(G, &a, &b, &c);
    G->nodes[tg_op(G, NG_POW, a, -1, -1)].p[0] = 2.5;
    G = new_case("pow 0.7", 1); /* infinite slope at 0 */
    three(G, &a, &b, &c);
    G->nodes[tg_op(G, NG_POW, a, -1, -1)].p[0] = 0.7;
    G = new_case("powi 3", 0);
    three(G, &a, &b, &c);
    G->nodes[tg_op(G, NG_POWI, a, -1, -1)].p[0] = 3;
    G = new_case("powi 0", 0);
    three(G, &a, &b, &c);
    G->nodes[tg_op(G, NG_POWI, a, -1, -1)].p[0] = 0;
    G = new_case("sqrt", 1);
    three(G, &a, &b, &c);
    tg_op(G, NG_SQRT, a, -1, -1);
    G = new_case("ssqrt", 1);
    three(G, &a, &b, &c);
    tg_op(G, NG_SSQRT, a, -1, -1);
    G = new_case("clamp", 1);
    three(G, &a, &b, &c);
    {
        int k = tg_op(G, NG_CLAMP, a, -1, -1);
        G->nodes[k].p[0] = -0.3;
        G->nodes[k].p[1] = 0.4;
    }
    G = new_case("scale_bias", 0);
    three(G, &a, &b, &c);
    {
        int k = tg_op(G, NG_SCALE_BIAS, a, -1, -1);
        G->nodes[k].p[0] = -3.5;
        G->nodes[k].p[1] = 0.25;
    }
    G = new_case("remap", 0);
    three(G, &a, &b, &c);
    {
        int k = tg_op(G, NG_REMAP, a, -1, -1);
        G->nodes[k].p[0] = -0.5;
        G->nodes[k].p[1] = 0.75;
        G->nodes[k].p[2] = 10;
        G->nodes[k].p[3] = -2;
    }
    G = new_case("curve", 1);
    three(G, &a, &b, &c);
    {
        int k = tg_op(G, NG_CURVE, a, -1, -1);
        static const double pts[] = { -0.8, -1, -0.3, -0.2, 0, 0, 0.2, 0.6, 0.5, 0.65, 0.9, 1 };
        G->nodes[k].n_pts = 6;
        memcpy(G->nodes[k].pts, pts, sizeof pts);
    }
    G = new_case("terrace", 1);
    three(G, &a, &b, &c);
    {
        int k = tg_op(G, NG_TERRACE, a, -1, -1);
        static const double pts[] = { -0.7, -0.2, 0.1, 0.5, 0.8 };
        G->nodes[k].n_pts = 5;
        memcpy(G->nodes[k].pts, pts, sizeof pts);
    }
    G = new_case("terrace invert smooth", 1);
    three(G, &a, &b, &c);
    {
        int k = tg_op(G, NG_TERRACE, a, -1, -1);
        static const double pts[] = { -0.5, 0, 0.5 };
        G->nodes[k].n_pts = 3;
        memcpy(G->nodes[k].pts, pts, sizeof pts);
        G->nodes[k].p[0] = 1;
        G->nodes[k].p[1] = 1;
    }
    G = new_case("blend", 0);
    three(G, &a, &b, &c);
    tg_op(G, NG_BLEND, a, b, c);
    G = new_case("select falloff", 0);
    three(G, &a, &b, &c);
    {
        int k = tg_op(G, NG_SELECT, a, b, c);
        G->nodes[k].p[0] = -0.2;
        G->nodes[k].p[1] = 0.3;
        G->nodes[k].p[2] = 0.1;
    }
    G = new_case("select hard", 1);
    three(G, &a, &b, &c);
    {
        int k = tg_op(G, NG_SELECT, a, b, c);
        G->nodes[k].p[0] = -0.2;
        G->nodes[k].p[1] = 0.3;
    }
    G = new_case("domain_scale", 0);
    three(G, &a, &b, &c);
    G->nodes[tg_op(G, NG_DOMAIN_SCALE, a, -1, -1)].p[0] = -2.5;
    G = new_case("domain_offset", 0);
    three(G, &a, &b, &c);
    {
        int k = tg_op(G, NG_DOMAIN_OFFSET, a, -1, -1);
        G->nodes[k].p[0] = 3.25;
        G->nodes[k].p[1] = -1.5;
        G->nodes[k].p[2] = 0.75;
    }
    G = new_case("domain_rotate 30", 0);
    three(G, &a, &b, &c);
    G->nodes[tg_op(G, NG_DOMAIN_ROTATE, a, -1, -1)].p[0] = 30;
    G = new_case("domain_rotate -270", 0);
    three(G, &a, &b, &c);
    G->nodes[tg_op(G, NG_DOMAIN_ROTATE, a, -1, -1)].p[0] = -270;
    G = new_case("warp", 0);
    three(G, &a, &b, &c);
    G->nodes[tg_op(G, NG_WARP, a, b, c)].p[0] = 2.5;
    G = new_case("coordinates and constant", 0);
    {
        int x = tg_node(G, NG_X, 0, NULL), y = tg_node(G, NG_Y, 0, NULL), t = tg_node(G, NG_T, 0, NULL);
        int k = tg_const(G, 0.01);
        in[0] = x, in[1] = y, in[2] = t, in[3] = k;
        tg_nary(G, NG_MULTIPLY, 4, in);
    }
    G = new_case("distance", 0);
    {
        int d = tg_node(G, NG_DISTANCE, 0, NULL);
        G->nodes[d].p[0] = 3;
        G->nodes[d].p[1] = -100;
        int k = tg_const(G, 0.1);
        tg_op(G, NG_MULTIPLY, d, k, -1);
    }
    G = new_case("seed_offset", 0);
    three(G, &a, &b, &c);
    {
        int s = tg_op(G, NG_SEED_OFFSET, a, -1, -1);
        G->nodes[s].seed = 99;
        tg_op(G, NG_SUBTRACT, s, a, -1);
    }
    G = new_case("source with t", 0);
    {
        noise_spec s;
        noise_spec_default(&s, NOISE_PERLIN, 0);
        s.frequency = 0.3;
        s.has_t = 1;
        s.t = 1.25;
        a = tg_src(G, &s, 0);
        b = tg_kind(G, NOISE_SIMPLEX, 0.2);
        tg_op(G, NG_MULTIPLY, a, b, -1);
    }
    G = new_case("kind with octaves and warp", 0);
    {
        noise_spec s;
        noise_spec_default(&s, NOISE_SIMPLEX, 0);
        s.frequency = 0.2;
        s.octaves = 3;
        s.warp = 0.7;
        a = tg_src(G, &s, 0);
        tg_op(G, NG_NEGATE, a, -1, -1);
    }
    static const char *fr_names[4] = { "fractal fbm", "fractal ridged", "fractal turbulence", "fractal pingpong" };
    for (int ty = 0; ty < 4; ty++) {
        G = new_case(fr_names[ty], ty != 0);
        three(G, &a, &b, &c);
        in[0] = a, in[1] = tg_op(G, NG_MULTIPLY, b, c, -1);
        int s = tg_nary(G, NG_ADD, 2, in);
        tg_fractal(G, s, ty, 4, 1.9, 0.6);
    }
    G = new_case("fractal over warp of rotate", 1);
    three(G, &a, &b, &c);
    {
        int r = tg_op(G, NG_DOMAIN_ROTATE, a, -1, -1);
        G->nodes[r].p[0] = 47;
        int w = tg_op(G, NG_WARP, r, b, c);
        G->nodes[w].p[0] = 1.3;
        int s = tg_op(G, NG_DOMAIN_SCALE, w, -1, -1);
        G->nodes[s].p[0] = 0.7;
        tg_fractal(G, s, NG_FRACTAL_RIDGED, 3, 2.2, 0.5);
    }
    G = new_case("warp by fractals, remapped", 1);
    three(G, &a, &b, &c);
    {
        int fb = tg_fractal(G, b, NG_FRACTAL_FBM, 3, 2, 0.5);
        int fc = tg_fractal(G, c, NG_FRACTAL_TURBULENCE, 2, 2, 0.5);
        int w = tg_op(G, NG_WARP, a, fb, fc);
        G->nodes[w].p[0] = 4;
        int k = tg_op(G, NG_CURVE, w, -1, -1);
        static const double pts[] = { -1, -1, 0, -0.5, 0.3, 0.4, 1, 1 };
        G->nodes[k].n_pts = 4;
        memcpy(G->nodes[k].pts, pts, sizeof pts);
    }
    G = new_case("continents with mountains", 1);
    {
        a = tg_kind(G, NOISE_SIMPLEX, 0.05);
        int fa = tg_fractal(G, a, NG_FRACTAL_FBM, 5, 2, 0.5);
        int k = tg_op(G, NG_REMAP, fa, -1, -1);
        G->nodes[k].p[0] = -0.6;
        G->nodes[k].p[1] = 0.6;
        b = tg_kind(G, NOISE_PERLIN, 0.2);
        int rb = tg_fractal(G, b, NG_FRACTAL_RIDGED, 4, 2, 0.5);
        int m = tg_op(G, NG_MULTIPLY, k, rb, -1);
        int sel = tg_op(G, NG_SELECT, fa, m, fa);
        G->nodes[sel].p[0] = 0.0;
        G->nodes[sel].p[1] = 1.0;
        G->nodes[sel].p[2] = 0.2;
    }
}

static void test_gradients_match_differences(void)
{
    build_cases();
    for (int i = 0; i < n_cases; i++) {
        noise_graph_field *f = noise_graph_prepare(tg_graph(&cases[i].G), 42, NULL);
        CHECKF(f != NULL, "%s", cases[i].name);
        if (!f)
            continue;
        for (int dims = 2; dims <= 3; dims++) {
            int skipped;
            double worst;
            /* h = 1e-6 plane units: the truncation of a central difference
             * is h^2 f''' / 6, below 1e-9 for these frequencies (the highest
             * octave is at about 2 cycles per unit), and its rounding about
             * 1e-16 / h = 1e-10; 1e-6 relative to 1 + |g| is far above both
             * and far below any wrong factor in a chain rule */
            int ok = grad_check(cases[i].name, f, dims, 10000, 1e-6, 1e-6, &skipped, &worst);
            CHECKF(ok, "%s %dD: worst %.3g", cases[i].name, dims, worst);
            /* a smooth graph skips nothing; a creased one only the points
             * within h of a kink */
            CHECKF(skipped <= (cases[i].creased ? 100 : 0), "%s %dD: %d points skipped", cases[i].name, dims,
                   skipped);
            printf("# %-30s %dD worst %.2e skipped %d\n", cases[i].name, dims, worst, skipped);
        }
        noise_graph_field_destroy(f);
    }
}

/* ---- grid rows are the points ---- */

static void test_grid_rows_are_points(void)
{
    build_cases();
    enum { W = 300, R = 3 };
    static float gv[W * R], gg[2 * W * R];
    static double pts[2 * W * R], pv[W * R], pg[2 * W * R];
    for (int i = 0; i < n_cases; i++) {
        noise_graph_field *f = noise_graph_prepare(tg_graph(&cases[i].G), 7, NULL);
        if (!f)
            continue;
        double x0 = -20.3, y0 = 11.1, step = 0.173;
        CHECK(noise_graph_field_grid_rows(f, x0, y0, step, W, 4, R, gv, gg) == 0);
        for (int j = 0; j < R; j++)
            for (int k = 0; k < W; k++) {
                pts[2 * (j * W + k)] = x0 + (double)k * step;
                pts[2 * (j * W + k) + 1] = y0 + (double)(4 + j) * step;
            }
        CHECK(noise_graph_field_points(f, W * R, pts, 2, pv, pg) == 0);
        int bad = 0;
        for (int k = 0; k < W * R; k++)
            if (gv[k] != (float)pv[k] || gg[2 * k] != (float)pg[2 * k] || gg[2 * k + 1] != (float)pg[2 * k + 1])
                bad++;
        CHECKF(bad == 0, "%s: %d samples differ", cases[i].name, bad);
        noise_graph_field_destroy(f);
    }
}

/* ---- a shared sub-graph is evaluated once ---- */

static int n_source_calls;
static double count_source(const noise_spec *s, int gradients, void *ctx)
{
    (void)s;
    (void)gradients;
    (void)ctx;
    n_source_calls++;
    return 1.0;
}

static void test_shared_subgraph_once(void)
{
    tg G = { .n = 0 };
    int a = tg_kind(&G, NOISE_PERLIN, 0.3);
    int fa = tg_fractal(&G, a, NG_FRACTAL_FBM, 4, 2, 0.5);
    int m = tg_op(&G, NG_MULTIPLY, fa, fa, -1);
    int in[3] = { fa, m, tg_op(&G, NG_DOMAIN_SCALE, fa, -1, -1) }; /* scale 1: the same instance */
    tg_nary(&G, NG_ADD, 3, in);
    noise_graph_field *f = noise_graph_prepare(tg_graph(&G), 1, NULL);
    CHECK(f != NULL);
    if (!f)
        return;
    n_source_calls = 0;
    double cost = noise_graph_field_cost(f, 1, 2, count_source, NULL, 0.0, NULL, 0);
    CHECKF(n_source_calls == 4, "%d source instances", n_source_calls);
    CHECK(cost == 4.0);
    /* 4 sources + 3 octave contexts + fractal + multiply + add (scale 1 is no node) */
    n_source_calls = 0;
    char dom[256];
    cost = noise_graph_field_cost(f, 1, 2, count_source, NULL, 1.0, dom, sizeof dom);
    CHECKF(cost == 10.0, "cost %g", cost);
    noise_graph_field_destroy(f);
    /* the same sub-graph written twice (two equal nodes) under two domain
     * transforms that are one context: one instance per octave */
    tg H = { .n = 0 };
    int p1 = tg_kind(&H, NOISE_PERLIN, 0.3);
    int s1 = tg_op(&H, NG_DOMAIN_SCALE, p1, -1, -1);
    H.nodes[s1].p[0] = 4;
    int s2 = tg_op(&H, NG_DOMAIN_SCALE, p1, -1, -1);
    H.nodes[s2].p[0] = 4;
    tg_op(&H, NG_SUBTRACT, s1, s2, -1);
    f = noise_graph_prepare(tg_graph(&H), 1, NULL);
    CHECK(f != NULL);
    if (!f)
        return;
    n_source_calls = 0;
    noise_graph_field_cost(f, 0, 2, count_source, NULL, 0.0, NULL, 0);
    CHECKF(n_source_calls == 1, "%d source instances", n_source_calls);
    double v, p[2] = { 3.3, 4.4 };
    noise_graph_field_point(f, p, 2, &v, NULL, NULL);
    CHECK(v == 0.0);
    noise_graph_field_destroy(f);
}

/* ---- cost: 3D sources, the dominant node ---- */

static double cost_t(const noise_spec *s, int gradients, void *ctx)
{
    (void)ctx;
    return (s->has_t ? 10.0 : 1.0) * (gradients ? 2.0 : 1.0) * s->octaves;
}

static void test_cost(void)
{
    tg G = { .n = 0 };
    noise_spec s;
    noise_spec_default(&s, NOISE_SIMPLEX, 0);
    s.octaves = 2;
    int a = tg_src(&G, &s, 0);
    int fa = tg_fractal(&G, a, NG_FRACTAL_RIDGED, 3, 2, 0.5);
    int b = tg_kind(&G, NOISE_PERLIN, 1);
    tg_op(&G, NG_ADD, fa, b, -1);
    noise_graph_field *f = noise_graph_prepare(tg_graph(&G), 1, NULL);
    CHECK(f != NULL);
    if (!f)
        return;
    char dom[256] = "x";
    /* 2D values: 3 octaves of a 2-octave simplex (2 each) + perlin (1), and
     * 2 octave contexts + fractal + add at 0.5 */
    double c = noise_graph_field_cost(f, 0, 2, cost_t, NULL, 0.5, dom, sizeof dom);
    CHECKF(c == 3 * 2 + 1 + 4 * 0.5, "2D cost %g", c);
    char want[256];
    ng_node_pointer(tg_graph(&G), a, want, sizeof want);
    CHECKF(strcmp(dom, want) == 0, "dominant %s, want %s", dom, want);
    c = noise_graph_field_cost(f, 1, 3, cost_t, NULL, 0.5, NULL, 0);
    CHECKF(c == 3 * 40 + 20 + 2.0, "3D cost %g", c);
    noise_graph_field_destroy(f);
}

/* ---- the same bits on every path ---- */

static uint64_t path_hash[NOISE_SIMD_COUNT];
static int path_have[NOISE_SIMD_COUNT];

static void test_paths_agree(void)
{
    build_cases();
    enum { W = 97, R = 4, NPT = 500 };
    static float gv[W * R], gg[2 * W * R];
    static double p2[2 * NPT], p3[3 * NPT], pv[NPT], pg[3 * NPT];
    tn_scatter(-7.1, 3.3, 0.77, NPT, p2, p3);
    uint64_t h = 0;
    for (int i = 0; i < n_cases; i++) {
        noise_graph_field *f = noise_graph_prepare(tg_graph(&cases[i].G), 3, NULL);
        if (!f)
            continue;
        noise_graph_field_grid_rows(f, -9.5, 4.25, 0.31, W, 0, R, gv, gg);
        h ^= tn_fnv1a(gv, sizeof gv) + 3 * tn_fnv1a(gg, sizeof gg) + (uint64_t)i;
        noise_graph_field_points(f, NPT, p2, 2, pv, pg);
        h = h * 31 + tn_fnv1a(pv, sizeof pv) + tn_fnv1a(pg, 2 * NPT * sizeof(double));
        noise_graph_field_points(f, NPT, p3, 3, pv, pg);
        h = h * 31 + tn_fnv1a(pv, sizeof pv) + tn_fnv1a(pg, sizeof pg);
        noise_graph_field_destroy(f);
    }
    noise_simd p = noise_simd_active();
    path_hash[p] = h;
    path_have[p] = 1;
    for (int q = 0; q < NOISE_SIMD_COUNT; q++)
        if (path_have[q])
            CHECKF(path_hash[q] == h, "%s and %s differ", noise_simd_name((noise_simd)q), noise_simd_name(p));
}

/* ---- limits ---- */

static void test_limit(void)
{
    /* three nested fractals of 16 octaves: 16^3 sources and more */
    tg G = { .n = 0 };
    int a = tg_kind(&G, NOISE_PERLIN, 0.3);
    int f1 = tg_fractal(&G, a, NG_FRACTAL_FBM, 16, 2, 0.5);
    int f2 = tg_fractal(&G, f1, NG_FRACTAL_FBM, 16, 1.5, 0.5);
    int f3 = tg_fractal(&G, f2, NG_FRACTAL_FBM, 16, 1.25, 0.5);
    int k = tg_const(&G, 1);
    tg_op(&G, NG_ADD, k, f3, -1);
    noise_graph_error err;
    memset(&err, 0, sizeof err);
    noise_graph_field *f = noise_graph_prepare(tg_graph(&G), 1, &err);
    CHECK(f == NULL);
    noise_graph_field_destroy(f);
    CHECK(err.code == NOISE_GRAPH_ELIMIT);
    char want[256];
    ng_node_pointer(tg_graph(&G), f3, want, sizeof want);
    CHECKF(strcmp(err.pointer, want) == 0, "pointer %s, want %s", err.pointer, want);
    CHECKF(strstr(err.message, "4096") && strstr(err.message, "fractal"), "%s", err.message);
    /* two nested 16-octave fractals (256 sources) are fine */
    tg H = { .n = 0 };
    a = tg_kind(&H, NOISE_PERLIN, 0.3);
    f1 = tg_fractal(&H, a, NG_FRACTAL_FBM, 16, 2, 0.5);
    tg_fractal(&H, f1, NG_FRACTAL_RIDGED, 16, 1.5, 0.5);
    f = noise_graph_prepare(tg_graph(&H), 1, &err);
    CHECK(f != NULL);
    if (f) {
        double v = 2, p[2] = { 0.3, 0.4 };
        CHECK(noise_graph_field_point(f, p, 2, &v, NULL, NULL) == 0 && v >= -1 && v <= 1);
    }
    noise_graph_field_destroy(f);
}

/* ---- each node's value, worked out by hand ---- */

typedef struct {
    const char *json;
    int dims;
    double want;
} value_case;

static void test_node_values(void)
{
    /* at the point (6, 6) or (6, 6, 3) */
    static const value_case vc[] = {
        { "{\"node\": \"add\", \"inputs\": [1, 2, 3.5]}", 2, 6.5 },
        { "{\"node\": \"sub\", \"inputs\": [5, 2]}", 2, 3 },
        { "{\"node\": \"mul\", \"inputs\": [2, 3, {\"node\": \"x\"}]}", 2, 36 },
        { "{\"node\": \"div\", \"inputs\": [3, 2]}", 2, 1.5 },
        { "{\"node\": \"div\", \"inputs\": [1, 0]}", 2, 1e9 },
        { "{\"node\": \"div\", \"inputs\": [1, -1e-12]}", 2, -1e9 },
        { "{\"node\": \"min\", \"inputs\": [3, 1, 2]}", 2, 1 },
        { "{\"node\": \"max\", \"inputs\": [3, 1, 2]}", 2, 3 },
        { "{\"node\": \"smin\", \"k\": 0.1, \"inputs\": [0, 0.05]}", 2, -0.00625 },
        { "{\"node\": \"smax\", \"k\": 0.1, \"inputs\": [0, 0.05]}", 2, 0.05625 },
        { "{\"node\": \"smin\", \"k\": 0.1, \"inputs\": [0, 0.5]}", 2, 0 },
        { "{\"node\": \"neg\", \"inputs\": [2]}", 2, -2 },
        { "{\"node\": \"abs\", \"inputs\": [-2]}", 2, 2 },
        { "{\"node\": \"pow\", \"exponent\": 0.5, \"inputs\": [-0.25]}", 2, -0.5 },
        { "{\"node\": \"pow\", \"exponent\": 3, \"inputs\": [0.5]}", 2, 0.125 },
        { "{\"node\": \"powi\", \"n\": 3, \"inputs\": [-2]}", 2, -8 },
        { "{\"node\": \"powi\", \"n\": 0, \"inputs\": [5]}", 2, 1 },
        { "{\"node\": \"sqrt\", \"inputs\": [-1]}", 2, 0 },
        { "{\"node\": \"sqrt\", \"inputs\": [0.25]}", 2, 0.5 },
        { "{\"node\": \"ssqrt\", \"inputs\": [-0.25]}", 2, -0.5 },
        { "{\"node\": \"clamp\", \"inputs\": [5]}", 2, 1 },
        { "{\"node\": \"clamp\", \"min\": -2, \"inputs\": [-5]}", 2, -2 },
        { "{\"node\": \"scale_bias\", \"scale\": 3, \"bias\": 1, \"inputs\": [2]}", 2, 7 },
        { "{\"node\": \"remap\", \"inputs\": [0.5]}", 2, 0.75 },
        { "{\"node\": \"remap\", \"from_min\": 0, \"from_max\": 2, \"to_min\": 10, \"to_max\": 20, \"inputs\": [3]}", 2,
          25 },
        { "{\"node\": \"curve\", \"points\": [[-1, -1], [0, 0.5], [1, 1]], \"inputs\": [0]}", 2, 0.5 },
        { "{\"node\": \"curve\", \"points\": [[-1, -1], [0, 0.5], [1, 1]], \"inputs\": [1]}", 2, 1 },
        { "{\"node\": \"curve\", \"points\": [[-1, -1], [0, 0.5], [1, 1]], \"inputs\": [2]}", 2, 1 },
        { "{\"node\": \"curve\", \"points\": [[-1, -1], [0, 0.5], [1, 1]], \"inputs\": [-3]}", 2, -1 },
        /* a straight line stays one: the secants agree, the tangents are theirs */
        { "{\"node\": \"curve\", \"points\": [[0, 0], [1, 2], [2, 4]], \"inputs\": [0.5]}", 2, 1 },
        { "{\"node\": \"terrace\", \"points\": [-1, 0, 1], \"inputs\": [0.5]}", 2, 0.25 },
        { "{\"node\": \"terrace\", \"points\": [-1, 0, 1], \"invert\": true, \"inputs\": [0.5]}", 2, 0.75 },
        { "{\"node\": \"terrace\", \"points\": [-1, 0, 1], \"smooth\": true, \"inputs\": [0.5]}", 2, 0.5 },
        { "{\"node\": \"terrace\", \"points\": [-1, 0, 1], \"inputs\": [3]}", 2, 1 },
        { "{\"node\": \"blend\", \"inputs\": [0, 2, 0]}", 2, 1 },
        { "{\"node\": \"select\", \"inputs\": [10, 20, 0]}", 2, 20 },
        { "{\"node\": \"select\", \"inputs\": [10, 20, 5]}", 2, 10 },
        { "{\"node\": \"select\", \"inputs\": [10, 20, 1]}", 2, 20 },
        { "{\"node\": \"select\", \"falloff\": 0.5, \"inputs\": [10, 20, -1]}", 2, 15 },
        { "{\"node\": \"select\", \"falloff\": 0.5, \"inputs\": [10, 20, 1]}", 2, 15 },
        { "{\"node\": \"x\"}", 2, 6 },
        { "{\"node\": \"y\"}", 3, 6 },
        { "{\"node\": \"t\"}", 2, 0 },
        { "{\"node\": \"t\"}", 3, 3 },
        { "{\"node\": \"domain_offset\", \"t\": 5, \"inputs\": [{\"node\": \"t\"}]}", 2, 5 },
        { "{\"node\": \"domain_scale\", \"scale\": 2, \"inputs\": [{\"node\": \"t\"}]}", 3, 6 },
        { "{\"node\": \"distance\", \"px\": 3, \"py\": 2}", 2, 5 },
        { "{\"node\": \"domain_scale\", \"scale\": 2, \"inputs\": [{\"node\": \"x\"}]}", 2, 12 },
        { "{\"node\": \"domain_offset\", \"y\": -1, \"inputs\": [{\"node\": \"y\"}]}", 2, 5 },
        { "{\"node\": \"domain_rotate\", \"angle\": 90, \"inputs\": [{\"node\": \"x\"}]}", 2, -6 },
        { "{\"node\": \"domain_rotate\", \"angle\": -90, \"inputs\": [{\"node\": \"y\"}]}", 2, -6 },
        { "{\"node\": \"domain_rotate\", \"angle\": 180, \"inputs\": [{\"node\": \"x\"}]}", 3, -6 },
        { "{\"node\": \"warp\", \"amplitude\": 0.5, \"inputs\": [{\"node\": \"x\"}, 1, 2]}", 2, 6.5 },
        { "{\"node\": \"warp\", \"amplitude\": 0.5, \"inputs\": [{\"node\": \"y\"}, 1, 2]}", 3, 7 },
        { "{\"node\": \"fractal\", \"octaves\": 3, \"inputs\": [{\"node\": \"x\"}]}", 2, 18 / 1.75 },
        { "{\"node\": \"fractal\", \"type\": \"turbulence\", \"octaves\": 2, \"inputs\": [-0.5]}", 2, 0 },
        { "{\"node\": \"fractal\", \"type\": \"ridged\", \"octaves\": 2, \"inputs\": [0]}", 2, 1 },
        { "{\"node\": \"fractal\", \"type\": \"pingpong\", \"octaves\": 1, \"inputs\": [0]}", 2, -1 },
        { "{\"node\": \"fractal\", \"type\": \"pingpong\", \"octaves\": 1, \"inputs\": [0.25]}", 2, 0 },
    };
    const double p[3] = { 6, 6, 3 };
    for (size_t i = 0; i < sizeof vc / sizeof vc[0]; i++) {
        noise_graph_error err;
        noise_graph *g = noise_graph_parse_json(vc[i].json, strlen(vc[i].json), &err);
        CHECKF(g != NULL, "%s: %s", vc[i].json, g ? "" : err.message);
        if (!g)
            continue;
        noise_graph_field *f = noise_graph_prepare(g, 5, &err);
        double v = NAN, gp[3];
        CHECK(f && noise_graph_field_point(f, p, vc[i].dims, &v, gp, NULL) == 0);
        CHECKF(fabs(v - vc[i].want) <= 1e-15 * (1 + fabs(vc[i].want)), "%s %dD: %.17g, want %.17g", vc[i].json,
               vc[i].dims, v, vc[i].want);
        /* and the same on a grid row through the point (to float) */
        float fv = 0;
        if (vc[i].dims == 2) {
            CHECK(f && noise_graph_field_grid_rows(f, p[0], p[1], 1.0, 1, 0, 1, &fv, NULL) == 0);
            CHECKF(fv == (float)v, "%s grid: %.9g", vc[i].json, (double)fv);
        }
        noise_graph_field_destroy(f);
        noise_graph_destroy(g);
    }
}

/* ---- pow: the graph's own, against libm's ---- */

static void test_pow_matches_libm(void)
{
    uint64_t st = 99;
    double worst = 0;
    for (int i = 0; i < 2000; i++) {
        double a = tn_uniform(&st, -2, 2), e = tn_uniform(&st, 0.05, 16);
        if (i % 7 == 0)
            a = tn_uniform(&st, -1e-6, 1e-6);
        tg G = { .n = 0 };
        int c = tg_const(&G, a);
        G.nodes[tg_op(&G, NG_POW, c, -1, -1)].p[0] = e;
        noise_graph_field *f = noise_graph_prepare(tg_graph(&G), 0, NULL);
        double v = 0, p[2] = { 0, 0 }, want = copysign(pow(fabs(a), e), a);
        CHECK(f && noise_graph_field_point(f, p, 2, &v, NULL, NULL) == 0);
        double err = want == 0 ? fabs(v) : fabs(v - want) / fabs(want);
        if (err > worst)
            worst = err;
        /* y = e log|a| rounds to |y| 2^-53, which exp carries into a
         * relative error of the same size: a few ulps plus that */
        double y = fabs(e * log(fabs(a)));
        CHECKF(err <= 2e-15 + 2.5e-16 * y || (fabs(want) < 1e-300 && fabs(v) < 1e-300),
               "pow(%.17g, %.17g): %.17g, libm %.17g", a, e, v, want);
        noise_graph_field_destroy(f);
    }
    printf("# pow: worst relative difference from libm %.3g\n", worst);
}

int main(void)
{
    RUN(test_one_source_is_the_kind);
    RUN(test_node_values);
    RUN(test_gradients_match_differences);
    RUN(test_grid_rows_are_points);
    RUN(test_shared_subgraph_once);
    RUN(test_cost);
    RUN_PATHS(test_paths_agree);
    RUN(test_limit);
    RUN(test_pow_matches_libm);
    return t_done();
}
