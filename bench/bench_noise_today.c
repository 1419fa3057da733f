/* bench_noise_today.c: "today" for bench_noise: the noise core as it was
 * before the vector paths (commit 117be87), in the same process, so that
 * every "than today" ratio comes from one run.
 *
 * The Makefile compiles this file against that commit's noise/ sources
 * (git archive into build/bench/today/), links them into one object and
 * keeps only the bench_today_* symbols global, so the old core's noise_*
 * functions do not clash with the current ones. Without the commit (a
 * shallow clone) it is compiled with BENCH_NO_TODAY and says so.
 */
#include <stddef.h>
#include <stdint.h>

#ifndef BENCH_NO_TODAY
#include "noise.h"

static void today_spec(noise_spec *s, int kind, uint32_t seed, int octaves, int lattice)
{
    noise_spec_default(s, (noise_kind)kind, seed);
    s->octaves = octaves;
    s->lattice = (noise_lattice)lattice;
}
#endif

/* 1 if the old core is linked in */
int bench_today_available(void)
{
#ifdef BENCH_NO_TODAY
    return 0;
#else
    return 1;
#endif
}

void bench_today_grid(int kind, uint32_t seed, int octaves, int lattice, double x0, double y0, double step,
                      int width, int height, float *values, float *grads)
{
#ifdef BENCH_NO_TODAY
    (void)kind, (void)seed, (void)octaves, (void)lattice, (void)x0, (void)y0, (void)step, (void)width,
        (void)height, (void)values, (void)grads;
#else
    noise_spec s;
    today_spec(&s, kind, seed, octaves, lattice);
    noise_eval_grid(&s, x0, y0, step, width, height, values, grads);
#endif
}

void bench_today_points(int kind, uint32_t seed, int octaves, int lattice, size_t n, const double *points,
                        double *values, double *grads)
{
#ifdef BENCH_NO_TODAY
    (void)kind, (void)seed, (void)octaves, (void)lattice, (void)n, (void)points, (void)values, (void)grads;
#else
    noise_spec s;
    today_spec(&s, kind, seed, octaves, lattice);
    noise_eval_points(&s, n, points, 2, values, grads);
#endif
}
