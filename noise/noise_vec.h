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

#define NV_SQ2_LOOPS(name, MODE)                                                                          \
    static NV_TARGET void name##_row_v(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        (void)t;                                                                                          \
        nv_sq2_row(MODE, 0, 0, L, k, n, xs, y, v, g);                                                     \
    }                                                                                                     \
    static NV_TARGET void name##_row_g(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        (void)t;                                                                                          \
        nv_sq2_row(MODE, 1, 0, L, k, n, xs, y, v, g);                                                     \
    }                                                                                                     \
    static NV_TARGET void name##_pts_v(const ne_layer *L, int k, int n, const double *xs, const double *ys, \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        (void)t;                                                                                          \
        nv_pts2(NV_SQ2, MODE, 0, L, k, n, xs, ys, 0, v, g);                                               \
    }                                                                                                     \
    static NV_TARGET void name##_pts_g(const ne_layer *L, int k, int n, const double *xs, const double *ys, \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        (void)t;                                                                                          \
        nv_pts2(NV_SQ2, MODE, 1, L, k, n, xs, ys, 0, v, g);                                               \
    }                                                                                                     \
    static NV_TARGET void name##_acc(const ne_layer *L, int k, int n, const double *xs, double y,         \
                                     double *acc_v, ne_grad acc_g)                                        \
    {                                                                                                     \
        if (acc_g)                                                                                        \
            nv_sq2_row(MODE, 1, 2, L, k, n, xs, y, acc_v, acc_g);                                         \
        else                                                                                              \
            nv_sq2_row(MODE, 0, 2, L, k, n, xs, y, acc_v, NULL);                                           \
    }                                                                                                     \
    static NV_TARGET void name##_floatrow(const ne_layer *L, int n, int rows, int row0, double x0,        \
                                          double step, double y0, float *fv, float *fg)                   \
    {                                                                                                     \
        if (fg)                                                                                           \
            nv_sq2_rows(MODE, 1, L, n, rows, row0, x0, step, y0, fv, fg);                                 \
        else                                                                                              \
            nv_sq2_rows(MODE, 0, L, n, rows, row0, x0, step, y0, fv, NULL);                               \
    }

#define NV_TRI2_LOOPS(name, MODE)                                                                         \
    static NV_TARGET void name##_row_v(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        (void)t;                                                                                          \
        nv_tri2_row(MODE, 0, 0, L, k, n, xs, y, v, g);                                                     \
    }                                                                                                     \
    static NV_TARGET void name##_row_g(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        (void)t;                                                                                          \
        nv_tri2_row(MODE, 1, 0, L, k, n, xs, y, v, g);                                                     \
    }                                                                                                     \
    static NV_TARGET void name##_pts_v(const ne_layer *L, int k, int n, const double *xs, const double *ys, \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        (void)t;                                                                                          \
        nv_pts2(NV_TRI2, MODE, 0, L, k, n, xs, ys, 0, v, g);                                              \
    }                                                                                                     \
    static NV_TARGET void name##_pts_g(const ne_layer *L, int k, int n, const double *xs, const double *ys, \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        (void)t;                                                                                          \
        nv_pts2(NV_TRI2, MODE, 1, L, k, n, xs, ys, 0, v, g);                                              \
    }                                                                                                     \
    static NV_TARGET void name##_acc(const ne_layer *L, int k, int n, const double *xs, double y,         \
                                     double *acc_v, ne_grad acc_g)                                        \
    {                                                                                                     \
        if (acc_g)                                                                                        \
            nv_tri2_row(MODE, 1, 2, L, k, n, xs, y, acc_v, acc_g);                                         \
        else                                                                                              \
            nv_tri2_row(MODE, 0, 2, L, k, n, xs, y, acc_v, NULL);                                           \
    }                                                                                                     \
    static NV_TARGET void name##_floatrow(const ne_layer *L, int n, int rows, int row0, double x0,        \
                                          double step, double y0, float *fv, float *fg)                   \
    {                                                                                                     \
        if (fg)                                                                                           \
            nv_tri2_rows(MODE, 1, L, n, rows, row0, x0, step, y0, fv, fg);                                \
        else                                                                                              \
            nv_tri2_rows(MODE, 0, L, n, rows, row0, x0, step, y0, fv, NULL);                            \
    }

#define NV_3D_LOOPS(name, LAT, MODE)                                                                          \
    static NV_TARGET void name##_row_v(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        nv_pts3(LAT, MODE, 0, L, k, n, xs, NULL, y, t, v, g);                                          \
    }                                                                                                     \
    static NV_TARGET void name##_row_g(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        nv_pts3(LAT, MODE, 1, L, k, n, xs, NULL, y, t, v, g);                                          \
    }                                                                                                     \
    static NV_TARGET void name##_pts_v(const ne_layer *L, int k, int n, const double *xs, const double *ys, \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        nv_pts3(LAT, MODE, 0, L, k, n, xs, ys, 0, t, v, g);                                          \
    }                                                                                                     \
    static NV_TARGET void name##_pts_g(const ne_layer *L, int k, int n, const double *xs, const double *ys, \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        nv_pts3(LAT, MODE, 1, L, k, n, xs, ys, 0, t, v, g);                                          \
    }
