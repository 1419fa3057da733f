/* test_noise_period.c: periodic fields (`period`, noise.h "Periodic fields"):
 * f(x + P, y) = f(x, y + P) = f(x, y), values and gradients, for every kind
 * that takes a period (read from the parameter table), every fractal mode,
 * with and without warp and t, through points, batches and grids, on every
 * instruction-set path; no seam where the period wraps (the gradient agrees
 * with central differences across the border); inside the period the field
 * is the plain one; improved noise with period 256 is Ken Perlin's
 * reference; and golden checksums of periodic fields.
 *
 * The parser's rules for `period` are in test_noise_spec.c.
 */
#include "noise.h"
#include "test.h"
#include "test_noise_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The kinds the parameter table lets take a period. */
static int periodic_kinds(noise_kind out[NOISE_KIND_COUNT])
{
    size_t n_params;
    const noise_param *params = noise_params(&n_params), *period = NULL;
    for (size_t i = 0; i < n_params; i++)
        if (strcmp(params[i].name, "period") == 0)
            period = &params[i];
    int n = 0;
    for (int k = 0; period && k < NOISE_KIND_COUNT; k++)
        if (noise_param_applies(period, (noise_kind)k))
            out[n++] = (noise_kind)k;
    return n;
}

/* value 0.75 x period 8: 6 cells in octave 0, 12, 24 in the next */
#define TP_PERIOD 8.0
#define TP_FREQ 0.75

static void period_spec(noise_spec *s, noise_kind kind, uint32_t seed, noise_fractal fr, int octaves, double warp,
                        int has_t)
{
    noise_spec_default(s, kind, seed);
    s->fractal = fr;
    s->octaves = octaves;
    s->warp = warp;
    s->has_t = has_t;
    s->t = 0.375;
    s->frequency = TP_FREQ;
    s->period = TP_PERIOD;
}

/* |a - b| <= tol (1 + |a|), or both equal bit for bit when tol is 0 */
static int close(double a, double b, double tol)
{
    if (tol == 0)
        return memcmp(&a, &b, sizeof a) == 0;
    return fabs(a - b) <= tol * (1 + fabs(a));
}

enum { TP_N = 160 };

/* Acceptance 4: values and gradients repeat with the period along x and y
 * (and both at once, several periods away, negative too): bit for bit at
 * dyadic points, within 1e-9 with warp; batches 2D and 3D (own t), single
 * points, and grids (floats: bit for bit, with warp within float rounding). */
