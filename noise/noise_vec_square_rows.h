/* noise_vec_square_rows.h: the square lattice's row loop (nv_sq2_row, and
 * nv_sq2_rows for one-octave grids): a chunk's cells set up once and shared by
 * its samples; the kernel itself is in noise_vec_square.h.
 *
 * Internal to noise/: included by noise_vec.h, in the order it lists (a file
 * uses what the files before it define), once per instruction-set path.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_SQUARE_ROWS_H
#define NOISE_VEC_SQUARE_ROWS_H

/* Rows with more cells than this per sample take the whole kernel (by
 * nv_sq2_block_q's two passes). Up to one cell per sample, sharing the
 * columns' work halves the hashing; at two (the highest octave of a
 * 6-octave fbm at zoom 0) each sample reads its own cell's two columns
 * and no others: on Zen 5's AVX-512, 1-octave perlin at two cells per
 * sample took 2.1 ns a sample shared (the cells picked by vpermt2pd from
 * sixteen) and 1.7 by the blocks. */
#define NV_SQ2_SHARE_MAX 1.0
/* Cells a chunk may touch on the shared path (more: the whole kernel):
 * a whole chunk at one cell per sample. */
#define NV_ROW_CELLS (NV_ROW_CHUNK + 16)

/* ne_sq2_row's twin. Where cells are NV_SQ2_SHARE_MAX per sample or fewer, the
 * chunk's cells are set up first, NV_W cells at a time (column hashes, then
 * each cell's blend coefficients, as nk_*2_cell), and each sample vector
 * takes its cells' coefficients (one broadcast when the lanes share a cell,
 * a gather when they straddle) into the sample stage. The fraction inside a
 * cell is x - floor(x) + 0.0, the scalar row's x - lo + 0.0. Smaller cells,
 * and rows outside the int32 lattice range, take the whole kernel per lane.
 *
 * What depends on x alone (a chunk's columns, nv_sq2_cols) is the same on
 * every row of a grid: a grid of one octave (nv_sq2_rows) computes it once
 * per tile, with each vector's tx, tx - 1, fade and dfade and its cell
 * (where its lanes share one), and its rows read them: the same operations
 * on the same inputs, so the same numbers as a row computing them itself. */

/* A chunk of a row: samples c0 .. c0 + m - 1 at X (noise units); share:
 * its cells are shared (lo: its first cell, n_cells of them); cached: the
 * per-vector numbers below are set. */
typedef struct {
    int c0, m, share, n_cells, cached;
    int out0; /* where sample c0 goes in the output: c0, or 0 for a band's chunk sums (nv_sq2_band) */
    double lo;
    double X[NV_ROW_CHUNK + NV_W];
    double tx[NV_ROW_CHUNK], tx1[NV_ROW_CHUNK], sx[NV_ROW_CHUNK], dsx[NV_ROW_CHUNK];
    int cell[NV_ROW_CHUNK / NV_W]; /* the vector's cell (column index) if its lanes share one, else -1 */
} nv_sq2_cols;

/* The chunk at c0 of a row of n samples (xs, or x0 + i * step) at
 * frequency f; share: the row's cells are large enough to share; cache:
 * also the per-vector numbers (mode and want_grad: which). */
