/* noise_vec_rows.h: what every row loop shares: a row's output numbers
 * (nv_out), the emit of a vector of samples into doubles, fbm sums or floats
 * (nv_emit_o), the samples' plane x (nv_row_x), the chunk size, and the one
 * wrapper macro of every base's row and points loops (NV_LOOPS). The lattices'
 * row loops are in noise_vec_square_rows.h and noise_vec_triangle_rows.h.
 *
 * Internal to noise/: included by noise_vec.h, in the order it lists (a file
 * uses what the files before it define), once per instruction-set path.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_ROWS_H
#define NOISE_VEC_ROWS_H

/* What a row's output takes from its layer, read once per row (not per
 * vector): octave k's amp and amp * freq, the amplitude sum, and whether a
 * finished float row's gradient is scaled ((af * g) / sum, skipped where
 * both are the exact no-ops x * 1 and x / 1). */
typedef struct {
    double af, sum, amp;
    int scale_g;
} nv_out;

NV_FN nv_out nv_out_of(int want_grad, int to_float, const ne_layer *L, int k)
{
    nv_out o;
    o.af = L->amp_freq[to_float == 2 ? k : 0];
    o.sum = L->amp_sum;
    o.amp = L->amp[k];
    o.scale_g = to_float == 1 && want_grad && (o.af != 1.0 || o.sum != 1.0);
    return o;
}

/* Output of a row's samples i .. i+m-1, as ne_sq2_row's to_float modes:
 * 0 noise values and gradients, 1 a finished one-octave fbm row in floats,
 * 2 the octave added into fbm sums; o from nv_out_of for the row. */
NV_FN void nv_emit_o(int want_grad, int to_float, const nv_out *o, int i, int m, vd val, vd g0, vd g1, double *v,
                     ne_grad g, float *fv, float *fg)
{
    if (to_float == 1 && want_grad && o->scale_g) {
        vd vaf = vd_set1(o->af), vsum = vd_set1(o->sum);
        g0 = vd_div(vd_mul(vaf, g0), vsum);
        g1 = vd_div(vd_mul(vaf, g1), vsum);
    }
    if (to_float == 2) {
        vd vamp = vd_set1(o->amp), vaf = vd_set1(o->af);
        val = vd_mul(vamp, val);
        g0 = vd_mul(vaf, g0);
        g1 = vd_mul(vaf, g1);
    }
    if (m == NV_W) {
        if (to_float == 1) {
            vd_store_f(fv + i, val);
            if (want_grad)
                vd_store_f2(fg + 2 * i, g0, g1);
        } else if (to_float == 2) {
            vd_storeu(v + i, vd_add(vd_loadu(v + i), val));
            if (want_grad) {
                vd_storeu(g[0] + i, vd_add(vd_loadu(g[0] + i), g0));
                vd_storeu(g[1] + i, vd_add(vd_loadu(g[1] + i), g1));
            }
        } else {
            vd_storeu(v + i, val);
            if (want_grad) {
                vd_storeu(g[0] + i, g0);
                vd_storeu(g[1] + i, g1);
            }
        }
        return;
    }
    double V[NV_W], G0[NV_W], G1[NV_W];
    vd_storeu(V, val);
    vd_storeu(G0, g0);
    vd_storeu(G1, g1);
    for (int l = 0; l < m; l++) {
        if (to_float == 1) {
            fv[i + l] = (float)V[l];
            if (want_grad) {
                fg[2 * (i + l)] = (float)G0[l];
                fg[2 * (i + l) + 1] = (float)G1[l];
            }
        } else if (to_float == 2) {
            v[i + l] += V[l];
            if (want_grad) {
                g[0][i + l] += G0[l];
                g[1][i + l] += G1[l];
            }
        } else {
            v[i + l] = V[l];
            if (want_grad) {
                g[0][i + l] = G0[l];
                g[1][i + l] = G1[l];
            }
        }
    }
}

/* nv_emit_o with the layer's numbers read here (callers outside a row loop) */
NV_FN void nv_emit(int want_grad, int to_float, const ne_layer *L, int k, int i, int m, vd val, vd g0, vd g1,
                   double *v, ne_grad g, float *fv, float *fg)
{
    nv_out o = nv_out_of(want_grad, to_float, L, k);
    nv_emit_o(want_grad, to_float, &o, i, m, val, g0, g1, v, g, fv, fg);
}

/* Plane x of row samples i .. i+NV_W-1 (past n: repeats of the last). */
NV_FN vd nv_row_x(const double *xs, double x0, double step, int i, int n)
{
    if (!xs)
        return vd_add(vd_set1(x0), vd_mul(vd_add(vd_iota(), vd_set1((double)i)), vd_set1(step)));
    if (i + NV_W <= n)
        return vd_loadu(xs + i);
    double X[NV_W];
    for (int l = 0; l < NV_W; l++)
        X[l] = xs[i + l < n ? i + l : n - 1];
    return vd_loadu(X);
}

/* A row is taken in chunks of at most this many samples. */
#define NV_ROW_CHUNK 256

/* The four loops every vector base has (ne_base's row_v, row_g, pts_v and
 * pts_g: values alone, and with gradients), the one wrapper for all of
 * them: each calls ROW (rows) or PTS (points), functions of the same
 * arguments (often the same function):
 *     F(A..., want_grad, L, k, n, xs, ys, y, t, v, g)
 * A...: the base's constant arguments (its lattice, mode, ...), as given
 * after PTS; ys NULL: a row at y, else points (ys[i], with y 0); t: the
 * layer's t (2D bases ignore it). */
#define NV_LOOPS(name, ROW, PTS, ...)                                                                     \
    static NV_TARGET void name##_row_v(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        ROW(__VA_ARGS__, 0, L, k, n, xs, NULL, y, t, v, g);                                               \
    }                                                                                                     \
    static NV_TARGET void name##_row_g(const ne_layer *L, int k, int n, const double *xs, double y,       \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        ROW(__VA_ARGS__, 1, L, k, n, xs, NULL, y, t, v, g);                                               \
    }                                                                                                     \
    static NV_TARGET void name##_pts_v(const ne_layer *L, int k, int n, const double *xs, const double *ys, \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        PTS(__VA_ARGS__, 0, L, k, n, xs, ys, 0, t, v, g);                                                 \
    }                                                                                                     \
    static NV_TARGET void name##_pts_g(const ne_layer *L, int k, int n, const double *xs, const double *ys, \
                                       double t, double *v, ne_grad g)                                    \
    {                                                                                                     \
        PTS(__VA_ARGS__, 1, L, k, n, xs, ys, 0, t, v, g);                                                 \
    }
/* NV_LOOPS's four in an ne_base initialiser */
#define NV_LOOPS_FIELDS(name) .row_v = name##_row_v, .row_g = name##_row_g, .pts_v = name##_pts_v, .pts_g = name##_pts_g

#endif
