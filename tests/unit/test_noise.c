/* test_noise.c: unit tests of the noise core (noise/): the Islands page's
 * claims for 2D Perlin, bit-exactness of improved noise with Ken Perlin's
 * reference, hash and lattice rules of docs/field.md, ranges, far-from-origin
 * behaviour and grid/point agreement.
 *
 * Gradients, goldens and the parameter parser are in test_noise_grad.c,
 * test_noise_golden.c and test_noise_spec.c.
 */
#include "noise.h"
#include "test.h"
#include "test_noise_util.h"
/* internal tables, checked against the formulas they stand for */
#include "noise_kernels.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- an independent transcription of docs/field.md's gradients (the hash:
 * test_noise_util.h) ---- */

static void ref_perlin_gradient(uint32_t h, double g[2])
{
    double u = (double)(h & 255) / 255.0 * 2.0 - 1.0;
    double gy = 0.5 - fabs(u);
    double gx = u - floor(u + 0.5);
    g[0] = gx * (2 / 0.53528);
    g[1] = gy * (2 / 0.53528);
}

/* Value noise on a lattice point is that point's value; Perlin noise there
 * is exactly 0 and its gradient is the corner's gradient, for many seeds,
 * negative indices and indices beyond the int32 range (64-bit rule). */
static void test_lattice_points(void)
{
    static const int64_t far[] = { 0, 1, -1, 7, -123456, 2147483647LL, -2147483648LL, 2147483648LL,
                                   -2147483649LL, 3000000000LL, -5000000000LL, 1000000000000LL };
    int bad_zero = 0, bad_grad = 0, bad_value = 0, n = 0;
    uint64_t rng = 12345;
    for (uint32_t seed = 0; seed < 64; seed++) {
        for (int k = 0; k < 60; k++) {
            int64_t i, j;
            if (k < 12 * 4) {
                i = far[k % 12] + (k / 12);
                j = far[(k * 5 + 3) % 12] - (k / 12);
            } else {
                i = (int64_t)(tn_rand(&rng) % 2001) - 1000;
                j = (int64_t)(tn_rand(&rng) % 2001) - 1000;
            }
            double p[2] = { (double)i, (double)j }, g[3];
            noise_spec s;
            noise_spec_default(&s, NOISE_PERLIN, seed);
            double v = noise_eval_point(&s, p, 2, g, NULL);
            double ge[2];
            ref_perlin_gradient(ref_hash2(seed, i, j), ge);
            if (v != 0.0)
                bad_zero++;
            if (g[0] != ge[0] || g[1] != ge[1])
                bad_grad++;
            noise_spec_default(&s, NOISE_VALUE, seed);
            v = noise_eval_point(&s, p, 2, g, NULL);
            double ve = (double)(ref_hash2(seed, i, j) & 255) / 255.0 * 2.0 - 1.0;
            if (v != ve || g[0] != 0.0 || g[1] != 0.0)
                bad_value++;
            n++;
        }
    }
    CHECKF(bad_zero == 0, "%d of %d lattice points not exactly 0", bad_zero, n);
    CHECKF(bad_grad == 0, "%d of %d lattice gradients differ from the corner's", bad_grad, n);
    CHECKF(bad_value == 0, "%d of %d value-noise lattice points differ", bad_value, n);
}

/* Statistics over seeds 0-3 on a 40 x 40-cell region, 16 samples per cell
 * per axis (640 x 640 per seed), as the Islands page measured them. */
typedef struct {
    double min, max, std, beyond_half;
    long peaks;
    double nearest_peak; /* distance from a peak to the closest lattice point, cells */
} tn_stats;

static tn_stats region_stats(noise_kind kind)
{
    enum { W = 640 };
    float *v = malloc(sizeof(float) * W * W);
    tn_stats st = { 1e9, -1e9, 0, 0, 0, 1e9 };
    double sum = 0, sum2 = 0;
    long beyond = 0, n = 0;
    for (uint32_t seed = 0; seed < 4; seed++) {
        noise_spec s;
        noise_spec_default(&s, kind, seed);
        noise_eval_grid(&s, 0.0, 0.0, 1.0 / 16, W, W, v, NULL);
        for (int k = 0; k < W * W; k++) {
            double x = v[k];
            st.min = x < st.min ? x : st.min;
            st.max = x > st.max ? x : st.max;
            sum += x;
            sum2 += x * x;
            beyond += fabs(x) > 0.5;
            n++;
        }
        for (int j = 1; j < W - 1; j++)
            for (int i = 1; i < W - 1; i++) {
                float c = v[j * W + i];
                int peak = 1;
                for (int dj = -1; dj <= 1 && peak; dj++)
                    for (int di = -1; di <= 1; di++)
                        if ((di || dj) && !(c > v[(j + dj) * W + i + di])) {
                            peak = 0;
                            break;
                        }
                st.peaks += peak;
                if (peak) {
                    int di = i % 16 < 16 - i % 16 ? i % 16 : 16 - i % 16;
                    int dj = j % 16 < 16 - j % 16 ? j % 16 : 16 - j % 16;
                    double d = sqrt((double)(di * di + dj * dj)) / 16;
                    st.nearest_peak = d < st.nearest_peak ? d : st.nearest_peak;
                }
            }
    }
    double mean = sum / n;
    st.std = sqrt(sum2 / n - mean * mean);
    st.beyond_half = 100.0 * beyond / n;
    free(v);
    return st;
}

