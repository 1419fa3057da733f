/* noise_vec_triangle.h: the triangle lattice in 2D (value, perlin and simplex
 * noise): the kernel nv_tri2, twin of nk_tri2, on NV_W points. Its row loop (a
 * chain of the row's cells) is in noise_vec_triangle_rows.h; its batch blocks
 * (nv_tri2_block) in noise_vec_points.h.
 *
 * Internal to noise/: included by noise_vec.h, in the order it lists (a file
 * uses what the files before it define), once per instruction-set path.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_TRIANGLE_H
#define NOISE_VEC_TRIANGLE_H

/* A triangle corner's table data: the value (value noise) or the gradient
 * (a, b), per lane. */
typedef struct {
    vd a, b;
} nv_corner;

NV_FN nv_corner nv_tri2_gather(int mode, vi h)
{
    nv_corner c;
    if (mode == NK_MODE_VALUE) {
        c.a = nv_value_of(h);
        c.b = c.a;
        return c;
    }
    if (mode == NK_MODE_PERLIN) {
        nv_diamond_of(h, 1.0, &c.a, &c.b);
        return c;
    }
    nv_table2(nk_simplex2_table, h, &c.a, &c.b);
    return c;
}

/* nk_tri2_lattice: the skewed cell's corner (as doubles) and fractions */
NV_FN void nv_tri2_lattice(vd x, vd y, vd *fli, vd *flj, vd *fx, vd *fy)
{
    x = vd_mul(x, vd_set1(NK_SIMPLEX_K2));
    y = vd_mul(y, vd_set1(NK_SIMPLEX_K2));
    vd skew = vd_mul(vd_add(x, y), vd_set1(NK_SIMPLEX_F2));
    vd sx = vd_add(x, skew), sy = vd_add(y, skew);
    *fli = vd_floor(sx);
    *flj = vd_floor(sy);
    *fx = nv_frac(sx, *fli);
    *fy = nv_frac(sy, *flj);
}

/* The three corners of a triangle: (i, j), the middle one, (i + 1, j + 1);
 * given (c), or picked per lane from tables of a row's cells (t: a and b,
 * vd_pick2 at selectors d[0] and d[2], vd_pick4 at d[1]) where they are
 * used, which keeps fewer of them in registers at once. */
typedef struct {
    nv_corner c[3];
    const double *t[3][2];
    vd d[3];
} nv_tri2_corners;

NV_FN nv_corner nv_tri2_fetch(int mode, int pick, const nv_tri2_corners *s, int q)
{
    if (!pick)
        return s->c[q];
    nv_corner c;
    c.a = q == 1 ? vd_pick4(s->t[q][0], s->d[q]) : vd_pick2(s->t[q][0], s->d[q]);
    if (mode == NK_MODE_VALUE)
        c.b = c.a;
    else
        c.b = q == 1 ? vd_pick4(s->t[q][1], s->d[q]) : vd_pick2(s->t[q][1], s->d[q]);
    return c;
}

/* One step of nk_tri2_corner on the three corners of a triangle, written
 * out (three independent dependency chains side by side, for the CPU to
 * overlap) */
#define NV_TRI3(a, b, c, expr) \
    do {                       \
        a = expr(0);           \
        b = expr(1);           \
        c = expr(2);           \
    } while (0)

/* nk_tri2_blend's sum over the corners of s (nk_tri2_corner on each, in
 * the order (i, j), (i + 1, j + 1), the middle one); xgy: fx > fy, where
 * the middle corner is (i + 1, j), else (i, j + 1) */
