/* test_noise_cellular.c: cellular (Worley) noise against an independent
 * brute force, transcribed from docs/field.md: every feature point of the
 * 7 x 7 cells (2D, and manhattan in 3D: 7 x 7 x 7) or the 5 x 5 x 5 cells
 * (euclidean and chebyshev in 3D) around the point (the core searches rings
 * as far as they can matter), at 100,000 random points per distance, each compared with
 * every return mode, bit for bit (values and gradients), on every
 * instruction-set path; the documented bounds; grids and batches against
 * single points over every configuration and path; gradients against
 * central differences away from ties; goldens of the other returns and
 * distances.
 */
#include "noise.h"
#include "test.h"
#include "test_noise_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the brute force, from docs/field.md ---- */

/* The hash: test_noise_util.h's ref_eat64 / ref_avalanche. */

enum { BF_R = 3 }; /* 7 x 7 (x 7) */

typedef struct {
    double D, d[3];
    uint32_t h;
    int ring; /* the candidate's largest |offset| */
} bf_pt;

typedef struct {
    bf_pt p1, p2, p3; /* the nearest three in (D, lower cell) order */
    double B1, B2;
} bf_result;

/* docs/field.md: the bound of F1 and of F2 for the jitter */
static void bf_bounds(int dist, int d3, double jitter, double *b1, double *b2)
{
    double h = 0.5 + 0.5 * jitter;
    if (dist == NOISE_EUCLIDEAN) {
        *b1 = h * sqrt(d3 ? 3.0 : 2.0);
        *b2 = d3 ? sqrt(3.0 * h * h + (h < 0.75 ? 0.75 - h : 0.0)) : sqrt(2.0 * h * h + 0.5);
    } else if (dist == NOISE_MANHATTAN) {
        *b1 = *b2 = h * (d3 ? 3.0 : 2.0);
    } else {
        *b1 = h;
        *b2 = h + 0.5;
    }
}

static double bf_max(double a, double b) { return a > b ? a : b; }

/* The distance as docs/field.md writes it. */
static double bf_dist(int dist, int d3, const double *d)
{
    if (dist == NOISE_EUCLIDEAN)
        return d3 ? d[0] * d[0] + (d[1] * d[1] + d[2] * d[2]) : d[0] * d[0] + d[1] * d[1];
    if (dist == NOISE_MANHATTAN)
        return d3 ? fabs(d[0]) + (fabs(d[1]) + fabs(d[2])) : fabs(d[0]) + fabs(d[1]);
    return d3 ? bf_max(fabs(d[0]), bf_max(fabs(d[1]), fabs(d[2]))) : bf_max(fabs(d[0]), fabs(d[1]));
}

static double bf_offset(uint32_t bits, double jitter) { return 0.5 + jitter * ((double)bits / 65536.0 - 0.5); }

/* Every point of the (2R+1)^dims cells, visited lowest cell first (t, y,
 * then x), the first of equal distances kept. */
static void bf_search(uint32_t seed, int dist, int d3, double jitter, int R, const double *p, bf_result *r)
{
    double fl[3] = { floor(p[0]), floor(p[1]), d3 ? floor(p[2]) : 0 };
    double f[3] = { p[0] - fl[0], p[1] - fl[1], d3 ? p[2] - fl[2] : 0 };
    int64_t c[3] = { (int64_t)fl[0], (int64_t)fl[1], (int64_t)fl[2] };
    r->p1.D = r->p2.D = r->p3.D = INFINITY;
    int rz = d3 ? R : 0;
    for (int ez = -rz; ez <= rz; ez++)
        for (int ey = -R; ey <= R; ey++)
            for (int ex = -R; ex <= R; ex++) {
                uint32_t acc = ref_eat64(ref_eat64(seed + 0x165667B1u, c[0] + ex), c[1] + ey);
                if (d3)
                    acc = ref_eat64(acc, c[2] + ez);
                uint32_t h = ref_avalanche(acc), h2 = ref_avalanche(h + 0x9E3779B1u);
                bf_pt q;
                q.d[0] = ((double)ex + bf_offset(h & 0xffff, jitter)) - f[0];
                q.d[1] = ((double)ey + bf_offset(h >> 16, jitter)) - f[1];
                q.d[2] = d3 ? ((double)ez + bf_offset(h2 & 0xffff, jitter)) - f[2] : 0;
                q.D = bf_dist(dist, d3, q.d);
                q.h = h;
                int ax = abs(ex) > abs(ey) ? abs(ex) : abs(ey);
                q.ring = abs(ez) > ax ? abs(ez) : ax;
                if (q.D < r->p1.D) {
                    r->p3 = r->p2;
                    r->p2 = r->p1;
                    r->p1 = q;
                } else if (q.D < r->p2.D) {
                    r->p3 = r->p2;
                    r->p2 = q;
                } else if (q.D < r->p3.D) {
                    r->p3 = q;
                }
            }
    bf_bounds(dist, d3, jitter, &r->B1, &r->B2);
}

