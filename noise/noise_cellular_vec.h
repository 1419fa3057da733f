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
#define NC_WIN 8 /* >= NC_SPAN + 3, a power of two */

/* The columns lo .. hi - 1 of a row (hi - lo <= NC_WIN), column a in slot
 * a % NC_WIN, as nc_column computes them. */
typedef struct {
    uint64_t lo, hi;
    nc_col col[NC_WIN];
    double cv[NC_WIN][9]; /* return=cell: each cell's value */
} nv_cols;

NV_FN const nc_col *nv_col(const nv_cols *cc, uint64_t a) { return &cc->col[a & (NC_WIN - 1)]; }
NV_FN const double *nv_col_cv(const nv_cols *cc, uint64_t a) { return cc->cv[a & (NC_WIN - 1)]; }

/* Makes columns lo .. lo + w - 1 (w <= NC_WIN) present. */
NV_FN void nv_cols_need(nv_cols *cc, const ne_cell *C, uint32_t s, uint32_t per, int d3, uint64_t lo, int w,
                        uint64_t j, uint64_t kk, double fy, double fz)
{
    uint64_t hi = lo + (uint64_t)w, from = lo;
    if (lo - cc->lo <= cc->hi - cc->lo) {
        /* lo in [cc->lo, cc->hi]: keep what is there */
        if (hi - cc->lo <= cc->hi - cc->lo)
            return;
        from = cc->hi;
    }
    int nz = d3 ? 9 : 3;
    for (uint64_t a = from; a != hi; a++) {
        nc_col *col = &cc->col[a & (NC_WIN - 1)];
        nc_column(C, s, per, d3, a, j, kk, fy, fz, col);
        if (C->ret == NOISE_CELL)
            for (int r = 0; r < nz; r++)
                cc->cv[a & (NC_WIN - 1)][r] = nc_cell_value(nc_hash_b(col->c[r].h));
    }
    cc->lo = lo;
    cc->hi = hi;
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

/* The candidates of one vector, in key order, into the winners: values
 * only (min and max, as the first-of-equals insertion gives them), or with
 * the offsets (want_grad) or cell values (return=cell) of the winners. */
typedef struct {
    vd D1, D2, d1[3], d2[3], cv1;
} nv_win;

NV_FN void nv_cand(int dist, int need2, int want_grad, int ret, int d3, nv_win *w, vd dxs, vd dx, vd yz,
                   double dy, double dz, double cv)
{
    /* dxs: the x offset or its negation (for the distance); dx: the offset
     * (for the gradient) */
    vd tx = dist == NOISE_EUCLIDEAN ? vd_mul(dxs, dxs) : vd_abs(dxs);
    vd D = dist == NOISE_CHEBYSHEV ? vd_max(tx, yz) : vd_add(tx, yz);
    if (!want_grad && ret != NOISE_CELL) {
        if (need2)
            w->D2 = vd_min(w->D2, vd_max(w->D1, D));
        w->D1 = vd_min(D, w->D1);
        return;
    }
    vm m1 = vd_lt(D, w->D1);
    if (need2) {
        vm m2 = vd_lt(D, w->D2);
        w->D2 = vd_blend(m1, w->D1, vd_blend(m2, D, w->D2));
        if (want_grad) {
            w->d2[0] = vd_blend(m1, w->d1[0], vd_blend(m2, dx, w->d2[0]));
            w->d2[1] = vd_blend(m1, w->d1[1], vd_blend(m2, vd_set1(dy), w->d2[1]));
            if (d3)
                w->d2[2] = vd_blend(m1, w->d1[2], vd_blend(m2, vd_set1(dz), w->d2[2]));
        }
    }
    w->D1 = vd_blend(m1, D, w->D1);
    if (ret == NOISE_CELL) {
        w->cv1 = vd_blend(m1, vd_set1(cv), w->cv1);
    } else if (want_grad) {
        w->d1[0] = vd_blend(m1, dx, w->d1[0]);
        w->d1[1] = vd_blend(m1, vd_set1(dy), w->d1[1]);
        if (d3)
            w->d1[2] = vd_blend(m1, vd_set1(dz), w->d1[2]);
    }
}

/* The prepared cell's candidates (nq of them) against the lanes' x
 * fractions; dist and ret are literals at each call of the dispatch
 * below, so each combination gets its own loop. */
NV_FN void nv_cands(int dist, int ret, int want_grad, int d3, nv_win *w, vd fx, int nq, const vd *pcx,
                    const vd *pyz, const double *pdy, const double *pdz, const double *pcv)
{
    int need2 = ret == NOISE_F2 || ret == NOISE_F2_F1;
    /* fx - (e + o) is -((e + o) - fx) but for the sign of a zero, which
     * the distance terms do not see; the gradient takes (e + o) - fx */
#pragma GCC unroll 9
    for (int q = 0; q < nq; q++) {
        vd dxs = vd_sub(fx, pcx[q]);
        nv_cand(dist, need2, want_grad, ret, d3, w, dxs, want_grad ? vd_sub(pcx[q], fx) : dxs, pyz[q], pdy[q], pdz[q],
                pcv[q]);
    }
}

#define NV_CANDS_CASE(D, R)                                                                   \
    case (D) * NOISE_RETURN_COUNT + (R):                                                      \
        nv_cands(D, R, want_grad, d3, &w, fx, 3 * nzy, pcx, pyz, pdy, pdz, pcv);              \
        break;
#define NV_CANDS_DIST(D) \
    NV_CANDS_CASE(D, NOISE_F1) NV_CANDS_CASE(D, NOISE_F2) NV_CANDS_CASE(D, NOISE_F2_F1) NV_CANDS_CASE(D, NOISE_CELL)

/* One row of cellular noise, as nc_row (to_float 0: doubles, 1: a finished
 * one-octave fbm row in floats). A vector whose lanes share one cell (most,
 * at several samples per cell) takes the 3 x 3 (x 3) cells prepared once
 * per cell, e + o already added; the others the window of columns. */
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
    cc.lo = cc.hi = 0;
    /* the prepared cell: its 3 x 3 (x 3) candidates in key order */
    double pcell = NAN, pdy[27] = { 0 }, pdz[27] = { 0 }, pcv[27] = { 0 };
    vd pcx[27], pyz[27];
    vd vpcell = vd_set1(NAN);
    for (int i = 0; i < n; i += NV_W) {
        int m = n - i < NV_W ? n - i : NV_W;
        vd x = vd_mul(nv_row_x(xs, x0, step, i, n), vf);
        vd fl = vd_floor(x);
        vm ok = vd_eq(zero, one); /* no lane */
        vd val = zero, gv[3] = { zero, zero, zero };
        /* every lane in the prepared cell (then below 2^52 too), or the
         * lanes' range of cells */
        int in_p = vm_all(vd_eq(fl, vpcell));
        double fl0 = in_p ? pcell : vd_hmin(fl), span = in_p ? 0.0 : vd_hmax(fl) - fl0;
        if (in_p || (vm_all(vd_lt(vd_abs(x), big)) && span <= NC_SPAN)) {
            /* every lane's cell is in fl0 .. fl0 + span, below 2^52 */
            uint64_t i0 = (uint64_t)(int64_t)fl0; /* as nl_floor gives it */
            vd fx = vd_add(vd_sub(x, fl), vd_zero());
            nv_win w = { inf, inf, { zero, zero, zero }, { zero, zero, zero }, zero };
            if (span == 0) {
                if (fl0 != pcell) {
                    nv_cols_need(&cc, C, s, per, d3, i0 - 1, 3, j, kk, fyz[1], fyz[2]);
                    for (int c = 0; c < 3; c++) {
                        const nc_col *col = nv_col(&cc, i0 - 1 + (uint64_t)c);
                        for (int r = 0; r < nzy; r++) {
                            int q = r * 3 + c;
                            pcx[q] = vd_set1((double)(c - 1) + col->c[r].ox);
                            pyz[q] = vd_set1(col->c[r].yz);
                            if (want_grad) {
                                pdy[q] = col->c[r].dy;
                                pdz[q] = col->c[r].dz;
                            }
                            if (ret == NOISE_CELL)
                                pcv[q] = nv_col_cv(&cc, i0 - 1 + (uint64_t)c)[r];
                        }
                    }
                    pcell = fl0;
                    vpcell = vd_set1(pcell);
                }
                switch (dist * NOISE_RETURN_COUNT + ret) {
                    NV_CANDS_DIST(NOISE_EUCLIDEAN)
                    NV_CANDS_DIST(NOISE_MANHATTAN)
                    NV_CANDS_DIST(NOISE_CHEBYSHEV)
                default: break;
                }
            } else {
                int wc = (int)span + 3;
                nv_cols_need(&cc, C, s, per, d3, i0 - 1, wc, j, kk, fyz[1], fyz[2]);
                vd cl = vd_add(vd_sub(fl, vd_set1(fl0)), one); /* the lane's cell's column in the window */
                vd ex[NC_WIN];
                for (int c = 0; c < wc; c++)
                    ex[c] = vd_sub(vd_set1((double)c), cl);
                for (int r = 0; r < nzy; r++)
                    for (int c = 0; c < wc; c++) {
                        const nc_cc *q = &nv_col(&cc, i0 - 1 + (uint64_t)c)->c[r];
                        vd dx = vd_sub(vd_add(ex[c], vd_set1(q->ox)), fx);
                        nv_cand(dist, need2, want_grad, ret, d3, &w, dx, dx, vd_set1(q->yz), q->dy, q->dz,
                                nv_col_cv(&cc, i0 - 1 + (uint64_t)c)[r]);
                    }
            }
            /* the ring-2 bound of each lane against what it needs */
            vd mb = vd_min(vd_min(vd_sub(gp2, fx), vd_sub(fx, gn2)), vmyz);
            vd mD = dist == NOISE_EUCLIDEAN ? vd_mul(mb, mb) : mb;
            ok = vd_gt(mD, need2 ? w.D2 : w.D1);
            /* nc_finish on lanes */
            vd F1 = dist == NOISE_EUCLIDEAN && ret != NOISE_F2 && ret != NOISE_CELL ? vd_sqrt(w.D1) : w.D1, F2 = zero;
            if (need2)
                F2 = dist == NOISE_EUCLIDEAN ? vd_sqrt(w.D2) : w.D2;
            if (ret == NOISE_F1)
                val = vd_sub(vd_mul(F1, vscale), one);
            else if (ret == NOISE_F2)
                val = vd_sub(vd_mul(F2, vscale), one);
            else if (ret == NOISE_F2_F1)
                val = vd_sub(vd_mul(vd_sub(F2, F1), vscale), one);
            else
                val = w.cv1;
            if (want_grad && ret != NOISE_CELL) {
                vd g1[3] = { zero, zero, zero }, g2[3] = { zero, zero, zero };
                if (ret != NOISE_F2)
                    nv_cell_grad_f(dist, dims, w.d1, F1, g1);
                if (need2)
                    nv_cell_grad_f(dist, dims, w.d2, F2, g2);
                for (int a = 0; a < dims; a++)
                    gv[a] = ret == NOISE_F1 ? vd_mul(g1[a], vscale)
                          : ret == NOISE_F2 ? vd_mul(g2[a], vscale) : vd_mul(vd_sub(g2[a], g1[a]), vscale);
            }
        }
        if (!vm_all(ok)) {
            /* lanes the candidates do not settle: the exact search */
            double X[NV_W], OK[NV_W], V[NV_W], G[3][NV_W];
            vd_storeu(X, x);
            vd_storeu(OK, vd_blend(ok, one, zero));
            vd_storeu(V, val);
            for (int a = 0; a < dims; a++)
                vd_storeu(G[a], gv[a]);
            for (int l = 0; l < m; l++)
                if (OK[l] == 0.0) {
                    double gd[3] = { 0, 0, 0 };
                    V[l] = nc_eval(C, seed, per, d3, X[l], y * f, t * f, want_grad, gd);
                    for (int a = 0; a < dims; a++)
                        G[a][l] = gd[a];
                }
            val = vd_loadu(V);
            for (int a = 0; a < dims; a++)
                gv[a] = vd_loadu(G[a]);
        }
        if (to_float) {
            val = vd_blend(vd_lt(val, vd_set1(-1.0)), vd_set1(-1.0), vd_blend(vd_gt(val, one), one, val));
            nv_emit(want_grad, 1, L, 0, i, m, val, gv[0], gv[1], NULL, NULL, fv, fg);
        } else if (!d3) {
            nv_emit(want_grad, 0, L, k, i, m, val, gv[0], gv[1], v, g, NULL, NULL);
        } else {
            double V[NV_W], G[3][NV_W];
            vd_storeu(V, val);
            for (int a = 0; a < 3; a++)
                vd_storeu(G[a], gv[a]);
            for (int l = 0; l < m; l++) {
                v[i + l] = V[l];
                if (want_grad)
                    for (int a = 0; a < 3; a++)
                        g[a][i + l] = G[a][l];
            }
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
