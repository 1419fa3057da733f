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
#include "noise_field.h"
#include "noise_kernels.h"
#include "noise_cellular.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <immintrin.h>
#endif

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
static void ne_build_perm(uint32_t seed, unsigned char perm[NE_PERM_SIZE])
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
    memset(perm + 512, 0, NE_PERM_SIZE - 512);
}

/* ---- per-kind loops ---- */

#define NE_SEED (L->seed[k])
#define NE_PERM (L->perm[k])
#define NE_PER (L->period[k])

/* Defines name_row_v/_row_g/_pts_v/_pts_g from EXPR(qx, qy, qz, want, gd). */
#define NE_DEFINE_LOOPS(name, EXPR, D3)                                                               \
    static void name##_pts_v(const ne_layer *L, int k, int n, const double *xs, const double *ys,     \
                             double t, double *v, ne_grad g)                                          \
    {                                                                                                 \
        (void)g;                                                                                      \
        double f = L->freq[k], qz = t * f;                                                            \
        for (int i = 0; i < n; i++) {                                                                 \
            double qx = xs[i] * f, qy = ys[i] * f;                                                    \
            v[i] = EXPR(qx, qy, qz, 0, NULL);                                                         \
        }                                                                                             \
    }                                                                                                 \
    static void name##_pts_g(const ne_layer *L, int k, int n, const double *xs, const double *ys,     \
                             double t, double *v, ne_grad g)                                          \
    {                                                                                                 \
        double f = L->freq[k], qz = t * f;                                                            \
        for (int i = 0; i < n; i++) {                                                                 \
            double qx = xs[i] * f, qy = ys[i] * f, gd[3];                                             \
            v[i] = EXPR(qx, qy, qz, 1, gd);                                                           \
            g[0][i] = gd[0];                                                                          \
            g[1][i] = gd[1];                                                                          \
            if (D3)                                                                                   \
                g[2][i] = gd[2];                                                                      \
        }                                                                                             \
    }                                                                                                 \
    __attribute__((unused)) static void name##_row_v(const ne_layer *L, int k, int n, const double *xs, \
                                                     double y, double t, double *v, ne_grad g)        \
    {                                                                                                 \
        (void)g;                                                                                      \
        double f = L->freq[k], qy = y * f, qz = t * f;                                                \
        for (int i = 0; i < n; i++) {                                                                 \
            double qx = xs[i] * f;                                                                    \
            v[i] = EXPR(qx, qy, qz, 0, NULL);                                                         \
        }                                                                                             \
    }                                                                                                 \
    __attribute__((unused)) static void name##_row_g(const ne_layer *L, int k, int n, const double *xs, \
                                                     double y, double t, double *v, ne_grad g)        \
    {                                                                                                 \
        double f = L->freq[k], qy = y * f, qz = t * f;                                                \
        for (int i = 0; i < n; i++) {                                                                 \
            double qx = xs[i] * f, gd[3];                                                             \
            v[i] = EXPR(qx, qy, qz, 1, gd);                                                           \
            g[0][i] = gd[0];                                                                          \
            g[1][i] = gd[1];                                                                          \
            if (D3)                                                                                   \
                g[2][i] = gd[2];                                                                      \
        }                                                                                             \
    }

#define E_VALUE_SQ2(x, y, z, w, g) ((void)(z), nk_sq2p(NK_MODE_VALUE, NE_SEED, NE_PER, x, y, w, g))
#define E_PERLIN_SQ2(x, y, z, w, g) ((void)(z), nk_sq2p(NK_MODE_PERLIN, NE_SEED, NE_PER, x, y, w, g))
#define E_VALUE_SQ3(x, y, z, w, g) nk_sq3p(NK_MODE_VALUE, NE_SEED, NE_PER, x, y, z, w, g)
#define E_PERLIN_SQ3(x, y, z, w, g) nk_sq3p(NK_MODE_PERLIN, NE_SEED, NE_PER, x, y, z, w, g)
#define E_VALUE_TRI2(x, y, z, w, g) ((void)(z), nk_tri2(NK_MODE_VALUE, NE_SEED, x, y, w, g))
#define E_PERLIN_TRI2(x, y, z, w, g) ((void)(z), nk_tri2(NK_MODE_PERLIN, NE_SEED, x, y, w, g))
#define E_SIMPLEX_TRI2(x, y, z, w, g) ((void)(z), nk_tri2(NK_MODE_SIMPLEX, NE_SEED, x, y, w, g))
#define E_VALUE_TET3(x, y, z, w, g) nk_tet3(NK_MODE_VALUE, NE_SEED, x, y, z, w, g)
#define E_PERLIN_TET3(x, y, z, w, g) nk_tet3(NK_MODE_PERLIN, NE_SEED, x, y, z, w, g)
#define E_SIMPLEX_TET3(x, y, z, w, g) nk_tet3(NK_MODE_SIMPLEX, NE_SEED, x, y, z, w, g)
/* without t: the z = 0 slice, as the reference noise(x, y, 0) */
#define E_IMPROVED2(x, y, z, w, g) ((void)(z), nk_improved3p(NE_PERM, NE_PER, x, y, 0.0, w, g))
#define E_IMPROVED3(x, y, z, w, g) nk_improved3p(NE_PERM, NE_PER, x, y, z, w, g)

NE_DEFINE_LOOPS(value_sq2, E_VALUE_SQ2, 0)
NE_DEFINE_LOOPS(perlin_sq2, E_PERLIN_SQ2, 0)
NE_DEFINE_LOOPS(value_sq3, E_VALUE_SQ3, 1)
NE_DEFINE_LOOPS(perlin_sq3, E_PERLIN_SQ3, 1)
NE_DEFINE_LOOPS(value_tri2, E_VALUE_TRI2, 0)
NE_DEFINE_LOOPS(perlin_tri2, E_PERLIN_TRI2, 0)
NE_DEFINE_LOOPS(simplex_tri2, E_SIMPLEX_TRI2, 0)
NE_DEFINE_LOOPS(value_tet3, E_VALUE_TET3, 1)
NE_DEFINE_LOOPS(perlin_tet3, E_PERLIN_TET3, 1)
NE_DEFINE_LOOPS(simplex_tet3, E_SIMPLEX_TET3, 1)
NE_DEFINE_LOOPS(improved2, E_IMPROVED2, 0)
NE_DEFINE_LOOPS(improved3, E_IMPROVED3, 1)
#define E_CELLULAR2(x, y, z, w, g) ((void)(z), nc_eval(&L->cell, NE_SEED, NE_PER, 0, x, y, 0.0, w, g))
#define E_CELLULAR3(x, y, z, w, g) nc_eval(&L->cell, NE_SEED, NE_PER, 1, x, y, z, w, g)
NE_DEFINE_LOOPS(cellular2, E_CELLULAR2, 0)
NE_DEFINE_LOOPS(cellular3, E_CELLULAR3, 1)

