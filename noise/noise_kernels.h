/* noise_kernels.h: internal to noise/: the base noise of every kind at one
 * point in noise space (value and gradient), split into lattice, hash and
 * blend steps so the grid fill can share the lattice work of a row and still
 * compute the very same numbers as the point path.
 *
 * Gradients here are in noise-space units; the caller applies frequency.
 * `want_grad` is always a literal at the call sites, so each caller gets a
 * specialised copy without a branch in its loop.

 *
 * Internal prefixes (ne_, nl_, nk_, nc_, nv_, ...): noise_field.h.
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

/* Hashes of corners (i,j) and (i,j1) of a column, j1 the row index after j
 * (j + 1, wrapped when periodic): seed, then i, then j. */
NK_INLINE void nk_sq2_column(uint32_t seed_state, uint64_t i, uint64_t j, uint64_t j1, uint32_t *h_lo,
                             uint32_t *h_hi)
{
    uint32_t hi = nl_eat64(seed_state, i);
    *h_lo = nl_avalanche(nl_eat64(hi, j));
    *h_hi = nl_avalanche(nl_eat64(hi, j1));
}

/* The blends are split into a cell stage (corner hashes and the row's y:
 * everything that is constant while x stays in the cell) and a sample
 * stage (x), so a grid row computes the cell stage once per cell; the point
 * path runs the same two stages, so both give the same numbers. Corners:
 * a = (i,j), b = (i,j+1), c = (i+1,j), d = (i+1,j+1). */
typedef struct {
    double p, q, r, s;     /* value: ab, cd; perlin: ab = tx p + q, cd = (tx-1) r + s */
    double py, qy, ry, sy; /* their y derivatives, in the same form */
    double rp, ryp;        /* r - p, ry - py */
    double b;              /* perlin: sy - ry - qy */
} nk_cell2;

NK_INLINE void nk_value2_cell(uint32_t ha, uint32_t hb, uint32_t hc, uint32_t hd, double sy, double dsy,
                              int want_grad, nk_cell2 *c)
{
    double a = nl_value_table[ha & 255], b = nl_value_table[hb & 255];
    double cc = nl_value_table[hc & 255], d = nl_value_table[hd & 255];
    c->p = a + (b - a) * sy;
    c->r = cc + (d - cc) * sy;
    c->rp = c->r - c->p;
    if (want_grad) {
        c->py = (b - a) * dsy;
        c->ry = (d - cc) * dsy;
        c->ryp = c->ry - c->py;
    }
}

NK_INLINE double nk_value2_sample(const nk_cell2 *c, double tx, int want_grad, double *g)
{
    double sx = nl_fade(tx), e = c->rp;
    if (want_grad) {
        g[0] = e * nl_dfade(tx);
        g[1] = c->py + c->ryp * sx;
    }
    return c->p + e * sx;
}

/* Perlin (Islands): each corner a plane through it, ga . (tx, ty) etc. */
NK_INLINE void nk_perlin2_cell(uint32_t ha, uint32_t hb, uint32_t hc, uint32_t hd, double ty, double sy,
                               double dsy, int want_grad, nk_cell2 *c)
{
    const double *ga = nl_perlin2_table[ha & 255], *gb = nl_perlin2_table[hb & 255];
    const double *gc = nl_perlin2_table[hc & 255], *gd = nl_perlin2_table[hd & 255];
    double ty1 = ty - 1, ry = 1 - sy;
    c->p = ga[0] * ry + gb[0] * sy;
    c->q = ga[1] * ty * ry + gb[1] * ty1 * sy;
    c->r = gc[0] * ry + gd[0] * sy;
    c->s = gc[1] * ty * ry + gd[1] * ty1 * sy;
    c->rp = c->r - c->p;
    if (want_grad) {
        c->py = (gb[0] - ga[0]) * dsy;
        c->qy = ga[1] * ry + gb[1] * sy + (gb[1] * ty1 - ga[1] * ty) * dsy;
        c->ry = (gd[0] - gc[0]) * dsy;
        c->sy = gc[1] * ry + gd[1] * sy + (gd[1] * ty1 - gc[1] * ty) * dsy;
        c->ryp = c->ry - c->py;
        c->b = c->sy - c->ry - c->qy;
    }
}

NK_INLINE double nk_perlin2_sample(const nk_cell2 *c, double tx, int want_grad, double *g)
{
    double tx1 = tx - 1, sx = nl_fade(tx);
    double ab = tx * c->p + c->q, cd = tx1 * c->r + c->s, e = cd - ab;
    if (want_grad) {
        /* d/dy: lerp(tx py + qy, (tx-1) ry + sy, sx), regrouped per cell */
        g[0] = c->p + c->rp * sx + e * nl_dfade(tx);
        g[1] = (tx * c->py + c->qy) + (tx * c->ryp + c->b) * sx;
    }
    return ab + e * sx;
}

