/* noise_vec.h: internal to noise/: the vector twins of the scalar kernels of
 * noise_kernels.h and of the row loops of noise_eval.c, written once against
 * a small vector layer (vd_*, vi_*, vi2_*) that noise_avx2.c (8 doubles as
 * two __m256d) and noise_avx512.c (8 doubles in one __m512d) define before
 * including this file.
 *
 * Every expression is the scalar one, lane by lane, in the same order:
 * explicit multiplies and adds (the build has -ffp-contract=off and nothing
 * here asks for a fused multiply-add), floor by round-to-minus-infinity
 * (exact), max(r, 0) with the scalar's r > 0 ? r : 0 semantics, and the
 * same table entries (loaded, gathered, or computed by the tables' own
 * expressions). So each lane equals the scalar path bit for bit. Integer
 * hashing is exact modulo 2^32, so it may be regrouped freely (nv_hash4).
 * Lanes the vector arithmetic does not cover (a lattice index outside the
 * int32 range, non-finite coordinates) take the scalar kernel.
 *
 * The includer defines: NV_W (lanes), NV_FN (static inline, always inlined,
 * with the path's target attribute), NV_TARGET (the target attribute), the
 * types vd (doubles), vi (32-bit ints, NV_W lanes), vi2 (2 * NV_W of them),
 * vm (a lane mask), NV_TABLES (1: read the corner tables by loads, with
 * vd_table1/vd_table2, which take each lane's byte offset into the table;
 * 0: compute or gather them), NV_PTS_TABLES (the same choice for the
 * point batches' blocks alone; 1 needs vd_table1/vd_table2), and the
 * operations used below.
 *
 * The kernels and loops are split by lattice, included below in this order
 * (each file uses what the files before it define):
 *   noise_vec_hash.h           fade curves, SmallXXHash on lanes, period
 *                              wraps, the index checks
 *   noise_vec_tables.h         the corner tables on lanes
 *   noise_vec_square.h         the square lattice in 2D (value, perlin): nv_sq2
 *   noise_vec_triangle.h       the triangle lattice in 2D (value, perlin,
 *                              simplex): nv_tri2
 *   noise_vec_3d.h             3D: nv_sq3, nv_tet3 and their loop nv_pts3
 *   noise_vec_improved.h       Ken Perlin's Improved Noise
 *   noise_vec_points.h         the 2D points loops, fbm at batches of points
 *   noise_vec_rows.h           what the row loops share; NV_LOOPS, the one
 *                              wrapper of every base's rows and points
 *   noise_vec_triangle_rows.h  the triangle lattice's row loops
 *   noise_vec_square_rows.h    the square lattice's row loops
 *   noise_cellular_vec.h       cellular noise
 *   noise_classic_vec.h        the seed documents' variants (classic, perlin
 *                              with angle gradients, simplex's variants)
 * and this file writes the bases' loops and this path's table, nv_bases.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_H
#define NOISE_VEC_H

#include "noise_field.h"
#include "noise_kernels.h"

#include "noise_vec_hash.h"
#include "noise_vec_tables.h"
#include "noise_vec_square.h"
#include "noise_vec_triangle.h"
#include "noise_vec_3d.h"
#include "noise_vec_improved.h"
#include "noise_vec_points.h"
#include "noise_vec_rows.h"
#include "noise_vec_triangle_rows.h"
#include "noise_vec_square_rows.h"

/* ---- the bases' loops (the functions nv_bases below points at) ---- */

/* The 2D lattices' rows by lattice (lat: NV_SQ2 or NV_TRI2, a literal):
 * a row of samples xs at y into doubles (to_float 0) or added into fbm
 * sums (2); the same in NV_LOOPS's arguments; a one-octave grid into
 * floats. */