static void test_repeats(void)
{
    noise_kind kinds[NOISE_KIND_COUNT];
    int n_kinds = periodic_kinds(kinds), configs = 0, bad_configs = 0;
    CHECK(n_kinds >= 3);
    static const double shifts[][2] = { { 1, 0 }, { 0, 1 }, { -3, 2 }, { 17, -40 } };
    static double p[2 * TP_N], q[2 * TP_N], p3[3 * TP_N], q3[3 * TP_N];
    static double v0[TP_N], v1[TP_N], g0[3 * TP_N], g1[3 * TP_N];
    for (int kk = 0; kk < n_kinds; kk++)
        for (int fr = 0; fr < NOISE_FRACTAL_COUNT; fr++)
            for (int oct = 1; oct <= 3; oct += 2)
                for (int w = 0; w < 2; w++)
                    for (int d3 = 0; d3 < 2; d3++) {
                        noise_spec s;
                        period_spec(&s, kinds[kk], 300 + (uint32_t)(fr * 7 + oct), (noise_fractal)fr, oct,
                                    w ? 0.75 : 0, d3);
                        double tol = w ? 1e-9 : 0;
                        uint64_t rng = 4242 + (uint64_t)configs;
                        for (int i = 0; i < TP_N; i++) {
                            /* on a 2^-8 grid, in [-20, 20]: shifts by whole periods are exact; some
                             * points on the period's border itself */
                            double x = floor(tn_uniform(&rng, -20, 20) * 256) / 256;
                            double y = floor(tn_uniform(&rng, -20, 20) * 256) / 256;
                            if (i % 16 == 0)
                                x = TP_PERIOD * (i / 16 - 4);
                            if (i % 16 == 1)
                                y = -TP_PERIOD;
                            p[2 * i] = p3[3 * i] = x;
                            p[2 * i + 1] = p3[3 * i + 1] = y;
                            p3[3 * i + 2] = floor(tn_uniform(&rng, -5, 5) * 64) / 64;
                        }
                        int bad = 0, gn = d3 ? 3 : 2;
                        noise_eval_points(&s, TP_N, p, 2, v0, g0);
                        for (int sh = 0; sh < 4; sh++) {
                            for (int i = 0; i < TP_N; i++) {
                                q[2 * i] = p[2 * i] + shifts[sh][0] * TP_PERIOD;
                                q[2 * i + 1] = p[2 * i + 1] + shifts[sh][1] * TP_PERIOD;
                            }
                            noise_eval_points(&s, TP_N, q, 2, v1, g1);
                            for (int i = 0; i < TP_N; i++) {
                                bad += !close(v0[i], v1[i], tol);
                                for (int c = 0; c < gn; c++)
                                    bad += !close(g0[gn * i + c], g1[gn * i + c], tol);
                            }
                            /* one point at a time (the point path) */
                            for (int i = 0; i < 8; i++) {
                                double ga[3] = { 0, 0, 0 }, gb[3] = { 0, 0, 0 };
                                double va = noise_eval_point(&s, &p[2 * i], 2, ga, NULL);
                                double vb = noise_eval_point(&s, &q[2 * i], 2, gb, NULL);
                                bad += !close(va, vb, tol) || !close(ga[0], gb[0], tol) || !close(ga[1], gb[1], tol) ||
                                       !close(ga[2], gb[2], tol);
                            }
                        }
                        /* 3D points with their own t: t is not periodic, x and y are */
                        noise_eval_points(&s, TP_N, p3, 3, v0, g0);
                        for (int i = 0; i < TP_N; i++) {
                            q3[3 * i] = p3[3 * i] - 2 * TP_PERIOD;
                            q3[3 * i + 1] = p3[3 * i + 1] + 5 * TP_PERIOD;
                            q3[3 * i + 2] = p3[3 * i + 2];
                        }
                        noise_eval_points(&s, TP_N, q3, 3, v1, g1);
                        for (int i = 0; i < TP_N; i++) {
                            bad += !close(v0[i], v1[i], tol);
                            for (int c = 0; c < 3; c++)
                                bad += !close(g0[3 * i + c], g1[3 * i + c], tol);
                        }
                        /* grids: rows through the shared-cell loops */
                        enum { GW = 70, GH = 3 };
                        float fa[GW * GH], fb[GW * GH], fga[2 * GW * GH], fgb[2 * GW * GH];
                        for (int sh = 0; sh < 4; sh++) {
                            double x0 = -3.25, y0 = 5.5, st = 1.0 / 16;
                            noise_eval_grid(&s, x0, y0, st, GW, GH, fa, fga);
                            noise_eval_grid(&s, x0 + shifts[sh][0] * TP_PERIOD, y0 + shifts[sh][1] * TP_PERIOD, st, GW,
                                            GH, fb, fgb);
                            if (!w) {
                                bad += memcmp(fa, fb, sizeof fa) != 0 || memcmp(fga, fgb, sizeof fga) != 0;
                            } else {
                                for (int i = 0; i < GW * GH; i++)
                                    bad += !close(fa[i], fb[i], 1e-6);
                                for (int i = 0; i < 2 * GW * GH; i++)
                                    bad += !close(fga[i], fgb[i], 1e-6);
                            }
                        }
                        configs++;
                        if (bad) {
                            bad_configs++;
                            fprintf(stderr, "  %s %s octaves %d warp %d %s: %d differences\n",
                                    noise_kind_name(kinds[kk]), tn_fractal_names[fr], oct, w, d3 ? "3D" : "2D", bad);
                        }
                    }
    printf("# %d periodic configurations, %d kinds\n", configs, n_kinds);
    CHECKF(bad_configs == 0, "%d of %d configurations do not repeat", bad_configs, configs);
}

