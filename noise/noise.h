/* noise.h: the public interface of the noise core (value, Perlin, simplex,
 * improved and cellular noise; fractals, warp; exact analytic gradients).
 *
 * The core uses libc and libm only. It does no I/O and allocates only in
 * noise_field_create() (noise_field_init() takes the caller's memory); apart from the chosen instruction-set path (set
 * once, atomically) it keeps no global mutable state, so any number of
 * threads may evaluate fields at once.
 *
 * Coordinates are plane coordinates (doubles). A field is a noise_spec: kind,
 * seed and parameters. Its value lies in [-1, 1]; its gradient is in plane
 * units (d value / d plane coordinate), so frequency, warp and octaves are
 * all accounted for by the chain rule.
 *
 * Definitions (docs/field.md gives the formulas):
 * - frequency multiplies all coordinates, t included (t is a plane-unit
 *   coordinate like x and y), before sampling; gradients scale with it.
 * - Octave k samples lacunarity^k * frequency * p with amplitude gain^k;
 *   octave 0 uses the seed, octave k >= 1 the seed hash(seed, k)
 *   (SmallXXHash), so one octave is exactly the base field.
 * - fbm: sum / sum of amplitudes. turbulence: 2 * sum|n| / sum - 1.
 *   ridged (Musgrave): signal_k = (1 - |n_k|)^2 * w_k, w_0 = 1,
 *   w_k+1 = clamp(2 signal_k, 0, 1); 2 * sum / sum of amplitudes - 1.
 *   The gradient is exact, through |n| (sign of n; n = 0 counts as
 *   positive) and through the weight (0 where the clamp holds).
 * - warp: p' = p + warp * (w1(p), w2(p)) (x and y only), w1 and w2 the same
 *   field (all parameters) with seeds hash(seed, 0xF2A20002) and
 *   hash(seed, 0xF2A30003); gradient = J^T grad(p'), J the warp's Jacobian.
 * - improved noise is Ken Perlin's 2002 reference bit for bit at seed 0
 *   (frequency 1, one octave: noise(3.14, 42, 7) = 0.13691995878400012);
 *   other seeds shuffle the permutation (Fisher-Yates on hash(seed, i)).
 *   Like the reference it repeats every 256 cells along x and y (and t),
 *   with or without t: the only kind that repeats without a period.
 *   Without t it is the z = 0 slice.
 * - cellular (Worley) noise: each cell (a, b[, c]) of the square lattice
 *   holds one feature point at (a, b[, c]) + o, every offset o = 0.5 +
 *   jitter * (r - 0.5), r in [0, 1) from 16 bits of the cell's SmallXXHash
 *   (jitter 0: the cell centres, 1: anywhere in the cell). F1 and F2 are the
 *   distances (distance=euclidean, manhattan or chebyshev) from p to the
 *   nearest and second-nearest feature point over ALL cells (an exact
 *   search, not a fixed 3 x 3 neighbourhood); at equal distances the lower
 *   cell (t, then y, then x) counts as nearer. return=f1, f2 or f2-f1 maps
 *   the distance F to 2 F / B - 1 with B the bound of that distance for the
 *   jitter (h = (1 + jitter) / 2; f1: h sqrt 2, 2h, h in 2D and h sqrt 3,
 *   3h, h in 3D for euclidean, manhattan, chebyshev; f2 and f2-f1:
 *   sqrt(2h^2 + 1/2), 2h, h + 1/2 in 2D and sqrt(3h^2 + max(0, 3/4 - h)),
 *   3h, h + 1/2 in 3D), so -1 is a feature point (f1) or a cell border
 *   (f2-f1); return=cell gives the nearest point's cell value in [-1, 1].
 *   The gradient is the exact derivative of that distance to the winning
 *   point(s): euclidean -(q - p) / F, manhattan -sign(q - p) per axis,
 *   chebyshev -sign on the axis of the largest |q - p| (x, then y, then z
 *   on ties); sign(0) counts as +1, and on a feature point itself (F = 0)
 *   the euclidean gradient is 0. Where two points are equally near (cell
 *   borders, where f1 and f2 have creases and cell jumps) the gradient is
 *   that of the point counted nearer, i.e. of one side; cell's gradient is
 *   0. `lattice` does not apply (square only). docs/field.md gives the
 *   formulas.
 * - classic is the C perlin(x, y) of Wikipedia's "Perlin noise" article
 *   (docs/field.md): its hash, its gradient at a float angle (cos, sin
 *   rounded to float), its interpolation (fade: linear as the code, cubic or
 *   quintic as its comments). Seed 0 is the article's function: the same
 *   gradients bit for bit, the rest in double where the article uses float,
 *   so the values differ from the article's by at most 2e-6 (measured
 *   1.3e-7 at 10,000 points per fade, tests/unit/test_noise_classic.c);
 *   other seeds XOR avalanche(seed) into the hash (after b's multiply).
 *   It is 0 at every node, exactly. It is 2D: it takes no t (with t, or at
 *   3D points, it is the same field, d/dt = 0). With the linear fade the
 *   gradient is that of the cell holding the point (floor of each
 *   coordinate): the field has a kink on cell borders.
 * - gradients=angle (perlin, simplex) and falloff=quartic (simplex) are the
 *   gradient/simplex article's GLSL functions with SmallXXHash for hash21
 *   (docs/field.md): unit gradients at the angle h * 2 pi / 2^32, and the
 *   kernel max(0.5 - r^2, 0)^4 scaled by 99. perlin&gradients=angle is its
 *   gradientNoise(p), unscaled (about +-0.7); simplex&gradients=angle&
 *   falloff=quartic is its simplexNoise(p / sqrt(3)) (noisetile's simplex
 *   lattice), whose 99 never overshoots (bound 0.9979, below); both within
 *   1e-12 of a transcription (tests/unit/test_noise_glsl.c). simplex with
 *   angle gradients keeps its classic kernel and scale; perlin on the
 *   triangle lattice with angle gradients is that same field. These are 2D
 *   like classic (no t; at 3D points d/dt = 0).
 * - Sines and cosines of hashed angles come from one function for every
 *   path (nl_sincos in noise_lattice.h), within 4.5e-16 of glibc's (measured 2.2e-16).
 * - Periodic fields (period > 0; value, perlin and improved on the square
 *   lattice, cellular and classic): f(x + period, y) = f(x, y + period) = f(x, y), values and
 *   gradients (t stays free). Octave k has period * frequency * lacunarity^k
 *   cells per period, which must be a whole number in 1..2^30 (the parser
 *   refuses the rest; a trusted caller's octave that is not whole is left
 *   unperiodic); its lattice indices are taken modulo that number before
 *   hashing (improved: before the permutation, so improved with period 256
 *   at frequency 1 is the plain field; cellular: each cell it looks at),
 *   fractions, positions and gradients unchanged.
 *   The warp fields share the period, so a warped field repeats too. The
 *   shift is exact where (x + period) * frequency * lacunarity^k is exact
 *   (dyadic coordinates and frequencies): there the values and gradients
 *   repeat bit for bit. simplex and lattice=triangle have no square period
 *   (sqrt 3 is irrational) and refuse it.
 * - Lattice indices are 64-bit; without a period the other kinds never
 *   repeat (checked for periods 2^16, 2^23, 2^32) and stay smooth at 1e9
 *   cells. At 1e12 cells a double resolves 2^-12 of a cell, and the
 *   triangle lattice's position scaling rounds to about that.
 *
 * Measured ranges, one octave (noise_eval_points, 16 seeds x 2^20 random
 * points in [-1e4, 1e4]^2 per row; fractal modes and warp stay inside
 * [-1, 1] by construction since every base field does; the rounding of
 * the interpolation can land a few ulps beyond +-1 next to a lattice value
 * of +-1, so a field's value is finally clamped to [-1, 1]):
 *
 *   kind              2D                  3D (with t)     bound (worst case)
 *   value             -1.0000..1.0000     -1.0000..1.0000   1 (on lattice points)
 *   value/triangle    -0.9999..0.9999     -0.9988..0.9975   1 (on lattice points)
 *   perlin            -0.9879..0.9820     -0.8582..0.8576   1 (2/0.53528, 1/0.56290)
 *   perlin/triangle   -0.9951..0.9964     -0.9405..0.9164   1 (scales 1/0.11685, 1/0.20346)
 *   simplex           -0.9976..0.9982     -0.9841..0.9876   1 (5.832/sqrt 2, 1024/(125 sqrt 3))
 *   improved          -0.9985..0.9995     -0.9980..0.9973   1 in 2D; 1.0363 in 3D, clamped
 *   classic           -0.7028..0.6978     (2D only)         0.7071 (sqrt(2)/2: the article's scale)
 *   classic/cubic     -0.7014..0.6971     (2D only)         0.7071
 *   classic/quintic   -0.7003..0.6971     (2D only)         0.7071
 *   perlin/angle      -0.6978..0.7034     (2D only)         0.7071 (sqrt(2)/2: the GLSL article's scale)
 *   simplex/angle     -0.9989..0.9972     (2D only)         1 (5.832/sqrt 2 holds for any unit gradients)
 *   simplex/quartic   -0.9978..0.9978     (2D only)         0.9979 (the article's 99; no clamp needed)
 *   simplex/angle/quartic -0.9979..0.9979 (2D only)         0.9979
 *   (/angle: gradients=angle; /quartic: falloff=quartic; perlin on the
 *   triangle lattice with gradients=angle is simplex/angle)
 *
 *
 * cellular, jitter 1 (tests/unit/test_noise_cellular.c: 100,000 random points
 * per row, most within 60 cells of the origin, a tenth beyond 1e6 cells;
 * the bounds of the mapping are worst cases, so the upper ends stay well
 * below 1; -1 is a feature point (f1) or a cell border (f2-f1)):
 *
 *   return  distance     2D                  3D (with t)
 *   f1      euclidean    -0.9991..0.5796     -0.9896..0.2910
 *   f1      manhattan    -0.9989..0.4899     -0.9908..0.1393
 *   f1      chebyshev    -0.9968..0.9547     -0.9863..0.7987
 *   f2      euclidean    -0.9580..0.8358     -0.8338..0.4697
 *   f2      manhattan    -0.9480..0.6918     -0.8710..0.1992
 *   f2      chebyshev    -0.9524..0.6723     -0.8912..0.4343
 *   f2-f1   euclidean    -1.0000..0.7280     -1.0000..0.1870
 *   f2-f1   manhattan    -1.0000..0.4379     -1.0000..-0.0218
 *   f2-f1   chebyshev    -1.0000..0.4349     -1.0000..0.1909
 *   cell    (any)        -0.9999..0.9999     -1.0000..1.0000
 *
 * The "bound" is the largest value any choice of corner gradients could
 * give (found by a dense search over a cell); each kind is scaled so it is
 * 1, but classic, which keeps the article's scale (unit gradients: at most
 * sqrt(2)/2, at a cell's centre). Improved noise cannot be scaled (bit-exactness), so in 3D its rare
 * excess over 1 (never seen in the samples above) is clamped to +-1.
 *
 * Evaluation uses about 100 KB of the caller's stack.
 */