/* d F / d p of the offset d to a point (docs/field.md) */
static void bf_grad_f(int dist, int dims, const double *d, double F, double *g)
{
    for (int a = 0; a < dims; a++)
        g[a] = 0;
    if (dist == NOISE_EUCLIDEAN) {
        for (int a = 0; a < dims; a++)
            g[a] = F > 0 ? -(d[a] / F) : 0.0;
    } else if (dist == NOISE_MANHATTAN) {
        for (int a = 0; a < dims; a++)
            g[a] = d[a] < 0 ? 1.0 : -1.0;
    } else {
        int m = 0;
        for (int a = 1; a < dims; a++)
            if (fabs(d[a]) > fabs(d[m]))
                m = a;
        g[m] = d[m] < 0 ? 1.0 : -1.0;
    }
}

/* The field's value and gradient for a return mode from the search. */
static double bf_value(const bf_result *r, int dist, int ret, int dims, double *g)
{
    int eu = dist == NOISE_EUCLIDEAN;
    double F1 = eu ? sqrt(r->p1.D) : r->p1.D, F2 = eu ? sqrt(r->p2.D) : r->p2.D, v;
    double g1[3], g2[3];
    bf_grad_f(dist, dims, r->p1.d, F1, g1);
    bf_grad_f(dist, dims, r->p2.d, F2, g2);
    double s1 = 2.0 / r->B1, s2 = 2.0 / r->B2;
    for (int a = 0; a < dims; a++)
        g[a] = ret == NOISE_F1 ? g1[a] * s1 : ret == NOISE_F2 ? g2[a] * s2 : ret == NOISE_F2_F1 ? (g2[a] - g1[a]) * s2 : 0.0;
    if (ret == NOISE_F1)
        v = F1 * s1 - 1.0;
    else if (ret == NOISE_F2)
        v = F2 * s2 - 1.0;
    else if (ret == NOISE_F2_F1)
        v = (F2 - F1) * s2 - 1.0;
    else
        v = (double)(ref_avalanche(r->p1.h + 0x9E3779B1u) >> 16) / 65535.0 * 2.0 - 1.0;
    return v < -1 ? -1 : v > 1 ? 1 : v;
}

static const char *const dist_names[] = { "euclidean", "manhattan", "chebyshev" };
static const char *const ret_names[] = { "f1", "f2", "f2-f1", "cell" };

/* Random points: most near the origin, some far out (beyond the int32
 * lattice range too), some on cell borders and half-way lines (dyadic, so
 * exact ties happen with jitter 0). */
static void make_points(uint64_t *rng, int n, int d3, double *pts)
{
    int dims = d3 ? 3 : 2;
    for (int i = 0; i < n; i++) {
        double *p = pts + (size_t)dims * (size_t)i;
        int type = i % 10;
        for (int a = 0; a < dims; a++) {
            double x = tn_uniform(rng, -60, 60);
            if (type == 7)
                x = floor(x * 2) / 2;
            else if (type == 8)
                x = floor(x * 64) / 64;
            else if (type == 9)
                x = (a == 0 ? 3e9 : a == 1 ? -1e6 : 5e12) + floor(tn_uniform(rng, 0, 64) * 1024) / 1024;
            p[a] = x;
        }
    }
}

enum { N_BF = 100000 };

/* Acceptance 3: the exact search equals the brute force at 100,000 random
 * points per distance and every return mode (values and gradients, bit for
 * bit), 2D and 3D, jitter 1, on every path; and at 20,000 points with
 * jitter 0 (ties everywhere) and 0.37. Also: the bounds hold, and how often
 * the 5 x 5 neighbourhood would not have been enough (printed). */
