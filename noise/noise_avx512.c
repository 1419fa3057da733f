/* noise_avx512.c: the AVX-512 path: the vector kernels of noise_vec.h on
 * eight doubles (__m512d, AVX-512F) with 32-bit hashes in __m256i (AVX2,
 * noise_vec_i256.h, and AVX-512VL's rotate and compare masks).
 * Only functions carry the target, so the file builds with the baseline
 * x86-64 flags and runs only where noise_simd.c found AVX-512F, AVX-512VL and AVX2.
 */
#include "noise_field.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define NV_W 8
#define NV_TARGET __attribute__((target("avx512f,avx512vl,avx2")))
#define NV_FN static inline __attribute__((always_inline, target("avx512f,avx512vl,avx2")))

typedef __m512d vd;
typedef __mmask8 vm;

#include "noise_vec_i256.h"

NV_FN vd vd_set1(double x) { return _mm512_set1_pd(x); }
NV_FN vd vd_zero(void) { return _mm512_setzero_pd(); }
NV_FN vd vd_iota(void) { return _mm512_set_pd(7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0); }
NV_FN vd vd_loadu(const double *p) { return _mm512_loadu_pd(p); }
NV_FN void vd_storeu(double *p, vd v) { _mm512_storeu_pd(p, v); }
NV_FN vd vd_add(vd a, vd b) { return _mm512_add_pd(a, b); }
NV_FN vd vd_sub(vd a, vd b) { return _mm512_sub_pd(a, b); }
NV_FN vd vd_mul(vd a, vd b) { return _mm512_mul_pd(a, b); }
NV_FN vd vd_div(vd a, vd b) { return _mm512_div_pd(a, b); }
/* a > b ? a : b, as the scalar code's r > 0 ? r : 0.0 */
NV_FN vd vd_max(vd a, vd b) { return _mm512_max_pd(a, b); }
NV_FN vd vd_min(vd a, vd b) { return _mm512_min_pd(a, b); }
NV_FN double vd_hmin(vd v) { return _mm512_reduce_min_pd(v); }
NV_FN double vd_hmax(vd v) { return _mm512_reduce_max_pd(v); }
NV_FN vd vd_abs(vd x) { return _mm512_abs_pd(x); }
NV_FN vd vd_xor_sign(vd x) { return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(x), _mm512_set1_epi64((long long)0x8000000000000000ull))); }
NV_FN vd vd_sqrt(vd x) { return _mm512_sqrt_pd(x); }
NV_FN vm vm_not(vm m) { return (vm)~m; }
NV_FN vd vd_floor(vd x) { return _mm512_roundscale_pd(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
NV_FN vm vd_eq(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ); }
NV_FN vm vd_ge(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_GE_OQ); }
NV_FN vm vd_gt(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ); }
NV_FN vm vd_le(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ); }
NV_FN vm vd_lt(vd a, vd b) { return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ); }
/* m ? a : b */
NV_FN vd vd_blend(vm m, vd a, vd b) { return _mm512_mask_blend_pd(m, b, a); }
NV_FN vm vm_and(vm a, vm b) { return (vm)(a & b); }
NV_FN vm vm_or(vm a, vm b) { return (vm)(a | b); }
NV_FN int vm_all(vm m) { return m == 0xFF; }
/* truncation; exact on the floors of nv_index_ok lanes */
NV_FN vi vd_to_vi(vd x) { return _mm512_cvttpd_epi32(x); }
NV_FN vd vi_to_vd(vi x) { return _mm512_cvtepi32_pd(x); }
NV_FN int vi_all_eq(vi v, int x) { return _mm256_cmpeq_epi32_mask(v, _mm256_set1_epi32(x)) == 0xFF; }
#define vi_rotl(a, n) _mm256_rol_epi32(a, n)
/* every lane a or b; the lanes equal to x as a mask */
NV_FN int vi_all_eq2(vi v, int a, int b)
{
    return (_mm256_cmpeq_epi32_mask(v, _mm256_set1_epi32(a)) | _mm256_cmpeq_epi32_mask(v, _mm256_set1_epi32(b))) == 0xFF;
}
NV_FN vm vi_eq_mask(vi v, int x) { return _mm256_cmpeq_epi32_mask(v, _mm256_set1_epi32(x)); }
NV_FN vm vi_lt_mask(vi v, int x) { return _mm256_cmplt_epi32_mask(v, _mm256_set1_epi32(x)); }
NV_FN vm vi_bit_mask(vi v, int bit) { return _mm256_test_epi32_mask(v, _mm256_set1_epi32(bit)); }
NV_FN vd vd_gather(const double *base, vi index) { return _mm512_i32gather_pd(index, base, 8); }
/* lane l = base[d[l]] for d[l] in [0, 8): a gather from eight doubles in
 * a register */
