/* noise_kernels.h: internal to noise/: the base noise of every kind at one
 * point in noise space (value and gradient), split into lattice, hash and
 * blend steps so the grid fill can share the lattice work of a row and still
 * compute the very same numbers as the point path.
 *
 * Gradients here are in noise-space units; the caller applies frequency.
 * `want_grad` is always a literal at the call sites, so each caller gets a
 * specialised copy without a branch in its loop.
 */
#ifndef NOISE_KERNELS_H
#define NOISE_KERNELS_H

#include "noise_lattice.h"

#define NK_INLINE static inline __attribute__((always_inline))

/* ---- scales (see noise.h for the measured ranges) ---- */

#define NK_SIMPLEX_K2 0.5773502691896258      /* 1/sqrt(3): 2D position scale */
#define NK_SIMPLEX_F2 0.3660254037844386      /* (sqrt(3)-1)/2 */
#define NK_SIMPLEX_G2 0.21132486540518713     /* (3-sqrt(3))/6 */
#define NK_SIMPLEX2_SCALE 4.123846747879945   /* 5.832/sqrt(2) */
#define NK_SIMPLEX_K3 0.6
#define NK_SIMPLEX_F3 (1.0 / 3.0)
#define NK_SIMPLEX_G3 (1.0 / 6.0)
#define NK_SIMPLEX3_SCALE 4.7296534052014145  /* 1024/(125 sqrt(3)) */
/* Triangle-lattice value and perlin: the kernel sum is at most 1 for values
 * (reached only on lattice points); gradient scales are from the worst case
 * over all gradients (see noise.h). */
#define NK_TRI_VALUE2_SCALE 1.0
#define NK_TRI_VALUE3_SCALE 1.0
#define NK_TRI_PERLIN2_SCALE (1.0 / 0.11685) /* worst case 0.116841, raw diamond */
#define NK_TRI_PERLIN3_SCALE (1.0 / 0.20346) /* worst case 0.203451, raw octahedron */

enum { NK_MODE_VALUE = 0, NK_MODE_PERLIN = 1, NK_MODE_SIMPLEX = 2 };

/* ---- square lattice, 2D ---- */

/* Hashes of corners (i,j), (i,j+1), (i+1,j), (i+1,j+1): seed, then i, then j. */
NK_INLINE void nk_sq2_column(uint32_t seed_state, uint64_t i, uint64_t j, uint32_t *h_lo, uint32_t *h_hi)
{
    uint32_t hi = nl_eat64(seed_state, i);
    *h_lo = nl_avalanche(nl_eat64(hi, j));
    *h_hi = nl_avalanche(nl_eat64(hi, j + 1));
}

/* Value noise blend of corners a=(i,j) b=(i,j+1) c=(i+1,j) d=(i+1,j+1). */
NK_INLINE double nk_value2_blend(uint32_t ha, uint32_t hb, uint32_t hc, uint32_t hd, double tx,
                                 double sy, double dsy, int want_grad, double *g)
{
    double a = nl_value_table[ha & 255], b = nl_value_table[hb & 255];
    double c = nl_value_table[hc & 255], d = nl_value_table[hd & 255];
    double sx = nl_fade(tx);
    double ab = a + (b - a) * sy, cd = c + (d - c) * sy;
    if (want_grad) {
        double dsx = nl_dfade(tx);
        g[0] = (cd - ab) * dsx;
        g[1] = ((b - a) * dsy) * (1 - sx) + ((d - c) * dsy) * sx;
    }
    return ab + (cd - ab) * sx;
}