/* No seam where the period wraps: across the lines x = mP and y = mP
 * (where the last cell of each octave blends into the first) the analytic
 * gradient equals the central difference, as it does anywhere else; a
 * corner hashed unwrapped there would make a jump of the order of 1. fbm
 * only (turbulence has creases of its own), with and without warp. */
static void test_no_seam(void)
{
    noise_kind kinds[NOISE_KIND_COUNT];
    int n_kinds = periodic_kinds(kinds), bad = 0, n = 0;
    double worst = 0;
    for (int kk = 0; kk < n_kinds; kk++)
        for (int oct = 1; oct <= 4; oct += 3)
            for (int w = 0; w < 2; w++) {
                noise_spec s;
                period_spec(&s, kinds[kk], 77, NOISE_FBM, oct, w ? 0.5 : 0, 0);
                /* classic's linear and cubic fades crease every cell border,
                 * the period's among them: its quintic fade is smooth there */
                s.fade = NOISE_FADE_QUINTIC;
                uint64_t rng = 9 + (uint64_t)kk;
                for (int i = 0; i < 60; i++) {
                    double m = (double)(i % 5) - 2, other = tn_uniform(&rng, -10, 10), h = 1e-6;
                    int axis = i % 2;
                    double pt[2];
                    pt[axis] = m * TP_PERIOD + (i % 3 == 0 ? 0 : i % 3 == 1 ? 2e-6 : -2e-6);
                    pt[1 - axis] = other;
                    double g[3], a[2] = { pt[0], pt[1] }, b[2] = { pt[0], pt[1] };
                    noise_eval_point(&s, pt, 2, g, NULL);
                    a[axis] += h;
                    b[axis] -= h;
                    double fd = (noise_eval_point(&s, a, 2, NULL, NULL) - noise_eval_point(&s, b, 2, NULL, NULL)) / (2 * h);
                    double err = fabs(fd - g[axis]) / (1 + fabs(g[axis]));
                    worst = err > worst ? err : worst;
                    bad += !(err < 1e-4);
                    n++;
                }
            }
    printf("# %d points on the period's borders, worst relative gradient error %.2e\n", n, worst);
    CHECKF(bad == 0, "%d of %d points on a period border disagree with central differences", bad, n);
}

/* The period only wraps the lattice: inside the period, four cells away
 * from its borders (cellular looks that far), a periodic field is the plain
 * field bit for bit (16 cells,
 * one octave, any seed); improved noise with period 256 (and 512) at
 * frequency 1 is the plain field everywhere, so seed 0 is still Ken
 * Perlin's reference. */