static void test_islands_figures(void)
{
    tn_stats p = region_stats(NOISE_PERLIN), v = region_stats(NOISE_VALUE);
    double ratio = (double)p.peaks / (double)v.peaks;
    printf("# perlin: range %.3f..%.3f std %.4f beyond 0.5 %.2f%% peaks %ld, nearest to a lattice point %.3f\n",
           p.min, p.max, p.std, p.beyond_half, p.peaks, p.nearest_peak);
    printf("# value:  range %.3f..%.3f std %.4f beyond 0.5 %.2f%% peaks %ld; peak ratio %.3f\n", v.min, v.max,
           v.std, v.beyond_half, v.peaks, ratio);
    CHECKF(p.min > -1.0 && p.min < -0.90, "perlin min %f (page: -0.97)", p.min);
    CHECKF(p.max < 1.0 && p.max > 0.90, "perlin max %f (page: 0.96)", p.max);
    CHECKF(fabs(p.std - 0.33) <= 0.02, "perlin std %f (page: 0.33)", p.std);
    CHECKF(fabs(v.std - 0.46) <= 0.02, "value std %f (page: 0.46)", v.std);
    CHECKF(fabs(p.beyond_half - 13) <= 2, "perlin beyond 0.5: %f%% (page: 13%%)", p.beyond_half);
    CHECKF(fabs(v.beyond_half - 32) <= 2, "value beyond 0.5: %f%% (page: 32%%)", v.beyond_half);
    CHECKF(ratio >= 2.8 && ratio <= 3.4, "peak ratio %f (page: 3761/1210 = 3.11)", ratio);
    /* no Perlin peak sits on a lattice point (page: the nearest was 0.2
     * cells away); value noise's peaks are on lattice points */
    CHECKF(p.nearest_peak >= 0.15, "a perlin peak %f cells from a lattice point (page: 0.2)", p.nearest_peak);
    CHECKF(v.nearest_peak == 0.0, "value noise: nearest peak %f cells from a lattice point", v.nearest_peak);
}


/* ---- Ken Perlin's Improved Noise (2002): a straight transcription of the
 * Java reference (ImprovedNoise.java), kept here as the oracle ---- */

static const int ref_permutation[256] = {
    151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225, 140, 36, 103, 30, 69, 142, 8, 99, 37,
    240, 21, 10, 23, 190, 6, 148, 247, 120, 234, 75, 0, 26, 197, 62, 94, 252, 219, 203, 117, 35, 11, 32, 57, 177,
    33, 88, 237, 149, 56, 87, 174, 20, 125, 136, 171, 168, 68, 175, 74, 165, 71, 134, 139, 48, 27, 166, 77, 146,
    158, 231, 83, 111, 229, 122, 60, 211, 133, 230, 220, 105, 92, 41, 55, 46, 245, 40, 244, 102, 143, 54, 65, 25,
    63, 161, 1, 216, 80, 73, 209, 76, 132, 187, 208, 89, 18, 169, 200, 196, 135, 130, 116, 188, 159, 86, 164, 100,
    109, 198, 173, 186, 3, 64, 52, 217, 226, 250, 124, 123, 5, 202, 38, 147, 118, 126, 255, 82, 85, 212, 207, 206,
    59, 227, 47, 16, 58, 17, 182, 189, 28, 42, 223, 183, 170, 213, 119, 248, 152, 2, 44, 154, 163, 70, 221, 153,
    101, 155, 167, 43, 172, 9, 129, 22, 39, 253, 19, 98, 108, 110, 79, 113, 224, 232, 178, 185, 112, 104, 218, 246,
    97, 228, 251, 34, 242, 193, 238, 210, 144, 12, 191, 179, 162, 241, 81, 51, 145, 235, 249, 14, 239, 107, 49, 192,
    214, 31, 181, 199, 106, 157, 184, 84, 204, 176, 115, 121, 50, 45, 127, 4, 150, 254, 138, 236, 205, 93, 222, 114,
    67, 29, 24, 72, 243, 141, 128, 195, 78, 66, 215, 61, 156, 180
};
static int ref_p[512];

static double ref_fade(double t) { return t * t * t * (t * (t * 6 - 15) + 10); }
static double ref_lerp(double t, double a, double b) { return a + t * (b - a); }
static double ref_grad(int hash, double x, double y, double z)
{
    int h = hash & 15;
    double u = h < 8 ? x : y, v = h < 4 ? y : h == 12 || h == 14 ? x : z;
    return ((h & 1) == 0 ? u : -u) + ((h & 2) == 0 ? v : -v);
}

static double ref_noise(double x, double y, double z)
{
    int X = (int)floor(x) & 255, Y = (int)floor(y) & 255, Z = (int)floor(z) & 255;
    x -= floor(x);
    y -= floor(y);
    z -= floor(z);
    double u = ref_fade(x), v = ref_fade(y), w = ref_fade(z);
    int A = ref_p[X] + Y, AA = ref_p[A] + Z, AB = ref_p[A + 1] + Z;
    int B = ref_p[X + 1] + Y, BA = ref_p[B] + Z, BB = ref_p[B + 1] + Z;
    return ref_lerp(w, ref_lerp(v, ref_lerp(u, ref_grad(ref_p[AA], x, y, z), ref_grad(ref_p[BA], x - 1, y, z)),
                                ref_lerp(u, ref_grad(ref_p[AB], x, y - 1, z), ref_grad(ref_p[BB], x - 1, y - 1, z))),
                    ref_lerp(v, ref_lerp(u, ref_grad(ref_p[AA + 1], x, y, z - 1), ref_grad(ref_p[BA + 1], x - 1, y, z - 1)),
                             ref_lerp(u, ref_grad(ref_p[AB + 1], x, y - 1, z - 1),
                                      ref_grad(ref_p[BB + 1], x - 1, y - 1, z - 1))));
}

static void ref_init(void)
{
    for (int i = 0; i < 256; i++)
        ref_p[256 + i] = ref_p[i] = ref_permutation[i];
}

