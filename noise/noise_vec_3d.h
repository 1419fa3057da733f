/* noise_vec_3d.h: the 3D kernels: the square lattice (nv_sq3, twin of nk_sq3)
 * and the tetrahedral one (nv_tet3, twin of nk_tet3), and their loop over
 * points and rows (nv_pts3).
 *
 * Internal to noise/: included by noise_vec.h, in the order it lists (a file
 * uses what the files before it define), once per instruction-set path.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_3D_H
#define NOISE_VEC_3D_H

NV_FN vd nv_neg(vd x) { return vd_xor_sign(x); }

/* nl_octahedron of every lane's hash */
NV_FN void nv_octahedron(vi h, vd g[3])
{
    vd g0 = nv_value_of(h), g1 = nv_value_of(vi_shr(h, 24));
    vd g2 = vd_sub(vd_sub(vd_set1(1.0), vd_abs(g0)), vd_abs(g1));
    vd o = vd_max(nv_neg(g2), vd_zero()), no = nv_neg(o);
    g[0] = vd_add(g0, vd_blend(vd_lt(g0, vd_zero()), o, no));
    g[1] = vd_add(g1, vd_blend(vd_lt(g1, vd_zero()), o, no));
    g[2] = g2;
}

/* nk_lerp4 */
NV_FN void nv_lerp4(const vd a[4], const vd b[4], vd s, vd ds, int axis, vd out[4])
{
    vd dv = vd_sub(b[0], a[0]);
    out[0] = vd_add(a[0], vd_mul(dv, s));
    for (int k = 1; k < 4; k++)
        out[k] = vd_add(a[k], vd_mul(vd_sub(b[k], a[k]), s));
    out[1 + axis] = vd_add(out[1 + axis], vd_mul(dv, ds));
}

/* nk_sq3 on every lane; 0 if a lane needs the scalar kernel. */
NV_FN int nv_sq3(int mode, int want_grad, uint32_t seed, vd x, vd y, vd z, vd *val, vd g[3])
{
    vd fl[3] = { vd_floor(x), vd_floor(y), vd_floor(z) };
    if (!vm_all(vm_and(vm_and(nv_index_ok(fl[0]), nv_index_ok(fl[1])), nv_index_ok(fl[2]))))
        return 0;
    vd t[3] = { nv_frac(x, fl[0]), nv_frac(y, fl[1]),
                nv_frac(z, fl[2]) };
    vi ix[3] = { vd_to_vi(fl[0]), vd_to_vi(fl[1]), vd_to_vi(fl[2]) }, one = vi_set1(1);
    vi s = vi_set1((int)nl_seed(seed));
    vi hx[2] = { nv_eat(s, ix[0]), nv_eat(s, vi_add(ix[0], one)) };
    vd c[8][4];
    for (int n = 0; n < 8; n++) {
        int ox = n >> 2, oy = (n >> 1) & 1, oz = n & 1;
        vi h = nv_eat(hx[ox], oy ? vi_add(ix[1], one) : ix[1]);
        h = nv_avalanche(nv_eat(h, oz ? vi_add(ix[2], one) : ix[2]));
        if (mode == NK_MODE_VALUE) {
            c[n][0] = nv_value_of(h);
            c[n][1] = c[n][2] = c[n][3] = vd_zero();
        } else {
            vd gr[3];
            nv_octahedron(h, gr);
            vd dx = vd_sub(t[0], vd_set1((double)ox)), dy = vd_sub(t[1], vd_set1((double)oy));
            vd dz = vd_sub(t[2], vd_set1((double)oz));
            c[n][1] = vd_mul(gr[0], vd_set1(NL_PERLIN3_SCALE));
            c[n][2] = vd_mul(gr[1], vd_set1(NL_PERLIN3_SCALE));
            c[n][3] = vd_mul(gr[2], vd_set1(NL_PERLIN3_SCALE));
            c[n][0] = vd_add(vd_add(vd_mul(c[n][1], dx), vd_mul(c[n][2], dy)), vd_mul(c[n][3], dz));
        }
    }
    vd s0 = nv_fade(t[0]), s1 = nv_fade(t[1]), s2 = nv_fade(t[2]);
    vd d0 = nv_dfade(t[0]), d1 = nv_dfade(t[1]), d2 = nv_dfade(t[2]);
    vd zl[4][4], yl[2][4], r[4];
    for (int n = 0; n < 4; n++)
        nv_lerp4(c[2 * n], c[2 * n + 1], s2, d2, 2, zl[n]);
    nv_lerp4(zl[0], zl[1], s1, d1, 1, yl[0]);
    nv_lerp4(zl[2], zl[3], s1, d1, 1, yl[1]);
    nv_lerp4(yl[0], yl[1], s0, d0, 0, r);
    if (want_grad) {
        g[0] = r[1];
        g[1] = r[2];
        g[2] = r[3];
    }
    *val = r[0];
    return 1;
}