NV_FN vd nv_tri2_sum3(int mode, int want_grad, int pick, const nv_tri2_corners *s, vm xgy, vd fx, vd fy, vd *g0,
                      vd *g1)
{
    /* the corners' offsets: (fx, fy), (fx - 1, fy - 1) and the middle
     * corner's fx - ox, fy - oy with ox, oy 0 or 1: fx - 0 is fx (fx is
     * never -0) and fx - 1 is corner 3's */
    vd fx1 = vd_sub(fx, vd_set1(1.0)), fy1 = vd_sub(fy, vd_set1(1.0));
    vd ox[3] = { fx, fx1, vd_blend(xgy, fx1, fx) }, oy[3] = { fy, fy1, vd_blend(xgy, fy, fy1) };
    vd sum[3], dx[3], dy[3], r[3], r2[3], r38[3], d[3];
    nv_corner c[3];
#define NV_SUM(q) vd_mul(vd_add(ox[q], oy[q]), vd_set1(NK_SIMPLEX_G2))
    NV_TRI3(sum[0], sum[1], sum[2], NV_SUM);
#define NV_DX(q) vd_sub(ox[q], sum[q])
#define NV_DY(q) vd_sub(oy[q], sum[q])
    NV_TRI3(dx[0], dx[1], dx[2], NV_DX);
    NV_TRI3(dy[0], dy[1], dy[2], NV_DY);
#define NV_R(q) vd_sub(vd_sub(vd_set1(0.5), vd_mul(dx[q], dx[q])), vd_mul(dy[q], dy[q]))
#define NV_RMAX(q) vd_max(r[q], vd_zero())
#define NV_R2(q) vd_mul(r[q], r[q])
#define NV_R38(q) vd_mul(vd_set1(8.0), vd_mul(r2[q], r[q]))
    NV_TRI3(r[0], r[1], r[2], NV_R);
    NV_TRI3(r[0], r[1], r[2], NV_RMAX);
    NV_TRI3(r2[0], r2[1], r2[2], NV_R2);
    NV_TRI3(r38[0], r38[1], r38[2], NV_R38);
    /* corner data: (i, j), (i + 1, j + 1), the middle one */
#define NV_FETCH(q) nv_tri2_fetch(mode, pick, s, (q) == 0 ? 0 : (q) == 1 ? 2 : 1)
    NV_TRI3(c[0], c[1], c[2], NV_FETCH);
    /* the value v, or the dot product of the gradient and the offset */
#define NV_DOT(q) (mode == NK_MODE_VALUE ? c[q].a : vd_add(vd_mul(c[q].a, dx[q]), vd_mul(c[q].b, dy[q])))
    NV_TRI3(d[0], d[1], d[2], NV_DOT);
    if (want_grad) {
        vd k[3], t0[3], t1[3];
#define NV_K(q) vd_mul(vd_mul(vd_set1(-48.0), r2[q]), d[q])
#define NV_T0(q) (mode == NK_MODE_VALUE ? vd_mul(k[q], dx[q]) : vd_add(vd_mul(r38[q], c[q].a), vd_mul(k[q], dx[q])))
#define NV_T1(q) (mode == NK_MODE_VALUE ? vd_mul(k[q], dy[q]) : vd_add(vd_mul(r38[q], c[q].b), vd_mul(k[q], dy[q])))
        NV_TRI3(k[0], k[1], k[2], NV_K);
        NV_TRI3(t0[0], t0[1], t0[2], NV_T0);
        NV_TRI3(t1[0], t1[1], t1[2], NV_T1);
        double gscale = (mode == NK_MODE_VALUE ? NK_TRI_VALUE2_SCALE
                         : mode == NK_MODE_PERLIN ? NK_TRI_PERLIN2_SCALE : NK_SIMPLEX2_SCALE) * NK_SIMPLEX_K2;
        /* the scalar's g[c] += from 0, in the corners' order */
        *g0 = vd_mul(vd_add(vd_add(vd_add(vd_zero(), t0[0]), t0[1]), t0[2]), vd_set1(gscale));
        *g1 = vd_mul(vd_add(vd_add(vd_add(vd_zero(), t1[0]), t1[1]), t1[2]), vd_set1(gscale));
#undef NV_K
#undef NV_T0
#undef NV_T1
    }
#define NV_VAL(q) vd_mul(r38[q], d[q])
    NV_TRI3(r[0], r[1], r[2], NV_VAL);
#undef NV_SUM
#undef NV_DX
#undef NV_DY
#undef NV_R
#undef NV_RMAX
#undef NV_R2
#undef NV_R38
#undef NV_FETCH
#undef NV_DOT
#undef NV_VAL
    double scale = mode == NK_MODE_VALUE ? NK_TRI_VALUE2_SCALE
                 : mode == NK_MODE_PERLIN ? NK_TRI_PERLIN2_SCALE : NK_SIMPLEX2_SCALE;
    return vd_mul(vd_add(vd_add(r[0], r[1]), r[2]), vd_set1(scale));
}

/* nk_tri2_blend from the corners (i,j), (i+1,j), (i,j+1), (i+1,j+1) */
NV_FN vd nv_tri2_blend(int mode, int want_grad, nv_corner c0, nv_corner c1, nv_corner c2, nv_corner c3, vd fx,
                       vd fy, vd *g0, vd *g1)
{
    vm xgy = vd_gt(fx, fy);
    nv_tri2_corners s;
    s.c[0] = c0;
    s.c[1].a = vd_blend(xgy, c1.a, c2.a);
    s.c[1].b = vd_blend(xgy, c1.b, c2.b);
    s.c[2] = c3;
    return nv_tri2_sum3(mode, want_grad, 0, &s, xgy, fx, fy, g0, g1);
}

/* nk_tri2 on every lane; 0 if a lane needs the scalar kernel. The corner
 * picked by fx > fy is hashed once, from its blended index. */
NV_FN int nv_tri2(int mode, int want_grad, uint32_t seed, vd x, vd y, vd *val, vd *g0, vd *g1)
{
    vd fli, flj, fx, fy;
    nv_tri2_lattice(x, y, &fli, &flj, &fx, &fy);
    if (!vm_all(vm_and(nv_index_ok(fli), nv_index_ok(flj))))
        return 0;
    vm xgy = vd_gt(fx, fy);
    vd ox = vd_blend(xgy, vd_set1(1.0), vd_zero()), oy = vd_blend(xgy, vd_zero(), vd_set1(1.0));
    /* (i, j) and (i + 1, j + 1) side by side, sharing i * PRIME_C and
     * j * PRIME_C (nv_hash4); the middle corner on its own */
    vi s = vi_set1((int)nl_seed(seed)), pc = vi_set1((int)NL_PRIME_C);
    vi ic = vi_add(s, nv_mulc(vd_to_vi(fli))), jc = nv_mulc(vd_to_vi(flj));
    vi2 h03 = nv2_avalanche(nv2_eat_sum(vi2_add(nv2_eat_sum(vi2_join(ic, vi_add(ic, pc))), vi2_join(jc, vi_add(jc, pc)))));
    vi hc = nv_avalanche(nv_eat(nv_eat(s, vd_to_vi(vd_add(fli, ox))), vd_to_vi(vd_add(flj, oy))));
    nv_tri2_corners c;
    c.c[0] = nv_tri2_gather(mode, vi2_lo(h03));
    c.c[1] = nv_tri2_gather(mode, hc);
    c.c[2] = nv_tri2_gather(mode, vi2_hi(h03));
    *val = nv_tri2_sum3(mode, want_grad, 0, &c, xgy, fx, fy, g0, g1);
    return 1;
}

#endif