static void test_improved_reference(void)
{
    ref_init();
    noise_spec s;
    noise_spec_default(&s, NOISE_IMPROVED, 0);
    s.has_t = 1;
    s.t = 7;
    double p[3] = { 3.14, 42, 7 };
    double v = noise_eval_point(&s, p, 2, NULL, NULL);
    CHECKF(v == 0.13691995878400012, "noise(3.14, 42, 7) = %.17g", v);
    CHECKF(ref_noise(3.14, 42, 7) == 0.13691995878400012, "the transcription gives %.17g", ref_noise(3.14, 42, 7));
    /* thousands of random points, negatives included, bit for bit: 3D via
     * dims 3 and via has_t, and the z = 0 slice without t */
    uint64_t rng = 99;
    int bad3 = 0, badt = 0, bad2 = 0, n = 5000;
    noise_spec s2;
    noise_spec_default(&s2, NOISE_IMPROVED, 0);
    for (int i = 0; i < n; i++) {
        double range = i < n / 2 ? 10.0 : 100000.0;
        double q[3] = { tn_uniform(&rng, -range, range), tn_uniform(&rng, -range, range),
                        tn_uniform(&rng, -range, range) };
        if (i % 10 == 0)
            q[0] = floor(q[0]); /* on a cell border */
        double want = ref_noise(q[0], q[1], q[2]);
        bad3 += noise_eval_point(&s2, q, 3, NULL, NULL) != want;
        s.t = q[2];
        badt += noise_eval_point(&s, q, 2, NULL, NULL) != want;
        bad2 += noise_eval_point(&s2, q, 2, NULL, NULL) != ref_noise(q[0], q[1], 0.0);
    }
    CHECKF(bad3 == 0, "%d of %d points differ from the reference (dims 3)", bad3, n);
    CHECKF(badt == 0, "%d of %d points differ from the reference (has_t)", badt, n);
    CHECKF(bad2 == 0, "%d of %d points differ from the reference's z = 0 slice", bad2, n);
}

/* Other seeds: a shuffled permutation (deterministic, different per seed);
 * without t the field repeats every 256 cells, like the reference. */
static void test_improved_seeds(void)
{
    ref_init();
    noise_spec a, b, c;
    noise_spec_default(&a, NOISE_IMPROVED, 1);
    noise_spec_default(&b, NOISE_IMPROVED, 2);
    noise_spec_default(&c, NOISE_IMPROVED, 1);
    uint64_t rng = 5;
    int same_ab = 0, diff_ac = 0, same_ref = 0, not_periodic = 0, n = 500;
    for (int i = 0; i < n; i++) {
        double q[3] = { tn_uniform(&rng, -300, 300), tn_uniform(&rng, -300, 300), tn_uniform(&rng, -300, 300) };
        double va = noise_eval_point(&a, q, 3, NULL, NULL);
        same_ab += va == noise_eval_point(&b, q, 3, NULL, NULL);
        diff_ac += va != noise_eval_point(&c, q, 3, NULL, NULL);
        same_ref += va == ref_noise(q[0], q[1], q[2]);
        /* coordinates on a 2^-10 grid, so that shifting them is exact */
        q[0] = floor(q[0] * 1024) / 1024;
        q[1] = floor(q[1] * 1024) / 1024;
        double q2[2] = { q[0] + 256, q[1] - 512 };
        not_periodic += noise_eval_point(&a, q, 2, NULL, NULL) != noise_eval_point(&a, q2, 2, NULL, NULL);
    }
    CHECKF(same_ab < n / 50, "seeds 1 and 2 agree at %d of %d points", same_ab, n);
    CHECKF(same_ref < n / 50, "seed 1 agrees with seed 0 at %d of %d points", same_ref, n);
    CHECKF(diff_ac == 0, "seed 1 is not deterministic (%d differences)", diff_ac);
    CHECKF(not_periodic == 0, "improved without t does not repeat every 256 cells (%d)", not_periodic);
}

/* The constant tables equal the formulas of docs/field.md, computed at run time. */
static void test_tables(void)
{
    int bad = 0;
    for (int b = 0; b < 256; b++) {
        double u = (double)b / 255.0 * 2.0 - 1.0;
        double gx = u - floor(u + 0.5), gy = 0.5 - fabs(u);
        double inv = 1.0 / sqrt(gx * gx + gy * gy);
        bad += nl_value_table[b] != u;
        bad += nl_diamond_table[b][0] != gx || nl_diamond_table[b][1] != gy;
        bad += nl_perlin2_table[b][0] != gx * (2 / 0.53528) || nl_perlin2_table[b][1] != gy * (2 / 0.53528);
        bad += nk_simplex2_table[b][0] != gx * inv || nk_simplex2_table[b][1] != gy * inv;
        /* the vector paths' divide-free b / 255 (noise_vec.h, nv_div255),
         * lane arithmetic written out in doubles */
        double q0 = (double)b * (1.0 / 255.0), r = ((double)b - q0 * 256.0) + q0;
        bad += q0 + r * (1.0 / 255.0) != (double)b / 255.0;
    }
    CHECKF(bad == 0, "%d table entries differ", bad);
    CHECK(NK_SIMPLEX2_SCALE == 5.832 / sqrt(2.0));
    CHECK(NK_SIMPLEX3_SCALE == 1024 / (125 * sqrt(3.0)));
    CHECK(NK_SIMPLEX_K2 == 1 / sqrt(3.0) && NK_SIMPLEX_F2 == (sqrt(3.0) - 1) / 2 && NK_SIMPLEX_G2 == (3 - sqrt(3.0)) / 6);
    CHECK(NL_PERLIN3_SCALE == 1 / 0.56290);
}

/* ---- ranges ---- */

