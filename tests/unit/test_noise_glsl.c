/* test_noise_glsl.c: the gradient/simplex article's two GLSL functions,
 * transcribed in double with SmallXXHash for hash21, against perlin with
 * gradients=angle and simplex with gradients=angle&falloff=quartic
 * (acceptance 2 of issue 13: within 1e-12), and the ranges and the clamp
 * of the variants.
 *
 * The transcription follows the article line by line: gradient(cell) =
 * (cos, sin) of hash21(cell) * 2 pi (the article's 6.2831853 is 2 pi in
 * GLSL's float), hash21(cell) = h / 2^32 with h the SmallXXHash of the
 * cell under the seed (docs/field.md); GLSL's mix(x, y, a) = x (1 - a) +
 * y a, fract(p) = p - floor(p); the simplex constants F and G as the
 * comments define them ((sqrt(3) - 1) / 2, (3 - sqrt(3)) / 6), in double
 * (the article's 0.3660254 and 0.2113249 are those in float). noisetile's
 * simplex samples the article's simplex at p / sqrt(3) (its lattice, as for
 * the other simplex variants), so the two are compared there. libm's sin
 * and cos stand in for noisetile's own (noise_lattice.h).
 *
 * The points lie in [-100, 100]^2: the article's simplex forms its offsets
 * as p - i + (i.x + i.y) G, whose rounding grows with |p| (2e-14 here).
 */
#include "noise.h"
#include "test.h"
#include "test_noise_util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* hash21(cell): SmallXXHash of the cell (test_noise_util.h's transcription
 * of docs/field.md) over 2^32 */
static double hash21(uint32_t seed, double cx, double cy)
{
    return (double)ref_hash2(seed, (int64_t)cx, (int64_t)cy) / 4294967296.0;
}

/* vec2 gradient(vec2 cell) { float angle = hash21(cell) * 6.2831853; return vec2(cos(angle), sin(angle)); } */
static void gradient(uint32_t seed, double cx, double cy, double g[2])
{
    double angle = hash21(seed, cx, cy) * (2 * M_PI);
    g[0] = cos(angle);
    g[1] = sin(angle);
}

static double dot2(const double a[2], double bx, double by) { return a[0] * bx + a[1] * by; }
static double mix(double x, double y, double a) { return x * (1 - a) + y * a; }

/* float gradientNoise(vec2 p) */
static double gradient_noise(uint32_t seed, double px, double py)
{
    double ix = floor(px), iy = floor(py);
    double fx = px - ix, fy = py - iy;
    double g[2];
    gradient(seed, ix, iy, g);
    double a = dot2(g, fx, fy);
    gradient(seed, ix + 1, iy, g);
    double b = dot2(g, fx - 1, fy);
    gradient(seed, ix, iy + 1, g);
    double c = dot2(g, fx, fy - 1);
    gradient(seed, ix + 1, iy + 1, g);
    double d = dot2(g, fx - 1, fy - 1);
    double ux = fx * fx * fx * (fx * (fx * 6.0 - 15.0) + 10.0);
    double uy = fy * fy * fy * (fy * (fy * 6.0 - 15.0) + 10.0);
    return mix(mix(a, b, ux), mix(c, d, ux), uy);
}

/* float simplexNoise(vec2 p) */
static double simplex_noise(uint32_t seed, double px, double py)
{
    const double F = (sqrt(3.0) - 1) / 2, G = (3 - sqrt(3.0)) / 6;
    double s = (px + py) * F;
    double ix = floor(px + s), iy = floor(py + s);
    double t = (ix + iy) * G;
    double d0x = px - ix + t, d0y = py - iy + t;
    double ox = d0x > d0y ? 1.0 : 0.0, oy = d0x > d0y ? 0.0 : 1.0;
    double d1x = d0x - ox + G, d1y = d0y - oy + G;
    double d2x = d0x - 1.0 + 2.0 * G, d2y = d0y - 1.0 + 2.0 * G;
    double w0 = fmax(0.5 - (d0x * d0x + d0y * d0y), 0.0);
    double w1 = fmax(0.5 - (d1x * d1x + d1y * d1y), 0.0);
    double w2 = fmax(0.5 - (d2x * d2x + d2y * d2y), 0.0);
    w0 = w0 * w0 * w0 * w0;
    w1 = w1 * w1 * w1 * w1;
    w2 = w2 * w2 * w2 * w2;
    double g0[2], g1[2], g2[2];
    gradient(seed, ix, iy, g0);
    gradient(seed, ix + ox, iy + oy, g1);
    gradient(seed, ix + 1, iy + 1, g2);
    double n0 = dot2(g0, d0x, d0y), n1 = dot2(g1, d1x, d1y), n2 = dot2(g2, d2x, d2y);
    return 99.0 * (w0 * n0 + w1 * n1 + w2 * n2);
}

static int parse(noise_spec *s, noise_kind kind, uint32_t seed, const char *query_a, const char *va, const char *query_b,
                 const char *vb)
{
    const char *names[2] = { query_a, query_b }, *values[2] = { va, vb };
    char err[160];
    int rc = noise_spec_parse(s, kind, seed, query_b ? 2 : 1, names, values, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "  %s\n", err);
    return rc;
}

