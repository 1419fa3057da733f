/* noise_vec_tables.h: the corner tables on lanes: a hash's byte A as an index
 * into noise_lattice.h's value, diamond and perlin2 tables (loaded, gathered or
 * computed by the table's own expression, as the path chooses: NV_TABLES).
 *
 * Internal to noise/: included by noise_vec.h, in the order it lists (a file
 * uses what the files before it define), once per instruction-set path.
 * Internal prefixes (nv_, nk_, nl_, ...): noise_field.h.
 */
#ifndef NOISE_VEC_TABLES_H
#define NOISE_VEC_TABLES_H

/* byte A of a hash, as a table index */
NV_FN vi nv_byte(vi h) { return vi_and(h, vi_set1(255)); }

/* b / 255.0 correctly rounded for the integers b in [0, 255], without a
 * divide: q0 = b * (1/255) is within an ulp of it; r = b - 255 q0 comes out
 * exact (b - 256 q0 and then + q0 cancel exactly: Sterbenz), and q0 + r *
 * (1/255) rounds to the quotient, which no b brings within 2^-60 (relative)
 * of a halfway point (tests/unit/test_noise.c checks all 256 against the
 * division through the vector paths). */
NV_FN vd nv_div255(vd b)
{
    vd r255 = vd_set1(1.0 / 255.0), q0 = vd_mul(b, r255);
    vd r = vd_add(vd_sub(b, vd_mul(q0, vd_set1(256.0))), q0);
    return vd_add(q0, vd_mul(r, r255));
}

/* nl_value_table[byte A of h]: loaded where the path reads tables
 * (NV_TABLES), else computed by the table's own expression NL_U(b) = b /
 * 255.0 * 2.0 - 1.0 (each operation exact or correctly rounded). */
NV_FN vd nv_value_of(vi h)
{
#if NV_TABLES
    uint32_t off[NV_W]; /* byte offsets of the entries */
    vi_storeu(off, vi_shl(nv_byte(h), 3));
    return vd_table1(nl_value_table, off);
#else
    vd b = vi_to_vd(nv_byte(h));
    return vd_sub(vd_mul(nv_div255(b), vd_set1(2.0)), vd_set1(1.0));
#endif
}

/* Two doubles per entry of a [256][2] table at byte A of h. */
NV_FN void nv_table2(const double (*t)[2], vi h, vd *a, vd *b)
{
#if NV_TABLES
    uint32_t off[NV_W]; /* byte offsets of the entries */
    vi_storeu(off, vi_shl(nv_byte(h), 4));
    vd_table2(&t[0][0], off, a, b);
#else
    vi ix = vi_shl(nv_byte(h), 1);
    *a = vd_gather(&t[0][0], ix);
    *b = vd_gather(&t[0][0] + 1, ix);
#endif
}

/* Islands' diamond gradient of byte A of h (nl_diamond_table), computed
 * as its NL_DGX / NL_DGY expressions; times `scale` unless it is 1
 * (nl_perlin2_table is the diamond times NL_PERLIN2_SCALE). */
NV_FN void nv_diamond_of(vi h, double scale, vd *gx, vd *gy)
{
#if NV_TABLES
    if (scale == NL_PERLIN2_SCALE) {
        nv_table2(nl_perlin2_table, h, gx, gy);
        return;
    }
    if (scale == 1.0) {
        nv_table2(nl_diamond_table, h, gx, gy);
        return;
    }
#endif
    /* floor(u + 0.5) is -1, 0 or 1 (+0: u + 0.5 is never -0), as NL_DGX's
     * written-out floor */
    vd u = nv_value_of(h), fl = vd_floor(vd_add(u, vd_set1(0.5)));
    vd x = vd_sub(u, fl), y = vd_sub(vd_set1(0.5), vd_abs(u));
    if (scale != 1.0) {
        x = vd_mul(x, vd_set1(scale));
        y = vd_mul(y, vd_set1(scale));
    }
    *gx = x;
    *gy = y;
}

#endif
