/* noise_simd.c: which instruction-set path evaluates fields: detection of
 * what the CPU supports, the NOISE_SIMD override, and the active path.
 */
#include "noise.h"
#include "noise_field.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *const ns_names[NOISE_SIMD_COUNT] = { "scalar", "avx2", "avx512" };

/* -1 until chosen; then a noise_simd. */
static atomic_int ns_active = -1;

const char *noise_simd_name(noise_simd path)
{
    return (unsigned)path < NOISE_SIMD_COUNT ? ns_names[path] : NULL;
}

int noise_simd_supported(noise_simd path)
{
    switch (path) {
    case NOISE_SIMD_SCALAR:
        return 1;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    case NOISE_SIMD_AVX2:
        __builtin_cpu_init();
        return ne_bases_avx2 != NULL && __builtin_cpu_supports("avx2");
    case NOISE_SIMD_AVX512:
        __builtin_cpu_init();
        return ne_bases_avx512 != NULL && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512vl");
#endif
    default:
        return 0;
    }
}

/* NOISE_SIMD if it names a supported path; else the best supported one. */
static int ns_choose(void)
{
    const char *env = getenv("NOISE_SIMD");
    for (int p = 0; env && p < NOISE_SIMD_COUNT; p++)
        if (strcmp(env, ns_names[p]) == 0 && noise_simd_supported((noise_simd)p))
            return p;
    for (int p = NOISE_SIMD_COUNT - 1; p > 0; p--)
        if (noise_simd_supported((noise_simd)p))
            return p;
    return NOISE_SIMD_SCALAR;
}

noise_simd noise_simd_active(void)
{
    int p = atomic_load_explicit(&ns_active, memory_order_relaxed);
    if (p < 0) {
        /* two threads may both choose; they choose the same */
        int expected = -1;
        p = ns_choose();
        if (!atomic_compare_exchange_strong(&ns_active, &expected, p))
            p = expected;
    }
    return (noise_simd)p;
}

int noise_simd_set(noise_simd path)
{
    if (!noise_simd_supported(path))
        return NOISE_ERANGE;
    atomic_store(&ns_active, (int)path);
    return 0;
}

const ne_base_table *ne_active_bases(void)
{
    switch (noise_simd_active()) {
    case NOISE_SIMD_AVX2: return ne_bases_avx2;
    case NOISE_SIMD_AVX512: return ne_bases_avx512;
    default: return &ne_bases_scalar;
    }
}
