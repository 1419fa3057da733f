/* noise_cellular_vec.h: internal to noise/: the vector twin of
 * noise_cellular.h's grid rows and points (nc_row, nc_eval), written
 * against noise_vec.h's vector layer (included by noise_vec.h, so once per
 * instruction-set path).
 *
 * A row is taken in chunks of NC_CHUNK samples. When a chunk's cells (and
 * two more on each side) and the rows of cells around the row are int32
 * indices, the chunk's columns of cells are hashed NV_W columns at a time
 * (nl_eat64 eats the low word only there) and their offsets computed by
 * the scalar expressions lane by lane. A vector whose lanes share one cell
 * (most, at several samples per cell) takes its 3 x 3 (x 3) candidates from
 * them by broadcasts; one spanning several cells takes every column from
 * its first lane's cell - 1 to its last lane's + 1. Candidates go in key
 * order (t, y, then x) keeping the first of equal distances where the
 * winner's offsets or cell are needed; for values alone the least distance
 * (and the second least) by min and max, which do not depend on the order.
 * The distances are the scalar expressions: d = (e + o) - f, the same
 * terms. A lane whose ring-2 bound does not rule out the cells beyond takes,
 * in 2D, the 5 x 5 cells around it the same way and then the ring-3 bound
 * (met in 2D: docs/field.md), in 3D (and if that fails) nc_eval. Since the
 * result is the first two points of the (distance, cell) order over all
 * cells, any exact search gives the same numbers: these lanes equal the
 * scalar path bit for bit. Other chunks (cells beyond int32, or more than
 * NC_COLS columns: over a cell per sample) take the points' loop.
 *
 * A 2D one-octave tile (float_row), every distance and return, goes chunk
 * by chunk through its rows: the rows share the samples' x, so a chunk's
 * cells are hashed once per band (the rows inside one row of cells, which
 * see the same 3 x 3 candidate points), and the x term of each
 * candidate's distance, term(fx - cx), once per band and sample; each row
 * adds its y term (the same operation on the same doubles as above).
 *
 * Points (batches, and those chunks): each lane hashes its own 3 x 3 (x 3)
 * cells, NV_W lanes per instruction, in key order, with the same ring-2
 * bound, 2D 5 x 5 cells and ring-3 bound after it; lanes whose cells (or
 * their neighbours) are not int32 indices, and what the bounds leave, take
 * nc_eval.
 *
 * Internal prefixes (ne_, nl_, nk_, nc_, nv_, ...): noise_field.h.
 */
#ifndef NOISE_CELLULAR_VEC_H
#define NOISE_CELLULAR_VEC_H

#include "noise_cellular.h"

#include <string.h>

/* Every (distance, return) pair of cellular noise: the one list from which
 * the code specialised for each pair is generated (the points' and the
 * rows' dispatch, the band's row functions and their table), X(D, RET) for
 * each pair in the order of its index NV_CELL_INDEX(D, RET). Each copy has
 * the pair as literals, so its distance and return branches fold. */
#define NV_CELL_PAIRS(X)                                                                                  \
    X(NOISE_EUCLIDEAN, NOISE_F1) X(NOISE_EUCLIDEAN, NOISE_F2) X(NOISE_EUCLIDEAN, NOISE_F2_F1)             \
    X(NOISE_EUCLIDEAN, NOISE_CELL)                                                                        \
    X(NOISE_MANHATTAN, NOISE_F1) X(NOISE_MANHATTAN, NOISE_F2) X(NOISE_MANHATTAN, NOISE_F2_F1)             \
    X(NOISE_MANHATTAN, NOISE_CELL)                                                                        \
    X(NOISE_CHEBYSHEV, NOISE_F1) X(NOISE_CHEBYSHEV, NOISE_F2) X(NOISE_CHEBYSHEV, NOISE_F2_F1)             \
    X(NOISE_CHEBYSHEV, NOISE_CELL)
#define NV_CELL_INDEX(D, RET) ((D) * NOISE_RETURN_COUNT + (RET))

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

/* nc_term and nc_comb on lanes */
NV_FN vd nv_cell_term(int dist, vd d) { return dist == NOISE_EUCLIDEAN ? vd_mul(d, d) : vd_abs(d); }
NV_FN vd nv_cell_comb(int dist, vd a, vd b) { return dist == NOISE_CHEBYSHEV ? vd_max(a, b) : vd_add(a, b); }

/* The winners of a vector's candidates: the least distance and the
 * second, and the offsets and cell value of their points where used. */
typedef struct {
    vd D1, D2, d1[3], d2[3], cv1;
} nv_win;

/* The candidates of one vector, in key order, into the winners: values
 * only (min and max, as the first-of-equals insertion gives them), or with
 * the offsets (want_grad) or cell values (return=cell) of the winners.
 * nv_cand_d takes the candidate's distance D, nv_cand its offsets. */
NV_FN void nv_cand_d(int need2, int want_grad, int ret, int d3, nv_win *w, vd D, vd dx, vd dy, vd dz, vd cv)
{
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
            w->d2[1] = vd_blend(m1, w->d1[1], vd_blend(m2, dy, w->d2[1]));
            if (d3)
                w->d2[2] = vd_blend(m1, w->d1[2], vd_blend(m2, dz, w->d2[2]));
        }
    }
    /* D < D1 ? D : D1, as minpd gives it */
    w->D1 = vd_min(D, w->D1);
    if (ret == NOISE_CELL) {
        w->cv1 = vd_blend(m1, cv, w->cv1);
    } else if (want_grad) {
        w->d1[0] = vd_blend(m1, dx, w->d1[0]);
        w->d1[1] = vd_blend(m1, dy, w->d1[1]);
        if (d3)
            w->d1[2] = vd_blend(m1, dz, w->d1[2]);
    }
}

NV_FN void nv_cand(int dist, int need2, int want_grad, int ret, int d3, nv_win *w, vd dxs, vd dx, vd yz, vd dy,
                   vd dz, vd cv)
{
    /* dxs: the x offset or its negation (for the distance); dx: the offset
     * (for the gradient) */
    nv_cand_d(need2, want_grad, ret, d3, w, nv_cell_comb(dist, nv_cell_term(dist, dxs), yz), dx, dy, dz, cv);
}

/* A chunk's columns of cells, hashed NV_W columns at a time: column
 * lo - 2 + c at index c; its cells of rows j - 1 .. j + 1 (and k - 1 ..
 * k + 1) at r = (ez + 1) * 3 + ey + 1, in 2D also rows j - 2 (r = 3) and
 * j + 2 (r = 4) when a lane needs ring 2; as nc_column computes them: the
 * candidate's x position (double)e + o for e = -1, 0, 1, the y(z) distance
 * term, and the offsets and cell value where they are used. */
#define NC_CHUNK 128
#define NC_COLS (NC_CHUNK + 16)
typedef struct {
    double cx[3][9][NC_COLS + NV_W]; /* [e + 1][r][c] */
    double yz[9][NC_COLS + NV_W], dy[9][NC_COLS + NV_W], dz[9][NC_COLS + NV_W], cv[9][NC_COLS + NV_W];
    double oy[3][NC_COLS + NV_W]; /* 2D bands: the y position (double)ey + o of rows 0 .. 2 (dy = oy - fy) */
} nv_ccols;

/* nc_offset on lanes */
NV_FN vd nv_cell_offset(vi bits, vd jitter)
{
    vd r = vd_mul(vi_to_vd(bits), vd_set1(0x1p-16));
    return vd_add(vd_set1(0.5), vd_mul(jitter, vd_sub(r, vd_set1(0.5))));
}

/* nc_cell_value(h2) on lanes */
NV_FN vd nv_cell_value(vi h2)
{
    vd b = vi_to_vd(vi_shr(h2, 16));
    return vd_sub(vd_mul(vd_div(b, vd_set1(65535.0)), vd_set1(2.0)), vd_set1(1.0));
}