/* Acceptance 4: every value of every kind and mode lies in [-1, 1]. */
static void test_ranges(void)
{
    enum { N = 40000 };
    static double pts[2 * N], vals[N];
    int bad = 0, configs = 0;
    for (int b = 0; b < TN_N_BASES; b++)
        for (int d3 = 0; d3 < 2; d3++)
            for (int fr = 0; fr < NOISE_FRACTAL_COUNT; fr++)
                for (int w = 0; w < 2; w++)
                    for (int oct = 1; oct <= 5; oct += 4) {
                        noise_spec s;
                        noise_spec_default(&s, tn_bases[b].kind, 17 + (uint32_t)b);
                        tn_apply(&s, b);
                        s.fractal = (noise_fractal)fr;
                        s.octaves = oct;
                        s.warp = w ? 0.8 : 0;
                        s.has_t = d3;
                        uint64_t rng = (uint64_t)(b * 1000 + d3 * 100 + fr * 10 + w + oct * 7);
                        double lo = 1, hi = -1;
                        for (int i = 0; i < N; i++) {
                            pts[2 * i] = tn_uniform(&rng, -1000, 1000);
                            pts[2 * i + 1] = tn_uniform(&rng, -1000, 1000);
                        }
                        s.t = tn_uniform(&rng, -100, 100);
                        noise_eval_points(&s, N, pts, 2, vals, NULL);
                        for (int i = 0; i < N; i++) {
                            lo = vals[i] < lo ? vals[i] : lo;
                            hi = vals[i] > hi ? vals[i] : hi;
                        }
                        configs++;
                        if (!(lo >= -1.0 && hi <= 1.0)) {
                            bad++;
                            fprintf(stderr, "  %s %s %s warp %d octaves %d: %f..%f\n", tn_bases[b].name,
                                    d3 ? "3D" : "2D", tn_fractal_names[fr], w, oct, lo, hi);
                        }
                        if (fr == 0 && !w && oct == 1)
                            printf("# %-16s %s range %.4f..%.4f\n", tn_bases[b].name, d3 ? "3D" : "2D", lo, hi);
                    }
    CHECKF(bad == 0, "%d of %d configurations leave [-1, 1]", bad, configs);
}

/* ---- far from the origin ---- */

/* At 1e9 and 1e12 cells, samples 1/64 cell apart are distinct and their
 * differences follow the gradient (trapezoid rule, 5 % of a step's change
 * at the steepest gradient). At 1e12 a double only resolves 2^-12 of a
 * cell, and the triangle lattice's position scaling rounds to about that,
 * so differences there carry that much jitter. The samples sit half a step
 * off the lattice lines: improved noise is exactly 0 along some of them
 * (in the z = 0 slice, corners with the gradients x +- z contribute 0). */
static void test_far_smooth(void)
{
    static const double origins[] = { 1e9, -1e9, 1e12, -1e12 };
    for (int b = 0; b < TN_N_BASES; b++)
        for (int o = 0; o < 4 && !TN_CREASED(tn_bases[b].kind); o++) {
            /* (cellular's creases break the trapezoid rule; its exactness far
             * out is checked against brute force in test_noise_cellular.c) */
            noise_spec s;
            noise_spec_default(&s, tn_bases[b].kind, 3);
            tn_apply(&s, b);
            enum { N = 257 };
            double v[N], g[N], gn[N];
            int distinct_bad = 0, smooth_bad = 0;
            double y = origins[o] * 0.5 + 0.3;
            for (int i = 0; i < N; i++) {
                double p[2] = { origins[o] + i / 64.0 + 1 / 128.0, y }, gr[3];
                v[i] = noise_eval_point(&s, p, 2, gr, NULL);
                g[i] = gr[0];
                gn[i] = hypot(gr[0], gr[1]);
            }
            for (int i = 0; i + 1 < N; i++) {
                double dv = v[i + 1] - v[i], trap = (g[i] + g[i + 1]) * 0.5 / 64.0;
                double gm = fmax(fmax(gn[i], gn[i + 1]), 0.1);
                if (fabs(dv - trap) > 0.05 * gm / 64.0)
                    smooth_bad++;
                for (int j = 0; j < i + 1; j++)
                    distinct_bad += v[j] == v[i + 1];
            }
            CHECKF(distinct_bad == 0, "%s at %g: %d equal pairs among %d samples", tn_bases[b].name, origins[o],
                   distinct_bad, N);
            CHECKF(smooth_bad == 0, "%s at %g: %d steps disagree with the gradient", tn_bases[b].name, origins[o],
                   smooth_bad);
        }
}

/* No period of 2^16, 2^23 or 2^32 cells. Improved noise repeats every 256
 * cells in x and y, with or without t, exactly as the reference does (its
 * permutation table has 256 entries), so there the values must be equal. */
static void test_no_period(void)
{
    static const double periods[] = { 65536.0, 8388608.0, 4294967296.0 };
    for (int b = 0; b < TN_N_BASES; b++)
        for (int d3 = 0; d3 < 2; d3++)
            for (int pi = 0; pi < 3; pi++) {
                noise_spec s;
                noise_spec_default(&s, tn_bases[b].kind, 11);
                tn_apply(&s, b);
                s.has_t = d3;
                s.t = 0.4;
                uint64_t rng = 77 + (uint64_t)pi;
                int equal_x = 0, equal_y = 0, n = 200;
                for (int i = 0; i < n; i++) {
                    /* on a 2^-10 grid: p + period is exact */
                    double p[2] = { floor(tn_uniform(&rng, -50, 50) * 1024) / 1024,
                                    floor(tn_uniform(&rng, -50, 50) * 1024) / 1024 };
                    double px[2] = { p[0] + periods[pi], p[1] }, py[2] = { p[0], p[1] - periods[pi] };
                    double v = noise_eval_point(&s, p, 2, NULL, NULL);
                    equal_x += v == noise_eval_point(&s, px, 2, NULL, NULL);
                    equal_y += v == noise_eval_point(&s, py, 2, NULL, NULL);
                }
                if (tn_bases[b].kind == NOISE_IMPROVED) {
                    CHECKF(equal_x == n && equal_y == n, "improved should repeat every 256 cells: %d %d", equal_x,
                           equal_y);
                } else {
                    CHECKF(equal_x == 0 && equal_y == 0, "%s %s repeats with period %.0f: %d, %d of %d equal",
                           tn_bases[b].name, d3 ? "3D" : "2D", periods[pi], equal_x, equal_y, n);
                }
            }
}

/* ---- a grid in bands of rows ---- */

/* noise_field_grid_rows: any split of a grid into bands of rows gives the
 * whole grid's rows bit for bit (values and gradients), for every base, at
 * one octave (each kind's direct-to-float loops: square rows sharing a
 * tile's columns, triangle chains, cellular bands, which start over at a
 * band's first row) and three, at 16 samples a cell down to 2.7 a sample,
 * decreasing rows (negative step), far out, and periodic (period 16).
 * Rows 150 wide cross the row loops' 128-sample chunks. */
