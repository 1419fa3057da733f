/* noise_vec_points.h: the 2D points loops of the square and triangle lattices
 * (nv_eval2, nv_pts2) and fbm at batches of points (ne_fbm_pts_fn: nv_fbm_pts,
 * with the two-pass blocks nv_sq2_block and nv_tri2_block).
 *
 * Internal to noise/: included by noise_vec.h, in the order it lists (a file
 * uses what the files before it define), once per instruction-set path.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_POINTS_H
#define NOISE_VEC_POINTS_H

enum { NV_SQ2 = 0, NV_TRI2 = 1 };

/* per: the square lattice's period in cells (0: none); the triangle
 * lattice has none */
NV_FN int nv_kernel2(int lat, int mode, int want_grad, uint32_t seed, uint32_t per, vd x, vd y, vd *val, vd *g0,
                     vd *g1)
{
    if (lat == NV_SQ2)
        return nv_sq2(mode, want_grad, seed, per, x, y, val, g0, g1);
    return nv_tri2(mode, want_grad, seed, x, y, val, g0, g1);
}

NV_FN double nv_scalar2(int lat, int mode, int want_grad, uint32_t seed, uint32_t per, double x, double y,
                        double *g)
{
    if (lat == NV_SQ2)
        return nk_sq2p(mode, seed, per, x, y, want_grad, g);
    return nk_tri2(mode, seed, x, y, want_grad, g);
}

/* nv_kernel2, or lane by lane the scalar kernel where it cannot run */
NV_FN void nv_eval2(int lat, int mode, int want_grad, uint32_t seed, uint32_t per, vd x, vd y, vd *val, vd *g0,
                    vd *g1)
{
    if (nv_kernel2(lat, mode, want_grad, seed, per, x, y, val, g0, g1))
        return;
    double X[NV_W], Y[NV_W], V[NV_W], G0[NV_W], G1[NV_W];
    vd_storeu(X, x);
    vd_storeu(Y, y);
    for (int l = 0; l < NV_W; l++) {
        double gd[2] = { 0, 0 };
        V[l] = nv_scalar2(lat, mode, want_grad, seed, per, X[l], Y[l], gd);
        G0[l] = gd[0];
        G1[l] = gd[1];
    }
    *val = vd_loadu(V);
    *g0 = vd_loadu(G0);
    *g1 = vd_loadu(G1);
}

/* Base noise of octave k at n points (ys NULL: all at the row's y); t
 * unused (NV_LOOPS's arguments). */
NV_FN void nv_pts2(int lat, int mode, int want_grad, const ne_layer *L, int k, int n, const double *xs,
                   const double *ys, double y, double t, double *v, ne_grad g)
{
    (void)t;
    uint32_t seed = L->seed[k], per = L->period[k];
    double f = L->freq[k], qy = y * f;
    vd vf = vd_set1(f), vqy = vd_set1(qy);
    int i = 0;
    for (; i + NV_W <= n; i += NV_W) {
        vd val, g0 = vd_zero(), g1 = vd_zero();
        nv_eval2(lat, mode, want_grad, seed, per, vd_mul(vd_loadu(xs + i), vf),
                 ys ? vd_mul(vd_loadu(ys + i), vf) : vqy, &val, &g0, &g1);
        vd_storeu(v + i, val);
        if (want_grad) {
            vd_storeu(g[0] + i, g0);
            vd_storeu(g[1] + i, g1);
        }
    }
    for (; i < n; i++) {
        double gd[2];
        v[i] = nv_scalar2(lat, mode, want_grad, seed, per, xs[i] * f, ys ? ys[i] * f : qy, gd);
        if (want_grad) {
            g[0][i] = gd[0];
            g[1][i] = gd[1];
        }
    }
}

/* ---- fbm at 2D points given as (x, y) pairs (ne_fbm_pts_fn) ---- */

/* nv_octave2's third kernel: improved noise's z = 0 slice */
enum { NV_IMP2 = 2 };

/* Base noise of octave k at plane points (x, y): nv_pts2's and
 * nv_improved_pts's numbers (noise space = plane * freq, the same product),
 * lane by lane the scalar kernel where the vector one cannot run. */