NV_FN void nv_sq2_cols_at(int mode, int want_grad, int cache, int share, double f, int n, const double *xs,
                          double x0, double step, int c0, nv_sq2_cols *cc)
{
    int m = n - c0 < NV_ROW_CHUNK ? n - c0 : NV_ROW_CHUNK;
    vd vf = vd_set1(f);
    cc->c0 = c0;
    cc->m = m;
    cc->out0 = c0;
    cc->cached = 0;
    cc->share = 0;
    if (!share)
        return;
    vd mn = vd_set1(INFINITY), mx = vd_set1(-INFINITY);
    vm ok = vd_ge(vd_zero(), vd_zero());
    for (int i = 0; i < m; i += NV_W) {
        vd x = vd_mul(nv_row_x(xs, x0, step, c0 + i, n), vf);
        vd_storeu(cc->X + i, x);
        mn = vd_min(mn, x);
        mx = vd_max(mx, x);
        ok = vm_and(ok, vm_and(vd_ge(x, vd_set1(-2147483648.0)), vd_lt(x, vd_set1(2147483640.0))));
    }
    double lo = floor(vd_hmin(mn)), hi = floor(vd_hmax(mx));
    cc->share = vm_all(ok) && hi - lo < NV_ROW_CELLS;
    cc->lo = lo;
    cc->n_cells = (int)(hi - lo) + 1;
    if (!cc->share || !cache)
        return;
    vd vlo = vd_set1(lo);
    for (int i = 0; i < m; i += NV_W) {
        vd x = vd_loadu(cc->X + i), fl = vd_floor(x), tx = nv_frac(x, fl);
        vi idx = vd_to_vi(vd_sub(fl, vlo));
        int c = vi_first(idx);
        cc->cell[i / NV_W] = vi_all_eq(idx, c) ? c : -1;
        vd_storeu(cc->tx + i, tx);
        vd_storeu(cc->sx + i, nv_fade(tx));
        if (mode == NK_MODE_PERLIN)
            vd_storeu(cc->tx1 + i, vd_sub(tx, vd_set1(1.0)));
        if (want_grad)
            vd_storeu(cc->dsx + i, nv_dfade(tx));
    }
    cc->cached = 1;
}

/* A chunk's cell coefficients (nv_cell2's, one array each). Cell c's
 * right-hand numbers are column c + 1's left-hand ones: nk_*2_cell's r, s,
 * ry and sy of cell c are the same operations on the same inputs (the
 * corners (c + 1, j), (c + 1, j + 1)) as p, q, py and qy of cell c + 1, so
 * p, q, py and qy are computed once per column, and r, s read at c + 1
 * (cf.p + 1, cf.q + 1). */
#define NV_COEF_N (NV_ROW_CELLS + 2 * NV_W)
typedef struct {
    double p[NV_COEF_N], q[NV_COEF_N], rp[NV_COEF_N], py[NV_COEF_N], qy[NV_COEF_N], ryp[NV_COEF_N],
        b[NV_COEF_N];
} nv_sq2_coef;

/* cell c's coefficients on every lane */
NV_FN void nv_sq2_one(int mode, int want_grad, const nv_sq2_coef *cf, int c, nv_cell2 *cell)
{
    cell->p = vd_set1(cf->p[c]);
    cell->rp = vd_set1(cf->rp[c]);
    if (mode == NK_MODE_PERLIN) {
        cell->q = vd_set1(cf->q[c]);
        cell->r = vd_set1((cf->p + 1)[c]);
        cell->s = vd_set1((cf->q + 1)[c]);
    }
    if (want_grad) {
        cell->py = vd_set1(cf->py[c]);
        cell->ryp = vd_set1(cf->ryp[c]);
        if (mode == NK_MODE_PERLIN) {
            cell->qy = vd_set1(cf->qy[c]);
            cell->b = vd_set1(cf->b[c]);
        }
    }
}

/* Whether a chunk's columns read their corners' table entries by loads,
 * from byte offsets stored by the hashing pass (two passes, as
 * nv_sq2_block), rather than through nv_value_of / nv_diamond_of: where
 * the path reads tables, and for perlin on every path (on Zen 5's AVX-512,
 * perlin's loads beat computing the diamond, value's do not). */
#define NV_SQ2_COL_LOADS(mode) (NV_PTS_TABLES && (NV_TABLES || (mode) == NK_MODE_PERLIN))

/* nk_*2_cell's left-hand numbers of columns 0 .. n - 1 (rounded up to
 * NV_W) from their corner hashes ca (column, j) and cb (column, j + 1)
 * (NV_SQ2_COL_LOADS: their entries' byte offsets):
 * value noise: p = a + (b - a) sy and py = (b - a) dsy; perlin: p = ga0 ry
 * + gb0 sy, q = ga1 ty ry + gb1 ty1 sy, py = (gb0 - ga0) dsy, qy = (ga1 ry
 * + gb1 sy) + (gb1 ty1 - ga1 ty) dsy (ry = 1 - sy, ty1 = ty - 1), as
 * nv_sq2_cell_of writes them. */