static void test_grid_rows(void)
{
    enum { W = 150, H = 40 };
    static const double places[][3] = { { -3.0 + 1.0 / 32, -2.0 + 1.0 / 32, 1.0 / 16 },
                                         { 12.25, -7.75, 0.37 },
                                         { -1e6, 2e6, 0.95 },
                                         { 40.0, 1.5, -0.3 },
                                         { 0.5, 0.5, 1.0 / 7 } };
    static const int cuts[][5] = { { 0, 1, 9, 25, H }, { 0, 16, 17, 39, H }, { 0, 3, 20, 21, H } };
    static float whole[W * H], wg[2 * W * H], part[W * H], pg[2 * W * H];
    int configs = 0, bad_configs = 0;
    for (int b = 0; b < TN_N_BASES; b++)
        for (int pl = 0; pl < 5; pl++)
            for (int oct = 1; oct <= 3; oct += 2)
                for (int grad = 0; grad < 2; grad++) {
                    noise_spec s;
                    noise_spec_default(&s, tn_bases[b].kind, 11 + (uint32_t)pl);
                    tn_apply(&s, b);
                    s.octaves = oct;
                    /* periodic where the field has a period (not simplex,
                     * not the triangle lattice, not angle gradients) */
                    if (pl == 4 && s.kind != NOISE_SIMPLEX && s.lattice == NOISE_SQUARE &&
                        s.gradients == NOISE_GRADIENTS_TABLE)
                        s.period = 16;
                    noise_field *f = noise_field_create(&s);
                    CHECK(f != NULL);
                    if (f == NULL)
                        return;
                    const double *P = places[pl];
                    noise_field_grid(f, P[0], P[1], P[2], W, H, whole, grad ? wg : NULL);
                    int bad = 0;
                    for (int c = 0; c < 3; c++)
                        for (int k = 0; k < 4; k++) {
                            int r0 = cuts[c][k], n = cuts[c][k + 1] - r0;
                            memset(part, 0xA5, sizeof part);
                            memset(pg, 0xA5, sizeof pg);
                            noise_field_grid_rows(f, P[0], P[1], P[2], W, r0, n, part, grad ? pg : NULL);
                            bad += memcmp(part, whole + (size_t)r0 * W, sizeof(float) * W * (size_t)n) != 0;
                            if (grad)
                                bad += memcmp(pg, wg + 2 * (size_t)r0 * W, 2 * sizeof(float) * W * (size_t)n) != 0;
                            /* nothing past the band */
                            bad += ((const unsigned char *)part)[sizeof(float) * W * (size_t)n] != 0xA5;
                        }
                    noise_field_destroy(f);
                    configs++;
                    if (bad && bad_configs++ < 8)
                        fprintf(stderr, "  %s place %d, %d octaves%s: %d bands differ from the whole grid\n",
                                tn_bases[b].name, pl, oct, grad ? ", gradients" : "", bad);
                }
    /* a first row below 0, or rows past INT_MAX: nothing written */
    noise_spec s;
    noise_spec_default(&s, NOISE_PERLIN, 1);
    noise_field *f = noise_field_create(&s);
    CHECK(f != NULL);
    if (f == NULL)
        return;
    memset(part, 0xA5, sizeof part);
    noise_field_grid_rows(f, 0.0, 0.0, 0.1, W, -1, 2, part, NULL);
    noise_field_grid_rows(f, 0.0, 0.0, 0.1, W, 2147483647, 2, part, NULL);
    CHECK(((const unsigned char *)part)[0] == 0xA5 && ((const unsigned char *)part)[sizeof part - 1] == 0xA5);
    noise_field_destroy(f);
    printf("# grid rows: %d configurations\n", configs);
    CHECKF(bad_configs == 0, "%d of %d configurations: bands of rows differ from the whole grid", bad_configs,
           configs);
}

/* ---- grid and batch against the point path ---- */

static void test_grid_equals_point(void)
{
    /* k: octaves 1 + k (k < 4), or one octave at frequency 0.8 and 3 (the
     * grid's direct-to-float path with a gradient scale) */
    static const double steps[] = { 1.0 / 16, 0.37, 1.0, 0.5, 0.37, 1.0 / 16 };
    static const double origins[][2] = { { -3.0, -2.0 }, { 12.25, -7.75 }, { -1e6, 2e6 },
                                          { 0.0, 0.0 },  { 12.25, -7.75 }, { -1e6, -2e6 } };
    static const double freqs[] = { 1.0, 1.0, 1.0, 0.8, 0.8, 3.0 };
    int configs = 0, bad_configs = 0;
    enum { W = 19, H = 7 };
    for (int b = 0; b < TN_N_BASES; b++)
        for (int d3 = 0; d3 < 2; d3++)
            for (int fr = 0; fr < NOISE_FRACTAL_COUNT; fr++)
                for (int w = 0; w < 2; w++)
                    for (int k = 0; k < 6; k++) {
                        noise_spec s;
                        noise_spec_default(&s, tn_bases[b].kind, 5 + (uint32_t)k);
                        tn_apply(&s, b);
                        s.fractal = (noise_fractal)fr;
                        s.octaves = k < 4 ? 1 + k : 1;
                        s.warp = w ? 0.6 : 0;
                        s.has_t = d3;
                        s.t = -1.5;
                        s.frequency = freqs[k];
                        float gv[W * H], gg[2 * W * H], vo[W * H];
                        noise_eval_grid(&s, origins[k][0], origins[k][1], steps[k], W, H, gv, gg);
                        noise_eval_grid(&s, origins[k][0], origins[k][1], steps[k], W, H, vo, NULL);
                        int bad = 0;
                        double pts[2 * W * H], bv[W * H], bg[3 * W * H];
                        for (int j = 0; j < H; j++)
                            for (int i = 0; i < W; i++) {
                                double p[2] = { origins[k][0] + i * steps[k], origins[k][1] + j * steps[k] }, g[3];
                                double v = noise_eval_point(&s, p, 2, g, NULL);
                                int n = j * W + i;
                                pts[2 * n] = p[0];
                                pts[2 * n + 1] = p[1];
                                if (gv[n] != (float)v || vo[n] != (float)v || gg[2 * n] != (float)g[0] ||
                                    gg[2 * n + 1] != (float)g[1])
                                    bad++;
                            }
                        noise_eval_points(&s, W * H, pts, 2, bv, bg);
                        int gn = d3 ? 3 : 2;
                        for (int n = 0; n < W * H; n++) {
                            double g[3];
                            double v = noise_eval_point(&s, &pts[2 * n], 2, g, NULL);
                            if (bv[n] != v || bg[gn * n] != g[0] || bg[gn * n + 1] != g[1] ||
                                (d3 && bg[gn * n + 2] != g[2]))
                                bad++;
                        }
                        configs++;
                        if (bad) {
                            bad_configs++;
                            fprintf(stderr, "  %s %s %s warp %d octaves %d: %d mismatches\n", tn_bases[b].name,
                                    d3 ? "3D" : "2D", tn_fractal_names[fr], w, s.octaves, bad);
                        }
                    }
    CHECKF(bad_configs == 0, "%d of %d configurations: grid or batch differs from point", bad_configs, configs);
}

