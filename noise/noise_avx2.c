/* noise_avx2.c: the AVX2 path: the vector kernels of noise_vec.h on eight
 * doubles, each vector a pair of __m256d, with 32-bit hashes in one
 * __m256i. Each operation is issued on both halves back to back, so the
 * long dependency chains of the kernels (a simplex corner is some 30
 * dependent operations) run two at a time, and the hashes use the whole
 * 256-bit integer width. Only functions carry the avx2 target, so the file
 * builds with the baseline x86-64 flags and runs only where noise_simd.c
 * found AVX2.
 */
#include "noise_field.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#define NV_W 8
#define NV_TARGET __attribute__((target("avx2")))
#define NV_FN static inline __attribute__((always_inline, target("avx2")))

typedef struct {
    __m256d l, h; /* lanes 0-3, 4-7 */
} vd;
typedef struct {
    __m256d l, h; /* all-ones / all-zeros doubles */
} vm;
typedef struct {
    __m256i l, h; /* two vi (noise_vec_i256.h) side by side */
} vi2;

#include "noise_vec_i256.h"

/* one __m256d operation on both halves */
#define NV_D2(op, a, b) ((vd){ op((a).l, (b).l), op((a).h, (b).h) })
#define NV_M2(op, a, b) ((vm){ op((a).l, (b).l), op((a).h, (b).h) })

NV_FN vd vd_set1(double x)
{
    __m256d v = _mm256_set1_pd(x);
    return (vd){ v, v };
}
NV_FN vd vd_zero(void) { return vd_set1(0.0); }
NV_FN vd vd_iota(void) { return (vd){ _mm256_set_pd(3.0, 2.0, 1.0, 0.0), _mm256_set_pd(7.0, 6.0, 5.0, 4.0) }; }
NV_FN vd vd_loadu(const double *p) { return (vd){ _mm256_loadu_pd(p), _mm256_loadu_pd(p + 4) }; }
NV_FN void vd_storeu(double *p, vd v)
{
    _mm256_storeu_pd(p, v.l);
    _mm256_storeu_pd(p + 4, v.h);
}
NV_FN vd vd_add(vd a, vd b) { return NV_D2(_mm256_add_pd, a, b); }
NV_FN vd vd_sub(vd a, vd b) { return NV_D2(_mm256_sub_pd, a, b); }
NV_FN vd vd_mul(vd a, vd b) { return NV_D2(_mm256_mul_pd, a, b); }
NV_FN vd vd_div(vd a, vd b) { return NV_D2(_mm256_div_pd, a, b); }
/* a > b ? a : b, as the scalar code's r > 0 ? r : 0.0 */
NV_FN vd vd_max(vd a, vd b) { return NV_D2(_mm256_max_pd, a, b); }
NV_FN vd vd_min(vd a, vd b) { return NV_D2(_mm256_min_pd, a, b); }
NV_FN double vd_hmin(vd v)
{
    __m256d q = _mm256_min_pd(v.l, v.h);
    __m128d m = _mm_min_pd(_mm256_castpd256_pd128(q), _mm256_extractf128_pd(q, 1));
    return _mm_cvtsd_f64(_mm_min_sd(m, _mm_unpackhi_pd(m, m)));
}
NV_FN double vd_hmax(vd v)
{
    __m256d q = _mm256_max_pd(v.l, v.h);
    __m128d m = _mm_max_pd(_mm256_castpd256_pd128(q), _mm256_extractf128_pd(q, 1));
    return _mm_cvtsd_f64(_mm_max_sd(m, _mm_unpackhi_pd(m, m)));
}
NV_FN vd vd_abs(vd x) { return NV_D2(_mm256_andnot_pd, vd_set1(-0.0), x); }
NV_FN vd vd_xor_sign(vd x) { return NV_D2(_mm256_xor_pd, x, vd_set1(-0.0)); }
NV_FN vd vd_sqrt(vd x) { return (vd){ _mm256_sqrt_pd(x.l), _mm256_sqrt_pd(x.h) }; }
NV_FN vm vm_not(vm m)
{
    __m256d ones = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    return (vm){ _mm256_xor_pd(m.l, ones), _mm256_xor_pd(m.h, ones) };
}
NV_FN vd vd_floor(vd x)
{
    return (vd){ _mm256_round_pd(x.l, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC),
                 _mm256_round_pd(x.h, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC) };
}
#define NV_CMP(name, pred)                                                                    \
    NV_FN vm name(vd a, vd b)                                                                 \
    {                                                                                         \
        return (vm){ _mm256_cmp_pd(a.l, b.l, pred), _mm256_cmp_pd(a.h, b.h, pred) };          \
    }