#ifndef NOISE_H
#define NOISE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    NOISE_VALUE = 0,   /* lattice value noise, quintic fade */
    NOISE_PERLIN,      /* gradient noise, Islands / Catlike gradients */
    NOISE_SIMPLEX,     /* Catlike Coding's Simplex2D/3D, normalised gradients */
    NOISE_IMPROVED,    /* Ken Perlin's 2002 Improved Noise */
    NOISE_CELLULAR,    /* Worley noise: distances to jittered feature points */
    NOISE_CLASSIC,     /* the C perlin(x, y) of Wikipedia's "Perlin noise" article (2D) */
    NOISE_KIND_COUNT
} noise_kind;

typedef enum { NOISE_FBM = 0, NOISE_TURBULENCE, NOISE_RIDGED, NOISE_FRACTAL_COUNT } noise_fractal;
typedef enum { NOISE_SQUARE = 0, NOISE_TRIANGLE, NOISE_LATTICE_COUNT } noise_lattice;
/* cellular only: the distance, and what the field returns (see above) */
typedef enum { NOISE_EUCLIDEAN = 0, NOISE_MANHATTAN, NOISE_CHEBYSHEV, NOISE_DISTANCE_COUNT } noise_cell_distance;
typedef enum { NOISE_F1 = 0, NOISE_F2, NOISE_F2_F1, NOISE_CELL, NOISE_RETURN_COUNT } noise_cell_return;
/* classic's interpolation: the article's code (linear) and its comments */
typedef enum { NOISE_FADE_LINEAR = 0, NOISE_FADE_CUBIC, NOISE_FADE_QUINTIC, NOISE_FADE_COUNT } noise_fade;
/* perlin's and simplex's gradients: their tables, or the GLSL article's
 * unit vector at a hashed angle */