static void test_brute_force(void)
{
    static const double jitters[] = { 1.0, 0.0, 0.37 };
    double *pts = malloc(sizeof(double) * 3 * N_BF), *got = malloc(sizeof(double) * N_BF);
    double *gg = malloc(sizeof(double) * 3 * N_BF);
    bf_result *ref = malloc(sizeof(bf_result) * N_BF);
    noise_simd best = noise_simd_active();
    long compared = 0, bad = 0, bound_bad = 0;
    for (int d3 = 0; d3 < 2; d3++)
        for (int dist = 0; dist < 3; dist++)
            for (int ji = 0; ji < 3; ji++) {
                int n = ji == 0 ? N_BF : N_BF / 5, dims = d3 ? 3 : 2;
                uint64_t rng = (uint64_t)(1000 + d3 * 100 + dist * 10 + ji);
                uint32_t seed = (uint32_t)(7 + dist + 3 * ji);
                make_points(&rng, n, d3, pts);
                long outside5 = 0, outside3_f1 = 0, outside3_f2 = 0;
                /* 7 x 7 in 2D and for manhattan in 3D; 5 x 5 x 5 holds every
                 * winner of the others in 3D (F2 <= sqrt 3 and 1.5 < 2) */
                int R = d3 && dist != NOISE_MANHATTAN ? 2 : BF_R;
                for (int i = 0; i < n; i++) {
                    bf_search(seed, dist, d3, jitters[ji], R, pts + (size_t)dims * (size_t)i, &ref[i]);
                    outside5 += ref[i].p1.ring > 2 || ref[i].p2.ring > 2;
                    outside3_f1 += ref[i].p1.ring > 1;
                    outside3_f2 += ref[i].p1.ring > 1 || ref[i].p2.ring > 1;
                    double F1 = dist == NOISE_EUCLIDEAN ? sqrt(ref[i].p1.D) : ref[i].p1.D;
                    double F2 = dist == NOISE_EUCLIDEAN ? sqrt(ref[i].p2.D) : ref[i].p2.D;
                    bound_bad += F1 > ref[i].B1 || F2 > ref[i].B2;
                }
                /* proven (docs/field.md): the 5 x 5 (x 5) cells hold both
                 * winners except for manhattan in 3D, where F2 may reach 3 */
                if (!d3)
                    CHECKF(outside5 == 0, "%s %s: %ld winners beyond the 5 x 5 cells", d3 ? "3D" : "2D",
                           dist_names[dist], outside5);
                printf("# %s %s jitter %g: of %d points, beyond the 3 x 3%s cells: F1 %ld, F1 or F2 %ld; "
                       "beyond the 5 x 5%s: %ld\n", d3 ? "3D" : "2D", dist_names[dist], jitters[ji], n,
                       d3 ? " x 3" : "", outside3_f1, outside3_f2, d3 ? " x 5" : "", outside5);
                for (int path = 0; path < NOISE_SIMD_COUNT; path++) {
                    if (!tn_path_wanted((noise_simd)path) || noise_simd_set((noise_simd)path) != 0)
                        continue;
                    for (int ret = 0; ret < NOISE_RETURN_COUNT; ret++) {
                        noise_spec s;
                        noise_spec_default(&s, NOISE_CELLULAR, seed);
                        s.distance = (noise_cell_distance)dist;
                        s.cell_return = (noise_cell_return)ret;
                        s.jitter = jitters[ji];
                        noise_eval_points(&s, (size_t)n, pts, dims, got, gg);
                        if (path == 0 && ji == 0) {
                            double lo = 1, hi = -1;
                            for (int i = 0; i < n; i++) {
                                lo = got[i] < lo ? got[i] : lo;
                                hi = got[i] > hi ? got[i] : hi;
                            }
                            printf("# range %s %s %s jitter 1: %.4f..%.4f\n", d3 ? "3D" : "2D", dist_names[dist],
                                   ret_names[ret], lo, hi);
                        }
                        long bad_here = 0;
                        for (int i = 0; i < n; i++) {
                            double g[3], v = bf_value(&ref[i], dist, ret, dims, g);
                            int ok = v == got[i];
                            for (int a = 0; a < dims; a++)
                                ok &= g[a] == gg[(size_t)dims * (size_t)i + (size_t)a];
                            if (!ok && bad_here++ < 2)
                                fprintf(stderr, "  %s %s %s jitter %g [%s] at (%.17g, %.17g, %.17g): %.17g, want %.17g\n",
                                        d3 ? "3D" : "2D", dist_names[dist], ret_names[ret], jitters[ji],
                                        noise_simd_name((noise_simd)path), pts[dims * i], pts[dims * i + 1],
                                        d3 ? pts[dims * i + 2] : 0, got[i], v);
                            compared++;
                        }
                        bad += bad_here;
                    }
                }
            }
    noise_simd_set(best);
    printf("# %ld point answers compared with the brute force\n", compared);
    CHECKF(bad == 0, "%ld of %ld answers differ from the brute force", bad, compared);
    CHECKF(bound_bad == 0, "%ld distances beyond their documented bound or the search's reach", bound_bad);
    free(pts);
    free(got);
    free(gg);
    free(ref);
}

