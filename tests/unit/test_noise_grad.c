/* test_noise_grad.c: analytic gradients of the noise core against central
 * finite differences, for every kind x lattice x 2D/3D x fractal mode x
 * warp, at random points near the origin and far from it, and at points
 * exactly on cell borders and on simplex (skewed-diagonal) borders.
 *
 * The difference quotient is the fourth-order central stencil with a step
 * that is a power of two (so x +- h is exact): 2^-20 near the origin, 2^-12
 * far away without warp, 2^-14 far away with warp. The error of a component
 * is |fd - analytic| / max(1, |gradient|), and must be below 1e-4.
 * Far points are at 1e6 and -1e7 cells; with warp they are at +-1e6: the
 * warped coordinate x + warp * w is rounded to the ulp of x (2e-9 at 1e7),
 * which puts noise of about 1e-3 into any difference quotient there (the
 * analytic gradient is not affected; the finite difference is).
 * Turbulence and ridged have creases (|n| at n = 0, the clamp of the ridged
 * weight) and cone points (a lattice point where every octave is 0): a point
 * is skipped when the four one-sided slopes of the stencil do not lie on a
 * smooth curve (a second difference of the slopes above 1e-3 of the
 * gradient near the origin, 1e-2 far away, where smooth variation is larger
 * because the step is), when the stencils of step h and h/2 disagree, or
 * when the second-order one-sided derivatives on the left and on the right
 * differ by 1e-5 near the origin (3e-3 far away) (a crease right at the
 * point, as along the lattice lines where improved noise is 0); a
 * component passes when either stencil agrees with the analytic gradient.
 * fbm, which has no crease, must never be skipped (except cellular, whose
 * one octave has creases where two feature points are equally near; its
 * own gradient test, away from those, is in test_noise_cellular.c).
 */
#include "noise.h"
#include "test.h"
#include "test_noise_util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    long checked, skipped, failed;
    double worst;
} fd_result;

/* Checks every gradient component of the field at p (2 or 3 coordinates:
 * 3 when the spec has t, the third then being the spec's t). creased: the
 * base field has creases on cell borders (tn_base), where its gradient is
 * that of the cell the point lies in: there it must equal the one-sided
 * derivative on the right. */
static void fd_point(const noise_spec *spec, const double *p, int d3, int creased, fd_result *r)
{
    double q[3] = { p[0], p[1], d3 ? p[2] : 0 }, g[3];
    int dims = d3 ? 3 : 2;
    double v0 = noise_eval_point(spec, q, dims, g, NULL);
    double gnorm = sqrt(g[0] * g[0] + g[1] * g[1] + (d3 ? g[2] * g[2] : 0));
    double scale = fmax(1.0, gnorm);
    int far = fabs(p[0]) > 1e5 || fabs(p[1]) > 1e5 || (d3 && fabs(p[2]) > 1e5);
    double h = !far ? 0x1p-20 : spec->warp > 0 ? 0x1p-14 : 0x1p-12;
    double kink_limit = (far ? 1e-2 : 1e-3) * scale;
    for (int a = 0; a < dims; a++) {
        /* f at x + k h/2, k = -4..4 (the odd ones only for the half step) */
        double f[9];
        for (int k = -4; k <= 4; k++) {
            if (k == 0) {
                f[4] = v0;
                continue;
            }
            if (k == -3 || k == 3) {
                f[k + 4] = 0; /* not needed */
                continue;
            }
            double s[3] = { q[0], q[1], q[2] };
            s[a] += k * (h / 2);
            f[k + 4] = noise_eval_point(spec, s, dims, NULL, NULL);
        }
        /* one-sided slopes over the step h and the kink among them */
        double s1 = (f[2] - f[0]) / h, s2 = (f[4] - f[2]) / h, s3 = (f[6] - f[4]) / h, s4 = (f[8] - f[6]) / h;
        double kink = fmax(fabs(s1 - 2 * s2 + s3), fabs(s2 - 2 * s3 + s4));
        double fd1 = (f[0] - 8 * f[2] + 8 * f[6] - f[8]) / (12 * h);
        double fd2 = (f[2] - 8 * f[3] + 8 * f[5] - f[6]) / (6 * h);
        double err = fmin(fabs(fd1 - g[a]), fabs(fd2 - g[a])) / scale;
        if (err < 1e-4) {
            r->checked++;
            r->worst = fmax(r->worst, err);
            continue;
        }
        /* a crease inside the stencil: the slopes are not smooth, or the
         * two step sizes disagree with each other */
        double left = (3 * f[4] - 4 * f[2] + f[0]) / (2 * h), right = (-3 * f[4] + 4 * f[6] - f[8]) / (2 * h);
        if (creased && fabs(right - g[a]) / scale < 1e-4) {
            r->checked++;
            r->worst = fmax(r->worst, fabs(right - g[a]) / scale);
            continue;
        }
        if (kink > kink_limit || fabs(fd1 - fd2) > 0.5e-4 * scale || fabs(left - right) > (far ? 3e-3 : 1e-5) * scale) {
            r->skipped++;
            continue;
        }
        r->checked++;
        r->worst = fmax(r->worst, err);
        if (r->failed < 3)
            fprintf(stderr, "    at (%.17g, %.17g, %.17g) axis %d: analytic %.10g fd %.10g / %.10g\n", q[0], q[1],
                    q[2], a, g[a], fd1, fd2);
        r->failed++;
    }
}

/* Points: random near the origin, random far away (1e6, -1e7), exactly on
 * cell borders (integer coordinates in noise space at every octave, since
 * frequency and lacunarity are powers of two) and on simplex borders. */
