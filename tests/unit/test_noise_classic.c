/* test_noise_classic.c: the classic kind against the C code of Wikipedia's
 * "Perlin noise" article (tests/unit/wikipedia_perlin.inc, compiled as printed,
 * once per interpolation), the deterministic sine and cosine every path
 * shares (noise_lattice.h) against libm, and the article's claim that the
 * noise passes through zero at every node.
 *
 * The bound (noise.h, docs/field.md): at seed 0 classic takes the article's
 * gradients bit for bit (its float angle, its float cosine and sine) and
 * does the rest in double; the article does it in float. Each of its float
 * operations rounds by at most 2^-24 of a quantity below 2, and a value
 * passes through at most 12 of them, so the two differ by at most
 * 12 * 2 * 2^-24 = 1.4e-6; the documented bound is 2e-6.
 */
#include "noise.h"
#include "test.h"
#include "test_noise_util.h"
#include "wikipedia_perlin.h"
/* internal: the shared sine and cosine, the article's hash and gradient */
#include "noise_kernels.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#define CLASSIC_BOUND 2e-6

typedef float (*wikipedia_fn)(float, float);
static const wikipedia_fn wikipedia[3] = { wikipedia_perlin_linear, wikipedia_perlin_cubic,
                                           wikipedia_perlin_quintic };
static const char *const fade_name[3] = { "linear", "cubic", "quintic" };

/* Acceptance 1: seed 0 at 10,000 float points per interpolation (near the
 * origin, and out to 1e6 cells with negative coordinates) equals the
 * article's perlin(x, y) within the bound, on every path, through the
 * batch path (noise_eval_points) and the point path. */
static void test_classic_equals_article(void)
{
    enum { N = 10000 };
    static double pts[2 * N], vals[N];
    for (int f = 0; f < 3; f++) {
        noise_spec s;
        noise_spec_default(&s, NOISE_CLASSIC, 0);
        s.fade = (noise_fade)f;
        uint64_t rng = 1300 + (uint64_t)f;
        for (int i = 0; i < N; i++) {
            double r = i % 4 == 3 ? 1e6 : i % 4 == 2 ? 1000 : 20;
            pts[2 * i] = (double)(float)tn_uniform(&rng, -r, r);
            pts[2 * i + 1] = (double)(float)tn_uniform(&rng, -r, r);
        }
        noise_eval_points(&s, N, pts, 2, vals, NULL);
        double worst = 0;
        int over = 0, exact = 0, point_differs = 0;
        for (int i = 0; i < N; i++) {
            double ref = wikipedia[f]((float)pts[2 * i], (float)pts[2 * i + 1]);
            double d = fabs(vals[i] - ref);
            worst = fmax(worst, d);
            over += d > CLASSIC_BOUND;
            exact += d == 0;
            if (i % 10 == 0)
                point_differs += noise_eval_point(&s, &pts[2 * i], 2, NULL, NULL) != vals[i];
        }
        printf("# classic seed 0 fade=%s vs the article: max |difference| %.3g at %d points (%d equal)\n",
               fade_name[f], worst, N, exact);
        CHECKF(over == 0, "fade=%s: %d of %d points differ by more than %g (worst %.3g)", fade_name[f], over, N,
               CLASSIC_BOUND, worst);
        CHECKF(point_differs == 0, "fade=%s: %d points differ between the point and batch paths", fade_name[f],
               point_differs);
    }
}

/* "the noise function will pass through 0 at every node": exactly, for
 * every interpolation and seed, with octaves (the nodes of octave 0 are
 * nodes of every octave at lacunarity 2), and beyond the int32 range of
 * cells; the article's own code does too. */
static void test_classic_zero_at_nodes(void)
{
    static const uint32_t seeds[] = { 0, 1, 77, 0xFFFFFFFFu };
    int bad = 0, bad_ref = 0, n = 0;
    uint64_t rng = 5;
    for (int f = 0; f < 3; f++)
        for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++)
            for (int oct = 1; oct <= 4; oct += 3) {
                noise_spec s;
                noise_spec_default(&s, NOISE_CLASSIC, seeds[k]);
                s.fade = (noise_fade)f;
                s.octaves = oct;
                for (int i = 0; i < 500; i++) {
                    double r = i % 3 == 2 ? 6e9 : 1e4;
                    double p[2] = { floor(tn_uniform(&rng, -r, r)), floor(tn_uniform(&rng, -r, r)) }, g[2];
                    bad += noise_eval_point(&s, p, 2, g, NULL) != 0.0;
                    n++;
                    if (seeds[k] == 0 && r < 1e5)
                        bad_ref += wikipedia[f]((float)p[0], (float)p[1]) != 0.0f;
                }
            }
    CHECKF(bad == 0, "%d of %d nodes are not 0", bad, n);
    CHECKF(bad_ref == 0, "%d nodes of the article's code are not 0", bad_ref);
}

/* The one sine and cosine of every path against libm: within 4.5e-16 (two
 * ulps of 1; measured 2.2e-16) over 2^20 angles in [0, 2 pi] and at the
 * ends; rounded to float, as classic uses them, equal to libm's rounded to
 * float at every gradient angle the article's hash gives for 2^20 cells. */