/* Cell indices i - r .. i + r hash by their low words (nl_eat64 eats the
 * high word only outside the int32 range). */
NV_FN int nv_cell_i32(uint64_t i, int r)
{
    return (int64_t)i >= (int64_t)INT32_MIN + r && (int64_t)i <= (int64_t)INT32_MAX - r;
}

/* Row r of the columns a0 .. a0 + n_cols - 1 (low words of int32
 * indices): the cells at rows j + ey (and k + ez); per: cells per period
 * (0: none), the columns and rows wrapped as nc_hash2 wraps them. */
NV_FN void nv_ccols_row(nv_ccols *cc, const ne_cell *C, uint32_t s, uint32_t per, int d3, int want_grad, uint32_t a0,
                        int n_cols, uint64_t j, uint64_t kk, double fy, double fz, int r, int ey, int ez)
{
    int dist = C->distance, cell = C->ret == NOISE_CELL;
    vd jit = vd_set1(C->jitter), vfy = vd_set1(fy), vfz = vd_set1(fz), one = vd_set1(1.0), mone = vd_set1(-1.0);
    vi vs = vi_set1((int)s);
    vi vey = vi_set1((int)((uint32_t)nl_wrap(j + (uint64_t)(int64_t)ey, per) * NL_PRIME_C));
    vi vez = vi_set1((int)((uint32_t)(kk + (uint64_t)(int64_t)ez) * NL_PRIME_C));
    for (int c = 0; c < n_cols; c += NV_W) {
        /* nc_hash2 / nc_hash3: eat(eat(seed, a), b)[, c], avalanche */
        vi col = per ? nv_wrap(vd_add(vd_set1((double)(int32_t)a0 + (double)c), vd_iota()), per)
                     : vi_add(vi_set1((int)(a0 + (uint32_t)c)), vi_iota());
        vi h = nv_eat_sum(vi_add(nv_eat(vs, col), vey));
        if (d3)
            h = nv_eat_sum(vi_add(h, vez));
        h = nv_avalanche(h);
        vd ox = nv_cell_offset(vi_and(h, vi_set1(0xffff)), jit);
        vd dy = vd_sub(vd_add(vd_set1((double)ey), nv_cell_offset(vi_shr(h, 16), jit)), vfy);
        vd yz = nv_cell_term(dist, dy), dz = vd_zero();
        vi h2 = h;
        if (d3 || cell)
            h2 = nv_avalanche(vi_add(h, vi_set1((int)NL_PRIME_A)));
        if (d3) {
            dz = vd_sub(vd_add(vd_set1((double)ez), nv_cell_offset(vi_and(h2, vi_set1(0xffff)), jit)), vfz);
            yz = nv_cell_comb(dist, yz, nv_cell_term(dist, dz));
        }
        vd_storeu(&cc->cx[0][r][c], vd_add(mone, ox));
        vd_storeu(&cc->cx[1][r][c], vd_add(vd_zero(), ox));
        vd_storeu(&cc->cx[2][r][c], vd_add(one, ox));
        vd_storeu(&cc->yz[r][c], yz);
        if (want_grad) {
            vd_storeu(&cc->dy[r][c], dy);
            vd_storeu(&cc->dz[r][c], dz);
        }
        if (cell)
            vd_storeu(&cc->cv[r][c], nv_cell_value(h2));
    }
}

/* The candidates of lanes that share one cell (column index c: e = -1 at
 * c - 1), in key order. Values alone: the least distance (and the second)
 * by min and max, whose results do not depend on the order, one running
 * pair per column merged at the end. */
NV_FN void nv_cell_one(int dist, int ret, int want_grad, int d3, nv_win *w, vd fx, const nv_ccols *cc, int c)
{
    int nzy = d3 ? 9 : 3, need2 = ret == NOISE_F2 || ret == NOISE_F2_F1;
    if (!want_grad && ret != NOISE_CELL) {
        vd a[3], b[3];
#pragma GCC unroll 9
        for (int r = 0; r < nzy; r++)
#pragma GCC unroll 3
            for (int e = 0; e < 3; e++) {
                vd dxs = vd_sub(fx, vd_set1(cc->cx[e][r][c - 1 + e]));
                vd D = nv_cell_comb(dist, nv_cell_term(dist, dxs), vd_set1(cc->yz[r][c - 1 + e]));
                if (need2)
                    b[e] = r == 0 ? vd_set1(INFINITY) : vd_min(b[e], vd_max(a[e], D));
                a[e] = r == 0 ? D : vd_min(a[e], D);
            }
        w->D1 = vd_min(vd_min(a[0], a[1]), a[2]);
        if (need2) {
            /* the second least of the union of three sorted pairs */
            vd m01 = vd_min(vd_max(a[0], a[1]), vd_min(b[0], b[1])), l01 = vd_min(a[0], a[1]);
            w->D2 = vd_min(vd_max(l01, a[2]), vd_min(m01, b[2]));
        }
        return;
    }
    /* unrolled as above: the winners stay in registers. The winners' x
     * offsets are carried as fx - cx and made cx - fx at the end:
     * -(fx - cx) + 0 is cx - fx exactly (rounding is symmetric; + 0 turns
     * the -0 of fx == cx into cx - fx's +0), one subtraction a candidate
     * fewer. */
#pragma GCC unroll 9
    for (int r = 0; r < nzy; r++)
#pragma GCC unroll 3
        for (int e = 0; e < 3; e++) {
            vd dxs = vd_sub(fx, vd_set1(cc->cx[e][r][c - 1 + e]));
            nv_cand(dist, need2, want_grad, ret, d3, w, dxs, dxs, vd_set1(cc->yz[r][c - 1 + e]),
                    vd_set1(want_grad ? cc->dy[r][c - 1 + e] : 0.0),
                    vd_set1(want_grad && d3 ? cc->dz[r][c - 1 + e] : 0.0),
                    vd_set1(ret == NOISE_CELL ? cc->cv[r][c - 1 + e] : 0.0));
        }
    if (want_grad) {
        vd zero = vd_zero();
        w->d1[0] = vd_add(vd_xor_sign(w->d1[0]), zero);
        if (need2)
            w->d2[0] = vd_add(vd_xor_sign(w->d2[0]), zero);
    }
}

/* The candidates of the rows rs[0 .. nr) (in key order) and the columns
 * q0 .. q1 around lanes whose cells are at column index lc, in key order. */
NV_FN void nv_cell_window(int dist, int need2, int want_grad, int ret, int d3, nv_win *w, vd fx, vd lc,
                          const nv_ccols *cc, const int *rs, int nr, int q0, int q1)
{
    for (int ri = 0; ri < nr; ri++) {
        int r = rs[ri];
        for (int q = q0; q <= q1; q++) {
            vd dx = vd_sub(vd_add(vd_sub(vd_set1((double)q), lc), vd_set1(cc->cx[1][r][q])), fx);
            nv_cand(dist, need2, want_grad, ret, d3, w, dx, dx, vd_set1(cc->yz[r][q]),
                    vd_set1(want_grad ? cc->dy[r][q] : 0.0), vd_set1(want_grad && d3 ? cc->dz[r][q] : 0.0),
                    vd_set1(ret == NOISE_CELL ? cc->cv[r][q] : 0.0));
        }
    }
}

/* The smallest distance of the ring at largest offset rr (nc_ring_bound)
 * on lanes, with its y(z) part myz. */
NV_FN vd nv_cell_ring(const ne_cell *C, int rr, vd fx, double myz)
{
    vd gp = vd_sub(vd_set1((double)rr + C->lo), fx), gn = vd_sub(fx, vd_set1((double)-rr + C->hi));
    vd m = vd_min(vd_min(gp, gn), vd_set1(myz));
    return C->distance == NOISE_EUCLIDEAN ? vd_mul(m, m) : m;
}

