/* test_jsonout.c: the JSON printer: shortest round-trip reals, escapes,
 * structure, and allocation failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/failalloc.h"
#include "base/jsonout.h"
#include "noise.h"
#include "test.h"

static char *dump(json_t *doc)
{
    char *text = NULL;
    size_t len = 0;
    int rc = jsonout_dump(doc, &text, &len);
    json_decref(doc);
    CHECK(rc == 0);
    CHECK(text == NULL || strlen(text) == len);
    return text;
}

static void test_numbers_print_short(void)
{
    char *t = dump(json_pack("[f,f,f,f,f,f,I,I]", 0.1, 1.0, -2.25, 1e6, 1e-7, -0.0,
                             (json_int_t)-7, (json_int_t)4294967295LL));
    CHECKF(t && strcmp(t, "[0.1,1,-2.25,1e6,1e-7,-0,-7,4294967295]") == 0, "got %s", t ? t : "(null)");
    free(t);
}

/* The shortest form: no precision below the printed one round-trips, and
 * the printed text parses back to the same double. */
static void test_random_doubles_round_trip_shortest(void)
{
    uint64_t s = 0x9E3779B97F4A7C15u;
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double v;
        if (i % 3 == 0) {
            memcpy(&v, &s, sizeof v); /* any bit pattern */
            if (!isfinite(v))
                continue;
        } else {
            v = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* noise-like */
            if (i % 3 == 2)
                v = round(v * 1000.0) / 1000.0; /* short decimals */
        }
        char buf[40];
        int n = noise_format_double(v, buf, sizeof buf);
        if (n < 0 || strtod(buf, NULL) != v) {
            bad++;
            continue;
        }
        int shortest = 17;
        for (int p = 1; p <= 17; p++) {
            char tmp[40];
            snprintf(tmp, sizeof tmp, "%.*g", p, v);
            if (strtod(tmp, NULL) == v) {
                shortest = p;
                break;
            }
        }
        int digits = 0, seen = 0;
        for (const char *c = buf; *c && *c != 'e'; c++)
            if (*c >= '1' && *c <= '9')
                seen = 1, digits++;
            else if (*c == '0' && seen)
                digits++;
        /* trailing zeros of an integer part ("1000") are not precision */
        for (const char *c = buf + strcspn(buf, "e") - 1; c > buf && *c == '0' && !strchr(buf, '.'); c--)
            digits--;
        if (digits > shortest) {
            fprintf(stderr, "  %.17g printed as %s, %d digits round-trip\n", v, buf, shortest);
            bad++;
        }
    }
    CHECKF(bad == 0, "%d doubles printed wrong", bad);
}

/* jsonout_number against the daemon's printer of before (noise_format_double,
 * snprintf and strtod), string for string, over doubles of every kind; and
 * the fast arithmetic decides nearly all of them itself (else this test
 * would only compare the reference with itself). */
static uint64_t rng = 0x243F6A8885A308D3u;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

typedef struct {
    long tested, fast, bad;
} tally;

static void compare(double v, tally *t)
{
    if (!isfinite(v))
        return;
    char want[40], got[40], fast[40];
    int nw = noise_format_double(v, want, sizeof want);
    memset(got, 'x', sizeof got);
    int ng = jsonout_number(v, got);
    int nf = jsonout_number_fast(v, fast);
    t->tested++;
    t->fast += nf >= 0;
    int ok = nw == ng && strcmp(want, got) == 0 && (int)strlen(got) == ng &&
             (nf < 0 || (nf == nw && strcmp(fast, want) == 0)) && strtod(got, NULL) == v;
    if (!ok && t->bad++ < 10)
        fprintf(stderr, "  %a (%.17g): want %s, got %s, fast %s\n", v, v, want, got,
                nf < 0 ? "(none)" : fast);
}

static void check_tally(const char *what, tally t, double fast_share)
{
    CHECKF(t.bad == 0, "%s: %ld of %ld printed differently", what, t.bad, t.tested);
    CHECKF(t.fast >= fast_share * (double)t.tested, "%s: only %ld of %ld by the fast path", what,
           t.fast, t.tested);
}

