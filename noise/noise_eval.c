/* noise_eval.c: evaluation of a field (octaves, fractal modes, domain warp,
 * chain-rule gradients) at points and over grids.
 *
 * A field is one to three "layers" (the field, and with warp the two warp
 * fields), each a fractal sum of octaves of one base noise. Every path, the
 * point one included, evaluates the base noise through the same per-kind
 * loop functions below, picked once per call, so a grid sample equals the
 * point value at the same coordinates bit for bit (before float rounding).
 */
#include "noise.h"
#include "noise_kernels.h"

#include <string.h>

#define NE_MAX_OCTAVES 16
#define NE_CHUNK 256

typedef struct ne_layer ne_layer;

/* Base noise of octave k of a layer at n points (plane coordinates xs, and
 * ys[i] or the row's y; t): noise value and noise-space gradient (3 per
 * sample, the third 0 in 2D). g may be NULL (values only). */
typedef void (*ne_row_fn)(const ne_layer *L, int k, int n, const double *xs, double y, double t,
                          double *v, double *g);
typedef void (*ne_pts_fn)(const ne_layer *L, int k, int n, const double *xs, const double *ys, double t,
                          double *v, double *g);

typedef struct {
    ne_row_fn row_v, row_g;
    ne_pts_fn pts_v, pts_g;
} ne_base;

struct ne_layer {
    const ne_base *base;
    noise_fractal fractal;
    int n_oct;
    uint32_t seed[NE_MAX_OCTAVES];
    double freq[NE_MAX_OCTAVES];
    double amp[NE_MAX_OCTAVES];
    double amp_freq[NE_MAX_OCTAVES];
    double amp_sum;
    const unsigned char *perm[NE_MAX_OCTAVES]; /* improved only */
};

typedef struct {
    ne_layer layer[3];
    int n_layers; /* 1, or 3 with warp */
    int d3;
    double t;
    double warp;
    unsigned char perm_store[3][NE_MAX_OCTAVES][512];
} ne_field;

/* ---- Improved Noise permutation ---- */

static const unsigned char ne_perlin_permutation[256] = {
    151, 160, 137, 91,  90,  15,  131, 13,  201, 95,  96,  53,  194, 233, 7,   225, 140, 36,  103, 30,  69,  142,
    8,   99,  37,  240, 21,  10,  23,  190, 6,   148, 247, 120, 234, 75,  0,   26,  197, 62,  94,  252, 219, 203,
    117, 35,  11,  32,  57,  177, 33,  88,  237, 149, 56,  87,  174, 20,  125, 136, 171, 168, 68,  175, 74,  165,
    71,  134, 139, 48,  27,  166, 77,  146, 158, 231, 83,  111, 229, 122, 60,  211, 133, 230, 220, 105, 92,  41,
    55,  46,  245, 40,  244, 102, 143, 54,  65,  25,  63,  161, 1,   216, 80,  73,  209, 76,  132, 187, 208, 89,
    18,  169, 200, 196, 135, 130, 116, 188, 159, 86,  164, 100, 109, 198, 173, 186, 3,   64,  52,  217, 226, 250,
    124, 123, 5,   202, 38,  147, 118, 126, 255, 82,  85,  212, 207, 206, 59,  227, 47,  16,  58,  17,  182, 189,
    28,  42,  223, 183, 170, 213, 119, 248, 152, 2,   44,  154, 163, 70,  221, 153, 101, 155, 167, 43,  172, 9,
    129, 22,  39,  253, 19,  98,  108, 110, 79,  113, 224, 232, 178, 185, 112, 104, 218, 246, 97,  228, 251, 34,
    242, 193, 238, 210, 144, 12,  191, 179, 162, 241, 81,  51,  145, 235, 249, 14,  239, 107, 49,  192, 214, 31,
    181, 199, 106, 157, 184, 84,  204, 176, 115, 121, 50,  45,  127, 4,   150, 254, 138, 236, 205, 93,  222, 114,
    67,  29,  24,  72,  243, 141, 128, 195, 78,  66,  215, 61,  156, 180
};