/* nc_ring_bound's y and z part */
NV_FN double nv_cell_ring_yz(const ne_cell *C, int dims, int rr, const double *fyz)
{
    double m = INFINITY;
    for (int a = 1; a < dims; a++) {
        double gp = nc_gap(C, rr, fyz[a]), gn = nc_gap(C, -rr, fyz[a]);
        m = gp < m ? gp : m;
        m = gn < m ? gn : m;
    }
    return m;
}

/* nc_finish on lanes: the value and the noise-space gradient */
NV_FN void nv_cell_finish(int dist, int ret, int want_grad, int dims, const nv_win *w, double scale, vd *val, vd *gv)
{
    int need2 = ret == NOISE_F2 || ret == NOISE_F2_F1;
    vd zero = vd_zero(), one = vd_set1(1.0), vscale = vd_set1(scale);
    vd F1 = dist == NOISE_EUCLIDEAN && ret != NOISE_F2 && ret != NOISE_CELL ? vd_sqrt(w->D1) : w->D1, F2 = zero;
    if (need2)
        F2 = dist == NOISE_EUCLIDEAN ? vd_sqrt(w->D2) : w->D2;
    if (ret == NOISE_F1)
        *val = vd_sub(vd_mul(F1, vscale), one);
    else if (ret == NOISE_F2)
        *val = vd_sub(vd_mul(F2, vscale), one);
    else if (ret == NOISE_F2_F1)
        *val = vd_sub(vd_mul(vd_sub(F2, F1), vscale), one);
    else
        *val = w->cv1;
    if (want_grad && ret == NOISE_F1 && dist == NOISE_EUCLIDEAN) {
        /* (F > 0 ? -(d / F) : 0) * scale as F > 0 ? (d / F) * -scale : 0:
         * -q * s and q * -s round alike, and 0 * scale is 0 */
        vm pos = vd_gt(F1, zero);
        vd nscale = vd_set1(-scale);
        for (int a = 0; a < dims; a++)
            gv[a] = vd_blend(pos, vd_mul(vd_div(w->d1[a], F1), nscale), zero);
    } else if (want_grad && ret != NOISE_CELL) {
        vd g1[3] = { zero, zero, zero }, g2[3] = { zero, zero, zero };
        if (ret != NOISE_F2)
            nv_cell_grad_f(dist, dims, w->d1, F1, g1);
        if (need2)
            nv_cell_grad_f(dist, dims, w->d2, F2, g2);
        for (int a = 0; a < dims; a++)
            gv[a] = ret == NOISE_F1 ? vd_mul(g1[a], vscale)
                  : ret == NOISE_F2 ? vd_mul(g2[a], vscale) : vd_mul(vd_sub(g2[a], g1[a]), vscale);
    }
}

/* A row (and octave) of a layer, and its chunk's columns. */
typedef struct {
    const ne_cell *C;
    int d3, want_grad;
    uint32_t seed, s, per;
    double f, qy, qt;     /* the octave's frequency; y and t in noise units */
    uint64_t j, kk;       /* their cells */
    double fyz[3];        /* and fractions (fyz[1], fyz[2]) */
    double myz2, myz3;    /* the y(z) parts of the ring-2 and ring-3 bounds */
    nv_ccols *cc;         /* the chunk's columns (shared chunks) */
    double lo;            /* the chunk's first cell: column index 2 */
    uint32_t a0;          /* the low word of column index 0 */
    int n_cols, ring2;    /* columns; rows j +- 2 present (2D) */
    nv_out out;           /* the row's output numbers (nv_cell_emit) */
} nv_crow;

/* The exact search (nc_eval) for the lanes of x (noise units) whose ok is
 * 0, into V and G. */
static NV_TARGET __attribute__((noinline)) void nv_cell_exact(const nv_crow *R, const double *x, const double *ok,
                                                               int m, double *V, double (*G)[NV_W])
{
    int dims = R->d3 ? 3 : 2;
    for (int l = 0; l < m; l++)
        if (ok[l] == 0.0) {
            double gd[3] = { 0, 0, 0 };
            V[l] = nc_eval(R->C, R->seed, R->per, R->d3, x[l], R->qy, R->qt, R->want_grad, gd);
            for (int a = 0; a < dims; a++)
                G[a][l] = gd[a];
        }
}

/* Lanes of a shared chunk's vector that the 3 x 3 (x 3) candidates do not
 * settle (ok): in 2D the 5 x 5 cells around each lane, from the start in
 * key order, and the ring-3 bound (always met in 2D); what remains, the
 * exact search. */
static NV_TARGET __attribute__((noinline)) void nv_cell_slow(nv_crow *R, const double *x, vd fx, vd lc, int cmin,
                                                              int cmax, vm ok, vd *val, vd *gv)
{
    const ne_cell *C = R->C;
    int dims = R->d3 ? 3 : 2, need2 = C->need2, dist = C->distance, ret = C->ret, want_grad = R->want_grad;
    vd zero = vd_zero(), one = vd_set1(1.0), inf = vd_set1(INFINITY);
    if (!R->d3) {
        static const int rows5[5] = { 3, 0, 1, 2, 4 };
        if (!R->ring2) {
            nv_ccols_row(R->cc, C, R->s, R->per, 0, want_grad, R->a0, R->n_cols, R->j, 0, R->fyz[1], 0, 3, -2, 0);
            nv_ccols_row(R->cc, C, R->s, R->per, 0, want_grad, R->a0, R->n_cols, R->j, 0, R->fyz[1], 0, 4, 2, 0);
            R->ring2 = 1;
        }
        nv_win w = { inf, inf, { zero, zero, zero }, { zero, zero, zero }, zero };
        nv_cell_window(dist, need2, want_grad, ret, 0, &w, fx, lc, R->cc, rows5, 5, cmin - 2, cmax + 2);
        vd v5, g5[3] = { zero, zero, zero };
        nv_cell_finish(dist, ret, want_grad, dims, &w, C->scale, &v5, g5);
        /* lanes already settled keep their numbers (the same ones) */
        *val = vd_blend(ok, *val, v5);
        for (int a = 0; a < dims; a++)
            gv[a] = vd_blend(ok, gv[a], g5[a]);
        ok = vm_or(ok, vd_gt(nv_cell_ring(C, 3, fx, R->myz3), need2 ? w.D2 : w.D1));
        if (vm_all(ok))
            return;
    }
    double OK[NV_W], V[NV_W], G[3][NV_W];
    vd_storeu(OK, vd_blend(ok, one, zero));
    vd_storeu(V, *val);
    for (int a = 0; a < dims; a++)
        vd_storeu(G[a], gv[a]);
    nv_cell_exact(R, x, OK, NV_W, V, G);
    *val = vd_loadu(V);
    for (int a = 0; a < dims; a++)
        gv[a] = vd_loadu(G[a]);
}

/* The emit of a row's vector: floats (one clamped octave), the octave
 * added into 2D fbm sums (to_float 2), 2D or 3D doubles; o:
 * nv_out_of(want_grad, to_float, L, to_float == 1 ? 0 : k), once per row. */
