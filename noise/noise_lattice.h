/* noise_lattice.h: internal to noise/: SmallXXHash, 64-bit lattice indices,
 * the quintic fade and the constant corner tables shared by every kind.
 *
 * Everything here is static inline or static const, so the point path and
 * the grid path compute bit-identical numbers from the same expressions.

 *
 * Internal prefixes (ne_, nl_, nk_, nc_, nv_, ...): noise_field.h.
 */
#ifndef NOISE_LATTICE_H
#define NOISE_LATTICE_H

#include <math.h>
#include <stdint.h>

/* ---- SmallXXHash (Catlike Coding / Islands) ---- */

#define NL_PRIME_A 0x9E3779B1u
#define NL_PRIME_B 0x85EBCA77u
#define NL_PRIME_C 0xC2B2AE3Du
#define NL_PRIME_D 0x27D4EB2Fu
#define NL_PRIME_E 0x165667B1u

static inline uint32_t nl_seed(uint32_t seed) { return seed + NL_PRIME_E; }

static inline uint32_t nl_eat(uint32_t acc, uint32_t data)
{
    acc += data * NL_PRIME_C;
    acc = (acc << 17) | (acc >> 15);
    return acc * NL_PRIME_D;
}

static inline uint32_t nl_avalanche(uint32_t a)
{
    a ^= a >> 15;
    a *= NL_PRIME_B;
    a ^= a >> 13;
    a *= NL_PRIME_C;
    a ^= a >> 16;
    return a;
}

/* A 64-bit lattice index: its low 32 bits, and its high 32 bits only when the
 * index lies outside the int32 range, so that inside that range the hash is
 * the 32-bit original and the plane never repeats. */
static inline uint32_t nl_eat64(uint32_t acc, uint64_t index)
{
    acc = nl_eat(acc, (uint32_t)index);
    if ((index + 0x80000000u) >> 32)
        acc = nl_eat(acc, (uint32_t)(index >> 32));
    return acc;
}

/* A lattice index of a periodic octave: index (two's complement) modulo
 * period, in [0, period); the index itself when period is 0 (not
 * periodic). Wrap each index a corner hashes, i + 1 after adding the 1. */
static inline uint64_t nl_wrap(uint64_t index, uint32_t period)
{
    if (period == 0)
        return index;
    int64_t r = (int64_t)index % (int64_t)period;
    return (uint64_t)(r < 0 ? r + (int64_t)period : r);
}

/* Derived seed: hash of (seed, salt). Octave k >= 1 uses salt k; the warp
 * fields use NL_SALT_WARP_X / NL_SALT_WARP_Y. */
#define NL_SALT_WARP_X 0xF2A20002u
#define NL_SALT_WARP_Y 0xF2A30003u
static inline uint32_t nl_derive(uint32_t seed, uint32_t salt)
{
    return nl_avalanche(nl_eat(nl_seed(seed), salt));
}

/* The cell index of coordinate x (floor, as a two's-complement int64 held in
 * a uint64) and the fraction x - floor(x), taken after the index so that it
 * keeps full precision. Beyond +-2^63 the index wraps modulo 2^64 (the
 * fraction is 0 there anyway); non-finite input gives index 0, fraction 0. */
static inline uint64_t nl_floor(double x, double *frac)
{
    /* floor() is a libm call on baseline x86-64; this is the same number:
     * truncate, step down for negative non-integers (exact below 2^52) */
    if (fabs(x) < 4503599627370496.0) {
        int64_t t = (int64_t)x;
        t -= x < (double)t;
        *frac = x - (double)t + 0.0; /* + 0.0: floor(-0) - -0 is +0 */
        return (uint64_t)t;
    }
    double fl = floor(x);
    if (fabs(fl) < 9.2e18) {
        *frac = x - fl;
        return (uint64_t)(int64_t)fl;
    }
    *frac = 0.0;
    if (!isfinite(fl))
        return 0;
    double m = fmod(fl, 18446744073709551616.0);
    if (m < 0)
        m += 18446744073709551616.0;
    return (uint64_t)m;
}

/* ---- sine and cosine of a gradient angle ----
 *
 * One implementation for every instruction-set path (libm's sin and cos are
 * not vectorisable bit for bit, and differ between libraries): a in
 * [0, 2 pi] (a little beyond is fine), reduced by the nearest multiple k of
 * pi/2 (k = 0..4; pi/2 in two parts, the first 33 bits and the rest, so
 * k * NL_PIO2_HI and the first subtraction are exact), then the Taylor
 * series of sin (to degree 17) and cos (to degree 18) on [-pi/4, pi/4],
 * whose truncation is below 1e-19; Horner in double, no fused multiply-add.
 * noise_classic_vec.h's nv_sincos is the same expression lane by lane.
 * Against glibc's sin and cos the difference is at most 2.2e-16 over 2^20
 * angles (tests/unit/test_noise_classic.c, which allows 4.5e-16). */