/* Coordinates a caller might send: huge, infinite, NaN. The core must not
 * hit undefined behaviour (this runs under UBSan) and must still answer
 * with a value in [-1, 1] and a finite gradient. */
static void test_extreme_coordinates(void)
{
    static const double xs[] = { 1e300, -1e300, 9.3e18, -9.3e18, 4.6e18, 1.8e19, 4503599627370497.0,
                                 -4503599627370497.5, 1e-320, -0.0, INFINITY, -INFINITY, NAN };
    int bad = 0;
    for (int b = 0; b < TN_N_BASES; b++)
        for (int d3 = 0; d3 < 2; d3++)
            for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
                noise_spec s;
                noise_spec_default(&s, tn_bases[b].kind, 1);
                tn_apply(&s, b);
                s.has_t = d3;
                s.t = xs[(i + 3) % (sizeof xs / sizeof xs[0])];
                s.octaves = 3;
                s.fractal = (noise_fractal)(i % 3);
                s.warp = i % 2 ? 2.0 : 0;
                double p[2] = { xs[i], 0.5 }, g[3] = { 0, 0, 0 };
                double v = noise_eval_point(&s, p, 2, g, NULL);
                if (!(v >= -1 && v <= 1) || !isfinite(g[0]) || !isfinite(g[1]) || (d3 && !isfinite(g[2])))
                    bad++;
                float gv[3], gg[6];
                noise_eval_grid(&s, xs[i], xs[i], 1.0, 3, 1, gv, gg);
                for (int k = 0; k < 3; k++)
                    if (!(gv[k] >= -1 && gv[k] <= 1))
                        bad++;
            }
    CHECKF(bad == 0, "%d non-finite or out-of-range answers", bad);
}

/* dims 3 with a point's t equals has_t with the spec's t. */
static void test_dims3_equals_has_t(void)
{
    uint64_t rng = 4;
    int bad = 0;
    for (int b = 0; b < TN_N_BASES; b++)
        for (int i = 0; i < 50; i++) {
            noise_spec s, st;
            noise_spec_default(&s, tn_bases[b].kind, 9);
            tn_apply(&s, b);
            s.octaves = 3;
            s.warp = i % 2 ? 0.5 : 0;
            st = s;
            double p[3] = { tn_uniform(&rng, -20, 20), tn_uniform(&rng, -20, 20), tn_uniform(&rng, -20, 20) };
            st.has_t = 1;
            st.t = p[2];
            double g1[3], g2[3];
            int n1 = 0, n2 = 0;
            double v1 = noise_eval_point(&s, p, 3, g1, &n1), v2 = noise_eval_point(&st, p, 2, g2, &n2);
            double pts3[3] = { p[0], p[1], p[2] }, v3, g3[3];
            noise_eval_points(&s, 1, pts3, 3, &v3, g3);
            if (v1 != v2 || v1 != v3 || n1 != 3 || n2 != 3 || memcmp(g1, g2, sizeof g1) || memcmp(g1, g3, sizeof g1))
                bad++;
        }
    CHECKF(bad == 0, "%d points differ between dims 3 and has_t", bad);
}

/* ---- instruction-set paths and prepared fields ---- */

/* One field's grids (values and gradients, values alone; and two rows
 * longer than a row chunk, going on where the vector doesn't), a 2D batch,
 * a 3D batch and single points, at the given place and scale. */
typedef struct {
    float gv[37 * 5], gg[2 * 37 * 5], go[37 * 5], wv[301 * 2], wg[2 * 301 * 2];
    double bv[64], bg[3 * 64], tv[64], tg[3 * 64], pv[4], pg[4][3];
} path_out;

static void path_eval(const noise_spec *s, double x0, double y0, double step, void *out)
{
    path_out *o = out;
    memset(o, 0, sizeof *o);
    noise_eval_grid(s, x0, y0, step, 37, 5, o->gv, o->gg);
    noise_eval_grid(s, x0, y0, step, 37, 5, o->go, NULL);
    noise_eval_grid(s, x0, y0, step * 0.25, 301, 2, o->wv, o->wg);
    double p2[2 * 64], p3[3 * 64];
    tn_scatter(x0, y0, step, 64, p2, p3);
    noise_eval_points(s, 64, p2, 2, o->bv, o->bg);
    noise_eval_points(s, 64, p3, 3, o->tv, o->tg);
    for (int i = 0; i < 4; i++)
        o->pv[i] = noise_eval_point(s, &p2[2 * i], 2, o->pg[i], NULL);
}

/* Every vector path gives the scalar path's bytes: every kind and lattice,
 * 2D and 3D, every fractal mode, with and without warp, big and small
 * cells, one and six octaves, near the origin, far out and beyond the int32
 * lattice range (where the vector paths hand lanes to the scalar kernel). */