NV_3D_LOOPS(nv_value_sq3, NV_SQ2, NK_MODE_VALUE)
NV_3D_LOOPS(nv_perlin_sq3, NV_SQ2, NK_MODE_PERLIN)
NV_3D_LOOPS(nv_value_tet3, NV_TRI2, NK_MODE_VALUE)
NV_3D_LOOPS(nv_perlin_tet3, NV_TRI2, NK_MODE_PERLIN)
NV_3D_LOOPS(nv_simplex_tet3, NV_TRI2, NK_MODE_SIMPLEX)
#define NV_IMPROVED_LOOPS(name, D3)                                                                       \
    static NV_TARGET void name##_row_v(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        nv_improved_pts(D3, 0, L, k, n, xs, NULL, y, t, v, g);                                            \
    }                                                                                                     \
    static NV_TARGET void name##_row_g(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        nv_improved_pts(D3, 1, L, k, n, xs, NULL, y, t, v, g);                                            \
    }                                                                                                     \
    static NV_TARGET void name##_pts_v(const ne_layer *L, int k, int n, const double *xs, const double *ys, \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        nv_improved_pts(D3, 0, L, k, n, xs, ys, 0, t, v, g);                                              \
    }                                                                                                     \
    static NV_TARGET void name##_pts_g(const ne_layer *L, int k, int n, const double *xs, const double *ys, \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        nv_improved_pts(D3, 1, L, k, n, xs, ys, 0, t, v, g);                                              \
    }
NV_IMPROVED_LOOPS(nv_improved2, 0)
NV_IMPROVED_LOOPS(nv_improved3, 1)
NV_SQ2_LOOPS(nv_value_sq2, NK_MODE_VALUE)
NV_SQ2_LOOPS(nv_perlin_sq2, NK_MODE_PERLIN)
NV_TRI2_LOOPS(nv_value_tri2, NK_MODE_VALUE)
NV_TRI2_LOOPS(nv_perlin_tri2, NK_MODE_PERLIN)
NV_TRI2_LOOPS(nv_simplex_tri2, NK_MODE_SIMPLEX)

#include "noise_cellular_vec.h"

/* the square lattice's loops wrap periodic layers' indices (wraps 1) */
#define NV_SQ2_BASE(name) { name##_row_v, name##_row_g, name##_pts_v, name##_pts_g, name##_acc, 1, name##_floatrow, name##_fbm, 1 }
#define NV_TRI2_BASE(name) { name##_row_v, name##_row_g, name##_pts_v, name##_pts_g, name##_acc, 1, name##_floatrow, name##_fbm }
#define NV_3D_BASE(name) { name##_row_v, name##_row_g, name##_pts_v, name##_pts_g, NULL, 0, NULL }
/* improved noise's 2D slice: the 3D loops and fbm at points */
#define NV_IMP2_BASE(name) { name##_row_v, name##_row_g, name##_pts_v, name##_pts_g, NULL, 0, NULL, name##_fbm }

#include "noise_classic_vec.h"

/* This path's loops; NV_NONE entries keep the scalar ones. */
static const ne_base_table nv_bases = {
    [NOISE_VALUE] = {
        [NOISE_SQUARE] = { NV_SQ2_BASE(nv_value_sq2), NV_3D_BASE(nv_value_sq3) },
        [NOISE_TRIANGLE] = { NV_TRI2_BASE(nv_value_tri2), NV_3D_BASE(nv_value_tet3) },
    },
    [NOISE_PERLIN] = {
        [NOISE_SQUARE] = { NV_SQ2_BASE(nv_perlin_sq2), NV_3D_BASE(nv_perlin_sq3) },
        [NOISE_TRIANGLE] = { NV_TRI2_BASE(nv_perlin_tri2), NV_3D_BASE(nv_perlin_tet3) },
        /* the GLSL variants: 2D only (with t the scalar loops) */
        [NE_PERLIN_ANGLE_SQUARE] = { NV_3D_BASE(nv_perlin_angle2) },
        [NE_PERLIN_ANGLE_TRIANGLE] = { NV_3D_BASE(nv_simplex_ac2) },
    },
    [NOISE_SIMPLEX] = {
        [NE_SIMPLEX_TABLE_CLASSIC] = { NV_TRI2_BASE(nv_simplex_tri2), NV_3D_BASE(nv_simplex_tet3) },
        [NE_SIMPLEX_ANGLE_CLASSIC] = { NV_3D_BASE(nv_simplex_ac2) },
        [NE_SIMPLEX_TABLE_QUARTIC] = { NV_3D_BASE(nv_simplex_tq2) },
        [NE_SIMPLEX_ANGLE_QUARTIC] = { NV_3D_BASE(nv_simplex_aq2) },
    },
    [NOISE_IMPROVED] = {
        [NOISE_SQUARE] = { NV_IMP2_BASE(nv_improved2), NV_3D_BASE(nv_improved3) },
        [NOISE_TRIANGLE] = { NV_IMP2_BASE(nv_improved2), NV_3D_BASE(nv_improved3) },
    },
    [NOISE_CELLULAR] = {
        [NOISE_SQUARE] = { NV_CELL_BASE2, NV_CELL_BASE3 },
        [NOISE_TRIANGLE] = { NV_CELL_BASE2, NV_CELL_BASE3 },
    },
    /* classic: 2D only (with t the scalar loops) */
    [NOISE_CLASSIC] = {
        [NOISE_FADE_LINEAR] = { NV_3D_BASE(nv_classic_l2) },
        [NOISE_FADE_CUBIC] = { NV_3D_BASE(nv_classic_c2) },
        [NOISE_FADE_QUINTIC] = { NV_3D_BASE(nv_classic_q2) },
    },
};

#endif