NV_FN void nv_sq2_columns(int mode, int want_grad, const uint32_t *ca, const uint32_t *cb, int n, double ty,
                          double sy, double dsy, nv_sq2_coef *cf)
{
    vd vty = vd_set1(ty), vsy = vd_set1(sy), vdsy = vd_set1(dsy);
    vd ty1 = vd_sub(vty, vd_set1(1.0)), ry = vd_sub(vd_set1(1.0), vsy);
    for (int c = 0; c < n; c += NV_W) {
        if (mode == NK_MODE_VALUE) {
            vd a, ba;
            if (NV_SQ2_COL_LOADS(mode)) {
                a = vd_table1(nl_value_table, ca + c);
                ba = vd_sub(vd_table1(nl_value_table, cb + c), a);
            } else {
                a = nv_value_of(vi_loadu(ca + c));
                ba = vd_sub(nv_value_of(vi_loadu(cb + c)), a);
            }
            vd_storeu(cf->p + c, vd_add(a, vd_mul(ba, vsy)));
            if (want_grad)
                vd_storeu(cf->py + c, vd_mul(ba, vdsy));
            continue;
        }
        vd ga0, ga1, gb0, gb1;
        if (NV_SQ2_COL_LOADS(mode)) {
            vd_table2(&nl_perlin2_table[0][0], ca + c, &ga0, &ga1);
            vd_table2(&nl_perlin2_table[0][0], cb + c, &gb0, &gb1);
        } else {
            nv_diamond_of(vi_loadu(ca + c), NL_PERLIN2_SCALE, &ga0, &ga1);
            nv_diamond_of(vi_loadu(cb + c), NL_PERLIN2_SCALE, &gb0, &gb1);
        }
        vd_storeu(cf->p + c, vd_add(vd_mul(ga0, ry), vd_mul(gb0, vsy)));
        vd_storeu(cf->q + c, vd_add(vd_mul(vd_mul(ga1, vty), ry), vd_mul(vd_mul(gb1, ty1), vsy)));
        if (want_grad) {
            vd_storeu(cf->py + c, vd_mul(vd_sub(gb0, ga0), vdsy));
            vd_storeu(cf->qy + c, vd_add(vd_add(vd_mul(ga1, ry), vd_mul(gb1, vsy)),
                                         vd_mul(vd_sub(vd_mul(gb1, ty1), vd_mul(ga1, vty)), vdsy)));
        }
    }
}

/* One chunk of the row at noise-space y = qy (seed state s, cell j,
 * fraction ty, its fade sy and dfade dsy; j_ok: j and j + 1 are int32). */