/* Seed 0: Ken Perlin's table; other seeds: Fisher-Yates driven by the hash
 * of (seed, i). The 256 entries are repeated to 512 as in the reference. */
static void ne_build_perm(uint32_t seed, unsigned char perm[512])
{
    if (seed == 0) {
        memcpy(perm, ne_perlin_permutation, 256);
    } else {
        for (int i = 0; i < 256; i++)
            perm[i] = (unsigned char)i;
        for (int i = 255; i > 0; i--) {
            uint32_t j = nl_derive(seed, (uint32_t)i) % (uint32_t)(i + 1);
            unsigned char tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
    }
    memcpy(perm + 256, perm, 256);
}

/* ---- per-kind loops ---- */

#define NE_SEED (L->seed[k])
#define NE_PERM (L->perm[k])

/* Defines name_row_v/_row_g/_pts_v/_pts_g from EXPR(qx, qy, qz, want, gd). */
#define NE_DEFINE_LOOPS(name, EXPR)                                                                   \
    static void name##_pts_v(const ne_layer *L, int k, int n, const double *xs, const double *ys,     \
                             double t, double *v, double *g)                                          \
    {                                                                                                 \
        (void)g;                                                                                      \
        double f = L->freq[k], qz = t * f;                                                            \
        for (int i = 0; i < n; i++) {                                                                 \
            double qx = xs[i] * f, qy = ys[i] * f;                                                    \
            v[i] = EXPR(qx, qy, qz, 0, NULL);                                                         \
        }                                                                                             \
    }                                                                                                 \
    static void name##_pts_g(const ne_layer *L, int k, int n, const double *xs, const double *ys,     \
                             double t, double *v, double *g)                                          \
    {                                                                                                 \
        double f = L->freq[k], qz = t * f;                                                            \
        for (int i = 0; i < n; i++) {                                                                 \
            double qx = xs[i] * f, qy = ys[i] * f, gd[3] = { 0, 0, 0 };                               \
            v[i] = EXPR(qx, qy, qz, 1, gd);                                                           \
            g[3 * i] = gd[0];                                                                         \
            g[3 * i + 1] = gd[1];                                                                     \
            g[3 * i + 2] = gd[2];                                                                     \
        }                                                                                             \
    }                                                                                                 \
    __attribute__((unused)) static void name##_row_v(const ne_layer *L, int k, int n, const double *xs, double y, double t,   \
                             double *v, double *g)                                                    \
    {                                                                                                 \
        (void)g;                                                                                      \
        double f = L->freq[k], qy = y * f, qz = t * f;                                                \
        for (int i = 0; i < n; i++) {                                                                 \
            double qx = xs[i] * f;                                                                    \
            v[i] = EXPR(qx, qy, qz, 0, NULL);                                                         \
        }                                                                                             \
    }                                                                                                 \
    __attribute__((unused)) static void name##_row_g(const ne_layer *L, int k, int n, const double *xs, double y, double t,   \
                             double *v, double *g)                                                    \
    {                                                                                                 \
        double f = L->freq[k], qy = y * f, qz = t * f;                                                \
        for (int i = 0; i < n; i++) {                                                                 \
            double qx = xs[i] * f, gd[3] = { 0, 0, 0 };                                               \
            v[i] = EXPR(qx, qy, qz, 1, gd);                                                           \
            g[3 * i] = gd[0];                                                                         \
            g[3 * i + 1] = gd[1];                                                                     \
            g[3 * i + 2] = gd[2];                                                                     \
        }                                                                                             \
    }