typedef enum { NOISE_GRADIENTS_TABLE = 0, NOISE_GRADIENTS_ANGLE, NOISE_GRADIENTS_COUNT } noise_gradients;
/* simplex's kernel: 8 max(0.5 - r^2, 0)^3 (classic) or the GLSL article's
 * max(0.5 - r^2, 0)^4 scaled by 99 (quartic) */
typedef enum { NOISE_FALLOFF_CLASSIC = 0, NOISE_FALLOFF_QUARTIC, NOISE_FALLOFF_COUNT } noise_falloff;

/* A field. Build it with noise_spec_parse() (validating) or
 * noise_spec_default() and direct assignment (trusted callers, tests). */
typedef struct {
    noise_kind kind;
    uint32_t seed;
    double frequency;      /* (0, 1e6] */
    int octaves;           /* 1..16 */
    double lacunarity;     /* [1, 16] */
    double gain;           /* (0, 1] */
    noise_fractal fractal;
    double warp;           /* [0, 1e6], plane units */
    int has_t;             /* 1: the 3D noise at z = t */
    double t;              /* finite; meaningful only when has_t; scaled by frequency like x, y */
    noise_lattice lattice; /* value and perlin only; others keep NOISE_SQUARE */
    noise_cell_distance distance;   /* cellular only: euclidean (default), manhattan, chebyshev */
    noise_cell_return cell_return;  /* cellular only: f1 (default), f2, f2-f1, cell */
    double jitter;                  /* cellular only: [0, 1], default 1 */
    double period;         /* > 0: the field repeats with this period (plane units) in x and
                              y; 0: not periodic. See "Periodic fields" above. */
    noise_fade fade;       /* classic only; others ignore it */
    noise_gradients gradients; /* perlin and simplex only */
    noise_falloff falloff;     /* simplex only */
} noise_spec;