NV_FN void nv_cell_emit(int d3, int want_grad, int to_float, const nv_out *o, int i, int m, vd val, const vd *gv,
                        double *v, ne_grad g, float *fv, float *fg)
{
    if (to_float == 1) {
        /* val < -1 ? -1 : val > 1 ? 1 : val */
        val = vd_min(vd_set1(1.0), vd_max(vd_set1(-1.0), val));
        nv_emit_o(want_grad, 1, o, i, m, val, gv[0], gv[1], NULL, NULL, fv, fg);
    } else if (to_float == 2) {
        /* an fbm octave added into the sums (2D) */
        nv_emit_o(want_grad, 2, o, i, m, val, gv[0], gv[1], v, g, NULL, NULL);
    } else if (!d3) {
        nv_emit_o(want_grad, 0, o, i, m, val, gv[0], gv[1], v, g, NULL, NULL);
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

/* ---- points: every lane its own cells ---- */

/* The cells at offsets -rr .. rr (3D: -1 .. 1 in t) around lanes at cells
 * (ix, iy[, iz]) (int32, and so are their neighbours) with fractions fx,
 * fy[, fz]: hashed lane by lane, in key order; per: cells per period (0:
 * none), x and y indices wrapped as nc_hash2 / nc_hash3 wrap them. */
NV_FN void nv_cell_lanes(int dist, int ret, int want_grad, int d3, const ne_cell *C, uint32_t s, uint32_t per, int rr,
                         vi ix, vi iy, vi iz, vd fx, vd fy, vd fz, nv_win *w)
{
    int need2 = ret == NOISE_F2 || ret == NOISE_F2_F1;
    vd jit = vd_set1(C->jitter), zero = vd_zero();
    vi vs = vi_set1((int)s), iyc = nv_mulc(iy), izc = nv_mulc(iz), low = vi_set1(0xffff);
    vi sa[5];
    for (int ex = -rr; ex <= rr; ex++)
        sa[ex + rr] = nv_eat(vs, per ? nv_wrap(vd_add(vi_to_vd(ix), vd_set1(ex)), per) : vi_add(ix, vi_set1(ex)));
    int rz = d3 ? 1 : 0;
    for (int ez = -rz; ez <= rz; ez++) {
        /* (iz + ez) * PRIME_C, (iy + ey) * PRIME_C: the products wrap as the scalar's do */
        vi zc = vi_add(izc, vi_set1((int)((uint32_t)ez * NL_PRIME_C)));
        for (int ey = -rr; ey <= rr; ey++) {
            vi yc = per ? nv_mulc(nv_wrap(vd_add(vi_to_vd(iy), vd_set1(ey)), per))
                        : vi_add(iyc, vi_set1((int)((uint32_t)ey * NL_PRIME_C)));
            for (int ex = -rr; ex <= rr; ex++) {
                vi h = nv_eat_sum(vi_add(sa[ex + rr], yc));
                if (d3)
                    h = nv_eat_sum(vi_add(h, zc));
                h = nv_avalanche(h);
                vd dx = vd_sub(vd_add(vd_set1((double)ex), nv_cell_offset(vi_and(h, low), jit)), fx);
                vd dy = vd_sub(vd_add(vd_set1((double)ey), nv_cell_offset(vi_shr(h, 16), jit)), fy);
                vd yz = nv_cell_term(dist, dy), dz = zero, cv = zero;
                vi h2 = h;
                if (d3 || ret == NOISE_CELL)
                    h2 = nv_avalanche(vi_add(h, vi_set1((int)NL_PRIME_A)));
                if (d3) {
                    dz = vd_sub(vd_add(vd_set1((double)ez), nv_cell_offset(vi_and(h2, low), jit)), fz);
                    yz = nv_cell_comb(dist, yz, nv_cell_term(dist, dz));
                }
                if (ret == NOISE_CELL)
                    cv = nv_cell_value(h2);
                nv_cand(dist, need2, want_grad, ret, d3, w, dx, dx, yz, dy, dz, cv);
            }
        }
    }
}

/* nc_ring_bound on lanes whose every coordinate varies */
NV_FN vd nv_cell_ring3(const ne_cell *C, int dims, int rr, const vd *f)
{
    vd m = vd_set1(INFINITY), vp = vd_set1((double)rr + C->lo), vn = vd_set1((double)-rr + C->hi);
    for (int a = 0; a < dims; a++)
        m = vd_min(m, vd_min(vd_sub(vp, f[a]), vd_sub(f[a], vn)));
    return C->distance == NOISE_EUCLIDEAN ? vd_mul(m, m) : m;
}

/* Lanes with floors fl whose cells -r .. r around are int32 indices */
NV_FN vm nv_cell_in(vd fl, int r)
{
    return vm_and(vd_ge(fl, vd_set1(-2147483648.0 + r)), vd_le(fl, vd_set1(2147483647.0 - r)));
}

/* The lanes of a points vector the 3 x 3 (x 3) cells do not settle (ok):
 * in 2D the 5 x 5 cells and the ring-3 bound; then nc_eval. q: the noise
 * coordinates (x, y, t) of each lane. */
static NV_TARGET __attribute__((noinline)) void nv_cell_pts_slow(const ne_cell *C, uint32_t seed, uint32_t per, int d3,
                                                                  int want_grad, const vd *q, const vd *fl,
                                                                  const vd *fr, vm in, vm ok, vd *val, vd *gv)
{
    int dims = d3 ? 3 : 2, need2 = C->need2, dist = C->distance, ret = C->ret;
    vd zero = vd_zero(), one = vd_set1(1.0), inf = vd_set1(INFINITY);
    if (!d3) {
        vm in2 = vm_and(nv_cell_in(fl[0], 2), nv_cell_in(fl[1], 2));
        nv_win w = { inf, inf, { zero, zero, zero }, { zero, zero, zero }, zero };
        nv_cell_lanes(dist, ret, want_grad, 0, C, nl_seed(seed), per, 2, vd_to_vi(fl[0]), vd_to_vi(fl[1]),
                      vi_set1(0), fr[0], fr[1], zero, &w);
        vd v5, g5[3] = { zero, zero, zero };
        nv_cell_finish(dist, ret, want_grad, dims, &w, C->scale, &v5, g5);
        *val = vd_blend(ok, *val, v5);
        for (int a = 0; a < dims; a++)
            gv[a] = vd_blend(ok, gv[a], g5[a]);
        ok = vm_or(ok, vm_and(in2, vd_gt(nv_cell_ring3(C, 2, 3, fr), need2 ? w.D2 : w.D1)));
        if (vm_all(ok))
            return;
    }
    (void)in;
    double OK[NV_W], V[NV_W], G[3][NV_W], Q[3][NV_W];
    vd_storeu(OK, vd_blend(ok, one, zero));
    vd_storeu(V, *val);
    for (int a = 0; a < dims; a++) {
        vd_storeu(G[a], gv[a]);
        vd_storeu(Q[a], q[a]);
    }
    for (int l = 0; l < NV_W; l++)
        if (OK[l] == 0.0) {
            double gd[3] = { 0, 0, 0 };
            V[l] = nc_eval(C, seed, per, d3, Q[0][l], Q[1][l], d3 ? Q[2][l] : 0.0, want_grad, gd);
            for (int a = 0; a < dims; a++)
                G[a][l] = gd[a];
        }
    *val = vd_loadu(V);
    for (int a = 0; a < dims; a++)
        gv[a] = vd_loadu(G[a]);
}

/* One vector of points at noise coordinates q (x, y[, t]): the value and
 * the noise-space gradient, as nc_eval. */
NV_FN void nv_cell_pts_vec(int dist, int ret, int d3, int want_grad, const ne_cell *C, uint32_t seed, uint32_t per,
                           const vd *q, vd *val, vd *gv)
{
    int dims = d3 ? 3 : 2, need2 = ret == NOISE_F2 || ret == NOISE_F2_F1;
    vd zero = vd_zero(), inf = vd_set1(INFINITY), fl[3] = { zero, zero, zero }, fr[3] = { zero, zero, zero };
    vm in = vd_eq(zero, zero);
    for (int a = 0; a < dims; a++) {
        fl[a] = vd_floor(q[a]);
        fr[a] = vd_add(vd_sub(q[a], fl[a]), zero);
        in = vm_and(in, nv_cell_in(fl[a], 1));
    }
    /* lanes outside the int32 cells hash garbage here and take nc_eval */
    vi ix = vd_to_vi(vd_blend(in, fl[0], zero)), iy = vd_to_vi(vd_blend(in, fl[1], zero));
    vi iz = d3 ? vd_to_vi(vd_blend(in, fl[2], zero)) : vi_set1(0);
    nv_win w = { inf, inf, { zero, zero, zero }, { zero, zero, zero }, zero };
    nv_cell_lanes(dist, ret, want_grad, d3, C, nl_seed(seed), per, 1, ix, iy, iz, fr[0], fr[1], fr[2], &w);
    gv[0] = gv[1] = gv[2] = zero;
    nv_cell_finish(dist, ret, want_grad, dims, &w, C->scale, val, gv);
    vm ok = vm_and(in, vd_gt(nv_cell_ring3(C, dims, 2, fr), need2 ? w.D2 : w.D1));
    if (!vm_all(ok)) {
        vd sv = *val, sg[3] = { gv[0], gv[1], gv[2] };
        nv_cell_pts_slow(C, seed, per, d3, want_grad, q, fl, fr, in, ok, &sv, sg);
        *val = sv;
        for (int a = 0; a < 3; a++)
            gv[a] = sg[a];
    }
}

/* Octave k of a layer at n points (xs[i], ys[i]), or along a row at y
 * when ys is NULL (xs in noise units already when noise_x), and t: the
 * values and noise-space gradients into v, g from index i0 (to_float 1: a
 * finished one-octave row into fv, fg, as nc_row). */
NV_FN void nv_cell_points(int d3, int want_grad, int to_float, const ne_layer *L, int k, int n, const double *xs,
                          const double *ys, int noise_x, double y, double t, int i0, double *v, ne_grad g,
                          float *fv, float *fg)
{
    const ne_cell *C = &L->cell;
    uint32_t seed = L->seed[k], per = L->period[k];
    double f = L->freq[k];
    vd vf = vd_set1(f), qy = vd_set1(y * f), qt = vd_set1(t * f);
    nv_out o = nv_out_of(want_grad, to_float, L, to_float == 1 ? 0 : k);
    for (int i = 0; i < n; i += NV_W) {
        int m = n - i < NV_W ? n - i : NV_W;
        vd q[3], val, gv[3];
        if (m == NV_W) {
            q[0] = vd_loadu(xs + i);
            q[1] = ys ? vd_mul(vd_loadu(ys + i), vf) : qy;
        } else {
            double X[NV_W], Y[NV_W];
            for (int l = 0; l < NV_W; l++) {
                X[l] = xs[i + (l < m ? l : m - 1)];
                Y[l] = ys ? ys[i + (l < m ? l : m - 1)] : 0.0;
            }
            q[0] = vd_loadu(X);
            q[1] = ys ? vd_mul(vd_loadu(Y), vf) : qy;
        }
        if (!noise_x)
            q[0] = vd_mul(q[0], vf);
        q[2] = qt;
        /* nv_cell_pts_vec with the layer's distance and return as literals */
#define NV_PTS_CASE(D, RET)                                                                                   \
    case NV_CELL_INDEX(D, RET):                                                                               \
        nv_cell_pts_vec(D, RET, d3, want_grad, C, seed, per, q, &val, gv);                                    \
        break;
        switch (NV_CELL_INDEX(C->distance, C->ret)) {
            NV_CELL_PAIRS(NV_PTS_CASE)
        default: val = gv[0] = gv[1] = gv[2] = vd_zero(); break;
        }
#undef NV_PTS_CASE
        nv_cell_emit(d3, want_grad, to_float, &o, i0 + i, m, val, gv, v, g, fv, fg);
    }
}

/* The vectors of a shared chunk (samples c0 .. c0 + mc - 1 at X, noise
 * units), for one distance and return (literals at each call). */
NV_FN void nv_cell_vecs(int dist, int ret, int d3, int want_grad, int to_float, nv_crow *R, const double *X,
                        double x0, double step, int c0, int mc, double *v, ne_grad g, float *fv,
                        float *fg)
{
    static const int rows3[9] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    int dims = d3 ? 3 : 2, nzy = d3 ? 9 : 3, need2 = ret == NOISE_F2 || ret == NOISE_F2_F1;
    const nv_ccols *cc = R->cc;
    vd zero = vd_zero(), inf = vd_set1(INFINITY), vlo = vd_set1(R->lo - 2.0);
    for (int i = 0; i < mc; i += NV_W) {
        int m = mc - i < NV_W ? mc - i : NV_W;
        /* X, or sample c0 + i + l at (x0 + (c0 + i + l) * step) * f */
        vd x = X ? vd_loadu(X + i) : vd_mul(nv_row_x(NULL, x0, step, c0 + i, 0), vd_set1(R->f));
        vd fl = vd_floor(x), fx = vd_add(vd_sub(x, fl), zero);
        vd lc = vd_sub(fl, vlo); /* the lane's cell's column index */
        vi idx = vd_to_vi(lc);
        int c = vi_first(idx), cmin = c, cmax = c;
        nv_win w;
        w.D1 = w.D2 = inf;
        w.cv1 = zero;
        /* only what the candidates read: a loop zeroing all six offsets
         * each vector measured as a loop of stores */
        w.d1[0] = w.d1[1] = w.d1[2] = zero;
        if (need2)
            w.d2[0] = w.d2[1] = w.d2[2] = zero;
        if (vi_all_eq(idx, c)) {
            nv_cell_one(dist, ret, want_grad, d3, &w, fx, cc, c);
        } else {
            cmin = (int)vd_hmin(lc);
            cmax = (int)vd_hmax(lc);
            nv_cell_window(dist, need2, want_grad, ret, d3, &w, fx, lc, cc, rows3, nzy, cmin - 1, cmax + 1);
        }
        vd val, gv[3] = { zero, zero, zero };
        nv_cell_finish(dist, ret, want_grad, dims, &w, R->C->scale, &val, gv);
        vm ok = vd_gt(nv_cell_ring(R->C, 2, fx, R->myz2), need2 ? w.D2 : w.D1);
        if (!vm_all(ok)) {
            /* copies: the addresses of val and gv stay in this block */
            vd sv = val, sg[3] = { gv[0], gv[1], gv[2] };
            double XS[NV_W];
            vd_storeu(XS, x);
            nv_cell_slow(R, XS, fx, lc, cmin, cmax, ok, &sv, sg);
            val = sv;
            for (int a = 0; a < 3; a++)
                gv[a] = sg[a];
        }
        nv_cell_emit(d3, want_grad, to_float, &R->out, c0 + i, m, val, gv, v, g, fv, fg);
    }
}

/* nv_cell_vecs with the layer C's distance and return as literals (each
 * pair its own copy), the rest of the arguments as given */
NV_FN void nv_cell_vecs_of(const ne_cell *C, int d3, int want_grad, int to_float, nv_crow *R, const double *X,
                           double x0, double step, int c0, int mc, double *v, ne_grad g, float *fv, float *fg)
{
#define NV_VECS_CASE(D, RET)                                                                                  \
    case NV_CELL_INDEX(D, RET):                                                                               \
        nv_cell_vecs(D, RET, d3, want_grad, to_float, R, X, x0, step, c0, mc, v, g, fv, fg);                  \
        break;
    switch (NV_CELL_INDEX(C->distance, C->ret)) {
        NV_CELL_PAIRS(NV_VECS_CASE)
    default: break;
    }
#undef NV_VECS_CASE
}

/* R for octave k of a layer along a row at y (and t) */
NV_FN void nv_crow_at(nv_crow *R, int d3, int want_grad, int to_float, const ne_layer *L, int k, double y, double t)
{
    const ne_cell *C = &L->cell;
    int dims = d3 ? 3 : 2;
    double f = L->freq[k];
    memset(R->fyz, 0, sizeof R->fyz);
    R->C = C;
    R->d3 = d3;
    R->want_grad = want_grad;
    R->seed = L->seed[k];
    R->s = nl_seed(R->seed);
    R->per = L->period[k];
    R->f = f;
    R->qy = y * f;
    R->qt = t * f;
    R->j = nl_floor(R->qy, &R->fyz[1]);
    R->kk = d3 ? nl_floor(R->qt, &R->fyz[2]) : 0;
    R->myz2 = nv_cell_ring_yz(C, dims, 2, R->fyz);
    R->myz3 = nv_cell_ring_yz(C, dims, 3, R->fyz);
    R->out = nv_out_of(want_grad, to_float, L, to_float == 1 ? 0 : k);
}

/* One row of cellular noise, as nc_row (to_float 0: doubles, 1: a finished
 * one-octave fbm row in floats, 2 (2D): octave k added into fbm sums, as
 * ne_layer_eval adds it). The row is taken in chunks; a chunk whose
 * cells are int32 indices and few enough has its columns hashed NV_W at a
 * time; a vector whose lanes share one cell (most, at several samples per
 * cell) takes its 3 x 3 (x 3) candidates from them by broadcasts, one
 * spanning more cells the window of columns around them. In 2D, lanes the
 * ring-2 bound does not settle take the 5 x 5 cells around them the same
 * way (and with the ring-3 bound, always met in 2D, the exact search). */
NV_FN void nv_cell_row(int d3, int want_grad, int to_float, const ne_layer *L, int k, int n, const double *xs,
                       double x0, double step, double y, double t, double *v, ne_grad g, float *fv, float *fg)
{
    const ne_cell *C = &L->cell;
    int nz = d3 ? 3 : 1;
    double f = L->freq[k];
    nv_ccols ccs;
    nv_crow R;
    nv_crow_at(&R, d3, want_grad, to_float, L, k, y, t);
    R.cc = &ccs;
    /* the rows hashed on the shared path (2D: and j +- 2) */
    int rows_ok = d3 ? nv_cell_i32(R.j, 1) && nv_cell_i32(R.kk, 1) : nv_cell_i32(R.j, 2);
    vd vf = vd_set1(f), zero = vd_zero(), inf = vd_set1(INFINITY);
    vd xmin = vd_set1(-2147483646.0), xmax = vd_set1(2147483645.0);
    /* samples at x0 + i * step: (x0 + i * step) * f grows with i (each
     * rounding is monotonic), so a chunk's first and last vector lanes
     * bound it */
    int mono = !xs && step >= 0 && f > 0;
    for (int c0 = 0; c0 < n; c0 += NC_CHUNK) {
        int mc = n - c0 < NC_CHUNK ? n - c0 : NC_CHUNK, in;
        double X[NC_CHUNK], lo, hi;
        if (mono) {
            int last = c0 + (mc + NV_W - 1) / NV_W * NV_W - 1;
            double xa = (x0 + (double)c0 * step) * f, xb = (x0 + (double)last * step) * f;
            in = xa >= -2147483646.0 && xb < 2147483645.0;
            lo = floor(xa);
            hi = floor(xb);
        } else {
            vd mn = inf, mx = vd_xor_sign(inf);
            vm inv = vd_eq(zero, zero);
            for (int i = 0; i < mc; i += NV_W) {
                vd x = vd_mul(nv_row_x(xs, x0, step, c0 + i, n), vf);
                vd_storeu(X + i, x);
                mn = vd_min(mn, x);
                mx = vd_max(mx, x);
                inv = vm_and(inv, vm_and(vd_ge(x, xmin), vd_lt(x, xmax)));
            }
            in = vm_all(inv);
            lo = floor(vd_hmin(mn));
            hi = floor(vd_hmax(mx));
        }
        /* columns lo - 2 .. hi + 2 (all int32) */
        if (rows_ok && in && hi - lo + 5 <= NC_COLS) {
            R.lo = lo;
            R.n_cols = (int)(hi - lo) + 5;
            R.a0 = (uint32_t)(int64_t)(lo - 2);
            R.ring2 = 0;
            for (int ez = 0; ez < nz; ez++)
                for (int ey = 0; ey < 3; ey++)
                    nv_ccols_row(&ccs, C, R.s, R.per, d3, want_grad, R.a0, R.n_cols, R.j, R.kk, R.fyz[1], R.fyz[2],
                                 ez * 3 + ey, ey - 1, ez - 1);
            nv_cell_vecs_of(C, d3, want_grad, to_float, &R, mono ? NULL : X, x0, step, c0, mc, v, g, fv, fg);
            continue;
        }
        /* every lane its own cells (more than a cell per sample, or
         * cells beyond int32) */
        if (mono)
            for (int i = 0; i < mc; i += NV_W)
                vd_storeu(X + i, vd_mul(nv_row_x(NULL, x0, step, c0 + i, 0), vf));
        nv_cell_points(d3, want_grad, to_float, L, k, mc, X, NULL, 1, y, t, c0, v, g, fv, fg);
    }
}

/* nv_cell_row on a row of n samples xs at y (and t): noise values and
 * gradients into v, g (to_float 0), or (2D) octave k added into fbm sums
 * (2). */
NV_FN void nv_cell_row_xs(int d3, int want_grad, int to_float, const ne_layer *L, int k, int n, const double *xs,
                          double y, double t, double *v, ne_grad g)
{
    nv_cell_row(d3, want_grad, to_float, L, k, n, xs, 0, 0, y, t, v, g, NULL, NULL);
}

/* nv_cell_points on n points (xs[i], ys[i], or the row's y if ys is NULL)
 * at t in plane units, into v, g (NV_LOOPS's arguments) */
NV_FN void nv_cell_pts(int d3, int want_grad, const ne_layer *L, int k, int n, const double *xs, const double *ys,
                       double y, double t, double *v, ne_grad g)
{
    nv_cell_points(d3, want_grad, 0, L, k, n, xs, ys, 0, y, t, 0, v, g, NULL, NULL);
}

/* the row loop in NV_LOOPS's arguments (ys NULL) */
NV_FN void nv_cell_row_loop(int d3, int want_grad, const ne_layer *L, int k, int n, const double *xs,
                            const double *ys, double y, double t, double *v, ne_grad g)
{
    (void)ys;
    nv_cell_row_xs(d3, want_grad, 0, L, k, n, xs, y, t, v, g);
}

NV_LOOPS(nv_cellular2, nv_cell_row_loop, nv_cell_pts, 0)
NV_LOOPS(nv_cellular3, nv_cell_row_loop, nv_cell_pts, 1)

NC_FLOAT_ROWS(nv_cellular2_floatrows, NV_TARGET, nv_cell_row)

/* ---- one-octave 2D tiles: bands of rows ----
 *
 * The rows of a tile share their samples' x, so a chunk of columns keeps
 * its cells' hashes and the samples' fractions for all rows, and the rows
 * inside one row of cells (a band) see the same 3 x 3 candidate points:
 * the x term of a candidate's distance, term(fx - cx), is the same double
 * on each row of the band. A band computes it once per sample and
 * candidate; a row then pays a load, the combination with the row's y term
 * and a min (f2 and f2-f1: and a max; with gradients or return=cell, the
 * first-of-equals blends) per candidate: the scalar expressions on the
 * same doubles, so the same numbers. */

/* A chunk's samples (x, fractions, column indices, the x part of the
 * ring-2 bound: gap^2 euclidean, else gap) and, for a band, the x terms
 * tx and offsets fx - cx of candidate (ey + 1) * 3 + ex + 1 of the vectors
 * whose lanes share one cell (vc: its column index, -1: several cells). */
typedef struct {
    double x[NC_CHUNK], fx[NC_CHUNK], lc[NC_CHUNK], xb[NC_CHUNK];
    double tx[9][NC_CHUNK], dxs[9][NC_CHUNK];
    int vc[NC_CHUNK / NV_W];
} nv_cband;

/* A band's x terms (the chunk's columns hashed for its rows in cc) */
NV_FN void nv_cband_x(int dist, int want_grad, nv_cband *B, const nv_ccols *cc, int mc)
{
    for (int i = 0; i < mc; i += NV_W) {
        int c = B->vc[i / NV_W];
        if (c < 0)
            continue;
        vd fx = vd_loadu(B->fx + i);
        for (int r = 0; r < 3; r++)
            for (int e = 0; e < 3; e++) {
                vd dxs = vd_sub(fx, vd_set1(cc->cx[e][r][c - 1 + e]));
                vd_storeu(&B->tx[r * 3 + e][i], nv_cell_term(dist, dxs));
                if (want_grad)
                    vd_storeu(&B->dxs[r * 3 + e][i], dxs);
            }
    }
}

/* A row's y terms and offsets of the band's cells (rows 0 .. 2) */
NV_FN void nv_ccols_fy(nv_ccols *cc, int dist, int want_grad, int n_cols, double fy)
{
    vd vfy = vd_set1(fy);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < n_cols; c += NV_W) {
            vd dy = vd_sub(vd_loadu(&cc->oy[r][c]), vfy);
            vd_storeu(&cc->yz[r][c], nv_cell_term(dist, dy));
            if (want_grad)
                vd_storeu(&cc->dy[r][c], dy);
        }
}

/* The 3 x 3 candidates of shared vector i (cell column c) from the band's
 * x terms, as nv_cell_one: the least distance (and the second least) by
 * min and max for values alone; in key order, keeping the first of equal
 * distances, where the winners' offsets (gradients) or cell are needed. */
NV_FN void nv_cband_one(int dist, int ret, int want_grad, nv_win *w, const nv_cband *B, int i, const nv_ccols *cc,
                        int c)
{
    const double *tx = &B->tx[0][i];
    int need2 = ret == NOISE_F2 || ret == NOISE_F2_F1;
#define NV_BAND_D(k) nv_cell_comb(dist, vd_loadu(tx + (k) * NC_CHUNK), vd_set1(cc->yz[(k) / 3][c - 1 + (k) % 3]))
    if (!want_grad && ret == NOISE_F1) {
        /* candidate 0: the first, D < INFINITY */
        vd D1 = NV_BAND_D(0);
#pragma GCC unroll 8
        for (int k = 1; k < 9; k++)
            D1 = vd_min(NV_BAND_D(k), D1);
        w->D1 = D1;
        return;
    }
    if (!want_grad && ret != NOISE_CELL) {
        /* one sorted pair per column, merged as nv_cell_one merges them */
        vd a[3], b[3];
#pragma GCC unroll 9
        for (int k = 0; k < 9; k++) {
            int e = k % 3;
            vd D = NV_BAND_D(k);
            b[e] = k < 3 ? vd_set1(INFINITY) : vd_min(b[e], vd_max(a[e], D));
            a[e] = k < 3 ? D : vd_min(a[e], D);
        }
        vd m01 = vd_min(vd_max(a[0], a[1]), vd_min(b[0], b[1])), l01 = vd_min(a[0], a[1]);
        w->D1 = vd_min(l01, a[2]);
        w->D2 = vd_min(vd_max(l01, a[2]), vd_min(m01, b[2]));
        return;
    }
    /* the x offset carried as fx - cx and made cx - fx at the end
     * (nv_cell_one) */
    const double *dxs = &B->dxs[0][i];
    vd zero = vd_zero();
    if (ret == NOISE_F1) {
        /* nv_cand_d's F1 steps, candidate 0 taken as the first winner
         * (D < INFINITY): measured 8 % faster than from INFINITY */
        vd D1 = NV_BAND_D(0), dx = vd_loadu(dxs), dy = vd_set1(cc->dy[0][c - 1]);
#pragma GCC unroll 8
        for (int k = 1; k < 9; k++) {
            vd D = NV_BAND_D(k);
            vm m1 = vd_lt(D, D1);
            D1 = vd_min(D, D1);
            dx = vd_blend(m1, vd_loadu(dxs + k * NC_CHUNK), dx);
            dy = vd_blend(m1, vd_set1(cc->dy[k / 3][c - 1 + k % 3]), dy);
        }
        w->D1 = D1;
        w->d1[0] = vd_add(vd_xor_sign(dx), zero);
        w->d1[1] = dy;
        return;
    }
#pragma GCC unroll 9
    for (int k = 0; k < 9; k++)
        nv_cand_d(need2, want_grad, ret, 0, w, NV_BAND_D(k), want_grad ? vd_loadu(dxs + k * NC_CHUNK) : zero,
                  vd_set1(want_grad ? cc->dy[k / 3][c - 1 + k % 3] : 0.0), zero,
                  vd_set1(ret == NOISE_CELL ? cc->cv[k / 3][c - 1 + k % 3] : 0.0));
#undef NV_BAND_D
    if (want_grad) {
        w->d1[0] = vd_add(vd_xor_sign(w->d1[0]), zero);
        if (need2)
            w->d2[0] = vd_add(vd_xor_sign(w->d2[0]), zero);
    }
}

/* The lanes of a band's vector the ring-2 bound leaves (ok 0):
 * nv_cell_slow */
static NV_TARGET __attribute__((noinline)) void nv_cband_slow(nv_crow *R, const nv_cband *B, int i, int c, vm ok,
                                                               vd *val, vd *gv)
{
    nv_cell_slow(R, B->x + i, vd_loadu(B->fx + i), vd_loadu(B->lc + i), c, c, ok, val, gv);
}

/* A band's vector whose lanes are in several cells: nv_cell_vecs on that
 * vector (its x from B, emitted at c0 + i) */
static NV_TARGET __attribute__((noinline)) void nv_cband_vec(int want_grad, nv_crow *R, const nv_cband *B, int c0,
                                                              int i, int m, float *fv, float *fg)
{
    nv_cell_vecs_of(R->C, 0, want_grad, 1, R, B->x + i, 0, 0, c0 + i, m, NULL, NULL, fv, fg);
}

/* One row of a band's chunk (samples c0 .. c0 + mc - 1) into the row's
 * floats */
NV_FN void nv_cband_row(int dist, int ret, int want_grad, nv_crow *R, const nv_cband *B, int c0, int mc, float *fv,
                        float *fg)
{
    vd zero = vd_zero(), inf = vd_set1(INFINITY);
    int need2 = ret == NOISE_F2 || ret == NOISE_F2_F1;
    /* the ring-2 bound's y part, as B->xb */
    vd vmyz = vd_set1(dist == NOISE_EUCLIDEAN ? R->myz2 * R->myz2 : R->myz2);
    double scale = R->C->scale;
    for (int i = 0; i < mc; i += NV_W) {
        int m = mc - i < NV_W ? mc - i : NV_W, c = B->vc[i / NV_W];
        if (c < 0) {
            nv_cband_vec(want_grad, R, B, c0, i, m, fv, fg);
            continue;
        }
        nv_win w;
        vd val, gv[3] = { zero, zero, zero };
        w.D1 = w.D2 = inf;
        w.cv1 = zero;
        w.d1[0] = w.d1[1] = w.d1[2] = zero;
        if (need2)
            w.d2[0] = w.d2[1] = w.d2[2] = zero;
        nv_cband_one(dist, ret, want_grad, &w, B, i, R->cc, c);
        nv_cell_finish(dist, ret, want_grad, 2, &w, scale, &val, gv);
        /* nv_cell_ring: min(gap^2) is min(gap)^2 (gaps > 0) */
        vm ok = vd_gt(vd_min(vd_loadu(B->xb + i), vmyz), need2 ? w.D2 : w.D1);
        if (!vm_all(ok)) {
            vd sv = val, sg[3] = { gv[0], gv[1], gv[2] };
            nv_cband_slow(R, B, i, c, ok, &sv, sg);
            val = sv;
            for (int a = 0; a < 3; a++)
                gv[a] = sg[a];
        }
        nv_cell_emit(0, want_grad, 1, &R->out, c0 + i, m, val, gv, NULL, NULL, fv, fg);
    }
}

/* nv_cband_row for each distance, return and want_grad, a function each
 * (one function holding all 24 measured up to 50 % slower), indexed by
 * NV_CELL_INDEX(distance, return) * 2 + want_grad */
typedef void nv_cband_row_fn(nv_crow *R, const nv_cband *B, int c0, int mc, float *fv, float *fg);
#define NV_BROW_FN(D, RET, G)                                                                               \
    static NV_TARGET __attribute__((noinline)) void nv_cband_row_##D##_##RET##_##G(                        \
        nv_crow *R, const nv_cband *B, int c0, int mc, float *fv, float *fg)                                \
    {                                                                                                       \
        nv_cband_row(D, RET, G, R, B, c0, mc, fv, fg);                                                      \
    }