/* Perlin blend (Islands): each corner a plane through it. */
NK_INLINE double nk_perlin2_blend(uint32_t ha, uint32_t hb, uint32_t hc, uint32_t hd, double tx,
                                  double ty, double sy, double dsy, int want_grad, double *g)
{
    const double *ga = nl_perlin2_table[ha & 255], *gb = nl_perlin2_table[hb & 255];
    const double *gc = nl_perlin2_table[hc & 255], *gd = nl_perlin2_table[hd & 255];
    double tx1 = tx - 1, ty1 = ty - 1;
    double a = ga[0] * tx + ga[1] * ty, b = gb[0] * tx + gb[1] * ty1;
    double c = gc[0] * tx1 + gc[1] * ty, d = gd[0] * tx1 + gd[1] * ty1;
    double sx = nl_fade(tx);
    double ab = a + (b - a) * sy, cd = c + (d - c) * sy;
    if (want_grad) {
        double dsx = nl_dfade(tx);
        double abx = ga[0] + (gb[0] - ga[0]) * sy, cdx = gc[0] + (gd[0] - gc[0]) * sy;
        double aby = ga[1] + (gb[1] - ga[1]) * sy + (b - a) * dsy;
        double cdy = gc[1] + (gd[1] - gc[1]) * sy + (d - c) * dsy;
        g[0] = abx + (cdx - abx) * sx + (cd - ab) * dsx;
        g[1] = aby + (cdy - aby) * sx;
    }
    return ab + (cd - ab) * sx;
}

/* mode: NK_MODE_VALUE or NK_MODE_PERLIN */
NK_INLINE double nk_sq2(int mode, uint32_t seed, double x, double y, int want_grad, double *g)
{
    double tx, ty;
    uint64_t i = nl_floor(x, &tx), j = nl_floor(y, &ty);
    uint32_t s = nl_seed(seed), ha, hb, hc, hd;
    nk_sq2_column(s, i, j, &ha, &hb);
    nk_sq2_column(s, i + 1, j, &hc, &hd);
    double sy = nl_fade(ty), dsy = nl_dfade(ty);
    if (mode == NK_MODE_VALUE)
        return nk_value2_blend(ha, hb, hc, hd, tx, sy, dsy, want_grad, g);
    return nk_perlin2_blend(ha, hb, hc, hd, tx, ty, sy, dsy, want_grad, g);
}

/* ---- square lattice, 3D ---- */

/* out = lerp(a, b, s) along `axis`, with derivatives (value, d0, d1, d2). */
NK_INLINE void nk_lerp4(const double a[4], const double b[4], double s, double ds, int axis, double out[4])
{
    double dv = b[0] - a[0];
    out[0] = a[0] + dv * s;
    for (int k = 1; k < 4; k++)
        out[k] = a[k] + (b[k] - a[k]) * s;
    out[1 + axis] += dv * ds;
}

NK_INLINE double nk_sq3(int mode, uint32_t seed, double x, double y, double z, int want_grad, double *g)
{
    double t[3];
    uint64_t i = nl_floor(x, &t[0]), j = nl_floor(y, &t[1]), k = nl_floor(z, &t[2]);
    uint32_t s = nl_seed(seed);
    double c[8][4];
    for (int n = 0; n < 8; n++) {
        int ox = n >> 2, oy = (n >> 1) & 1, oz = n & 1;
        uint32_t h = nl_avalanche(nl_eat64(nl_eat64(nl_eat64(s, i + ox), j + oy), k + oz));
        if (mode == NK_MODE_VALUE) {
            c[n][0] = nl_value_table[h & 255];
            c[n][1] = c[n][2] = c[n][3] = 0;
        } else {
            double gr[3];
            nl_octahedron(h, gr);
            double dx = t[0] - ox, dy = t[1] - oy, dz = t[2] - oz;
            c[n][1] = gr[0] * NL_PERLIN3_SCALE;
            c[n][2] = gr[1] * NL_PERLIN3_SCALE;
            c[n][3] = gr[2] * NL_PERLIN3_SCALE;
            c[n][0] = c[n][1] * dx + c[n][2] * dy + c[n][3] * dz;
        }
    }
    double s0 = nl_fade(t[0]), s1 = nl_fade(t[1]), s2 = nl_fade(t[2]);
    double d0 = nl_dfade(t[0]), d1 = nl_dfade(t[1]), d2 = nl_dfade(t[2]);
    double zl[4][4], yl[2][4], r[4];
    for (int n = 0; n < 4; n++)
        nk_lerp4(c[2 * n], c[2 * n + 1], s2, d2, 2, zl[n]);
    nk_lerp4(zl[0], zl[1], s1, d1, 1, yl[0]);
    nk_lerp4(zl[2], zl[3], s1, d1, 1, yl[1]);
    nk_lerp4(yl[0], yl[1], s0, d0, 0, r);
    if (want_grad) {
        g[0] = r[1];
        g[1] = r[2];
        g[2] = r[3];
    }
    return r[0];
}

