/* noise_classic_vec.h: internal to noise/: the vector twins of the kernels
 * of the seed documents' variants (noise_kernels.h: classic and perlin with
 * gradients=angle, nk_classic*; simplex with gradients=angle or
 * falloff=quartic, nk_var_tri2*) and of nl_sincos (noise_lattice.h),
 * included by noise_vec.h (its vector layer, nv_row_x and nv_emit).
 *
 * Every expression is the scalar one lane by lane, in the same order, so
 * each lane equals the scalar path bit for bit: the article's float angle
 * and float cosine and sine by vd_round_f (double -> float -> double, as the
 * scalar casts), the hash in 32-bit lanes. Lanes whose cell index lies
 * outside the int32 range take the scalar kernel.
 *
 * Internal prefixes (ne_, nl_, nk_, nc_, nv_, ...): noise_field.h.
 */
#ifndef NOISE_CLASSIC_VEC_H
#define NOISE_CLASSIC_VEC_H

/* nl_sincos of every lane (a >= 0) */
NV_FN void nv_sincos(vd a, vd *s, vd *c)
{
    vd k = vd_floor(vd_add(vd_mul(a, vd_set1(NL_2_OVER_PI)), vd_set1(0.5)));
    vd r = vd_sub(vd_sub(a, vd_mul(k, vd_set1(NL_PIO2_HI))), vd_mul(k, vd_set1(NL_PIO2_LO)));
    vd r2 = vd_mul(r, r);
    vd ps = vd_add(vd_set1(NL_S7), vd_mul(r2, vd_set1(NL_S8)));
    ps = vd_add(vd_set1(NL_S6), vd_mul(r2, ps));
    ps = vd_add(vd_set1(NL_S5), vd_mul(r2, ps));
    ps = vd_add(vd_set1(NL_S4), vd_mul(r2, ps));
    ps = vd_add(vd_set1(NL_S3), vd_mul(r2, ps));
    ps = vd_add(vd_set1(NL_S2), vd_mul(r2, ps));
    ps = vd_add(vd_set1(NL_S1), vd_mul(r2, ps));
    vd sr = vd_add(r, vd_mul(vd_mul(r, r2), ps));
    vd pc = vd_add(vd_set1(NL_C8), vd_mul(r2, vd_set1(NL_C9)));
    pc = vd_add(vd_set1(NL_C7), vd_mul(r2, pc));
    pc = vd_add(vd_set1(NL_C6), vd_mul(r2, pc));
    pc = vd_add(vd_set1(NL_C5), vd_mul(r2, pc));
    pc = vd_add(vd_set1(NL_C4), vd_mul(r2, pc));
    pc = vd_add(vd_set1(NL_C3), vd_mul(r2, pc));
    pc = vd_add(vd_set1(NL_C2), vd_mul(r2, pc));
    vd cr = vd_add(vd_sub(vd_set1(1.0), vd_mul(vd_set1(0.5), r2)), vd_mul(vd_mul(r2, r2), pc));
    /* quadrant k & 3: 1 swaps and negates cos, 2 negates both, 3 swaps and negates sin */
    vm k1 = vd_eq(k, vd_set1(1.0)), k2 = vd_eq(k, vd_set1(2.0)), k3 = vd_eq(k, vd_set1(3.0));
    vm swap = vm_or(k1, k3);
    vd so = vd_blend(swap, cr, sr), co = vd_blend(swap, sr, cr);
    *s = vd_blend(vm_or(k2, k3), vd_xor_sign(so), so);
    *c = vd_blend(vm_or(k1, k2), vd_xor_sign(co), co);
}

NV_FN vi nv_rot16(vi a) { return vi_or(vi_shl(a, 16), vi_shr(a, 16)); }

/* nk_classic_hash */
NV_FN vi nv_classic_hash(vi key, vi ix, vi iy)
{
    vi a = vi_mul(ix, vi_set1((int)NK_CLASSIC_M1));
    vi b = vi_xor(iy, nv_rot16(a));
    b = vi_xor(vi_mul(b, vi_set1((int)NK_CLASSIC_M2)), key);
    a = vi_xor(a, nv_rot16(b));
    return vi_mul(a, vi_set1((int)NK_CLASSIC_M3));
}

/* nk_classic_grad: the hash as an unsigned number, the angle and the
 * cosine and sine rounded to float */
/* the hash as an unsigned number */
NV_FN vd nv_u32_to_vd(vi h)
{
    vd d = vi_to_vd(h);
    return vd_blend(vd_lt(d, vd_zero()), vd_add(d, vd_set1(4294967296.0)), d);
}

