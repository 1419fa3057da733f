/* noise_avx2.c: the AVX2 path: the vector kernels of noise_vec.h on four
 * doubles (__m256d) with 32-bit hashes in __m128i. Only functions carry the
 * avx2 target, so the file builds with the baseline x86-64 flags and runs
 * only where noise_simd.c found AVX2.
 */
#include "noise_field.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define NV_W 4
#define NV_TARGET __attribute__((target("avx2")))
#define NV_FN static inline __attribute__((always_inline, target("avx2")))

typedef __m256d vd;
typedef __m128i vi;
typedef __m256d vm;

NV_FN vd vd_set1(double x) { return _mm256_set1_pd(x); }
NV_FN vd vd_zero(void) { return _mm256_setzero_pd(); }
NV_FN vd vd_iota(void) { return _mm256_set_pd(3.0, 2.0, 1.0, 0.0); }
NV_FN vd vd_loadu(const double *p) { return _mm256_loadu_pd(p); }
NV_FN void vd_storeu(double *p, vd v) { _mm256_storeu_pd(p, v); }
NV_FN vd vd_add(vd a, vd b) { return _mm256_add_pd(a, b); }
NV_FN vd vd_sub(vd a, vd b) { return _mm256_sub_pd(a, b); }
NV_FN vd vd_mul(vd a, vd b) { return _mm256_mul_pd(a, b); }
NV_FN vd vd_div(vd a, vd b) { return _mm256_div_pd(a, b); }
/* a > b ? a : b, as the scalar code's r > 0 ? r : 0.0 */
NV_FN vd vd_max(vd a, vd b) { return _mm256_max_pd(a, b); }
NV_FN vd vd_min(vd a, vd b) { return _mm256_min_pd(a, b); }
NV_FN double vd_hmin(vd v)
{
    __m128d m = _mm_min_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_min_sd(m, _mm_unpackhi_pd(m, m)));
}
NV_FN double vd_hmax(vd v)
{
    __m128d m = _mm_max_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_max_sd(m, _mm_unpackhi_pd(m, m)));
}
NV_FN vd vd_abs(vd x) { return _mm256_andnot_pd(_mm256_set1_pd(-0.0), x); }
NV_FN vd vd_xor_sign(vd x) { return _mm256_xor_pd(x, _mm256_set1_pd(-0.0)); }
NV_FN vd vd_sqrt(vd x) { return _mm256_sqrt_pd(x); }
NV_FN vm vm_not(vm m) { return _mm256_xor_pd(m, _mm256_castsi256_pd(_mm256_set1_epi64x(-1))); }
NV_FN vd vd_floor(vd x) { return _mm256_round_pd(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
NV_FN vm vd_eq(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_EQ_OQ); }
NV_FN vm vd_ge(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
NV_FN vm vd_gt(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
NV_FN vm vd_le(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
NV_FN vm vd_lt(vd a, vd b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
/* m ? a : b */
NV_FN vd vd_blend(vm m, vd a, vd b) { return _mm256_blendv_pd(b, a, m); }
NV_FN vm vm_and(vm a, vm b) { return _mm256_and_pd(a, b); }
NV_FN vm vm_or(vm a, vm b) { return _mm256_or_pd(a, b); }
NV_FN int vm_all(vm m) { return _mm256_movemask_pd(m) == 0xF; }
/* truncation; exact on the floors of nv_index_ok lanes */
NV_FN vi vd_to_vi(vd x) { return _mm256_cvttpd_epi32(x); }
NV_FN vd vi_to_vd(vi x) { return _mm256_cvtepi32_pd(x); }
NV_FN vi vi_set1(int x) { return _mm_set1_epi32(x); }
NV_FN vi vi_iota(void) { return _mm_set_epi32(3, 2, 1, 0); }
NV_FN vi vi_loadu(const uint32_t *p) { return _mm_loadu_si128((const __m128i *)p); }
NV_FN void vi_storeu(uint32_t *p, vi v) { _mm_storeu_si128((__m128i *)p, v); }
NV_FN int vi_first(vi v) { return _mm_cvtsi128_si32(v); }
NV_FN int vi_all_eq(vi v, int x)
{
    return _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, _mm_set1_epi32(x)))) == 0xF;
}
NV_FN vi vi_add(vi a, vi b) { return _mm_add_epi32(a, b); }
NV_FN vi vi_mul(vi a, vi b) { return _mm_mullo_epi32(a, b); }
NV_FN vi vi_xor(vi a, vi b) { return _mm_xor_si128(a, b); }
NV_FN vi vi_or(vi a, vi b) { return _mm_or_si128(a, b); }
NV_FN vi vi_and(vi a, vi b) { return _mm_and_si128(a, b); }
#define vi_shl(a, n) _mm_slli_epi32(a, n)
#define vi_shr(a, n) _mm_srli_epi32(a, n)
/* every lane a or b; the lanes equal to x as a double mask */
NV_FN int vi_all_eq2(vi v, int a, int b)
{
    __m128i m = _mm_or_si128(_mm_cmpeq_epi32(v, _mm_set1_epi32(a)), _mm_cmpeq_epi32(v, _mm_set1_epi32(b)));
    return _mm_movemask_ps(_mm_castsi128_ps(m)) == 0xF;
}
NV_FN vm vi_eq_mask(vi v, int x)
{
    return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpeq_epi32(v, _mm_set1_epi32(x))));
}
NV_FN vi vi_gather_bytes(const unsigned char *base, vi index) { return _mm_i32gather_epi32((const int *)(const void *)base, index, 1); }
NV_FN vm vi_mask_to_vm(vi m) { return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(m)); }
NV_FN vm vi_lt_mask(vi v, int x) { return vi_mask_to_vm(_mm_cmplt_epi32(v, _mm_set1_epi32(x))); }
NV_FN vm vi_bit_mask(vi v, int bit) { return vi_mask_to_vm(_mm_cmpeq_epi32(_mm_and_si128(v, _mm_set1_epi32(bit)), _mm_set1_epi32(bit))); }
NV_FN vd vd_gather(const double *base, vi index) { return _mm256_i32gather_pd(base, index, 8); }
/* (float) of each lane; and two vectors interleaved a0 b0 a1 b1 ... */
NV_FN void vd_store_f(float *p, vd v) { _mm_storeu_ps(p, _mm256_cvtpd_ps(v)); }
NV_FN void vd_store_f2(float *p, vd a, vd b)
{
    __m128 fa = _mm256_cvtpd_ps(a), fb = _mm256_cvtpd_ps(b);
    _mm_storeu_ps(p, _mm_unpacklo_ps(fa, fb));
    _mm_storeu_ps(p + 4, _mm_unpackhi_ps(fa, fb));
}

/* each lane rounded to float and back (the article's float variables) */
NV_FN vd vd_round_f(vd v) { return _mm256_cvtps_pd(_mm256_cvtpd_ps(v)); }

#include "noise_vec.h"

const ne_base_table *const ne_bases_avx2 = &nv_bases;

#else

const ne_base_table *const ne_bases_avx2 = NULL;

#endif
