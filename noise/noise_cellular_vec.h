/* noise_cellular_vec.h: internal to noise/: the vector twin of
 * noise_cellular.h's grid rows, written against noise_vec.h's vector layer
 * (included by noise_vec.h, so once per instruction-set path).
 *
 * A row's cells are hashed once per column by the scalar nc_column (into a
 * small cache of consecutive columns). The NV_W samples of a vector lie in
 * at most NC_SPAN + 1 consecutive cells; every lane takes the candidates of
 * the columns from the first lane's cell - 1 to the last lane's + 1, rows
 * j - 1 .. j + 1 (and t's k - 1 .. k + 1), in key order (t, y, then x),
 * keeping the first of equal distances, with the scalar expressions lane by
 * lane: d = (e + o) - f, the same distance terms. Those candidates include
 * each lane's 3 x 3 (x 3) cells; a lane whose ring-2 bound does not rule
 * out the cells beyond them takes nc_eval, as the scalar row does. Since
 * the result is the first two points of the (distance, cell) order over all
 * cells, any exact search gives the same numbers: these lanes equal the
 * scalar path bit for bit. Vectors spanning more cells, or coordinates at
 * or beyond 2^52, take nc_eval lane by lane.
 */
#ifndef NOISE_CELLULAR_VEC_H
#define NOISE_CELLULAR_VEC_H

#include "noise_cellular.h"

#include <string.h>

#define NC_SPAN 5
#define NC_WIN (NC_SPAN + 3)

/* Consecutive columns from `base`, as nc_column computes them. */
typedef struct {
    uint64_t base;
    int count;
    nc_col col[NC_WIN];
    double cv[NC_WIN][9]; /* return=cell: each cell's value */
} nv_cols;

/* Makes columns lo .. lo + w - 1 (w <= NC_WIN) present, from index 0. */
NV_FN void nv_cols_need(nv_cols *cc, const ne_cell *C, uint32_t s, uint32_t per, int d3, uint64_t lo, int w,
                        uint64_t j, uint64_t kk, double fy, double fz)
{
    int keep = 0;
    if (cc->count > 0 && lo - cc->base < (uint64_t)cc->count) {
        /* lo is inside: move the overlap down */
        int shift = (int)(lo - cc->base);
        keep = cc->count - shift;
        if (shift > 0) {
            memmove(&cc->col[0], &cc->col[shift], sizeof(nc_col) * (size_t)keep);
            memmove(&cc->cv[0], &cc->cv[shift], sizeof cc->cv[0] * (size_t)keep);
        }
        if (keep > w)
            keep = w;
    }
    int nz = d3 ? 9 : 3;
    for (int c = keep; c < w; c++) {
        nc_column(C, s, per, d3, lo + (uint64_t)c, j, kk, fy, fz, &cc->col[c]);
        if (C->ret == NOISE_CELL)
            for (int r = 0; r < nz; r++)
                cc->cv[c][r] = nc_cell_value(nc_hash_b(cc->col[c].c[r].h));
    }
    cc->base = lo;
    cc->count = w > keep ? w : keep;
}

/* nc_grad_f on lanes, for offsets d (dims 2 or 3) */
NV_FN void nv_cell_grad_f(int distance, int dims, const vd *d, vd F, vd *out)
{
    vd one = vd_set1(1.0), mone = vd_set1(-1.0), zero = vd_zero();
    if (distance == NOISE_EUCLIDEAN) {
        vm pos = vd_gt(F, zero);
        for (int a = 0; a < dims; a++)
            out[a] = vd_blend(pos, vd_xor_sign(vd_div(d[a], F)), zero);
        return;
    }
    if (distance == NOISE_MANHATTAN) {
        for (int a = 0; a < dims; a++)
            out[a] = vd_blend(vd_lt(d[a], zero), one, mone);
        return;
    }
    /* the axis of the largest |d|, the first on ties */
    vd am = vd_abs(d[0]);
    vm pick[3];
    pick[0] = vd_eq(am, am); /* all lanes */
    for (int a = 1; a < dims; a++) {
        vd aa = vd_abs(d[a]);
        vm gt = vd_gt(aa, am);
        for (int b = 0; b < a; b++)
            pick[b] = vm_and(pick[b], vm_not(gt));
        pick[a] = gt;
        am = vd_blend(gt, aa, am);
    }
    for (int a = 0; a < dims; a++)
        out[a] = vd_blend(pick[a], vd_blend(vd_lt(d[a], zero), one, mone), zero);
}

/* One row of cellular noise, as nc_row (to_float 0: doubles, 1: a finished
 * one-octave fbm row in floats). */