static void test_sincos(void)
{
    enum { N = 1 << 20 };
    uint64_t rng = 9;
    double worst = 0;
    for (int i = 0; i < N + 3; i++) {
        double a = i == N ? 0.0 : i == N + 1 ? 2 * M_PI : i == N + 2 ? (double)(float)(2 * M_PI)
                                                                      : tn_uniform(&rng, 0, 2 * M_PI);
        double s, c;
        nl_sincos(a, &s, &c);
        worst = fmax(worst, fmax(fabs(s - sin(a)), fabs(c - cos(a))));
    }
    printf("# nl_sincos: max |difference| from libm %.3g over %d angles\n", worst, N + 3);
    CHECKF(worst <= 4.5e-16, "nl_sincos differs from libm by %.3g", worst);
    int differ = 0;
    for (int i = 0; i < N; i++) {
        int ix = (int)(tn_rand(&rng) % 200001) - 100000, iy = (int)(tn_rand(&rng) % 200001) - 100000;
        uint32_t h = nk_classic_corner(0, (uint64_t)(int64_t)ix, (uint64_t)(int64_t)iy);
        double gx, gy;
        nk_classic_grad(h, &gx, &gy);
        float angle = (float)((double)h * (3.14159265 / 2147483648.0));
        differ += gx != (double)(float)cos(angle) || gy != (double)(float)sin(angle);
    }
    CHECKF(differ == 0, "%d of %d gradients differ from the article's (float cos, sin of its float angle)", differ,
           N);
}

/* The article's hash, transcribed from its text with unsigned arithmetic,
 * is the core's at seed 0 (key 0); other seeds XOR avalanche(seed) into b
 * after its multiply, so they give other gradients. */
static void test_classic_hash(void)
{
    uint64_t rng = 11;
    int bad = 0, same = 0;
    for (int i = 0; i < 100000; i++) {
        int32_t ix = (int32_t)(uint32_t)tn_rand(&rng), iy = (int32_t)(uint32_t)tn_rand(&rng);
        uint32_t a = (uint32_t)ix, b = (uint32_t)iy;
        a *= 3284157443u;
        b ^= a << 16 | a >> 16;
        b *= 1911520717u;
        a ^= b << 16 | b >> 16;
        a *= 2048419325u;
        bad += nk_classic_corner(0, (uint64_t)(int64_t)ix, (uint64_t)(int64_t)iy) != a;
        same += nk_classic_corner(0x5f356495u, (uint64_t)(int64_t)ix, (uint64_t)(int64_t)iy) == a;
    }
    CHECKF(bad == 0, "%d hashes differ from the article's", bad);
    CHECKF(same < 5, "a key leaves %d of 100000 hashes unchanged", same);
    CHECK(nk_classic_key(0) == 0);
}

/* Different seeds are different fields; values stay within [-1, 1]; the
 * range is the article's (about +-0.7, bound sqrt(2)/2). */
static void test_classic_seeds_and_range(void)
{
    enum { N = 20000 };
    static double pts[2 * N], v0[N], v1[N];
    uint64_t rng = 12;
    for (int i = 0; i < 2 * N; i++)
        pts[i] = tn_uniform(&rng, -500, 500);
    for (int f = 0; f < 3; f++) {
        noise_spec s0, s1;
        noise_spec_default(&s0, NOISE_CLASSIC, 0);
        s0.fade = (noise_fade)f;
        s1 = s0;
        s1.seed = 1;
        noise_eval_points(&s0, N, pts, 2, v0, NULL);
        noise_eval_points(&s1, N, pts, 2, v1, NULL);
        int equal = 0;
        double lo = 0, hi = 0, dot = 0, n0 = 0, n1 = 0;
        for (int i = 0; i < N; i++) {
            equal += v0[i] == v1[i];
            lo = fmin(lo, fmin(v0[i], v1[i]));
            hi = fmax(hi, fmax(v0[i], v1[i]));
            dot += v0[i] * v1[i];
            n0 += v0[i] * v0[i];
            n1 += v1[i] * v1[i];
        }
        double corr = dot / sqrt(n0 * n1);
        printf("# classic fade=%s: range %.4f..%.4f, correlation of seeds 0 and 1 %.4f\n", fade_name[f], lo, hi,
               corr);
        CHECKF(equal == 0, "fade=%s: seeds 0 and 1 agree at %d of %d points", fade_name[f], equal, N);
        CHECKF(fabs(corr) < 0.05, "fade=%s: seeds 0 and 1 correlate (%.3f)", fade_name[f], corr);
        CHECKF(lo >= -0.7072 && hi <= 0.7072 && lo < -0.6 && hi > 0.6, "fade=%s: range %.4f..%.4f", fade_name[f],
               lo, hi);
    }
}

int main(void)
{
    RUN(test_sincos);
    RUN(test_classic_hash);
    RUN_PATHS(test_classic_equals_article);
    RUN_PATHS(test_classic_zero_at_nodes);
    RUN_PATHS(test_classic_seeds_and_range);
    return t_done();
}