#define NV_BROW_FNS(D, RET) NV_BROW_FN(D, RET, 0) NV_BROW_FN(D, RET, 1)
NV_CELL_PAIRS(NV_BROW_FNS)
#undef NV_BROW_FNS
#undef NV_BROW_FN
#define NV_BROW_ENTRY(D, RET) nv_cband_row_##D##_##RET##_0, nv_cband_row_##D##_##RET##_1,
static nv_cband_row_fn *const nv_cband_rows[NOISE_DISTANCE_COUNT * NOISE_RETURN_COUNT * 2] = {
    NV_CELL_PAIRS(NV_BROW_ENTRY)
};
#undef NV_BROW_ENTRY

/* The cells lo .. hi of a tile's chunk c0 .. (columns lo - 2 .. hi + 2),
 * and whether they take nv_cell_row's shared path (mono) */
NV_FN int nv_cband_cells(int n, int c0, double x0, double step, double f, double *lo, double *hi)
{
    int mc = n - c0 < NC_CHUNK ? n - c0 : NC_CHUNK, last = c0 + (mc + NV_W - 1) / NV_W * NV_W - 1;
    double xa = (x0 + (double)c0 * step) * f, xb = (x0 + (double)last * step) * f;
    *lo = floor(xa);
    *hi = floor(xb);
    return xa >= -2147483646.0 && xb < 2147483645.0 && *hi - *lo + 5 <= NC_COLS;
}