static void test_plain_inside(void)
{
    noise_kind kinds[NOISE_KIND_COUNT];
    int n_kinds = periodic_kinds(kinds), bad = 0;
    for (int kk = 0; kk < n_kinds; kk++)
        for (int d3 = 0; d3 < 2; d3++) {
            noise_spec plain, per;
            noise_spec_default(&plain, kinds[kk], 5 + (uint32_t)kk);
            plain.has_t = d3;
            plain.t = -1.5;
            per = plain;
            per.period = 16;
            uint64_t rng = 31;
            for (int i = 0; i < 400; i++) {
                double pt[2] = { tn_uniform(&rng, 4, 12), tn_uniform(&rng, 4, 12) }, ga[3], gb[3];
                double va = noise_eval_point(&plain, pt, 2, ga, NULL), vb = noise_eval_point(&per, pt, 2, gb, NULL);
                bad += va != vb || ga[0] != gb[0] || ga[1] != gb[1] || (d3 && ga[2] != gb[2]);
            }
        }
    CHECKF(bad == 0, "%d points inside the period differ from the plain field", bad);
    /* improved: period 256 and 512 are the plain field (the reference repeats every 256 cells) */
    int bad_imp = 0, differ_128 = 0;
    for (uint32_t seed = 0; seed < 3; seed++) {
        noise_spec plain, p256, p512, p128;
        noise_spec_default(&plain, NOISE_IMPROVED, seed);
        plain.octaves = 1 + (int)seed;
        p256 = p512 = p128 = plain;
        p256.period = 256;
        p512.period = 512;
        p128.period = 128;
        uint64_t rng = 1000 + seed;
        for (int i = 0; i < 2000; i++) {
            double range = i % 2 ? 1e5 : 600;
            double pt[3] = { tn_uniform(&rng, -range, range), tn_uniform(&rng, -range, range), tn_uniform(&rng, -9, 9) };
            if (i % 7 == 0)
                pt[0] = floor(pt[0]);
            for (int dims = 2; dims <= 3; dims++) {
                double g[3] = { 0, 0, 0 }, g2[3] = { 0, 0, 0 }, g3[3] = { 0, 0, 0 };
                double v = noise_eval_point(&plain, pt, dims, g, NULL);
                double v2 = noise_eval_point(&p256, pt, dims, g2, NULL), v3 = noise_eval_point(&p512, pt, dims, g3, NULL);
                bad_imp += v != v2 || v != v3 || memcmp(g, g2, sizeof g) != 0 || memcmp(g, g3, sizeof g) != 0;
                differ_128 += v != noise_eval_point(&p128, pt, dims, NULL, NULL);
            }
        }
    }
    CHECKF(bad_imp == 0, "improved with period 256 or 512 differs from the plain field at %d points", bad_imp);
    /* and a shorter period is a different field (the test can tell) */
    CHECKF(differ_128 > 1000, "improved with period 128 equals the plain field at all but %d points", differ_128);
    /* seed 0, period 256: the reference's noise(3.14, 42, 7) */
    noise_spec s;
    noise_spec_default(&s, NOISE_IMPROVED, 0);
    s.period = 256;
    double ref[3] = { 3.14, 42, 7 };
    CHECK(noise_eval_point(&s, ref, 3, NULL, NULL) == 0.13691995878400012);
}

/* Every vector path gives the scalar path's bytes for periodic fields. */
static void test_paths_agree(void)
{
    noise_kind kinds[NOISE_KIND_COUNT];
    int n_kinds = periodic_kinds(kinds), bad = 0, compared = 0;
    noise_simd best = noise_simd_active();
    enum { W = 61, H = 4, NP = 40 };
    static float ref_v[W * H], ref_g[2 * W * H], got_v[W * H], got_g[2 * W * H];
    static double pts[3 * NP], ref_pv[NP], ref_pg[3 * NP], got_pv[NP], got_pg[3 * NP];
    for (int path = 1; path < NOISE_SIMD_COUNT; path++) {
        if (!tn_path_run((noise_simd)path, "periodic paths agree"))
            continue;
        for (int kk = 0; kk < n_kinds; kk++)
            for (int fr = 0; fr < NOISE_FRACTAL_COUNT; fr++)
                for (int m = 0; m < 4; m++) {
                    noise_spec s;
                    period_spec(&s, kinds[kk], 11 + (uint32_t)m, (noise_fractal)fr, m % 2 ? 4 : 1, m == 3 ? 0.6 : 0,
                                m == 2);
                    /* origins near 0, far out, and beyond the int32 lattice range */
                    double x0 = m == 1 ? -1e6 + 0.3 : m == 2 ? 3e9 : -5.3, y0 = m == 1 ? 2e6 : m == 3 ? -4e9 : 1.7;
                    double st = m == 1 ? 0.9 : 1.0 / 16;
                    for (int i = 0; i < NP; i++) {
                        pts[3 * i] = x0 + (double)((i * 37) % NP) * 0.29;
                        pts[3 * i + 1] = y0 - (double)((i * 11) % NP) * 0.41;
                        pts[3 * i + 2] = (double)i * 0.13 - 2;
                    }
                    for (int pass = 0; pass < 2; pass++) {
                        noise_simd_set(pass ? (noise_simd)path : NOISE_SIMD_SCALAR);
                        float *v = pass ? got_v : ref_v, *g = pass ? got_g : ref_g;
                        double *pv = pass ? got_pv : ref_pv, *pg = pass ? got_pg : ref_pg;
                        noise_eval_grid(&s, x0, y0, st, W, H, v, g);
                        noise_eval_points(&s, NP, pts, 3, pv, pg);
                    }
                    bad += memcmp(ref_v, got_v, sizeof ref_v) != 0 || memcmp(ref_g, got_g, sizeof ref_g) != 0 ||
                           memcmp(ref_pv, got_pv, sizeof ref_pv) != 0 || memcmp(ref_pg, got_pg, sizeof ref_pg) != 0;
                    /* 2D batches too */
                    for (int pass = 0; pass < 2; pass++) {
                        noise_simd_set(pass ? (noise_simd)path : NOISE_SIMD_SCALAR);
                        double p2[2 * NP];
                        for (int i = 0; i < NP; i++) {
                            p2[2 * i] = pts[3 * i];
                            p2[2 * i + 1] = pts[3 * i + 1];
                        }
                        noise_eval_points(&s, NP, p2, 2, pass ? got_pv : ref_pv, pass ? got_pg : ref_pg);
                    }
                    bad += memcmp(ref_pv, got_pv, sizeof ref_pv) != 0 || memcmp(ref_pg, got_pg, sizeof ref_pg) != 0;
                    compared++;
                }
        printf("# periodic paths agree: %s ran against scalar\n", noise_simd_name((noise_simd)path));
    }
    noise_simd_set(best);
    CHECKF(bad == 0, "%d of %d periodic configurations differ between paths", bad, compared);
}