/* classic and the GLSL variants are the articles' 2D functions: with t (a
 * trusted caller's spec or 3D points; the daemon refuses both) they are the
 * same at every t, d/dt = 0. */
NK_INLINE double ne_flat3(double v, int want_grad, double *g)
{
    if (want_grad)
        g[2] = 0.0;
    return v;
}
#define E_UNIT2(SRC, FADE, x, y, z, w, g) ((void)(z), nk_classic2(SRC, FADE, NE_SEED, L->period[k], x, y, w, g))
#define E_UNIT3(SRC, FADE, x, y, z, w, g)                                                                 \
    ((void)(z), ne_flat3(nk_classic2(SRC, FADE, NE_SEED, L->period[k], x, y, w, g), w, g))
#define E_CLASSIC_L2(x, y, z, w, g) E_UNIT2(NK_SRC_CLASSIC, NK_FADE_LINEAR, x, y, z, w, g)
#define E_CLASSIC_C2(x, y, z, w, g) E_UNIT2(NK_SRC_CLASSIC, NK_FADE_CUBIC, x, y, z, w, g)
#define E_CLASSIC_Q2(x, y, z, w, g) E_UNIT2(NK_SRC_CLASSIC, NK_FADE_QUINTIC, x, y, z, w, g)
#define E_CLASSIC_L3(x, y, z, w, g) E_UNIT3(NK_SRC_CLASSIC, NK_FADE_LINEAR, x, y, z, w, g)
#define E_CLASSIC_C3(x, y, z, w, g) E_UNIT3(NK_SRC_CLASSIC, NK_FADE_CUBIC, x, y, z, w, g)
#define E_CLASSIC_Q3(x, y, z, w, g) E_UNIT3(NK_SRC_CLASSIC, NK_FADE_QUINTIC, x, y, z, w, g)
#define E_PERLIN_ANGLE2(x, y, z, w, g) E_UNIT2(NK_SRC_ANGLE, NK_FADE_QUINTIC, x, y, z, w, g)
#define E_PERLIN_ANGLE3(x, y, z, w, g) E_UNIT3(NK_SRC_ANGLE, NK_FADE_QUINTIC, x, y, z, w, g)
NE_DEFINE_LOOPS(classic_l2, E_CLASSIC_L2, 0)
NE_DEFINE_LOOPS(classic_c2, E_CLASSIC_C2, 0)
NE_DEFINE_LOOPS(classic_q2, E_CLASSIC_Q2, 0)
NE_DEFINE_LOOPS(classic_l3, E_CLASSIC_L3, 1)
NE_DEFINE_LOOPS(classic_c3, E_CLASSIC_C3, 1)
NE_DEFINE_LOOPS(classic_q3, E_CLASSIC_Q3, 1)
NE_DEFINE_LOOPS(perlin_angle2, E_PERLIN_ANGLE2, 0)
NE_DEFINE_LOOPS(perlin_angle3, E_PERLIN_ANGLE3, 1)
/* simplex with gradients (t: table, a: angle) and falloff (c: classic, q: quartic) */
#define E_VAR2(SRC, FO, x, y, z, w, g) ((void)(z), nk_var_tri2(SRC, FO, NE_SEED, x, y, w, g))
#define E_VAR3(SRC, FO, x, y, z, w, g) ((void)(z), ne_flat3(nk_var_tri2(SRC, FO, NE_SEED, x, y, w, g), w, g))
#define E_SIMPLEX_AC2(x, y, z, w, g) E_VAR2(NK_SRC_ANGLE, NK_FALLOFF_CLASSIC, x, y, z, w, g)
#define E_SIMPLEX_TQ2(x, y, z, w, g) E_VAR2(NK_SRC_TABLE, NK_FALLOFF_QUARTIC, x, y, z, w, g)
#define E_SIMPLEX_AQ2(x, y, z, w, g) E_VAR2(NK_SRC_ANGLE, NK_FALLOFF_QUARTIC, x, y, z, w, g)
#define E_SIMPLEX_AC3(x, y, z, w, g) E_VAR3(NK_SRC_ANGLE, NK_FALLOFF_CLASSIC, x, y, z, w, g)
#define E_SIMPLEX_TQ3(x, y, z, w, g) E_VAR3(NK_SRC_TABLE, NK_FALLOFF_QUARTIC, x, y, z, w, g)
#define E_SIMPLEX_AQ3(x, y, z, w, g) E_VAR3(NK_SRC_ANGLE, NK_FALLOFF_QUARTIC, x, y, z, w, g)
NE_DEFINE_LOOPS(simplex_ac2, E_SIMPLEX_AC2, 0)
NE_DEFINE_LOOPS(simplex_tq2, E_SIMPLEX_TQ2, 0)
NE_DEFINE_LOOPS(simplex_aq2, E_SIMPLEX_AQ2, 0)
NE_DEFINE_LOOPS(simplex_ac3, E_SIMPLEX_AC3, 1)
NE_DEFINE_LOOPS(simplex_tq3, E_SIMPLEX_TQ3, 1)
NE_DEFINE_LOOPS(simplex_aq3, E_SIMPLEX_AQ3, 1)

/* Rows of the 2D square lattice share the row's y work (cell row, fade)
 * and the corner hashes while x stays in a cell; the right corners of one
 * cell become the left corners of the next. Sample i is at plane x =
 * xs[i], or x0 + i * step when xs is NULL. Output (to_float 0): doubles
 * v, g (noise units); 1: the finished one-octave fbm field straight into
 * the caller's floats (gradient (af * g) / sum, as ne_layer_eval); 2: the
 * octave added into fbm sums v, g (as ne_layer_eval's fbm step). */