NV_FN void nv_octave2(int lat, int mode, int want_grad, const ne_layer *L, int k, vd x, vd y, vd *val, vd *g0,
                      vd *g1)
{
    vd f = vd_set1(L->freq[k]);
    x = vd_mul(x, f);
    y = vd_mul(y, f);
    if (lat != NV_IMP2) {
        nv_eval2(lat, mode, want_grad, L->seed[k], L->period[k], x, y, val, g0, g1);
        return;
    }
    vd g[3];
    if (nv_improved3(L->perm[k], want_grad, 1, x, y, vd_zero(), val, g)) {
        if (want_grad) {
            *g0 = g[0];
            *g1 = g[1];
        }
        return;
    }
    double X[NV_W], Y[NV_W], V[NV_W], G0[NV_W], G1[NV_W];
    vd_storeu(X, x);
    vd_storeu(Y, y);
    for (int l = 0; l < NV_W; l++) {
        double gd[3] = { 0, 0, 0 };
        V[l] = nk_improved3(L->perm[k], X[l], Y[l], 0.0, want_grad, gd);
        G0[l] = gd[0];
        G1[l] = gd[1];
    }
    *val = vd_loadu(V);
    *g0 = vd_loadu(G0);
    *g1 = vd_loadu(G1);
}

/* An octave's values and gradients into a block's sums: acc 0, the first
 * (only) octave as it is; 1, v += amp_k * val and g += amp_freq_k * g. */
NV_FN void nv_acc(int want_grad, int acc, const ne_layer *L, int k, vd val, vd d0, vd d1, vd *v, vd *g0, vd *g1)
{
    if (!acc) {
        *v = val;
        *g0 = d0;
        *g1 = d1;
        return;
    }
    *v = vd_add(*v, vd_mul(vd_set1(L->amp[k]), val));
    if (want_grad) {
        vd af = vd_set1(L->amp_freq[k]);
        *g0 = vd_add(*g0, vd_mul(af, d0));
        *g1 = vd_add(*g1, vd_mul(af, d1));
    }
}

/* Vectors of points a batch block holds: NV_PB for the square and triangle
 * lattices where the path reads its tables by loads (two passes, below),
 * else 1. */
#define NV_PB 4
#define NV_BLOCK(lat) (NV_PTS_TABLES && (lat) != NV_IMP2 ? NV_PB : 1)

#if NV_PTS_TABLES
/* nv_index_ok of both floors, from their truncations to int32 (needed for
 * the hashes anyway): a floor outside the int32 range, or NaN, truncates
 * to INT32_MIN, and INT32_MAX + 1 would not be an int32; lanes at either
 * (a floor of exactly -2^31 too) take the scalar kernel, which gives the
 * same numbers. */
NV_FN int nv_index_ok_i(vi i, vi j) { return vi_none_eq2(i, j, INT32_MIN, INT32_MAX); }

/* The square lattice at NV_PB vectors of points in two passes: the first
 * hashes each vector's four corners and stores the table entries' byte
 * offsets, the second loads the entries from there with scalar addresses
 * and does the cell and sample arithmetic (nv_sq2's numbers). In one pass
 * each offset went from a vector lane to an address register (two
 * instructions a lane) and each vector chained hash -> loads -> arithmetic:
 * 20 % slower. */
typedef struct {
    uint32_t off[NV_PB][4][NV_W]; /* corners (i, j), (i, j + 1), (i + 1, j), (i + 1, j + 1) */
    vd tx[NV_PB], ty[NV_PB];
    int ok[NV_PB]; /* 0: a lane needs the scalar kernel */
} nv_sq2_pass;