/* ---- every configuration: grids and batches against points, paths ---- */

typedef struct {
    int dist, ret, d3;
    double jitter;
} cfg;

static cfg cfg_of(int c)
{
    /* 3 distances x 4 returns x 2D/3D x jitter 1, 0.5, 0 */
    cfg k;
    k.dist = c % 3;
    k.ret = (c / 3) % 4;
    k.d3 = (c / 12) % 2;
    k.jitter = c / 24 == 0 ? 1.0 : c / 24 == 1 ? 0.5 : 0.0;
    return k;
}
enum { N_CFG = 72 };

static void cfg_spec(noise_spec *s, cfg k, uint32_t seed)
{
    noise_spec_default(s, NOISE_CELLULAR, seed);
    s->distance = (noise_cell_distance)k.dist;
    s->cell_return = (noise_cell_return)k.ret;
    s->jitter = k.jitter;
    s->has_t = k.d3;
    s->t = -1.3;
}

/* Grid samples (values and gradients, and values alone) and batches equal
 * single points, for every configuration, at several scales (1/16 cell to
 * 2.3 cells per sample), near the origin, at the int32 lattice edge and
 * far out, one octave and three, each fractal mode, with and without warp. */
static void test_grid_batch_point(void)
{
    static const double places[][3] = { { -3.3, 2.1, 1.0 / 16 }, { 12.25, -7.75, 0.37 }, { -1e6, 2e6, 2.3 },
                                        { 2147483600.0, -2147483620.0, 0.9 }, { -1e12, 1e12, 0.21 } };
    enum { W = 29, H = 3 };
    int bad_cfg = 0, n_cfg = 0;
    for (int c = 0; c < N_CFG; c++)
        for (int pl = 0; pl < 5; pl++)
            for (int fr = 0; fr < (pl == 1 ? 3 : 1); fr++) {
                noise_spec s;
                cfg_spec(&s, cfg_of(c), (uint32_t)(c * 5 + pl));
                s.octaves = pl == 1 || pl == 4 ? 3 : 1;
                s.fractal = (noise_fractal)fr;
                s.warp = pl == 4 || (pl == 1 && fr == 2) ? 0.7 : 0;
                s.frequency = pl == 1 ? 0.8 : 1.0;
                float gv[W * H], gg[2 * W * H], vo[W * H];
                noise_eval_grid(&s, places[pl][0], places[pl][1], places[pl][2], W, H, gv, gg);
                noise_eval_grid(&s, places[pl][0], places[pl][1], places[pl][2], W, H, vo, NULL);
                double pts[2 * W * H], bv[W * H], bg[3 * W * H];
                int bad = 0, gn = s.has_t ? 3 : 2;
                for (int j = 0; j < H; j++)
                    for (int i = 0; i < W; i++) {
                        int n = j * W + i;
                        pts[2 * n] = places[pl][0] + i * places[pl][2];
                        pts[2 * n + 1] = places[pl][1] + j * places[pl][2];
                    }
                noise_eval_points(&s, W * H, pts, 2, bv, bg);
                for (int n = 0; n < W * H; n++) {
                    double g[3];
                    double v = noise_eval_point(&s, &pts[2 * n], 2, g, NULL);
                    bad += gv[n] != (float)v || vo[n] != (float)v || gg[2 * n] != (float)g[0] ||
                           gg[2 * n + 1] != (float)g[1];
                    bad += bv[n] != v || bg[gn * n] != g[0] || bg[gn * n + 1] != g[1] || (gn == 3 && bg[gn * n + 2] != g[2]);
                }
                n_cfg++;
                if (bad) {
                    bad_cfg++;
                    cfg k = cfg_of(c);
                    fprintf(stderr, "  %s %s %s jitter %g place %d %s: %d mismatches\n", k.d3 ? "3D" : "2D",
                            dist_names[k.dist], ret_names[k.ret], k.jitter, pl, tn_fractal_names[fr], bad);
                }
            }
    CHECKF(bad_cfg == 0, "%d of %d configurations: grid or batch differs from point", bad_cfg, n_cfg);
}

