/* test_noise_util.h: small helpers shared by the tests/test_noise*.c files:
 * a deterministic random generator and field construction.
 */
#ifndef TEST_NOISE_UTIL_H
#define TEST_NOISE_UTIL_H

#include "noise.h"

#include <stddef.h>
#include <stdint.h>

/* splitmix64 */
static inline uint64_t tn_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi) */
static inline double tn_uniform(uint64_t *state, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(tn_rand(state) >> 11) * 0x1p-53);
}

/* FNV-1a, 64-bit, over n bytes: the golden checksums of grids of floats. */
static inline uint64_t tn_fnv1a(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Every (kind, lattice) pair the core accepts. */
typedef struct {
    noise_kind kind;
    noise_lattice lattice;
    const char *name;
} tn_base;

static const tn_base tn_bases[] = {
    { NOISE_VALUE, NOISE_SQUARE, "value" },     { NOISE_VALUE, NOISE_TRIANGLE, "value/triangle" },
    { NOISE_PERLIN, NOISE_SQUARE, "perlin" },   { NOISE_PERLIN, NOISE_TRIANGLE, "perlin/triangle" },
    { NOISE_SIMPLEX, NOISE_SQUARE, "simplex" }, { NOISE_IMPROVED, NOISE_SQUARE, "improved" },
    { NOISE_CELLULAR, NOISE_SQUARE, "cellular" },
};
/* Kinds with creases in one octave (cellular: where two feature points are
 * equally near): fewer claims of smoothness hold for them. */
#define TN_CREASED(kind) ((kind) == NOISE_CELLULAR)
#define TN_N_BASES ((int)(sizeof tn_bases / sizeof tn_bases[0]))

static const char *const tn_fractal_names[] = { "fbm", "turbulence", "ridged" };

#ifdef TEST_H
#include <stdio.h>

/* Runs a test once on every instruction-set path (scalar, AVX2, AVX-512),
 * as "name [path]"; a path this CPU or build lacks is reported as skipped
 * (a "#" line, not counted). The best path is active again afterwards. */
static inline void tn_run_paths(const char *name, void (*fn)(void))
{
    noise_simd best = noise_simd_active();
    for (int p = 0; p < NOISE_SIMD_COUNT; p++) {
        char full[128];
        snprintf(full, sizeof full, "%s [%s]", name, noise_simd_name((noise_simd)p));
        if (noise_simd_set((noise_simd)p) != 0) {
            printf("# %s: skipped, no %s path on this CPU or build\n", full, noise_simd_name((noise_simd)p));
            continue;
        }
        t_run(full, fn);
    }
    noise_simd_set(best);
}
#define RUN_PATHS(fn) tn_run_paths(#fn, fn)
#endif

#endif