/* ---- Ken Perlin's Improved Noise (2002), reference arithmetic ---- */

/* grad(hash, x, y, z) = (h&1 ? -u : u) + (h&2 ? -v : v) with u, v picked
 * from (x, y, z) by the low 4 bits: component indices of u and v. */
static const unsigned char nk_imp_u[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };
static const unsigned char nk_imp_v[16] = { 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 0, 2 };

NK_INLINE void nk_imp_grad(int hash, double x, double y, double z, double out[4])
{
    int h = hash & 15;
    double p[3] = { x, y, z };
    double su = (h & 1) ? -1.0 : 1.0, sv = (h & 2) ? -1.0 : 1.0;
    out[0] = su * p[nk_imp_u[h]] + sv * p[nk_imp_v[h]];
    out[1] = out[2] = out[3] = 0;
    out[1 + nk_imp_u[h]] += su;
    out[1 + nk_imp_v[h]] += sv;
}

/* perm: 512 entries (the 256-permutation twice). */
NK_INLINE double nk_improved3(const unsigned char *perm, double x, double y, double z, int want_grad, double *g)
{
    double fx, fy, fz;
    int X = (int)(nl_floor(x, &fx) & 255), Y = (int)(nl_floor(y, &fy) & 255), Z = (int)(nl_floor(z, &fz) & 255);
    double u = fx * fx * fx * (fx * (fx * 6 - 15) + 10);
    double v = fy * fy * fy * (fy * (fy * 6 - 15) + 10);
    double w = fz * fz * fz * (fz * (fz * 6 - 15) + 10);
    int A = perm[X] + Y, AA = perm[A] + Z, AB = perm[A + 1] + Z;
    int B = perm[X + 1] + Y, BA = perm[B] + Z, BB = perm[B + 1] + Z;
    double c[8][4];
    nk_imp_grad(perm[AA], fx, fy, fz, c[0]);
    nk_imp_grad(perm[BA], fx - 1, fy, fz, c[1]);
    nk_imp_grad(perm[AB], fx, fy - 1, fz, c[2]);
    nk_imp_grad(perm[BB], fx - 1, fy - 1, fz, c[3]);
    nk_imp_grad(perm[AA + 1], fx, fy, fz - 1, c[4]);
    nk_imp_grad(perm[BA + 1], fx - 1, fy, fz - 1, c[5]);
    nk_imp_grad(perm[AB + 1], fx, fy - 1, fz - 1, c[6]);
    nk_imp_grad(perm[BB + 1], fx - 1, fy - 1, fz - 1, c[7]);
    double du = nl_dfade(fx), dv = nl_dfade(fy), dw = nl_dfade(fz);
    double x0[4], x1[4], x2[4], x3[4], y0[4], y1[4], r[4];
    nk_lerp4(c[0], c[1], u, du, 0, x0);
    nk_lerp4(c[2], c[3], u, du, 0, x1);
    nk_lerp4(c[4], c[5], u, du, 0, x2);
    nk_lerp4(c[6], c[7], u, du, 0, x3);
    nk_lerp4(x0, x1, v, dv, 1, y0);
    nk_lerp4(x2, x3, v, dv, 1, y1);
    nk_lerp4(y0, y1, w, dw, 2, r);
    /* In 3D the worst case over all gradient choices is 1.0363; clamp the
     * (never observed) excess so the range stays [-1, 1]. The z = 0 slice's
     * worst case is exactly 1. */
    if (r[0] > 1.0 || r[0] < -1.0) {
        r[0] = r[0] > 0 ? 1.0 : -1.0;
        r[1] = r[2] = r[3] = 0.0;
    }
    if (want_grad) {
        g[0] = r[1];
        g[1] = r[2];
        g[2] = r[3];
    }
    return r[0];
}