NV_FN void nv_sq2_chunk(int mode, int want_grad, int to_float, const ne_layer *L, int k, const nv_out *o,
                        const nv_sq2_cols *cc, int j_ok, uint64_t j, double qy, double ty, double sy, double dsy,
                        int n, const double *xs, double x0, double step, double *v, ne_grad g, float *fv, float *fg)
{
    uint32_t seed = L->seed[k], s = nl_seed(seed), per = L->period[k];
    int c0 = cc->c0, m = cc->m, e0 = cc->out0;
    vd vqy = vd_set1(qy);
    if (!cc->share || !j_ok) {
        vd vf = vd_set1(L->freq[k]);
        int i = 0;
#if NV_PTS_TABLES
        /* NV_PB vectors at a time by the batch block's two passes (the
         * corners' entries read by loads) */
        for (; i + NV_PB * NV_W <= m; i += NV_PB * NV_W) {
            vd X[NV_PB], Y[NV_PB], val[NV_PB], g0[NV_PB], g1[NV_PB];
            for (int b = 0; b < NV_PB; b++) {
                X[b] = vd_mul(nv_row_x(xs, x0, step, c0 + i + b * NV_W, n), vf);
                Y[b] = vqy;
                g0[b] = g1[b] = vd_zero();
            }
            nv_sq2_block_q(mode, want_grad, 0, L, k, X, Y, val, g0, g1);
            for (int b = 0; b < NV_PB; b++)
                nv_emit_o(want_grad, to_float, o, e0 + i + b * NV_W, NV_W, val[b], g0[b], g1[b], v, g, fv, fg);
        }
#endif
        for (; i < m; i += NV_W) {
            vd val, g0 = vd_zero(), g1 = vd_zero();
            nv_eval2(NV_SQ2, mode, want_grad, seed, per, vd_mul(nv_row_x(xs, x0, step, c0 + i, n), vf), vqy, &val,
                     &g0, &g1);
            nv_emit_o(want_grad, to_float, o, e0 + i, m - i < NV_W ? m - i : NV_W, val, g0, g1, v, g, fv, fg);
        }
        return;
    }
    /* columns lo .. lo + n_cells: hashes of (column, j) and (column, j + 1).
     * The cell loop below reads NV_W columns from c and from c + 1 for
     * every c < n_cells (a multiple of NV_W), so every column up to the
     * last vector's c + NV_W is hashed: the lanes past the row's last
     * cell are never used, but each holds a defined hash (a table read
     * by an uninitialised index is what valgrind reports). */
    double lo = cc->lo;
    int n_cells = cc->n_cells;
    uint32_t ca[NV_ROW_CELLS + 2 * NV_W], cb[NV_ROW_CELLS + 2 * NV_W];
    /* (column, j) and (column, j + 1) side by side: j * PRIME_C, (j + 1) *
     * PRIME_C; periodic, each index wrapped (nk_sq2p): j and j + 1 here,
     * the columns below (lo is an int32, the chunk's columns too) */
    vi vs = vi_set1((int)s);
    uint64_t j0 = nl_wrap(j, per), j1 = nl_wrap(j + 1, per);
    vi2 vjc = vi2_join(vi_set1((int)((uint32_t)j0 * NL_PRIME_C)), vi_set1((int)((uint32_t)j1 * NL_PRIME_C)));
    for (int c = 0; c < n_cells + NV_W; c += NV_W) {
        vi col = per ? nv_wrap(vd_add(vd_set1(lo + c), vd_iota()), per) : vi_add(vi_set1((int)lo + c), vi_iota());
        vi h = nv_eat(vs, col);
        vi2 hh = nv2_avalanche(nv2_eat_sum(vi2_add(vi2_join(h, h), vjc)));
        if (NV_SQ2_COL_LOADS(mode)) {
            /* the table entries' byte offsets (8 or 16 bytes an entry) */
            vi_storeu(ca + c, vi_shl(nv_byte(vi2_lo(hh)), mode == NK_MODE_VALUE ? 3 : 4));
            vi_storeu(cb + c, vi_shl(nv_byte(vi2_hi(hh)), mode == NK_MODE_VALUE ? 3 : 4));
        } else {
            vi_storeu(ca + c, vi2_lo(hh));
            vi_storeu(cb + c, vi2_hi(hh));
        }
    }
    if (NV_SQ2_COL_LOADS(mode))
        __asm__("" : "+m"(ca), "+m"(cb)); /* as nv_sq2_block: the offsets are read from memory */
    /* the cells' coefficients: first each column's left-hand numbers
     * (columns 0 .. n_cells, in whole vectors), then each cell's
     * differences of its two columns (cells 0 .. n_cells - 1, in whole
     * vectors: the last one's spare lanes may read one column past those
     * computed, set to 0 here; they are never used) */
    nv_sq2_coef cf;
    int cend = (n_cells + NV_W) / NV_W * NV_W;
    nv_sq2_columns(mode, want_grad, ca, cb, cend, ty, sy, dsy, &cf);
    cf.p[cend] = cf.py[cend] = cf.qy[cend] = 0.0;
    for (int c = 0; c < n_cells; c += NV_W) {
        vd_storeu(cf.rp + c, vd_sub(vd_loadu(cf.p + c + 1), vd_loadu(cf.p + c)));
        if (want_grad) {
            vd ry = vd_loadu(cf.py + c + 1);
            vd_storeu(cf.ryp + c, vd_sub(ry, vd_loadu(cf.py + c)));
            if (mode == NK_MODE_PERLIN)
                vd_storeu(cf.b + c, vd_sub(vd_sub(vd_loadu(cf.qy + c + 1), ry), vd_loadu(cf.qy + c)));
        }
    }
    vd vlo = vd_set1(lo);
    for (int i = 0; i < m; i += NV_W) {
        int w = m - i < NV_W ? m - i : NV_W;
        nv_cell2 cell;
        if (cc->cached && cc->cell[i / NV_W] >= 0) {
            /* the tile's columns: each vector's numbers of x, read */
            nv_sq2_one(mode, want_grad, &cf, cc->cell[i / NV_W], &cell);
            vd g0 = vd_zero(), g1 = vd_zero();
            vd val = nv_sq2_sample_x(mode, want_grad, &cell, vd_loadu(cc->tx + i),
                                     mode == NK_MODE_PERLIN ? vd_loadu(cc->tx1 + i) : vd_zero(), vd_loadu(cc->sx + i),
                                     want_grad ? vd_loadu(cc->dsx + i) : vd_zero(), &g0, &g1);
            nv_emit_o(want_grad, to_float, o, e0 + i, w, val, g0, g1, v, g, fv, fg);
            continue;
        }
        vd x = vd_loadu(cc->X + i), fl = vd_floor(x);
        vd tx = nv_frac(x, fl);
        vi idx = vd_to_vi(vd_sub(fl, vlo));
        int c = vi_first(idx);
        if (vi_all_eq(idx, c)) {
            nv_sq2_one(mode, want_grad, &cf, c, &cell);
            /* the sample stage here, and again below: one copy for the
             * common case lets its broadcasts feed the arithmetic
             * directly instead of being kept across a join (with
             * gradients, 9 coefficients spilled and reloaded) */
            vd g0 = vd_zero(), g1 = vd_zero();
            vd val = nv_sq2_sample(mode, want_grad, &cell, tx, &g0, &g1);
            nv_emit_o(want_grad, to_float, o, e0 + i, w, val, g0, g1, v, g, fv, fg);
            continue;
        }
        if (vi_all_eq2(idx, c, c + 1)) {
            /* a cell border inside the vector: two broadcasts */
            vm m2 = vi_eq_mask(idx, c + 1);
#define NV_PICK(arr) vd_blend(m2, vd_set1(cf.arr[c + 1]), vd_set1(cf.arr[c]))
            cell.p = NV_PICK(p);
            cell.rp = NV_PICK(rp);
            if (mode == NK_MODE_PERLIN) {
                cell.q = NV_PICK(q);
                cell.r = vd_blend(m2, vd_set1((cf.p + 1)[c + 1]), vd_set1((cf.p + 1)[c]));
                cell.s = vd_blend(m2, vd_set1((cf.q + 1)[c + 1]), vd_set1((cf.q + 1)[c]));
            }
            if (want_grad) {
                cell.py = NV_PICK(py);
                cell.ryp = NV_PICK(ryp);
                if (mode == NK_MODE_PERLIN) {
                    cell.qy = NV_PICK(qy);
                    cell.b = NV_PICK(b);
                }
            }
#undef NV_PICK
        } else if (vi_all_eq(vi_xor(idx, vi_add(vi_set1(c), vi_iota())), 0)) {
            /* a cell per lane, in order (cells of one sample): loads */
            cell.p = vd_loadu(cf.p + c);
            cell.rp = vd_loadu(cf.rp + c);
            if (mode == NK_MODE_PERLIN) {
                cell.q = vd_loadu(cf.q + c);
                cell.r = vd_loadu(cf.p + 1 + c);
                cell.s = vd_loadu(cf.q + 1 + c);
            }
            if (want_grad) {
                cell.py = vd_loadu(cf.py + c);
                cell.ryp = vd_loadu(cf.ryp + c);
                if (mode == NK_MODE_PERLIN) {
                    cell.qy = vd_loadu(cf.qy + c);
                    cell.b = vd_loadu(cf.b + c);
                }
            }
        } else if (c + NV_W <= (n_cells + NV_W - 1) / NV_W * NV_W && vi_all_below8(vi_add(idx, vi_set1(-c)))) {
            /* cells c .. c + 7 (a few samples per cell): the eight
             * coefficients from c on, permuted in registers (the arrays
             * are set that far: rp, ryp and b to the last cell's vector,
             * p, q, py and qy one column past it) */
            vi d = vi_add(idx, vi_set1(-c));
            cell.p = vd_perm8(cf.p + c, d);
            cell.rp = vd_perm8(cf.rp + c, d);
            if (mode == NK_MODE_PERLIN) {
                cell.q = vd_perm8(cf.q + c, d);
                cell.r = vd_perm8(cf.p + 1 + c, d);
                cell.s = vd_perm8(cf.q + 1 + c, d);
            }
            if (want_grad) {
                cell.py = vd_perm8(cf.py + c, d);
                cell.ryp = vd_perm8(cf.ryp + c, d);
                if (mode == NK_MODE_PERLIN) {
                    cell.qy = vd_perm8(cf.qy + c, d);
                    cell.b = vd_perm8(cf.b + c, d);
                }
            }
        } else {
            cell.p = vd_gather(cf.p, idx);
            cell.rp = vd_gather(cf.rp, idx);
            if (mode == NK_MODE_PERLIN) {
                cell.q = vd_gather(cf.q, idx);
                cell.r = vd_gather(cf.p + 1, idx);
                cell.s = vd_gather(cf.q + 1, idx);
            }
            if (want_grad) {
                cell.py = vd_gather(cf.py, idx);
                cell.ryp = vd_gather(cf.ryp, idx);
                if (mode == NK_MODE_PERLIN) {
                    cell.qy = vd_gather(cf.qy, idx);
                    cell.b = vd_gather(cf.b, idx);
                }
            }
        }
        vd g0 = vd_zero(), g1 = vd_zero();
        vd val = nv_sq2_sample(mode, want_grad, &cell, tx, &g0, &g1);
        nv_emit_o(want_grad, to_float, o, e0 + i, w, val, g0, g1, v, g, fv, fg);
    }
}