/* The vector paths wrap the lattice indices themselves (value and perlin,
 * and cellular's cells, every distance and return): bit for bit the scalar
 * path's numbers at the wrap's edges:
 * periods of 1, 3, 1000003 and 2^30 cells (the largest), windows that
 * straddle a multiple of the period, and windows next to either end of
 * the int32 lattice range, where the vector code still runs; grids wider
 * than a row chunk (300 samples) with cells shared (step 1/16) and not
 * (step 0.9), 1 and 4 octaves, gradients, and 2D batches of 70 points. */
static void test_wrap_edges(void)
{
    static const noise_kind kinds[] = { NOISE_VALUE, NOISE_PERLIN, NOISE_CELLULAR };
    static const double cells[] = { 1, 3, 1000003, 1073741824.0 };
    enum { W = 300, H = 3, NP = 70 };
    static float rv[W * H], rg[2 * W * H], gv[W * H], gg[2 * W * H];
    static double pts[2 * NP], rpv[NP], rpg[2 * NP], gpv[NP], gpg[2 * NP];
    noise_simd best = noise_simd_active();
    int bad = 0, compared = 0;
    for (int path = 1; path < NOISE_SIMD_COUNT; path++) {
        if (!tn_path_run((noise_simd)path, "wrap edges"))
            continue;
        for (int kk = 0; kk < 3; kk++)
            for (int c = 0; c < 4; c++)
                for (int at = 0; at < 4; at++)
                    for (int oct = 1; oct <= 4; oct += 3) {
                        noise_spec s;
                        noise_spec_default(&s, kinds[kk], 5 + (uint32_t)c);
                        if (kinds[kk] == NOISE_CELLULAR) {
                            s.distance = (noise_cell_distance)((c + at) % NOISE_DISTANCE_COUNT);
                            s.cell_return = (noise_cell_return)((c + 2 * at + oct) % NOISE_RETURN_COUNT);
                            s.jitter = at == 1 ? 0.5 : 1.0;
                        }
                        s.octaves = oct;
                        s.frequency = 1.0;
                        /* octave k has cells * 2^k cells: keep the last within the maximum */
                        s.period = cells[c] == 1073741824.0 && oct > 1 ? cells[c] / 8 : cells[c];
                        double P = s.period;
                        /* around 0, a multiple of the period, and the int32 range's ends */
                        double x0 = at == 0   ? -3.3
                                    : at == 1 ? 7 * P - 2.7
                                    : at == 2 ? -2147483648.0 + 0.4
                                              : 2147483647.0 - 19.5,
                               y0 = at == 3 ? -2147483648.0 + 1.1 : at == 2 ? 2147483600.0 : -P - 0.6;
                        /* the period is in effect: a point and the point a period nearer 0 (the
                         * shift is exact) agree bit for bit */
                        double p1[2] = { x0 + 0.3, y0 + 0.2 }, p2[2] = { x0 + 0.3 + (x0 < 0 ? P : -P), y0 + 0.2 };
                        double g1[2], g2[2];
                        double v1 = noise_eval_point(&s, p1, 2, g1, NULL), v2 = noise_eval_point(&s, p2, 2, g2, NULL);
                        if (memcmp(&v1, &v2, sizeof v1) != 0 || memcmp(g1, g2, sizeof g1) != 0) {
                            fprintf(stderr, "  %s, period %.0f, window %d: does not repeat\n",
                                    noise_kind_name(kinds[kk]), P, at);
                            bad++;
                        }
                        for (int st = 0; st < 2; st++) {
                            double step = st ? 0.9 : 1.0 / 16;
                            for (int i = 0; i < NP; i++) {
                                pts[2 * i] = x0 + (double)((i * 37) % NP) * step * 4;
                                pts[2 * i + 1] = y0 + (double)((i * 11) % NP) * step;
                            }
                            for (int pass = 0; pass < 2; pass++) {
                                noise_simd_set(pass ? (noise_simd)path : NOISE_SIMD_SCALAR);
                                noise_eval_grid(&s, x0, y0, step, W, H, pass ? gv : rv, pass ? gg : rg);
                                noise_eval_points(&s, NP, pts, 2, pass ? gpv : rpv, pass ? gpg : rpg);
                            }
                            int differ = memcmp(rv, gv, sizeof rv) != 0 || memcmp(rg, gg, sizeof rg) != 0 ||
                                         memcmp(rpv, gpv, sizeof rpv) != 0 || memcmp(rpg, gpg, sizeof rpg) != 0;
                            if (differ)
                                fprintf(stderr, "  %s: %s, period %.0f, window %d, %d octaves, step %g differ\n",
                                        noise_simd_name((noise_simd)path), noise_kind_name(kinds[kk]), P, at, oct,
                                        step);
                            bad += differ;
                            compared++;
                        }
                    }
        printf("# wrap edges: %s ran against scalar\n", noise_simd_name((noise_simd)path));
    }
    noise_simd_set(best);
    printf("# %d wrap-edge configurations compared\n", compared);
    CHECKF(bad == 0, "%d of %d wrap-edge configurations differ between paths", bad, compared);
}

