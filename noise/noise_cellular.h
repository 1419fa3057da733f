/* noise_cellular.h: internal to noise/: cellular (Worley) noise, the scalar
 * reference: feature points, the exact search for the nearest two, the
 * value and its gradient, and grid rows that share a row's cell work.
 *
 * The definitions (noise.h states them for users, docs/field.md gives the
 * formulas):
 * - Cell (a, b[, c]) holds one feature point at (a + ox, b + oy[, c + oz]),
 *   each offset o = 0.5 + jitter * (r - 0.5) with r = 16 bits of the cell's
 *   hash times 2^-16: h = avalanche(eat(eat(seed(s), a), b)[, c]) (the
 *   lattice hash of the other kinds), r_x = h & 0xffff, r_y = h >> 16;
 *   h2 = avalanche(h + PRIME_A), r_z = h2 & 0xffff (3D); the cell's value is
 *   (h2 >> 16) / 65535 * 2 - 1.
 * - For a point in cell (i, j[, k]) with fractions (fx, fy[, fz]), the
 *   offset to the feature point of cell (i + ex, j + ey[, k + ez]) is
 *   d = (e + o) - f on each axis, in that order (so it keeps full precision
 *   far from the origin), and the compared distance is
 *     euclidean  D = dx*dx + dy*dy         3D: dx*dx + (dy*dy + dz*dz)
 *     manhattan  D = |dx| + |dy|           3D: |dx| + (|dy| + |dz|)
 *     chebyshev  D = max(|dx|, |dy|)       3D: max(|dx|, max(|dy|, |dz|))
 *   with F = sqrt(D) for euclidean, F = D otherwise.
 * - Points are ordered by (D, key), key = (ez, ey, ex) lexicographically:
 *   at equal distance the lower cell (t, then y, then x) comes first. F1 and
 *   F2 are the first and second point in that order over ALL cells, so the
 *   result does not depend on the order in which a search visits them.
 *
 * The search (exact): every point of the cell at offset e lies within
 * [e + lo, e + hi] on each axis (lo = 0.5 - jitter/2, hi = 0.5 + jitter/2,
 * computed as the offsets are), so |d| on that axis is at least the gap
 * (e + lo) - f (e > 0), f - (e + hi) (e < 0), 0 (e = 0); every operation is
 * monotone, so the gaps' distance, computed by the same formula, is at most
 * the computed D of any point of that cell. The 3 x 3 (x 3) cells around the
 * point are searched first; then rings r = 2, 3, 4 (cells whose largest
 * |e| is r), a ring only while its smallest gap's distance is not above the
 * current bound (F1's D, or F2's when F2 is returned), and in it only cells
 * whose own gap distance is not above it. A skipped cell's points are
 * strictly farther than the result, so they can neither win nor tie. Ring 4
 * is never needed: with jitter <= 1, F2 <= 3 (manhattan in 3D, the largest
 * bound), and ring 4's gaps exceed 3.
 *
 * Internal prefixes (ne_, nl_, nk_, nc_, nv_, ...): noise_field.h.
 */
#ifndef NOISE_CELLULAR_H
#define NOISE_CELLULAR_H

#include "noise_field.h"
#include "noise_kernels.h"

#include <limits.h>

#define NC_MAX_RING 4

/* ---- setup ---- */

/* The layer's cellular parameters from the spec: out-of-range values of
 * trusted callers are clamped (jitter to [0, 1], NaN to 1). The bound B of
 * the returned distance gives the scale 2 / B (value = F * scale - 1), with
 * h = (1 + jitter) / 2 the largest per-axis distance from a cell corner to
 * a point of the cell:
 *   F1: h * sqrt(2), 2h, h (2D); h * sqrt(3), 3h, h (3D): the exact
 *       supremum (a point at a cell corner, all four or eight points of the
 *       cells around it at their farthest);
 *   F2 and F2 - F1: sqrt(2h^2 + 1/2), 2h, h + 1/2 (2D);
 *       sqrt(3h^2 + max(0, 3/4 - h)), 3h, h + 1/2 (3D): F2 is at most the
 *       larger of the farthest point of the point's own cell and of the cell
 *       across the nearest face (docs/field.md derives it). */