/* Whether a row of n samples (xs, or step apart) at frequency f has at
 * most NV_SQ2_SHARE_MAX cells per sample (its cells are shared) */
NV_FN int nv_sq2_shares(int n, const double *xs, double step, double f)
{
    double cells_per_sample = xs ? (n > 1 ? fabs(xs[n - 1] - xs[0]) * f / (double)(n - 1) : 1.0) : fabs(step * f);
    return cells_per_sample <= NV_SQ2_SHARE_MAX;
}

/* The row's y: cell j (and whether j and j + 1 are int32), fraction ty and
 * its fade and dfade */
NV_FN int nv_sq2_row_y(double qy, uint64_t *j, double *ty, double *sy, double *dsy)
{
    *j = nl_floor(qy, ty);
    *sy = nl_fade(*ty);
    *dsy = nl_dfade(*ty);
    return (*j + 0x80000000u) < 0xFFFFFFFFu;
}

/* One row of n samples xs at y: noise values and gradients into v, g
 * (to_float 0), or octave k added into fbm sums (2). */
NV_FN void nv_sq2_row(int mode, int want_grad, int to_float, const ne_layer *L, int k, int n, const double *xs,
                      double y, double *v, ne_grad g)
{
    double f = L->freq[k], qy = y * f, ty, sy, dsy;
    uint64_t j;
    int j_ok = nv_sq2_row_y(qy, &j, &ty, &sy, &dsy), share = nv_sq2_shares(n, xs, 0, f) && j_ok;
    nv_out o = nv_out_of(want_grad, to_float, L, k);
    nv_sq2_cols cc;
    for (int c0 = 0; c0 < n; c0 += NV_ROW_CHUNK) {
        /* samples xs (x0 and step unused), into doubles (fv and fg unused) */
        nv_sq2_cols_at(mode, want_grad, 0, share, f, n, xs, 0, 0, c0, &cc);
        nv_sq2_chunk(mode, want_grad, to_float, L, k, &o, &cc, j_ok, j, qy, ty, sy, dsy, n, xs, 0, 0, v, g, NULL,
                     NULL);
    }
}