NV_CMP(vd_eq, _CMP_EQ_OQ)
NV_CMP(vd_ge, _CMP_GE_OQ)
NV_CMP(vd_gt, _CMP_GT_OQ)
NV_CMP(vd_le, _CMP_LE_OQ)
NV_CMP(vd_lt, _CMP_LT_OQ)
/* m ? a : b */
NV_FN vd vd_blend(vm m, vd a, vd b) { return (vd){ _mm256_blendv_pd(b.l, a.l, m.l), _mm256_blendv_pd(b.h, a.h, m.h) }; }
NV_FN vm vm_and(vm a, vm b) { return NV_M2(_mm256_and_pd, a, b); }
NV_FN vm vm_or(vm a, vm b) { return NV_M2(_mm256_or_pd, a, b); }
NV_FN int vm_all(vm m) { return _mm256_movemask_pd(_mm256_and_pd(m.l, m.h)) == 0xF; }
/* truncation; exact on the floors of nv_index_ok lanes */
NV_FN vi vd_to_vi(vd x)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm256_cvttpd_epi32(x.l)), _mm256_cvttpd_epi32(x.h), 1);
}
NV_FN vd vi_to_vd(vi x)
{
    return (vd){ _mm256_cvtepi32_pd(_mm256_castsi256_si128(x)), _mm256_cvtepi32_pd(_mm256_extracti128_si256(x, 1)) };
}
NV_FN int vi_all_eq(vi v, int x)
{
    return _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, _mm256_set1_epi32(x)))) == 0xFF;
}
#define vi_rotl(a, n) _mm256_or_si256(_mm256_slli_epi32(a, n), _mm256_srli_epi32(a, 32 - (n)))
/* every lane a or b */
NV_FN int vi_all_eq2(vi v, int a, int b)
{
    __m256i m = _mm256_or_si256(_mm256_cmpeq_epi32(v, _mm256_set1_epi32(a)), _mm256_cmpeq_epi32(v, _mm256_set1_epi32(b)));
    return _mm256_movemask_ps(_mm256_castsi256_ps(m)) == 0xFF;
}
/* 32-bit lane masks as double masks */
NV_FN vm vi_mask_to_vm(vi m)
{
    return (vm){ _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(m))),
                 _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(m, 1))) };
}
NV_FN vm vi_eq_mask(vi v, int x) { return vi_mask_to_vm(_mm256_cmpeq_epi32(v, _mm256_set1_epi32(x))); }
NV_FN vm vi_lt_mask(vi v, int x) { return vi_mask_to_vm(_mm256_cmpgt_epi32(_mm256_set1_epi32(x), v)); }
NV_FN vm vi_bit_mask(vi v, int bit)
{
    __m256i b = _mm256_set1_epi32(bit);
    return vi_mask_to_vm(_mm256_cmpeq_epi32(_mm256_and_si256(v, b), b));
}
NV_FN vd vd_gather(const double *base, vi index)
{
    return (vd){ _mm256_i32gather_pd(base, _mm256_castsi256_si128(index), 8),
                 _mm256_i32gather_pd(base, _mm256_extracti128_si256(index, 1), 8) };
}
/* lane l = base[d[l]] for d[l] in [0, 8): a gather from eight doubles in
 * registers (each half picks 32-bit words from both halves of the table
 * and keeps the half its index names) */
NV_FN __m256d nv_perm8_half(__m256 lo, __m256 hi, __m128i d4)
{
    __m256i e = _mm256_cvtepu32_epi64(d4), e2 = _mm256_add_epi64(e, e);
    __m256i w = _mm256_or_si256(e2, _mm256_slli_epi64(_mm256_add_epi64(e2, _mm256_set1_epi64x(1)), 32));
    __m256d from_lo = _mm256_castps_pd(_mm256_permutevar8x32_ps(lo, w));
    __m256d from_hi = _mm256_castps_pd(_mm256_permutevar8x32_ps(hi, w));
    return _mm256_blendv_pd(from_lo, from_hi, _mm256_castsi256_pd(_mm256_cmpgt_epi64(e, _mm256_set1_epi64x(3))));
}
NV_FN vd vd_perm8(const double *base, vi d)
{
    __m256 lo = _mm256_loadu_ps((const float *)(const void *)base);
    __m256 hi = _mm256_loadu_ps((const float *)(const void *)(base + 4));
    return (vd){ nv_perm8_half(lo, hi, _mm256_castsi256_si128(d)), nv_perm8_half(lo, hi, _mm256_extracti128_si256(d, 1)) };
}
/* (float) of each lane; and two vectors interleaved a0 b0 a1 b1 ... */
NV_FN void vd_store_f(float *p, vd v)
{
    _mm_storeu_ps(p, _mm256_cvtpd_ps(v.l));
    _mm_storeu_ps(p + 4, _mm256_cvtpd_ps(v.h));
}
/* per half: a0-a3 b0-b3 in one register, put in order by one permute,
 * one 32-byte store */