/* The rows of a tile's chunk c0 .. c0 + mc - 1, band by band */
static NV_TARGET __attribute__((noinline)) void nv_cband_chunk(const ne_layer *L, int n, int rows, int row0, int c0,
                                                                double x0, double step, double y0, float *fv,
                                                                float *fg)
{
    const ne_cell *C = &L->cell;
    int want_grad = fg != NULL, dist = C->distance, mc = n - c0 < NC_CHUNK ? n - c0 : NC_CHUNK;
    nv_ccols ccs;
    nv_cband B;
    nv_crow R;
    double lo, hi;
    nv_cband_cells(n, c0, x0, step, L->freq[0], &lo, &hi);
    vd zero = vd_zero(), vf = vd_set1(L->freq[0]), vlo = vd_set1(lo - 2.0);
    vd vp = vd_set1(2.0 + C->lo), vn = vd_set1(-2.0 + C->hi);
    for (int i = 0; i < mc; i += NV_W) {
        /* as nv_cell_vecs and nv_cell_ring */
        vd x = vd_mul(nv_row_x(NULL, x0, step, c0 + i, 0), vf);
        vd fl = vd_floor(x), fx = vd_add(vd_sub(x, fl), zero), lc = vd_sub(fl, vlo);
        vd mx = vd_min(vd_sub(vp, fx), vd_sub(fx, vn));
        vi idx = vd_to_vi(lc);
        vd_storeu(B.x + i, x);
        vd_storeu(B.fx + i, fx);
        vd_storeu(B.lc + i, lc);
        vd_storeu(B.xb + i, dist == NOISE_EUCLIDEAN ? vd_mul(mx, mx) : mx);
        B.vc[i / NV_W] = vi_all_eq(idx, vi_first(idx)) ? vi_first(idx) : -1;
    }
    uint64_t band = 0;
    for (int r = 0; r < rows; r++) {
        size_t at = (size_t)r * (size_t)n;
        nv_crow_at(&R, 0, want_grad, 1, L, 0, y0 + (double)(row0 + r) * step, 0.0);
        R.cc = &ccs;
        R.lo = lo;
        R.n_cols = (int)(hi - lo) + 5;
        R.a0 = (uint32_t)(int64_t)(lo - 2);
        R.ring2 = 0;
        if (r == 0 || R.j != band) {
            /* the band's cells; their y positions oy as the offsets dy
             * at fy = 0 (oy - 0 is oy) */
            for (int ey = 0; ey < 3; ey++) {
                nv_ccols_row(&ccs, C, R.s, R.per, 0, 1, R.a0, R.n_cols, R.j, 0, 0.0, 0, ey, ey - 1, -1);
                memcpy(ccs.oy[ey], ccs.dy[ey], sizeof ccs.oy[ey]);
            }
            nv_cband_x(dist, want_grad, &B, &ccs, mc);
            band = R.j;
        }
        nv_ccols_fy(&ccs, dist, want_grad, R.n_cols, R.fyz[1]);
        float *rfg = fg ? fg + 2 * at : NULL;
        nv_cband_rows[NV_CELL_INDEX(dist, C->ret) * 2 + want_grad](&R, &B, c0, mc, fv + at, rfg);
    }
}