/* The vector paths give the scalar path's bytes over every configuration
 * (grids with and without gradients, batches 2D and 3D, points). */
typedef struct {
    float gv[61 * 4], gg[2 * 61 * 4], go[61 * 4];
    double bv[40], bg[3 * 40], tv[40], tg[3 * 40];
} cell_out;

static void cell_eval(const noise_spec *s, double x0, double y0, double step, void *out)
{
    cell_out *o = out;
    memset(o, 0, sizeof *o);
    noise_eval_grid(s, x0, y0, step, 61, 4, o->gv, o->gg);
    noise_eval_grid(s, x0, y0, step, 61, 4, o->go, NULL);
    double p2[2 * 40], p3[3 * 40];
    tn_scatter(x0, y0, step, 40, p2, p3);
    noise_eval_points(s, 40, p2, 2, o->bv, o->bg);
    noise_eval_points(s, 40, p3, 3, o->tv, o->tg);
}

static const double cell_places[][3] = { { -3.3, 2.1, 1.0 / 16 }, { 12.25, -7.75, 0.37 }, { -1e6, 2e6, 1.3 },
                                         { 2147483600.0, -2147483620.0, 0.9 }, { 3e9, -5e9, 1.0 / 16 },
                                         { -1e12, 1e12, 0.21 }, { 0.5, 0.5, 1.0 / 64 } };
/* configuration c: cfg c / 7 at place c % 7 */
static void cell_config(int c, noise_spec *s, const double **place)
{
    int pl = c % 7;
    c /= 7;
    cfg_spec(s, cfg_of(c), (uint32_t)(c + 31 * pl));
    s->octaves = pl % 3 == 1 ? 4 : 1;
    s->fractal = (noise_fractal)(pl % 3);
    s->warp = pl == 2 ? 0.8 : 0;
    *place = cell_places[pl];
}

static void cell_describe(int c, char *buf, size_t size)
{
    cfg k = cfg_of(c / 7);
    snprintf(buf, size, "%s %s %s jitter %g place %d", k.d3 ? "3D" : "2D", dist_names[k.dist],
             ret_names[k.ret], k.jitter, c % 7);
}

static void test_paths_agree(void)
{
    int n_cfg;
    int bad_cfg = tn_paths_agree(N_CFG * 7, cell_config, cell_describe, cell_eval, sizeof(cell_out),
                                 "cellular configurations", &n_cfg);
    CHECKF(bad_cfg == 0, "%d of %d configurations differ between paths", bad_cfg, n_cfg);
}

/* A w x h grid at place (x0, y0, step) on path p against the scalar
 * path: 1 when the values with gradients, or alone, differ (buf: 8 w h
 * floats). */
static int grid_differs(const noise_spec *s, noise_simd p, const double *pl, int w, int h, float *buf)
{
    size_t n = (size_t)w * (size_t)h;
    float *rv = buf, *rg = rv + n, *ro = rg + 2 * n, *gv = ro + n, *gg = gv + n, *go = gg + 2 * n;
    noise_simd_set(NOISE_SIMD_SCALAR);
    noise_eval_grid(s, pl[0], pl[1], pl[2], w, h, rv, rg);
    noise_eval_grid(s, pl[0], pl[1], pl[2], w, h, ro, NULL);
    noise_simd_set(p);
    noise_eval_grid(s, pl[0], pl[1], pl[2], w, h, gv, gg);
    noise_eval_grid(s, pl[0], pl[1], pl[2], w, h, go, NULL);
    return memcmp(rv, gv, sizeof(float) * n) != 0 || memcmp(rg, gg, sizeof(float) * 2 * n) != 0 ||
           memcmp(ro, go, sizeof(float) * n) != 0;
}

