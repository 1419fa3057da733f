/* noise_vec_improved.h: Ken Perlin's Improved Noise (nv_improved3, twin of
 * nk_improved3: 3D, and its z = 0 slice for 2D) and its loop over points and
 * rows.
 *
 * Internal to noise/: included by noise_vec.h, in the order it lists (a file
 * uses what the files before it define), once per instruction-set path.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_IMPROVED_H
#define NOISE_VEC_IMPROVED_H

/* perm[index] per lane (the permutation is padded, so 4 bytes can be read
 * at any entry) */
NV_FN vi nv_perm(const unsigned char *perm, vi index) { return vi_and(vi_gather_bytes(perm, index), vi_set1(255)); }

/* nk_imp_grad: (value, d/dx, d/dy, d/dz) of the hash's gradient */
NV_FN void nv_imp_grad(vi hash, vd x, vd y, vd z, vd out[4])
{
    vi h = vi_and(hash, vi_set1(15));
    vm h_lt8 = vi_lt_mask(h, 8), h_lt4 = vi_lt_mask(h, 4);
    vm h_x = vm_or(vi_eq_mask(h, 12), vi_eq_mask(h, 14)); /* v picks x */
    vm u_x = h_lt8, v_y = h_lt4, v_z = vm_not(vm_or(h_lt4, h_x));
    vd su = vd_blend(vi_bit_mask(h, 1), vd_set1(-1.0), vd_set1(1.0));
    vd sv = vd_blend(vi_bit_mask(h, 2), vd_set1(-1.0), vd_set1(1.0));
    vd pu = vd_blend(u_x, x, y), pv = vd_blend(v_y, y, vd_blend(h_x, x, z));
    out[0] = vd_add(vd_mul(su, pu), vd_mul(sv, pv));
    /* su or sv where the component is u or v (never both), else +0: the
     * scalar 0 + su is su, as su and sv are +-1 */
    vd zero = vd_zero();
    out[1] = vd_blend(u_x, su, vd_blend(h_x, sv, zero));
    out[2] = vd_blend(u_x, vd_blend(v_y, sv, zero), su);
    out[3] = vd_blend(v_z, sv, zero);
}

/* nk_improved3 on every lane; 0 if a lane needs the scalar kernel. z0:
 * the z = 0 slice (z is +0), where g[2] is not computed: the scalar's last
 * lerp there is r = y0 + (y1 - y0) * +0 (w = fade(+0) = +0), which is y0
 * bit for bit unless y0 is -0 (-0 + +0 is +0), so the four z + 1 corners
 * are computed only for vectors with a zero in y0's value or (with
 * gradients) its x or y derivative. */
