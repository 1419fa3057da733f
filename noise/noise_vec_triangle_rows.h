/* noise_vec_triangle_rows.h: the triangle lattice's row loops (nv_tri2_row, and
 * nv_tri2_rows for one-octave grids): a chunk of a row walks a chain of the
 * cells it crosses, hashed once and shared by the rows of a grid; the kernel
 * itself is in noise_vec_triangle.h.
 *
 * Internal to noise/: included by noise_vec.h, in the order it lists (a file
 * uses what the files before it define), once per instruction-set path.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_TRIANGLE_ROWS_H
#define NOISE_VEC_TRIANGLE_ROWS_H

/* A chunk's chain of skewed cells. Along a row (y fixed) both skewed
 * coordinates grow with x (each rounding is monotonic), so the cells a
 * row visits form a chain in which each step adds 1 to i or to j: the
 * cell with i + j = base + s is the chain's s-th. The chain is enumerated
 * from the first to the last sample's cell by where the row crosses the
 * next i and j (approximately: which of i and j grows first matters only
 * near a cell's corner), and each sample vector finds its cell by i + j
 * and checks it: lanes that are not in the chain's cell of their key (a
 * guess that went the other way round a corner, x not monotonic) take the
 * whole kernel.
 *
 * The cells are kept by key i + j - base, and the rows of a grid chunk
 * share them: a cell's corner data depends on (i, j) alone, and the next
 * row's chain mostly runs through the same cells, so a row hashes only
 * the cells its chain has at a key where the store holds another cell (or
 * none). Entries lo .. hi hold cells (i, j) = (di, dj) with their corner
 * data; entry hi + 1 holds no cell (NaN: no lane matches it). */
/* (the limit is where sharing stops paying against the whole kernel in
 * nv_tri2_block_q's two passes: on Zen 5's AVX-512, a 1-octave simplex
 * fill at 6 samples per unit (a chain of ~43 cells a chunk) took 2.6 ns a
 * sample shared and 2.0 not; at 8 per unit, ~32 cells, 2.1 and 2.1) */
#define NV_TRI2_CELLS (NV_ROW_CHUNK / 8 + 8)
/* keys a grid chunk's rows may share before the store starts over */
#define NV_TRI2_SPAN (2 * NV_TRI2_CELLS + 16)

typedef struct {
    int lo, hi;                              /* entries that hold cells; none if hi < lo */
    double base;                             /* i + j of entry 0 */
    double di[NV_TRI2_SPAN + 1], dj[NV_TRI2_SPAN + 1];
    /* corner data (a, b) of entry e: corner (i, j) at c0[.][e], (i + 1,
     * j + 1) at c3[.][e], the middle corners (i + 1, j) and (i, j + 1) at
     * cm[.][2e] and cm[.][2e + 1] */
    double c0[2][NV_TRI2_SPAN + NV_W], c3[2][NV_TRI2_SPAN + NV_W], cm[2][2 * (NV_TRI2_SPAN + NV_W)];
} nv_tri2_chain;

NV_FN void nv_tri2_chain_init(nv_tri2_chain *ch)
{
    ch->lo = 0;
    ch->hi = -1;
    ch->base = 0;
}

/* nk_tri2_lattice's floors, as doubles */
NV_FN void nv_tri2_floors(double x, double y, double *fi, double *fj)
{
    x *= NK_SIMPLEX_K2;
    y *= NK_SIMPLEX_K2;
    double skew = (x + y) * NK_SIMPLEX_F2;
    *fi = floor(x + skew);
    *fj = floor(y + skew);
}

/* The chain from the cell of noise-space x = xa to that of xb >= xa at
 * noise-space y = qy into ch (keeping the cells ch holds where they are
 * the chain's); 0 if it cannot be shared (too long, outside the int32
 * lattice, not finite). */