/* A 2D one-octave tile (float_row): tiles whose samples grow along
 * the row and whose chunks and rows of cells are int32 indices (as
 * nv_cell_row's shared chunks) by bands; others row by row */
static NV_TARGET void nv_cellular2_floatrow(const ne_layer *L, int n, int rows, int row0, double x0, double step,
                                            double y0, float *fv, float *fg)
{
    double f = L->freq[0], lo, hi;
    int ok = step >= 0 && f > 0 && rows > 1;
    /* the rows' cells (and +- 2) int32: the first and last row bound them */
    double ya = floor((y0 + (double)row0 * step) * f), yb = floor((y0 + (double)(row0 + rows - 1) * step) * f);
    ok = ok && ya >= (double)INT32_MIN + 2 && yb <= (double)INT32_MAX - 2;
    for (int c0 = 0; ok && c0 < n; c0 += NC_CHUNK)
        ok = nv_cband_cells(n, c0, x0, step, f, &lo, &hi);
    if (!ok) {
        nv_cellular2_floatrows(L, n, rows, row0, x0, step, y0, fv, fg);
        return;
    }
    for (int c0 = 0; c0 < n; c0 += NC_CHUNK)
        nv_cband_chunk(L, n, rows, row0, c0, x0, step, y0, fv, fg);
}

/* 2D fbm octaves added into the sums in the row loop, with gradients (the
 * three sums); values alone keep the driver's sum (acc_values 0) */
static NV_TARGET void nv_cellular2_acc(const ne_layer *L, int k, int n, const double *xs, double y, double *acc_v,
                                       ne_grad acc_g)
{
    if (acc_g)
        nv_cell_row_xs(0, 1, 2, L, k, n, xs, y, 0.0, acc_v, acc_g);
    else
        nv_cell_row_xs(0, 0, 2, L, k, n, xs, y, 0.0, acc_v, NULL);
}

/* nv_bases' entries (ne_base; a field not named: the scalar loop's). Every
 * loop wraps periodic layers' x and y cell indices (wraps 1); fbm values
 * alone keep the driver's sum (acc_values 0). */
#define NV_CELL_BASE2                                                                                     \
    { NV_LOOPS_FIELDS(nv_cellular2), .row_acc = nv_cellular2_acc, .float_row = nv_cellular2_floatrow,     \
      .wraps = 1 }
#define NV_CELL_BASE3 { NV_LOOPS_FIELDS(nv_cellular3), .wraps = 1 }

#endif