NV_FN void nv_row2(int lat, int mode, int want_grad, int to_float, const ne_layer *L, int k, int n, const double *xs,
                   double y, double *v, ne_grad g)
{
    if (lat == NV_SQ2)
        nv_sq2_row(mode, want_grad, to_float, L, k, n, xs, y, v, g);
    else
        nv_tri2_row(mode, want_grad, to_float, L, k, n, xs, y, v, g);
}
NV_FN void nv_row2_loop(int lat, int mode, int want_grad, const ne_layer *L, int k, int n, const double *xs,
                        const double *ys, double y, double t, double *v, ne_grad g)
{
    (void)ys;
    (void)t;
    nv_row2(lat, mode, want_grad, 0, L, k, n, xs, y, v, g);
}
NV_FN void nv_rows2(int lat, int mode, int want_grad, const ne_layer *L, int n, int rows, int row0, double x0,
                    double step, double y0, float *fv, float *fg)
{
    if (lat == NV_SQ2)
        nv_sq2_rows(mode, want_grad, L, n, rows, row0, x0, step, y0, fv, fg);
    else
        nv_tri2_rows(mode, want_grad, L, n, rows, row0, x0, step, y0, fv, fg);
}

/* A 2D lattice's loops: NV_LOOPS's four, fbm octaves added into the sums
 * (ne_acc_fn) and one-octave grids into floats (ne_float_row_fn); its fbm
 * at points (name_fbm) is NV_FBM_PTS's, in noise_vec_points.h. */
#define NV_2D_LOOPS(name, LAT, MODE)                                                                      \
    NV_LOOPS(name, nv_row2_loop, nv_pts2, LAT, MODE)                                                      \
    static NV_TARGET void name##_acc(const ne_layer *L, int k, int n, const double *xs, double y,         \
                                     double *acc_v, ne_grad acc_g)                                        \
    {                                                                                                     \
        if (acc_g)                                                                                        \
            nv_row2(LAT, MODE, 1, 2, L, k, n, xs, y, acc_v, acc_g);                                       \
        else                                                                                              \
            nv_row2(LAT, MODE, 0, 2, L, k, n, xs, y, acc_v, NULL);                                        \
    }                                                                                                     \
    static NV_TARGET void name##_floatrow(const ne_layer *L, int n, int rows, int row0, double x0,        \
                                          double step, double y0, float *fv, float *fg)                   \
    {                                                                                                     \
        if (fg)                                                                                           \
            nv_rows2(LAT, MODE, 1, L, n, rows, row0, x0, step, y0, fv, fg);                               \
        else                                                                                              \
            nv_rows2(LAT, MODE, 0, L, n, rows, row0, x0, step, y0, fv, NULL);                             \
    }

/* The square lattice's fbm bands (ne_band_acc_fn) */
#define NV_SQ2_BAND(name, MODE)                                                                           \
    static NV_TARGET void name##_band(const ne_layer *L, int k, int c0, int m, int rows, int row0,        \
                                      double x0, double step, double y0, ne_band_row *acc, int want_grad) \
    {                                                                                                     \
        if (want_grad)                                                                                    \
            nv_sq2_band(MODE, 1, L, k, c0, m, rows, row0, x0, step, y0, acc);                             \
        else                                                                                              \
            nv_sq2_band(MODE, 0, L, k, c0, m, rows, row0, x0, step, y0, acc);                             \
    }

NV_LOOPS(nv_value_sq3, nv_pts3, nv_pts3, NV_SQ2, NK_MODE_VALUE)
NV_LOOPS(nv_perlin_sq3, nv_pts3, nv_pts3, NV_SQ2, NK_MODE_PERLIN)
NV_LOOPS(nv_value_tet3, nv_pts3, nv_pts3, NV_TRI2, NK_MODE_VALUE)
NV_LOOPS(nv_perlin_tet3, nv_pts3, nv_pts3, NV_TRI2, NK_MODE_PERLIN)
NV_LOOPS(nv_simplex_tet3, nv_pts3, nv_pts3, NV_TRI2, NK_MODE_SIMPLEX)
NV_LOOPS(nv_improved2, nv_improved_pts, nv_improved_pts, 0)
NV_LOOPS(nv_improved3, nv_improved_pts, nv_improved_pts, 1)
NV_2D_LOOPS(nv_value_sq2, NV_SQ2, NK_MODE_VALUE)
NV_2D_LOOPS(nv_perlin_sq2, NV_SQ2, NK_MODE_PERLIN)
NV_SQ2_BAND(nv_value_sq2, NK_MODE_VALUE)
NV_SQ2_BAND(nv_perlin_sq2, NK_MODE_PERLIN)
NV_2D_LOOPS(nv_value_tri2, NV_TRI2, NK_MODE_VALUE)
NV_2D_LOOPS(nv_perlin_tri2, NV_TRI2, NK_MODE_PERLIN)
NV_2D_LOOPS(nv_simplex_tri2, NV_TRI2, NK_MODE_SIMPLEX)

