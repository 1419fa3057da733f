/* ramp.c: colour ramps by URL (ramp.h). */
#include "tiles/ramp.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    int n;
    render_stop stops[8];
} named_ramp;

/* The named ramps, in field values -1..1. */
static const named_ramp named[] = {
    {"heat", 5, {{-1.0, {0, 0, 0}}, {-0.4, {122, 4, 3}}, {0.1, {226, 74, 22}}, {0.6, {246, 196, 60}},
                 {1.0, {255, 255, 224}}}},
    {"ice", 3, {{-1.0, {8, 48, 107}}, {0.0, {107, 174, 214}}, {1.0, {247, 251, 255}}}},
    {"diverging", 3, {{-1.0, {59, 76, 192}}, {0.0, {242, 242, 242}}, {1.0, {180, 4, 38}}}},
    {"bands", 8, {{-1.0, {31, 58, 147}}, {-0.5, {31, 58, 147}}, {-0.5, {79, 134, 198}},
                  {0.0, {79, 134, 198}}, {0.0, {140, 192, 132}}, {0.5, {140, 192, 132}},
                  {0.5, {232, 216, 160}}, {1.0, {232, 216, 160}}}},
};
#define N_NAMED (sizeof named / sizeof named[0])

static const char *const names[] = {"heat", "ice", "diverging", "bands", NULL};

const char *const *ramp_names(void)
{
    return names;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A colour: "#rrggbb", "rrggbb" or [r, g, b]. */
static int parse_colour(const json_t *c, unsigned char rgb[3])
{
    if (json_is_string(c)) {
        const char *s = json_string_value(c);
        if (s[0] == '#')
            s++;
        if (strlen(s) != 6)
            return -1;
        for (int k = 0; k < 3; k++) {
            int hi = hexval(s[2 * k]), lo = hexval(s[2 * k + 1]);
            if (hi < 0 || lo < 0)
                return -1;
            rgb[k] = (unsigned char)(hi * 16 + lo);
        }
        return 0;
    }
    if (json_is_array(c) && json_array_size(c) == 3) {
        for (size_t k = 0; k < 3; k++) {
            const json_t *v = json_array_get(c, k);
            if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 255)
                return -1;
            rgb[k] = (unsigned char)json_integer_value(v);
        }
        return 0;
    }
    return -1;
}

int ramp_parse(const char *text, render_ramp *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    if (!text || !*text) {
        snprintf(err, err_size, "ramp is empty: give a name (heat, ice, diverging, bands) or a JSON list of stops [[value, colour], ...]");
        return -1;
    }
    if (text[0] != '[') {
        for (size_t k = 0; k < N_NAMED; k++)
            if (strcmp(text, named[k].name) == 0) {
                out->n = named[k].n;
                memcpy(out->stops, named[k].stops, sizeof named[k].stops);
                return 0;
            }
        snprintf(err, err_size, "ramp '%.40s' is not a named ramp (heat, ice, diverging, bands) nor a JSON list of stops [[value, colour], ...]", text);
        return -1;
    }
    json_error_t jerr;
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!doc) {
        if (strstr(jerr.text, "overflow"))
            snprintf(err, err_size, "ramp: a stop's value is not a finite number (column %d)", jerr.column);
        else
            snprintf(err, err_size, "ramp is not valid JSON: %s (column %d)", jerr.text, jerr.column);
        return -1;
    }
    int rc = -1;
    size_t n = json_is_array(doc) ? json_array_size(doc) : 0;
    if (!json_is_array(doc)) {
        snprintf(err, err_size, "ramp must be a JSON list of stops [[value, colour], ...]");
        goto done;
    }
    if (n < 2) {
        snprintf(err, err_size, "ramp has %zu stop%s: it needs at least 2", n, n == 1 ? "" : "s");
        goto done;
    }
    if (n > RENDER_RAMP_MAX_STOPS) {
        snprintf(err, err_size, "ramp has too many stops: %zu, at most %d", n, RENDER_RAMP_MAX_STOPS);
        goto done;
    }
    for (size_t k = 0; k < n; k++) {
        const json_t *s = json_array_get(doc, k);
        if (!json_is_array(s) || json_array_size(s) != 2) {
            snprintf(err, err_size, "ramp stop %zu must be [value, colour]", k + 1);
            goto done;
        }
        const json_t *v = json_array_get(s, 0);
        if (!json_is_number(v)) {
            snprintf(err, err_size, "ramp stop %zu: the value must be a finite number in [-1, 1]", k + 1);
            goto done;
        }
        double at = json_number_value(v);
        if (!isfinite(at)) {
            snprintf(err, err_size, "ramp stop %zu: the value is not a finite number", k + 1);
            goto done;
        }
        if (at < -1.0 || at > 1.0) {
            snprintf(err, err_size, "ramp stop %zu: the value %g is outside [-1, 1]", k + 1, at);
            goto done;
        }
        if (k > 0 && at < out->stops[k - 1].at) {
            snprintf(err, err_size, "ramp stops are not sorted: stop %zu at %g comes after stop %zu at %g", k + 1,
                     at, k, out->stops[k - 1].at);
            goto done;
        }
        if (parse_colour(json_array_get(s, 1), out->stops[k].rgb) != 0) {
            snprintf(err, err_size, "ramp stop %zu: the colour must be \"#rrggbb\", \"rrggbb\" or [r, g, b] with 0..255", k + 1);
            goto done;
        }
        out->stops[k].at = at;
    }
    out->n = (int)n;
    rc = 0;
done:
    if (rc != 0)
        memset(out, 0, sizeof *out);
    json_decref(doc);
    return rc;
}

/* The shortest %g form that reads back as v. */
static void shortest(double v, char *buf, size_t size)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* Same stops (field by field: a struct's padding is not its value). */
static int same_stops(const render_stop *a, const render_stop *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k].at != b[k].at || memcmp(a[k].rgb, b[k].rgb, 3) != 0)
            return 0;
    return 1;
}

int ramp_canonical(const render_ramp *r, char *buf, size_t size)
{
    for (size_t k = 0; k < N_NAMED; k++)
        if (r->n == named[k].n && same_stops(r->stops, named[k].stops, r->n)) {
            int len = snprintf(buf, size, "%s", named[k].name);
            return len < 0 || (size_t)len >= size ? -1 : len;
        }
    size_t pos = 0;
    for (int k = 0; k < r->n; k++) {
        char num[32];
        shortest(r->stops[k].at == 0.0 ? 0.0 : r->stops[k].at, num, sizeof num);
        const unsigned char *c = r->stops[k].rgb;
        int len = snprintf(buf + pos, size - pos, "%s[%s,\"%02x%02x%02x\"]%s", k == 0 ? "[" : ",", num, c[0], c[1],
                           c[2], k == r->n - 1 ? "]" : "");
        if (len < 0 || (size_t)len >= size - pos)
            return -1;
        pos += (size_t)len;
    }
    return (int)pos;
}