#define NL_2_OVER_PI 0.6366197723675814
#define NL_PIO2_HI 1.5707963267341256    /* 0x1.921fb544p+0 */
#define NL_PIO2_LO 6.077100506506192e-11 /* pi/2 - NL_PIO2_HI */
#define NL_S1 (-1.0 / 6.0)
#define NL_S2 (1.0 / 120.0)
#define NL_S3 (-1.0 / 5040.0)
#define NL_S4 (1.0 / 362880.0)
#define NL_S5 (-1.0 / 39916800.0)
#define NL_S6 (1.0 / 6227020800.0)
#define NL_S7 (-1.0 / 1307674368000.0)
#define NL_S8 (1.0 / 355687428096000.0)
#define NL_C2 (1.0 / 24.0)
#define NL_C3 (-1.0 / 720.0)
#define NL_C4 (1.0 / 40320.0)
#define NL_C5 (-1.0 / 3628800.0)
#define NL_C6 (1.0 / 479001600.0)
#define NL_C7 (-1.0 / 87178291200.0)
#define NL_C8 (1.0 / 20922789888000.0)
#define NL_C9 (-1.0 / 6402373705728000.0)

static inline void nl_sincos(double a, double *s, double *c)
{
    double k = (double)(int64_t)(a * NL_2_OVER_PI + 0.5); /* a >= 0: truncation is floor */
    double r = (a - k * NL_PIO2_HI) - k * NL_PIO2_LO;
    double r2 = r * r;
    double ps = NL_S7 + r2 * NL_S8;
    ps = NL_S6 + r2 * ps;
    ps = NL_S5 + r2 * ps;
    ps = NL_S4 + r2 * ps;
    ps = NL_S3 + r2 * ps;
    ps = NL_S2 + r2 * ps;
    ps = NL_S1 + r2 * ps;
    double sr = r + (r * r2) * ps;
    double pc = NL_C8 + r2 * NL_C9;
    pc = NL_C7 + r2 * pc;
    pc = NL_C6 + r2 * pc;
    pc = NL_C5 + r2 * pc;
    pc = NL_C4 + r2 * pc;
    pc = NL_C3 + r2 * pc;
    pc = NL_C2 + r2 * pc;
    double cr = (1.0 - 0.5 * r2) + (r2 * r2) * pc;
    switch ((int)k & 3) {
    case 0: *s = sr; *c = cr; break;
    case 1: *s = cr; *c = -sr; break;
    case 2: *s = -sr; *c = -cr; break;
    default: *s = -cr; *c = sr; break;
    }
}

/* ---- fade ---- */

static inline double nl_fade(double t) { return t * t * t * (t * (t * 6 - 15) + 10); }
/* 30 t^2 (t-1)^2 */
static inline double nl_dfade(double t)
{
    double u = t * (t - 1);
    return 30 * (u * u);
}

/* ---- corner tables, indexed by hash byte A ---- */

#define NL_R4(E, b) E(b) E((b) + 1) E((b) + 2) E((b) + 3)
#define NL_R16(E, b) NL_R4(E, b) NL_R4(E, (b) + 4) NL_R4(E, (b) + 8) NL_R4(E, (b) + 12)
#define NL_R64(E, b) NL_R16(E, b) NL_R16(E, (b) + 16) NL_R16(E, (b) + 32) NL_R16(E, (b) + 48)
#define NL_R256(E) NL_R64(E, 0) NL_R64(E, 64) NL_R64(E, 128) NL_R64(E, 192)

/* u = byte/255*2-1 */
#define NL_U(b) ((double)(b) / 255.0 * 2.0 - 1.0)
/* Islands' diamond: gy = 0.5-|u|, gx = u - floor(u+0.5) (floor written out so
 * this stays a constant expression). */
#define NL_DGX(b) (NL_U(b) - ((NL_U(b) + 0.5) < 0 ? -1.0 : (NL_U(b) + 0.5) < 1 ? 0.0 : 1.0))
#define NL_DGY(b) (0.5 - (NL_U(b) < 0 ? -NL_U(b) : NL_U(b)))

#define NL_PERLIN2_SCALE 3.7363622776864447 /* 2/0.53528 */
#define NL_PERLIN3_SCALE 1.7765144785930007 /* 1/0.56290 */

#define NL_EV(b) NL_U(b),
#define NL_EP2(b) { NL_DGX(b) * NL_PERLIN2_SCALE, NL_DGY(b) * NL_PERLIN2_SCALE },
#define NL_ED2(b) { NL_DGX(b), NL_DGY(b) },

/* value noise: byte -> [-1, 1] */
static const double nl_value_table[256] = { NL_R256(NL_EV) };
/* 2D Perlin gradients, scaled by 2/0.53528 */
static const double nl_perlin2_table[256][2] = { NL_R256(NL_EP2) };
/* the raw diamond (|gx| + |gy| = 0.5) */
static const double nl_diamond_table[256][2] = { NL_R256(NL_ED2) };

/* 3D octahedron gradient from bytes A and D (unscaled). */
static inline void nl_octahedron(uint32_t h, double g[3])
{
    double g0 = nl_value_table[h & 255], g1 = nl_value_table[h >> 24];
    double g2 = 1.0 - fabs(g0) - fabs(g1);
    double o = -g2 > 0 ? -g2 : 0.0;
    g0 += g0 < 0 ? o : -o;
    g1 += g1 < 0 ? o : -o;
    g[0] = g0;
    g[1] = g1;
    g[2] = g2;
}

#endif
