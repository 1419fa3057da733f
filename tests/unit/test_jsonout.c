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
    RUN(test_strings_escaped_and_structure_kept);
    RUN(test_allocation_failure_leaves_nothing);
    return t_done();
}