NK_INLINE void ne_sq2_row(int mode, int want_grad, int to_float, const ne_layer *L, int k, int n,
                          const double *xs, double x0, double step, double y, double *v, ne_grad g, float *fv,
                          float *fg)
{
    uint32_t s = nl_seed(L->seed[k]), per = L->period[k];
    double f = L->freq[k], ty;
    uint64_t j = nl_floor(y * f, &ty), j0 = nl_wrap(j, per), j1 = nl_wrap(j + 1, per);
    double sy = nl_fade(ty), dsy = nl_dfade(ty);
    /* to_float 1: octave 0 of a one-octave fbm; 2: octave k of an fbm sum */
    double af = L->amp_freq[to_float == 2 ? k : 0], sum = L->amp_sum, amp = L->amp[k];
    int scaled = af != 1.0 || sum != 1.0;
    uint64_t ci = 0;
    int have = 0;
    uint32_t ha = 0, hb = 0, hc = 0, hd = 0;
    nk_cell2 c = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    /* [lo, hi): the current cell, when it is exact in doubles; inside it
     * the fraction is x - lo + 0.0, which is what nl_floor computes */
    double lo = 1.0, hi = 0.0;
    for (int i = 0; i < n; i++) {
        double x = (xs ? xs[i] : x0 + (double)i * step) * f, tx, gd[2];
        if (x >= lo && x < hi) {
            tx = x - lo + 0.0;
        } else {
            uint64_t ii = nl_floor(x, &tx);
            if (have && ii == ci + 1) {
                ha = hc;
                hb = hd;
            } else {
                nk_sq2_column(s, nl_wrap(ii, per), j0, j1, &ha, &hb);
            }
            nk_sq2_column(s, nl_wrap(ii + 1, per), j0, j1, &hc, &hd);
            ci = ii;
            have = 1;
            double flo = (double)(int64_t)ii;
            if (fabs(x) < 4503599627370496.0 && flo == x - tx) {
                lo = flo;
                hi = flo + 1.0;
            } else {
                lo = 1.0; /* empty: every sample takes nl_floor */
                hi = 0.0;
            }
            if (mode == NK_MODE_VALUE)
                nk_value2_cell(ha, hb, hc, hd, sy, dsy, want_grad, &c);
            else
                nk_perlin2_cell(ha, hb, hc, hd, ty, sy, dsy, want_grad, &c);
        }
        double val;
        if (mode == NK_MODE_VALUE)
            val = nk_value2_sample(&c, tx, want_grad, gd);
        else
            val = nk_perlin2_sample(&c, tx, want_grad, gd);
        if (to_float == 2) {
            v[i] += amp * val;
            if (want_grad) {
                g[0][i] += af * gd[0];
                g[1][i] += af * gd[1];
            }
        } else if (!to_float) {
            v[i] = val;
            if (want_grad) {
                g[0][i] = gd[0];
                g[1][i] = gd[1];
            }
        } else {
            fv[i] = (float)val;
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

/* Rows of the triangle lattice keep the corner hashes of the skewed cell
 * while the samples stay in it (about 28 samples per cell at 16 per unit). */
NK_INLINE void ne_tri2_row(int mode, int want_grad, const ne_layer *L, int k, int n, const double *xs, double y,
                           double *v, ne_grad g)
{
    uint32_t s = nl_seed(L->seed[k]), h[4] = { 0, 0, 0, 0 };
    double f = L->freq[k], qy = y * f;
    uint64_t ci = 0, cj = 0;
    int have = 0;
    for (int i = 0; i < n; i++) {
        uint64_t ii, jj;
        double fx, fy, gd[2];
        nk_tri2_lattice(xs[i] * f, qy, &ii, &jj, &fx, &fy);
        if (!have || ii != ci || jj != cj) {
            nk_tri2_hashes(s, ii, jj, h);
            ci = ii;
            cj = jj;
            have = 1;
        }
        v[i] = nk_tri2_blend(mode, h, fx, fy, want_grad, gd);
        if (want_grad) {
            g[0][i] = gd[0];
            g[1][i] = gd[1];
        }
    }
}

#define NE_TRI2_ROWS(name, MODE)                                                                        \
    static void name##_fastrow_v(const ne_layer *L, int k, int n, const double *xs, double y, double t, \
                                 double *v, ne_grad g)                                                  \
    {                                                                                                   \
        (void)t;                                                                                        \
        ne_tri2_row(MODE, 0, L, k, n, xs, y, v, g);                                                     \
    }                                                                                                   \
    static void name##_fastrow_g(const ne_layer *L, int k, int n, const double *xs, double y, double t, \
                                 double *v, ne_grad g)                                                  \
    {                                                                                                   \
        (void)t;                                                                                        \
        ne_tri2_row(MODE, 1, L, k, n, xs, y, v, g);                                                     \
    }
NE_TRI2_ROWS(value_tri2, NK_MODE_VALUE)
NE_TRI2_ROWS(perlin_tri2, NK_MODE_PERLIN)
NE_TRI2_ROWS(simplex_tri2, NK_MODE_SIMPLEX)

/* Rows of classic (and perlin with gradients=angle) keep the cell's four
 * corner gradients (four sines and cosines) while x stays in the cell; the
 * right corners of one cell are the left corners of the next. */
NK_INLINE void ne_classic_row(int src, int fade, int want_grad, const ne_layer *L, int k, int n, const double *xs,
                              double y, double *v, ne_grad g)
{
    uint32_t state = nk_unit2_state(src, L->seed[k]), per = L->period[k];
    double f = L->freq[k], ty;
    uint64_t j = nl_floor(y * f, &ty), ci = 0;
    int have = 0;
    nk_classic_cell c = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 } };
    for (int i = 0; i < n; i++) {
        double tx, gd[2];
        uint64_t ii = nl_floor(xs[i] * f, &tx);
        if (!have || ii != ci) {
            if (have && ii == ci + 1) {
                c.gx[0] = c.gx[1];
                c.gy[0] = c.gy[1];
                c.gx[2] = c.gx[3];
                c.gy[2] = c.gy[3];
                nk_unit2_grad(src, state, nl_wrap(ii + 1, per), nl_wrap(j, per), &c.gx[1], &c.gy[1]);
                nk_unit2_grad(src, state, nl_wrap(ii + 1, per), nl_wrap(j + 1, per), &c.gx[3], &c.gy[3]);
            } else {
                nk_classic_cell_at(src, state, ii, j, per, &c);
            }
            ci = ii;
            have = 1;
        }
        v[i] = nk_classic_blend(fade, &c, tx, ty, want_grad, gd);
        if (want_grad) {
            g[0][i] = gd[0];
            g[1][i] = gd[1];
        }
    }
}

#define NE_CLASSIC_ROWS(name, SRC, FADE)                                                                \
    static void name##_fastrow_v(const ne_layer *L, int k, int n, const double *xs, double y, double t, \
                                 double *v, ne_grad g)                                                  \
    {                                                                                                   \
        (void)t;                                                                                        \
        ne_classic_row(SRC, FADE, 0, L, k, n, xs, y, v, g);                                             \
    }                                                                                                   \
    static void name##_fastrow_g(const ne_layer *L, int k, int n, const double *xs, double y, double t, \
                                 double *v, ne_grad g)                                                  \
    {                                                                                                   \
        (void)t;                                                                                        \
        ne_classic_row(SRC, FADE, 1, L, k, n, xs, y, v, g);                                             \
    }
NE_CLASSIC_ROWS(classic_l2, NK_SRC_CLASSIC, NK_FADE_LINEAR)
NE_CLASSIC_ROWS(classic_c2, NK_SRC_CLASSIC, NK_FADE_CUBIC)
NE_CLASSIC_ROWS(classic_q2, NK_SRC_CLASSIC, NK_FADE_QUINTIC)
NE_CLASSIC_ROWS(perlin_angle2, NK_SRC_ANGLE, NK_FADE_QUINTIC)

/* The square-lattice 2D rows of one kind, each a call of the inlined
 * ne_sq2_row with constant flags, so the compiler builds one loop per use:
 * fastrow_v / fastrow_g write one octave's values (and gradients), acc adds
 * an octave into fBm accumulators, floatrow writes a one-octave tile
 * straight into the caller's floats. */