NV_FN void vd_store_f2(float *p, vd a, vd b)
{
    const __m256i order = _mm256_set_epi32(7, 3, 6, 2, 5, 1, 4, 0);
    __m256 lo = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(a.l)), _mm256_cvtpd_ps(b.l), 1);
    __m256 hi = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(a.h)), _mm256_cvtpd_ps(b.h), 1);
    _mm256_storeu_ps(p, _mm256_permutevar8x32_ps(lo, order));
    _mm256_storeu_ps(p + 8, _mm256_permutevar8x32_ps(hi, order));
}

/* 16 hash lanes */
NV_FN vi2 vi2_set1(int x)
{
    __m256i v = _mm256_set1_epi32(x);
    return (vi2){ v, v };
}
NV_FN vi2 vi2_add(vi2 a, vi2 b) { return (vi2){ _mm256_add_epi32(a.l, b.l), _mm256_add_epi32(a.h, b.h) }; }
NV_FN vi2 vi2_mul(vi2 a, vi2 b) { return (vi2){ _mm256_mullo_epi32(a.l, b.l), _mm256_mullo_epi32(a.h, b.h) }; }
NV_FN vi2 vi2_xor(vi2 a, vi2 b) { return (vi2){ _mm256_xor_si256(a.l, b.l), _mm256_xor_si256(a.h, b.h) }; }
#define vi2_shr(a, n) ((vi2){ _mm256_srli_epi32((a).l, n), _mm256_srli_epi32((a).h, n) })
#define vi2_rotl(a, n) ((vi2){ vi_rotl((a).l, n), vi_rotl((a).h, n) })
NV_FN vi2 vi2_join(vi lo, vi hi) { return (vi2){ lo, hi }; }
NV_FN vi vi2_lo(vi2 v) { return v.l; }
NV_FN vi vi2_hi(vi2 v) { return v.h; }

/* Table entries at the byte offsets off[0..7] from t (noise_vec.h passes
 * byte A of each hash times the entry size, computed on the vector, so no
 * lane pays a mask and a scale): loads and a transpose, which on this
 * path's CPUs beat a gather instruction and computing the entry (a
 * divide). */
#define NV_TABLES 1
#define NV_PTS_TABLES 1 /* the batch blocks too */
#define NV_AT(t, o) ((const double *)(const void *)((const char *)(t) + (o)))
NV_FN __m256d nv_table1_4(const double *t, const uint32_t *off)
{
    __m128d lo = _mm_loadh_pd(_mm_load_sd(NV_AT(t, off[0])), NV_AT(t, off[1]));
    __m128d hi = _mm_loadh_pd(_mm_load_sd(NV_AT(t, off[2])), NV_AT(t, off[3]));
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(lo), hi, 1);
}
NV_FN vd vd_table1(const double *t, const uint32_t *off) { return (vd){ nv_table1_4(t, off), nv_table1_4(t, off + 4) }; }
NV_FN void nv_table2_4(const double *t, const uint32_t *off, __m256d *a, __m256d *b)
{
    __m256d p02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(NV_AT(t, off[0]))),
                                       _mm_loadu_pd(NV_AT(t, off[2])), 1);
    __m256d p13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(NV_AT(t, off[1]))),
                                       _mm_loadu_pd(NV_AT(t, off[3])), 1);
    *a = _mm256_unpacklo_pd(p02, p13);
    *b = _mm256_unpackhi_pd(p02, p13);
}
NV_FN void vd_table2(const double *t, const uint32_t *off, vd *a, vd *b)
{
    nv_table2_4(t, off, &a->l, &b->l);
    nv_table2_4(t, off + 4, &a->h, &b->h);
}

/* Half k (lanes 4k .. 4k + 3) of a vector, in both halves of a vd, and
 * back: noise_vec.h runs a kernel that needs more registers than the
 * machine has on one half at a time (its results' .h are never read, so
 * the compiler drops every operation on them); vd_table2_half is
 * vd_table2's half k likewise. */
#define NV_HALVES 1
NV_FN vd vd_half(vd x, int k) { return k ? (vd){ x.h, x.h } : (vd){ x.l, x.l }; }
NV_FN vd vd_halves(vd a, vd b) { return (vd){ a.l, b.l }; }
NV_FN void vd_table2_half(const double *t, const uint32_t *off, int k, vd *a, vd *b)
{
    nv_table2_4(t, off + 4 * k, &a->l, &b->l);
    a->h = a->l;
    b->h = b->l;
}