static inline void nc_setup(ne_cell *C, const noise_spec *spec, int d3)
{
    C->distance = (unsigned)spec->distance < NOISE_DISTANCE_COUNT ? (int)spec->distance : NOISE_EUCLIDEAN;
    C->ret = (unsigned)spec->cell_return < NOISE_RETURN_COUNT ? (int)spec->cell_return : NOISE_F1;
    double j = spec->jitter;
    C->jitter = j >= 0 && j <= 1 ? j : j < 0 ? 0.0 : 1.0;
    C->lo = 0.5 + C->jitter * (0.0 - 0.5);
    C->hi = 0.5 + C->jitter * (1.0 - 0.5);
    C->need2 = C->ret == NOISE_F2 || C->ret == NOISE_F2_F1;
    double h = 0.5 + 0.5 * C->jitter, b;
    if (!C->need2) {
        if (C->distance == NOISE_EUCLIDEAN)
            b = h * sqrt(d3 ? 3.0 : 2.0);
        else if (C->distance == NOISE_MANHATTAN)
            b = h * (d3 ? 3.0 : 2.0);
        else
            b = h;
    } else {
        if (C->distance == NOISE_EUCLIDEAN)
            b = d3 ? sqrt(3.0 * h * h + (h < 0.75 ? 0.75 - h : 0.0)) : sqrt(2.0 * h * h + 0.5);
        else if (C->distance == NOISE_MANHATTAN)
            b = h * (d3 ? 3.0 : 2.0);
        else
            b = h + 0.5;
    }
    C->scale = 2.0 / b;
}

/* ---- feature points ---- */

/* A feature point's offset in its cell from 16 bits of hash. */
NK_INLINE double nc_offset(uint32_t bits, double jitter)
{
    double r = (double)bits * 0x1p-16;
    return 0.5 + jitter * (r - 0.5);
}

/* The hash of cell (a, b[, c]), a and b wrapped modulo per (cells per
 * period of a periodic octave, 0: none; c never wraps): the one place a
 * periodic field differs. The points' positions come from the unwrapped
 * cell, so the search and the tie order are the plain field's. */
NK_INLINE uint32_t nc_hash2(uint32_t s, uint32_t per, uint64_t a, uint64_t b)
{
    return nl_avalanche(nl_eat64(nl_eat64(s, nl_wrap(a, per)), nl_wrap(b, per)));
}
NK_INLINE uint32_t nc_hash3(uint32_t s, uint32_t per, uint64_t a, uint64_t b, uint64_t c)
{
    return nl_avalanche(nl_eat64(nl_eat64(nl_eat64(s, nl_wrap(a, per)), nl_wrap(b, per)), c));
}
/* The cell's second hash: z offset (3D) and cell value. */
NK_INLINE uint32_t nc_hash_b(uint32_t h) { return nl_avalanche(h + NL_PRIME_A); }
NK_INLINE double nc_cell_value(uint32_t h2) { return (double)(h2 >> 16) / 65535.0 * 2.0 - 1.0; }

/* ---- distances ---- */

NK_INLINE double nc_max(double a, double b) { return a > b ? a : b; }
/* one axis' term: d*d (euclidean) or |d| */
NK_INLINE double nc_term(int distance, double d) { return distance == NOISE_EUCLIDEAN ? d * d : fabs(d); }
/* two terms combined: a + b, or max for chebyshev */
NK_INLINE double nc_comb(int distance, double a, double b) { return distance == NOISE_CHEBYSHEV ? nc_max(a, b) : a + b; }