/* 300-wide grids of h rows at places[0 .. n_pl) (x0, y0, step), every
 * configuration (bands: 2D F1 only, one octave; else place 2 also 4
 * octaves): every vector path gives the scalar path's bytes, values with
 * gradients and alone. */
static void rows_agree(const char *name, const double (*places)[3], int n_pl, int h, int bands)
{
    enum { W = 300 };
    noise_simd best = noise_simd_active();
    float *buf = malloc(sizeof(float) * 8 * W * (size_t)h);
    int n_cfg = 0, bad_cfg = 0;
    for (int p = 1; p < NOISE_SIMD_COUNT; p++) {
        if (!tn_path_run((noise_simd)p, name))
            continue;
        for (int c = 0; c < N_CFG; c++) {
            cfg k = cfg_of(c);
            if (bands && k.d3)
                continue;
            for (int pl = 0; pl < n_pl; pl++)
                for (int oct = 1; oct <= (pl == 2 && !bands ? 4 : 1); oct += 3) {
                    noise_spec s;
                    cfg_spec(&s, k, (uint32_t)(c * (bands ? 5 : 7) + pl));
                    s.octaves = oct;
                    n_cfg++;
                    if (grid_differs(&s, (noise_simd)p, places[pl], W, h, buf) && bad_cfg++ < 8)
                        fprintf(stderr, "  %s: %s %s %s jitter %g place %d, %d octaves: differs from scalar\n",
                                noise_simd_name((noise_simd)p), k.d3 ? "3D" : "2D", dist_names[k.dist],
                                ret_names[k.ret], k.jitter, pl, oct);
                }
        }
        printf("# %s: %s ran against scalar\n", name, noise_simd_name((noise_simd)p));
    }
    noise_simd_set(best);
    free(buf);
    printf("# %s: %d configurations compared\n", name, n_cfg);
    CHECKF(bad_cfg == 0, "%s: %d of %d configurations differ between paths", name, bad_cfg, n_cfg);
}

/* Rows wider than the vector loops' chunks (128 samples) and the fill's
 * (256), at scales from 16 samples per cell to 1.7 cells per sample, a
 * decreasing row (negative step) and 2 and 4 octaves. */
static void test_wide_rows(void)
{
    static const double places[][3] = { { -3.3, 2.1, 1.0 / 16 }, { 0.0, 5.5, 0.1 }, { 12.25, -7.75, 0.37 },
                                        { -1e6, 2e6, 0.95 }, { 3.1, -2.2, 1.7 }, { 40.0, 1.5, -0.3 } };
    rows_agree("wide rows", places, 6, 2, 0);
}

/* One-octave 2D tiles (every distance and return) taller than a row of
 * cells go through their rows band by band (the rows inside one row of
 * cells share their candidates' x terms): across band changes, chunk
 * edges, vectors across a cell border (origins off the lattice), lanes
 * past the ring-2 bound, at 16 to 1/0.95 samples per cell, next to the
 * int32 lattice edge (the first rows past it: the row by row loop) and
 * decreasing (negative step). */
static void test_bands(void)
{
    static const double places[][3] = { { 1000.0 + 1.0 / 32, -2000.0 + 1.0 / 32, 1.0 / 16 },
                                        { -3.3, 2.1, 1.0 / 16 },
                                        { 0.41, -7.9, 1.0 / 3 },
                                        { 12.25, -7.75, 0.037 },
                                        { -1e6, 2e6, 0.95 },
                                        { 2147483600.0, -2147483620.0, 0.9 },
                                        { 5.0, -2147483647.3, 1.0 / 8 },
                                        { 40.0, 1.5, -0.3 } };
    rows_agree("bands", places, 8, 40, 1);
}

/* ---- gradients against central differences ---- */

/* Away from ties: the nearest two (three for f2) points at least 1e-3 apart
 * in distance, no offset component within 1e-3 of 0 (manhattan's creases),
 * the two largest within 1e-3 of each other (chebyshev's), not within 1e-3
 * of a feature point (euclidean's cone). The difference quotient has step
 * 2^-20 and must agree within 1e-6 (gradients are of order 1). */