static const double path_places[][3] = {
    { -3.3, 2.1, 1.0 / 16 },  { 12.25, -7.75, 0.37 }, { -1e6, 2e6, 1.3 },
    { 2147483600.0, -2147483620.0, 0.9 }, { 3e9, -5e9, 1.0 / 16 }, { -1e12, 1e12, 0.21 },
};
/* configuration c: base b, 2D or 3D, fractal fr, warp w, place pl (the
 * last varying fastest) */
enum { PATH_PLACES = 6, PATH_CONFIGS = TN_N_BASES * 2 * NOISE_FRACTAL_COUNT * 2 * PATH_PLACES };
#define PATH_PL(c) ((c) % PATH_PLACES)
#define PATH_W(c) ((c) / PATH_PLACES % 2)
#define PATH_FR(c) ((c) / (PATH_PLACES * 2) % NOISE_FRACTAL_COUNT)
#define PATH_D3(c) ((c) / (PATH_PLACES * 2 * NOISE_FRACTAL_COUNT) % 2)
#define PATH_B(c) ((c) / (PATH_PLACES * 2 * NOISE_FRACTAL_COUNT * 2))

static void path_config(int c, noise_spec *s, const double **place)
{
    int b = PATH_B(c), pl = PATH_PL(c);
    noise_spec_default(s, tn_bases[b].kind, 77 + (uint32_t)pl);
    tn_apply(s, b);
    s->fractal = (noise_fractal)PATH_FR(c);
    s->octaves = pl % 2 ? 6 : 1;
    s->warp = PATH_W(c) ? 0.8 : 0;
    s->has_t = PATH_D3(c);
    s->t = 0.3;
    s->frequency = pl == 1 ? 0.7 : 1.0;
    *place = path_places[pl];
}

static void path_describe(int c, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s %s warp %d place %d", tn_bases[PATH_B(c)].name, PATH_D3(c) ? "3D" : "2D",
             tn_fractal_names[PATH_FR(c)], PATH_W(c), PATH_PL(c));
}

static void test_paths_agree(void)
{
    int configs;
    int bad_configs = tn_paths_agree(PATH_CONFIGS, path_config, path_describe, path_eval, sizeof(path_out),
                                     "configurations", &configs);
    CHECKF(bad_configs == 0, "%d of %d configurations differ between paths", bad_configs, configs);
}

/* 2D batches on every vector path give the scalar path's bytes, with and
 * without gradients, at every length around the vector width (the last
 * points of a batch run as a vector whose spare lanes repeat the last
 * point), for every base, one and three octaves, improved noise with seeds
 * 0 and 1: points on lattice lines and corners (integers, halves, -0: where
 * improved noise's z = 0 slice must compute its z + 1 corners), and a few
 * beyond the int32 lattice among ordinary ones (the scalar kernel for those
 * vectors only). */
static void test_batch_paths_agree(void)
{
    enum { N = 83 };
    static const int lens[] = { 1, 3, 7, 8, 9, 15, 16, 17, N };
    double pts[2 * N];
    for (int i = 0; i < N; i++) {
        double a = (double)((i * 37) % 83) - 41.0, b = (double)((i * 59) % 83) - 41.0;
        switch (i % 6) {
        case 0: pts[2 * i] = a; pts[2 * i + 1] = b; break;                   /* lattice corners */
        case 1: pts[2 * i] = a * 0.5; pts[2 * i + 1] = -0.0; break;           /* halves, -0 */
        case 2: pts[2 * i] = -0.0; pts[2 * i + 1] = b * 0.25; break;
        case 3: pts[2 * i] = a * 0.731; pts[2 * i + 1] = b; break;            /* on a lattice line */
        case 4: pts[2 * i] = a * 13.37 + 0.1; pts[2 * i + 1] = b * 7.91 - 0.3; break;
        default: pts[2 * i] = i == 41 ? 3e9 : a * 0.19; pts[2 * i + 1] = i == 59 ? -1e12 : b * 0.23; break;
        }
    }
    noise_simd best = noise_simd_active();
    int configs = 0, bad = 0;
    static double rv[N], rg[2 * N], gv[N], gg[2 * N];
    for (int p = 1; p < NOISE_SIMD_COUNT; p++) {
        if (!tn_path_run((noise_simd)p, "batch paths agree"))
            continue;
        for (int b = 0; b < TN_N_BASES; b++)
            for (int oct = 1; oct <= 3; oct += 2)
                for (int seed = 0; seed < 2; seed++)
                    for (int l = 0; l < (int)(sizeof lens / sizeof lens[0]); l++)
                        for (int want = 0; want < 2; want++) {
                            noise_spec s;
                            noise_spec_default(&s, tn_bases[b].kind, (uint32_t)seed);
                            tn_apply(&s, b);
                            s.octaves = oct;
                            s.frequency = oct == 3 ? 0.7 : 1.0;
                            int n = lens[l];
                            memset(rv, 0, sizeof rv);
                            memset(rg, 0, sizeof rg);
                            memset(gv, 0, sizeof gv);
                            memset(gg, 0, sizeof gg);
                            noise_simd_set(NOISE_SIMD_SCALAR);
                            noise_eval_points(&s, (size_t)n, pts, 2, rv, want ? rg : NULL);
                            noise_simd_set((noise_simd)p);
                            noise_eval_points(&s, (size_t)n, pts, 2, gv, want ? gg : NULL);
                            configs++;
                            if (memcmp(rv, gv, sizeof rv) != 0 || memcmp(rg, gg, sizeof rg) != 0) {
                                bad++;
                                fprintf(stderr, "  %s: %s, %d octaves, seed %d, %d points%s differ from scalar\n",
                                        noise_simd_name((noise_simd)p), tn_bases[b].name, oct, seed, n,
                                        want ? " with gradients" : "");
                            }
                        }
        printf("# batch paths agree: %s ran against scalar\n", noise_simd_name((noise_simd)p));
    }
    noise_simd_set(best);
    printf("# %d batch configurations compared\n", configs);
    CHECKF(bad == 0, "%d of %d batch configurations differ between paths", bad, configs);
}