/* The gradient of F (noise space) for the offset d = q - p to the point:
 * euclidean -d / F (0 where F = 0); manhattan -sign(d) per axis; chebyshev
 * -sign(d) on the axis of the largest |d| (x, then y, then z on ties), 0 on
 * the others; sign(0) counts as +1 (the side of decreasing offset). */
NK_INLINE void nc_grad_f(int distance, int dims, const double *d, double F, double *out)
{
    if (distance == NOISE_EUCLIDEAN) {
        for (int a = 0; a < dims; a++)
            out[a] = F > 0 ? -(d[a] / F) : 0.0;
        return;
    }
    if (distance == NOISE_MANHATTAN) {
        for (int a = 0; a < dims; a++)
            out[a] = d[a] < 0 ? 1.0 : -1.0;
        return;
    }
    int m = 0;
    double am = fabs(d[0]);
    for (int a = 1; a < dims; a++)
        if (fabs(d[a]) > am) {
            m = a;
            am = fabs(d[a]);
        }
    for (int a = 0; a < dims; a++)
        out[a] = 0.0;
    out[m] = d[m] < 0 ? 1.0 : -1.0;
}

/* The value (and noise-space gradient) from the winners: D1, its offset d1
 * and its cell's hash h1; D2 and d2 (when need2). */
NK_INLINE double nc_finish(const ne_cell *C, int dims, double D1, const double *d1, uint32_t h1, double D2,
                           const double *d2, int want_grad, double *g)
{
    int eu = C->distance == NOISE_EUCLIDEAN;
    double F1 = eu ? sqrt(D1) : D1, F2 = 0, v;
    if (C->need2)
        F2 = eu ? sqrt(D2) : D2;
    switch (C->ret) {
    case NOISE_F1: v = F1 * C->scale - 1.0; break;
    case NOISE_F2: v = F2 * C->scale - 1.0; break;
    case NOISE_F2_F1: v = (F2 - F1) * C->scale - 1.0; break;
    default: v = nc_cell_value(nc_hash_b(h1)); break;
    }
    if (want_grad) {
        double g1[3] = { 0, 0, 0 }, g2[3] = { 0, 0, 0 };
        if (C->ret != NOISE_F2)
            nc_grad_f(C->distance, dims, d1, F1, g1);
        if (C->need2)
            nc_grad_f(C->distance, dims, d2, F2, g2);
        for (int a = 0; a < dims; a++) {
            switch (C->ret) {
            case NOISE_F1: g[a] = g1[a] * C->scale; break;
            case NOISE_F2: g[a] = g2[a] * C->scale; break;
            case NOISE_F2_F1: g[a] = (g2[a] - g1[a]) * C->scale; break;
            default: g[a] = 0.0; break;
            }
        }
    }
    return v;
}

/* ---- the point kernel (the reference every path equals) ---- */

typedef struct {
    double D;
    int key;
    uint32_t h;
    double d[3];
} nc_pt;

/* (D, key) order */
NK_INLINE int nc_less(double D, int key, const nc_pt *b) { return D < b->D || (D == b->D && key < b->key); }

NK_INLINE void nc_insert(nc_pt *b1, nc_pt *b2, double D, int key, uint32_t h, const double *d)
{
    if (nc_less(D, key, b1)) {
        *b2 = *b1;
        b1->D = D;
        b1->key = key;
        b1->h = h;
        b1->d[0] = d[0];
        b1->d[1] = d[1];
        b1->d[2] = d[2];
    } else if (nc_less(D, key, b2)) {
        b2->D = D;
        b2->key = key;
        b2->h = h;
        b2->d[0] = d[0];
        b2->d[1] = d[1];
        b2->d[2] = d[2];
    }
}

/* The distance of the per-axis values t[0..dims) (offsets or gaps). */
NK_INLINE double nc_dist(int distance, int dims, const double *t)
{
    double yz = nc_term(distance, t[1]);
    if (dims == 3)
        yz = nc_comb(distance, yz, nc_term(distance, t[2]));
    return nc_comb(distance, nc_term(distance, t[0]), yz);
}

