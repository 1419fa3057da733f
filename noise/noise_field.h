/* noise_field.h: internal to noise/: a prepared field's layers, the
 * per-kind base-noise loops they call, and each instruction-set path's table
 * of those loops (scalar reference in noise_eval.c, vector twins in
 * noise_avx2.c and noise_avx512.c, picked in noise_simd.c).
 *
 * The core's internal names: the prefix says where a name lives (upper
 * case: its macros and constants), so a name found anywhere in noise/ can
 * be traced to its file. docs/noise-internals.md maps the files.
 *   noise_ NOISE_  the public API (noise.h)
 *   ne_ NE_        evaluating a field: layers, octaves, warp, the tables of
 *                  per-kind loops (this file, noise_eval.c, noise_spec.c)
 *   nl_ NL_        the lattice: SmallXXHash, 64-bit cell indices, fade,
 *                  the corner tables (noise_lattice.h)
 *   nk_ NK_        the scalar kernels, one point at a time (noise_kernels.h)
 *   nc_ NC_        cellular noise (noise_cellular.h; NC_CHUNK and NC_COLS:
 *                  noise_cellular_vec.h)
 *   nv_ NV_        the vector kernels and loops, one source for both vector
 *                  paths (noise_vec.h and the noise_vec_*.h it includes,
 *                  noise_cellular_vec.h, noise_classic_vec.h); nv2_: the
 *                  same on twice the hash lanes
 *   vd_ vi_ vi2_ vm_  the vector layer they are written against: lanes of
 *                  doubles, 32-bit ints and masks, each path's own
 *                  (noise_avx2.c, noise_avx512.c, noise_vec_i256.h)
 *   ns_            which instruction-set path runs (noise_simd.c)
 */
#ifndef NOISE_FIELD_H
#define NOISE_FIELD_H

#include "noise.h"

#define NE_MAX_OCTAVES 16
#define NE_CHUNK 256
/* An improved-noise permutation: 256 entries twice, then zero padding so a
 * vector path may read 4 bytes at any entry. */
#define NE_PERM_SIZE 528

typedef struct ne_layer ne_layer;

/* A cellular layer's parameters (noise_cellular.h, set by nc_setup). */
typedef struct {
    int distance;   /* noise_cell_distance */
    int ret;        /* noise_cell_return */
    int need2;      /* f2 or f2-f1: the two nearest points are needed */
    double jitter;  /* [0, 1] */
    double lo, hi;  /* every feature point's offset in its cell lies in [lo, hi] on each axis */
    double scale;   /* 2 / bound: value = F * scale - 1 */
} ne_cell;

/* Base noise of octave k of a layer at n points (plane coordinates xs, and
 * ys[i] or the row's y; t): noise value v[i] and noise-space gradient
 * g[0][i], g[1][i] (and g[2][i] in 3D); the _v variants leave g alone. */
typedef double ne_grad[3][NE_CHUNK];
typedef void (*ne_row_fn)(const ne_layer *L, int k, int n, const double *xs, double y, double t,
                          double *v, ne_grad g);
typedef void (*ne_pts_fn)(const ne_layer *L, int k, int n, const double *xs, const double *ys, double t,
                          double *v, ne_grad g);

/* fbm octave k of a row added straight into the sums: acc_v[i] +=
 * amp * v, acc_g[c][i] += amp * freq * g (acc_g NULL: values only). */
typedef void (*ne_acc_fn)(const ne_layer *L, int k, int n, const double *xs, double y, double *acc_v,
                          ne_grad acc_g);

/* A one-octave fbm grid straight into the caller's floats: rows r < rows
 * at y0 + (row0 + r) * step (rows row0 .. of the grid at y0), sample i of
 * a row at x0 + i * step, row r at fv + r * n (and fg + 2 * r * n); fg
 * NULL: values only. A loop may share what is the same on every row (x)
 * across the rows. */
typedef void (*ne_float_row_fn)(const ne_layer *L, int n, int rows, int row0, double x0, double step, double y0,
                                float *fv, float *fg);

/* A band of rows' fbm sums at one chunk of columns (ne_grid's): a row's
 * values v[i] and gradient sums g[c][i] (2D: two components, passed where
 * an ne_grad goes: the 2D loops touch g[0] and g[1] only) for its samples
 * i < NE_CHUNK. */
typedef struct {
    double v[NE_CHUNK];
    double g[2][NE_CHUNK];
} ne_band_row;

/* fbm octave k of a 2D grid's band of rows r < rows (at y0 + (row0 + r) *
 * step) at samples c0 .. c0 + m - 1 (m <= NE_CHUNK) of a row (at x0 + i *
 * step), added into acc[r].v[i - c0] (amp * v) and acc[r].g[c][i - c0]
 * (amp * freq * g; want_grad 0: values only): the same numbers as
 * ne_acc_fn at each row's samples, with what depends on x alone computed
 * once for the band. */
