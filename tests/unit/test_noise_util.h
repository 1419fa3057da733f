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

/* n points scattered around (x0, y0) at about step apart, crossing cells in
 * every direction: as 2D points into p2 (2n numbers) and as 3D points into
 * p3 (3n numbers). */
static inline void tn_scatter(double x0, double y0, double step, int n, double *p2, double *p3)
{
    for (int i = 0; i < n; i++) {
        double dx = (double)((i * 37) % n) * step * 0.71, dy = (double)((i * 11) % n) * step * 0.53;
        p2[2 * i] = x0 + dx;
        p2[2 * i + 1] = y0 - dy;
        p3[3 * i] = x0 - dy;
        p3[3 * i + 1] = y0 + dx;
        p3[3 * i + 2] = dx - dy;
    }
}

/* ---- the golden checksums' fields (test_noise_golden.c,
 * test_noise_period.c; the window also test_noise_cellular.c's) ---- */

/* s's fractal settings as given, at t = -2.75 (when has_t) and frequency
 * 0.75. */
static inline void tn_golden_spec(noise_spec *s, noise_fractal fractal, int octaves, double warp,
                                  int has_t)
{
    s->fractal = fractal;
    s->octaves = octaves;
    s->warp = warp;
    s->has_t = has_t;
    s->t = -2.75;
    s->frequency = 0.75;
}

/* The golden window of s, w x w samples from (-37.3, 12.6) at step 0.173,
 * into v and (unless NULL) g; the FNV-1a of the values into *hv and, with
 * g, of the gradients into *hg. */
static inline void tn_golden_grid(const noise_spec *s, int w, float *v, float *g, uint64_t *hv,
                                  uint64_t *hg)
{
    noise_eval_grid(s, -37.3, 12.6, 0.173, w, w, v, g);
    *hv = tn_fnv1a(v, sizeof(float) * (size_t)w * (size_t)w);
    if (g != NULL)
        *hg = tn_fnv1a(g, sizeof(float) * 2 * (size_t)w * (size_t)w);
}

/* ---- an independent transcription of docs/field.md's hash (SmallXXHash
 * of a lattice point, 64-bit indices) ---- */

static inline uint32_t ref_rotl(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }

static inline uint32_t ref_eat(uint32_t acc, uint32_t d) { return ref_rotl(acc + d * 0xC2B2AE3Du, 17) * 0x27D4EB2Fu; }

static inline uint32_t ref_eat64(uint32_t acc, int64_t i)
{
    acc = ref_eat(acc, (uint32_t)(uint64_t)i);
    if (i < INT32_MIN || i > INT32_MAX)
        acc = ref_eat(acc, (uint32_t)((uint64_t)i >> 32));
    return acc;
}

static inline uint32_t ref_avalanche(uint32_t a)
{
    a ^= a >> 15;
    a *= 0x85EBCA77u;
    a ^= a >> 13;
    a *= 0xC2B2AE3Du;
    a ^= a >> 16;
    return a;
}

static inline uint32_t ref_hash2(uint32_t seed, int64_t i, int64_t j)
{
    return ref_avalanche(ref_eat64(ref_eat64(seed + 0x165667B1u, i), j));
}

/* Every base field the core has: kind, lattice and variant. */
typedef struct {
    noise_kind kind;
    noise_lattice lattice;
    const char *name;
    noise_fade fade; /* classic */
    int creased;     /* 1: one octave of fbm already has creases on cell borders: kinks (classic's
                        linear fade) or a jump of the second derivative (its cubic fade), which a
                        difference quotient across the border sees */
    noise_gradients gradients; /* perlin, simplex */
    noise_falloff falloff;     /* simplex */
} tn_base;

static const tn_base tn_bases[] = {
    { NOISE_VALUE, NOISE_SQUARE, "value", 0, 0, 0, 0 },
    { NOISE_VALUE, NOISE_TRIANGLE, "value/triangle", 0, 0, 0, 0 },
    { NOISE_PERLIN, NOISE_SQUARE, "perlin", 0, 0, 0, 0 },
    { NOISE_PERLIN, NOISE_TRIANGLE, "perlin/triangle", 0, 0, 0, 0 },
    { NOISE_SIMPLEX, NOISE_SQUARE, "simplex", 0, 0, 0, 0 },
    { NOISE_IMPROVED, NOISE_SQUARE, "improved", 0, 0, 0, 0 },
    { NOISE_CELLULAR, NOISE_SQUARE, "cellular", 0, 0, 0, 0 },
    { NOISE_CLASSIC, NOISE_SQUARE, "classic", NOISE_FADE_LINEAR, 1, 0, 0 },
    { NOISE_CLASSIC, NOISE_SQUARE, "classic/cubic", NOISE_FADE_CUBIC, 1, 0, 0 },
    { NOISE_CLASSIC, NOISE_SQUARE, "classic/quintic", NOISE_FADE_QUINTIC, 0, 0, 0 },
    { NOISE_PERLIN, NOISE_SQUARE, "perlin/angle", 0, 0, NOISE_GRADIENTS_ANGLE, 0 },
    { NOISE_SIMPLEX, NOISE_SQUARE, "simplex/angle", 0, 0, NOISE_GRADIENTS_ANGLE, 0 },
    { NOISE_SIMPLEX, NOISE_SQUARE, "simplex/quartic", 0, 0, 0, NOISE_FALLOFF_QUARTIC },
    { NOISE_SIMPLEX, NOISE_SQUARE, "simplex/angle/quartic", 0, 0, NOISE_GRADIENTS_ANGLE, NOISE_FALLOFF_QUARTIC },
};
/* Kinds with creases in one octave (cellular: where two feature points are
 * equally near): fewer claims of smoothness hold for them. */