/* A one-octave grid (rows at y0 + (row0 + r) * step) into floats, as
 * nv_sq2_row's float rows: each chunk's columns computed once for all
 * rows. */
NV_FN void nv_sq2_rows(int mode, int want_grad, const ne_layer *L, int n, int rows, int row0, double x0,
                       double step, double y0, float *fv, float *fg)
{
    double f = L->freq[0];
    int share = nv_sq2_shares(n, NULL, step, f);
    nv_out o = nv_out_of(want_grad, 1, L, 0);
    nv_sq2_cols cc;
    for (int c0 = 0; c0 < n; c0 += NV_ROW_CHUNK) {
        nv_sq2_cols_at(mode, want_grad, 1, share, f, n, NULL, x0, step, c0, &cc);
        for (int r = 0; r < rows; r++) {
            double qy = (y0 + (double)(row0 + r) * step) * f, ty, sy, dsy;
            uint64_t j;
            int j_ok = nv_sq2_row_y(qy, &j, &ty, &sy, &dsy);
            size_t at = (size_t)r * (size_t)n;
            if (o.scale_g) {
                nv_sq2_chunk(mode, want_grad, 1, L, 0, &o, &cc, j_ok, j, qy, ty, sy, dsy, n, NULL, x0, step, NULL,
                             NULL, fv + at, fg ? fg + 2 * at : NULL);
            } else {
                /* the same with the gradient scaling known absent (the
                 * common case: no branch per vector) */
                nv_out o1 = o;
                o1.scale_g = 0;
                nv_sq2_chunk(mode, want_grad, 1, L, 0, &o1, &cc, j_ok, j, qy, ty, sy, dsy, n, NULL, x0, step, NULL,
                             NULL, fv + at, fg ? fg + 2 * at : NULL);
            }
        }
    }
}