#define E_VALUE_SQ2(x, y, z, w, g) ((void)(z), nk_sq2(NK_MODE_VALUE, NE_SEED, x, y, w, g))
#define E_PERLIN_SQ2(x, y, z, w, g) ((void)(z), nk_sq2(NK_MODE_PERLIN, NE_SEED, x, y, w, g))
#define E_VALUE_SQ3(x, y, z, w, g) nk_sq3(NK_MODE_VALUE, NE_SEED, x, y, z, w, g)
#define E_PERLIN_SQ3(x, y, z, w, g) nk_sq3(NK_MODE_PERLIN, NE_SEED, x, y, z, w, g)
#define E_VALUE_TRI2(x, y, z, w, g) ((void)(z), nk_tri2(NK_MODE_VALUE, NE_SEED, x, y, w, g))
#define E_PERLIN_TRI2(x, y, z, w, g) ((void)(z), nk_tri2(NK_MODE_PERLIN, NE_SEED, x, y, w, g))
#define E_SIMPLEX_TRI2(x, y, z, w, g) ((void)(z), nk_tri2(NK_MODE_SIMPLEX, NE_SEED, x, y, w, g))
#define E_VALUE_TET3(x, y, z, w, g) nk_tet3(NK_MODE_VALUE, NE_SEED, x, y, z, w, g)
#define E_PERLIN_TET3(x, y, z, w, g) nk_tet3(NK_MODE_PERLIN, NE_SEED, x, y, z, w, g)
#define E_SIMPLEX_TET3(x, y, z, w, g) nk_tet3(NK_MODE_SIMPLEX, NE_SEED, x, y, z, w, g)
/* without t: the z = 0 slice, as the reference noise(x, y, 0) */
#define E_IMPROVED2(x, y, z, w, g) ((void)(z), nk_improved3(NE_PERM, x, y, 0.0, w, g))
#define E_IMPROVED3(x, y, z, w, g) nk_improved3(NE_PERM, x, y, z, w, g)

NE_DEFINE_LOOPS(value_sq2, E_VALUE_SQ2)
NE_DEFINE_LOOPS(perlin_sq2, E_PERLIN_SQ2)
NE_DEFINE_LOOPS(value_sq3, E_VALUE_SQ3)
NE_DEFINE_LOOPS(perlin_sq3, E_PERLIN_SQ3)
NE_DEFINE_LOOPS(value_tri2, E_VALUE_TRI2)
NE_DEFINE_LOOPS(perlin_tri2, E_PERLIN_TRI2)
NE_DEFINE_LOOPS(simplex_tri2, E_SIMPLEX_TRI2)
NE_DEFINE_LOOPS(value_tet3, E_VALUE_TET3)
NE_DEFINE_LOOPS(perlin_tet3, E_PERLIN_TET3)
NE_DEFINE_LOOPS(simplex_tet3, E_SIMPLEX_TET3)
NE_DEFINE_LOOPS(improved2, E_IMPROVED2)
NE_DEFINE_LOOPS(improved3, E_IMPROVED3)

/* Rows of the 2D square lattice share the row's y work (cell row, fade)
 * and the corner hashes while x stays in a cell; the right corners of one
 * cell become the left corners of the next. */
NK_INLINE void ne_sq2_row(int mode, int want_grad, const ne_layer *L, int k, int n, const double *xs,
                          double y, double *v, double *g)
{
    uint32_t s = nl_seed(L->seed[k]);
    double f = L->freq[k], ty;
    uint64_t j = nl_floor(y * f, &ty);
    double sy = nl_fade(ty), dsy = nl_dfade(ty);
    uint64_t ci = 0;
    int have = 0;
    uint32_t ha = 0, hb = 0, hc = 0, hd = 0;
    for (int i = 0; i < n; i++) {
        double tx, gd[2];
        uint64_t ii = nl_floor(xs[i] * f, &tx);
        if (!have || ii != ci) {
            if (have && ii == ci + 1) {
                ha = hc;
                hb = hd;
            } else {
                nk_sq2_column(s, ii, j, &ha, &hb);
            }
            nk_sq2_column(s, ii + 1, j, &hc, &hd);
            ci = ii;
            have = 1;
        }
        if (mode == NK_MODE_VALUE)
            v[i] = nk_value2_blend(ha, hb, hc, hd, tx, sy, dsy, want_grad, gd);
        else
            v[i] = nk_perlin2_blend(ha, hb, hc, hd, tx, ty, sy, dsy, want_grad, gd);
        if (want_grad) {
            g[3 * i] = gd[0];
            g[3 * i + 1] = gd[1];
            g[3 * i + 2] = 0;
        }
    }
}