/* A prepared field gives the conveniences' numbers bit for bit, for every
 * kind (improved with seeds other than 0 too), warp and dims 3. */
static void test_field_api(void)
{
    int bad = 0;
    for (int b = 0; b < TN_N_BASES; b++)
        for (int m = 0; m < 4; m++) {
            noise_spec s;
            noise_spec_default(&s, tn_bases[b].kind, (uint32_t)(m * 1000003u));
            tn_apply(&s, b);
            s.octaves = 1 + 2 * m;
            s.warp = m % 2 ? 1.25 : 0;
            s.has_t = m == 2;
            s.t = 1.5;
            noise_field *f = noise_field_create(&s);
            CHECK(f != NULL);
            if (!f)
                return;
            CHECK(memcmp(noise_field_spec(f), &s, sizeof s) == 0);
            float a[24 * 3], ag[2 * 24 * 3], c[24 * 3], cg[2 * 24 * 3];
            noise_eval_grid(&s, -5.5, 3.25, 0.3, 24, 3, a, ag);
            noise_field_grid(f, -5.5, 3.25, 0.3, 24, 3, c, cg);
            bad += memcmp(a, c, sizeof a) != 0 || memcmp(ag, cg, sizeof ag) != 0;
            double pts[3 * 10], v1[10], v2[10], g1[30], g2[30];
            for (int i = 0; i < 30; i++)
                pts[i] = (double)((i * 7919) % 97) * 0.37 - 18;
            for (int dims = 2; dims <= 3; dims++) {
                noise_eval_points(&s, 10, pts, dims, v1, g1);
                noise_field_points(f, 10, pts, dims, v2, g2);
                bad += memcmp(v1, v2, sizeof v1) != 0 || memcmp(g1, g2, sizeof(double) * 10 * (dims == 3 || s.has_t ? 3 : 2)) != 0;
                double gp1[3] = { 0, 0, 0 }, gp2[3] = { 0, 0, 0 };
                int n1 = 0, n2 = 0;
                double p1 = noise_eval_point(&s, pts, dims, gp1, &n1), p2 = noise_field_point(f, pts, dims, gp2, &n2);
                bad += p1 != p2 || n1 != n2 || memcmp(gp1, gp2, sizeof gp1) != 0;
            }
            noise_field_destroy(f);
        }
    noise_field_destroy(NULL);
    CHECKF(bad == 0, "%d prepared-field answers differ from the spec-taking calls", bad);
}

static void test_simd_api(void)
{
    CHECK(noise_simd_supported(NOISE_SIMD_SCALAR));
    CHECK(strcmp(noise_simd_name(NOISE_SIMD_SCALAR), "scalar") == 0);
    CHECK(strcmp(noise_simd_name(NOISE_SIMD_AVX2), "avx2") == 0);
    CHECK(strcmp(noise_simd_name(NOISE_SIMD_AVX512), "avx512") == 0);
    CHECK(noise_simd_name(NOISE_SIMD_COUNT) == NULL);
    noise_simd best = noise_simd_active();
    CHECK(noise_simd_supported(best));
    CHECK(noise_simd_set(NOISE_SIMD_COUNT) == NOISE_ERANGE);
    CHECK(noise_simd_active() == best);
    CHECK(noise_simd_set(NOISE_SIMD_SCALAR) == 0 && noise_simd_active() == NOISE_SIMD_SCALAR);
    noise_simd_set(best);
    /* without NOISE_SIMD in the environment the best path is chosen */
    const char *env = getenv("NOISE_SIMD");
    if (!env)
        for (int p = best + 1; p < NOISE_SIMD_COUNT; p++)
            CHECKF(!noise_simd_supported((noise_simd)p), "%s is supported but %s was chosen",
                   noise_simd_name((noise_simd)p), noise_simd_name(best));
    printf("# active path: %s (NOISE_SIMD=%s)\n", noise_simd_name(best), env ? env : "unset");
}

/* Threads share one prepared field. */
typedef struct {
    const noise_field *f;
    float v[64 * 16];
} share_job;

static void *share_run(void *arg)
{
    share_job *j = arg;
    for (int r = 0; r < 20; r++)
        noise_field_grid(j->f, 3.5, -1.25, 0.11, 64, 16, j->v, NULL);
    return NULL;
}

static void test_field_shared_by_threads(void)
{
    noise_spec s;
    noise_spec_default(&s, NOISE_IMPROVED, 99);
    s.octaves = 4;
    s.warp = 0.5;
    noise_field *f = noise_field_create(&s);
    CHECK(f != NULL);
    if (!f)
        return;
    static share_job jobs[3];
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        jobs[i].f = f;
        CHECK(pthread_create(&th[i], NULL, share_run, &jobs[i]) == 0);
    }
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    float want[64 * 16];
    noise_eval_grid(&s, 3.5, -1.25, 0.11, 64, 16, want, NULL);
    for (int i = 0; i < 3; i++)
        CHECK(memcmp(jobs[i].v, want, sizeof want) == 0);
    noise_field_destroy(f);
}

int main(void)
{
    RUN(test_tables);
    RUN(test_simd_api);
    RUN(test_paths_agree);
    RUN(test_batch_paths_agree);
    RUN(test_field_api);
    RUN(test_field_shared_by_threads);
    /* the behaviour suite on every path the CPU has */
    RUN_PATHS(test_lattice_points);
    RUN_PATHS(test_islands_figures);
    RUN_PATHS(test_improved_reference);
    RUN_PATHS(test_improved_seeds);
    RUN_PATHS(test_ranges);
    RUN_PATHS(test_far_smooth);
    RUN_PATHS(test_no_period);
    RUN_PATHS(test_grid_equals_point);
    RUN_PATHS(test_grid_rows);
    RUN_PATHS(test_dims3_equals_has_t);
    RUN_PATHS(test_extreme_coordinates);
    return t_done();
}