/* ---- tetrahedral lattice, 3D ---- */

/* nk_tet3_corner */
NV_FN vd nv_tet3_corner(int mode, int want_grad, vi h, vd fx, vd fy, vd fz, vd gs[3])
{
    vd sum = vd_mul(vd_add(vd_add(fx, fy), fz), vd_set1(NK_SIMPLEX_G3));
    vd dx = vd_sub(fx, sum), dy = vd_sub(fy, sum), dz = vd_sub(fz, sum);
    vd r = vd_sub(vd_sub(vd_sub(vd_set1(0.5), vd_mul(dx, dx)), vd_mul(dy, dy)), vd_mul(dz, dz));
    r = vd_max(r, vd_zero());
    vd r2 = vd_mul(r, r), r3 = vd_mul(r2, r), r38 = vd_mul(vd_set1(8.0), r3);
    if (mode == NK_MODE_VALUE) {
        vd v = nv_value_of(h);
        if (want_grad) {
            vd k = vd_mul(vd_mul(vd_set1(-48.0), r2), v);
            gs[0] = vd_add(gs[0], vd_mul(k, dx));
            gs[1] = vd_add(gs[1], vd_mul(k, dy));
            gs[2] = vd_add(gs[2], vd_mul(k, dz));
        }
        return vd_mul(r38, v);
    }
    vd gr[3];
    nv_octahedron(h, gr);
    if (mode == NK_MODE_SIMPLEX) {
        vd len2 = vd_add(vd_add(vd_mul(gr[0], gr[0]), vd_mul(gr[1], gr[1])), vd_mul(gr[2], gr[2]));
        vd inv = vd_div(vd_set1(1.0), vd_sqrt(len2));
        for (int c = 0; c < 3; c++)
            gr[c] = vd_mul(gr[c], inv);
    }
    vd dot = vd_add(vd_add(vd_mul(gr[0], dx), vd_mul(gr[1], dy)), vd_mul(gr[2], dz));
    if (want_grad) {
        vd k = vd_mul(vd_mul(vd_set1(-48.0), r2), dot);
        gs[0] = vd_add(gs[0], vd_add(vd_mul(r38, gr[0]), vd_mul(k, dx)));
        gs[1] = vd_add(gs[1], vd_add(vd_mul(r38, gr[1]), vd_mul(k, dy)));
        gs[2] = vd_add(gs[2], vd_add(vd_mul(r38, gr[2]), vd_mul(k, dz)));
    }
    return vd_mul(r38, dot);
}

NV_FN vd nv_bit(vm m) { return vd_blend(m, vd_set1(1.0), vd_zero()); }

NV_FN vi nv_hash3(vi s, vi i, vi j, vi k) { return nv_avalanche(nv_eat(nv_eat(nv_eat(s, i), j), k)); }

/* nk_tet3 on every lane; 0 if a lane needs the scalar kernel. The two
 * middle corners come from the order of the fractions, as blends. */
