/* test_fuzz_regress.c: the failures the fuzz targets (tests/fuzz) found,
 * each kept as a unit test that failed before its fix. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "noise.h"
#include "test.h"

/* fuzz_points, crash-3ec5b41c: POST /value/<seed>/points with the point
 * [1e6, -1e-6] answered the value -1.0000000000000004, outside the [-1, 1]
 * that noise.h promises (rounding in the lattice interpolation). */
static void test_value_noise_range_at_1e6(void)
{
    noise_spec s;
    noise_spec_default(&s, NOISE_VALUE, 1979547483u);
    double p[2] = {1e6, -1e-6}, g[3];
    int ng = 0;
    double v = noise_eval_point(&s, p, 2, g, &ng);
    CHECKF(v >= -1.0 && v <= 1.0, "value %.17g", v);
    double vals[1], grads[2];
    noise_eval_points(&s, 1, p, 2, vals, grads);
    CHECKF(vals[0] >= -1.0 && vals[0] <= 1.0, "batch value %.17g", vals[0]);
}

/* The same property over many fields and points, including the lattice
 * corners (integer coordinates) where the interpolation ends on a table
 * value of exactly +-1. */
static void test_values_in_range_sweep(void)
{
    uint64_t r = 0x9e3779b97f4a7c15u;
    long out = 0, n = 0;
    double worst = 0;
    for (int kind = 0; kind < NOISE_KIND_COUNT; kind++) {
        for (int fractal = 0; fractal < NOISE_FRACTAL_COUNT; fractal++) {
            for (int k = 0; k < 3000; k++) {
                r = r * 6364136223846793005u + 1442695040888963407u;
                noise_spec s;
                noise_spec_default(&s, (noise_kind)kind, (uint32_t)(r >> 32));
                s.fractal = (noise_fractal)fractal;
                s.octaves = 1 + (int)((r >> 20) % 4);
                double p[2];
                r = r * 6364136223846793005u + 1442695040888963407u;
                double scale = (r >> 61) == 0 ? 1.0 : pow(10.0, (double)((r >> 40) % 7));
                p[0] = (double)(int64_t)((r >> 8) % 2000001) - 1e6;
                p[1] = (k % 2) ? -1e-6 * scale : (double)(int64_t)((r >> 30) % 2001) - 1000;
                p[0] *= (k % 3) ? 1.0 : 1.0 / scale;
                double v = noise_eval_point(&s, p, 2, NULL, NULL);
                n++;
                if (!(v >= -1.0 && v <= 1.0)) {
                    out++;
                    if (fabs(v) > worst)
                        worst = fabs(v);
                }
            }
        }
    }
    CHECKF(out == 0, "%ld of %ld values outside [-1, 1], worst |v| %.17g", out, n, worst);
}

int main(void)
{
    RUN(test_value_noise_range_at_1e6);
    RUN(test_values_in_range_sweep);
    return t_done();
}