NV_FN void nv_classic_grad(vi h, vd *gx, vd *gy)
{
    vd s, c;
    nv_sincos(vd_round_f(vd_mul(nv_u32_to_vd(h), vd_set1(NK_CLASSIC_ANGLE))), &s, &c);
    *gx = vd_round_f(c);
    *gy = vd_round_f(s);
}

/* nk_angle_grad */
NV_FN void nv_angle_grad(vi h, vd *gx, vd *gy)
{
    vd s, c;
    nv_sincos(vd_mul(nv_u32_to_vd(h), vd_set1(NK_ANGLE_UNIT)), &s, &c);
    *gx = c;
    *gy = s;
}

/* nk_corner_hash for int32 indices */
NV_FN vi nv_corner_hash(vi s, vi i, vi j) { return nv_avalanche(nv_eat(nv_eat(s, i), j)); }

/* nk_unit2_grad for int32 indices */
NV_FN void nv_unit2_grad(int src, vi state, vi i, vi j, vd *gx, vd *gy)
{
    if (src == NK_SRC_CLASSIC)
        nv_classic_grad(nv_classic_hash(state, i, j), gx, gy);
    else
        nv_angle_grad(nv_corner_hash(state, i, j), gx, gy);
}

/* nk_classic_weight */
NV_FN vd nv_classic_weight(int fade, vd w, vd *dw)
{
    if (fade == NK_FADE_LINEAR) {
        *dw = vd_set1(1.0);
        return w;
    }
    if (fade == NK_FADE_CUBIC) {
        *dw = vd_mul(vd_set1(6.0), vd_mul(w, vd_sub(vd_set1(1.0), w)));
        return vd_mul(vd_mul(vd_sub(vd_set1(3.0), vd_mul(w, vd_set1(2.0))), w), w);
    }
    *dw = nv_dfade(w);
    vd p = vd_add(vd_mul(w, vd_sub(vd_mul(w, vd_set1(6.0)), vd_set1(15.0))), vd_set1(10.0));
    return vd_mul(vd_mul(vd_mul(p, w), w), w);
}

/* A cell's corner gradients per lane, in nk_classic_cell's order. */
typedef struct {
    vd gx[4], gy[4];
} nv_classic_cell;

/* nk_classic_blend */
NV_FN vd nv_classic_blend(int fade, int want_grad, const nv_classic_cell *c, vd tx, vd ty, vd *g0, vd *g1)
{
    vd one = vd_set1(1.0), tx1 = vd_sub(tx, one), ty1 = vd_sub(ty, one), dsx, dsy;
    vd sx = nv_classic_weight(fade, tx, &dsx), sy = nv_classic_weight(fade, ty, &dsy);
    vd n00 = vd_add(vd_mul(tx, c->gx[0]), vd_mul(ty, c->gy[0]));
    vd n10 = vd_add(vd_mul(tx1, c->gx[1]), vd_mul(ty, c->gy[1]));
    vd n01 = vd_add(vd_mul(tx, c->gx[2]), vd_mul(ty1, c->gy[2]));
    vd n11 = vd_add(vd_mul(tx1, c->gx[3]), vd_mul(ty1, c->gy[3]));
    vd e0 = vd_sub(n10, n00), e1 = vd_sub(n11, n01);
    vd ix0 = vd_add(vd_mul(e0, sx), n00), ix1 = vd_add(vd_mul(e1, sx), n01), ey = vd_sub(ix1, ix0);
    if (want_grad) {
        vd x0 = vd_add(vd_add(c->gx[0], vd_mul(vd_sub(c->gx[1], c->gx[0]), sx)), vd_mul(e0, dsx));
        vd y0 = vd_add(c->gy[0], vd_mul(vd_sub(c->gy[1], c->gy[0]), sx));
        vd x1 = vd_add(vd_add(c->gx[2], vd_mul(vd_sub(c->gx[3], c->gx[2]), sx)), vd_mul(e1, dsx));
        vd y1 = vd_add(c->gy[2], vd_mul(vd_sub(c->gy[3], c->gy[2]), sx));
        *g0 = vd_add(x0, vd_mul(vd_sub(x1, x0), sy));
        *g1 = vd_add(vd_add(y0, vd_mul(vd_sub(y1, y0), sy)), vd_mul(ey, dsy));
    }
    return vd_add(vd_mul(ey, sy), ix0);
}

/* nk_classic2 on every lane; 0 (computing nothing) if a lane's cell is
 * outside the int32 range. */