#include "noise_cellular_vec.h"

#include "noise_classic_vec.h"

/* The entries of nv_bases (ne_base, noise_field.h); a field not named is
 * NULL or 0: the scalar loop's. NV_BASE: NV_LOOPS's four loops alone. */
#define NV_BASE(name) { NV_LOOPS_FIELDS(name) }
/* a 2D lattice's (NV_2D_LOOPS and NV_FBM_PTS); wraps: 1 if its loops take
 * periodic layers (the square lattice's wrap its indices) */
#define NV_2D_BASE(name, WRAPS)                                                                           \
    { NV_LOOPS_FIELDS(name), .row_acc = name##_acc, .acc_values = 1, .float_row = name##_floatrow,        \
      .fbm_pts = name##_fbm, .wraps = WRAPS }
/* the square lattice's: also its fbm bands */
#define NV_SQ2_BASE(name)                                                                                 \
    { NV_LOOPS_FIELDS(name), .row_acc = name##_acc, .acc_values = 1, .float_row = name##_floatrow,        \
      .band_acc = name##_band, .fbm_pts = name##_fbm, .wraps = 1 }
/* improved noise's 2D slice: the four loops and fbm at points */
#define NV_IMP2_BASE(name) { NV_LOOPS_FIELDS(name), .fbm_pts = name##_fbm }

/* This path's loops; NV_NONE entries keep the scalar ones. */
static const ne_base_table nv_bases = {
    [NOISE_VALUE] = {
        [NOISE_SQUARE] = { NV_SQ2_BASE(nv_value_sq2), NV_BASE(nv_value_sq3) },
        [NOISE_TRIANGLE] = { NV_2D_BASE(nv_value_tri2, 0), NV_BASE(nv_value_tet3) },
    },
    [NOISE_PERLIN] = {
        [NOISE_SQUARE] = { NV_SQ2_BASE(nv_perlin_sq2), NV_BASE(nv_perlin_sq3) },
        [NOISE_TRIANGLE] = { NV_2D_BASE(nv_perlin_tri2, 0), NV_BASE(nv_perlin_tet3) },
        /* the GLSL variants: 2D only (with t the scalar loops) */
        [NE_PERLIN_ANGLE_SQUARE] = { NV_BASE(nv_perlin_angle2) },
        [NE_PERLIN_ANGLE_TRIANGLE] = { NV_BASE(nv_simplex_ac2) },
    },
    [NOISE_SIMPLEX] = {
        [NE_SIMPLEX_TABLE_CLASSIC] = { NV_2D_BASE(nv_simplex_tri2, 0), NV_BASE(nv_simplex_tet3) },
        [NE_SIMPLEX_ANGLE_CLASSIC] = { NV_BASE(nv_simplex_ac2) },
        [NE_SIMPLEX_TABLE_QUARTIC] = { NV_BASE(nv_simplex_tq2) },
        [NE_SIMPLEX_ANGLE_QUARTIC] = { NV_BASE(nv_simplex_aq2) },
    },
    [NOISE_IMPROVED] = {
        [NOISE_SQUARE] = { NV_IMP2_BASE(nv_improved2), NV_BASE(nv_improved3) },
        [NOISE_TRIANGLE] = { NV_IMP2_BASE(nv_improved2), NV_BASE(nv_improved3) },
    },
    [NOISE_CELLULAR] = {
        [NOISE_SQUARE] = { NV_CELL_BASE2, NV_CELL_BASE3 },
        [NOISE_TRIANGLE] = { NV_CELL_BASE2, NV_CELL_BASE3 },
    },
    /* classic: 2D only (with t the scalar loops) */
    [NOISE_CLASSIC] = {
        [NOISE_FADE_LINEAR] = { NV_BASE(nv_classic_l2) },
        [NOISE_FADE_CUBIC] = { NV_BASE(nv_classic_c2) },
        [NOISE_FADE_QUINTIC] = { NV_BASE(nv_classic_q2) },
    },
};

#endif