static void test_gradients_fd(void)
{
    int bad_cfg = 0;
    long checked = 0, skipped = 0;
    double worst = 0;
    for (int c = 0; c < 24; c++) {
        cfg k = cfg_of(c);
        if (k.ret == NOISE_CELL)
            continue;
        int dims = k.d3 ? 3 : 2;
        noise_spec s;
        cfg_spec(&s, k, 55 + (uint32_t)c);
        uint64_t rng = 99 + (uint64_t)c;
        long fail = 0, ok = 0, skip = 0;
        for (int i = 0; i < 3000; i++) {
            double p[3] = { tn_uniform(&rng, -40, 40), tn_uniform(&rng, -40, 40), tn_uniform(&rng, -40, 40) };
            bf_result r;
            bf_search(55 + (uint32_t)c, k.dist, k.d3, k.jitter, BF_R, p, &r);
            int eu = k.dist == NOISE_EUCLIDEAN;
            double F1 = eu ? sqrt(r.p1.D) : r.p1.D, F2 = eu ? sqrt(r.p2.D) : r.p2.D, F3 = eu ? sqrt(r.p3.D) : r.p3.D;
            int tie = F2 - F1 < 1e-3 || F1 < 1e-3 || (k.ret != NOISE_F1 && (F3 - F2 < 1e-3 || F2 < 1e-3));
            for (int w = 0; w < 2 && !tie; w++) {
                const double *d = w ? r.p2.d : r.p1.d;
                if (k.dist == NOISE_MANHATTAN)
                    for (int a = 0; a < dims; a++)
                        tie |= fabs(d[a]) < 1e-3;
                if (k.dist == NOISE_CHEBYSHEV)
                    for (int a = 0; a < dims; a++)
                        for (int b = a + 1; b < dims; b++)
                            tie |= fabs(fabs(d[a]) - fabs(d[b])) < 1e-3;
            }
            if (tie) {
                skip++;
                continue;
            }
            double g[3];
            noise_eval_point(&s, p, dims, g, NULL);
            for (int a = 0; a < dims; a++) {
                double h = 0x1p-20, q1[3] = { p[0], p[1], p[2] }, q2[3] = { p[0], p[1], p[2] };
                q1[a] += h;
                q2[a] -= h;
                double fd = (noise_eval_point(&s, q1, dims, NULL, NULL) - noise_eval_point(&s, q2, dims, NULL, NULL)) /
                            (2 * h);
                double err = fabs(fd - g[a]);
                worst = err > worst ? err : worst;
                if (err > 1e-6) {
                    if (fail < 2)
                        fprintf(stderr, "  %s %s %s at (%.17g, %.17g, %.17g) axis %d: %.12g, fd %.12g\n",
                                k.d3 ? "3D" : "2D", dist_names[k.dist], ret_names[k.ret], p[0], p[1], p[2], a, g[a], fd);
                    fail++;
                } else {
                    ok++;
                }
            }
        }
        checked += ok;
        skipped += skip;
        if (fail || skip > 3000 / 4) {
            bad_cfg++;
            fprintf(stderr, "  %s %s %s: %ld failed, %ld skipped of 3000\n", k.d3 ? "3D" : "2D", dist_names[k.dist],
                    ret_names[k.ret], fail, skip);
        }
    }
    printf("# %ld gradient components checked, %ld points skipped near ties, worst error %.3g\n", checked, skipped,
           worst);
    CHECKF(bad_cfg == 0, "%d configurations fail", bad_cfg);
}

/* return=cell: the cell's value, constant around the feature point, with
 * gradient 0; f1 is -1 exactly on a feature point (jitter 0: the cell
 * centre), with gradient 0 there (the stated choice at F = 0). */
static void test_cell_and_centres(void)
{
    int bad = 0;
    for (int d3 = 0; d3 < 2; d3++)
        for (int i = 0; i < 200; i++) {
            noise_spec s;
            noise_spec_default(&s, NOISE_CELLULAR, (uint32_t)i);
            s.jitter = 0;
            double p[3] = { i - 100.5, 0.5 - i, 3.5 + i }, g[3];
            int dims = d3 ? 3 : 2;
            bad += noise_eval_point(&s, p, dims, g, NULL) != -1.0 || g[0] != 0 || g[1] != 0 || (d3 && g[2] != 0);
            s.cell_return = NOISE_CELL;
            double q[3] = { p[0] + 0.01, p[1] - 0.02, p[2] + 0.03 };
            double v = noise_eval_point(&s, p, dims, g, NULL);
            bad += v != noise_eval_point(&s, q, dims, NULL, NULL) || g[0] != 0 || g[1] != 0 || !(v >= -1 && v <= 1);
        }
    CHECKF(bad == 0, "%d wrong answers at feature points", bad);
}