#define NE_SQ2_ROWS(name, MODE)                                                                         \
    static void name##_fastrow_v(const ne_layer *L, int k, int n, const double *xs, double y, double t, \
                                 double *v, ne_grad g)                                                  \
    {                                                                                                   \
        (void)t;                                                                                        \
        ne_sq2_row(MODE, 0, 0, L, k, n, xs, 0, 0, y, v, g, NULL, NULL);                                 \
    }                                                                                                   \
    static void name##_fastrow_g(const ne_layer *L, int k, int n, const double *xs, double y, double t, \
                                 double *v, ne_grad g)                                                  \
    {                                                                                                   \
        (void)t;                                                                                        \
        ne_sq2_row(MODE, 1, 0, L, k, n, xs, 0, 0, y, v, g, NULL, NULL);                                 \
    }                                                                                                   \
    static void name##_acc(const ne_layer *L, int k, int n, const double *xs, double y, double *acc_v,  \
                           ne_grad acc_g)                                                               \
    {                                                                                                   \
        if (acc_g)                                                                                      \
            ne_sq2_row(MODE, 1, 2, L, k, n, xs, 0, 0, y, acc_v, acc_g, NULL, NULL);                     \
        else                                                                                            \
            ne_sq2_row(MODE, 0, 2, L, k, n, xs, 0, 0, y, acc_v, NULL, NULL, NULL);                      \
    }                                                                                                   \
    /* one row, a function of its own (inlined into the rows loop, the   \
     * gradient row measured 5 % more instructions) */                                                 \
    static __attribute__((noinline)) void name##_floatrow1(const ne_layer *L, int n, double x0,         \
                                                           double step, double y, float *fv, float *fg) \
    {                                                                                                   \
        if (fg)                                                                                         \
            ne_sq2_row(MODE, 1, 1, L, 0, n, NULL, x0, step, y, NULL, NULL, fv, fg);                     \
        else                                                                                            \
            ne_sq2_row(MODE, 0, 1, L, 0, n, NULL, x0, step, y, NULL, NULL, fv, NULL);                   \
    }                                                                                                   \
    static void name##_floatrow(const ne_layer *L, int n, int rows, int row0, double x0, double step,   \
                                double y0, float *fv, float *fg)                                        \
    {                                                                                                   \
        for (int r = 0; r < rows; r++) {                                                                \
            size_t at = (size_t)r * (size_t)n;                                                          \
            name##_floatrow1(L, n, x0, step, y0 + (double)(row0 + r) * step, fv + at,                   \
                             fg ? fg + 2 * at : NULL);                                                  \
        }                                                                                               \
    }
NE_SQ2_ROWS(value_sq2, NK_MODE_VALUE)
NE_SQ2_ROWS(perlin_sq2, NK_MODE_PERLIN)

/* Cellular rows: a column cache of the cells around the samples
 * (noise_cellular.h); 2D one-octave tiles straight into floats. */
#define NE_CELL_ROWS(name, D3)                                                                          \
    static void name##_fastrow_v(const ne_layer *L, int k, int n, const double *xs, double y, double t, \
                                 double *v, ne_grad g)                                                  \
    {                                                                                                   \
        nc_row(D3, 0, 0, L, k, n, xs, 0, 0, y, t, v, g, NULL, NULL);                                    \
    }                                                                                                   \
    static void name##_fastrow_g(const ne_layer *L, int k, int n, const double *xs, double y, double t, \
                                 double *v, ne_grad g)                                                  \
    {                                                                                                   \
        nc_row(D3, 1, 0, L, k, n, xs, 0, 0, y, t, v, g, NULL, NULL);                                    \
    }
NE_CELL_ROWS(cellular2, 0)
NE_CELL_ROWS(cellular3, 1)
NC_FLOAT_ROWS(cellular2_floatrow, , nc_row)

/* The table's entries (ne_base, noise_field.h; a field not named is NULL
 * or 0): the four loops (rows by name_row_*, or by the faster
 * name_fastrow_*), and the fbm rows and float grids where there are some. */
#define NE_BASE(name) { .row_v = name##_row_v, .row_g = name##_row_g, .pts_v = name##_pts_v, .pts_g = name##_pts_g }
#define NE_FAST_FIELDS(name)                                                                            \
    .row_v = name##_fastrow_v, .row_g = name##_fastrow_g, .pts_v = name##_pts_v, .pts_g = name##_pts_g
#define NE_FASTBASE(name) { NE_FAST_FIELDS(name) }
#define NE_SQ2BASE(name) { NE_FAST_FIELDS(name), .row_acc = name##_acc, .float_row = name##_floatrow }

#define NE_CELLBASE2 { NE_FAST_FIELDS(cellular2), .float_row = cellular2_floatrow }

/* The scalar reference, indexed by [kind][variant][d3] (ne_variant()); improved and
 * cellular ignore the variant. */
const ne_base_table ne_bases_scalar = {
    [NOISE_VALUE] = {
        [NOISE_SQUARE] = { NE_SQ2BASE(value_sq2), NE_BASE(value_sq3) },
        [NOISE_TRIANGLE] = { NE_FASTBASE(value_tri2), NE_BASE(value_tet3) },
    },
    [NOISE_PERLIN] = {
        [NOISE_SQUARE] = { NE_SQ2BASE(perlin_sq2), NE_BASE(perlin_sq3) },
        [NOISE_TRIANGLE] = { NE_FASTBASE(perlin_tri2), NE_BASE(perlin_tet3) },
        [NE_PERLIN_ANGLE_SQUARE] = { NE_FASTBASE(perlin_angle2), NE_BASE(perlin_angle3) },
        [NE_PERLIN_ANGLE_TRIANGLE] = { NE_BASE(simplex_ac2), NE_BASE(simplex_ac3) },
    },
    [NOISE_SIMPLEX] = {
        [NE_SIMPLEX_TABLE_CLASSIC] = { NE_FASTBASE(simplex_tri2), NE_BASE(simplex_tet3) },
        [NE_SIMPLEX_ANGLE_CLASSIC] = { NE_BASE(simplex_ac2), NE_BASE(simplex_ac3) },
        [NE_SIMPLEX_TABLE_QUARTIC] = { NE_BASE(simplex_tq2), NE_BASE(simplex_tq3) },
        [NE_SIMPLEX_ANGLE_QUARTIC] = { NE_BASE(simplex_aq2), NE_BASE(simplex_aq3) },
    },
    [NOISE_IMPROVED] = {
        [NOISE_SQUARE] = { NE_BASE(improved2), NE_BASE(improved3) },
        [NOISE_TRIANGLE] = { NE_BASE(improved2), NE_BASE(improved3) },
    },
    [NOISE_CELLULAR] = {
        [NOISE_SQUARE] = { NE_CELLBASE2, NE_FASTBASE(cellular3) },
        [NOISE_TRIANGLE] = { NE_CELLBASE2, NE_FASTBASE(cellular3) },
    },
    [NOISE_CLASSIC] = {
        [NOISE_FADE_LINEAR] = { NE_FASTBASE(classic_l2), NE_BASE(classic_l3) },
        [NOISE_FADE_CUBIC] = { NE_FASTBASE(classic_c2), NE_BASE(classic_c3) },
        [NOISE_FADE_QUINTIC] = { NE_FASTBASE(classic_q2), NE_BASE(classic_q3) },
    },
};