/* ---- goldens of periodic fields (as test_noise_golden.c: FNV-1a of a
 * 256 x 256 grid's floats, values and gradients; the same window and
 * frequency 0.75, so periods 4, 8, 16 are 3, 6, 12 cells). New in
 * NOISE_VERSION 1: a change here changes every periodic tile. To
 * regenerate after an intended change, copy the "got" values printed. ---- */

typedef struct {
    const char *name;
    noise_kind kind;
    noise_fractal fractal;
    int octaves;
    double warp;
    int has_t;
    double period;
    uint64_t values, gradients;
} period_golden;

static const period_golden goldens[] = {
    { "value fbm1 P4", NOISE_VALUE, NOISE_FBM, 1, 0, 0, 4,
      0xc1bedcdbf07537c5ull, 0x334002167ea6829full },
    { "value fbm5 P8", NOISE_VALUE, NOISE_FBM, 5, 0, 0, 8,
      0x98b52652e26ef538ull, 0xb8f9db1c3da2856cull },
    { "value ridged4 warp P16", NOISE_VALUE, NOISE_RIDGED, 4, 1.5, 0, 16,
      0xa6487efcaa18b9adull, 0xf3cd430b53d51079ull },
    { "value t2 P4", NOISE_VALUE, NOISE_FBM, 2, 0, 1, 4,
      0x9c61f10cfdbd2250ull, 0x91465f20ccb02d1cull },
    { "perlin fbm1 P4", NOISE_PERLIN, NOISE_FBM, 1, 0, 0, 4,
      0x21f871112b0a6288ull, 0x9f126184f76e3246ull },
    { "perlin fbm5 P8", NOISE_PERLIN, NOISE_FBM, 5, 0, 0, 8,
      0x62cf5a86e3f42a88ull, 0x1b8d99ce76f81eaaull },
    { "perlin turbulence4 warp P16", NOISE_PERLIN, NOISE_TURBULENCE, 4, 1.5, 0, 16,
      0xf98f95d9aa35be2full, 0x795865b0c2e8ff32ull },
    { "perlin t2 P4", NOISE_PERLIN, NOISE_FBM, 2, 0, 1, 4,
      0xb88fd19e6b491a87ull, 0xa19e5db4883b6461ull },
    { "improved fbm1 P4", NOISE_IMPROVED, NOISE_FBM, 1, 0, 0, 4,
      0xdd3d96f70e25309bull, 0x876d37c09901d117ull },
    { "improved fbm5 P8", NOISE_IMPROVED, NOISE_FBM, 5, 0, 0, 8,
      0x1243cb8b8d903d66ull, 0xf40fccef13208a52ull },
    { "improved ridged4 warp P16", NOISE_IMPROVED, NOISE_RIDGED, 4, 1.5, 0, 16,
      0x822a446271fb2a31ull, 0x88ff2b4c1aa06c22ull },
    { "improved t2 P4", NOISE_IMPROVED, NOISE_FBM, 2, 0, 1, 4,
      0xd56b4d6820007fefull, 0xf5ad722b6346cb95ull },
    { "cellular fbm1 P4", NOISE_CELLULAR, NOISE_FBM, 1, 0, 0, 4,
      0xc0e7d7487cfc4f14ull, 0xd171306e6b3ac960ull },
    { "cellular ridged4 warp P16", NOISE_CELLULAR, NOISE_RIDGED, 4, 1.5, 0, 16,
      0xc8fe17b5c5a90106ull, 0x98f16e2d77bc1f63ull },
    { "cellular t2 P4", NOISE_CELLULAR, NOISE_FBM, 2, 0, 1, 4,
      0x6f2007f12d8892f1ull, 0xfa7560e75340814eull },
};
#define N_GOLDENS ((int)(sizeof goldens / sizeof goldens[0]))