/* mode: NK_MODE_VALUE or NK_MODE_PERLIN; per: cells per period (0: none) */
NK_INLINE double nk_sq2p(int mode, uint32_t seed, uint32_t per, double x, double y, int want_grad, double *g)
{
    double tx, ty;
    uint64_t i = nl_floor(x, &tx), j = nl_floor(y, &ty);
    uint64_t j0 = nl_wrap(j, per), j1 = nl_wrap(j + 1, per);
    uint32_t s = nl_seed(seed), ha, hb, hc, hd;
    nk_sq2_column(s, nl_wrap(i, per), j0, j1, &ha, &hb);
    nk_sq2_column(s, nl_wrap(i + 1, per), j0, j1, &hc, &hd);
    double sy = nl_fade(ty), dsy = nl_dfade(ty);
    nk_cell2 c = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    if (mode == NK_MODE_VALUE) {
        nk_value2_cell(ha, hb, hc, hd, sy, dsy, want_grad, &c);
        return nk_value2_sample(&c, tx, want_grad, g);
    }
    nk_perlin2_cell(ha, hb, hc, hd, ty, sy, dsy, want_grad, &c);
    return nk_perlin2_sample(&c, tx, want_grad, g);
}

NK_INLINE double nk_sq2(int mode, uint32_t seed, double x, double y, int want_grad, double *g)
{
    return nk_sq2p(mode, seed, 0, x, y, want_grad, g);
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

/* per: cells per period along x and y (0: none); z never wraps */
NK_INLINE double nk_sq3p(int mode, uint32_t seed, uint32_t per, double x, double y, double z, int want_grad,
                         double *g)
{
    double t[3];
    uint64_t i = nl_floor(x, &t[0]), j = nl_floor(y, &t[1]), k = nl_floor(z, &t[2]);
    uint64_t ix[2] = { nl_wrap(i, per), nl_wrap(i + 1, per) }, jy[2] = { nl_wrap(j, per), nl_wrap(j + 1, per) };
    uint32_t s = nl_seed(seed);
    double c[8][4];
    for (int n = 0; n < 8; n++) {
        int ox = n >> 2, oy = (n >> 1) & 1, oz = n & 1;
        uint32_t h = nl_avalanche(nl_eat64(nl_eat64(nl_eat64(s, ix[ox]), jy[oy]), k + oz));
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

NK_INLINE double nk_sq3(int mode, uint32_t seed, double x, double y, double z, int want_grad, double *g)
{
    return nk_sq3p(mode, seed, 0, x, y, z, want_grad, g);
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

/* perm: 512 entries (the 256-permutation twice). per: cells per period along
 * x and y (0: none), applied before the permutation: corner column X1 is
 * (X + 1) wrapped, then & 255, and row Y1 likewise. Without a period that
 * is the reference's perm[X + 1] and perm[A + 1] (perm repeats after 256),
 * so the numbers are the reference's; with period 256 too. */
NK_INLINE double nk_improved3p(const unsigned char *perm, uint32_t per, double x, double y, double z, int want_grad,
                               double *g)
{
    double fx, fy, fz;
    uint64_t i = nl_floor(x, &fx), j = nl_floor(y, &fy);
    int X = (int)(nl_wrap(i, per) & 255), X1 = (int)(nl_wrap(i + 1, per) & 255);
    int Y = (int)(nl_wrap(j, per) & 255), Y1 = (int)(nl_wrap(j + 1, per) & 255);
    int Z = (int)(nl_floor(z, &fz) & 255);
    double u = fx * fx * fx * (fx * (fx * 6 - 15) + 10);
    double v = fy * fy * fy * (fy * (fy * 6 - 15) + 10);
    double w = fz * fz * fz * (fz * (fz * 6 - 15) + 10);
    int A = perm[X], AA = perm[A + Y] + Z, AB = perm[A + Y1] + Z;
    int B = perm[X1], BA = perm[B + Y] + Z, BB = perm[B + Y1] + Z;
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

NK_INLINE double nk_improved3(const unsigned char *perm, double x, double y, double z, int want_grad, double *g)
{
    return nk_improved3p(perm, 0, x, y, z, want_grad, g);
}

/* ---- triangle lattice (simplex cell and kernel), 2D ---- */

/* Islands' diamond gradients normalised to unit length: entry b is
 * (gx, gy) * (1 / sqrt(gx^2 + gy^2)) of nl_diamond_table[b], computed in
 * double (tests/unit/test_noise.c checks every entry bit for bit). */
static const double nk_simplex2_table[256][2] = {
    { 0.0, -1.0 }, { 0.015934231746138144, -0.9998730420701722 }, { 0.03237168905370856, -0.9994758995332554 },
    { 0.049322612310635054, -0.9987828992903586 }, { 0.06679609352382887, -0.9977666470121939 },
    { 0.08479983040050873, -0.9963980072059783 }, { 0.10333985507338256, -0.9946461050813058 },
    { 0.12242023763811756, -0.9924783551375953 }, { 0.14204276547161515, -0.9898605218803181 },
    { 0.1622066002983227, -0.9867568184814637 }, { 0.18290791618299232, -0.9831300494835846 },
    { 0.20413952305654645, -0.9789418037484382 }, { 0.22589048201828701, -0.9741527037038629 },
    { 0.2481457204756806, -0.9687227164723687 }, { 0.27088565713230905, -0.9626115315951691 },
    { 0.29408584883752314, -0.95577900872195 }, { 0.31771667325869085, -0.9481856967564055 },
    { 0.34174306308670427, -0.939793423488437 }, { 0.36612430886454467, -0.9305659516973849 },
    { 0.3908139483391855, -0.9204696941146604 }, { 0.4157597602677943, -0.9094744755858001 },
    { 0.4409038796534668, -0.8975543264374148 }, { 0.46618304926522286, -0.8846882866737747 },
    { 0.49152901888984407, -0.870861196511354 }, { 0.5168690990339174, -0.8560644452749259 },
    { 0.542126869822093, -0.8402966482242443 }, { 0.567223038835748, -0.8235642198480575 },
    { 0.5920764339606919, -0.8058818128909415 }, { 0.6166051094507881, -0.7872725951023456 },
    { 0.6407275359544508, -0.7677683404971437 }, { 0.6643638388299199, -0.7474093186836596 },
    { 0.6874370443113379, -0.726243974232139 }, { 0.7098742905048394, -0.7043283976102703 },
    { 0.7316079601495331, -0.6817255992302469 }, { 0.7525766947068776, -0.6585046078685183 },
    { 0.7727262545252342, -0.6347394233600137 }, { 0.7920101971969339, -0.6105078603393032 },
    { 0.8103903552045726, -0.5858903243708731 }, { 0.8278371038190224, -0.5609685637721005 },
    { 0.8443294201829337, -0.5358244397314771 }, { 0.8598547438407346, -0.5105387541554361 },
    { 0.8744086570214685, -0.4851901694448394 }, { 0.8879944092772877, -0.4598542476614528 },
    { 0.9006223153636851, -0.4346026289254991 }, { 0.9123090574583259, -0.40950236101822585 },
    { 0.9230769230769231, -0.38461538461538436 }, { 0.932953008622024, -0.35999817180523735 },
    { 0.9419684157507275, -0.33570150986861025 }, { 0.9501574640680012, -0.3117704178973129 },
    { 0.957556939437213, -0.2882441807489571 }, { 0.9642053928037903, -0.2651564830210425 },
    { 0.9701425001453319, -0.24253562503633289 }, { 0.9754084902134855, -0.22040480307708568 },
    { 0.9800436432676758, -0.19878243707787743 }, { 0.9840878610995739, -0.1776825304763118 },
    { 0.9875803063351137, -0.15711504873513168 }, { 0.990559107259765, -0.13708630502255678 },
    { 0.9930611231942692, -0.11759934353616354 }, { 0.9951217646853637, -0.09865431287829052 },
    { 0.9967748623937184, -0.08024882366729083 }, { 0.9980525784828884, -0.06237828615518054 },
    { 0.9989853544662558, -0.0450362249964294 }, { 0.9996018897889455, -0.028214569469849165 },
    { 0.999929145853172, -0.01190391840301391 }, { -0.9999922500745928, 0.003936977362498383 },
    { -0.999800059980007, 0.01999600119960007 }, { -0.9993314265864826, 0.03656090585072507 },
    { -0.9985602493779484, 0.0536416662888981 }, { -0.9974586998307349, 0.07124704998790962 },
    { -0.9959972064969598, 0.08938436468562451 }, { -0.9941444630694565, 0.10805918076841929 },
    { -0.9918674644769087, 0.12727502862756798 }, { -0.9891315765273102, 0.14703307218649203 },
    { -0.9859006449999423, 0.16733176084861398 }, { -0.9821371503301772, 0.1881664633810154 },
    { -0.9778024140774094, 0.2095290887308735 }, { -0.9728568631454656, 0.23140770045693113 },
    { -0.9672603571619866, 0.2537861333147785 }, { -0.9609725834417835, 0.27664362250596813 },
    { -0.9539535224868239, 0.29995445810152715 }, { -0.9461639849533562, 0.32368767906299023 },
    { -0.9375662184099312, 0.3478068229585227 }, { -0.9281245790205043, 0.3722697487280046 },
    { -0.9178062595660568, 0.39702855048644037 }, { -0.9065820610798457, 0.4220295801578592 },
    { -0.894427190999916, 0.44721359549995787 }, { -0.8813220663961948, 0.47251604764615285 },
    { -0.8672530968348076, 0.4978675185533155 }, { -0.8522134181772286, 0.5231943136910834 },
    { -0.8362035464773608, 0.5484192090533339 }, { -0.8192319205190404, 0.5734623443633284 },
    { -0.8013153027472802, 0.5982422465715996 }, { -0.7824790115887833, 0.6226769599262852 },
    { -0.7627569634671122, 0.6466852516351601 }, { -0.7421915100348925, 0.6701878560762838 },
    { -0.7208330649018558, 0.6931087162517845 }, { -0.6987395238751688, 0.71537617920553 },
    { -0.6759754927447551, 0.7369241027463312 }, { -0.6526113461649602, 0.757692834106776 },
    { -0.6287221494420364, 0.7776300269414663 }, { -0.6043864813742318, 0.7966912709023964 },
    { -0.5796852002280719, 0.8148405173017235 }, { -0.5547001962252289, 0.8320502943378438 },
    { -0.5295131725690063, 0.848301715238102 }, { -0.5042044933094635, 0.8635842917321662 },
    { -0.4788521306805734, 0.8778955729143844 }, { -0.4535307375221148, 0.891240635363226 },
    { -0.4283108626601815, 0.9036314541489197 }, { -0.4032583192833165, 0.9150861860659874 },
    { -0.3784337089594218, 0.9256283962385854 }, { -0.3538920974158909, 0.9352862574562836 },
    { -0.3296828328367062, 0.9440917485778405 }, { -0.3058494933599184, 0.9520798744913587 },
    { -0.2824299477056444, 0.9592879258277918 }, { -0.2594565113460577, 0.9657547922325486 },
    { -0.2369561801910072, 0.9715203387831297 }, { -0.21495092421007508, 0.9766248513022975 },
    { -0.19345802453261707, 0.9811085529868432 }, { -0.17249043915516668, 0.985011192017663 },
    { -0.15205718425394107, 0.9883716976506172 }, { -0.132163720091018, 0.9912279006826348 },
    { -0.11281233249053804, 0.9936163130897381 }, { -0.09400250275284272, 0.9955719609732899 },
    { -0.07573126060644479, 0.9971282646515235 }, { -0.057993516332248356, 0.9983169597194176 },
    { -0.04078236951430938, 0.9991680531005777 }, { -0.02408939297511997, 0.9997098084674824 },
    { -0.007904891350658224, 0.9999687558582689 }, { 0.007904891350658224, 0.9999687558582689 },
    { 0.02408939297511997, 0.9997098084674824 }, { 0.040782369514309136, 0.9991680531005774 },
    { 0.057993516332248106, 0.9983169597194176 }, { 0.07573126060644506, 0.9971282646515236 },
    { 0.09400250275284298, 0.9955719609732899 }, { 0.11281233249053804, 0.9936163130897381 },
    { 0.132163720091018, 0.9912279006826348 }, { 0.15205718425394107, 0.9883716976506172 },
    { 0.17249043915516668, 0.985011192017663 }, { 0.1934580245326168, 0.9811085529868433 },
    { 0.21495092421007475, 0.9766248513022974 }, { 0.2369561801910075, 0.9715203387831296 },
    { 0.259456511346058, 0.9657547922325485 }, { 0.2824299477056444, 0.9592879258277918 },
    { 0.3058494933599184, 0.9520798744913587 }, { 0.3296828328367062, 0.9440917485778405 },
    { 0.3538920974158909, 0.9352862574562836 }, { 0.3784337089594214, 0.9256283962385854 },
    { 0.4032583192833162, 0.9150861860659876 }, { 0.4283108626601819, 0.9036314541489197 },
    { 0.4535307375221152, 0.8912406353632258 }, { 0.4788521306805734, 0.8778955729143844 },
    { 0.5042044933094635, 0.8635842917321662 }, { 0.5295131725690063, 0.848301715238102 },
    { 0.5547001962252289, 0.8320502943378438 }, { 0.5796852002280716, 0.8148405173017238 },
    { 0.6043864813742315, 0.7966912709023966 }, { 0.6287221494420369, 0.7776300269414661 },
    { 0.6526113461649605, 0.7576928341067757 }, { 0.6759754927447551, 0.7369241027463312 },
    { 0.6987395238751688, 0.71537617920553 }, { 0.7208330649018558, 0.6931087162517845 },
    { 0.7421915100348925, 0.6701878560762838 }, { 0.7627569634671119, 0.6466852516351604 },
    { 0.7824790115887831, 0.6226769599262857 }, { 0.8013153027472805, 0.5982422465715994 },
    { 0.8192319205190407, 0.5734623443633281 }, { 0.8362035464773608, 0.5484192090533339 },
    { 0.8522134181772286, 0.5231943136910834 }, { 0.8672530968348076, 0.4978675185533155 },
    { 0.8813220663961948, 0.47251604764615285 }, { 0.8944271909999159, 0.4472135954999582 },
    { 0.9065820610798456, 0.4220295801578596 }, { 0.9178062595660571, 0.3970285504864401 },
    { 0.9281245790205045, 0.37226974872800433 }, { 0.9375662184099312, 0.3478068229585227 },
    { 0.9461639849533562, 0.32368767906299023 }, { 0.9539535224868239, 0.29995445810152715 },
    { 0.9609725834417835, 0.27664362250596813 }, { 0.9672603571619862, 0.2537861333147788 },
    { 0.9728568631454656, 0.23140770045693143 }, { 0.9778024140774096, 0.20952908873087325 },
    { 0.9821371503301771, 0.18816646338101506 }, { 0.9859006449999423, 0.16733176084861398 },
    { 0.9891315765273102, 0.14703307218649203 }, { 0.9918674644769087, 0.12727502862756798 },
    { 0.9941444630694565, 0.10805918076841929 }, { 0.9959972064969598, 0.08938436468562477 },
    { 0.9974586998307351, 0.07124704998790989 }, { 0.9985602493779484, 0.053641666288897855 },
    { 0.9993314265864826, 0.036560905850724836 }, { 0.999800059980007, 0.01999600119960007 },
    { 0.9999922500745928, 0.003936977362498383 }, { -0.999929145853172, -0.01190391840301391 },
    { -0.9996018897889455, -0.028214569469849165 }, { -0.9989853544662558, -0.0450362249964294 },
    { -0.9980525784828886, -0.062378286155180304 }, { -0.9967748623937183, -0.0802488236672911 },
    { -0.9951217646853637, -0.09865431287829052 }, { -0.9930611231942692, -0.11759934353616354 },
    { -0.990559107259765, -0.13708630502255678 }, { -0.9875803063351137, -0.15711504873513168 },
    { -0.9840878610995739, -0.1776825304763118 }, { -0.9800436432676758, -0.19878243707787743 },
    { -0.9754084902134854, -0.22040480307708532 }, { -0.9701425001453319, -0.24253562503633325 },
    { -0.9642053928037903, -0.2651564830210425 }, { -0.957556939437213, -0.2882441807489571 },
    { -0.9501574640680012, -0.3117704178973129 }, { -0.9419684157507275, -0.33570150986861025 },
    { -0.932953008622024, -0.35999817180523735 }, { -0.9230769230769231, -0.38461538461538436 },
    { -0.9123090574583258, -0.4095023610182254 }, { -0.9006223153636849, -0.43460262892549945 },
    { -0.8879944092772877, -0.4598542476614528 }, { -0.8744086570214685, -0.4851901694448394 },
    { -0.8598547438407346, -0.5105387541554361 }, { -0.8443294201829337, -0.5358244397314771 },
    { -0.8278371038190224, -0.5609685637721005 }, { -0.8103903552045726, -0.5858903243708731 },
    { -0.792010197196934, -0.6105078603393028 }, { -0.772726254525234, -0.6347394233600141 },
    { -0.7525766947068776, -0.6585046078685183 }, { -0.7316079601495331, -0.6817255992302469 },
    { -0.7098742905048394, -0.7043283976102703 }, { -0.6874370443113379, -0.726243974232139 },
    { -0.6643638388299199, -0.7474093186836596 }, { -0.6407275359544511, -0.7677683404971434 },
    { -0.6166051094507884, -0.7872725951023453 }, { -0.5920764339606915, -0.8058818128909419 },
    { -0.567223038835748, -0.8235642198480575 }, { -0.542126869822093, -0.8402966482242443 },
    { -0.5168690990339174, -0.8560644452749259 }, { -0.49152901888984407, -0.870861196511354 },
    { -0.46618304926522286, -0.8846882866737747 }, { -0.44090387965346717, -0.8975543264374146 },
    { -0.4157597602677947, -0.9094744755858 }, { -0.39081394833918515, -0.9204696941146605 },
    { -0.36612430886454467, -0.9305659516973849 }, { -0.34174306308670427, -0.939793423488437 },
    { -0.31771667325869085, -0.9481856967564055 }, { -0.29408584883752314, -0.95577900872195 },
    { -0.27088565713230905, -0.9626115315951691 }, { -0.2481457204756809, -0.9687227164723686 },
    { -0.22589048201828735, -0.9741527037038628 }, { -0.20413952305654615, -0.9789418037484383 },
    { -0.18290791618299232, -0.9831300494835846 }, { -0.1622066002983227, -0.9867568184814637 },
    { -0.14204276547161515, -0.9898605218803181 }, { -0.12242023763811756, -0.9924783551375953 },
    { -0.10333985507338256, -0.9946461050813058 }, { -0.08479983040050898, -0.9963980072059783 },
    { -0.06679609352382913, -0.9977666470121939 }, { -0.04932261231063482, -0.9987828992903588 },
    { -0.03237168905370856, -0.9994758995332554 }, { -0.015934231746138144, -0.9998730420701722 }, { 0.0, -1.0 },
};

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
        gx = nk_simplex2_table[h & 255][0];
        gy = nk_simplex2_table[h & 255][1];
    }
    double dot = gx * dx + gy * dy;
    if (want_grad) {
        double k = -48.0 * r2 * dot;
        g[0] += 8.0 * r3 * gx + k * dx;
        g[1] += 8.0 * r3 * gy + k * dy;
    }
    return 8.0 * r3 * dot;
}

/* Skewed cell of a 2D point (noise space): index (i, j), fractions. */
NK_INLINE void nk_tri2_lattice(double x, double y, uint64_t *i, uint64_t *j, double *fx, double *fy)
{
    x *= NK_SIMPLEX_K2;
    y *= NK_SIMPLEX_K2;
    double skew = (x + y) * NK_SIMPLEX_F2;
    *i = nl_floor(x + skew, fx);
    *j = nl_floor(y + skew, fy);
}

/* Hashes of the skewed square's corners (i,j), (i+1,j), (i,j+1), (i+1,j+1). */
NK_INLINE void nk_tri2_hashes(uint32_t seed_state, uint64_t i, uint64_t j, uint32_t h[4])
{
    uint32_t hi0 = nl_eat64(seed_state, i), hi1 = nl_eat64(seed_state, i + 1);
    h[0] = nl_avalanche(nl_eat64(hi0, j));
    h[1] = nl_avalanche(nl_eat64(hi1, j));
    h[2] = nl_avalanche(nl_eat64(hi0, j + 1));
    h[3] = nl_avalanche(nl_eat64(hi1, j + 1));
}

/* The three corners of the triangle holding (fx, fy): (i, j), (i+1, j+1),
 * and (i+1, j) if fx > fy else (i, j+1), picked without a branch (which
 * way a sample falls is a coin toss). */
NK_INLINE double nk_tri2_blend(int mode, const uint32_t h[4], double fx, double fy, int want_grad, double *g)
{
    int xgy = fx > fy;
    uint32_t m = (uint32_t)-xgy;
    uint32_t hc = (h[1] & m) | (h[2] & ~m);
    double ox = (double)xgy, oy = (double)(1 - xgy);
    double gs[2] = { 0, 0 };
    double v = nk_tri2_corner(mode, h[0], fx, fy, want_grad, gs);
    v += nk_tri2_corner(mode, h[3], fx - 1, fy - 1, want_grad, gs);
    v += nk_tri2_corner(mode, hc, fx - ox, fy - oy, want_grad, gs);
    double scale = mode == NK_MODE_VALUE ? NK_TRI_VALUE2_SCALE
                 : mode == NK_MODE_PERLIN ? NK_TRI_PERLIN2_SCALE : NK_SIMPLEX2_SCALE;
    if (want_grad) {
        g[0] = gs[0] * (scale * NK_SIMPLEX_K2);
        g[1] = gs[1] * (scale * NK_SIMPLEX_K2);
    }
    return v * scale;
}

NK_INLINE double nk_tri2(int mode, uint32_t seed, double x, double y, int want_grad, double *g)
{
    uint64_t i, j;
    double fx, fy;
    uint32_t h[4];
    nk_tri2_lattice(x, y, &i, &j, &fx, &fy);
    nk_tri2_hashes(nl_seed(seed), i, j, h);
    return nk_tri2_blend(mode, h, fx, fy, want_grad, g);
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

/* ---- classic: the C perlin(x, y) of Wikipedia's "Perlin noise" article ----
 *
 * Its corner hash, with two extensions: a seed's key is XORed into b after
 * b's multiply (the key is avalanche(seed) of SmallXXHash, a bijection with
 * avalanche(0) = 0, so seed 0 is the article's hash), and a corner whose
 * index lies outside the int32 range (where the article's int overflows)
 * also XORs in a hash of the indices' high words, so the plane does not
 * repeat every 2^32 cells. */
#define NK_CLASSIC_M1 3284157443u
#define NK_CLASSIC_M2 1911520717u
#define NK_CLASSIC_M3 2048419325u
/* the article's 3.14159265 / ~(~0u >> 1): radians per unit of hash */
#define NK_CLASSIC_ANGLE (3.14159265 / 2147483648.0)

NK_INLINE uint32_t nk_classic_hash(uint32_t key, uint32_t ix, uint32_t iy)
{
    uint32_t a = ix, b = iy;
    a *= NK_CLASSIC_M1;
    b ^= a << 16 | a >> 16;
    b *= NK_CLASSIC_M2;
    b ^= key;
    a ^= b << 16 | b >> 16;
    a *= NK_CLASSIC_M3;
    return a;
}

/* The hash of corner (i, j) under a layer's key. */
NK_INLINE uint32_t nk_classic_corner(uint32_t key, uint64_t i, uint64_t j)
{
    if (((i + 0x80000000u) | (j + 0x80000000u)) >> 32)
        key ^= nl_avalanche(nl_eat(nl_eat(NL_PRIME_E, (uint32_t)(i >> 32)), (uint32_t)(j >> 32)));
    return nk_classic_hash(key, (uint32_t)i, (uint32_t)j);
}

/* The layer key of a seed. */
NK_INLINE uint32_t nk_classic_key(uint32_t seed) { return nl_avalanche(seed); }

/* The corner's gradient as the article computes it: the angle rounded to
 * float, its cosine and sine (nl_sincos) rounded to float. */
NK_INLINE void nk_classic_grad(uint32_t h, double *gx, double *gy)
{
    float angle = (float)((double)h * NK_CLASSIC_ANGLE);
    double s, c;
    nl_sincos((double)angle, &s, &c);
    *gx = (double)(float)c;
    *gy = (double)(float)s;
}

enum { NK_FADE_LINEAR = 0, NK_FADE_CUBIC = 1, NK_FADE_QUINTIC = 2 };

/* The article's interpolation weight of fraction w and its derivative:
 * linear w; cubic (3 - 2w) w^2; quintic (w (6w - 15) + 10) w^3, each in the
 * article's order of operations. */
NK_INLINE double nk_classic_weight(int fade, double w, double *dw)
{
    if (fade == NK_FADE_LINEAR) {
        *dw = 1.0;
        return w;
    }
    if (fade == NK_FADE_CUBIC) {
        *dw = 6.0 * (w * (1.0 - w));
        return (3.0 - w * 2.0) * w * w;
    }
    *dw = nl_dfade(w);
    return (w * (w * 6.0 - 15.0) + 10.0) * w * w * w;
}

/* ---- gradients=angle: the gradient/simplex article's GLSL gradient() ----
 *
 * A corner's gradient is the unit vector at the angle h * 2 pi / 2^32 of its
 * SmallXXHash h, as every square-lattice kind hashes it: the article's
 * angle = hash21(cell) * 6.2831853 with hash21 = h / 2^32 (6.2831853 is
 * 2 pi in GLSL's float; here 2 pi in double), (cos, sin). */
#define NK_ANGLE_UNIT (6.283185307179586 / 4294967296.0)

NK_INLINE uint32_t nk_corner_hash(uint32_t seed_state, uint64_t i, uint64_t j)
{
    return nl_avalanche(nl_eat64(nl_eat64(seed_state, i), j));
}

NK_INLINE void nk_angle_grad(uint32_t h, double *gx, double *gy)
{
    double s, c;
    nl_sincos((double)h * NK_ANGLE_UNIT, &s, &c);
    *gx = c;
    *gy = s;
}

/* Square-lattice gradient noise with unit gradients from one of two
 * sources: classic's (the Wikipedia hash, float angle) or the GLSL
 * article's angle (SmallXXHash). perlin with gradients=angle is this with
 * the quintic fade: the article's gradientNoise(), mix() being the
 * interpolation below. `state` is classic's key or SmallXXHash's seed
 * state (nk_unit2_state). */
enum { NK_SRC_CLASSIC = 0, NK_SRC_ANGLE = 1, NK_SRC_TABLE = 2 }; /* table: simplex's own, for nk_var_tri2 */

NK_INLINE uint32_t nk_unit2_state(int src, uint32_t seed)
{
    return src == NK_SRC_CLASSIC ? nk_classic_key(seed) : nl_seed(seed);
}

NK_INLINE void nk_unit2_grad(int src, uint32_t state, uint64_t i, uint64_t j, double *gx, double *gy)
{
    if (src == NK_SRC_CLASSIC)
        nk_classic_grad(nk_classic_corner(state, i, j), gx, gy);
    else
        nk_angle_grad(nk_corner_hash(state, i, j), gx, gy);
}

/* Corner gradients of a cell, in the article's order: (x0, y0), (x1, y0),
 * (x0, y1), (x1, y1). */
typedef struct {
    double gx[4], gy[4];
} nk_classic_cell;

/* per: the period in cells (0: none); each corner's index is wrapped
 * (after the + 1) before hashing, as the other square-lattice kinds do. */
NK_INLINE void nk_classic_cell_at(int src, uint32_t state, uint64_t i, uint64_t j, uint32_t per, nk_classic_cell *c)
{
    uint64_t i0 = nl_wrap(i, per), i1 = nl_wrap(i + 1, per), j0 = nl_wrap(j, per), j1 = nl_wrap(j + 1, per);
    nk_unit2_grad(src, state, i0, j0, &c->gx[0], &c->gy[0]);
    nk_unit2_grad(src, state, i1, j0, &c->gx[1], &c->gy[1]);
    nk_unit2_grad(src, state, i0, j1, &c->gx[2], &c->gy[2]);
    nk_unit2_grad(src, state, i1, j1, &c->gx[3], &c->gy[3]);
}

/* perlin(x, y) from the cell's gradients and the fractions (tx, ty):
 * n0, n1 the dot products of a row's corners, ix0 = interpolate(n0, n1,
 * sx), ix1 likewise on row y1, value = interpolate(ix0, ix1, sy), with
 * interpolate(a0, a1, w) = (a1 - a0) * weight(w) + a0, in double. The
 * gradient is exact; with the linear fade it is that of the cell the point
 * lies in (floor of each coordinate), the field having a kink on cell
 * borders. */
NK_INLINE double nk_classic_blend(int fade, const nk_classic_cell *c, double tx, double ty, int want_grad,
                                  double *g)
{
    double tx1 = tx - 1, ty1 = ty - 1, dsx, dsy;
    double sx = nk_classic_weight(fade, tx, &dsx), sy = nk_classic_weight(fade, ty, &dsy);
    double n00 = tx * c->gx[0] + ty * c->gy[0], n10 = tx1 * c->gx[1] + ty * c->gy[1];
    double n01 = tx * c->gx[2] + ty1 * c->gy[2], n11 = tx1 * c->gx[3] + ty1 * c->gy[3];
    double e0 = n10 - n00, e1 = n11 - n01;
    double ix0 = e0 * sx + n00, ix1 = e1 * sx + n01, ey = ix1 - ix0;
    if (want_grad) {
        double x0 = c->gx[0] + (c->gx[1] - c->gx[0]) * sx + e0 * dsx;
        double y0 = c->gy[0] + (c->gy[1] - c->gy[0]) * sx;
        double x1 = c->gx[2] + (c->gx[3] - c->gx[2]) * sx + e1 * dsx;
        double y1 = c->gy[2] + (c->gy[3] - c->gy[2]) * sx;
        g[0] = x0 + (x1 - x0) * sy;
        g[1] = y0 + (y1 - y0) * sy + ey * dsy;
    }
    return ey * sy + ix0;
}

NK_INLINE double nk_classic2(int src, int fade, uint32_t seed, uint32_t per, double x, double y, int want_grad,
                             double *g)
{
    double tx, ty;
    uint64_t i = nl_floor(x, &tx), j = nl_floor(y, &ty);
    nk_classic_cell c;
    nk_classic_cell_at(src, nk_unit2_state(src, seed), i, j, per, &c);
    return nk_classic_blend(fade, &c, tx, ty, want_grad, g);
}

/* ---- simplex with the seeds' variants ----
 *
 * The lattice and corners of nk_tri2; gradients from the table (the unit
 * diamond, as simplex) or the hashed angle; falloff classic (8 r^3, scaled
 * by NK_SIMPLEX2_SCALE, as simplex) or the GLSL article's quartic (r^4,
 * scaled by its 99), r = max(0.5 - |d|^2, 0). With unit gradients, however
 * pointed, the sums are at most 1/NK_SIMPLEX2_SCALE and 0.0100802 (at the
 * middle of a triangle's edge; a dense search over the cell), so the
 * article's 99 keeps the quartic within 0.9979: nothing to clamp. perlin on
 * the triangle lattice with gradients=angle is this with the classic
 * falloff: unit gradients have one bound, whatever their directions. */
enum { NK_FALLOFF_CLASSIC = 0, NK_FALLOFF_QUARTIC = 1 };
#define NK_QUARTIC_SCALE 99.0

NK_INLINE double nk_var_tri2_corner(int falloff, double gx, double gy, double fx, double fy, int want_grad, double *g)
{
    double sum = (fx + fy) * NK_SIMPLEX_G2;
    double dx = fx - sum, dy = fy - sum;
    double r = 0.5 - dx * dx - dy * dy;
    r = r > 0 ? r : 0.0;
    double r2 = r * r, dot = gx * dx + gy * dy;
    if (falloff == NK_FALLOFF_CLASSIC) {
        double r38 = 8.0 * (r2 * r);
        if (want_grad) {
            double k = -48.0 * r2 * dot;
            g[0] += r38 * gx + k * dx;
            g[1] += r38 * gy + k * dy;
        }
        return r38 * dot;
    }
    double r4 = r2 * r2;
    if (want_grad) {
        double k = -8.0 * (r2 * r) * dot;
        g[0] += r4 * gx + k * dx;
        g[1] += r4 * gy + k * dy;
    }
    return r4 * dot;
}

NK_INLINE void nk_var_tri2_grad(int src, uint32_t h, double *gx, double *gy)
{
    if (src == NK_SRC_ANGLE) {
        nk_angle_grad(h, gx, gy);
    } else {
        *gx = nk_simplex2_table[h & 255][0];
        *gy = nk_simplex2_table[h & 255][1];
    }
}

/* The three corners' sum from their gradients, scaled. */
NK_INLINE double nk_var_tri2_blend(int falloff, const double gx[3], const double gy[3], double fx, double fy, int xgy,
                                   int want_grad, double *g)
{
    double gs[2] = { 0, 0 };
    double v = nk_var_tri2_corner(falloff, gx[0], gy[0], fx, fy, want_grad, gs);
    v += nk_var_tri2_corner(falloff, gx[1], gy[1], fx - (double)xgy, fy - (double)(1 - xgy), want_grad, gs);
    v += nk_var_tri2_corner(falloff, gx[2], gy[2], fx - 1, fy - 1, want_grad, gs);
    double scale = falloff == NK_FALLOFF_QUARTIC ? NK_QUARTIC_SCALE : NK_SIMPLEX2_SCALE;
    if (want_grad) {
        g[0] = gs[0] * (scale * NK_SIMPLEX_K2);
        g[1] = gs[1] * (scale * NK_SIMPLEX_K2);
    }
    return v * scale;
}

NK_INLINE double nk_var_tri2(int src, int falloff, uint32_t seed, double x, double y, int want_grad, double *g)
{
    uint64_t i, j;
    double fx, fy, gx[3], gy[3];
    nk_tri2_lattice(x, y, &i, &j, &fx, &fy);
    int xgy = fx > fy;
    uint32_t s = nl_seed(seed);
    nk_var_tri2_grad(src, nk_corner_hash(s, i, j), &gx[0], &gy[0]);
    nk_var_tri2_grad(src, nk_corner_hash(s, i + (uint64_t)xgy, j + (uint64_t)(1 - xgy)), &gx[1], &gy[1]);
    nk_var_tri2_grad(src, nk_corner_hash(s, i + 1, j + 1), &gx[2], &gy[2]);
    return nk_var_tri2_blend(falloff, gx, gy, fx, fy, xgy, want_grad, g);
}

#endif