NV_FN void nv_cell_row(int d3, int want_grad, int to_float, const ne_layer *L, int k, int n, const double *xs,
                       double x0, double step, double y, double t, double *v, ne_grad g, float *fv, float *fg)
{
    const ne_cell *C = &L->cell;
    int dims = d3 ? 3 : 2, nzy = d3 ? 9 : 3, dist = C->distance, need2 = C->need2, ret = C->ret;
    double f = L->freq[k], fyz[3] = { 0, 0, 0 };
    uint64_t j = nl_floor(y * f, &fyz[1]), kk = 0;
    if (d3)
        kk = nl_floor(t * f, &fyz[2]);
    uint32_t seed = L->seed[k], s = nl_seed(seed), per = L->period[k];
    double myz = INFINITY;
    for (int a = 1; a < dims; a++) {
        double gp = nc_gap(C, 2, fyz[a]), gn = nc_gap(C, -2, fyz[a]);
        myz = gp < myz ? gp : myz;
        myz = gn < myz ? gn : myz;
    }
    vd vf = vd_set1(f), vscale = vd_set1(C->scale), one = vd_set1(1.0), zero = vd_zero();
    vd gp2 = vd_set1(2.0 + C->lo), gn2 = vd_set1(-2.0 + C->hi), vmyz = vd_set1(myz);
    vd big = vd_set1(4503599627370496.0), inf = vd_set1(INFINITY);
    nv_cols cc;
    cc.count = 0;
    cc.base = 0;
    for (int i = 0; i < n; i += NV_W) {
        int m = n - i < NV_W ? n - i : NV_W;
        vd x = vd_mul(nv_row_x(xs, x0, step, i, n), vf);
        vd fl = vd_floor(x);
        double FL[NV_W];
        vd_storeu(FL, fl);
        double span = FL[m - 1] - FL[0];
        vd rel = vd_sub(fl, vd_set1(FL[0])); /* each lane's cell - the first lane's */
        int fast = vm_all(vd_lt(vd_abs(x), big)) && span >= 0 && span <= NC_SPAN &&
                   vm_all(vm_and(vd_ge(rel, zero), vd_le(rel, vd_set1(span))));
        double V[NV_W], G[3][NV_W];
        vm ok = vd_eq(zero, one); /* no lane */
        vd val = zero, gv[3] = { zero, zero, zero };
        if (fast) {
            uint64_t i0 = (uint64_t)(int64_t)FL[0]; /* lane 0's cell, as nl_floor gives it below 2^52 */
            int w = (int)span + 3;
            nv_cols_need(&cc, C, s, per, d3, i0 - 1, w, j, kk, fyz[1], fyz[2]);
            vd fx = vd_add(vd_sub(x, fl), vd_zero());
            vd cl = vd_add(rel, one); /* the lane's cell's column in the window */
            vd D1 = inf, D2 = inf, d1[3] = { zero, zero, zero }, d2[3] = { zero, zero, zero }, cv1 = zero;
            vd ex[NC_WIN]; /* each column's offset from each lane's cell */
            for (int c = 0; c < w; c++)
                ex[c] = vd_sub(vd_set1((double)c), cl);
            for (int r = 0; r < nzy; r++)
                for (int c = 0; c < w; c++) {
                    const nc_cc *q = &cc.col[c].c[r];
                    vd dx = vd_sub(vd_add(ex[c], vd_set1(q->ox)), fx);
                    vd tx = dist == NOISE_EUCLIDEAN ? vd_mul(dx, dx) : vd_abs(dx);
                    vd D = dist == NOISE_CHEBYSHEV ? vd_max(tx, vd_set1(q->yz)) : vd_add(tx, vd_set1(q->yz));
                    if (!want_grad && ret != NOISE_CELL) {
                        if (need2)
                            D2 = vd_min(D2, vd_max(D1, D));
                        D1 = vd_min(D, D1);
                        continue;
                    }
                    vm m1 = vd_lt(D, D1);
                    if (need2) {
                        vm m2 = vd_lt(D, D2);
                        D2 = vd_blend(m1, D1, vd_blend(m2, D, D2));
                        if (want_grad) {
                            d2[0] = vd_blend(m1, d1[0], vd_blend(m2, dx, d2[0]));
                            d2[1] = vd_blend(m1, d1[1], vd_blend(m2, vd_set1(q->dy), d2[1]));
                            if (d3)
                                d2[2] = vd_blend(m1, d1[2], vd_blend(m2, vd_set1(q->dz), d2[2]));
                        }
                    }
                    D1 = vd_blend(m1, D, D1);
                    if (ret == NOISE_CELL) {
                        cv1 = vd_blend(m1, vd_set1(cc.cv[c][r]), cv1);
                    } else if (want_grad) {
                        d1[0] = vd_blend(m1, dx, d1[0]);
                        d1[1] = vd_blend(m1, vd_set1(q->dy), d1[1]);
                        if (d3)
                            d1[2] = vd_blend(m1, vd_set1(q->dz), d1[2]);
                    }
                }
            /* the ring-2 bound of each lane against what it needs */
            vd mb = vd_min(vd_min(vd_sub(gp2, fx), vd_sub(fx, gn2)), vmyz);
            vd mD = dist == NOISE_EUCLIDEAN ? vd_mul(mb, mb) : mb;
            ok = vd_gt(mD, need2 ? D2 : D1);
            /* nc_finish on lanes */
            vd F1 = dist == NOISE_EUCLIDEAN ? vd_sqrt(D1) : D1, F2 = zero;
            if (need2)
                F2 = dist == NOISE_EUCLIDEAN ? vd_sqrt(D2) : D2;
            if (ret == NOISE_F1)
                val = vd_sub(vd_mul(F1, vscale), one);
            else if (ret == NOISE_F2)
                val = vd_sub(vd_mul(F2, vscale), one);
            else if (ret == NOISE_F2_F1)
                val = vd_sub(vd_mul(vd_sub(F2, F1), vscale), one);
            else
                val = cv1;
            if (want_grad && ret != NOISE_CELL) {
                vd g1[3] = { zero, zero, zero }, g2[3] = { zero, zero, zero };
                if (ret != NOISE_F2)
                    nv_cell_grad_f(dist, dims, d1, F1, g1);
                if (need2)
                    nv_cell_grad_f(dist, dims, d2, F2, g2);
                for (int a = 0; a < dims; a++)
                    gv[a] = ret == NOISE_F1 ? vd_mul(g1[a], vscale)
                          : ret == NOISE_F2 ? vd_mul(g2[a], vscale) : vd_mul(vd_sub(g2[a], g1[a]), vscale);
            }
        }
        vd_storeu(V, val);
        for (int a = 0; a < dims; a++)
            vd_storeu(G[a], gv[a]);
        if (!vm_all(ok)) {
            /* lanes the window does not settle: the exact search */
            double X[NV_W], OK[NV_W];
            vd_storeu(X, x);
            vd_storeu(OK, vd_blend(ok, one, zero));
            for (int l = 0; l < m; l++)
                if (OK[l] == 0.0) {
                    double gd[3] = { 0, 0, 0 };
                    V[l] = nc_eval(C, seed, per, d3, X[l], y * f, t * f, want_grad, gd);
                    for (int a = 0; a < dims; a++)
                        G[a][l] = gd[a];
                }
        }
        for (int l = 0; l < m; l++) {
            if (!to_float) {
                v[i + l] = V[l];
                if (want_grad)
                    for (int a = 0; a < dims; a++)
                        g[a][i + l] = G[a][l];
            }
        }
        if (to_float) {
            vd vv = vd_loadu(V);
            vv = vd_blend(vd_lt(vv, vd_set1(-1.0)), vd_set1(-1.0), vd_blend(vd_gt(vv, one), one, vv));
            nv_emit(want_grad, 1, L, 0, i, m, vv, vd_loadu(G[0]), vd_loadu(G[1]), NULL, NULL, fv, fg);
        }
    }
}