/* ---- goldens of the returns and distances (the default, f1 euclidean,
 * is in test_noise_golden.c with every fractal mode) ---- */

static const struct {
    int dist, ret, d3;
    double jitter;
    int octaves;
    uint64_t values, grads;
} goldens[] = {
    { NOISE_EUCLIDEAN, NOISE_F2, 0, 1.0, 1, 0x804defa28f441e14ull, 0x54f8e31d31178f76ull },
    { NOISE_EUCLIDEAN, NOISE_F2_F1, 0, 1.0, 1, 0x97865bc127e4b52bull, 0x8b2a91769a886f97ull },
    { NOISE_EUCLIDEAN, NOISE_CELL, 0, 1.0, 1, 0x9a7f3b9cd029a505ull, 0xfc31bff590c22325ull },
    { NOISE_MANHATTAN, NOISE_F1, 0, 1.0, 1, 0x11154147f67e0984ull, 0x6648393b270499a5ull },
    { NOISE_MANHATTAN, NOISE_F2_F1, 0, 0.5, 1, 0xccebbd1abac93076ull, 0x6139b9528484914dull },
    { NOISE_CHEBYSHEV, NOISE_F1, 0, 1.0, 1, 0x94ad7c0f7a42a924ull, 0x07c015f381d06d05ull },
    { NOISE_CHEBYSHEV, NOISE_F2, 0, 0.75, 3, 0x0a8237253a31e47full, 0x6fc430da6095086bull },
    { NOISE_EUCLIDEAN, NOISE_F1, 0, 0.0, 1, 0x87515ba9845c15afull, 0x81cef21351890c23ull },
    { NOISE_EUCLIDEAN, NOISE_F2_F1, 1, 1.0, 1, 0xec34d51d7163e022ull, 0xf0bc51641f3d6f57ull },
    { NOISE_MANHATTAN, NOISE_F2, 1, 1.0, 1, 0x6fc18ec485d499a4ull, 0x45d41cb57a157825ull },
    { NOISE_CHEBYSHEV, NOISE_CELL, 1, 0.9, 2, 0x0177e6f200e6d203ull, 0xfc31bff590c22325ull },
};

static void test_goldens(void)
{
    enum { W = 256 };
    float *v = malloc(sizeof(float) * W * W), *g = malloc(sizeof(float) * 2 * W * W);
    int bad = 0, n = (int)(sizeof goldens / sizeof goldens[0]);
    for (int i = 0; i < n; i++) {
        noise_spec s;
        noise_spec_default(&s, NOISE_CELLULAR, 77 + (uint32_t)i);
        s.distance = (noise_cell_distance)goldens[i].dist;
        s.cell_return = (noise_cell_return)goldens[i].ret;
        s.jitter = goldens[i].jitter;
        s.octaves = goldens[i].octaves;
        s.has_t = goldens[i].d3;
        s.t = 4.25;
        s.frequency = 0.3;
        uint64_t hv, hg;
        tn_golden_grid(&s, W, v, g, &hv, &hg);
        if (hv != goldens[i].values || hg != goldens[i].grads) {
            bad++;
            fprintf(stderr, "  golden %d: got 0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull\n", i, hv, hg);
        }
        for (int j = 0; j < i; j++)
            bad += goldens[j].values == goldens[i].values;
    }
    free(v);
    free(g);
    CHECKF(bad == 0, "%d cellular golden checksums differ (or repeat)", bad);
}

int main(void)
{
    RUN(test_brute_force);
    RUN(test_paths_agree);
    RUN(test_wide_rows);
    RUN(test_bands);
    RUN_PATHS(test_grid_batch_point);
    RUN(test_gradients_fd); /* points: the scalar kernel on every path */
    RUN_PATHS(test_cell_and_centres);
    RUN_PATHS(test_goldens);
    return t_done();
}