NV_FN vd vd_perm8(const double *base, vi d)
{
    return _mm512_permutexvar_pd(_mm512_cvtepu32_epi64(d), _mm512_loadu_pd(base));
}
/* (float) of each lane; and two vectors interleaved a0 b0 a1 b1 ... */
NV_FN void vd_store_f(float *p, vd v) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(v)); }
NV_FN void vd_store_f2(float *p, vd a, vd b)
{
    __m512 fa = _mm512_castps256_ps512(_mm512_cvtpd_ps(a)), fb = _mm512_castps256_ps512(_mm512_cvtpd_ps(b));
    const __m512i order = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    _mm512_storeu_ps(p, _mm512_permutex2var_ps(fa, order, fb));
}

/* 16 hash lanes (two vi side by side) */
typedef __m512i vi2;
NV_FN vi2 vi2_set1(int x) { return _mm512_set1_epi32(x); }
NV_FN vi2 vi2_add(vi2 a, vi2 b) { return _mm512_add_epi32(a, b); }
NV_FN vi2 vi2_mul(vi2 a, vi2 b) { return _mm512_mullo_epi32(a, b); }
NV_FN vi2 vi2_xor(vi2 a, vi2 b) { return _mm512_xor_si512(a, b); }
#define vi2_shr(a, n) _mm512_srli_epi32(a, n)
#define vi2_rotl(a, n) _mm512_rol_epi32(a, n)
NV_FN vi2 vi2_join(vi lo, vi hi) { return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1); }
NV_FN vi vi2_lo(vi2 v) { return _mm512_castsi512_si256(v); }
NV_FN vi vi2_hi(vi2 v) { return _mm512_extracti64x4_epi64(v, 1); }

/* Table entries are computed (value, diamond) or gathered (simplex) in
 * the row kernels: a grid row's vectors hash once per cell and the
 * arithmetic hides in the blend. A batch of points (noise_vec.h's two-pass
 * blocks, NV_PTS_TABLES) reads them by loads, as noise_avx2.c does, from
 * byte offsets stored by its first pass: per point the entries are all
 * there is besides the blend, and on Zen 5 loads and one unpack per pair
 * of vectors beat both computing the entry and a gather instruction
 * (BENCHMARKS.md, "Batches and single points"). */
#define NV_TABLES 0
#define NV_PTS_TABLES 1
#define NV_AT(t, o) ((const double *)(const void *)((const char *)(t) + (o)))
/* two entries of a [256] table, at byte offsets a and b, in one register */
NV_FN __m128d nv_table1_2(const double *t, uint32_t a, uint32_t b)
{
    return _mm_loadh_pd(_mm_load_sd(NV_AT(t, a)), NV_AT(t, b));
}
NV_FN __m256d nv_join2(__m128d lo, __m128d hi) { return _mm256_insertf128_pd(_mm256_castpd128_pd256(lo), hi, 1); }
NV_FN __m512d nv_join4(__m256d lo, __m256d hi) { return _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1); }
NV_FN vd vd_table1(const double *t, const uint32_t *off)
{
    return nv_join4(nv_join2(nv_table1_2(t, off[0], off[1]), nv_table1_2(t, off[2], off[3])),
                    nv_join2(nv_table1_2(t, off[4], off[5]), nv_table1_2(t, off[6], off[7])));
}
/* Entries of a [256][2] table: the pairs of lanes 0, 2, 4, 6 in one
 * register and of lanes 1, 3, 5, 7 in another, so one unpack per
 * coordinate puts lane l's first (second) double in lane l of a (b). */