/* ---- field setup ---- */

/* The scalar loops, with the active path's vector twins where it has them
 * (for periodic layers only where they wrap the indices: ne_base.wraps). */
static ne_base ne_pick_base(int kind, int variant, int d3, int periodic)
{
    ne_base b = ne_bases_scalar[kind][variant][d3];
    const ne_base_table *vt = ne_active_bases();
    if (vt && vt != &ne_bases_scalar && (!periodic || (*vt)[kind][variant][d3].wraps)) {
        const ne_base *v = &(*vt)[kind][variant][d3];
        if (v->row_v) b.row_v = v->row_v;
        if (v->row_g) b.row_g = v->row_g;
        if (v->pts_v) b.pts_v = v->pts_v;
        if (v->pts_g) b.pts_g = v->pts_g;
        if (v->row_acc) {
            b.row_acc = v->row_acc;
            b.acc_values = v->acc_values;
            b.band_acc = v->band_acc;
        }
        if (v->float_row) b.float_row = v->float_row;
        if (v->fbm_pts) b.fbm_pts = v->fbm_pts;
    }
    return b;
}

/* The base-table variant of a spec's kind (noise_field.h). */
static int ne_variant(const noise_spec *spec, int kind)
{
    int angle = spec->gradients == NOISE_GRADIENTS_ANGLE;
    if (kind == NOISE_CLASSIC)
        return (unsigned)spec->fade < NOISE_FADE_COUNT ? (int)spec->fade : NOISE_FADE_LINEAR;
    if (kind == NOISE_SIMPLEX)
        return angle + 2 * (spec->falloff == NOISE_FALLOFF_QUARTIC);
    int lattice = (unsigned)spec->lattice < NOISE_LATTICE_COUNT ? (int)spec->lattice : NOISE_SQUARE;
    return kind == NOISE_PERLIN ? lattice + 2 * angle : lattice;
}

static void ne_layer_init(ne_layer *L, const noise_spec *spec, uint32_t seed, int d3,
                          unsigned char (*perm)[NE_PERM_SIZE])
{
    int kind = (unsigned)spec->kind < NOISE_KIND_COUNT ? (int)spec->kind : NOISE_VALUE;
    double period = ne_spec_periodic(spec) ? spec->period : 0.0;
    int periodic = 0;
    L->d3 = d3 != 0;
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
        L->perm[k] = kind == NOISE_IMPROVED ? perm[k] : NULL;
        L->period[k] = period > 0 ? ne_period_cells(period, L->freq[k], NULL) : 0;
        periodic |= L->period[k] != 0;
    }
    L->amp_sum = sum;
    L->base = ne_pick_base(kind, ne_variant(spec, kind), d3 ? 1 : 0, periodic);
    nc_setup(&L->cell, spec, L->d3);
}

static uint32_t ne_layer_seed(const noise_spec *spec, int layer)
{
    return layer == 0 ? spec->seed : nl_derive(spec->seed, layer == 1 ? NL_SALT_WARP_X : NL_SALT_WARP_Y);
}

static void ne_field_init(ne_field *F, const noise_spec *spec, int d3, double t,
                          unsigned char (*perm)[NE_MAX_OCTAVES][NE_PERM_SIZE])
{
    F->d3 = d3;
    F->t = d3 ? t : 0.0;
    F->warp = spec->warp > 0 ? spec->warp : 0.0;
    F->n_layers = F->warp > 0 ? 3 : 1;
    for (int l = 0; l < F->n_layers; l++)
        ne_layer_init(&F->layer[l], spec, ne_layer_seed(spec, l), d3, perm[l]);
}

/* Fills the prepared field: permutations once (improved), then the shapes
 * asked for (planar: the spec's 2D or has_t evaluation; solid: 3D points). */
static void ne_prepare(struct noise_field *F, const noise_spec *spec, int planar, int solid)
{
    F->spec = *spec;
    if (spec->kind == NOISE_IMPROVED) {
        int n_layers = spec->warp > 0 ? 3 : 1;
        int n = spec->octaves < 1 ? 1 : spec->octaves > NE_MAX_OCTAVES ? NE_MAX_OCTAVES : spec->octaves;
        for (int l = 0; l < n_layers; l++) {
            uint32_t seed = ne_layer_seed(spec, l);
            for (int k = 0; k < n; k++)
                ne_build_perm(k == 0 ? seed : nl_derive(seed, (uint32_t)k), F->perm[l][k]);
        }
    }
    if (planar)
        ne_field_init(&F->planar, spec, spec->has_t != 0, spec->t, F->perm);
    if (solid)
        ne_field_init(&F->solid, spec, 1, 0.0, F->perm);
}

/* ---- fractal accumulation (shared by points and grids) ---- */

/* The layer's sum over octaves at up to NE_CHUNK points, gradients in plane
 * units; w, wg: the ridged weight for the next octave and its gradient. */
typedef struct {
    double v[NE_CHUNK];
    ne_grad g;
    double w[NE_CHUNK];
    ne_grad wg;
} ne_acc;

/* in two steps, without a branch (min/max instructions; NaN stays NaN) */
static inline double ne_clamp1(double v)
{
    v = v < -1.0 ? -1.0 : v;
    return v > 1.0 ? 1.0 : v;
}

/* out[i] = ne_clamp1(v) for i < n, v = in[i] (NE_CLAMP_ONLY), in[i] / sum
 * (NE_CLAMP_DIV: fbm) or 2.0 * in[i] / sum - 1.0 (NE_CLAMP_RIDGE: turbulence
 * and ridged), the scalar expressions in their order. Two at a time where
 * the baseline has SSE2: maxpd(-1, v) is v < -1 ? -1 : v and minpd(1, v)
 * is v > 1 ? 1 : v lane by lane (NaN and -0 kept), so the bytes are the
 * scalar loop's; a batch of points spent a sixth of its time (perf) in the
 * scalar loop. */
enum { NE_CLAMP_ONLY, NE_CLAMP_DIV, NE_CLAMP_RIDGE };
static void ne_clamp_n(int op, double *out, const double *in, int n, double sum)
{
    int i = 0;
#ifdef __SSE2__
    const __m128d lo = _mm_set1_pd(-1.0), hi = _mm_set1_pd(1.0), two = _mm_set1_pd(2.0), vs = _mm_set1_pd(sum);
    for (; i + 2 <= n; i += 2) {
        __m128d v = _mm_loadu_pd(in + i);
        if (op == NE_CLAMP_DIV)
            v = _mm_div_pd(v, vs);
        else if (op == NE_CLAMP_RIDGE)
            v = _mm_sub_pd(_mm_div_pd(_mm_mul_pd(two, v), vs), hi);
        _mm_storeu_pd(out + i, _mm_min_pd(hi, _mm_max_pd(lo, v)));
    }
#endif
    for (; i < n; i++) {
        double v = in[i];
        if (op == NE_CLAMP_DIV)
            v = v / sum;
        else if (op == NE_CLAMP_RIDGE)
            v = 2.0 * v / sum - 1.0;
        out[i] = ne_clamp1(v);
    }
}