/* The largest period of an octave, in cells (2^30): period x frequency x
 * lacunarity^k may not exceed it. */
#define NOISE_PERIOD_MAX_CELLS 1073741824.0

/* Error codes: 0 is success, these are negative. */
enum {
    NOISE_EUNKNOWN = -1,   /* unknown parameter name */
    NOISE_EDUP = -2,       /* a parameter given twice */
    NOISE_ERANGE = -3,     /* a number outside its range, or NaN/Inf */
    NOISE_ESYNTAX = -4,    /* not a number / not one of the allowed words */
    NOISE_EKIND = -5,      /* unknown kind name */
    NOISE_ENOSPACE = -6    /* output buffer too small */
};

/* A short, static description of an error code ("unknown parameter"...). */
const char *noise_strerror(int err);

/* ---- parameter metadata: the one place ranges and defaults live ---- */

typedef enum { NOISE_PARAM_NUMBER, NOISE_PARAM_INTEGER, NOISE_PARAM_ENUM } noise_param_type;

typedef struct {
    const char *name;        /* query-string name: "frequency" */
    noise_param_type type;
    const char *description; /* one line, for /api/kinds and OpenAPI */
    double min, max;         /* numeric range */
    int min_exclusive;       /* 1: min itself is not allowed */
    int max_exclusive;
    int optional;            /* 1: no default; absent means "not given" (t) */
    double default_number;   /* numbers and integers */
    const char *const *choices; /* enums: NULL-terminated list */
    const char *default_choice; /* enums */
    unsigned int kinds;      /* NOISE_KIND_BIT of each kind it applies to;
                                0: every kind */
} noise_param;

/* A kind's bit in noise_param.kinds. */
#define NOISE_KIND_BIT(kind) (1u << (unsigned)(kind))

/* 1 if parameter p applies to kind. */
int noise_param_applies(const noise_param *p, noise_kind kind);

/* The field parameters, in canonical order; *n_params receives the count.
 * The table is static and constant. */
const noise_param *noise_params(size_t *n_params);

/* Kind names: "value", "perlin", "simplex", "improved", "cellular", "classic". NULL if out of
 * range. */
const char *noise_kind_name(noise_kind kind);
/* Returns 0 and sets *out, or NOISE_EKIND. */
int noise_kind_from_name(const char *name, noise_kind *out);

/* Fills *spec with the defaults for (kind, seed). */
void noise_spec_default(noise_spec *spec, noise_kind kind, uint32_t seed);