/* each lane rounded to float and back (the article's float variables) */
NV_FN vd vd_round_f(vd v) { return (vd){ _mm256_cvtps_pd(_mm256_cvtpd_ps(v.l)), _mm256_cvtps_pd(_mm256_cvtpd_ps(v.h)) }; }

/* Eight (x, y) pairs from p into x and y, and back (p[2i] = x lane i,
 * p[2i + 1] = y lane i): per half, pairs 0 and 2 and pairs 1 and 3 in one
 * register each, then one unpack per coordinate. */
NV_FN void nv_load2_4(const double *p, __m256d *x, __m256d *y)
{
    __m256d p02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p)), _mm_loadu_pd(p + 4), 1);
    __m256d p13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p + 2)), _mm_loadu_pd(p + 6), 1);
    *x = _mm256_unpacklo_pd(p02, p13);
    *y = _mm256_unpackhi_pd(p02, p13);
}
NV_FN void vd_load2(const double *p, vd *x, vd *y)
{
    nv_load2_4(p, &x->l, &y->l);
    nv_load2_4(p + 8, &x->h, &y->h);
}
NV_FN void nv_store2_4(double *p, __m256d x, __m256d y)
{
    __m256d p02 = _mm256_unpacklo_pd(x, y), p13 = _mm256_unpackhi_pd(x, y);
    _mm256_storeu_pd(p, _mm256_permute2f128_pd(p02, p13, 0x20));
    _mm256_storeu_pd(p + 4, _mm256_permute2f128_pd(p02, p13, 0x31));
}
NV_FN void vd_store2(double *p, vd x, vd y)
{
    nv_store2_4(p, x.l, y.l);
    nv_store2_4(p + 8, x.h, y.h);
}

/* 1 if no lane of a or b is x or y */
NV_FN int vi_none_eq2(vi a, vi b, int x, int y)
{
    __m256i vx = _mm256_set1_epi32(x), vy = _mm256_set1_epi32(y);
    __m256i m = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi32(a, vx), _mm256_cmpeq_epi32(a, vy)),
                                _mm256_or_si256(_mm256_cmpeq_epi32(b, vx), _mm256_cmpeq_epi32(b, vy)));
    return _mm256_testz_si256(m, m);
}
/* Lane 0. */
NV_FN double vd_first(vd v) { return _mm256_cvtsd_f64(v.l); }
/* Per-lane picks from a short table: lane l gets t[d[l]], d[l] one of
 * 0.0, 1.0 (vd_pick2: reads t[0..1]) or 0.0 .. 3.0 (vd_pick4: t[0..3]),
 * given their selectors: vd_sel2(d) (made once, used for several tables),
 * and vd_sel4_2(d, m) for a table of pairs, entry 2 d + (m ? 0 : 1). Other
 * d[l] pick some entry of those (the caller checks such lanes). vd_sel2: d
 * + 2^51 has d in bit 1 of its low word, vpermilpd's selector within each
 * 128-bit half of [t0 t1 t0 t1]. vd_sel4_2: entry e's 2^52 + 2^32 + 2e
 * (2^32 + 1) (exact for these d) has 2e in its low word and 2e + 1 in the
 * low bits of its high word: vpermps's selectors of the two floats of e. */
NV_FN vd vd_sel2(vd d) { return vd_add(d, vd_set1(0x1p51)); }
NV_FN vd vd_sel4_2(vd d, vm m)
{
    const double c = 0x1p52 + 0x1p32;
    return vd_add(vd_mul(d, vd_set1(0x1p34 + 4.0)), vd_blend(m, vd_set1(c), vd_set1(c + 0x1p33 + 2.0)));
}
NV_FN vd vd_pick2(const double *t, vd s)
{
    __m256d tab = _mm256_broadcast_pd((const __m128d *)(const void *)t);
    return (vd){ _mm256_permutevar_pd(tab, _mm256_castpd_si256(s.l)), _mm256_permutevar_pd(tab, _mm256_castpd_si256(s.h)) };
}
NV_FN vd vd_pick4(const double *t, vd s)
{
    __m256 tab = _mm256_loadu_ps((const float *)(const void *)t);
    return (vd){ _mm256_castps_pd(_mm256_permutevar8x32_ps(tab, _mm256_castpd_si256(s.l))),
                 _mm256_castps_pd(_mm256_permutevar8x32_ps(tab, _mm256_castpd_si256(s.h))) };
}

#include "noise_vec.h"

const ne_base_table *const ne_bases_avx2 = &nv_bases;

#else

const ne_base_table *const ne_bases_avx2 = NULL;

#endif