#define NV_CELL_LOOPS(name, D3)                                                                           \
    static NV_TARGET void name##_row_v(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        nv_cell_row(D3, 0, 0, L, k, n, xs, 0, 0, y, t, v, g, NULL, NULL);                                 \
    }                                                                                                     \
    static NV_TARGET void name##_row_g(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        nv_cell_row(D3, 1, 0, L, k, n, xs, 0, 0, y, t, v, g, NULL, NULL);                                 \
    }
NV_CELL_LOOPS(nv_cellular2, 0)
NV_CELL_LOOPS(nv_cellular3, 1)

static NV_TARGET void nv_cellular2_floatrow(const ne_layer *L, int n, double x0, double step, double y, float *fv,
                                            float *fg)
{
    if (fg)
        nv_cell_row(0, 1, 1, L, 0, n, NULL, x0, step, y, 0.0, NULL, NULL, fv, fg);
    else
        nv_cell_row(0, 0, 1, L, 0, n, NULL, x0, step, y, 0.0, NULL, NULL, fv, NULL);
}

#define NV_CELL_BASE2 { nv_cellular2_row_v, nv_cellular2_row_g, NULL, NULL, NULL, 0, nv_cellular2_floatrow }
#define NV_CELL_BASE3 { nv_cellular3_row_v, nv_cellular3_row_g, NULL, NULL, NULL, 0, NULL }

#endif
