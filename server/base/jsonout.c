/* jsonout.c: compact JSON text from a jansson document, reals in shortest
 * round-trip form (see jsonout.h). */
#include "base/jsonout.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/failalloc.h"
#include "noise.h"

/* ---- numbers ----
 *
 * jsonout_number prints exactly what noise_format_double prints (the daemon's
 * text for a double since NOISE_VERSION 1), without its snprintf and strtod
 * retries. That text is defined by a search: the least precision p (from 15
 * for a normal double, from 1 for a subnormal) whose "%.pg", the double
 * rounded to p significant digits, parses back to the same double; for p 15
 * the trailing zeros are dropped and the precision becomes the digits left;
 * then %g's choice of fixed or exponent form, an integer written plain where
 * that is no longer than its exponent form, and the exponent without '+' and
 * leading zeros.
 *
 * Here the search is arithmetic, in the manner of Grisu (Loitsch, "Printing
 * floating-point numbers quickly and accurately with integers", PLDI 2010):
 * the double's binary significand w times a 128-bit approximation of a power
 * of ten gives S, the double scaled to 17 integer digits, as a fixed-point
 * number with 64 fraction bits and an error below 2 units of its last bit.
 * Rounding S to p digits is %.pg's rounding; the rounded number parses back
 * to the double when it lies inside the double's rounding interval (half an
 * ulp each side, a quarter below at a power of two, the ends included when
 * the significand is even, as strtod rounds ties to even). Where a rounding
 * or an interval test falls within the error of a tie or an end (an exact
 * tie, a decimal exactly on an end, or a double within 2^-60 of a power of
 * ten) and the arithmetic is not exact, the answer is left to
 * noise_format_double itself: that is Grisu3's
 * fallback, and it keeps the text identical by construction. */

#include "base/pow10tab.h"

typedef unsigned __int128 u128;
typedef __int128 i128;

static const uint64_t pow10u[18] = {1u,
                                    10u,
                                    100u,
                                    1000u,
                                    10000u,
                                    100000u,
                                    1000000u,
                                    10000000u,
                                    100000000u,
                                    1000000000u,
                                    10000000000u,
                                    100000000000u,
                                    1000000000000u,
                                    10000000000000u,
                                    100000000000000u,
                                    1000000000000000u,
                                    10000000000000000u,
                                    100000000000000000u};

/* Units of 2^-64 within which a comparison is too close to call: S and the
 * interval's half-widths are each within 2 units of the truth. */
#define NEAR 16

/* The double w * 2^e (w below 2^55) times 10^q, times 2^64, as integer part
 * *hi and fraction *lo (rounded down; error below 2 units of *lo; *exact set
 * when there is none). Returns -1 if q is outside the table or S would not
 * be near 17 digits. */
static int scale(uint64_t w, int e, int q, uint64_t *hi, uint64_t *lo, int *exact)
{
    if (q < POW10_QMIN || q > POW10_QMAX)
        return -1;
    int i = q - POW10_QMIN;
    u128 a = (u128)w * pow10tab[i].lo;
    u128 b = (u128)w * pow10tab[i].hi;
    u128 mid = (a >> 64) + (uint64_t)b;
    uint64_t l0 = (uint64_t)a, l1 = (uint64_t)mid;
    uint64_t l2 = (uint64_t)((b >> 64) + (mid >> 64));
    int r = -(pow10tab[i].b + e + 64); /* product >> r is S * 2^64 */
    uint64_t lost;
    if (r <= 0 || r >= 128)
        return -1;
    if (r < 64) {
        if (l2 >> r)
            return -1; /* more than 64 integer bits: not a 17-digit scale */
        *lo = (l1 << (64 - r)) | (l0 >> r);
        *hi = (l2 << (64 - r)) | (l1 >> r);
        lost = l0 << (64 - r);
    } else if (r == 64) {
        *lo = l1;
        *hi = l2;
        lost = l0;
    } else {
        *lo = (l2 << (128 - r)) | (l1 >> (r - 64));
        *hi = l2 >> (r - 64);
        lost = l0 | (l1 << (128 - r));
    }
    /* 10^q is exact in the table for q in [0, 55] (5^55 < 2^128) */
    *exact = q >= 0 && q <= 55 && lost == 0;
    return 0;
}

