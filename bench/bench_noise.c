/* bench_noise.c: ns per sample of 256 x 256 tile fills by the noise core
 * (noise_eval_grid: 2D value, perlin, simplex; 1 and 6 octaves; values only
 * and with gradients) on each instruction-set path the CPU has (scalar,
 * AVX2, AVX-512), side by side in the same run with stb_perlin
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
 */
#define STB_PERLIN_IMPLEMENTATION
#include <stb/stb_perlin.h>

#include "noise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 256
#define REPS 9

/* the libnoise shim (bench_noise_libnoise.cpp) */
void bench_libnoise_perlin_fill(double x0, double y0, double step, int width, int height, float *out_values);

/* a tile at zoom 0 of the daemon: 16 plane units, pixel centres */
static const double X0 = 1000.0 + 0.5 / 16, Y0 = -2000.0 + 0.5 / 16, STEP = 1.0 / 16;

static float values[W * W], grads[2 * W * W];
static volatile float sink;

typedef struct {
    const char *name;
    noise_kind kind; /* -1: stb, -2: stb fbm 6, -3: libnoise */
    int octaves;
    int with_grads;
    double period; /* > 0: a periodic field (the same tile, wrapped lattice) */
} bench_case;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void fill(const bench_case *c)
{
    if ((int)c->kind >= 0) {
        /* the spec-taking call, as the daemon's tiles before prepared fields */
        noise_spec s;
        noise_spec_default(&s, c->kind, 1);
        s.octaves = c->octaves;
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

static const char *const path_short[NOISE_SIMD_COUNT] = { "scalar", "AVX2", "AVX-512" };

int main(void)
{
    static const bench_case cases[] = {
        { "stb_perlin_noise3 (z=0)", -1, 1, 0, 0 },
        { "stb_perlin_fbm_noise3, 6 octaves", -2, 6, 0, 0 },
        { "libnoise Perlin, 1 octave", -3, 1, 0, 0 },
        { "value, 1 octave", NOISE_VALUE, 1, 0, 0 },
        { "value, 1 octave, gradients", NOISE_VALUE, 1, 1, 0 },
        { "value, 6 octaves", NOISE_VALUE, 6, 0, 0 },
        { "value, 6 octaves, gradients", NOISE_VALUE, 6, 1, 0 },
        { "perlin, 1 octave", NOISE_PERLIN, 1, 0, 0 },
        { "perlin, 1 octave, gradients", NOISE_PERLIN, 1, 1, 0 },
        { "perlin, 6 octaves", NOISE_PERLIN, 6, 0, 0 },
        { "perlin, 6 octaves, gradients", NOISE_PERLIN, 6, 1, 0 },
        { "simplex, 1 octave", NOISE_SIMPLEX, 1, 0, 0 },
        { "simplex, 1 octave, gradients", NOISE_SIMPLEX, 1, 1, 0 },
        { "simplex, 6 octaves", NOISE_SIMPLEX, 6, 0, 0 },
        { "simplex, 6 octaves, gradients", NOISE_SIMPLEX, 6, 1, 0 },
        /* tileable: the perlin rows 7-10 with period 16 (rows 15-18) */
        { "perlin, 1 octave, period 16", NOISE_PERLIN, 1, 0, 16 },
        { "perlin, 1 octave, gradients, period 16", NOISE_PERLIN, 1, 1, 16 },
        { "perlin, 6 octaves, period 16", NOISE_PERLIN, 6, 0, 16 },
        { "perlin, 6 octaves, gradients, period 16", NOISE_PERLIN, 6, 1, 16 },
        /* issue 13: cellular (f1, euclidean, jitter 1: the defaults) */
        { "cellular, 1 octave", NOISE_CELLULAR, 1, 0, 0 },
        { "cellular, 1 octave, gradients", NOISE_CELLULAR, 1, 1, 0 },
        { "cellular, 6 octaves", NOISE_CELLULAR, 6, 0, 0 },
    };
    enum { N = sizeof cases / sizeof cases[0], P = NOISE_SIMD_COUNT };
    noise_simd best = noise_simd_active();
    int have[P];
    for (int p = 0; p < P; p++)
        have[p] = noise_simd_supported((noise_simd)p);
    /* ns[i][p]: case i on path p (stb and libnoise: column 0 only) */
    static double ns[N][P], per[N][P][REPS];
    int reps_n[N][P];
    for (int i = 0; i < N; i++)
        for (int p = 0; p < P; p++)
            if (have[p] && ((int)cases[i].kind >= 0 || p == 0)) {
                noise_simd_set((noise_simd)p);
                reps_n[i][p] = calibrate(&cases[i]);
            }
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < N; i++)
            for (int p = 0; p < P; p++)
                if (have[p] && ((int)cases[i].kind >= 0 || p == 0)) {
                    noise_simd_set((noise_simd)p);
                    per[i][p][r] = time_once(&cases[i], reps_n[i][p]);
                }
    for (int i = 0; i < N; i++)
        for (int p = 0; p < P; p++) {
            qsort(per[i][p], REPS, sizeof per[i][p][0], cmp_double);
            ns[i][p] = have[p] ? per[i][p][REPS / 2] : 0;
        }
    noise_simd_set(best);
    double stb = ns[0][0], stb6 = ns[1][0];
    printf("256 x 256 tile fills, 16 samples per cell, median of %d runs, all cases interleaved; ns per sample "
           "and speed = stb's time / this time (above 1: faster than stb; 6-octave fills against stb's 6-octave "
           "fbm). Default path on this CPU: %s\n\n",
           REPS, noise_simd_name(best));
    printf("| fill |");
    for (int p = 0; p < P; p++)
        if (have[p])
            printf(" %s ns | %s speed |", path_short[p], path_short[p]);
    printf(" gradients / values (%s) |\n|---|", path_short[best]);
    for (int p = 0; p < P; p++)
        if (have[p])
            printf("---:|---:|");
    printf("---:|\n");
    for (int i = 0; i < N; i++) {
        printf("| %s |", cases[i].name);
        for (int p = 0; p < P; p++) {
            if (!have[p])
                continue;
            if ((int)cases[i].kind < 0 && p > 0) {
                printf(" | |");
                continue;
            }
            double ref = cases[i].octaves == 6 ? stb6 : stb;
            printf(" %.2f | %.2fx |", ns[i][p], ref / ns[i][p]);
        }
        if (cases[i].with_grads)
            printf(" %.2f |\n", ns[i][best] / ns[i - 1][best]);
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
    static double bns[NB][P][REPS];
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < NB; i++)
            for (int p = 0; p < P; p++) {
                if (!have[p])
                    continue;
                noise_simd_set((noise_simd)p);
                noise_spec s;
                noise_spec_default(&s, bcases[i].kind, 1);
                s.octaves = bcases[i].octaves;
                double a = now_ns();
                int calls = 0;
                do {
                    noise_eval_points(&s, NPTS, pts, 2, bv, bcases[i].with_grads ? bg : NULL);
                    calls++;
                } while (now_ns() - a < 5e6);
                bns[i][p][r] = (now_ns() - a) / ((double)calls * NPTS);
                sink = (float)bv[NPTS / 2];
            }
    noise_simd_set(best);
    printf("\nnoise_eval_points, %d random points in [-1000, 1000]^2, ns per point (median of %d runs)\n\n",
           (int)NPTS, REPS);
    printf("| batch |");
    for (int p = 0; p < P; p++)
        if (have[p])
            printf(" %s |", path_short[p]);
    printf("\n|---|");
    for (int p = 0; p < P; p++)
        if (have[p])
            printf("---:|");
    printf("\n");
    for (int i = 0; i < NB; i++) {
        printf("| %s |", bcases[i].name);
        for (int p = 0; p < P; p++)
            if (have[p]) {
                qsort(bns[i][p], REPS, sizeof bns[i][p][0], cmp_double);
                printf(" %.2f |", bns[i][p][REPS / 2]);
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
    for (int i = 0; i < NP; i++) {
        qsort(pns[i][0], REPS, sizeof pns[i][0][0], cmp_double);
        qsort(pns[i][1], REPS, sizeof pns[i][1][0], cmp_double);
        printf("| %s | %.0f | %.0f |\n", pcases[i].name, pns[i][0][REPS / 2], pns[i][1][REPS / 2]);
    }

    /* the targets of issue 12, on the default path */
    const int b = best;
    double perlin1 = ns[7][b], value1 = ns[3][b], perlin6 = ns[9][b], simplex1 = ns[11][b];
    double worst_grads = 0;
    for (int i = 0; i < N; i++)
        if (cases[i].with_grads && (int)cases[i].kind >= 0 && cases[i].kind != NOISE_CELLULAR &&
            ns[i][b] / ns[i - 1][b] > worst_grads)
            worst_grads = ns[i][b] / ns[i - 1][b];
    printf("\ntargets (%s path):\n", noise_simd_name(best));
    printf("  1-octave perlin fill >= 10x stb_perlin_noise3: %.2fx %s\n", stb / perlin1,
           stb / perlin1 >= 10 ? "met" : "NOT met");
    printf("  1-octave value fill >= 10x stb_perlin_noise3: %.2fx %s\n", stb / value1,
           stb / value1 >= 10 ? "met" : "NOT met");
    printf("  6-octave perlin fbm >= 5x stb_perlin_fbm_noise3: %.2fx %s\n", stb6 / perlin6,
           stb6 / perlin6 >= 5 ? "met" : "NOT met");
    printf("  1-octave simplex fill >= 5x stb_perlin_noise3: %.2fx %s\n", stb / simplex1,
           stb / simplex1 >= 5 ? "met" : "NOT met");
    printf("  gradients <= 1.5x the value-only fill, every kind: worst %.2fx %s\n", worst_grads,
           worst_grads <= 1.5 ? "met" : "NOT met");
    /* issue 13: a 1-octave cellular fill costs at most 3x the 1-octave
     * perlin fill per sample (same run, default path); each path shown */
    double cell1 = ns[N - 3][b];
    printf("  1-octave cellular fill <= 3x the 1-octave perlin fill: %.2fx %s\n", cell1 / perlin1,
           cell1 / perlin1 <= 3 ? "met" : "NOT met");
    for (int p = 0; p < P; p++)
        if (have[p])
            printf("    %s: cellular %.2f ns, perlin %.2f ns per sample: %.2fx\n", path_short[p], ns[N - 3][p], ns[7][p],
                   ns[N - 3][p] / ns[7][p]);
    printf("\nperiod 16 against the same perlin fill without it (%s path): 1 octave %.2fx, with gradients %.2fx; "
           "6 octaves %.2fx, with gradients %.2fx\n",
           noise_simd_name(best), ns[15][b] / ns[7][b], ns[16][b] / ns[8][b], ns[17][b] / ns[9][b], ns[18][b] / ns[10][b]);
    return 0;
}