/* The gap on one axis to the points of cells at offset e. */
NK_INLINE double nc_gap(const ne_cell *C, int e, double f)
{
    return e > 0 ? ((double)e + C->lo) - f : e < 0 ? f - ((double)e + C->hi) : 0.0;
}

/* The smallest distance of the ring of cells at largest offset r. */
NK_INLINE double nc_ring_bound(const ne_cell *C, int dims, int r, const double *f)
{
    double m = INFINITY;
    for (int a = 0; a < dims; a++) {
        double gp = nc_gap(C, r, f[a]), gn = nc_gap(C, -r, f[a]);
        m = gp < m ? gp : m;
        m = gn < m ? gn : m;
    }
    return C->distance == NOISE_EUCLIDEAN ? m * m : m;
}

NK_INLINE int nc_key(int ex, int ey, int ez) { return ((ez + 8) * 16 + (ey + 8)) * 16 + (ex + 8); }

/* Cellular noise at noise-space (x, y[, z]) of seed `seed` (per: cells per
 * period, 0: none): the value, and with want_grad the noise-space gradient
 * in g (2 or 3 components). */
NK_INLINE double nc_eval(const ne_cell *C, uint32_t seed, uint32_t per, int d3, double x, double y, double z,
                         int want_grad, double *g)
{
    int dims = d3 ? 3 : 2;
    double f[3] = { 0, 0, 0 };
    uint64_t ci[3] = { 0, 0, 0 };
    ci[0] = nl_floor(x, &f[0]);
    ci[1] = nl_floor(y, &f[1]);
    if (d3)
        ci[2] = nl_floor(z, &f[2]);
    uint32_t s = nl_seed(seed);
    nc_pt b1 = { INFINITY, INT_MAX, 0, { 0, 0, 0 } }, b2 = b1;
    for (int r = 1; r <= NC_MAX_RING; r++) {
        double need = C->need2 ? b2.D : b1.D;
        if (r >= 2 && nc_ring_bound(C, dims, r, f) > need)
            break;
        int rz = d3 ? r : 0;
        for (int ez = -rz; ez <= rz; ez++)
            for (int ey = -r; ey <= r; ey++)
                for (int ex = -r; ex <= r; ex++) {
                    int ax = ex < 0 ? -ex : ex, ay = ey < 0 ? -ey : ey, az = ez < 0 ? -ez : ez;
                    int m = ax > ay ? ax : ay;
                    m = az > m ? az : m;
                    if (r >= 2) {
                        if (m != r)
                            continue;
                        double gp[3] = { nc_gap(C, ex, f[0]), nc_gap(C, ey, f[1]), nc_gap(C, ez, f[2]) };
                        if (nc_dist(C->distance, dims, gp) > (C->need2 ? b2.D : b1.D))
                            continue;
                    }
                    uint64_t a = ci[0] + (uint64_t)(int64_t)ex, b = ci[1] + (uint64_t)(int64_t)ey;
                    uint32_t h, h2 = 0;
                    double d[3];
                    if (d3) {
                        h = nc_hash3(s, per, a, b, ci[2] + (uint64_t)(int64_t)ez);
                        h2 = nc_hash_b(h);
                    } else {
                        h = nc_hash2(s, per, a, b);
                    }
                    d[0] = ((double)ex + nc_offset(h & 0xffff, C->jitter)) - f[0];
                    d[1] = ((double)ey + nc_offset(h >> 16, C->jitter)) - f[1];
                    d[2] = d3 ? ((double)ez + nc_offset(h2 & 0xffff, C->jitter)) - f[2] : 0.0;
                    nc_insert(&b1, &b2, nc_dist(C->distance, dims, d), nc_key(ex, ey, ez), h, d);
                }
    }
    return nc_finish(C, dims, b1.D, b1.d, b1.h, b2.D, b2.d, want_grad, g);
}

/* ---- grid rows ---- */