/* x / 10^k for k in [0, 16], by constants the compiler multiplies by. */
static inline uint64_t div_pow10(uint64_t x, int k)
{
    switch (k) {
    case 0: return x;
    case 1: return x / 10u;
    case 2: return x / 100u;
    case 3: return x / 1000u;
    case 4: return x / 10000u;
    case 5: return x / 100000u;
    case 6: return x / 1000000u;
    case 7: return x / 10000000u;
    case 8: return x / 100000000u;
    case 9: return x / 1000000000u;
    case 10: return x / 10000000000u;
    case 11: return x / 100000000000u;
    case 12: return x / 1000000000000u;
    case 13: return x / 10000000000000u;
    case 14: return x / 100000000000000u;
    case 15: return x / 1000000000000000u;
    default: return x / 10000000000000000u;
    }
}

/* Decimal digits of n (below 10^17) written ending just before end;
 * returns where they start. */
static char *put_digits(char *end, uint64_t n)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    while (n >= 100) {
        unsigned k = (unsigned)(n % 100);
        n /= 100;
        end -= 2;
        memcpy(end, pairs + 2 * k, 2);
    }
    if (n >= 10) {
        end -= 2;
        memcpy(end, pairs + 2 * n, 2);
    } else {
        *--end = (char)('0' + n);
    }
    return end;
}

int jsonout_number_fast(double v, char *out)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int neg = (int)(bits >> 63);
    uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
    int bexp = (int)((bits >> 52) & 0x7ff);
    if (bexp == 0x7ff)
        return -1;
    char *o = out;
    if (neg)
        *o++ = '-';
    if (bexp == 0 && frac == 0) {
        *o++ = '0';
        *o = '\0';
        return (int)(o - out);
    }
    uint64_t m = bexp ? frac | (UINT64_C(1) << 52) : frac;
    int e = bexp ? bexp - 1075 : -1074; /* |v| = m * 2^e */
    int subnormal = bexp == 0;
    int lower_closer = frac == 0 && bexp > 1; /* the gap below is half the gap above */

    /* In units of 2^(e-2), |v| is 4m and its interval ends are 2 above and
     * 2 (or 1) below. w: 4m with its top bit at bit 54. */
    uint64_t w = m << 2;
    int z = __builtin_clzll(w) - 9;
    w <<= z;
    int e2 = e - 2 - z;
    /* E0 = floor(log10(2^(54+e2))) <= E = floor(log10|v|) <= E0 + 1 */
    int E = ((54 + e2) * 78913) >> 18;
    int q = 16 - E;
    uint64_t s_int, s_frac;
    int exact;
    if (scale(w, e2, q, &s_int, &s_frac, &exact) != 0)
        return -1;
    if (s_int >= pow10u[17]) {
        E++;
        q--;
        if (scale(w, e2, q, &s_int, &s_frac, &exact) != 0)
            return -1;
    }
    /* S too close to 10^16 or 10^17 to know E */
    if (s_int < pow10u[16] || s_int >= pow10u[17] ||
        (!exact && s_int == pow10u[17] - 1 && s_frac > UINT64_MAX - NEAR))
        return -1;
    u128 s_fx = ((u128)s_int << 64) | s_frac;

    /* One unit of 2^(e-2) at the same scale, for the interval's ends. */
    int i = q - POW10_QMIN;
    int r = -(pow10tab[i].b + (e - 2) + 64);
    if (r <= 0 || r >= 128)
        return -1;
    u128 pq = ((u128)pow10tab[i].hi << 64) | pow10tab[i].lo;
    u128 unit = pq >> r;
    int ends_exact = exact && (pq & (((u128)1 << r) - 1)) == 0;
    i128 up = (i128)(2 * unit), down = (i128)(lower_closer ? unit : 2 * unit);

    int p = subnormal ? 1 : 15;
    uint64_t n = 0;
    for (;; p++) {
        if (p > 17)
            return -1;
        uint64_t div = pow10u[17 - p];
        n = div_pow10(s_int, 17 - p);
        uint64_t rem = s_int - n * div;
        /* S's remainder below the p-th digit against half a unit there:
         * above rounds up; an exact tie rounds to an even digit, as
         * printf does */
        i128 diff = (i128)(((u128)rem << 64) | s_frac) - (i128)((u128)div << 63);
        if (exact && diff == 0)
            n += n & 1;
        else if (!exact && diff >= -NEAR && diff <= NEAR)
            return -1;
        else if (diff > 0)
            n++;
        /* n * div - S inside (-down, up); on an end, strtod rounds to the
         * even significand */
        i128 d = (i128)((u128)(n * div) << 64) - (i128)s_fx;
        if (ends_exact) {
            if (d == up || d == -down) {
                if ((m & 1) == 0)
                    break;
                continue;
            }
        } else if ((d - up >= -NEAR && d - up <= NEAR) || (d + down >= -NEAR && d + down <= NEAR)) {
            return -1;
        }
        if (d > -down && d < up)
            break;
    }
    int X = E; /* %g's exponent: of the rounded number */
    if (n == pow10u[p]) {
        n = pow10u[p - 1];
        X++;
    }
    int nd = p;
    while (n % 10 == 0) {
        n /= 10;
        nd--;
    }
    int P = p == 15 ? nd : p; /* the precision %g is given */
    char dig[24];
    char *d0 = put_digits(dig + sizeof dig, n);
    if (X < -4 || X >= P) {
        /* exponent form; an exact integer below 10^17 is written plain if
         * that is no longer */
        int xd = X >= 100 || X <= -100 ? 3 : X >= 10 || X <= -10 ? 2 : 1;
        int exp_len = nd + (nd > 1) + 1 + (X < 0) + xd;
        if (X >= 0 && X < 17 && X + 1 <= exp_len && fabs(v) < 1e17 &&
            (double)(uint64_t)fabs(v) == fabs(v) && (uint64_t)fabs(v) == n * pow10u[X + 1 - nd]) {
            memcpy(o, d0, (size_t)nd);
            memset(o + nd, '0', (size_t)(X + 1 - nd));
            o += X + 1;
        } else {
            *o++ = d0[0];
            if (nd > 1) {
                *o++ = '.';
                memcpy(o, d0 + 1, (size_t)nd - 1);
                o += nd - 1;
            }
            *o++ = 'e';
            if (X < 0) {
                *o++ = '-';
                X = -X;
            }
            char xbuf[4];
            char *x0 = put_digits(xbuf + sizeof xbuf, (uint64_t)X);
            memcpy(o, x0, (size_t)(xbuf + sizeof xbuf - x0));
            o += xbuf + sizeof xbuf - x0;
        }
    } else if (X >= 0) {
        if (nd <= X + 1) {
            memcpy(o, d0, (size_t)nd);
            memset(o + nd, '0', (size_t)(X + 1 - nd));
            o += X + 1;
        } else {
            memcpy(o, d0, (size_t)X + 1);
            o += X + 1;
            *o++ = '.';
            memcpy(o, d0 + X + 1, (size_t)(nd - X - 1));
            o += nd - X - 1;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        memset(o, '0', (size_t)(-X - 1));
        o += -X - 1;
        memcpy(o, d0, (size_t)nd);
        o += nd;
    }
    *o = '\0';
    return (int)(o - out);
}