NV_FN void nv_sq2_block_q(int mode, int want_grad, int acc, const ne_layer *L, int k, const vd *XQ, const vd *YQ,
                          vd *val, vd *g0, vd *g1)
{
    nv_sq2_pass ps;
    vi s = vi_set1((int)nl_seed(L->seed[k]));
    int shift = mode == NK_MODE_VALUE ? 3 : 4; /* entry size 8 or 16 bytes */
    for (int b = 0; b < NV_PB; b++) {
        vd x = XQ[b], y = YQ[b], fx = vd_floor(x), fy = vd_floor(y);
        vi i = vd_to_vi(fx), j = vd_to_vi(fy);
        ps.ok[b] = nv_index_ok_i(i, j);
        ps.tx[b] = nv_frac(x, fx);
        ps.ty[b] = nv_frac(y, fy);
        vi2 h[2];
        nv_hash4p(s, i, j, fx, fy, L->period[k], h);
        vi_storeu(ps.off[b][0], vi_shl(nv_byte(vi2_lo(h[0])), shift));
        vi_storeu(ps.off[b][1], vi_shl(nv_byte(vi2_lo(h[1])), shift));
        vi_storeu(ps.off[b][2], vi_shl(nv_byte(vi2_hi(h[0])), shift));
        vi_storeu(ps.off[b][3], vi_shl(nv_byte(vi2_hi(h[1])), shift));
    }
    /* the offsets are read from memory: without this the compiler takes
     * them out of the vectors lane by lane again */
    __asm__("" : "+m"(ps.off));
    for (int b = 0; b < NV_PB; b++) {
        vd v, d0 = vd_zero(), d1 = vd_zero();
        if (ps.ok[b]) {
            vd e[8]; /* written out: as a loop the entries went through the stack */
            if (mode == NK_MODE_VALUE) {
                e[0] = vd_table1(nl_value_table, ps.off[b][0]);
                e[1] = vd_table1(nl_value_table, ps.off[b][1]);
                e[2] = vd_table1(nl_value_table, ps.off[b][2]);
                e[3] = vd_table1(nl_value_table, ps.off[b][3]);
            } else {
                vd_table2(&nl_perlin2_table[0][0], ps.off[b][0], &e[0], &e[1]);
                vd_table2(&nl_perlin2_table[0][0], ps.off[b][1], &e[2], &e[3]);
                vd_table2(&nl_perlin2_table[0][0], ps.off[b][2], &e[4], &e[5]);
                vd_table2(&nl_perlin2_table[0][0], ps.off[b][3], &e[6], &e[7]);
            }
            nv_cell2 c;
            vd ty = ps.ty[b];
            nv_sq2_cell_of(mode, want_grad, e, ty, nv_fade(ty), nv_dfade(ty), &c);
            v = nv_sq2_sample(mode, want_grad, &c, ps.tx[b], &d0, &d1);
        } else {
            nv_eval2(NV_SQ2, mode, want_grad, L->seed[k], L->period[k], XQ[b], YQ[b], &v, &d0, &d1);
        }
        nv_acc(want_grad, acc, L, k, v, d0, d1, &val[b], &g0[b], &g1[b]);
    }
}

/* nv_sq2_block_q at plane points: noise space = plane * freq */
NV_FN void nv_sq2_block(int mode, int want_grad, int acc, const ne_layer *L, int k, const vd *X, const vd *Y,
                        vd *val, vd *g0, vd *g1)
{
    vd f = vd_set1(L->freq[k]), XQ[NV_PB], YQ[NV_PB];
    for (int b = 0; b < NV_PB; b++) {
        XQ[b] = vd_mul(X[b], f);
        YQ[b] = vd_mul(Y[b], f);
    }
    nv_sq2_block_q(mode, want_grad, acc, L, k, XQ, YQ, val, g0, g1);
}

/* The triangle lattice likewise: the first pass finds each vector's cell
 * and hashes its three corners (nv_tri2), the second reads their entries
 * and blends (nv_tri2_blend). */
typedef struct {
    uint32_t off[NV_PB][3][NV_W]; /* corners (i, j), the middle one, (i + 1, j + 1) */
    vd fx[NV_PB], fy[NV_PB];
    int ok[NV_PB];
} nv_tri2_pass;