#define TN_CREASED(kind) ((kind) == NOISE_CELLULAR)
#define TN_N_BASES ((int)(sizeof tn_bases / sizeof tn_bases[0]))

/* Sets the lattice and variant of base b in a spec made by noise_spec_default. */
static inline void tn_apply(noise_spec *s, int b)
{
    s->lattice = tn_bases[b].lattice;
    s->fade = tn_bases[b].fade;
    s->gradients = tn_bases[b].gradients;
    s->falloff = tn_bases[b].falloff;
}

static const char *const tn_fractal_names[] = { "fbm", "turbulence", "ridged" };

#ifdef TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NOISE_TEST_PATHS, a comma-separated list of path names ("avx512",
 * "scalar,avx512"), limits the paths the tests run; unset, every path the CPU
 * has runs. scripts/avx512-emu.sh sets it to avx512, so the emulator spends
 * its hours on that path only. Paths left out are reported as skipped, like
 * those the CPU lacks; the scalar reference of a "paths agree" comparison
 * runs whatever the list says. */
static inline int tn_path_wanted(noise_simd p)
{
    const char *list = getenv("NOISE_TEST_PATHS"), *name = noise_simd_name(p);
    if (!list || !*list)
        return 1;
    size_t n = strlen(name);
    for (const char *s = list; *s;) {
        size_t len = strcspn(s, ",");
        if (len == n && strncmp(s, name, n) == 0)
            return 1;
        s += len + (s[len] == ',');
    }
    return 0;
}

/* The CPU and build have path p, and NOISE_TEST_PATHS wants it. */
static inline int tn_path_ok(noise_simd p) { return noise_simd_supported(p) && tn_path_wanted(p); }

/* 1 when path p is to be tried (tn_path_ok); else 0, after a line
 * "# WHAT: PATH skipped (...)" saying so. */
static inline int tn_path_run(noise_simd p, const char *what)
{
    if (tn_path_ok(p))
        return 1;
    printf("# %s: %s skipped (not on this CPU or build, or not in NOISE_TEST_PATHS)\n", what,
           noise_simd_name(p));
    return 0;
}

/* Configuration c of a test of the vector paths: its spec into *s and its
 * place { x0, y0, step } into *place; and its name, for a failure. */
typedef void (*tn_config_fn)(int c, noise_spec *s, const double **place);
typedef void (*tn_describe_fn)(int c, char *buf, size_t size);
/* What a configuration evaluates at a place, as bytes to compare. */
typedef void (*tn_eval_fn)(const noise_spec *s, double x0, double y0, double step, void *out);

/* Every vector path (tn_path_run) against the scalar path over
 * configurations 0..n-1: eval's out (size bytes) must be the same bytes.
 * Prints a line for each path that ran and, at the end, "# R vector paths,
 * N WHAT compared" (N into *compared); names each configuration that
 * differs on stderr and returns how many did. Leaves the best path set. */
static inline int tn_paths_agree(int n, tn_config_fn config, tn_describe_fn describe, tn_eval_fn eval,
                                 size_t size, const char *what, int *compared)
{
    noise_simd best = noise_simd_active();
    void *ref = malloc(size), *got = malloc(size);
    int ran = 0, configs = 0, bad = 0;
    for (int p = 1; p < NOISE_SIMD_COUNT; p++) {
        if (!tn_path_run((noise_simd)p, "paths agree"))
            continue;
        ran++;
        for (int c = 0; c < n; c++) {
            noise_spec s;
            const double *pl;
            config(c, &s, &pl);
            noise_simd_set(NOISE_SIMD_SCALAR);
            eval(&s, pl[0], pl[1], pl[2], ref);
            noise_simd_set((noise_simd)p);
            eval(&s, pl[0], pl[1], pl[2], got);
            configs++;
            if (memcmp(ref, got, size) != 0) {
                char name[200];
                describe(c, name, sizeof name);
                bad++;
                fprintf(stderr, "  %s: %s differs from scalar\n", noise_simd_name((noise_simd)p), name);
            }
        }
        printf("# paths agree: %s ran against scalar\n", noise_simd_name((noise_simd)p));
    }
    noise_simd_set(best);
    free(ref);
    free(got);
    printf("# %d vector paths, %d %s compared\n", ran, configs, what);
    *compared = configs;
    return bad;
}

/* Runs a test once on every instruction-set path (scalar, AVX2, AVX-512),
 * as "name [path]"; a path this CPU or build lacks, or NOISE_TEST_PATHS
 * leaves out, is reported as skipped (a "#" line, not counted). The best
 * path is active again afterwards. */
static inline void tn_run_paths(const char *name, void (*fn)(void))
{
    noise_simd best = noise_simd_active();
    for (int p = 0; p < NOISE_SIMD_COUNT; p++) {
        char full[128];
        snprintf(full, sizeof full, "%s [%s]", name, noise_simd_name((noise_simd)p));
        if (!tn_path_wanted((noise_simd)p)) {
            printf("# %s: skipped, not in NOISE_TEST_PATHS=%s\n", full, getenv("NOISE_TEST_PATHS"));
            continue;
        }
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