NV_FN int nv_classic2(int src, int fade, int want_grad, uint32_t seed, vd x, vd y, vd *val, vd *g0, vd *g1)
{
    vd fx = vd_floor(x), fy = vd_floor(y);
    if (!vm_all(vm_and(nv_index_ok(fx), nv_index_ok(fy))))
        return 0;
    vd tx = vd_add(vd_sub(x, fx), vd_zero()), ty = vd_add(vd_sub(y, fy), vd_zero());
    vi i = vd_to_vi(fx), j = vd_to_vi(fy), one = vi_set1(1), i1 = vi_add(i, one), j1 = vi_add(j, one);
    vi state = vi_set1((int)nk_unit2_state(src, seed));
    nv_classic_cell c;
    nv_unit2_grad(src, state, i, j, &c.gx[0], &c.gy[0]);
    nv_unit2_grad(src, state, i1, j, &c.gx[1], &c.gy[1]);
    nv_unit2_grad(src, state, i, j1, &c.gx[2], &c.gy[2]);
    nv_unit2_grad(src, state, i1, j1, &c.gx[3], &c.gy[3]);
    *val = nv_classic_blend(fade, want_grad, &c, tx, ty, g0, g1);
    return 1;
}

/* nv_classic2, or lane by lane the scalar kernel where it cannot run */
NV_FN void nv_classic_eval(int src, int fade, int want_grad, uint32_t seed, vd x, vd y, vd *val, vd *g0, vd *g1)
{
    if (nv_classic2(src, fade, want_grad, seed, x, y, val, g0, g1))
        return;
    double X[NV_W], Y[NV_W], V[NV_W], G0[NV_W], G1[NV_W];
    vd_storeu(X, x);
    vd_storeu(Y, y);
    for (int l = 0; l < NV_W; l++) {
        double gd[2] = { 0, 0 };
        V[l] = nk_classic2(src, fade, seed, 0, X[l], Y[l], want_grad, gd);
        G0[l] = gd[0];
        G1[l] = gd[1];
    }
    *val = vd_loadu(V);
    *g0 = vd_loadu(G0);
    *g1 = vd_loadu(G1);
}

/* Base classic noise of octave k at n points (ys NULL: a row at y). In a
 * row the cell changes every few samples at tile zooms: a vector whose
 * lanes lie in the cell of the previous vector or in its own last lane's
 * cell takes those cells' gradients (computed once per cell by the scalar
 * nk_classic_cell_at, the same numbers) by broadcast and blend; other
 * vectors, and points, take the whole kernel. */
NV_FN void nv_classic_loop(int src, int fade, int want_grad, const ne_layer *L, int k, int n, const double *xs,
                           const double *ys, double y, double t, double *v, ne_grad g)
{
    (void)t; /* 2D only: NV_LOOPS's arguments */
    uint32_t seed = L->seed[k], state = nk_unit2_state(src, seed);
    double f = L->freq[k], qy = y * f, ty = 0;
    vd vf = vd_set1(f), vqy = vd_set1(qy);
    uint64_t j = ys ? 0 : nl_floor(qy, &ty);
    int share = !ys && (j + 0x80000000u) < 0xFFFFFFFFu;
    vd vty = vd_set1(ty), ci = vd_set1(NAN);
    nv_classic_cell cur;
    for (int q = 0; q < 4; q++)
        cur.gx[q] = cur.gy[q] = vd_zero();
    for (int i = 0; i < n; i += NV_W) {
        int m = n - i < NV_W ? n - i : NV_W;
        vd x = vd_mul(nv_row_x(xs, 0, 0, i, n), vf), val, g0 = vd_zero(), g1 = vd_zero();
        if (!share) {
            vd yy = ys ? vd_mul(nv_row_x(ys, 0, 0, i, n), vf) : vqy;
            nv_classic_eval(src, fade, want_grad, seed, x, yy, &val, &g0, &g1);
            nv_emit(want_grad, 0, L, k, i, m, val, g0, g1, v, g, NULL, NULL);
            continue;
        }
        vd fl = vd_floor(x), tx = vd_add(vd_sub(x, fl), vd_zero());
        vm in_cur = vd_eq(fl, ci);
        if (vm_all(in_cur)) {
            val = nv_classic_blend(fade, want_grad, &cur, tx, vty, &g0, &g1);
        } else {
            double FL[NV_W];
            vd_storeu(FL, fl);
            double li = FL[m - 1];
            if (li >= -2147483648.0 && li <= 2147483646.0) {
                nk_classic_cell sc;
                nk_classic_cell_at(src, state, (uint64_t)(int64_t)li, j, 0, &sc);
                nv_classic_cell next;
                for (int q = 0; q < 4; q++) {
                    next.gx[q] = vd_set1(sc.gx[q]);
                    next.gy[q] = vd_set1(sc.gy[q]);
                }
                vd vli = vd_set1(li);
                vm in_next = vd_eq(fl, vli);
                if (vm_all(vm_or(in_cur, in_next))) {
                    nv_classic_cell c;
                    for (int q = 0; q < 4; q++) {
                        c.gx[q] = vd_blend(in_next, next.gx[q], cur.gx[q]);
                        c.gy[q] = vd_blend(in_next, next.gy[q], cur.gy[q]);
                    }
                    val = nv_classic_blend(fade, want_grad, &c, tx, vty, &g0, &g1);
                } else {
                    nv_classic_eval(src, fade, want_grad, seed, x, vqy, &val, &g0, &g1);
                }
                cur = next;
                ci = vli;
            } else {
                nv_classic_eval(src, fade, want_grad, seed, x, vqy, &val, &g0, &g1);
            }
        }
        nv_emit(want_grad, 0, L, k, i, m, val, g0, g1, v, g, NULL, NULL);
    }
}