static void value_sq2_fastrow_v(const ne_layer *L, int k, int n, const double *xs, double y, double t,
                                double *v, double *g)
{
    (void)t;
    ne_sq2_row(NK_MODE_VALUE, 0, L, k, n, xs, y, v, g);
}
static void value_sq2_fastrow_g(const ne_layer *L, int k, int n, const double *xs, double y, double t,
                                double *v, double *g)
{
    (void)t;
    ne_sq2_row(NK_MODE_VALUE, 1, L, k, n, xs, y, v, g);
}
static void perlin_sq2_fastrow_v(const ne_layer *L, int k, int n, const double *xs, double y, double t,
                                 double *v, double *g)
{
    (void)t;
    ne_sq2_row(NK_MODE_PERLIN, 0, L, k, n, xs, y, v, g);
}
static void perlin_sq2_fastrow_g(const ne_layer *L, int k, int n, const double *xs, double y, double t,
                                 double *v, double *g)
{
    (void)t;
    ne_sq2_row(NK_MODE_PERLIN, 1, L, k, n, xs, y, v, g);
}

#define NE_BASE(name) { name##_row_v, name##_row_g, name##_pts_v, name##_pts_g }

/* Indexed by [kind][lattice][d3]; improved and simplex ignore the lattice. */
static const ne_base ne_bases[NOISE_KIND_COUNT][NOISE_LATTICE_COUNT][2] = {
    [NOISE_VALUE] = {
        [NOISE_SQUARE] = { { value_sq2_fastrow_v, value_sq2_fastrow_g, value_sq2_pts_v, value_sq2_pts_g },
                           NE_BASE(value_sq3) },
        [NOISE_TRIANGLE] = { NE_BASE(value_tri2), NE_BASE(value_tet3) },
    },
    [NOISE_PERLIN] = {
        [NOISE_SQUARE] = { { perlin_sq2_fastrow_v, perlin_sq2_fastrow_g, perlin_sq2_pts_v, perlin_sq2_pts_g },
                           NE_BASE(perlin_sq3) },
        [NOISE_TRIANGLE] = { NE_BASE(perlin_tri2), NE_BASE(perlin_tet3) },
    },
    [NOISE_SIMPLEX] = {
        [NOISE_SQUARE] = { NE_BASE(simplex_tri2), NE_BASE(simplex_tet3) },
        [NOISE_TRIANGLE] = { NE_BASE(simplex_tri2), NE_BASE(simplex_tet3) },
    },
    [NOISE_IMPROVED] = {
        [NOISE_SQUARE] = { NE_BASE(improved2), NE_BASE(improved3) },
        [NOISE_TRIANGLE] = { NE_BASE(improved2), NE_BASE(improved3) },
    },
};

/* ---- field setup ---- */

static void ne_layer_init(ne_layer *L, const noise_spec *spec, uint32_t seed, int d3,
                          unsigned char perm_store[][512])
{
    int kind = (unsigned)spec->kind < NOISE_KIND_COUNT ? (int)spec->kind : NOISE_VALUE;
    int lattice = (unsigned)spec->lattice < NOISE_LATTICE_COUNT ? (int)spec->lattice : NOISE_SQUARE;
    L->base = &ne_bases[kind][lattice][d3 ? 1 : 0];
    L->fractal = (unsigned)spec->fractal < NOISE_FRACTAL_COUNT ? spec->fractal : NOISE_FBM;
    int n = spec->octaves < 1 ? 1 : spec->octaves > NE_MAX_OCTAVES ? NE_MAX_OCTAVES : spec->octaves;
    L->n_oct = n;
    double freq = spec->frequency, amp = 1.0, sum = 0.0;
    for (int k = 0; k < n; k++) {
        L->seed[k] = k == 0 ? seed : nl_derive(seed, (uint32_t)k);
        L->freq[k] = freq;
        L->amp[k] = amp;
        L->amp_freq[k] = amp * freq;
        sum += amp;
        freq *= spec->lacunarity;
        amp *= spec->gain;
        if (kind == NOISE_IMPROVED) {
            ne_build_perm(L->seed[k], perm_store[k]);
            L->perm[k] = perm_store[k];
        } else {
            L->perm[k] = NULL;
        }
    }
    L->amp_sum = sum;
}

