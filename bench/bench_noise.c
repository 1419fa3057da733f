/* bench_noise.c: ns per sample of 256 x 256 tile fills by the noise core
 * (noise_eval_grid: 2D value, perlin, simplex, improved, both lattices,
 * cellular, classic and the GLSL variants; 1 and 6 octaves; values only
 * and with gradients) on each instruction-set
 * path the CPU has (scalar, AVX2, AVX-512) and by "today", the core before
 * the vector paths (commit 117be87, linked in as bench_today_*:
 * bench_noise_today.c), side by side in the same run with stb_perlin
 * (stb_perlin_noise3 at z = 0, and its fbm at 6 octaves) and libnoise's
 * Perlin module with one octave, over the same points; and Perlin with
 * period 16 (tileable), against the same fills without it.
 *
 * Further tables: 10,000-point batches (noise_eval_points) per path, and
 * single points: noise_eval_point (which prepares the field on each call:
 * for improved noise with a seed other than 0 that shuffles a permutation
 * per octave) against noise_field_point on a field prepared once.
 *
 * Each figure is the median of REPS repetitions; each repetition times every
 * case in turn (interleaved, so a change in machine load hits all cases
 * alike), filling the tile enough times to take about 10 ms of this
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID: time spent descheduled on a
 * busy machine is not counted). Run with `make bench-noise`.
 *
 * Last, against FastNoise2 (bench_fastnoise2.cpp, built in when `make
 * bench-noise FASTNOISE2_DIR=...` names its source tree): the same grids at
 * about 16 samples per cell and at 1, our prepared field against its node
 * tree, on the AVX-512 and the AVX2 path of each, interleaved, ratio = its
 * time / ours. `bench_noise --fastnoise2` prints that table alone.
 */
#define STB_PERLIN_IMPLEMENTATION
#include <stb/stb_perlin.h>

#include "noise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_fastnoise2.h"
#ifdef BENCH_FASTNOISE2
#include "bench_graph_cases.h"
#include "noise_graph.h"
#endif

#define W 256
#define REPS 9

/* the libnoise shim (bench_noise_libnoise.cpp) */
void bench_libnoise_perlin_fill(double x0, double y0, double step, int width, int height, float *out_values);
/* the core of commit 117be87 (bench_noise_today.c) */
int bench_today_available(void);
void bench_today_grid(int kind, uint32_t seed, int octaves, int lattice, double x0, double y0, double step,
                      int width, int height, float *values, float *grads);
void bench_today_points(int kind, uint32_t seed, int octaves, int lattice, size_t n, const double *points,
                        double *values, double *grads);

/* a tile at zoom 0 of the daemon: 16 plane units, pixel centres */
static const double X0 = 1000.0 + 0.5 / 16, Y0 = -2000.0 + 0.5 / 16, STEP = 1.0 / 16;

static float values[W * W], grads[2 * W * W];
static volatile float sink;

typedef struct {
    const char *name;
    noise_kind kind; /* -1: stb, -2: stb fbm 6, -3: libnoise */
    int octaves;
    int with_grads;
    noise_lattice lattice;
    double period;             /* > 0: a periodic field (the same tile, wrapped lattice) */
    const char *param, *value; /* one more field parameter (a variant), or NULL */
} bench_case;

