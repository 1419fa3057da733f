/* noise_vec_square.h: the square lattice in 2D (value and perlin noise): the
 * kernel nv_sq2, twin of nk_sq2p, on NV_W points. Its row loop, which shares a
 * cell's work between samples, is in noise_vec_square_rows.h; its batch blocks
 * (nv_sq2_block) in noise_vec_points.h.
 *
 * Internal to noise/: included by noise_vec.h, in the order it lists (a file
 * uses what the files before it define), once per instruction-set path.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_SQUARE_H
#define NOISE_VEC_SQUARE_H

typedef struct {
    vd p, q, r, s, py, qy, ry, sy, rp, ryp, b;
} nv_cell2;

/* nk_value2_cell / nk_perlin2_cell from the corners' table entries, corners
 * (i, j), (i, j + 1), (i + 1, j), (i + 1, j + 1): value noise's values in
 * e[0..3], perlin's gradients in e[2q], e[2q + 1] */
NV_FN void nv_sq2_cell_of(int mode, int want_grad, const vd *e, vd ty, vd sy, vd dsy, nv_cell2 *c)
{
    if (mode == NK_MODE_VALUE) {
        vd a = e[0], b = e[1], cc = e[2], d = e[3];
        vd ba = vd_sub(b, a), dc = vd_sub(d, cc);
        c->p = vd_add(a, vd_mul(ba, sy));
        c->r = vd_add(cc, vd_mul(dc, sy));
        c->rp = vd_sub(c->r, c->p);
        if (want_grad) {
            c->py = vd_mul(ba, dsy);
            c->ry = vd_mul(dc, dsy);
            c->ryp = vd_sub(c->ry, c->py);
        }
        return;
    }
    vd ga0 = e[0], ga1 = e[1], gb0 = e[2], gb1 = e[3], gc0 = e[4], gc1 = e[5], gd0 = e[6], gd1 = e[7];
    vd ty1 = vd_sub(ty, vd_set1(1.0)), ry = vd_sub(vd_set1(1.0), sy);
    c->p = vd_add(vd_mul(ga0, ry), vd_mul(gb0, sy));
    c->q = vd_add(vd_mul(vd_mul(ga1, ty), ry), vd_mul(vd_mul(gb1, ty1), sy));
    c->r = vd_add(vd_mul(gc0, ry), vd_mul(gd0, sy));
    c->s = vd_add(vd_mul(vd_mul(gc1, ty), ry), vd_mul(vd_mul(gd1, ty1), sy));
    c->rp = vd_sub(c->r, c->p);
    if (want_grad) {
        c->py = vd_mul(vd_sub(gb0, ga0), dsy);
        c->qy = vd_add(vd_add(vd_mul(ga1, ry), vd_mul(gb1, sy)),
                       vd_mul(vd_sub(vd_mul(gb1, ty1), vd_mul(ga1, ty)), dsy));
        c->ry = vd_mul(vd_sub(gd0, gc0), dsy);
        c->sy = vd_add(vd_add(vd_mul(gc1, ry), vd_mul(gd1, sy)),
                       vd_mul(vd_sub(vd_mul(gd1, ty1), vd_mul(gc1, ty)), dsy));
        c->ryp = vd_sub(c->ry, c->py);
        c->b = vd_sub(vd_sub(c->sy, c->ry), c->qy);
    }
}

/* nk_value2_cell / nk_perlin2_cell with the corner hashes per lane */
NV_FN void nv_sq2_cell(int mode, int want_grad, vi ha, vi hb, vi hc, vi hd, vd ty, vd sy, vd dsy, nv_cell2 *c)
{
    vd e[8];
    if (mode == NK_MODE_VALUE) {
        e[0] = nv_value_of(ha);
        e[1] = nv_value_of(hb);
        e[2] = nv_value_of(hc);
        e[3] = nv_value_of(hd);
    } else {
        nv_diamond_of(ha, NL_PERLIN2_SCALE, &e[0], &e[1]);
        nv_diamond_of(hb, NL_PERLIN2_SCALE, &e[2], &e[3]);
        nv_diamond_of(hc, NL_PERLIN2_SCALE, &e[4], &e[5]);
        nv_diamond_of(hd, NL_PERLIN2_SCALE, &e[6], &e[7]);
    }
    nv_sq2_cell_of(mode, want_grad, e, ty, sy, dsy, c);
}

/* nk_value2_sample / nk_perlin2_sample, given tx's other numbers: tx - 1
 * (perlin), nl_fade(tx) and nl_dfade(tx) (gradients) */