NV_FN __m128d nv_pair(const double *t, uint32_t o) { return _mm_loadu_pd(NV_AT(t, o)); }
NV_FN void vd_table2(const double *t, const uint32_t *off, vd *a, vd *b)
{
    __m512d even = nv_join4(nv_join2(nv_pair(t, off[0]), nv_pair(t, off[2])),
                            nv_join2(nv_pair(t, off[4]), nv_pair(t, off[6])));
    __m512d odd = nv_join4(nv_join2(nv_pair(t, off[1]), nv_pair(t, off[3])),
                           nv_join2(nv_pair(t, off[5]), nv_pair(t, off[7])));
    *a = _mm512_unpacklo_pd(even, odd);
    *b = _mm512_unpackhi_pd(even, odd);
}
/* each lane rounded to float and back (the article's float variables) */
NV_FN vd vd_round_f(vd v) { return _mm512_cvtps_pd(_mm512_cvtpd_ps(v)); }

/* Eight (x, y) pairs from p into x and y, and back (p[2i] = x lane i,
 * p[2i + 1] = y lane i) */
NV_FN void vd_load2(const double *p, vd *x, vd *y)
{
    __m512d a = _mm512_loadu_pd(p), b = _mm512_loadu_pd(p + 8);
    *x = _mm512_permutex2var_pd(a, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), b);
    *y = _mm512_permutex2var_pd(a, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), b);
}
NV_FN void vd_store2(double *p, vd x, vd y)
{
    _mm512_storeu_pd(p, _mm512_permutex2var_pd(x, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), y));
    _mm512_storeu_pd(p + 8, _mm512_permutex2var_pd(x, _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), y));
}

/* 1 if no lane of a or b is x or y */
NV_FN int vi_none_eq2(vi a, vi b, int x, int y)
{
    __m256i vx = _mm256_set1_epi32(x), vy = _mm256_set1_epi32(y);
    return (_mm256_cmpeq_epi32_mask(a, vx) | _mm256_cmpeq_epi32_mask(a, vy) | _mm256_cmpeq_epi32_mask(b, vx) |
            _mm256_cmpeq_epi32_mask(b, vy)) == 0;
}
/* Lane 0. */
NV_FN double vd_first(vd v) { return _mm512_cvtsd_f64(v); }
/* Per-lane picks from a short table (as noise_avx2.c's): lane l gets
 * t[d[l]], d[l] one of 0.0, 1.0 (vd_pick2: reads t[0..1]) or 0.0 .. 3.0
 * (vd_pick4: t[0..3]), given their selectors vd_sel2(d), or vd_sel4_2(d,
 * m) for entry 2 d + (m ? 0 : 1) of a table of pairs; other d[l] pick some
 * entry of those (the caller checks such lanes). d + 2^52 has d in its low
 * bits: masked to the table's entries, vpermpd's selector. */
NV_FN vd vd_sel2(vd d) { return _mm512_add_pd(d, _mm512_set1_pd(0x1p52)); }
NV_FN vd vd_sel4_2(vd d, vm m)
{
    return _mm512_add_pd(_mm512_add_pd(d, d), vd_blend(m, _mm512_set1_pd(0x1p52), _mm512_set1_pd(0x1p52 + 1.0)));
}
NV_FN vd nv_pick(vd tab, vd s, long long mask)
{
    return _mm512_permutexvar_pd(_mm512_and_si512(_mm512_castpd_si512(s), _mm512_set1_epi64(mask)), tab);
}
NV_FN vd vd_pick2(const double *t, vd s) { return nv_pick(_mm512_castpd128_pd512(_mm_loadu_pd(t)), s, 1); }
NV_FN vd vd_pick4(const double *t, vd s) { return nv_pick(_mm512_castpd256_pd512(_mm256_loadu_pd(t)), s, 3); }

#include "noise_vec.h"

const ne_base_table *const ne_bases_avx512 = &nv_bases;

#else

const ne_base_table *const ne_bases_avx512 = NULL;

#endif