typedef void (*ne_band_acc_fn)(const ne_layer *L, int k, int c0, int m, int rows, int row0, double x0, double step,
                               double y0, ne_band_row *acc, int want_grad);

/* A 2D fbm layer (any number of octaves) at n points given as (x, y)
 * pairs, finished as ne_layer_eval finishes it (sum / amp_sum, clamped to
 * [-1, 1]; one octave: the base field clamped), gradients as (d/dx, d/dy)
 * pairs; out_g NULL: values only. The same numbers as the per-octave
 * loops, without their passes over the chunk. */
typedef void (*ne_fbm_pts_fn)(const ne_layer *L, size_t n, const double *pts, double *out_v, double *out_g);

/* A path's loops for one base noise; a vector path leaves NULL what it does
 * not speed up, and the scalar loop is used there. */
typedef struct {
    ne_row_fn row_v, row_g;
    ne_pts_fn pts_v, pts_g;
    ne_acc_fn row_acc;         /* NULL: the generic fbm step */
    int acc_values;            /* 1: row_acc also for fbm values alone */
    ne_float_row_fn float_row; /* NULL: through doubles */
    ne_band_acc_fn band_acc;   /* NULL: fbm grids row by row */
    ne_fbm_pts_fn fbm_pts;     /* NULL: the chunked per-octave loops */
    int wraps;                 /* vector loops: 1 if they take periodic layers (L->period) */
} ne_base;

/* [kind][variant][d3]. The variant is the lattice for value (NOISE_SQUARE,
 * NOISE_TRIANGLE), the lattice + 2 (gradients=angle) for perlin, the
 * gradients + 2 (falloff=quartic) for simplex, the fade for classic
 * (noise_fade); see ne_variant() in noise_eval.c. */
#define NE_VARIANTS 4
enum { NE_PERLIN_ANGLE_SQUARE = 2, NE_PERLIN_ANGLE_TRIANGLE = 3 };
enum { NE_SIMPLEX_TABLE_CLASSIC = 0, NE_SIMPLEX_ANGLE_CLASSIC, NE_SIMPLEX_TABLE_QUARTIC, NE_SIMPLEX_ANGLE_QUARTIC };
typedef ne_base ne_base_table[NOISE_KIND_COUNT][NE_VARIANTS][2];

struct ne_layer {
    ne_base base;
    int d3;
    noise_fractal fractal;
    int n_oct;
    uint32_t seed[NE_MAX_OCTAVES];
    double freq[NE_MAX_OCTAVES];
    double amp[NE_MAX_OCTAVES];
    double amp_freq[NE_MAX_OCTAVES];
    double amp_sum;
    const unsigned char *perm[NE_MAX_OCTAVES]; /* improved only */
    uint32_t period[NE_MAX_OCTAVES]; /* cells per period of octave k; 0: not periodic */
    ne_cell cell;                              /* cellular only */
};

/* Periods (noise_spec.c). 1 if the spec asks for a period its kind and
 * lattice take. */
int ne_spec_periodic(const noise_spec *spec);
/* period * freq when it is a whole number of cells in 1..NOISE_PERIOD_MAX_CELLS
 * (up to the rounding of the product: 1e-12 relative), else 0; *cells (if
 * not NULL) receives the product. An octave's freq is the layer's: frequency
 * times lacunarity k times, in that order. */
uint32_t ne_period_cells(double period, double freq, double *cells);

/* The layers of one evaluation shape (2D or 3D). */
typedef struct {
    ne_layer layer[3];
    int n_layers; /* 1, or 3 with warp */
    int d3;
    double t;
    double warp;
} ne_field;

/* The public prepared field: the 2D shape (3D when the spec has t), the 3D
 * shape for points with their own t, and the permutations both point at. */
struct noise_field {
    noise_spec spec;
    ne_field planar;
    ne_field solid;
    unsigned char perm[3][NE_MAX_OCTAVES][NE_PERM_SIZE];
};

/* A prepared field at n <= NE_CHUNK samples in doubles, for the graph
 * evaluator (graph_eval.c): ts NULL: the field's own shape (2D, or 3D at
 * the spec's t when it has one), the samples at (xs[i], ys[i]) or, with ys
 * NULL, a row at (xs[i], row_y); ts not NULL: the 3D field at (xs[i], ys[i],
 * ts[i]) (ys required), as noise_field_points does with 3D points. Values
 * into out_v; out_g NULL or the plane-unit gradient (3 components when
 * the shape is 3D). The same numbers, bit for bit, as noise_field_points
 * (and, for rows, noise_field_grid_rows before rounding) at the same
 * coordinates. */
void ne_field_chunk(const noise_field *field, int n, const double *xs, const double *ys, double row_y,
                    const double *ts, double *out_v, ne_grad out_g);

/* Each path's table; NULL where the build has no such path. */
extern const ne_base_table ne_bases_scalar;
extern const ne_base_table *const ne_bases_avx2;
extern const ne_base_table *const ne_bases_avx512;

/* The active path's table (noise_simd.c). */
const ne_base_table *ne_active_bases(void);

#endif