NV_FN int nv_tri2_chain_at(int mode, uint32_t seed_state, double xa, double xb, double qy, nv_tri2_chain *ch)
{
    double ia, ja, ib, jb;
    nv_tri2_floors(xa, qy, &ia, &ja);
    nv_tri2_floors(xb, qy, &ib, &jb);
    if (!(ia >= -2147483648.0 && ja >= -2147483648.0 && ib <= 2147483646.0 && jb <= 2147483646.0 && ib >= ia &&
          jb >= ja && (ib - ia) + (jb - ja) < NV_TRI2_CELLS))
        return 0;
    /* the chain's entries e0 .. e1; the store starts over where they do
     * not fit it or do not touch the entries it holds */
    double ka = ia + ja, kb = ib + jb;
    if (ch->hi < ch->lo || ka - ch->base < 0.0 || kb - ch->base > (double)(NV_TRI2_SPAN - 1)) {
        ch->base = ka;
        ch->lo = 0;
        ch->hi = -1;
    }
    int e0 = (int)(ka - ch->base), e1 = (int)(kb - ch->base);
    if (ch->hi >= ch->lo && (e1 < ch->lo - 1 || e0 > ch->hi + 1)) {
        ch->lo = 0;
        ch->hi = -1;
    }
    /* sx = x K2 (1 + F2) + qy K2 F2, sy = x K2 F2 + qy K2 (1 + F2): the x
     * where each reaches its next integer */
    const double ax = 1.0 / (NK_SIMPLEX_K2 * (1.0 + NK_SIMPLEX_F2)), ay = 1.0 / (NK_SIMPLEX_K2 * NK_SIMPLEX_F2);
    double bx = qy * NK_SIMPLEX_K2 * NK_SIMPLEX_F2, by = qy * NK_SIMPLEX_K2 * (1.0 + NK_SIMPLEX_F2);
    double ci = ia, cj = ja;
#define NV_TRI2_NEXT()                                                  \
    if (ci == ib && cj == jb)                                           \
        break;                                                          \
    if (ci == ib)                                                       \
        cj += 1.0;                                                      \
    else if (cj == jb)                                                  \
        ci += 1.0;                                                      \
    else if ((ci + 1.0 - bx) * ax < (cj + 1.0 - by) * ay)               \
        ci += 1.0;                                                      \
    else                                                                \
        cj += 1.0
    /* the cells to hash: their i, j and entry (a new store: all of them,
     * entries e0, e0 + 1, ...) */
    uint32_t ni[NV_TRI2_CELLS + NV_W], nj[NV_TRI2_CELLS + NV_W];
    int ne[NV_TRI2_CELLS + NV_W];
    int n = 0, fresh = ch->hi < ch->lo;
    if (fresh)
        for (int e = e0;; e++) {
            ch->di[e] = ci;
            ch->dj[e] = cj;
            ni[n] = (uint32_t)(int32_t)ci;
            nj[n] = (uint32_t)(int32_t)cj;
            n++;
            NV_TRI2_NEXT();
        }
    else
        for (int e = e0;; e++) {
            if (e < ch->lo || e > ch->hi || ch->di[e] != ci) {
                ch->di[e] = ci;
                ch->dj[e] = cj;
                ni[n] = (uint32_t)(int32_t)ci;
                nj[n] = (uint32_t)(int32_t)cj;
                ne[n] = e;
                n++;
            }
            NV_TRI2_NEXT();
        }
#undef NV_TRI2_NEXT
    if (fresh) {
        ch->lo = e0;
        ch->hi = e1;
    } else {
        ch->lo = e0 < ch->lo ? e0 : ch->lo;
        ch->hi = e1 > ch->hi ? e1 : ch->hi;
    }
    /* entry hi + 1: no cell (its data is read beside entry hi's, never
     * used) */
    int h1 = ch->hi + 1;
    ch->di[h1] = NAN;
    ch->dj[h1] = NAN;
    for (int r = 0; r < 2; r++) {
        ch->c0[r][h1] = ch->c3[r][h1] = 0.0;
        ch->cm[r][2 * h1] = ch->cm[r][2 * h1 + 1] = 0.0;
    }
    for (int p = n; n > 0 && p < n + NV_W; p++) { /* the last vector's spare lanes */
        ni[p] = ni[n - 1];
        nj[p] = nj[n - 1];
    }
    vi vs = vi_set1((int)seed_state);
    int nb = mode == NK_MODE_VALUE ? 1 : 2;
    for (int p = 0; p < n; p += NV_W) {
        /* corners (i,j), (i+1,j), (i,j+1), (i+1,j+1), as nk_tri2_hashes */
        vi2 hh[2];
        nv_hash4(vs, vi_loadu(ni + p), vi_loadu(nj + p), hh);
        nv_corner c0 = nv_tri2_gather(mode, vi2_lo(hh[0])), c1 = nv_tri2_gather(mode, vi2_hi(hh[0]));
        nv_corner c2 = nv_tri2_gather(mode, vi2_lo(hh[1])), c3 = nv_tri2_gather(mode, vi2_hi(hh[1]));
        double m[2][4][NV_W]; /* [a, b][corner 1, 2, 0, 3][lane] */
        vd_storeu(m[0][0], c1.a);
        vd_storeu(m[0][1], c2.a);
        if (nb == 2) {
            vd_storeu(m[1][0], c1.b);
            vd_storeu(m[1][1], c2.b);
        }
        int w = n - p < NV_W ? n - p : NV_W;
        if (fresh || (ne[p + w - 1] == ne[p] + w - 1 && (w == NV_W || ne[p] + w - 1 == ch->hi))) {
            /* consecutive entries (all of a new store's): whole vectors,
             * the spare lanes past hi */
            int e = fresh ? e0 + p : ne[p];
            vd_storeu(ch->c0[0] + e, c0.a);
            vd_storeu(ch->c3[0] + e, c3.a);
            if (nb == 2) {
                vd_storeu(ch->c0[1] + e, c0.b);
                vd_storeu(ch->c3[1] + e, c3.b);
            }
            for (int r = 0; r < nb; r++)
                for (int l = 0; l < NV_W; l++) {
                    ch->cm[r][2 * (e + l)] = m[r][0][l];
                    ch->cm[r][2 * (e + l) + 1] = m[r][1][l];
                }
            continue;
        }
        vd_storeu(m[0][2], c0.a);
        vd_storeu(m[0][3], c3.a);
        if (nb == 2) {
            vd_storeu(m[1][2], c0.b);
            vd_storeu(m[1][3], c3.b);
        }
        for (int r = 0; r < nb; r++)
            for (int l = 0; l < w; l++) {
                int e = ne[p + l];
                ch->c0[r][e] = m[r][2][l];
                ch->c3[r][e] = m[r][3][l];
                ch->cm[r][2 * e] = m[r][0][l];
                ch->cm[r][2 * e + 1] = m[r][1][l];
            }
    }
    return 1;
}