/* Reading, the other way (Eisel and Lemire's method, "Number parsing at a
 * gigabyte per second", 2021): the decimal significand w (up to 19 digits)
 * times the table's 10^q, the top 64 bits of the 192-bit product give the
 * double's 53 bits and the rounding bit; the table's error (below one unit
 * of its 128 bits) moves the product by less than one unit of its lower
 * 64 bits, so the rounding is certain unless the bits below the rounding
 * bit are all ones with the next 64 all ones too, or the product is exactly
 * half way (then strtod decides). */
int jsonout_parse_number(const char *s, size_t len, double *out)
{
    const char *p = s, *end = s + len;
    int neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    uint64_t w = 0;
    int nd = 0, q = 0;
    while (p < end && *p == '0')
        p++; /* leading zeros ("0" and "0.5") */
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (nd >= 19)
            return -1;
        w = w * 10 + (uint64_t)(*p - '0');
        nd++;
    }
    if (p < end && *p == '.') {
        p++;
        if (nd == 0)
            for (; p < end && *p == '0'; p++)
                q--; /* zeros after the point before the first digit */
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (nd >= 19)
                return -1;
            w = w * 10 + (uint64_t)(*p - '0');
            nd++;
            q--;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0, ev = 0;
        if (p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if (ev < 100000)
                ev = ev * 10 + (*p - '0');
        q += eneg ? -ev : ev;
    }
    if (p != end)
        return -1;
    if (w == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    if (q < POW10_QMIN || q > POW10_QMAX)
        return -1;
    int i = q - POW10_QMIN;
    int lz = __builtin_clzll(w);
    w <<= lz;
    u128 a = (u128)w * pow10tab[i].lo;
    u128 b = (u128)w * pow10tab[i].hi;
    u128 mid = (a >> 64) + (uint64_t)b;
    uint64_t l1 = (uint64_t)mid, l0 = (uint64_t)a;
    uint64_t x = (uint64_t)((b >> 64) + (mid >> 64)); /* product >> 128 */
    int top = (int)(x >> 63);                           /* else bit 62 is the top */
    int shift = 10 + top;
    uint64_t below = x & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
    if ((below == half - 1 && l1 == UINT64_MAX) || (below == half && l1 == 0 && l0 == 0))
        return -1;
    uint64_t m = (x >> shift) + (below >= half);
    /* value = x * 2^(128 + b - lz); the double is m * 2^e */
    int e = shift + 128 + pow10tab[i].b - lz;
    if (m == UINT64_C(1) << 53) {
        m >>= 1;
        e++;
    }
    int biased = e + 1075;
    if (biased < 1 || biased > 2046)
        return -1;
    uint64_t bits = ((uint64_t)neg << 63) | ((uint64_t)biased << 52) | (m & ((UINT64_C(1) << 52) - 1));
    memcpy(out, &bits, sizeof bits);
    return 0;
}

int jsonout_number(double v, char *out)
{
    int n = jsonout_number_fast(v, out);
    if (n < 0)
        n = noise_format_double(v, out, 32);
    return n < 0 ? 0 : n;
}

typedef struct {
    char *text;
    size_t len, cap;
} buf;

static int put(buf *b, const char *s, size_t n)
{
    if (n + 1 > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 256;
        while (n + 1 > cap - b->len) {
            if (cap > SIZE_MAX / 2)
                return -1;
            cap *= 2;
        }
        char *p = failalloc_realloc(b->text, cap);
        if (p == NULL)
            return -1;
        b->text = p;
        b->cap = cap;
    }
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = '\0';
    return 0;
}

static int put_string(buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (put(b, "\"", 1) != 0)
        return -1;
    size_t run = 0; /* bytes copied as they are, flushed before an escape */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[7];
        size_t esc_len = 0;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            esc_len = 2;
        } else if (c < 0x20 || c == 0x7f) {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            esc_len = 6;
        }
        if (esc_len == 0) {
            run++;
            continue;
        }
        if (put(b, s + i - run, run) != 0 || put(b, esc, esc_len) != 0)
            return -1;
        run = 0;
    }
    if (put(b, s + n - run, run) != 0)
        return -1;
    return put(b, "\"", 1);
}