/* Acceptance 2: 10,000 points per seed for each function. */
static void test_glsl_gradient_noise(void)
{
    enum { N = 10000 };
    static double pts[2 * N], vals[N];
    static const uint32_t seeds[] = { 0, 7, 0xFFFFFFFFu };
    for (size_t k = 0; k < 3; k++) {
        noise_spec s;
        CHECK(parse(&s, NOISE_PERLIN, seeds[k], "gradients", "angle", NULL, NULL) == 0);
        uint64_t rng = 40 + k;
        for (int i = 0; i < 2 * N; i++)
            pts[i] = tn_uniform(&rng, -100, 100);
        noise_eval_points(&s, N, pts, 2, vals, NULL);
        double worst = 0;
        for (int i = 0; i < N; i++)
            worst = fmax(worst, fabs(vals[i] - gradient_noise(seeds[k], pts[2 * i], pts[2 * i + 1])));
        printf("# perlin gradients=angle seed %u vs the article's gradientNoise: max |difference| %.3g\n",
               (unsigned)seeds[k], worst);
        CHECKF(worst <= 1e-12, "seed %u: differs by %.3g", (unsigned)seeds[k], worst);
    }
}

static void test_glsl_simplex_noise(void)
{
    enum { N = 10000 };
    static double pts[2 * N], vals[N];
    static const uint32_t seeds[] = { 0, 7, 0xFFFFFFFFu };
    const double k2 = 1 / sqrt(3.0);
    for (size_t k = 0; k < 3; k++) {
        noise_spec s;
        CHECK(parse(&s, NOISE_SIMPLEX, seeds[k], "gradients", "angle", "falloff", "quartic") == 0);
        uint64_t rng = 50 + k;
        for (int i = 0; i < 2 * N; i++)
            pts[i] = tn_uniform(&rng, -100, 100);
        noise_eval_points(&s, N, pts, 2, vals, NULL);
        double worst = 0;
        for (int i = 0; i < N; i++) {
            double ref = simplex_noise(seeds[k], pts[2 * i] * k2, pts[2 * i + 1] * k2);
            worst = fmax(worst, fabs(vals[i] - ref));
        }
        printf("# simplex gradients=angle falloff=quartic seed %u vs the article's simplexNoise(p / sqrt(3)): "
               "max |difference| %.3g\n",
               (unsigned)seeds[k], worst);
        CHECKF(worst <= 1e-12, "seed %u: differs by %.3g", (unsigned)seeds[k], worst);
    }
}

/* perlin on the triangle lattice with gradients=angle is simplex with
 * gradients=angle (falloff classic), bit for bit (noise.h). */
static void test_perlin_triangle_angle_is_simplex_angle(void)
{
    enum { N = 5000 };
    static double pts[2 * N], a[N], b[N], ga[2 * N], gb[2 * N];
    uint64_t rng = 60;
    for (int i = 0; i < 2 * N; i++)
        pts[i] = tn_uniform(&rng, -1e4, 1e4);
    noise_spec p, s;
    CHECK(parse(&p, NOISE_PERLIN, 3, "lattice", "triangle", "gradients", "angle") == 0);
    CHECK(parse(&s, NOISE_SIMPLEX, 3, "gradients", "angle", NULL, NULL) == 0);
    p.octaves = s.octaves = 3;
    noise_eval_points(&p, N, pts, 2, a, ga);
    noise_eval_points(&s, N, pts, 2, b, gb);
    CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(ga, gb, sizeof ga) == 0);
}

/* Ranges of the variants over 16 seeds x 2^16 points (the header's table
 * has 2^20): within their bounds for unit gradients (noise.h: sqrt(2)/2 for
 * perlin, the articles' scale; 1 for simplex's classic kernel; 0.99794 for
 * the quartic times 99, so the article's scale needs no clamp), and
 * reaching towards them. */
static void test_variant_ranges(void)
{
    enum { N = 1 << 16 };
    static double pts[2 * N], v[N];
    static const struct {
        noise_kind kind;
        const char *a, *va, *b, *vb;
        double reach, bound;
    } cases[] = {
        { NOISE_PERLIN, "gradients", "angle", NULL, NULL, 0.6, 0.70711 },
        { NOISE_SIMPLEX, "gradients", "angle", NULL, NULL, 0.9, 1.0 },
        { NOISE_SIMPLEX, "falloff", "quartic", NULL, NULL, 0.85, 0.99795 },
        { NOISE_SIMPLEX, "gradients", "angle", "falloff", "quartic", 0.85, 0.99795 },
    };
    uint64_t rng = 70;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double lo = 0, hi = 0;
        for (uint32_t seed = 0; seed < 16; seed++) {
            noise_spec s;
            CHECK(parse(&s, cases[c].kind, seed, cases[c].a, cases[c].va, cases[c].b, cases[c].vb) == 0);
            for (int i = 0; i < 2 * N; i++)
                pts[i] = tn_uniform(&rng, -1e4, 1e4);
            noise_eval_points(&s, N, pts, 2, v, NULL);
            for (int i = 0; i < N; i++) {
                lo = fmin(lo, v[i]);
                hi = fmax(hi, v[i]);
            }
        }
        printf("# %s %s=%s%s%s%s%s: range %.4f..%.4f (bound %g)\n", noise_kind_name(cases[c].kind), cases[c].a,
               cases[c].va, cases[c].b ? " " : "", cases[c].b ? cases[c].b : "", cases[c].b ? "=" : "",
               cases[c].b ? cases[c].vb : "", lo, hi, cases[c].bound);
        CHECKF(lo >= -cases[c].bound && hi <= cases[c].bound && lo < -cases[c].reach && hi > cases[c].reach,
               "range %.4f..%.4f", lo, hi);
    }
}

int main(void)
{
    RUN_PATHS(test_glsl_gradient_noise);
    RUN_PATHS(test_glsl_simplex_noise);
    RUN_PATHS(test_perlin_triangle_angle_is_simplex_angle);
    RUN_PATHS(test_variant_ranges);
    return t_done();
}