/* out[i] = (k * in[i]) / sum for i < n, or in[i] / sum where k is 1 (the
 * scalar expressions; x * 1 is an exact no-op), two at a time where the
 * baseline has SSE2 (mulpd and divpd round each lane as mulsd and divsd):
 * the gradients' divisions by the amplitude sum, which the values share
 * with the clamp above (a 6-octave fill spent more of its gradient time
 * in two scalar divisions per sample than in the values' one). */
static void ne_scale_n(double *out, const double *in, int n, double k, double sum)
{
    int i = 0;
#ifdef __SSE2__
    const __m128d vk = _mm_set1_pd(k), vs = _mm_set1_pd(sum);
    for (; i + 2 <= n; i += 2) {
        __m128d v = _mm_loadu_pd(in + i);
        if (k != 1.0)
            v = _mm_mul_pd(vk, v);
        _mm_storeu_pd(out + i, _mm_div_pd(v, vs));
    }
#endif
    for (; i < n; i++)
        out[i] = (k != 1.0 ? k * in[i] : in[i]) / sum;
}

/* One layer at n <= NE_CHUNK points (xs, and ys or every point at y =
 * row_y). out_g: NULL for values only; plane-unit gradient otherwise. */
static void ne_layer_eval(const ne_layer *L, int n, const double *xs, const double *ys, double row_y, double t,
                          double *out_v, ne_grad out_g)
{
    int want = out_g != NULL, nc = L->d3 ? 3 : 2;
    if (L->n_oct == 1 && L->fractal == NOISE_FBM) {
        /* one octave of fbm is the base field: (1 * n) / 1 */
        if (ys)
            (want ? L->base.pts_g : L->base.pts_v)(L, 0, n, xs, ys, t, out_v, out_g);
        else
            (want ? L->base.row_g : L->base.row_v)(L, 0, n, xs, row_y, t, out_v, out_g);
        ne_clamp_n(NE_CLAMP_ONLY, out_v, out_v, n, 1.0); /* see below */
        /* (af * g) / sum, skipping the exact no-ops (x * 1, x / 1) */
        double af = L->amp_freq[0], sum = L->amp_sum;
        if (want && (af != 1.0 || sum != 1.0))
            for (int c = 0; c < nc; c++)
                ne_scale_n(out_g[c], out_g[c], n, af, sum);
        return;
    }
    ne_acc a;
    double nv[NE_CHUNK];
    ne_grad ng;
    /* the weights (w, wg) are the ridged multifractal's alone */
    int ridged = L->fractal != NOISE_FBM && L->fractal != NOISE_TURBULENCE;
    for (int i = 0; i < n; i++)
        a.v[i] = 0;
    if (ridged)
        for (int i = 0; i < n; i++)
            a.w[i] = 1.0;
    if (want)
        for (int c = 0; c < nc; c++)
            for (int i = 0; i < n; i++)
                a.g[c][i] = 0;
    if (want && ridged)
        for (int c = 0; c < nc; c++)
            for (int i = 0; i < n; i++)
                a.wg[c][i] = 0;
    for (int k = 0; k < L->n_oct; k++) {
        if (L->fractal == NOISE_FBM && !ys && L->base.row_acc && (want || L->base.acc_values)) {
            /* the same fbm step as below, fused into the row loop (with
             * gradients: three sums; for values alone the scalar loop
             * measured slower fused, the vector ones faster) */
            L->base.row_acc(L, k, n, xs, row_y, a.v, want ? a.g : NULL);
            continue;
        }
        if (ys)
            (want ? L->base.pts_g : L->base.pts_v)(L, k, n, xs, ys, t, nv, ng);
        else
            (want ? L->base.row_g : L->base.row_v)(L, k, n, xs, row_y, t, nv, ng);
        double amp = L->amp[k], af = L->amp_freq[k], freq = L->freq[k];
        switch (L->fractal) {
        case NOISE_FBM:
            for (int i = 0; i < n; i++)
                a.v[i] += amp * nv[i];
            if (want)
                for (int c = 0; c < nc; c++)
                    for (int i = 0; i < n; i++)
                        a.g[c][i] += af * ng[c][i];
            break;
        case NOISE_TURBULENCE:
            /* |n|: the gradient flips sign with n */
            for (int i = 0; i < n; i++) {
                double s = nv[i] < 0 ? -1.0 : 1.0;
                a.v[i] += amp * (s * nv[i]);
                if (want) {
                    double sf = s * af;
                    for (int c = 0; c < nc; c++)
                        a.g[c][i] += sf * ng[c][i];
                }
            }
            break;
        default:
            /* Musgrave's ridged multifractal: signal = (1 - |n|)^2 * w,
             * w = clamp(2 * previous signal, 0, 1), exact gradient through
             * the weight (0 where the clamp holds) */
            for (int i = 0; i < n; i++) {
                double s = nv[i] < 0 ? -1.0 : 1.0;
                double r = 1.0 - s * nv[i];
                double w = a.w[i];
                double sig = r * r * w;
                double w2 = sig * 2.0;
                a.v[i] += amp * sig;
                if (want) {
                    double kk = -2.0 * r * s * w * freq;
                    for (int c = 0; c < nc; c++) {
                        double dsig = kk * ng[c][i] + (r * r) * a.wg[c][i];
                        a.g[c][i] += amp * dsig;
                        a.wg[c][i] = w2 < 1.0 ? 2.0 * dsig : 0.0;
                    }
                }
                a.w[i] = w2 < 1.0 ? w2 : 1.0;
            }
            break;
        }
    }
    double sum = L->amp_sum;
    /* Values are clamped to [-1, 1]: interpolation and the sums round, and
     * near a lattice value of +-1 they land a few ulps outside (fuzz_points
     * found -1.0000000000000004; tests/unit/test_fuzz_regress.c). */
    if (L->fractal == NOISE_FBM) {
        ne_clamp_n(NE_CLAMP_DIV, out_v, a.v, n, sum);
        if (want)
            for (int c = 0; c < nc; c++)
                ne_scale_n(out_g[c], a.g[c], n, 1.0, sum);
    } else {
        /* sum |n| or the signals lie in [0, sum]: map to [-1, 1] */
        ne_clamp_n(NE_CLAMP_RIDGE, out_v, a.v, n, sum);
        if (want)
            for (int c = 0; c < nc; c++)
                ne_scale_n(out_g[c], a.g[c], n, 2.0, sum);
    }
}