static void test_goldens(void)
{
    enum { W = 256 };
    float *v = malloc(sizeof(float) * W * W), *g = malloc(sizeof(float) * 2 * W * W);
    int bad = 0;
    for (int i = 0; i < N_GOLDENS; i++) {
        noise_spec s;
        noise_spec_default(&s, goldens[i].kind, 2024 + (uint32_t)i);
        tn_golden_spec(&s, goldens[i].fractal, goldens[i].octaves, goldens[i].warp, goldens[i].has_t);
        s.period = goldens[i].period;
        uint64_t hv, hg;
        tn_golden_grid(&s, W, v, g, &hv, &hg);
        if (hv != goldens[i].values || hg != goldens[i].gradients) {
            bad++;
            fprintf(stderr, "  %s: got 0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull\n", goldens[i].name, hv, hg);
        }
        printf("# %s: 0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull\n", goldens[i].name, hv, hg);
    }
    CHECKF(bad == 0, "%d of %d periodic golden checksums differ", bad, N_GOLDENS);
    int dup = 0; /* and the checksums tell the fields apart */
    for (int a = 0; a < N_GOLDENS; a++)
        for (int b = a + 1; b < N_GOLDENS; b++)
            dup += goldens[a].values == goldens[b].values;
    CHECKF(dup == 0, "%d pairs of periodic fields share a checksum", dup);
    free(v);
    free(g);
}

int main(void)
{
    RUN(test_paths_agree);
    RUN(test_wrap_edges);
    RUN_PATHS(test_repeats);
    RUN_PATHS(test_no_seam);
    RUN_PATHS(test_plain_inside);
    RUN_PATHS(test_goldens);
    return t_done();
}