/* The validating constructor: defaults for (kind, seed), then the n_params
 * name/value pairs (query-string parameters, already percent-decoded).
 * Numbers are parsed as C decimal or exponent notation; enums as their words.
 * Returns 0 and fills *spec; on failure returns a NOISE_E* code, leaves *spec
 * unspecified and writes a NUL-terminated message to err (if err_size > 0)
 * naming the parameter, the accepted range and the value sent, e.g.
 * "octaves must be an integer in 1..16, got '20'". `lattice` is accepted only
 * for value and perlin, `distance`, `return` and `jitter` only for cellular,
 * `fade` only for classic, `gradients` for perlin and simplex, `falloff` for
 * simplex, `t` for every kind but classic (otherwise: NOISE_EUNKNOWN with a
 * message saying so); `t` with gradients=angle or falloff=quartic (2D
 * functions) is NOISE_EUNKNOWN too. `period` is accepted for value, perlin
 * (gradients=angle too), improved, cellular and classic (simplex:
 * NOISE_EUNKNOWN saying why), with lattice=square only, and when every
 * octave's period in cells is a whole number in 1..2^30 (NOISE_ERANGE naming
 * the octave). */
int noise_spec_parse(noise_spec *spec, noise_kind kind, uint32_t seed,
                     size_t n_params, const char *const *names,
                     const char *const *values, char *err, size_t err_size);

/* 1 if the field is defined only in the plane: classic (the Wikipedia
 * article's perlin(x, y)), and perlin and simplex with gradients=angle or
 * falloff=quartic (the GLSL article's 2D functions). Such a spec takes no
 * t; the daemon refuses 3D points for it. (The core evaluates it at any t
 * as at t = 0, with d/dt = 0.) */
int noise_spec_planar(const noise_spec *spec);

/* Canonical text of the field's parameters: every parameter in canonical
 * order, defaults included, numbers in shortest round-trip form, e.g.
 * "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square"
 * (plus "&period=..." when period > 0, and "&t=..." when has_t). cellular, a
 * kind added after NOISE_VERSION 1, always lists its own parameters instead
 * of lattice: "...&warp=0&distance=euclidean&return=f1&jitter=1", and
 * classic its fade. Parameters added to older kinds after NOISE_VERSION 1
 * (gradients, falloff) appear only when they differ from their default, so
 * the text of the kinds of version 1 does not change. Two specs that mean
 * the same field give the same text. Kind and seed are not included. Returns the length written
 * (excluding the NUL) or NOISE_ENOSPACE if buf_size is too small. */
int noise_spec_canonical(const noise_spec *spec, char *buf, size_t buf_size);

/* Formats a double in the shortest form that parses back to the same double
 * ("2", "0.5", "1e-7", "1e6": %g style, but the exponent has no '+' (a '+'
 * means a space in a query string) and no leading zeros). Returns the
 * length, or NOISE_ENOSPACE. 32 bytes always suffice. */
int noise_format_double(double v, char *buf, size_t buf_size);

/* ---- evaluation ---- */

/* The field at one point. dims is 2 (x, y; the spec's t is used when
 * spec->has_t) or 3 (x, y, t: the point's t overrides the spec's).
 * Returns the value in [-1, 1]. If grad is not NULL it receives the gradient:
 * 2 components when the evaluation is 2D, 3 when it is 3D (has_t or dims 3).
 * Returns the number of gradient components through *n_grad if not NULL. */
double noise_eval_point(const noise_spec *spec, const double *p, int dims,
                        double *grad, int *n_grad);

/* n_points points, packed with stride dims (2 or 3), into out_values[n_points]
 * and, if out_grads is not NULL, out_grads[n_points * g] with g = 3 when the
 * evaluation is 3D (dims 3 or spec->has_t), else 2. */
void noise_eval_points(const noise_spec *spec, size_t n_points, const double *points,
                       int dims, double *out_values, double *out_grads);

/* A width x height grid: sample (i, j) is at (x0 + i*step, y0 + j*step), row j
 * at out_values[j*width + i]. If out_grads is not NULL it receives 2 floats per
 * sample (d/dx, d/dy) at out_grads[2*(j*width + i)]; with has_t the t
 * component is dropped. Each sample equals noise_eval_point at the same
 * coordinates (to float rounding). Lattice work is shared along rows. */
void noise_eval_grid(const noise_spec *spec, double x0, double y0, double step,
                     int width, int height, float *out_values, float *out_grads);