/* The whole field (warp included) at n <= NE_CHUNK points. */
static void ne_field_eval(const ne_field *F, int n, const double *xs, const double *ys, double row_y,
                          double *out_v, ne_grad out_g)
{
    if (F->n_layers == 1) {
        ne_layer_eval(&F->layer[0], n, xs, ys, row_y, F->t, out_v, out_g);
        return;
    }
    double w1[NE_CHUNK], w2[NE_CHUNK], px[NE_CHUNK], py[NE_CHUNK];
    ne_grad g0, g1, g2;
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
        /* p' = p + warp (w1, w2): grad = J^T grad0, J = I + warp [dw1; dw2] */
        double d0x = g0[0][i], d0y = g0[1][i];
        out_g[0][i] = d0x * (1.0 + a * g1[0][i]) + d0y * (a * g2[0][i]);
        out_g[1][i] = d0x * (a * g1[1][i]) + d0y * (1.0 + a * g2[1][i]);
        if (F->d3)
            out_g[2][i] = d0x * (a * g1[2][i]) + d0y * (a * g2[2][i]) + g0[2][i];
    }
}

/* The graph evaluator's entry (noise_field.h). 3D samples are evaluated
 * in runs of equal t (one run when every sample shares a t), each as
 * ne_points evaluates a 3D point. */
void ne_field_chunk(const noise_field *field, int n, const double *xs, const double *ys, double row_y,
                    const double *ts, double *out_v, ne_grad out_g)
{
    if (!ts) {
        ne_field_eval(&field->planar, n, xs, ys, row_y, out_v, out_g);
        return;
    }
    ne_field F = field->solid;
    ne_grad g;
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && memcmp(&ts[j], &ts[i], sizeof(double)) == 0)
            j++;
        F.t = ts[i];
        if (i == 0 && j == n) {
            ne_field_eval(&F, n, xs, ys, 0.0, out_v, out_g);
            return;
        }
        ne_field_eval(&F, j - i, xs + i, ys + i, 0.0, out_v + i, out_g ? g : NULL);
        if (out_g)
            for (int c = 0; c < 3; c++)
                memcpy(&out_g[c][i], g[c], (size_t)(j - i) * sizeof(double));
        i = j;
    }
}

/* ---- public ---- */

static double ne_point(const ne_field *planar, const ne_field *solid, const double *p, int dims, double *grad,
                       int *n_grad)
{
    ne_field F3;
    const ne_field *F = planar;
    if (dims == 3) {
        F3 = *solid;
        F3.t = p[2];
        F = &F3;
    }
    double v;
    ne_grad gbuf; /* chunk-sized; the point is column 0 */
    ne_field_eval(F, 1, &p[0], &p[1], 0.0, &v, grad ? gbuf : NULL);
    if (grad) {
        grad[0] = gbuf[0][0];
        grad[1] = gbuf[1][0];
        if (F->d3)
            grad[2] = gbuf[2][0];
    }
    if (n_grad)
        *n_grad = F->d3 ? 3 : 2;
    return v;
}

/* (x, y) pairs into xs[], ys[], and back: two pairs per step where the
 * baseline has SSE2 (every x86-64), which a batch's per-point cost shows. */
static void ne_deinterleave(const double *points, int m, double *xs, double *ys)
{
    int i = 0;
#ifdef __SSE2__
    for (; i + 2 <= m; i += 2) {
        __m128d a = _mm_loadu_pd(points + 2 * i), b = _mm_loadu_pd(points + 2 * i + 2);
        _mm_storeu_pd(xs + i, _mm_unpacklo_pd(a, b));
        _mm_storeu_pd(ys + i, _mm_unpackhi_pd(a, b));
    }
#endif
    for (; i < m; i++) {
        xs[i] = points[2 * i];
        ys[i] = points[2 * i + 1];
    }
}

static void ne_interleave(const double *xs, const double *ys, int m, double *out)
{
    int i = 0;
#ifdef __SSE2__
    for (; i + 2 <= m; i += 2) {
        __m128d a = _mm_loadu_pd(xs + i), b = _mm_loadu_pd(ys + i);
        _mm_storeu_pd(out + 2 * i, _mm_unpacklo_pd(a, b));
        _mm_storeu_pd(out + 2 * i + 2, _mm_unpackhi_pd(a, b));
    }
#endif
    for (; i < m; i++) {
        out[2 * i] = xs[i];
        out[2 * i + 1] = ys[i];
    }
}

static void ne_points(const ne_field *planar, const ne_field *solid, size_t n_points, const double *points,
                      int dims, double *out_values, double *out_grads)
{
    ne_grad g;
    if (dims == 3) {
        /* t varies per point: one point at a time */
        ne_field F = *solid;
        for (size_t i = 0; i < n_points; i++) {
            const double *p = points + 3 * i;
            F.t = p[2];
            ne_field_eval(&F, 1, &p[0], &p[1], 0.0, &out_values[i], out_grads ? g : NULL);
            if (out_grads)
                for (int c = 0; c < 3; c++)
                    out_grads[3 * i + c] = g[c][0];
        }
        return;
    }
    const ne_field *F = planar;
    const ne_layer *L = &F->layer[0];
    if (F->n_layers == 1 && !F->d3 && L->fractal == NOISE_FBM && L->base.fbm_pts) {
        /* the whole batch straight from and into the caller's pairs */
        L->base.fbm_pts(L, n_points, points, out_values, out_grads);
        return;
    }
    int gn = F->d3 ? 3 : 2;
    double xs[NE_CHUNK], ys[NE_CHUNK];
    for (size_t i0 = 0; i0 < n_points; i0 += NE_CHUNK) {
        int m = n_points - i0 < NE_CHUNK ? (int)(n_points - i0) : NE_CHUNK;
        ne_deinterleave(points + 2 * i0, m, xs, ys);
        ne_field_eval(F, m, xs, ys, 0.0, out_values + i0, out_grads ? g : NULL);
        if (out_grads && gn == 2)
            ne_interleave(g[0], g[1], m, out_grads + 2 * i0);
        else if (out_grads)
            for (int i = 0; i < m; i++)
                for (int c = 0; c < gn; c++)
                    out_grads[(i0 + i) * gn + c] = g[c][i];
    }
}

/* out[2i] = (float)a[i], out[2i + 1] = (float)b[i] for i < n; two at a
 * time where the baseline has SSE2 (cvtpd2ps rounds each lane as the
 * cast's cvtsd2ss does, in the same rounding mode). */
static void ne_floats2(float *out, const double *a, const double *b, int n)
{
    int i = 0;
#ifdef __SSE2__
    for (; i + 2 <= n; i += 2)
        _mm_storeu_ps(out + 2 * i, _mm_unpacklo_ps(_mm_cvtpd_ps(_mm_loadu_pd(a + i)), _mm_cvtpd_ps(_mm_loadu_pd(b + i))));
#endif
    for (; i < n; i++) {
        out[2 * i] = (float)a[i];
        out[2 * i + 1] = (float)b[i];
    }
}