/* One cell of a row's column cache: the x offset of its point, the y (and
 * z) offsets d from the row's point (which do not change along the row),
 * the y(z) distance term, the hash. */
typedef struct {
    double ox, dy, dz, yz;
    uint32_t h;
} nc_cc;

/* The 3 (2D) or 9 (3D: [ez+1][ey+1]) cells of column a around row (j, k). */
typedef struct {
    nc_cc c[9];
} nc_col;

NK_INLINE void nc_column(const ne_cell *C, uint32_t s, uint32_t per, int d3, uint64_t a, uint64_t j, uint64_t kk,
                         double fy, double fz, nc_col *col)
{
    int nz = d3 ? 3 : 1;
    /* nc_hash2 / nc_hash3 (a and b wrapped, c not), the column's index
     * eaten once */
    uint32_t sa = nl_eat64(s, nl_wrap(a, per));
    for (int ez = 0; ez < nz; ez++)
        for (int ey = -1; ey <= 1; ey++) {
            nc_cc *c = &col->c[ez * 3 + ey + 1];
            uint32_t h, h2 = 0, sb = nl_eat64(sa, nl_wrap(j + (uint64_t)(int64_t)ey, per));
            if (d3) {
                h = nl_avalanche(nl_eat64(sb, kk + (uint64_t)(int64_t)(ez - 1)));
                h2 = nc_hash_b(h);
            } else {
                h = nl_avalanche(sb);
            }
            c->h = h;
            c->ox = nc_offset(h & 0xffff, C->jitter);
            c->dy = ((double)ey + nc_offset(h >> 16, C->jitter)) - fy;
            c->yz = nc_term(C->distance, c->dy);
            if (d3) {
                c->dz = ((double)(ez - 1) + nc_offset(h2 & 0xffff, C->jitter)) - fz;
                c->yz = nc_comb(C->distance, c->yz, nc_term(C->distance, c->dz));
            } else {
                c->dz = 0.0;
            }
        }
}

/* Octave k of a layer along a row at y (and t in 3D): sample i at plane x
 * xs[i], or x0 + i * step when xs is NULL. to_float 0: doubles v, g (noise
 * units); 1: the finished one-octave fbm field into floats fv, fg (as
 * ne_layer_eval: value clamped, gradient (af * g) / sum). The 3 x 3 (x 3)
 * cells around a sample come from a cache of three columns that moves
 * with the samples; when the ring bound does not rule out the cells beyond
 * them, the sample takes nc_eval. */