static void make_point(uint64_t *rng, int i, int d3, int warp, double p[3])
{
    int type = i % 6;
    p[2] = d3 ? tn_uniform(rng, -30, 30) : 0;
    switch (type) {
    case 0:
    case 1:
        p[0] = tn_uniform(rng, -60, 60);
        p[1] = tn_uniform(rng, -60, 60);
        break;
    case 2:
        p[0] = 1e6 + tn_uniform(rng, 0, 64);
        p[1] = (warp ? -1e6 : -1e7) + tn_uniform(rng, 0, 64);
        if (d3)
            p[2] = (warp ? -1e6 : -1e7) + tn_uniform(rng, 0, 64);
        break;
    case 3: /* on a cell border in x (and sometimes in y and t too) */
        p[0] = floor(tn_uniform(rng, -60, 60));
        p[1] = i % 12 == 3 ? floor(tn_uniform(rng, -60, 60)) : tn_uniform(rng, -60, 60);
        if (d3 && i % 12 == 3)
            p[2] = floor(p[2]);
        break;
    case 4: { /* on the 2D simplex diagonal: skewed fractions equal */
        double a = tn_uniform(rng, 0, 1), ci = floor(tn_uniform(rng, -40, 40)), cj = floor(tn_uniform(rng, -40, 40));
        double sx = ci + a, sy = cj + a;
        double unskew = (sx + sy) * 0.21132486540518713;
        p[0] = (sx - unskew) / 0.5773502691896258;
        p[1] = (sy - unskew) / 0.5773502691896258;
        break;
    }
    default: /* far and on a cell border */
        p[0] = (warp ? -1e6 : -1e7) + floor(tn_uniform(rng, 0, 64));
        p[1] = 1e6 + tn_uniform(rng, 0, 64);
        break;
    }
}

static void run_gradients(int warp, int n_points)
{
    int bad_configs = 0, configs = 0;
    long total = 0, skipped = 0;
    double worst = 0;
    for (int b = 0; b < TN_N_BASES; b++)
        for (int d3 = 0; d3 < 2; d3++)
            for (int fr = 0; fr < NOISE_FRACTAL_COUNT; fr++) {
                noise_spec s;
                noise_spec_default(&s, tn_bases[b].kind, 1000 + (uint32_t)b);
                tn_apply(&s, b);
                s.fractal = (noise_fractal)fr;
                s.octaves = 3;
                s.warp = warp ? 0.75 : 0;
                s.has_t = d3;
                uint64_t rng = (uint64_t)(b * 100 + d3 * 10 + fr + warp * 1000);
                fd_result r = { 0, 0, 0, 0 };
                for (int i = 0; i < n_points; i++) {
                    double p[3];
                    make_point(&rng, i, d3, warp, p);
                    s.t = p[2];
                    fd_point(&s, p, d3, tn_bases[b].creased, &r);
                }
                configs++;
                total += r.checked;
                skipped += r.skipped;
                worst = fmax(worst, r.worst);
                /* fbm has no crease: nothing may be skipped (but on the
                 * cell borders of a creased base: cellular's, classic's
                 * linear and cubic fades); the others may skip only a small
                 * share (a third of the points are on cell borders, where
                 * Perlin-type noise is 0 at every lattice point: creases of
                 * turbulence and ridged) */
                int creased = TN_CREASED(tn_bases[b].kind) || tn_bases[b].creased;
                int skip_ok = fr == NOISE_FBM && !creased ? r.skipped == 0 : r.skipped * 5 < r.checked;
                if (r.failed || !skip_ok) {
                    bad_configs++;
                    fprintf(stderr, "  %s %s %s warp %d: %ld of %ld failed (worst %.3g), %ld skipped\n",
                            tn_bases[b].name, d3 ? "3D" : "2D", tn_fractal_names[fr], warp, r.failed, r.checked,
                            r.worst, r.skipped);
                }
            }
    printf("# warp %d: %ld components checked, %ld skipped at creases, worst relative error %.3g\n", warp, total,
           skipped, worst);
    CHECKF(bad_configs == 0, "%d of %d configurations fail", bad_configs, configs);
}

static void test_gradients_no_warp(void) { run_gradients(0, 2000); }
static void test_gradients_warp(void) { run_gradients(1, 1000); }

/* Frequency multiplies plane coordinates (t included), so the gradient
 * scales with it: f(x) at frequency 2 equals f(2x) at frequency 1. */
static void test_frequency_chain_rule(void)
{
    int bad = 0;
    uint64_t rng = 8;
    for (int b = 0; b < TN_N_BASES; b++)
        for (int i = 0; i < 100; i++) {
            noise_spec s1, s2;
            noise_spec_default(&s1, tn_bases[b].kind, 4);
            tn_apply(&s1, b);
            s1.has_t = i % 2;
            s1.t = 0.625;
            s2 = s1;
            s2.frequency = 2.0;
            s1.t = 1.25;
            double p[2] = { tn_uniform(&rng, -10, 10), tn_uniform(&rng, -10, 10) }, p2[2] = { 2 * p[0], 2 * p[1] };
            double g1[3], g2[3];
            double v2 = noise_eval_point(&s2, p, 2, g2, NULL), v1 = noise_eval_point(&s1, p2, 2, g1, NULL);
            if (v1 != v2 || g2[0] != 2 * g1[0] || g2[1] != 2 * g1[1] || (s1.has_t && g2[2] != 2 * g1[2]))
                bad++;
        }
    CHECKF(bad == 0, "%d points break f(x; freq 2) = f(2x; freq 1)", bad);
}

int main(void)
{
    RUN_PATHS(test_gradients_no_warp);
    RUN_PATHS(test_gradients_warp);
    RUN_PATHS(test_frequency_chain_rule);
    return t_done();
}