static void ne_field_init(ne_field *F, const noise_spec *spec, int d3, double t)
{
    F->d3 = d3;
    F->t = d3 ? t : 0.0;
    F->warp = spec->warp > 0 ? spec->warp : 0.0;
    F->n_layers = F->warp > 0 ? 3 : 1;
    ne_layer_init(&F->layer[0], spec, spec->seed, d3, F->perm_store[0]);
    if (F->n_layers == 3) {
        ne_layer_init(&F->layer[1], spec, nl_derive(spec->seed, NL_SALT_WARP_X), d3, F->perm_store[1]);
        ne_layer_init(&F->layer[2], spec, nl_derive(spec->seed, NL_SALT_WARP_Y), d3, F->perm_store[2]);
    }
}

/* ---- fractal accumulation (shared by points and grids) ---- */

typedef struct {
    double v, g[3];
    double w, wg[3]; /* ridged: weight for the next octave and its gradient */
} ne_acc;

static inline void ne_acc_init(ne_acc *a)
{
    memset(a, 0, sizeof *a);
    a->w = 1.0;
}

/* Adds octave k's noise n (noise-space gradient ng) to the sum. */
NK_INLINE void ne_acc_octave(ne_acc *a, noise_fractal fractal, int want_grad, const ne_layer *L, int k,
                             double n, const double *ng)
{
    double amp = L->amp[k];
    if (fractal == NOISE_FBM) {
        a->v += amp * n;
        if (want_grad) {
            double af = L->amp_freq[k];
            for (int c = 0; c < 3; c++)
                a->g[c] += af * ng[c];
        }
    } else if (fractal == NOISE_TURBULENCE) {
        double s = n < 0 ? -1.0 : 1.0;
        a->v += amp * (s * n);
        if (want_grad) {
            double af = s * L->amp_freq[k];
            for (int c = 0; c < 3; c++)
                a->g[c] += af * ng[c];
        }
    } else {
        double s = n < 0 ? -1.0 : 1.0;
        double r = 1.0 - s * n;
        double sig = r * r * a->w;
        double w2 = sig * 2.0;
        a->v += amp * sig;
        if (want_grad) {
            double dsig[3];
            double kk = -2.0 * r * s * a->w * L->freq[k];
            for (int c = 0; c < 3; c++) {
                dsig[c] = kk * ng[c] + (r * r) * a->wg[c];
                a->g[c] += amp * dsig[c];
            }
            for (int c = 0; c < 3; c++)
                a->wg[c] = w2 < 1.0 ? 2.0 * dsig[c] : 0.0;
        }
        a->w = w2 < 1.0 ? w2 : 1.0;
    }
}

/* Maps the sum to [-1, 1]; returns the value and scales the gradient. */
static inline double ne_acc_finish(ne_acc *a, noise_fractal fractal, const ne_layer *L, int want_grad)
{
    if (fractal == NOISE_FBM) {
        if (want_grad)
            for (int c = 0; c < 3; c++)
                a->g[c] = a->g[c] / L->amp_sum;
        return a->v / L->amp_sum;
    }
    if (want_grad)
        for (int c = 0; c < 3; c++)
            a->g[c] = 2.0 * a->g[c] / L->amp_sum;
    return 2.0 * a->v / L->amp_sum - 1.0;
}

/* One layer at n points (xs, ys plane coordinates; ys NULL: every point at
 * y = row_y on a row). out_g gets 3 per point (plane units), may be NULL. */