static int put_value(buf *b, const json_t *v)
{
    char num[40];
    int n;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *key;
        json_t *member;
        int first = 1;
        if (put(b, "{", 1) != 0)
            return -1;
        json_object_foreach((json_t *)v, key, member) {
            if ((!first && put(b, ",", 1) != 0) || put_string(b, key, strlen(key)) != 0 ||
                put(b, ":", 1) != 0 || put_value(b, member) != 0)
                return -1;
            first = 0;
        }
        return put(b, "}", 1);
    }
    case JSON_ARRAY: {
        if (put(b, "[", 1) != 0)
            return -1;
        for (size_t i = 0; i < json_array_size(v); i++)
            if ((i > 0 && put(b, ",", 1) != 0) || put_value(b, json_array_get(v, i)) != 0)
                return -1;
        return put(b, "]", 1);
    }
    case JSON_STRING:
        return put_string(b, json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        n = snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return put(b, num, (size_t)n);
    case JSON_REAL:
        if (!isfinite(json_real_value(v)))
            return -1;
        n = jsonout_number(json_real_value(v), num);
        return n <= 0 ? -1 : put(b, num, (size_t)n);
    case JSON_TRUE:
        return put(b, "true", 4);
    case JSON_FALSE:
        return put(b, "false", 5);
    case JSON_NULL:
        return put(b, "null", 4);
    }
    return -1;
}

int jsonout_dump(const json_t *doc, char **out_text, size_t *out_len)
{
    buf b = {NULL, 0, 0};
    *out_text = NULL;
    if (put_value(&b, doc) != 0 || b.text == NULL) {
        free(b.text);
        return -1;
    }
    *out_text = b.text;
    *out_len = b.len;
    return 0;
}