/* Where the row samples fall in a chain's row: xk their noise-space x and
 * yk the row's y times NK_SIMPLEX_K2 (the lattice's own products, once
 * per column and once per row):
 * nk_tri2_lattice's fractions fx, fy, and the chain's cells. The vector's
 * first lane is in chain cell kc (its key i + j - base), every lane in kc
 * or kc + 1 (dk 0 or 1), checked against the chain's i and j of that cell
 * (lanes past a corner the chain guessed the other way round, rows that
 * run backwards). Returns kc, or -1 if a lane is not in the chain. */
NV_FN int nv_tri2_locate(const nv_tri2_chain *ch, double lo, double hi, vd xk, vd yk, vd *fx, vd *fy, vd *dk)
{
    /* nk_tri2_lattice, from x and y times NK_SIMPLEX_K2 */
    vd skew = vd_mul(vd_add(xk, yk), vd_set1(NK_SIMPLEX_F2));
    vd sx = vd_add(xk, skew), sy = vd_add(yk, skew);
    vd fli = vd_floor(sx), flj = vd_floor(sy);
    *fx = nv_frac(sx, fli);
    *fy = nv_frac(sy, flj);
    /* exact where the cell is in the chain: integers below 2^33 */
    vd key = vd_sub(vd_add(fli, flj), vd_set1(ch->base));
    double kcd = vd_first(key);
    *dk = vd_sub(key, vd_set1(kcd));
    if (!(kcd >= lo && kcd <= hi)) /* NaN too */
        return -1;
    int kc = (int)kcd;
    /* A lane whose i and j match entry kc or kc + 1 (the picks, whatever dk
     * is) has that cell's key: its dk is 0 or 1 (no lane matches entry
     * hi + 1) */
    vd s2 = vd_sel2(*dk);
    if (!vm_all(vm_and(vd_eq(fli, vd_pick2(ch->di + kc, s2)), vd_eq(flj, vd_pick2(ch->dj + kc, s2)))))
        return -1;
    return kc;
}