NK_INLINE void nc_row(int d3, int want_grad, int to_float, const ne_layer *L, int k, int n, const double *xs,
                      double x0, double step, double y, double t, double *v, ne_grad g, float *fv, float *fg)
{
    const ne_cell *C = &L->cell;
    int dims = d3 ? 3 : 2, nz = d3 ? 3 : 1, dist = C->distance, need2 = C->need2;
    double f = L->freq[k], fyz[3] = { 0, 0, 0 };
    uint64_t j = nl_floor(y * f, &fyz[1]), kk = 0;
    if (d3)
        kk = nl_floor(t * f, &fyz[2]);
    uint32_t seed = L->seed[k], s = nl_seed(seed), per = L->period[k];
    double af = L->amp_freq[0], sum = L->amp_sum;
    int scaled = af != 1.0 || sum != 1.0;
    /* the ring-2 bound's y and z part, constant along the row */
    double myz = INFINITY;
    for (int a = 1; a < dims; a++) {
        double gp = nc_gap(C, 2, fyz[a]), gn = nc_gap(C, -2, fyz[a]);
        myz = gp < myz ? gp : myz;
        myz = gn < myz ? gn : myz;
    }
    nc_col col[3];
    uint64_t ci = 0;
    int have = 0;
    for (int i = 0; i < n; i++) {
        double x = (xs ? xs[i] : x0 + (double)i * step) * f, fx, gd[3] = { 0, 0, 0 }, val;
        uint64_t ii = nl_floor(x, &fx);
        if (!have || ii != ci) {
            if (have && ii == ci + 1) {
                col[0] = col[1];
                col[1] = col[2];
                nc_column(C, s, per, d3, ii + 1, j, kk, fyz[1], fyz[2], &col[2]);
            } else {
                for (int c = 0; c < 3; c++)
                    nc_column(C, s, per, d3, ii + (uint64_t)(int64_t)(c - 1), j, kk, fyz[1], fyz[2], &col[c]);
            }
            ci = ii;
            have = 1;
        }
        /* the 3 x 3 (x 3) cells in key order: the first of equal
         * distances stays */
        double D1 = INFINITY, D2 = INFINITY;
        int w1 = 0, w2 = 0;
        for (int ez = 0; ez < nz; ez++)
            for (int ey = 0; ey < 3; ey++)
                for (int ex = 0; ex < 3; ex++) {
                    const nc_cc *c = &col[ex].c[ez * 3 + ey];
                    double dx = ((double)(ex - 1) + c->ox) - fx;
                    double D = nc_comb(dist, nc_term(dist, dx), c->yz);
                    int w = (ez * 3 + ey) * 3 + ex;
                    if (D < D1) {
                        D2 = D1;
                        w2 = w1;
                        D1 = D;
                        w1 = w;
                    } else if (need2 && D < D2) {
                        D2 = D;
                        w2 = w;
                    }
                }
        double m = nc_gap(C, 2, fx), mn = nc_gap(C, -2, fx);
        m = mn < m ? mn : m;
        m = myz < m ? myz : m;
        double mD = dist == NOISE_EUCLIDEAN ? m * m : m;
        if (mD > (need2 ? D2 : D1)) {
            const nc_cc *c1 = &col[w1 % 3].c[w1 / 3], *c2 = &col[w2 % 3].c[w2 / 3];
            double d1[3] = { ((double)(w1 % 3 - 1) + c1->ox) - fx, c1->dy, c1->dz };
            double d2[3] = { ((double)(w2 % 3 - 1) + c2->ox) - fx, c2->dy, c2->dz };
            val = nc_finish(C, dims, D1, d1, c1->h, D2, d2, want_grad, gd);
        } else {
            val = nc_eval(C, seed, per, d3, x, y * f, t * f, want_grad, gd);
        }
        if (!to_float) {
            v[i] = val;
            if (want_grad)
                for (int a = 0; a < dims; a++)
                    g[a][i] = gd[a];
        } else {
            fv[i] = (float)(val < -1.0 ? -1.0 : val > 1.0 ? 1.0 : val);
            if (want_grad) {
                if (scaled) {
                    gd[0] = (af * gd[0]) / sum;
                    gd[1] = (af * gd[1]) / sum;
                }
                fg[2 * i] = (float)gd[0];
                fg[2 * i + 1] = (float)gd[1];
            }
        }
    }
}

/* A 2D one-octave tile's rows (float_row), each by ROW: nc_row, or its
 * vector twin with the path's target attribute ATTR. */
#define NC_FLOAT_ROWS(name, ATTR, ROW)                                                                    \
    static ATTR void name(const ne_layer *L, int n, int rows, int row0, double x0, double step, double y0,  \
                          float *fv, float *fg)                                                           \
    {                                                                                                     \
        for (int r = 0; r < rows; r++) {                                                                  \
            double y = y0 + (double)(row0 + r) * step;                                                    \
            size_t at = (size_t)r * (size_t)n;                                                            \
            if (fg)                                                                                       \
                ROW(0, 1, 1, L, 0, n, NULL, x0, step, y, 0.0, NULL, NULL, fv + at, fg + 2 * at);          \
            else                                                                                          \
                ROW(0, 0, 1, L, 0, n, NULL, x0, step, y, 0.0, NULL, NULL, fv + at, NULL);                 \
        }                                                                                                 \
    }

#endif