/* ---- triangle lattice (simplex cell and kernel), 2D ---- */

/* One corner: skewed offsets (fx, fy) from it; returns 8 r^3 (g.d) or
 * 8 r^3 v, adds the derivative (in scaled space) to g. */
NK_INLINE double nk_tri2_corner(int mode, uint32_t h, double fx, double fy, int want_grad, double *g)
{
    double sum = (fx + fy) * NK_SIMPLEX_G2;
    double dx = fx - sum, dy = fy - sum;
    double r = 0.5 - dx * dx - dy * dy;
    r = r > 0 ? r : 0.0;
    double r2 = r * r, r3 = r2 * r;
    if (mode == NK_MODE_VALUE) {
        double v = nl_value_table[h & 255];
        if (want_grad) {
            double k = -48.0 * r2 * v;
            g[0] += k * dx;
            g[1] += k * dy;
        }
        return 8.0 * r3 * v;
    }
    double gx, gy;
    if (mode == NK_MODE_PERLIN) {
        gx = nl_diamond_table[h & 255][0];
        gy = nl_diamond_table[h & 255][1];
    } else {
        gx = nl_diamond_table[h & 255][0];
        gy = nl_diamond_table[h & 255][1];
        double inv = 1.0 / sqrt(gx * gx + gy * gy);
        gx *= inv;
        gy *= inv;
    }
    double dot = gx * dx + gy * dy;
    if (want_grad) {
        double k = -48.0 * r2 * dot;
        g[0] += 8.0 * r3 * gx + k * dx;
        g[1] += 8.0 * r3 * gy + k * dy;
    }
    return 8.0 * r3 * dot;
}

NK_INLINE double nk_tri2(int mode, uint32_t seed, double x, double y, int want_grad, double *g)
{
    x *= NK_SIMPLEX_K2;
    y *= NK_SIMPLEX_K2;
    double skew = (x + y) * NK_SIMPLEX_F2;
    double fx, fy;
    uint64_t i = nl_floor(x + skew, &fx), j = nl_floor(y + skew, &fy);
    uint32_t s = nl_seed(seed);
    uint32_t hi0 = nl_eat64(s, i), hi1 = nl_eat64(s, i + 1);
    uint32_t h0 = nl_avalanche(nl_eat64(hi0, j));
    uint32_t h1 = nl_avalanche(nl_eat64(hi1, j + 1));
    int xgy = fx > fy;
    uint32_t hc = nl_avalanche(xgy ? nl_eat64(hi1, j) : nl_eat64(hi0, j + 1));
    double gs[2] = { 0, 0 };
    double v = nk_tri2_corner(mode, h0, fx, fy, want_grad, gs);
    v += nk_tri2_corner(mode, h1, fx - 1, fy - 1, want_grad, gs);
    v += nk_tri2_corner(mode, hc, xgy ? fx - 1 : fx, xgy ? fy : fy - 1, want_grad, gs);
    double scale = mode == NK_MODE_VALUE ? NK_TRI_VALUE2_SCALE
                 : mode == NK_MODE_PERLIN ? NK_TRI_PERLIN2_SCALE : NK_SIMPLEX2_SCALE;
    if (want_grad) {
        g[0] = gs[0] * (scale * NK_SIMPLEX_K2);
        g[1] = gs[1] * (scale * NK_SIMPLEX_K2);
    }
    return v * scale;
}

/* ---- tetrahedral lattice, 3D ---- */