NV_FN void nv_tri2_block_q(int mode, int want_grad, int acc, const ne_layer *L, int k, const vd *XQ, const vd *YQ,
                           vd *val, vd *g0, vd *g1)
{
    nv_tri2_pass ps;
    vi s = vi_set1((int)nl_seed(L->seed[k])), pc = vi_set1((int)NL_PRIME_C);
    int shift = mode == NK_MODE_VALUE ? 3 : 4; /* entry size 8 or 16 bytes */
    const double *t = mode == NK_MODE_VALUE ? nl_value_table
                    : mode == NK_MODE_PERLIN ? &nl_diamond_table[0][0] : &nk_simplex2_table[0][0];
    for (int b = 0; b < NV_PB; b++) {
        vd fli, flj;
        nv_tri2_lattice(XQ[b], YQ[b], &fli, &flj, &ps.fx[b], &ps.fy[b]);
        vi i = vd_to_vi(fli), j = vd_to_vi(flj);
        ps.ok[b] = nv_index_ok_i(i, j);
        vm xgy = vd_gt(ps.fx[b], ps.fy[b]);
        vd ox = vd_blend(xgy, vd_set1(1.0), vd_zero()), oy = vd_blend(xgy, vd_zero(), vd_set1(1.0));
        /* nv_tri2's hashes */
        vi ic = vi_add(s, nv_mulc(i)), jc = nv_mulc(j);
        vi2 h03 = nv2_avalanche(nv2_eat_sum(vi2_add(nv2_eat_sum(vi2_join(ic, vi_add(ic, pc))), vi2_join(jc, vi_add(jc, pc)))));
        vi hc = nv_avalanche(nv_eat(nv_eat(s, vd_to_vi(vd_add(fli, ox))), vd_to_vi(vd_add(flj, oy))));
        vi_storeu(ps.off[b][0], vi_shl(nv_byte(vi2_lo(h03)), shift));
        vi_storeu(ps.off[b][1], vi_shl(nv_byte(hc), shift));
        vi_storeu(ps.off[b][2], vi_shl(nv_byte(vi2_hi(h03)), shift));
    }
    __asm__("" : "+m"(ps.off)); /* as nv_sq2_block */
    for (int b = 0; b < NV_PB; b++) {
        vd v, d0 = vd_zero(), d1 = vd_zero();
        if (ps.ok[b]) {
            nv_corner c[3];
            for (int q = 0; q < 3; q++) {
                if (mode == NK_MODE_VALUE)
                    c[q].a = c[q].b = vd_table1(t, ps.off[b][q]);
                else
                    vd_table2(t, ps.off[b][q], &c[q].a, &c[q].b);
            }
            v = nv_tri2_blend(mode, want_grad, c[0], c[1], c[1], c[2], ps.fx[b], ps.fy[b], &d0, &d1);
        } else {
            nv_eval2(NV_TRI2, mode, want_grad, L->seed[k], 0, XQ[b], YQ[b], &v, &d0, &d1);
        }
        nv_acc(want_grad, acc, L, k, v, d0, d1, &val[b], &g0[b], &g1[b]);
    }
}

/* nv_tri2_block_q at plane points: noise space = plane * freq */
NV_FN void nv_tri2_block(int mode, int want_grad, int acc, const ne_layer *L, int k, const vd *X, const vd *Y,
                         vd *val, vd *g0, vd *g1)
{
    vd f = vd_set1(L->freq[k]), XQ[NV_PB], YQ[NV_PB];
    for (int b = 0; b < NV_PB; b++) {
        XQ[b] = vd_mul(X[b], f);
        YQ[b] = vd_mul(Y[b], f);
    }
    nv_tri2_block_q(mode, want_grad, acc, L, k, XQ, YQ, val, g0, g1);
}
#endif

/* Octave k's base noise at a block's nb vectors of points, into its sums
 * (nv_acc) */
NV_FN void nv_octave_block(int lat, int mode, int want_grad, int acc, int nb, const ne_layer *L, int k,
                           const vd *X, const vd *Y, vd *val, vd *g0, vd *g1)
{
#if NV_PTS_TABLES
    if (lat == NV_SQ2) {
        nv_sq2_block(mode, want_grad, acc, L, k, X, Y, val, g0, g1);
        return;
    }
    if (lat == NV_TRI2) {
        nv_tri2_block(mode, want_grad, acc, L, k, X, Y, val, g0, g1);
        return;
    }
#endif
    for (int b = 0; b < nb; b++) {
        vd v, d0 = vd_zero(), d1 = vd_zero();
        nv_octave2(lat, mode, want_grad, L, k, X[b], Y[b], &v, &d0, &d1);
        nv_acc(want_grad, acc, L, k, v, d0, d1, &val[b], &g0[b], &g1[b]);
    }
}

/* ne_layer_eval's fbm at a block of nb vectors of points (pairs, from
 * pts), finished, into out_v and out_g (pairs): one octave, the base value
 * clamped and the gradient (af * g) / sum (a multiply by 1 and a divide by
 * 1 are exact, so they are skipped); more, sum over k of amp_k * v_k (and
 * of amp_freq_k * g_k) from 0 in octave order, / sum, clamped. The clamp
 * is ne_clamp_n's: max(-1, v), then min(1, .). */