/* nk_tri2_blend of samples located by nv_tri2_locate in chain cells kc
 * + dk: every lane takes its cell's corners from the chain (vd_pick2, and
 * vd_pick4 for the middle corner, 2 dk + (fx > fy ? 0 : 1)), without a
 * branch on where a cell border falls. */
NV_FN vd nv_tri2_chain_blend(int mode, int want_grad, const nv_tri2_chain *ch, int kc, vd dk, vd fx, vd fy,
                             vd *g0, vd *g1)
{
    vm xgy = vd_gt(fx, fy);
    nv_tri2_corners c;
    for (int r = 0; r < 2; r++) {
        c.t[0][r] = ch->c0[r] + kc;
        c.t[1][r] = ch->cm[r] + 2 * kc;
        c.t[2][r] = ch->c3[r] + kc;
    }
    c.d[0] = c.d[2] = vd_sel2(dk);
    c.d[1] = vd_sel4_2(dk, xgy);
    return nv_tri2_sum3(mode, want_grad, 1, &c, xgy, fx, fy, g0, g1);
}

/* A chunk of m samples of a row of the triangle lattice (noise-space x
 * xq[0 .. m - 1], and times NK_SIMPLEX_K2 xk, with NV_W - 1 readable
 * entries past m; y the row's plane y) output at index c0 of the row:
 * the chunk's chain of cells (above) set up first; then every sample
 * vector located in it (a pass of short independent steps, which the CPU
 * overlaps); then each vector takes its lanes' corners from the chain into
 * the kernel's own expressions. A chunk whose cells are smaller than
 * about 4 samples, or outside the int32 lattice, and vectors the chain
 * does not cover take the whole kernel per lane. Output as nv_emit_o's
 * to_float: 0 (doubles), 1 (a one-octave fbm row in floats) or 2 (added
 * into fbm sums). */
NV_FN void nv_tri2_chunk(int mode, int want_grad, int to_float, const ne_layer *L, int k, const nv_out *o, int m,
                         const double *xq, const double *xk, int c0, double y, nv_tri2_chain *ch, double *v, ne_grad g,
                         float *fv, float *fg)
{
    uint32_t seed = L->seed[k];
    double qy = y * L->freq[k];
    vd yk = vd_set1(qy * NK_SIMPLEX_K2);
    double pfx[NV_ROW_CHUNK], pfy[NV_ROW_CHUNK], pdk[NV_ROW_CHUNK];
    int pkc[NV_ROW_CHUNK / NV_W];
    double xa = xq[0], xb = xq[m - 1];
    if (xb < xa) { /* a row that runs backwards: its chain, from the other end */
        xa = xq[m - 1];
        xb = xq[0];
    }
    int share = nv_tri2_chain_at(mode, nl_seed(seed), xa, xb, qy, ch);
    double lo = ch->lo, hi = ch->hi;
    if (share)
        for (int i = 0; i < m; i += NV_W) {
            vd fx, fy, dk;
            pkc[i / NV_W] = nv_tri2_locate(ch, lo, hi, vd_loadu(xk + i), yk, &fx, &fy, &dk);
            vd_storeu(pfx + i, fx);
            vd_storeu(pfy + i, fy);
            vd_storeu(pdk + i, dk);
        }
    int i0 = 0;
#if NV_PTS_TABLES
    /* not shared: NV_PB vectors at a time by the batch block's two passes
     * (the corners' entries read by loads, not gathered) */
    if (!share) {
        vd yq = vd_set1(qy), Y[NV_PB];
        for (int b = 0; b < NV_PB; b++)
            Y[b] = yq;
        for (; i0 + NV_PB * NV_W <= m; i0 += NV_PB * NV_W) {
            vd X[NV_PB], val[NV_PB], g0[NV_PB], g1[NV_PB];
            for (int b = 0; b < NV_PB; b++) {
                X[b] = vd_loadu(xq + i0 + b * NV_W);
                g0[b] = g1[b] = vd_zero();
            }
            nv_tri2_block_q(mode, want_grad, 0, L, k, X, Y, val, g0, g1);
            for (int b = 0; b < NV_PB; b++)
                nv_emit_o(want_grad, to_float, o, c0 + i0 + b * NV_W, NV_W, val[b], g0[b], g1[b], v, g, fv, fg);
        }
    }
#endif
    for (int i = i0; i < m; i += NV_W) {
        int w = m - i < NV_W ? m - i : NV_W;
        vd val, g0 = vd_zero(), g1 = vd_zero();
        if (share && pkc[i / NV_W] >= 0)
            val = nv_tri2_chain_blend(mode, want_grad, ch, pkc[i / NV_W], vd_loadu(pdk + i), vd_loadu(pfx + i),
                                      vd_loadu(pfy + i), &g0, &g1);
        else
            nv_eval2(NV_TRI2, mode, want_grad, seed, 0, vd_loadu(xq + i), vd_set1(qy), &val, &g0, &g1);
        nv_emit_o(want_grad, to_float, o, c0 + i, w, val, g0, g1, v, g, fv, fg);
    }
}