NV_LOOPS(nv_classic_l2, nv_classic_loop, nv_classic_loop, NK_SRC_CLASSIC, NK_FADE_LINEAR)
NV_LOOPS(nv_classic_c2, nv_classic_loop, nv_classic_loop, NK_SRC_CLASSIC, NK_FADE_CUBIC)
NV_LOOPS(nv_classic_q2, nv_classic_loop, nv_classic_loop, NK_SRC_CLASSIC, NK_FADE_QUINTIC)
NV_LOOPS(nv_perlin_angle2, nv_classic_loop, nv_classic_loop, NK_SRC_ANGLE, NK_FADE_QUINTIC)

/* ---- simplex with the seeds' variants (nk_var_tri2) ---- */

/* nk_var_tri2_grad */
NV_FN void nv_var_tri2_grad(int src, vi h, vd *gx, vd *gy)
{
    if (src == NK_SRC_ANGLE) {
        nv_angle_grad(h, gx, gy);
        return;
    }
    vi ix = vi_shl(nv_byte(h), 1);
    *gx = vd_gather(&nk_simplex2_table[0][0], ix);
    *gy = vd_gather(&nk_simplex2_table[0][0] + 1, ix);
}

/* nk_var_tri2_corner */
NV_FN vd nv_var_tri2_corner(int falloff, int want_grad, vd gx, vd gy, vd fx, vd fy, vd *gs0, vd *gs1)
{
    vd sum = vd_mul(vd_add(fx, fy), vd_set1(NK_SIMPLEX_G2));
    vd dx = vd_sub(fx, sum), dy = vd_sub(fy, sum);
    vd r = vd_sub(vd_sub(vd_set1(0.5), vd_mul(dx, dx)), vd_mul(dy, dy));
    r = vd_max(r, vd_zero());
    vd r2 = vd_mul(r, r), dot = vd_add(vd_mul(gx, dx), vd_mul(gy, dy));
    if (falloff == NK_FALLOFF_CLASSIC) {
        vd r38 = vd_mul(vd_set1(8.0), vd_mul(r2, r));
        if (want_grad) {
            vd k = vd_mul(vd_mul(vd_set1(-48.0), r2), dot);
            *gs0 = vd_add(*gs0, vd_add(vd_mul(r38, gx), vd_mul(k, dx)));
            *gs1 = vd_add(*gs1, vd_add(vd_mul(r38, gy), vd_mul(k, dy)));
        }
        return vd_mul(r38, dot);
    }
    vd r4 = vd_mul(r2, r2);
    if (want_grad) {
        vd k = vd_mul(vd_mul(vd_set1(-8.0), vd_mul(r2, r)), dot);
        *gs0 = vd_add(*gs0, vd_add(vd_mul(r4, gx), vd_mul(k, dx)));
        *gs1 = vd_add(*gs1, vd_add(vd_mul(r4, gy), vd_mul(k, dy)));
    }
    return vd_mul(r4, dot);
}