static void test_number_text_same_as_before_random(void)
{
    tally bits = {0}, unit = {0}, floats = {0}, ints = {0}, decimals = {0}, subs = {0};
    for (long i = 0; i < 400000; i++) {
        uint64_t r = next();
        double v;
        memcpy(&v, &r, sizeof v); /* any bit pattern */
        compare(v, &bits);
        v = (double)(next() >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* noise values */
        compare(v, &unit);
        compare(v * 0.75, &unit); /* gradients */
        float f;
        uint32_t fb = (uint32_t)next();
        memcpy(&f, &fb, sizeof f);
        compare((double)f, &floats); /* floats cast: short exact expansions, ties */
        r = next();
        compare((double)(int64_t)(r >> (r & 63)), &ints); /* integers of every size */
        compare((double)(int64_t)(r >> 11) * ((r & 1) ? 1 : -1), &ints);
        r = next();
        compare(round((double)(r >> 11) / 9007199254740992.0 * 1e6) / 1e3, &decimals);
        compare((double)(r % 20001) / 100.0 - 100.0, &decimals);
        r = next() & UINT64_C(0x800fffffffffffff); /* subnormals */
        memcpy(&v, &r, sizeof v);
        compare(v, &subs);
    }
    check_tally("random bit patterns", bits, 0.99);
    check_tally("values in [-1, 1]", unit, 0.999);
    check_tally("floats", floats, 0.99);
    check_tally("integers", ints, 0.99);
    check_tally("short decimals", decimals, 0.999);
    check_tally("subnormals", subs, 0.99);
}

static void test_number_text_same_as_before_edges(void)
{
    tally t = {0};
    for (int k = -330; k <= 310; k++) {
        char s[16];
        snprintf(s, sizeof s, "1e%d", k);
        double p = strtod(s, NULL);
        /* powers of ten, their neighbours, and a few multiples */
        for (int j = -2; j <= 2; j++) {
            double v = p;
            for (int a = 0; a < (j < 0 ? -j : j); a++)
                v = nextafter(v, j < 0 ? 0.0 : INFINITY);
            compare(v, &t);
            compare(-v, &t);
            compare(v * 3, &t);
            compare(v * 0.5, &t);
        }
    }
    for (int k = -1074; k <= 1023; k++) { /* powers of two and neighbours */
        double v = ldexp(1.0, k);
        compare(v, &t);
        compare(nextafter(v, 0.0), &t);
        compare(nextafter(v, INFINITY), &t);
        compare(v * 3, &t);
    }
    const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 180, 12000, 1e6,
                            1e-7, 123456789012345680.0, 9007199254740992.0, 9007199254740993.0,
                            1e15 + 0.5, 1e16, 1e17, 1e21, 1e22, 1e23, 5e-324, 1e-323,
                            2.2250738585072009e-308, 2.2250738585072014e-308, 1.7976931348623157e308,
                            4.9406564584124654e-324, 0.30000000000000004, 99999999999999999.0,
                            9.9999999999999995e-1, 9.999999999999999e22, 5.9604644775390625e-08,
                            56460374335683856.0, 1000000000000000.5, 0.000123, 1e-5, 1e-4,
                            123456.789, 1e100, 1.5e300, 2.5, 3.5, 1e-300};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
        compare(edges[i], &t);
        compare(-edges[i], &t);
    }
    for (int i = -100000; i <= 100000; i++) /* every small integer and its halves */
        compare(i / 2.0, &t);
    check_tally("edge cases", t, 0.99);
}

static void test_strings_escaped_and_structure_kept(void)
{
    json_t *doc = json_pack("{s:s,s:[i,{s:b,s:n}],s:s#}", "msg", "say \"hi\"\\\n\t\x01", "list", 1,
                            "ok", 1, "none", "z", "a\0b", (size_t)3);
    char *t = dump(doc);
    const char *want = "{\"msg\":\"say \\\"hi\\\"\\\\\\u000a\\u0009\\u0001\",\"list\":[1,{\"ok\":true,"
                       "\"none\":null}],\"z\":\"a\\u0000b\"}";
    CHECKF(t && strcmp(t, want) == 0, "got %s", t ? t : "(null)");
    /* and jansson reads back what was meant */
    json_error_t e;
    json_t *back = t ? json_loads(t, JSON_ALLOW_NUL, &e) : NULL;
    CHECK(back != NULL);
    if (back) {
        CHECK(strcmp(json_string_value(json_object_get(back, "msg")), "say \"hi\"\\\n\t\x01") == 0);
        CHECK(json_string_length(json_object_get(back, "z")) == 3);
        json_decref(back);
    }
    free(t);
}

static void test_allocation_failure_leaves_nothing(void)
{
    json_t *doc = json_pack("{s:[f,f,f],s:s}", "v", 0.25, 0.5, 0.75, "k", "x");
    for (long nth = 1; nth <= 3; nth++) {
        failalloc_arm(nth);
        char *text = (char *)"untouched";
        size_t len;
        int rc = jsonout_dump(doc, &text, &len);
        int fired = failalloc_fired();
        failalloc_arm(0);
        if (fired) {
            CHECKF(rc == -1 && text == NULL, "nth %ld: rc %d", nth, rc);
        } else {
            CHECK(rc == 0);
            free(text);
            break;
        }
    }
    json_decref(doc);
}

int main(void)
{
    RUN(test_numbers_print_short);
    RUN(test_random_doubles_round_trip_shortest);
    RUN(test_number_text_same_as_before_random);
    RUN(test_number_text_same_as_before_edges);
    RUN(test_strings_escaped_and_structure_kept);
    RUN(test_allocation_failure_leaves_nothing);
    return t_done();
}