NV_FN int nv_tet3(int mode, int want_grad, uint32_t seed, vd x, vd y, vd z, vd *val, vd g[3])
{
    x = vd_mul(x, vd_set1(NK_SIMPLEX_K3));
    y = vd_mul(y, vd_set1(NK_SIMPLEX_K3));
    z = vd_mul(z, vd_set1(NK_SIMPLEX_K3));
    vd skew = vd_mul(vd_add(vd_add(x, y), z), vd_set1(NK_SIMPLEX_F3));
    vd sx = vd_add(x, skew), sy = vd_add(y, skew), sz = vd_add(z, skew);
    vd fli = vd_floor(sx), flj = vd_floor(sy), flk = vd_floor(sz);
    if (!vm_all(vm_and(vm_and(nv_index_ok(fli), nv_index_ok(flj)), nv_index_ok(flk))))
        return 0;
    vd fx = nv_frac(sx, fli), fy = nv_frac(sy, flj);
    vd fz = nv_frac(sz, flk);
    vm xy = vd_ge(fx, fy), yz = vd_ge(fy, fz), xz = vd_ge(fx, fz);
    vm nxy = vm_not(xy), nyz = vm_not(yz), nxz = vm_not(xz);
    vd a1 = nv_bit(vm_and(xy, vm_or(yz, xz))), b1 = nv_bit(vm_and(nxy, yz));
    vd c1 = vd_blend(xy, nv_bit(vm_and(nyz, nxz)), nv_bit(nyz));
    vd a2 = nv_bit(vm_or(xy, vm_and(yz, xz))), b2 = nv_bit(vm_or(nxy, yz));
    vd c2 = vd_blend(xy, nv_bit(nyz), nv_bit(vm_or(nyz, nxz)));
    vi i = vd_to_vi(fli), j = vd_to_vi(flj), k = vd_to_vi(flk), one = vi_set1(1);
    vi s = vi_set1((int)nl_seed(seed));
    vi h0 = nv_hash3(s, i, j, k);
    vi h1 = nv_hash3(s, vi_add(i, vd_to_vi(a1)), vi_add(j, vd_to_vi(b1)), vi_add(k, vd_to_vi(c1)));
    vi h2 = nv_hash3(s, vi_add(i, vd_to_vi(a2)), vi_add(j, vd_to_vi(b2)), vi_add(k, vd_to_vi(c2)));
    vi h3 = nv_hash3(s, vi_add(i, one), vi_add(j, one), vi_add(k, one));
    vd gs[3] = { vd_zero(), vd_zero(), vd_zero() }, one_d = vd_set1(1.0);
    vd v = nv_tet3_corner(mode, want_grad, h0, fx, fy, fz, gs);
    v = vd_add(v, nv_tet3_corner(mode, want_grad, h1, vd_sub(fx, a1), vd_sub(fy, b1), vd_sub(fz, c1), gs));
    v = vd_add(v, nv_tet3_corner(mode, want_grad, h2, vd_sub(fx, a2), vd_sub(fy, b2), vd_sub(fz, c2), gs));
    v = vd_add(v, nv_tet3_corner(mode, want_grad, h3, vd_sub(fx, one_d), vd_sub(fy, one_d), vd_sub(fz, one_d), gs));
    double scale = mode == NK_MODE_VALUE ? NK_TRI_VALUE3_SCALE
                 : mode == NK_MODE_PERLIN ? NK_TRI_PERLIN3_SCALE : NK_SIMPLEX3_SCALE;
    if (want_grad)
        for (int c = 0; c < 3; c++)
            g[c] = vd_mul(gs[c], vd_set1(scale * NK_SIMPLEX_K3));
    *val = vd_mul(v, vd_set1(scale));
    return 1;
}

/* Base noise of a 3D octave (lat: NV_SQ2 for the square lattice, NV_TRI2
 * for the tetrahedral one) at n points (ys NULL: the row's y), t the
 * layer's t. */
NV_FN void nv_pts3(int lat, int mode, int want_grad, const ne_layer *L, int k, int n, const double *xs,
                      const double *ys, double y, double t, double *v, ne_grad g)
{
    uint32_t seed = L->seed[k];
    double f = L->freq[k], qy = y * f, qz = t * f;
    vd vf = vd_set1(f), vqy = vd_set1(qy), vqz = vd_set1(qz);
    int i = 0;
    for (; i + NV_W <= n; i += NV_W) {
        vd x = vd_mul(vd_loadu(xs + i), vf), yy = ys ? vd_mul(vd_loadu(ys + i), vf) : vqy, val, gv[3];
        gv[0] = gv[1] = gv[2] = vd_zero();
        if (lat == 0 ? nv_sq3(mode, want_grad, seed, x, yy, vqz, &val, gv)
                     : nv_tet3(mode, want_grad, seed, x, yy, vqz, &val, gv)) {
            vd_storeu(v + i, val);
            if (want_grad)
                for (int c = 0; c < 3; c++)
                    vd_storeu(g[c] + i, gv[c]);
            continue;
        }
        for (int l = 0; l < NV_W; l++) {
            double gd[3];
            double qx = xs[i + l] * f, qyl = ys ? ys[i + l] * f : qy;
            v[i + l] = lat == 0 ? nk_sq3(mode, seed, qx, qyl, qz, want_grad, gd) : nk_tet3(mode, seed, qx, qyl, qz, want_grad, gd);
            if (want_grad)
                for (int c = 0; c < 3; c++)
                    g[c][i + l] = gd[c];
        }
    }
    for (; i < n; i++) {
        double gd[3];
        double qx = xs[i] * f, qyl = ys ? ys[i] * f : qy;
        v[i] = lat == 0 ? nk_sq3(mode, seed, qx, qyl, qz, want_grad, gd) : nk_tet3(mode, seed, qx, qyl, qz, want_grad, gd);
        if (want_grad)
            for (int c = 0; c < 3; c++)
                g[c][i] = gd[c];
    }
}

#endif