NV_FN void nv_fbm_block(int lat, int mode, int want_grad, int nb, const ne_layer *L, const double *pts,
                        double *out_v, double *out_g)
{
    vd X[NV_PB], Y[NV_PB], v[NV_PB], d0[NV_PB], d1[NV_PB], zero = vd_zero(), vsum = vd_set1(L->amp_sum);
    for (int b = 0; b < nb; b++) {
        vd_load2(pts + 2 * NV_W * b, &X[b], &Y[b]);
        d0[b] = d1[b] = zero;
    }
    if (L->n_oct == 1) {
        nv_octave_block(lat, mode, want_grad, 0, nb, L, 0, X, Y, v, d0, d1);
        double af = L->amp_freq[0];
        for (int b = 0; want_grad && b < nb; b++) {
            if (af != 1.0) {
                d0[b] = vd_mul(vd_set1(af), d0[b]);
                d1[b] = vd_mul(vd_set1(af), d1[b]);
            }
            if (L->amp_sum != 1.0) {
                d0[b] = vd_div(d0[b], vsum);
                d1[b] = vd_div(d1[b], vsum);
            }
        }
    } else {
        for (int b = 0; b < nb; b++)
            v[b] = zero;
        for (int k = 0; k < L->n_oct; k++)
            nv_octave_block(lat, mode, want_grad, 1, nb, L, k, X, Y, v, d0, d1);
        for (int b = 0; b < nb; b++) {
            v[b] = vd_div(v[b], vsum);
            if (want_grad) {
                d0[b] = vd_div(d0[b], vsum);
                d1[b] = vd_div(d1[b], vsum);
            }
        }
    }
    for (int b = 0; b < nb; b++) {
        vd_storeu(out_v + NV_W * b, vd_min(vd_set1(1.0), vd_max(vd_set1(-1.0), v[b])));
        if (want_grad)
            vd_store2(out_g + 2 * NV_W * b, d0[b], d1[b]);
    }
}

/* ne_fbm_pts_fn: a block of points at a time, straight from and into the
 * caller's arrays; the last few as a block whose spare lanes repeat the
 * last point. */
NV_FN void nv_fbm_pts(int lat, int mode, int want_grad, const ne_layer *L, size_t n, const double *pts,
                      double *out_v, double *out_g)
{
    const int nb = NV_BLOCK(lat);
    const size_t w = (size_t)nb * NV_W;
    size_t i = 0;
    for (; i + w <= n; i += w)
        nv_fbm_block(lat, mode, want_grad, nb, L, pts + 2 * i, out_v + i, want_grad ? out_g + 2 * i : NULL);
    if (i == n)
        return;
    double P[2 * NV_PB * NV_W], V[NV_PB * NV_W], G[2 * NV_PB * NV_W];
    size_t m = n - i;
    for (size_t l = 0; l < w; l++) {
        size_t q = i + (l < m ? l : m - 1);
        P[2 * l] = pts[2 * q];
        P[2 * l + 1] = pts[2 * q + 1];
    }
    nv_fbm_block(lat, mode, want_grad, nb, L, P, V, G);
    for (size_t l = 0; l < m; l++) {
        out_v[i + l] = V[l];
        if (want_grad) {
            out_g[2 * (i + l)] = G[2 * l];
            out_g[2 * (i + l) + 1] = G[2 * l + 1];
        }
    }
}

#define NV_FBM_PTS(name, LAT, MODE)                                                                       \
    static NV_TARGET void name##_fbm(const ne_layer *L, size_t n, const double *pts, double *out_v,       \
                                     double *out_g)                                                       \
    {                                                                                                     \
        if (out_g)                                                                                        \
            nv_fbm_pts(LAT, MODE, 1, L, n, pts, out_v, out_g);                                            \
        else                                                                                              \
            nv_fbm_pts(LAT, MODE, 0, L, n, pts, out_v, NULL);                                             \
    }
NV_FBM_PTS(nv_value_sq2, NV_SQ2, NK_MODE_VALUE)
NV_FBM_PTS(nv_perlin_sq2, NV_SQ2, NK_MODE_PERLIN)
NV_FBM_PTS(nv_value_tri2, NV_TRI2, NK_MODE_VALUE)
NV_FBM_PTS(nv_perlin_tri2, NV_TRI2, NK_MODE_PERLIN)
NV_FBM_PTS(nv_simplex_tri2, NV_TRI2, NK_MODE_SIMPLEX)
NV_FBM_PTS(nv_improved2, NV_IMP2, 0)

#endif