/* Rows of a band of a 2D fbm grid summed together (ne_band_acc_fn): per
 * NE_BAND rows and NE_CHUNK columns, every octave into the band's sums in
 * ne_layer_eval's order (octave 0 first, each added by the row_acc step it
 * takes there), then finished as ne_layer_eval finishes an fbm layer and
 * rounded as ne_grid rounds it: the same bits as row by row. The sums are
 * on the stack (48 KB; noise.h: no allocation outside noise_field_create):
 * 8 rows measured faster than 4 or 16 (16 rows of sums outgrow the L1). */
#define NE_BAND 8
static void ne_grid_band(const ne_layer *L, double x0, double y0, double step, int width, int row0, int height,
                         float *out_values, float *out_grads)
{
    ne_band_row acc[NE_BAND];
    int want = out_grads != NULL;
    for (int j0 = 0; j0 < height; j0 += NE_BAND) {
        int rows = height - j0 < NE_BAND ? height - j0 : NE_BAND;
        for (int i0 = 0; i0 < width; i0 += NE_CHUNK) {
            int m = width - i0 < NE_CHUNK ? width - i0 : NE_CHUNK;
            for (int r = 0; r < rows; r++) {
                memset(acc[r].v, 0, (size_t)m * sizeof(double));
                if (want)
                    for (int c = 0; c < 2; c++)
                        memset(acc[r].g[c], 0, (size_t)m * sizeof(double));
            }
            for (int k = 0; k < L->n_oct; k++)
                L->base.band_acc(L, k, i0, m, rows, row0 + j0, x0, step, y0, acc, want);
            for (int r = 0; r < rows; r++) {
                /* finished in place (each is elementwise) */
                size_t base = (size_t)(j0 + r) * (size_t)width + (size_t)i0;
                ne_clamp_n(NE_CLAMP_DIV, acc[r].v, acc[r].v, m, L->amp_sum);
                for (int i = 0; i < m; i++)
                    out_values[base + i] = (float)acc[r].v[i];
                if (want) {
                    for (int c = 0; c < 2; c++)
                        ne_scale_n(acc[r].g[c], acc[r].g[c], m, 1.0, L->amp_sum);
                    ne_floats2(out_grads + 2 * base, acc[r].g[0], acc[r].g[1], m);
                }
            }
        }
    }
}

/* Rows row0 .. row0 + height - 1 of the grid at (x0, y0): row j at
 * y0 + (row0 + j) * step, into out_values + j * width. */
static void ne_grid(const ne_field *F, double x0, double y0, double step, int width, int row0, int height,
                    float *out_values, float *out_grads)
{
    if (width <= 0 || height <= 0 || row0 < 0 || row0 > INT_MAX - height)
        return;
    const ne_layer *L = &F->layer[0];
    if (F->n_layers == 1 && L->n_oct == 1 && L->fractal == NOISE_FBM && !F->d3 && L->base.float_row) {
        /* the base field straight into the caller's floats: the same
         * numbers as below, without the intermediate doubles */
        L->base.float_row(L, width, height, row0, x0, step, y0, out_values, out_grads);
        return;
    }
    if (F->n_layers == 1 && L->n_oct > 1 && L->fractal == NOISE_FBM && !F->d3 && L->base.band_acc &&
        (out_grads || L->base.acc_values)) {
        ne_grid_band(L, x0, y0, step, width, row0, height, out_values, out_grads);
        return;
    }
    double xs[NE_CHUNK], v[NE_CHUNK];
    ne_grad g;
    for (int j = 0; j < height; j++) {
        double y = y0 + (double)(row0 + j) * step;
        for (int i0 = 0; i0 < width; i0 += NE_CHUNK) {
            int m = width - i0 < NE_CHUNK ? width - i0 : NE_CHUNK;
            for (int i = 0; i < m; i++)
                xs[i] = x0 + (double)(i0 + i) * step;
            ne_field_eval(F, m, xs, NULL, y, v, out_grads ? g : NULL);
            size_t base = (size_t)j * (size_t)width + (size_t)i0;
            for (int i = 0; i < m; i++)
                out_values[base + i] = (float)v[i];
            if (out_grads)
                ne_floats2(out_grads + 2 * base, g[0], g[1], m);
        }
    }
}

noise_field *noise_field_create(const noise_spec *spec)
{
    struct noise_field *F = malloc(sizeof *F);
    if (F)
        ne_prepare(F, spec, 1, 1);
    return F;
}

void noise_field_destroy(noise_field *field) { free(field); }

size_t noise_field_size(void) { return sizeof(struct noise_field); }

noise_field *noise_field_init(void *mem, const noise_spec *spec)
{
    struct noise_field *F = mem;
    if (F)
        ne_prepare(F, spec, 1, 1);
    return F;
}

const noise_spec *noise_field_spec(const noise_field *field) { return &field->spec; }

double noise_field_point(const noise_field *field, const double *p, int dims, double *grad, int *n_grad)
{
    return ne_point(&field->planar, &field->solid, p, dims, grad, n_grad);
}

void noise_field_points(const noise_field *field, size_t n_points, const double *points, int dims,
                        double *out_values, double *out_grads)
{
    ne_points(&field->planar, &field->solid, n_points, points, dims, out_values, out_grads);
}

void noise_field_grid(const noise_field *field, double x0, double y0, double step, int width, int height,
                      float *out_values, float *out_grads)
{
    ne_grid(&field->planar, x0, y0, step, width, 0, height, out_values, out_grads);
}

void noise_field_grid_rows(const noise_field *field, double x0, double y0, double step, int width, int row0,
                           int rows, float *out_values, float *out_grads)
{
    ne_grid(&field->planar, x0, y0, step, width, row0, rows, out_values, out_grads);
}

/* The spec-taking conveniences prepare, on the stack, only the shape they
 * use. */

double noise_eval_point(const noise_spec *spec, const double *p, int dims, double *grad, int *n_grad)
{
    struct noise_field F;
    ne_prepare(&F, spec, dims != 3, dims == 3);
    return ne_point(&F.planar, &F.solid, p, dims, grad, n_grad);
}

void noise_eval_points(const noise_spec *spec, size_t n_points, const double *points, int dims,
                       double *out_values, double *out_grads)
{
    struct noise_field F;
    ne_prepare(&F, spec, dims != 3, dims == 3);
    ne_points(&F.planar, &F.solid, n_points, points, dims, out_values, out_grads);
}

void noise_eval_grid(const noise_spec *spec, double x0, double y0, double step, int width, int height,
                     float *out_values, float *out_grads)
{
    if (width <= 0 || height <= 0)
        return;
    struct noise_field F;
    ne_prepare(&F, spec, 1, 0);
    ne_grid(&F.planar, x0, y0, step, width, 0, height, out_values, out_grads);
}