/* ---- prepared fields ---- */

/* A field prepared once from a spec (octave seeds, frequencies, amplitudes,
 * improved noise's permutations) and evaluated any number of times. It is
 * immutable once created: any number of threads may evaluate one field at
 * once. The noise_eval_* functions above prepare a field on the stack for
 * each call; they are conveniences for one-off calls and give the same
 * numbers bit for bit. */
typedef struct noise_field noise_field;

/* Returns a new field for a copy of *spec (the spec may be freed after), or
 * NULL if memory ran out. The caller frees it with noise_field_destroy(). The
 * field uses the instruction-set path active when it was created. */
noise_field *noise_field_create(const noise_spec *spec);
/* Frees a field; NULL does nothing. */
void noise_field_destroy(noise_field *field);
/* For callers that provide the memory (their own allocator, a static or
 * stack buffer): the bytes a field takes (about 30 KB), and the field built
 * in `mem` (noise_field_size() bytes, aligned as malloc aligns). Returns
 * mem as the field, or NULL if mem is NULL. Nothing to destroy: the caller
 * releases mem when done with the field. */
size_t noise_field_size(void);
noise_field *noise_field_init(void *mem, const noise_spec *spec);
/* The spec the field was built from (owned by the field). */
const noise_spec *noise_field_spec(const noise_field *field);

/* As noise_eval_point, noise_eval_points and noise_eval_grid above. */
double noise_field_point(const noise_field *field, const double *p, int dims, double *grad, int *n_grad);
void noise_field_points(const noise_field *field, size_t n_points, const double *points, int dims,
                        double *out_values, double *out_grads);
void noise_field_grid(const noise_field *field, double x0, double y0, double step, int width, int height,
                      float *out_values, float *out_grads);
/* Rows row0 .. row0 + rows - 1 of the grid noise_field_grid(field, x0, y0,
 * step, width, height, ...) fills (height > row0 + rows - 1): row r of
 * out_values (out_values[r * width + i], gradients as noise_field_grid's)
 * is that grid's row row0 + r bit for bit, its samples at (x0 + i*step,
 * y0 + (row0 + r)*step). For a large grid computed or sent in bands of
 * rows; noise_field_grid is this with row0 0. Nothing is written if
 * row0 < 0 or row0 + rows overflows an int. */
void noise_field_grid_rows(const noise_field *field, double x0, double y0, double step, int width, int row0,
                           int rows, float *out_values, float *out_grads);

/* ---- instruction-set paths ----
 *
 * The core has a scalar reference path and, on x86-64, AVX2 and AVX-512
 * paths that compute the same numbers bit for bit (no fused multiply-add,
 * the same operations in the same order), only faster. The best path the
 * CPU supports is chosen on first use; the NOISE_SIMD environment variable
 * (scalar, avx2 or avx512) read at that moment, or noise_simd_set(), picks
 * another, for tests and benchmarks. The choice is the core's one piece of
 * process-wide state, read and written atomically. */
typedef enum { NOISE_SIMD_SCALAR = 0, NOISE_SIMD_AVX2, NOISE_SIMD_AVX512, NOISE_SIMD_COUNT } noise_simd;

/* "scalar", "avx2", "avx512"; NULL if out of range. */
const char *noise_simd_name(noise_simd path);
/* 1 if this build has the path and this CPU can run it, else 0. */
int noise_simd_supported(noise_simd path);
/* The path evaluation uses now (choosing it on first call). */
noise_simd noise_simd_active(void);
/* Makes `path` the active one for evaluations and fields begun afterwards.
 * Returns 0, or NOISE_ERANGE (and changes nothing) if it is not supported. */
int noise_simd_set(noise_simd path);

/* ---- stability ----
 *
 * NOISE_VERSION names the numbers the core computes. While it stays the
 * same, the same spec and coordinates give the same doubles (and floats)
 * bit for bit: across releases of this library, on every x86-64 build made
 * with its Makefile (-ffp-contract=off, no fast-math) and on every
 * instruction-set path above. A release that changes any value bumps it,
 * so a caller that caches or stores values (tiles, heightmaps) can key them
 * on it. Version 1 is pinned by tests/unit/test_noise_golden.c. The shared
 * library's soname (libnoisetile.so.N) changes when a public struct or
 * signature changes: noise_spec grew cellular's fields in .so.2. */
#define NOISE_VERSION 1

#endif