/* Columns: 0 "today" (117be87), then 1 + each noise_simd path. */
enum { TODAY = 0, NCOL = 1 + NOISE_SIMD_COUNT };
static int column; /* the column fill() runs */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void fill(const bench_case *c)
{
    if ((int)c->kind >= 0 && column == TODAY) {
        bench_today_grid(c->kind, 1, c->octaves, c->lattice, X0, Y0, STEP, W, W, values,
                         c->with_grads ? grads : NULL);
    } else if ((int)c->kind >= 0) {
        /* the spec-taking call, as the daemon's tiles before prepared fields */
        noise_spec s;
        noise_spec_default(&s, c->kind, 1);
        if (c->param && noise_spec_parse(&s, c->kind, 1, 1, &c->param, &c->value, NULL, 0) != 0) {
            fprintf(stderr, "bench case %s: bad parameter %s=%s\n", c->name, c->param, c->value);
            exit(1);
        }
        s.octaves = c->octaves;
        s.lattice = c->lattice;
        s.period = c->period;
        noise_eval_grid(&s, X0, Y0, STEP, W, W, values, c->with_grads ? grads : NULL);
    } else if ((int)c->kind == -3) {
        bench_libnoise_perlin_fill(X0, Y0, STEP, W, W, values);
    } else {
        for (int j = 0; j < W; j++) {
            float y = (float)(Y0 + j * STEP);
            for (int i = 0; i < W; i++) {
                float x = (float)(X0 + i * STEP);
                values[j * W + i] = (int)c->kind == -1 ? stb_perlin_noise3(x, y, 0, 0, 0, 0)
                                                       : stb_perlin_fbm_noise3(x, y, 0, 2.0f, 0.5f, 6);
            }
        }
    }
    sink = values[W * W / 2];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* how many fills take about 10 ms */
static int calibrate(const bench_case *c)
{
    double t0 = now_ns();
    int n = 0;
    do {
        fill(c);
        n++;
    } while (now_ns() - t0 < 10e6);
    return n;
}

/* ns per sample of one repetition */
static double time_once(const bench_case *c, int n)
{
    double a = now_ns();
    for (int k = 0; k < n; k++)
        fill(c);
    return (now_ns() - a) / ((double)n * W * W);
}

static const char *const col_short[NCOL] = { "today", "scalar", "AVX2", "AVX-512" };

/* column c runs: 0 always (stb, libnoise; today's core where linked in),
 * a path if the CPU has it */
static int col_have(int c)
{
    return c == TODAY ? 1 : noise_simd_supported((noise_simd)(c - 1));
}

/* makes column c the one fill() and the batches run */
static void col_set(int c)
{
    column = c;
    if (c != TODAY)
        noise_simd_set((noise_simd)(c - 1));
}

/* 1 if the case's parameter (if any) is set to its kind's default: the
 * library's own parameter table says which */
static int param_is_default(const bench_case *c)
{
    if (!c->param)
        return 1;
    size_t np;
    const noise_param *p = noise_params(&np);
    for (size_t k = 0; k < np; k++)
        if (strcmp(p[k].name, c->param) == 0)
            return p[k].type == NOISE_PARAM_ENUM && p[k].default_choice && strcmp(p[k].default_choice, c->value) == 0;
    return 0;
}

/* a gradients row the "every kind" target counts (against the row before
 * it, its values alone) */
static int grads_target_row(const bench_case *c)
{
    return c->with_grads && (int)c->kind >= 0 && c->period == 0 && param_is_default(c);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return v[n / 2];
}

/* ---- against FastNoise2 ---- */

#define FN2_REPS 11
#define FN2_W 256

typedef struct {
    const char *name;
    noise_kind kind;
    int octaves;
    double step;    /* 1/16: ~16 samples per cell; 1: one */
    int with_grads; /* ours with gradients, FastNoise2's values only */
    int shape;      /* BENCH_FN2_* */
    int graph;      /* >= 0: ours is bench_graph_cases[graph] (kind and octaves unused) */
} fn2_case;

static const fn2_case fn2_cases[] = {
    { "perlin, 1 octave, 16 per cell", NOISE_PERLIN, 1, 1.0 / 16, 0, BENCH_FN2_PERLIN, -1 },
    { "perlin, 1 octave, 1 per cell", NOISE_PERLIN, 1, 1.0, 0, BENCH_FN2_PERLIN, -1 },
    { "value, 1 octave, 16 per cell", NOISE_VALUE, 1, 1.0 / 16, 0, BENCH_FN2_VALUE, -1 },
    { "value, 1 octave, 1 per cell", NOISE_VALUE, 1, 1.0, 0, BENCH_FN2_VALUE, -1 },
    { "simplex, 1 octave, 16 per cell", NOISE_SIMPLEX, 1, 1.0 / 16, 0, BENCH_FN2_SIMPLEX, -1 },
    { "simplex, 1 octave, 1 per cell", NOISE_SIMPLEX, 1, 1.0, 0, BENCH_FN2_SIMPLEX, -1 },
    { "perlin fBm, 6 octaves (zoom 0)", NOISE_PERLIN, 6, 1.0 / 16, 0, BENCH_FN2_FBM_PERLIN, -1 },
    { "simplex fBm, 6 octaves (zoom 0)", NOISE_SIMPLEX, 6, 1.0 / 16, 0, BENCH_FN2_FBM_SIMPLEX, -1 },
    { "cellular F1, 16 per cell (*)", NOISE_CELLULAR, 1, 1.0 / 16, 0, BENCH_FN2_CELLULAR, -1 },
    { "cellular F1, 1 per cell (*)", NOISE_CELLULAR, 1, 1.0, 0, BENCH_FN2_CELLULAR, -1 },
    { "perlin + gradients vs its values, 16 per cell", NOISE_PERLIN, 1, 1.0 / 16, 1, BENCH_FN2_PERLIN, -1 },
    { "perlin + gradients vs its values, 1 per cell", NOISE_PERLIN, 1, 1.0, 1, BENCH_FN2_PERLIN, -1 },
    /* issue 28: the graphs of bench_graph_cases.h (our graph evaluator,
     * noise_graph_field_grid_rows) against FastNoise2's node trees of the
     * same shape (bench_fastnoise2.cpp); BENCH_FN2_G_* follow its order */
    { "graph fbm6: fractal fbm 6 over perlin", NOISE_PERLIN, 1, 1.0 / 16, 0, BENCH_FN2_G_FBM6, 0 },
    { "graph continents: remap(simplex fbm 5) x ridged 4 over perlin", NOISE_PERLIN, 1, 1.0 / 16, 0, BENCH_FN2_G_CONTINENTS, 1 },
    { "graph warp: perlin warped by 2 simplex", NOISE_PERLIN, 1, 1.0 / 16, 0, BENCH_FN2_G_WARP, 2 },
};
enum { FN2_N = sizeof fn2_cases / sizeof fn2_cases[0] };

#ifdef BENCH_FASTNOISE2
static float fn2_vals[FN2_W * FN2_W], fn2_grads[2 * FN2_W * FN2_W];

/* one fill of case i on path p (0: AVX-512, 1: AVX2) by side s (0: ours,
 * 1: FastNoise2) */
static noise_field *fn2_ours[FN2_N][2];
static noise_graph_field *fn2_graph[FN2_N][2];
static void *fn2_peer[FN2_N][2];

static void fn2_fill(int i, int p, int s)
{
    const fn2_case *c = &fn2_cases[i];
    if (s == 0 && c->graph >= 0)
        noise_graph_field_grid_rows(fn2_graph[i][p], X0, Y0, c->step, FN2_W, 0, FN2_W, fn2_vals, NULL);
    else if (s == 0)
        noise_field_grid(fn2_ours[i][p], X0, Y0, c->step, FN2_W, FN2_W, fn2_vals, c->with_grads ? fn2_grads : NULL);
    else
        bench_fn2_fill(fn2_peer[i][p], X0, Y0, c->step, FN2_W, FN2_W, fn2_vals);
    sink = fn2_vals[FN2_W * FN2_W / 2];
}

static double fn2_time(int i, int p, int s, int n)
{
    double a = now_ns();
    for (int k = 0; k < n; k++)
        fn2_fill(i, p, s);
    return (now_ns() - a) / ((double)n * FN2_W * FN2_W);
}
#endif

/* The table against FastNoise2, or the line saying how to get it. */
static void fastnoise2_table(void)
{
#ifndef BENCH_FASTNOISE2
    printf("\nFastNoise2: not built in. `make bench-noise FASTNOISE2_DIR=/path/to/FastNoise2` (a FastNoise2 1.1.1 "
           "source tree, e.g. a clone of its tag v1.1.1, with the FastSIMD it pins beside it as ../FastSIMD, or "
           "FASTSIMD_DIR=...) builds it under build/fastnoise2 and adds it here.\n");
#else
    static const noise_simd paths[2] = { NOISE_SIMD_AVX512, NOISE_SIMD_AVX2 };
    static const char *const pname[2] = { "AVX-512", "AVX2" };
    int have[2];
    noise_simd was = noise_simd_active();
    for (int p = 0; p < 2; p++) {
        have[p] = noise_simd_supported(paths[p]);
        for (int i = 0; i < FN2_N && have[p]; i++) {
            noise_simd_set(paths[p]);
            noise_spec sp;
            noise_spec_default(&sp, fn2_cases[i].kind, 1);
            sp.octaves = fn2_cases[i].octaves;
            fn2_ours[i][p] = noise_field_create(&sp);
            if (fn2_cases[i].graph >= 0) {
                const char *json = bench_graph_cases[fn2_cases[i].graph].json;
                noise_graph *g = noise_graph_parse_json(json, strlen(json), NULL);
                fn2_graph[i][p] = g ? noise_graph_prepare(g, BENCH_GRAPH_SEED, NULL) : NULL;
                noise_graph_destroy(g);
                if (!fn2_graph[i][p]) {
                    fprintf(stderr, "bench_noise: graph %s did not prepare\n", bench_graph_cases[fn2_cases[i].graph].name);
                    exit(1);
                }
            }
            fn2_peer[i][p] = bench_fn2_new(fn2_cases[i].shape, p == 0);
            if (!fn2_ours[i][p] || !fn2_peer[i][p])
                have[p] = 0;
        }
    }
    static int reps_n[FN2_N][2][2];
    static double per[FN2_N][2][2][FN2_REPS];
    for (int i = 0; i < FN2_N; i++)
        for (int p = 0; p < 2; p++)
            for (int s = 0; s < 2 && have[p]; s++) {
                double t0 = now_ns();
                int n = 0;
                do {
                    fn2_fill(i, p, s);
                    n++;
                } while (now_ns() - t0 < 10e6);
                reps_n[i][p][s] = n;
            }
    for (int r = 0; r < FN2_REPS; r++)
        for (int i = 0; i < FN2_N; i++)
            for (int p = 0; p < 2; p++)
                for (int k = 0; k < 2 && have[p]; k++) {
                    int s = (r + i) % 2 ? 1 - k : k; /* which side goes first alternates */
                    per[i][p][s][r] = fn2_time(i, p, s, reps_n[i][p][s]);
                }
    printf("\nAgainst FastNoise2 1.1.1 (float, its own release flags), %d x %d grids at (%.5f, %.5f), step 1/16 "
           "(~16 samples per cell) or 1 (~1 per cell), seed 1, frequency 1 (its simplex: 1/sqrt(3)); our prepared "
           "field (noise_field_grid) against its node tree (GenUniformGrid2D); ns per sample, median of %d "
           "repetitions, all interleaved, thread CPU time; ratio = its time / ours (above 1: noisetile is faster)\n\n",
           FN2_W, FN2_W, X0, Y0, FN2_REPS);
    printf("| case |");
    for (int p = 0; p < 2; p++)
        if (have[p])
            printf(" ours %s | FastNoise2 %s | ratio %s |", pname[p], pname[p], pname[p]);
    printf("\n|---|");
    for (int p = 0; p < 2; p++)
        if (have[p])
            printf("---:|---:|---:|");
    printf("\n");
    for (int i = 0; i < FN2_N; i++) {
        printf("| %s |", fn2_cases[i].name);
        for (int p = 0; p < 2; p++) {
            if (!have[p])
                continue;
            double m[2];
            for (int s = 0; s < 2; s++)
                m[s] = median(per[i][p][s], FN2_REPS);
            printf(" %.2f | %.2f | %.2fx |", m[0], m[1], m[1] / m[0]);
        }
        printf("\n");
    }
    for (int p = 0; p < 2; p++)
        if (!have[p])
            printf("(%s: not run, this CPU or one of the two libraries has no such path)\n", pname[p]);
    printf("(*) cellular is a different algorithm in each: ours searches the cells that can hold the nearest "
           "point; FastNoise2's a fixed 3 x 3 block. The last two rows: ours with gradients, FastNoise2 values "
           "only.\n");
    for (int i = 0; i < FN2_N; i++)
        for (int p = 0; p < 2; p++) {
            noise_field_destroy(fn2_ours[i][p]);
            noise_graph_field_destroy(fn2_graph[i][p]);
            if (fn2_peer[i][p])
                bench_fn2_free(fn2_peer[i][p]);
        }
    noise_simd_set(was);
#endif
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--fastnoise2") == 0) {
        fastnoise2_table();
        return 0;
    }
    static const bench_case cases[] = {
        { "stb_perlin_noise3 (z=0)", -1, 1, 0, 0, 0, NULL, NULL },
        { "stb_perlin_fbm_noise3, 6 octaves", -2, 6, 0, 0, 0, NULL, NULL },
        { "libnoise Perlin, 1 octave", -3, 1, 0, 0, 0, NULL, NULL },
        { "value, 1 octave", NOISE_VALUE, 1, 0, 0, 0, NULL, NULL },
        { "value, 1 octave, gradients", NOISE_VALUE, 1, 1, 0, 0, NULL, NULL },
        { "value, 6 octaves", NOISE_VALUE, 6, 0, 0, 0, NULL, NULL },
        { "value, 6 octaves, gradients", NOISE_VALUE, 6, 1, 0, 0, NULL, NULL },
        { "perlin, 1 octave", NOISE_PERLIN, 1, 0, 0, 0, NULL, NULL },
        { "perlin, 1 octave, gradients", NOISE_PERLIN, 1, 1, 0, 0, NULL, NULL },
        { "perlin, 6 octaves", NOISE_PERLIN, 6, 0, 0, 0, NULL, NULL },
        { "perlin, 6 octaves, gradients", NOISE_PERLIN, 6, 1, 0, 0, NULL, NULL },
        { "simplex, 1 octave", NOISE_SIMPLEX, 1, 0, 0, 0, NULL, NULL },
        { "simplex, 1 octave, gradients", NOISE_SIMPLEX, 1, 1, 0, 0, NULL, NULL },
        { "simplex, 6 octaves", NOISE_SIMPLEX, 6, 0, 0, 0, NULL, NULL },
        { "simplex, 6 octaves, gradients", NOISE_SIMPLEX, 6, 1, 0, 0, NULL, NULL },
        { "improved, 1 octave", NOISE_IMPROVED, 1, 0, 0, 0, NULL, NULL },
        { "improved, 1 octave, gradients", NOISE_IMPROVED, 1, 1, 0, 0, NULL, NULL },
        { "improved, 6 octaves", NOISE_IMPROVED, 6, 0, 0, 0, NULL, NULL },
        { "improved, 6 octaves, gradients", NOISE_IMPROVED, 6, 1, 0, 0, NULL, NULL },
        { "value triangle, 1 octave", NOISE_VALUE, 1, 0, NOISE_TRIANGLE, 0, NULL, NULL },
        { "value triangle, 1 octave, gradients", NOISE_VALUE, 1, 1, NOISE_TRIANGLE, 0, NULL, NULL },
        { "perlin triangle, 1 octave", NOISE_PERLIN, 1, 0, NOISE_TRIANGLE, 0, NULL, NULL },
        { "perlin triangle, 1 octave, gradients", NOISE_PERLIN, 1, 1, NOISE_TRIANGLE, 0, NULL, NULL },
        /* tileable: the perlin rows with period 16; no "today" column */
        { "perlin, 1 octave, period 16", NOISE_PERLIN, 1, 0, 0, 16, NULL, NULL },
        { "perlin, 1 octave, gradients, period 16", NOISE_PERLIN, 1, 1, 0, 16, NULL, NULL },
        { "perlin, 6 octaves, period 16", NOISE_PERLIN, 6, 0, 0, 16, NULL, NULL },
        { "perlin, 6 octaves, gradients, period 16", NOISE_PERLIN, 6, 1, 0, 16, NULL, NULL },
        /* issue 13: cellular (f1, euclidean, jitter 1: the defaults); no "today" column */
        { "cellular, 1 octave", NOISE_CELLULAR, 1, 0, 0, 0, NULL, NULL },
        { "cellular, 1 octave, gradients", NOISE_CELLULAR, 1, 1, 0, 0, NULL, NULL },
        { "cellular, 6 octaves", NOISE_CELLULAR, 6, 0, 0, 0, NULL, NULL },
        { "cellular, 6 octaves, gradients", NOISE_CELLULAR, 6, 1, 0, 0, NULL, NULL },
        { "cellular distance=manhattan, 1 octave", NOISE_CELLULAR, 1, 0, 0, 0, "distance", "manhattan" },
        { "cellular distance=chebyshev, 1 octave", NOISE_CELLULAR, 1, 0, 0, 0, "distance", "chebyshev" },
        { "cellular return=f2, 1 octave", NOISE_CELLULAR, 1, 0, 0, 0, "return", "f2" },
        { "cellular return=f2-f1, 1 octave", NOISE_CELLULAR, 1, 0, 0, 0, "return", "f2-f1" },
        { "cellular return=cell, 1 octave", NOISE_CELLULAR, 1, 0, 0, 0, "return", "cell" },
        /* issue 13: the seed documents' variants; no "today" column */
        { "classic (linear), 1 octave", NOISE_CLASSIC, 1, 0, 0, 0, "fade", "linear" },
        { "classic (linear), 1 octave, gradients", NOISE_CLASSIC, 1, 1, 0, 0, "fade", "linear" },
        { "classic (linear), 6 octaves", NOISE_CLASSIC, 6, 0, 0, 0, "fade", "linear" },
        { "classic (linear), 6 octaves, gradients", NOISE_CLASSIC, 6, 1, 0, 0, "fade", "linear" },
        { "classic (quintic), 1 octave", NOISE_CLASSIC, 1, 0, 0, 0, "fade", "quintic" },
        { "classic (quintic), 1 octave, gradients", NOISE_CLASSIC, 1, 1, 0, 0, "fade", "quintic" },
        { "classic (quintic), 6 octaves", NOISE_CLASSIC, 6, 0, 0, 0, "fade", "quintic" },
        { "perlin gradients=angle, 1 octave", NOISE_PERLIN, 1, 0, 0, 0, "gradients", "angle" },
        { "perlin gradients=angle, 1 octave, gradients", NOISE_PERLIN, 1, 1, 0, 0, "gradients", "angle" },
        { "simplex gradients=angle, 1 octave", NOISE_SIMPLEX, 1, 0, 0, 0, "gradients", "angle" },
        { "simplex gradients=angle, 1 octave, gradients", NOISE_SIMPLEX, 1, 1, 0, 0, "gradients", "angle" },
        { "simplex falloff=quartic, 1 octave", NOISE_SIMPLEX, 1, 0, 0, 0, "falloff", "quartic" },
        { "simplex falloff=quartic, 1 octave, gradients", NOISE_SIMPLEX, 1, 1, 0, 0, "falloff", "quartic" },
        /* tileable cellular (last, so the rows above keep their places) */
        { "cellular, 1 octave, period 16", NOISE_CELLULAR, 1, 0, 0, 16, NULL, NULL },
    };
    enum { N = sizeof cases / sizeof cases[0], C = NCOL };
    noise_simd best = noise_simd_active();
    const int bc = 1 + (int)best; /* the default path's column */
    int have[C];
    for (int c = 0; c < C; c++)
        have[c] = col_have(c);
    const int today = bench_today_available();
    /* ns[i][c]: case i in column c (stb and libnoise: column 0 only) */
    static double ns[N][C], per[N][C][REPS];
    int reps_n[N][C];
    /* stb and libnoise: column 0 only; today (where linked in): the kinds,
     * without the variants and periods, that 117be87 had */
#define RUNS(i, c)                                                                                              \
    (have[c] && ((int)cases[i].kind < 0 ? (c) == 0                                                            \
                                        : ((c) != TODAY || (today && cases[i].kind < NOISE_CELLULAR &&         \
                                                             !cases[i].param && cases[i].period == 0))))
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++)
            if (RUNS(i, c)) {
                col_set(c);
                reps_n[i][c] = calibrate(&cases[i]);
            }
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < N; i++)
            for (int c = 0; c < C; c++)
                if (RUNS(i, c)) {
                    col_set(c);
                    per[i][c][r] = time_once(&cases[i], reps_n[i][c]);
                }
    for (int i = 0; i < N; i++)
        for (int c = 0; c < C; c++)
            ns[i][c] = RUNS(i, c) ? median(per[i][c], REPS) : 0;
    col_set(bc);
    double stb = ns[0][0], stb6 = ns[1][0];
    printf("256 x 256 tile fills, 16 samples per cell, median of %d runs, all cases interleaved; ns per sample "
           "and speed = stb's time / this time (above 1: faster than stb; 6-octave fills against stb's 6-octave "
           "fbm). \"today\": the core of commit 117be87%s. Default path on this CPU: %s\n\n",
           REPS, today ? "" : " (not linked in: no such commit here)", noise_simd_name(best));
    printf("| fill |");
    for (int c = 0; c < C; c++)
        if (have[c])
            printf(" %s ns | %s speed |", col_short[c], col_short[c]);
    printf(" gradients / values (%s) |\n|---|", col_short[bc]);
    for (int c = 0; c < C; c++)
        if (have[c])
            printf("---:|---:|");
    printf("---:|\n");
    for (int i = 0; i < N; i++) {
        printf("| %s |", cases[i].name);
        for (int c = 0; c < C; c++) {
            if (!have[c])
                continue;
            if (!RUNS(i, c)) {
                printf(" | |");
                continue;
            }
            double ref = cases[i].octaves == 6 ? stb6 : stb;
            printf(" %.2f | %.2fx |", ns[i][c], ref / ns[i][c]);
        }
        if (cases[i].with_grads)
            printf(" %.2f |\n", ns[i][bc] / ns[i - 1][bc]);
        else
            printf(" |\n");
    }

    /* batches: noise_eval_points over 10,000 random points, ns per point */
    static const struct {
        const char *name;
        noise_kind kind;
        int octaves;
        int with_grads;
    } bcases[] = {
        { "perlin, 1 octave", NOISE_PERLIN, 1, 0 },   { "perlin, 1 octave, gradients", NOISE_PERLIN, 1, 1 },
        { "value, 1 octave", NOISE_VALUE, 1, 0 },     { "simplex, 1 octave", NOISE_SIMPLEX, 1, 0 },
        { "simplex, 1 octave, gradients", NOISE_SIMPLEX, 1, 1 }, { "perlin, 6 octaves", NOISE_PERLIN, 6, 0 },
        { "improved, seed 1, 1 octave", NOISE_IMPROVED, 1, 0 },
        { "cellular, 1 octave", NOISE_CELLULAR, 1, 0 },
        { "cellular, 1 octave, gradients", NOISE_CELLULAR, 1, 1 },
    };
    enum { NB = sizeof bcases / sizeof bcases[0], NPTS = 10000 };
    static double pts[2 * NPTS], bv[NPTS], bg[2 * NPTS];
    uint32_t rng = 12345;
    for (int i = 0; i < 2 * NPTS; i++) {
        rng = rng * 1664525u + 1013904223u;
        pts[i] = ((double)(rng >> 8) / 16777216.0 - 0.5) * 2000.0;
    }
    static double bns[NB][C][REPS], bmed[NB][C];
    /* today's column: where linked in, and for the kinds 117be87 had (it
     * has no cellular: its code would time another kind) */