static void ne_layer_eval(const ne_layer *L, int n, const double *xs, const double *ys, double row_y, double t,
                          double *out_v, double *out_g)
{
    double nv[NE_CHUNK], ng[3 * NE_CHUNK];
    ne_acc acc[NE_CHUNK];
    int want = out_g != NULL;
    for (int i0 = 0; i0 < n; i0 += NE_CHUNK) {
        int m = n - i0 < NE_CHUNK ? n - i0 : NE_CHUNK;
        for (int i = 0; i < m; i++)
            ne_acc_init(&acc[i]);
        for (int k = 0; k < L->n_oct; k++) {
            if (ys)
                (want ? L->base->pts_g : L->base->pts_v)(L, k, m, xs + i0, ys + i0, t, nv, ng);
            else
                (want ? L->base->row_g : L->base->row_v)(L, k, m, xs + i0, row_y, t, nv, ng);
            switch (L->fractal * 2 + want) {
            case NOISE_FBM * 2:
                for (int i = 0; i < m; i++) ne_acc_octave(&acc[i], NOISE_FBM, 0, L, k, nv[i], NULL);
                break;
            case NOISE_FBM * 2 + 1:
                for (int i = 0; i < m; i++) ne_acc_octave(&acc[i], NOISE_FBM, 1, L, k, nv[i], ng + 3 * i);
                break;
            case NOISE_TURBULENCE * 2:
                for (int i = 0; i < m; i++) ne_acc_octave(&acc[i], NOISE_TURBULENCE, 0, L, k, nv[i], NULL);
                break;
            case NOISE_TURBULENCE * 2 + 1:
                for (int i = 0; i < m; i++) ne_acc_octave(&acc[i], NOISE_TURBULENCE, 1, L, k, nv[i], ng + 3 * i);
                break;
            case NOISE_RIDGED * 2:
                for (int i = 0; i < m; i++) ne_acc_octave(&acc[i], NOISE_RIDGED, 0, L, k, nv[i], NULL);
                break;
            default:
                for (int i = 0; i < m; i++) ne_acc_octave(&acc[i], NOISE_RIDGED, 1, L, k, nv[i], ng + 3 * i);
                break;
            }
        }
        for (int i = 0; i < m; i++) {
            out_v[i0 + i] = ne_acc_finish(&acc[i], L->fractal, L, want);
            if (want)
                memcpy(out_g + 3 * (i0 + i), acc[i].g, sizeof acc[i].g);
        }
    }
}

/* The whole field (warp included) at n <= NE_CHUNK points. */
static void ne_field_eval(const ne_field *F, int n, const double *xs, const double *ys, double row_y,
                          double *out_v, double *out_g)
{
    if (F->n_layers == 1) {
        ne_layer_eval(&F->layer[0], n, xs, ys, row_y, F->t, out_v, out_g);
        return;
    }
    double w1[NE_CHUNK], w2[NE_CHUNK], g1[3 * NE_CHUNK], g2[3 * NE_CHUNK];
    double px[NE_CHUNK], py[NE_CHUNK], g0[3 * NE_CHUNK];
    int want = out_g != NULL;
    ne_layer_eval(&F->layer[1], n, xs, ys, row_y, F->t, w1, want ? g1 : NULL);
    ne_layer_eval(&F->layer[2], n, xs, ys, row_y, F->t, w2, want ? g2 : NULL);
    for (int i = 0; i < n; i++) {
        px[i] = xs[i] + F->warp * w1[i];
        py[i] = (ys ? ys[i] : row_y) + F->warp * w2[i];
    }
    ne_layer_eval(&F->layer[0], n, px, py, 0.0, F->t, out_v, want ? g0 : NULL);
    if (!want)
        return;
    double a = F->warp;
    for (int i = 0; i < n; i++) {
        const double *d0 = g0 + 3 * i, *d1 = g1 + 3 * i, *d2 = g2 + 3 * i;
        /* J = I + warp * [dw1; dw2] in the x and y rows; grad = J^T grad0 */
        out_g[3 * i] = d0[0] * (1.0 + a * d1[0]) + d0[1] * (a * d2[0]);
        out_g[3 * i + 1] = d0[0] * (a * d1[1]) + d0[1] * (1.0 + a * d2[1]);
        out_g[3 * i + 2] = d0[0] * (a * d1[2]) + d0[1] * (a * d2[2]) + d0[2];
    }
}

