/* noise_vec_i256.h: internal to noise/: the 32-bit integer lanes (vi, eight
 * in one __m256i, AVX2 instructions) that noise_avx2.c and noise_avx512.c
 * both use for hashes, under their own NV_FN target attribute. Each path
 * adds its rotate and lane masks.

 *
 * Internal prefixes (ne_, nl_, nk_, nc_, nv_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_I256_H
#define NOISE_VEC_I256_H

typedef __m256i vi;

NV_FN vi vi_set1(int x) { return _mm256_set1_epi32(x); }
NV_FN vi vi_iota(void) { return _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0); }
NV_FN vi vi_loadu(const uint32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
NV_FN void vi_storeu(uint32_t *p, vi v) { _mm256_storeu_si256((__m256i *)p, v); }
NV_FN int vi_first(vi v) { return _mm256_cvtsi256_si32(v); }
NV_FN vi vi_add(vi a, vi b) { return _mm256_add_epi32(a, b); }
NV_FN vi vi_mul(vi a, vi b) { return _mm256_mullo_epi32(a, b); }
NV_FN vi vi_xor(vi a, vi b) { return _mm256_xor_si256(a, b); }
NV_FN vi vi_or(vi a, vi b) { return _mm256_or_si256(a, b); }
NV_FN vi vi_and(vi a, vi b) { return _mm256_and_si256(a, b); }
#define vi_shl(a, n) _mm256_slli_epi32(a, n)
#define vi_shr(a, n) _mm256_srli_epi32(a, n)
/* 1 if every lane is in [0, 8) */
NV_FN int vi_all_below8(vi v) { return _mm256_testz_si256(v, _mm256_set1_epi32(~7)); }
/* bytes at base + index (a table padded to be read 4 bytes at a time) */
NV_FN vi vi_gather_bytes(const unsigned char *base, vi index)
{
    return _mm256_i32gather_epi32((const int *)(const void *)base, index, 1);
}

#endif