/* nk_var_tri2 on every lane; 0 if a lane's cell is outside the int32 range */
NV_FN int nv_var_tri2(int src, int falloff, int want_grad, uint32_t seed, vd x, vd y, vd *val, vd *g0, vd *g1)
{
    x = vd_mul(x, vd_set1(NK_SIMPLEX_K2));
    y = vd_mul(y, vd_set1(NK_SIMPLEX_K2));
    vd skew = vd_mul(vd_add(x, y), vd_set1(NK_SIMPLEX_F2));
    vd sx = vd_add(x, skew), sy = vd_add(y, skew);
    vd fli = vd_floor(sx), flj = vd_floor(sy);
    if (!vm_all(vm_and(nv_index_ok(fli), nv_index_ok(flj))))
        return 0;
    vd fx = vd_add(vd_sub(sx, fli), vd_zero()), fy = vd_add(vd_sub(sy, flj), vd_zero());
    vm xgy = vd_gt(fx, fy);
    vd one_d = vd_set1(1.0), ox = vd_blend(xgy, one_d, vd_zero()), oy = vd_blend(xgy, vd_zero(), one_d);
    vi i = vd_to_vi(fli), j = vd_to_vi(flj), one = vi_set1(1);
    vi s = vi_set1((int)nl_seed(seed));
    vd gx[3], gy[3];
    nv_var_tri2_grad(src, nv_corner_hash(s, i, j), &gx[0], &gy[0]);
    nv_var_tri2_grad(src, nv_corner_hash(s, vi_add(i, vd_to_vi(ox)), vi_add(j, vd_to_vi(oy))), &gx[1], &gy[1]);
    nv_var_tri2_grad(src, nv_corner_hash(s, vi_add(i, one), vi_add(j, one)), &gx[2], &gy[2]);
    vd gs0 = vd_zero(), gs1 = vd_zero();
    vd v = nv_var_tri2_corner(falloff, want_grad, gx[0], gy[0], fx, fy, &gs0, &gs1);
    v = vd_add(v, nv_var_tri2_corner(falloff, want_grad, gx[1], gy[1], vd_sub(fx, ox), vd_sub(fy, oy), &gs0, &gs1));
    v = vd_add(v, nv_var_tri2_corner(falloff, want_grad, gx[2], gy[2], vd_sub(fx, one_d), vd_sub(fy, one_d), &gs0,
                                     &gs1));
    double scale = falloff == NK_FALLOFF_QUARTIC ? NK_QUARTIC_SCALE : NK_SIMPLEX2_SCALE;
    if (want_grad) {
        *g0 = vd_mul(gs0, vd_set1(scale * NK_SIMPLEX_K2));
        *g1 = vd_mul(gs1, vd_set1(scale * NK_SIMPLEX_K2));
    }
    *val = vd_mul(v, vd_set1(scale));
    return 1;
}

/* Base variant simplex of octave k at n points (ys NULL: a row at y):
 * the vector kernel, lane by lane the scalar one where it cannot run. */
NV_FN void nv_var_tri2_loop(int src, int falloff, int want_grad, const ne_layer *L, int k, int n, const double *xs,
                            const double *ys, double y, double t, double *v, ne_grad g)
{
    (void)t; /* 2D only: NV_LOOPS's arguments */
    uint32_t seed = L->seed[k];
    double f = L->freq[k];
    vd vf = vd_set1(f), vqy = vd_set1(y * f);
    for (int i = 0; i < n; i += NV_W) {
        int m = n - i < NV_W ? n - i : NV_W;
        vd x = vd_mul(nv_row_x(xs, 0, 0, i, n), vf), yy = ys ? vd_mul(nv_row_x(ys, 0, 0, i, n), vf) : vqy;
        vd val, g0 = vd_zero(), g1 = vd_zero();
        if (!nv_var_tri2(src, falloff, want_grad, seed, x, yy, &val, &g0, &g1)) {
            double X[NV_W], Y[NV_W], V[NV_W], G0[NV_W], G1[NV_W];
            vd_storeu(X, x);
            vd_storeu(Y, yy);
            for (int l = 0; l < NV_W; l++) {
                double gd[2] = { 0, 0 };
                V[l] = nk_var_tri2(src, falloff, seed, X[l], Y[l], want_grad, gd);
                G0[l] = gd[0];
                G1[l] = gd[1];
            }
            val = vd_loadu(V);
            g0 = vd_loadu(G0);
            g1 = vd_loadu(G1);
        }
        nv_emit(want_grad, 0, L, k, i, m, val, g0, g1, v, g, NULL, NULL);
    }
}

NV_LOOPS(nv_simplex_ac2, nv_var_tri2_loop, nv_var_tri2_loop, NK_SRC_ANGLE, NK_FALLOFF_CLASSIC)
NV_LOOPS(nv_simplex_tq2, nv_var_tri2_loop, nv_var_tri2_loop, NK_SRC_TABLE, NK_FALLOFF_QUARTIC)
NV_LOOPS(nv_simplex_aq2, nv_var_tri2_loop, nv_var_tri2_loop, NK_SRC_ANGLE, NK_FALLOFF_QUARTIC)

#endif