/* ---- public ---- */

double noise_eval_point(const noise_spec *spec, const double *p, int dims, double *grad, int *n_grad)
{
    ne_field F;
    int d3 = dims == 3 || spec->has_t;
    double t = dims == 3 ? p[2] : spec->t;
    ne_field_init(&F, spec, d3, t);
    double v, g[3];
    ne_field_eval(&F, 1, &p[0], &p[1], 0.0, &v, grad ? g : NULL);
    if (grad) {
        grad[0] = g[0];
        grad[1] = g[1];
        if (d3)
            grad[2] = g[2];
    }
    if (n_grad)
        *n_grad = d3 ? 3 : 2;
    return v;
}

void noise_eval_points(const noise_spec *spec, size_t n_points, const double *points, int dims,
                       double *out_values, double *out_grads)
{
    if (dims == 3) {
        /* t varies per point: one field set-up, one point at a time */
        ne_field F;
        ne_field_init(&F, spec, 1, 0.0);
        for (size_t i = 0; i < n_points; i++) {
            const double *p = points + 3 * i;
            double g[3];
            F.t = p[2];
            ne_field_eval(&F, 1, &p[0], &p[1], 0.0, &out_values[i], out_grads ? g : NULL);
            if (out_grads)
                memcpy(out_grads + 3 * i, g, sizeof g);
        }
        return;
    }
    ne_field F;
    int d3 = spec->has_t != 0, gn = d3 ? 3 : 2;
    ne_field_init(&F, spec, d3, spec->t);
    double xs[NE_CHUNK], ys[NE_CHUNK], g[3 * NE_CHUNK];
    for (size_t i0 = 0; i0 < n_points; i0 += NE_CHUNK) {
        int m = n_points - i0 < NE_CHUNK ? (int)(n_points - i0) : NE_CHUNK;
        for (int i = 0; i < m; i++) {
            xs[i] = points[2 * (i0 + i)];
            ys[i] = points[2 * (i0 + i) + 1];
        }
        ne_field_eval(&F, m, xs, ys, 0.0, out_values + i0, out_grads ? g : NULL);
        if (out_grads)
            for (int i = 0; i < m; i++)
                for (int c = 0; c < gn; c++)
                    out_grads[(i0 + i) * gn + c] = g[3 * i + c];
    }
}

void noise_eval_grid(const noise_spec *spec, double x0, double y0, double step, int width, int height,
                     float *out_values, float *out_grads)
{
    if (width <= 0 || height <= 0)
        return;
    ne_field F;
    ne_field_init(&F, spec, spec->has_t != 0, spec->t);
    double xs[NE_CHUNK], v[NE_CHUNK], g[3 * NE_CHUNK];
    for (int j = 0; j < height; j++) {
        double y = y0 + (double)j * step;
        for (int i0 = 0; i0 < width; i0 += NE_CHUNK) {
            int m = width - i0 < NE_CHUNK ? width - i0 : NE_CHUNK;
            for (int i = 0; i < m; i++)
                xs[i] = x0 + (double)(i0 + i) * step;
            ne_field_eval(&F, m, xs, NULL, y, v, out_grads ? g : NULL);
            size_t base = (size_t)j * (size_t)width + (size_t)i0;
            for (int i = 0; i < m; i++)
                out_values[base + i] = (float)v[i];
            if (out_grads)
                for (int i = 0; i < m; i++) {
                    out_grads[2 * (base + i)] = (float)g[3 * i];
                    out_grads[2 * (base + i) + 1] = (float)g[3 * i + 1];
                }
        }
    }
}