#define BRUNS(i, c) (have[c] && ((c) != TODAY || (today && bcases[i].kind < NOISE_CELLULAR)))
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < NB; i++)
            for (int c = 0; c < C; c++) {
                if (!BRUNS(i, c))
                    continue;
                col_set(c);
                noise_spec s;
                noise_spec_default(&s, bcases[i].kind, 1);
                s.octaves = bcases[i].octaves;
                double a = now_ns();
                int calls = 0;
                do {
                    if (c == TODAY)
                        bench_today_points(bcases[i].kind, 1, bcases[i].octaves, 0, NPTS, pts, bv,
                                           bcases[i].with_grads ? bg : NULL);
                    else
                        noise_eval_points(&s, NPTS, pts, 2, bv, bcases[i].with_grads ? bg : NULL);
                    calls++;
                } while (now_ns() - a < 5e6);
                bns[i][c][r] = (now_ns() - a) / ((double)calls * NPTS);
                sink = (float)bv[NPTS / 2];
            }
    col_set(bc);
    printf("\nnoise_eval_points, %d random points in [-1000, 1000]^2, ns per point (median of %d runs)\n\n",
           (int)NPTS, REPS);
    printf("| batch |");
    for (int c = 0; c < C; c++)
        if (have[c])
            printf(" %s |", col_short[c]);
    if (today)
        printf(" %s vs today |", col_short[bc]);
    printf("\n|---|");
    for (int c = 0; c < C; c++)
        if (have[c])
            printf("---:|");
    if (today)
        printf("---:|");
    printf("\n");
    double worst_batch = 1e300;
    for (int i = 0; i < NB; i++) {
        printf("| %s |", bcases[i].name);
        for (int c = 0; c < C; c++)
            if (BRUNS(i, c)) {
                bmed[i][c] = median(bns[i][c], REPS);
                printf(" %.2f |", bmed[i][c]);
            } else if (have[c]) {
                printf(" n/a |");
            }
        if (today && BRUNS(i, TODAY)) {
            double x = bmed[i][TODAY] / bmed[i][bc];
            printf(" %.2fx |", x);
            worst_batch = x < worst_batch ? x : worst_batch;
        } else if (today) {
            printf(" |");
        }
        printf("\n");
    }

    /* single points: ns per call, spec-taking against a prepared field */
    static const struct {
        const char *name;
        noise_kind kind;
        uint32_t seed;
        int octaves;
    } pcases[] = {
        { "perlin, 1 octave", NOISE_PERLIN, 1, 1 },         { "perlin, 6 octaves", NOISE_PERLIN, 1, 6 },
        { "simplex, 1 octave", NOISE_SIMPLEX, 1, 1 },       { "improved, seed 0, 1 octave", NOISE_IMPROVED, 0, 1 },
        { "improved, seed 1, 1 octave", NOISE_IMPROVED, 1, 1 }, { "improved, seed 1, 6 octaves", NOISE_IMPROVED, 1, 6 },
    };
    enum { NP = sizeof pcases / sizeof pcases[0], CALLS = 20000 };
    static double pns[NP][2][REPS];
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < NP; i++)
            for (int prepared = 0; prepared < 2; prepared++) {
                noise_spec s;
                noise_spec_default(&s, pcases[i].kind, pcases[i].seed);
                s.octaves = pcases[i].octaves;
                noise_field *f = prepared ? noise_field_create(&s) : NULL;
                double acc = 0, a = now_ns();
                for (int k = 0; k < CALLS; k++) {
                    double p[2] = { X0 + k * 0.01, Y0 }, g[2];
                    acc += (f ? noise_field_point(f, p, 2, g, NULL) : noise_eval_point(&s, p, 2, g, NULL)) + g[0];
                }
                pns[i][prepared][r] = (now_ns() - a) / CALLS;
                noise_field_destroy(f);
                sink = (float)acc;
            }
    printf("\nOne point with its gradient, ns per call (median of %d runs of %d calls, %s path)\n\n", REPS,
           (int)CALLS, noise_simd_name(best));
    printf("| field | noise_eval_point | noise_field_point (prepared once) |\n|---|---:|---:|\n");
    for (int i = 0; i < NP; i++)
        printf("| %s | %.0f | %.0f |\n", pcases[i].name, median(pns[i][0], REPS), median(pns[i][1], REPS));

    /* the targets of issue 12, on the default path, all from this run */
    double perlin1 = ns[7][bc], value1 = ns[3][bc], perlin6 = ns[9][bc], simplex1 = ns[11][bc];
    /* every kind in its default configuration (no period, no parameter
     * but its default: classic's fade=linear counts), and the triangle
     * lattice rows; each gradient row against the values row before it */
    double worst_grads = 0;
    const char *worst_name = "";
    for (int i = 0; i < N; i++)
        if (grads_target_row(&cases[i]) && ns[i][bc] / ns[i - 1][bc] > worst_grads) {
            worst_grads = ns[i][bc] / ns[i - 1][bc];
            worst_name = cases[i - 1].name;
        }
    printf("\ntargets (%s path, this run):\n", noise_simd_name(best));
    printf("  1-octave perlin fill >= 10x stb_perlin_noise3: %.2fx %s\n", stb / perlin1,
           stb / perlin1 >= 10 ? "met" : "NOT met");
    printf("  1-octave value fill >= 10x stb_perlin_noise3: %.2fx %s\n", stb / value1,
           stb / value1 >= 10 ? "met" : "NOT met");
    printf("  6-octave perlin fbm >= 5x stb_perlin_fbm_noise3: %.2fx %s\n", stb6 / perlin6,
           stb6 / perlin6 >= 5 ? "met" : "NOT met");
    printf("  1-octave simplex fill >= 5x stb_perlin_noise3: %.2fx %s\n", stb / simplex1,
           stb / simplex1 >= 5 ? "met" : "NOT met");
    printf("  gradients <= 1.5x the value-only fill, every kind: worst %.2fx (%s) %s\n", worst_grads, worst_name,
           worst_grads <= 1.5 ? "met" : "NOT met");
    for (int i = 0; i < N; i++)
        if (grads_target_row(&cases[i]))
            printf("    %s: %.2fx\n", cases[i - 1].name, ns[i][bc] / ns[i - 1][bc]);
    if (today)
        printf("  10,000-point batches >= 4x faster per point than today: worst %.2fx %s\n", worst_batch,
               worst_batch >= 4 ? "met" : "NOT met");
    else
        printf("  10,000-point batches >= 4x faster per point than today: not measured (no 'today' here)\n");
    /* issue 13: a 1-octave cellular fill costs at most 3x the 1-octave
     * perlin fill per sample (same run, default path); each path shown */
    int cell1 = 0, per1 = 0; /* the first cellular row, the first period row */
    for (int i = N - 1; i >= 0; i--) {
        if (cases[i].kind == NOISE_CELLULAR)
            cell1 = i;
        if (cases[i].period > 0)
            per1 = i;
    }
    printf("  1-octave cellular fill <= 3x the 1-octave perlin fill: %.2fx %s\n", ns[cell1][bc] / perlin1,
           ns[cell1][bc] / perlin1 <= 3 ? "met" : "NOT met");
    for (int c = 1; c < C; c++)
        if (have[c])
            printf("    %s: cellular %.2f ns, perlin %.2f ns per sample: %.2fx\n", col_short[c], ns[cell1][c], ns[7][c],
                   ns[cell1][c] / ns[7][c]);
    /* the other distances and returns against the same perlin fill */
    for (int i = cell1 + 1; i < N && cases[i].kind == NOISE_CELLULAR; i++)
        if (cases[i].param && cases[i].octaves == 1 && !cases[i].with_grads)
            printf("    %s: %.2fx (%s)\n", cases[i].name, ns[i][bc] / perlin1, col_short[bc]);
    printf("\nperiod 16 against the same perlin fill without it (%s path): 1 octave %.2fx, with gradients %.2fx; "
           "6 octaves %.2fx, with gradients %.2fx\n",
           noise_simd_name(best), ns[per1][bc] / ns[7][bc], ns[per1 + 1][bc] / ns[8][bc], ns[per1 + 2][bc] / ns[9][bc],
           ns[per1 + 3][bc] / ns[10][bc]);
    printf("period 16 against the same cellular fill without it (%s path): 1 octave %.2fx\n", noise_simd_name(best),
           ns[N - 1][bc] / ns[cell1][bc]);
    fastnoise2_table();
    return 0;
}