NK_INLINE double nk_tet3_corner(int mode, uint32_t h, double fx, double fy, double fz, int want_grad, double *g)
{
    double sum = (fx + fy + fz) * NK_SIMPLEX_G3;
    double dx = fx - sum, dy = fy - sum, dz = fz - sum;
    double r = 0.5 - dx * dx - dy * dy - dz * dz;
    r = r > 0 ? r : 0.0;
    double r2 = r * r, r3 = r2 * r;
    if (mode == NK_MODE_VALUE) {
        double v = nl_value_table[h & 255];
        if (want_grad) {
            double k = -48.0 * r2 * v;
            g[0] += k * dx;
            g[1] += k * dy;
            g[2] += k * dz;
        }
        return 8.0 * r3 * v;
    }
    double gr[3];
    nl_octahedron(h, gr);
    if (mode == NK_MODE_SIMPLEX) {
        double inv = 1.0 / sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
        gr[0] *= inv;
        gr[1] *= inv;
        gr[2] *= inv;
    }
    double dot = gr[0] * dx + gr[1] * dy + gr[2] * dz;
    if (want_grad) {
        double k = -48.0 * r2 * dot;
        g[0] += 8.0 * r3 * gr[0] + k * dx;
        g[1] += 8.0 * r3 * gr[1] + k * dy;
        g[2] += 8.0 * r3 * gr[2] + k * dz;
    }
    return 8.0 * r3 * dot;
}

NK_INLINE double nk_tet3(int mode, uint32_t seed, double x, double y, double z, int want_grad, double *g)
{
    x *= NK_SIMPLEX_K3;
    y *= NK_SIMPLEX_K3;
    z *= NK_SIMPLEX_K3;
    double skew = (x + y + z) * NK_SIMPLEX_F3;
    double fx, fy, fz;
    uint64_t i = nl_floor(x + skew, &fx), j = nl_floor(y + skew, &fy), k = nl_floor(z + skew, &fz);
    /* the two middle corners, by the order of the fractions */
    int a1, b1, c1, a2, b2, c2;
    if (fx >= fy) {
        if (fy >= fz) { a1 = 1; b1 = 0; c1 = 0; a2 = 1; b2 = 1; c2 = 0; }
        else if (fx >= fz) { a1 = 1; b1 = 0; c1 = 0; a2 = 1; b2 = 0; c2 = 1; }
        else { a1 = 0; b1 = 0; c1 = 1; a2 = 1; b2 = 0; c2 = 1; }
    } else {
        if (fy < fz) { a1 = 0; b1 = 0; c1 = 1; a2 = 0; b2 = 1; c2 = 1; }
        else if (fx < fz) { a1 = 0; b1 = 1; c1 = 0; a2 = 0; b2 = 1; c2 = 1; }
        else { a1 = 0; b1 = 1; c1 = 0; a2 = 1; b2 = 1; c2 = 0; }
    }
    uint32_t s = nl_seed(seed);
    uint32_t h0 = nl_avalanche(nl_eat64(nl_eat64(nl_eat64(s, i), j), k));
    uint32_t h1 = nl_avalanche(nl_eat64(nl_eat64(nl_eat64(s, i + a1), j + b1), k + c1));
    uint32_t h2 = nl_avalanche(nl_eat64(nl_eat64(nl_eat64(s, i + a2), j + b2), k + c2));
    uint32_t h3 = nl_avalanche(nl_eat64(nl_eat64(nl_eat64(s, i + 1), j + 1), k + 1));
    double gs[3] = { 0, 0, 0 };
    double v = nk_tet3_corner(mode, h0, fx, fy, fz, want_grad, gs);
    v += nk_tet3_corner(mode, h1, fx - a1, fy - b1, fz - c1, want_grad, gs);
    v += nk_tet3_corner(mode, h2, fx - a2, fy - b2, fz - c2, want_grad, gs);
    v += nk_tet3_corner(mode, h3, fx - 1, fy - 1, fz - 1, want_grad, gs);
    double scale = mode == NK_MODE_VALUE ? NK_TRI_VALUE3_SCALE
                 : mode == NK_MODE_PERLIN ? NK_TRI_PERLIN3_SCALE : NK_SIMPLEX3_SCALE;
    if (want_grad) {
        g[0] = gs[0] * (scale * NK_SIMPLEX_K3);
        g[1] = gs[1] * (scale * NK_SIMPLEX_K3);
        g[2] = gs[2] * (scale * NK_SIMPLEX_K3);
    }
    return v * scale;
}

#endif