/* A chunk's noise-space x (nv_row_x times f) and those times
 * NK_SIMPLEX_K2, for nv_tri2_chunk */
NV_FN void nv_tri2_cols(const double *xs, double x0, double step, double f, int c0, int m, int n, double *xq,
                        double *xk)
{
    for (int i = 0; i < m; i += NV_W) {
        vd x = vd_mul(nv_row_x(xs, x0, step, c0 + i, n), vd_set1(f));
        vd_storeu(xq + i, x);
        vd_storeu(xk + i, vd_mul(x, vd_set1(NK_SIMPLEX_K2)));
    }
}

/* Rows of the triangle lattice (nv_tri2_chunk on each chunk): the row at
 * y0 of the samples xs (to_float 0 or 2), or `rows` rows of a grid
 * (to_float 1: sample i of row r at x0 + i * step, y0 + (row0 + r) *
 * step; row r at fv + r * n, fg + 2 * r * n), whose x is computed once for
 * all its rows. Called through nv_tri2_row and nv_tri2_rows below. */
NV_FN void nv_tri2_chunks(int mode, int want_grad, int to_float, const ne_layer *L, int k, int n, int rows,
                          int row0, const double *xs, double x0, double step, double y0, double *v, ne_grad g,
                          float *fv, float *fg)
{
    nv_out o = nv_out_of(want_grad, to_float, L, k);
    double xq[NV_ROW_CHUNK + NV_W], xk[NV_ROW_CHUNK + NV_W];
    nv_tri2_chain ch; /* the cells, shared by a chunk's rows */
    for (int c0 = 0; c0 < n; c0 += NV_ROW_CHUNK) {
        int m = n - c0 < NV_ROW_CHUNK ? n - c0 : NV_ROW_CHUNK;
        nv_tri2_cols(xs, x0, step, L->freq[k], c0, m, n, xq, xk);
        nv_tri2_chain_init(&ch);
        for (int r = 0; r < rows; r++) {
            size_t at = (size_t)r * (size_t)n;
            /* the grid's rows at ne_grid's y0 + (row0 + r) * step; a row of samples at its y */
            nv_tri2_chunk(mode, want_grad, to_float, L, k, &o, m, xq, xk, c0,
                          to_float == 1 ? y0 + (double)(row0 + r) * step : y0,
                          &ch, v, g, fv ? fv + at : NULL, fg ? fg + 2 * at : NULL);
        }
    }
}

/* One row of n samples xs at y: noise values and gradients into v, g
 * (to_float 0), or octave k added into fbm sums (2). */
NV_FN void nv_tri2_row(int mode, int want_grad, int to_float, const ne_layer *L, int k, int n, const double *xs,
                       double y, double *v, ne_grad g)
{
    nv_tri2_chunks(mode, want_grad, to_float, L, k, n, 1, 0, xs, 0, 0, y, v, g, NULL, NULL);
}

/* A one-octave grid into floats, as nv_sq2_rows: rows r < rows at y0 +
 * (row0 + r) * step, sample i at x0 + i * step; fg NULL: values only. */
NV_FN void nv_tri2_rows(int mode, int want_grad, const ne_layer *L, int n, int rows, int row0, double x0,
                        double step, double y0, float *fv, float *fg)
{
    nv_tri2_chunks(mode, want_grad, 1, L, 0, n, rows, row0, NULL, x0, step, y0, NULL, NULL, fv, fg);
}

#endif