/* fbm octave k of a band of rows (rows r < rows at y0 + (row0 + r) *
 * step) at samples c0 .. c0 + m - 1 of the grid's rows (x0 + i * step),
 * added into the band's sums acc[r] (sample c0 + i at index i), as
 * nv_sq2_row's to_float 2 at those rows: the chunk's columns computed
 * once for all rows, as nv_sq2_rows does for one octave. */
NV_FN void nv_sq2_band(int mode, int want_grad, const ne_layer *L, int k, int c0, int m, int rows, int row0,
                       double x0, double step, double y0, ne_band_row *acc)
{
    double f = L->freq[k];
    int share = nv_sq2_shares(m, NULL, step, f);
    nv_out o = nv_out_of(want_grad, 2, L, k);
    nv_sq2_cols cc;
    for (int c = c0; c < c0 + m; c += NV_ROW_CHUNK) {
        nv_sq2_cols_at(mode, want_grad, 1, share, f, c0 + m, NULL, x0, step, c, &cc);
        cc.out0 = c - c0;
        for (int r = 0; r < rows; r++) {
            double qy = (y0 + (double)(row0 + r) * step) * f, ty, sy, dsy;
            uint64_t j;
            int j_ok = nv_sq2_row_y(qy, &j, &ty, &sy, &dsy);
            nv_sq2_chunk(mode, want_grad, 2, L, k, &o, &cc, j_ok, j, qy, ty, sy, dsy, c0 + m, NULL, x0, step,
                         acc[r].v, want_grad ? acc[r].g : NULL, NULL, NULL);
        }
    }
}

#endif