NV_FN vd nv_sq2_sample_x(int mode, int want_grad, const nv_cell2 *c, vd tx, vd tx1, vd sx, vd dsx, vd *g0, vd *g1)
{
    if (mode == NK_MODE_VALUE) {
        vd e = c->rp;
        if (want_grad) {
            *g0 = vd_mul(e, dsx);
            *g1 = vd_add(c->py, vd_mul(c->ryp, sx));
        }
        return vd_add(c->p, vd_mul(e, sx));
    }
    vd ab = vd_add(vd_mul(tx, c->p), c->q), cd = vd_add(vd_mul(tx1, c->r), c->s), e = vd_sub(cd, ab);
    if (want_grad) {
        *g0 = vd_add(vd_add(c->p, vd_mul(c->rp, sx)), vd_mul(e, dsx));
        *g1 = vd_add(vd_add(vd_mul(tx, c->py), c->qy), vd_mul(vd_add(vd_mul(tx, c->ryp), c->b), sx));
    }
    return vd_add(ab, vd_mul(e, sx));
}

/* nk_value2_sample / nk_perlin2_sample */
NV_FN vd nv_sq2_sample(int mode, int want_grad, const nv_cell2 *c, vd tx, vd *g0, vd *g1)
{
    vd tx1 = mode == NK_MODE_PERLIN ? vd_sub(tx, vd_set1(1.0)) : tx;
    return nv_sq2_sample_x(mode, want_grad, c, tx, tx1, nv_fade(tx), want_grad ? nv_dfade(tx) : tx, g0, g1);
}

#if defined(NV_HALVES) && NV_TABLES
/* nv_sq2's perlin cell and sample with gradients on half k of the lanes
 * (the layer's vd_half): off holds the four corners' byte offsets into
 * nl_perlin2_table. On both halves at once its ~30 live vectors took ~120
 * stack spills and reloads per vector; on one half they nearly fit. Same
 * operations on each lane as nv_sq2_cell + nv_sq2_sample. */
NV_FN void nv_sq2_perlin_half(uint32_t off[4][NV_W], int k, vd tx, vd ty, vd *val, vd *g0, vd *g1)
{
    vd e[8];
    vd_table2_half(&nl_perlin2_table[0][0], off[0], k, &e[0], &e[1]);
    vd_table2_half(&nl_perlin2_table[0][0], off[1], k, &e[2], &e[3]);
    vd_table2_half(&nl_perlin2_table[0][0], off[2], k, &e[4], &e[5]);
    vd_table2_half(&nl_perlin2_table[0][0], off[3], k, &e[6], &e[7]);
    vd hx = vd_half(tx, k), hy = vd_half(ty, k);
    nv_cell2 c;
    nv_sq2_cell_of(NK_MODE_PERLIN, 1, e, hy, nv_fade(hy), nv_dfade(hy), &c);
    *val = nv_sq2_sample(NK_MODE_PERLIN, 1, &c, hx, g0, g1);
}
#endif

/* nk_sq2p on every lane (per: cells per period, 0: none); returns 0
 * (computing nothing) if a lane needs the scalar kernel. */
NV_FN int nv_sq2(int mode, int want_grad, uint32_t seed, uint32_t per, vd x, vd y, vd *val, vd *g0, vd *g1)
{
    vd fx = vd_floor(x), fy = vd_floor(y);
    if (!vm_all(vm_and(nv_index_ok(fx), nv_index_ok(fy))))
        return 0;
    vd tx = nv_frac(x, fx), ty = nv_frac(y, fy);
    vi2 h[2];
    nv_hash4p(vi_set1((int)nl_seed(seed)), vd_to_vi(fx), vd_to_vi(fy), fx, fy, per, h);
#if defined(NV_HALVES) && NV_TABLES
    if (mode == NK_MODE_PERLIN && want_grad) {
        uint32_t off[4][NV_W]; /* nv_table2's byte offsets, corners as nv_sq2_cell's */
        vi_storeu(off[0], vi_shl(nv_byte(vi2_lo(h[0])), 4));
        vi_storeu(off[1], vi_shl(nv_byte(vi2_lo(h[1])), 4));
        vi_storeu(off[2], vi_shl(nv_byte(vi2_hi(h[0])), 4));
        vi_storeu(off[3], vi_shl(nv_byte(vi2_hi(h[1])), 4));
        vd v[2], d0[2], d1[2];
        nv_sq2_perlin_half(off, 0, tx, ty, &v[0], &d0[0], &d1[0]);
        nv_sq2_perlin_half(off, 1, tx, ty, &v[1], &d0[1], &d1[1]);
        *val = vd_halves(v[0], v[1]);
        *g0 = vd_halves(d0[0], d0[1]);
        *g1 = vd_halves(d1[0], d1[1]);
        return 1;
    }
#endif
    nv_cell2 c;
    nv_sq2_cell(mode, want_grad, vi2_lo(h[0]), vi2_lo(h[1]), vi2_hi(h[0]), vi2_hi(h[1]), ty, nv_fade(ty),
                nv_dfade(ty), &c);
    *val = nv_sq2_sample(mode, want_grad, &c, tx, g0, g1);
    return 1;
}

#endif
