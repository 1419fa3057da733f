/* noise_vec_hash.h: the lattice helpers every vector kernel uses: the fade
 * curves, SmallXXHash on lanes (nl_eat / nl_avalanche of noise_lattice.h), a
 * period's index wrap, and the checks that send a lane to the scalar kernel.
 *
 * Internal to noise/: included by noise_vec.h, in the order it lists (a file
 * uses what the files before it define), once per instruction-set path.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_HASH_H
#define NOISE_VEC_HASH_H

NV_FN vd nv_fade(vd t)
{
    /* t * t * t * (t * (t * 6 - 15) + 10) */
    vd a = vd_mul(vd_mul(t, t), t);
    vd b = vd_add(vd_mul(t, vd_sub(vd_mul(t, vd_set1(6.0)), vd_set1(15.0))), vd_set1(10.0));
    return vd_mul(a, b);
}

NV_FN vd nv_dfade(vd t)
{
    vd u = vd_mul(t, vd_sub(t, vd_set1(1.0)));
    return vd_mul(vd_set1(30.0), vd_mul(u, u));
}

/* SmallXXHash's steps on vi (NV_W lanes) and vi2 (2 * NV_W lanes, two
 * corners' worth of lanes per instruction). nl_eat(acc, data) is eat_sum
 * of acc + data * PRIME_C: integer arithmetic wraps exactly, so callers
 * that eat data and data + 1 share the multiply (data * PRIME_C + PRIME_C). */
#define NV_HASH_STEPS(T, P, EAT_SUM, AVALANCHE)                                 \
    NV_FN T EAT_SUM(T sum) { return P##_mul(P##_rotl(sum, 17), P##_set1((int)NL_PRIME_D)); } \
    NV_FN T AVALANCHE(T a)                                                      \
    {                                                                           \
        a = P##_xor(a, P##_shr(a, 15));                                         \
        a = P##_mul(a, P##_set1((int)NL_PRIME_B));                              \
        a = P##_xor(a, P##_shr(a, 13));                                         \
        a = P##_mul(a, P##_set1((int)NL_PRIME_C));                              \
        return P##_xor(a, P##_shr(a, 16));                                      \
    }
NV_HASH_STEPS(vi, vi, nv_eat_sum, nv_avalanche)
NV_HASH_STEPS(vi2, vi2, nv2_eat_sum, nv2_avalanche)

NV_FN vi nv_mulc(vi data) { return vi_mul(data, vi_set1((int)NL_PRIME_C)); }

NV_FN vi nv_eat(vi acc, vi data) { return nv_eat_sum(vi_add(acc, nv_mulc(data))); }

/* The hashes of corners (i, j), (i, j + 1), (i + 1, j), (i + 1, j + 1):
 * avalanche(eat(eat(s, i + di), j + dj)), as nk_sq2_column / nk_tri2_hashes.
 * Integer arithmetic wraps exactly, so (i + 1) * PRIME_C is i * PRIME_C +
 * PRIME_C, and the corners are hashed two at a time: h[0] holds (i, j) and
 * (i + 1, j) side by side, h[1] (i, j + 1) and (i + 1, j + 1). */
NV_FN void nv_hash4(vi s, vi i, vi j, vi2 h[2])
{
    vi pc = vi_set1((int)NL_PRIME_C), ic = vi_add(s, nv_mulc(i)), jc = nv_mulc(j);
    vi2 hi = nv2_eat_sum(vi2_join(ic, vi_add(ic, pc)));
    h[0] = nv2_avalanche(nv2_eat_sum(vi2_add(hi, vi2_join(jc, jc))));
    jc = vi_add(jc, pc);
    h[1] = nv2_avalanche(nv2_eat_sum(vi2_add(hi, vi2_join(jc, jc))));
}

/* A periodic octave's lattice indices (per cells, per > 0): w0 = nl_wrap(fl,
 * per) and w1 = nl_wrap(fl + 1, per) of integral lanes fl (|fl| < 2^52), as
 * doubles in [0, per). fl - per * floor(fl * (1 / per)) is exact (integers
 * below 2^53) and in [-per, 2 per): the rounded quotient's floor is at
 * most one off, which one correction either way undoes. */
NV_FN void nv_wrap2(vd fl, uint32_t per, vd *w0, vd *w1)
{
    vd p = vd_set1((double)per), zero = vd_zero();
    vd r = vd_sub(fl, vd_mul(p, vd_floor(vd_mul(fl, vd_set1(1.0 / (double)per)))));
    r = vd_blend(vd_lt(r, zero), vd_add(r, p), r);
    r = vd_blend(vd_ge(r, p), vd_sub(r, p), r);
    vd r1 = vd_add(r, vd_set1(1.0));
    *w0 = r;
    *w1 = vd_blend(vd_ge(r1, p), zero, r1);
}

/* nv_wrap2's w0 as an int32 index (a column or a cell's x or y) */
NV_FN vi nv_wrap(vd fl, uint32_t per)
{
    vd w0, w1;
    nv_wrap2(fl, per, &w0, &w1);
    return vd_to_vi(w0);
}

/* nv_hash4 of the floors fx, fy (i, j: their int32 truncations) with the
 * period per (0: none): each corner's index wrapped first, i + 1 and j + 1
 * after adding the 1, as nk_sq2p hashes them. A wrapped index is in [0,
 * per), an int32, so nl_eat64 eats its low word only. */
NV_FN void nv_hash4p(vi s, vi i, vi j, vd fx, vd fy, uint32_t per, vi2 h[2])
{
    if (!per) {
        nv_hash4(s, i, j, h);
        return;
    }
    vd i0, i1, j0, j1;
    nv_wrap2(fx, per, &i0, &i1);
    nv_wrap2(fy, per, &j0, &j1);
    vi2 hi = nv2_eat_sum(vi2_join(vi_add(s, nv_mulc(vd_to_vi(i0))), vi_add(s, nv_mulc(vd_to_vi(i1)))));
    vi jc = nv_mulc(vd_to_vi(j0));
    h[0] = nv2_avalanche(nv2_eat_sum(vi2_add(hi, vi2_join(jc, jc))));
    jc = nv_mulc(vd_to_vi(j1));
    h[1] = nv2_avalanche(nv2_eat_sum(vi2_add(hi, vi2_join(jc, jc))));
}

/* Lanes whose floor lies in [-2^31, 2^31 - 2]: the index and index + 1 are
 * int32, where nl_eat64 eats the low word only. False for NaN. */
NV_FN vm nv_index_ok(vd fl)
{
    return vm_and(vd_ge(fl, vd_set1(-2147483648.0)), vd_le(fl, vd_set1(2147483646.0)));
}

/* x - floor(x) (fl), the scalar nl_floor's fraction x - t + 0.0: the
 * scalar adds +0 because its t is +0 where x is -0; floor(-0) is -0 and
 * -0 - -0 is +0, and otherwise x - fl is never -0, so no add is needed. */
NV_FN vd nv_frac(vd x, vd fl) { return vd_sub(x, fl); }

#endif