NV_FN int nv_improved3(const unsigned char *perm, int want_grad, int z0, vd x, vd y, vd z, vd *val, vd g[3])
{
    vd fl[3] = { vd_floor(x), vd_floor(y), z0 ? vd_zero() : vd_floor(z) };
    vm ok = vm_and(nv_index_ok(fl[0]), nv_index_ok(fl[1]));
    if (!vm_all(z0 ? ok : vm_and(ok, nv_index_ok(fl[2]))))
        return 0;
    vd fx = nv_frac(x, fl[0]), fy = nv_frac(y, fl[1]);
    vd fz = z0 ? vd_zero() : nv_frac(z, fl[2]);
    vi b255 = vi_set1(255), one = vi_set1(1);
    vi X = vi_and(vd_to_vi(fl[0]), b255), Y = vi_and(vd_to_vi(fl[1]), b255);
    vi Z = z0 ? vi_set1(0) : vi_and(vd_to_vi(fl[2]), b255);
    vd u = nv_fade(fx), v = nv_fade(fy);
    vi A = vi_add(nv_perm(perm, X), Y), B = vi_add(nv_perm(perm, vi_add(X, one)), Y);
    vi AA = nv_perm(perm, A), AB = nv_perm(perm, vi_add(A, one));
    vi BA = nv_perm(perm, B), BB = nv_perm(perm, vi_add(B, one));
    if (!z0) {
        AA = vi_add(AA, Z);
        AB = vi_add(AB, Z);
        BA = vi_add(BA, Z);
        BB = vi_add(BB, Z);
    }
    vd one_d = vd_set1(1.0), fx1 = vd_sub(fx, one_d), fy1 = vd_sub(fy, one_d);
    vd c[8][4];
    nv_imp_grad(nv_perm(perm, AA), fx, fy, fz, c[0]);
    nv_imp_grad(nv_perm(perm, BA), fx1, fy, fz, c[1]);
    nv_imp_grad(nv_perm(perm, AB), fx, fy1, fz, c[2]);
    nv_imp_grad(nv_perm(perm, BB), fx1, fy1, fz, c[3]);
    vd du = nv_dfade(fx), dv = nv_dfade(fy);
    vd x0[4], x1[4], x2[4], x3[4], y0[4], y1[4], r[4];
    nv_lerp4(c[0], c[1], u, du, 0, x0);
    nv_lerp4(c[2], c[3], u, du, 0, x1);
    nv_lerp4(x0, x1, v, dv, 1, y0);
    int far_half = !z0;
    if (z0) {
        vd zero = vd_zero();
        vm has0 = vd_eq(y0[0], zero);
        if (want_grad)
            has0 = vm_or(has0, vm_or(vd_eq(y0[1], zero), vd_eq(y0[2], zero)));
        far_half = !vm_all(vm_not(has0));
    }
    if (far_half) {
        vd fz1 = vd_sub(fz, one_d);
        nv_imp_grad(nv_perm(perm, vi_add(AA, one)), fx, fy, fz1, c[4]);
        nv_imp_grad(nv_perm(perm, vi_add(BA, one)), fx1, fy, fz1, c[5]);
        nv_imp_grad(nv_perm(perm, vi_add(AB, one)), fx, fy1, fz1, c[6]);
        nv_imp_grad(nv_perm(perm, vi_add(BB, one)), fx1, fy1, fz1, c[7]);
        vd w = nv_fade(fz), dw = nv_dfade(fz);
        nv_lerp4(c[4], c[5], u, du, 0, x2);
        nv_lerp4(c[6], c[7], u, du, 0, x3);
        nv_lerp4(x2, x3, v, dv, 1, y1);
        nv_lerp4(y0, y1, w, dw, 2, r);
    } else {
        for (int k = 0; k < 4; k++)
            r[k] = y0[k];
    }
    vm out = vm_or(vd_gt(r[0], one_d), vd_lt(r[0], vd_set1(-1.0)));
    r[0] = vd_blend(out, vd_blend(vd_gt(r[0], vd_zero()), one_d, vd_set1(-1.0)), r[0]);
    if (want_grad)
        for (int k = 0; k < (z0 ? 2 : 3); k++)
            g[k] = vd_blend(out, vd_zero(), r[1 + k]);
    *val = r[0];
    return 1;
}

/* Improved noise of octave k at n points (ys NULL: the row's y); d3 0: the
 * z = 0 slice, 1: z = t. */
NV_FN void nv_improved_pts(int d3, int want_grad, const ne_layer *L, int k, int n, const double *xs,
                           const double *ys, double y, double t, double *v, ne_grad g)
{
    const unsigned char *perm = L->perm[k];
    double f = L->freq[k], qy = y * f, qz = d3 ? t * f : 0.0;
    vd vf = vd_set1(f), vqy = vd_set1(qy), vqz = vd_set1(qz);
    int nc = d3 ? 3 : 2, i = 0;
    for (; i + NV_W <= n; i += NV_W) {
        vd x = vd_mul(vd_loadu(xs + i), vf), yy = ys ? vd_mul(vd_loadu(ys + i), vf) : vqy, val, gv[3];
        gv[0] = gv[1] = gv[2] = vd_zero();
        if (nv_improved3(perm, want_grad, !d3, x, yy, vqz, &val, gv)) {
            vd_storeu(v + i, val);
            if (want_grad)
                for (int c = 0; c < nc; c++)
                    vd_storeu(g[c] + i, gv[c]);
            continue;
        }
        for (int l = 0; l < NV_W; l++) {
            double gd[3];
            v[i + l] = nk_improved3(perm, xs[i + l] * f, ys ? ys[i + l] * f : qy, qz, want_grad, gd);
            if (want_grad)
                for (int c = 0; c < nc; c++)
                    g[c][i + l] = gd[c];
        }
    }
    for (; i < n; i++) {
        double gd[3];
        v[i] = nk_improved3(perm, xs[i] * f, ys ? ys[i] * f : qy, qz, want_grad, gd);
        if (want_grad)
            for (int c = 0; c < nc; c++)
                g[c][i] = gd[c];
    }
}

#endif
