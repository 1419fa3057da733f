/* query.c: query-string parameters -> field spec, render options, point. */
#include "query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "route.h"

/* Echoes a client value into a message: printable, at most 40 bytes. */
static const char *shown(const char *v, char *buf, size_t buf_size)
{
    size_t n = 0, i = 0;
    for (; v[i] != '\0' && n + 4 < buf_size && i < 40; i++)
        buf[n++] = (v[i] >= 0x20 && v[i] < 0x7f) ? v[i] : '?';
    if (v[i] != '\0') {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

int query_args_add(query_args *a, const char *key, size_t key_size, const char *value,
                   size_t value_size)
{
    char b[64];
    if (a->error)
        return -1;
    if (a->n == LIMIT_QUERY_PARAMS) {
        snprintf(a->msg, sizeof a->msg, "too many query parameters (at most %d)",
                 LIMIT_QUERY_PARAMS);
        a->error = 1;
        return -1;
    }
    if (key == NULL || key_size == 0) {
        snprintf(a->msg, sizeof a->msg, "query parameter with an empty name");
        a->error = 1;
        return -1;
    }
    if (strlen(key) != key_size) {
        snprintf(a->msg, sizeof a->msg, "query parameter name contains a NUL byte");
        a->error = 1;
        return -1;
    }
    if (value == NULL) {
        snprintf(a->msg, sizeof a->msg, "query parameter '%s' has no value (use %s=...)",
                 shown(key, b, sizeof b), shown(key, b, sizeof b));
        a->error = 1;
        return -1;
    }
    if (strlen(value) != value_size) {
        snprintf(a->msg, sizeof a->msg, "query parameter '%s' contains a NUL byte",
                 shown(key, b, sizeof b));
        a->error = 1;
        return -1;
    }
    a->names[a->n] = key;
    a->values[a->n] = value;
    a->n++;
    return 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t query_unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r != '\0';) {
        int hi, lo;
        if (r[0] == '%' && (hi = hexval(r[1])) >= 0 && (lo = hexval(r[2])) >= 0) {
            *w++ = (char)(hi * 16 + lo);
            r += 3;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}

static void plus_to_space(char *s)
{
    for (; *s != '\0'; s++)
        if (*s == '+')
            *s = ' ';
}

int query_split(char *q, query_args *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    for (char *piece = q; piece != NULL && *piece != '\0';) {
        char *amp = strchr(piece, '&');
        if (amp != NULL)
            *amp = '\0';
        char *eq = strchr(piece, '=');
        if (eq != NULL)
            *eq = '\0';
        plus_to_space(piece);
        size_t klen = query_unescape(piece);
        size_t vlen = 0;
        char *value = NULL;
        if (eq != NULL) {
            value = eq + 1;
            plus_to_space(value);
            vlen = query_unescape(value);
        }
        if (query_args_add(out, piece, klen, value, vlen) != 0) {
            snprintf(err, err_size, "%s", out->msg);
            return ERR_BAD_REQUEST;
        }
        piece = amp != NULL ? amp + 1 : NULL;
    }
    return 0;
}

int query_parse_number(const char *s, double *out)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    int digits = 0;
    while (*p >= '0' && *p <= '9') { p++; digits++; }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') { p++; digits++; }
    }
    if (digits == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return -1;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p != '\0')
        return -1;
    char *end;
    double v = strtod(s, &end);
    if (*end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_flag(const char *name, const char *v, int *out, char *err, size_t err_size)
{
    char b[64];
    if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0) {
        *out = 0;
        return 0;
    }
    if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0) {
        *out = 1;
        return 0;
    }
    snprintf(err, err_size, "%s must be 0 or 1, got '%s'", name, shown(v, b, sizeof b));
    return ERR_BAD_REQUEST;
}

static int is_field_param(const char *name)
{
    size_t n;
    const noise_param *p = noise_params(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(p[i].name, name) == 0)
            return 1;
    return 0;
}

/* The parameters besides the field's, by the flag that admits them. */
enum { P_PALETTE, P_SHADE, P_ZERO, P_X, P_Y, P_STEP, P_WIDTH, P_HEIGHT, P_BINS, P_COUNT };
static const struct {
    const char *name;
    int flags; /* any of these admits it */
} extra_params[P_COUNT] = {
    [P_PALETTE] = {"palette", QUERY_RENDER}, [P_SHADE] = {"shade", QUERY_RENDER},
    [P_ZERO] = {"zero", QUERY_RENDER},       [P_X] = {"x", QUERY_POINT | QUERY_WINDOW},
    [P_Y] = {"y", QUERY_POINT | QUERY_WINDOW}, [P_STEP] = {"step", QUERY_WINDOW},
    [P_WIDTH] = {"width", QUERY_WINDOW},     [P_HEIGHT] = {"height", QUERY_WINDOW},
    [P_BINS] = {"bins", QUERY_BINS},
};

static int extra_param(const char *name, int flags)
{
    for (int k = 0; k < P_COUNT; k++)
        if ((extra_params[k].flags & flags) && strcmp(extra_params[k].name, name) == 0)
            return k;
    return -1;
}

static int parse_int_param(const char *name, const char *v, int64_t min, int64_t max, int *out,
                           char *err, size_t err_size)
{
    char b[64];
    int64_t n;
    if (route_parse_int(v, strlen(v), min, max, &n) != 0) {
        snprintf(err, err_size, "%s must be an integer in %lld..%lld, got '%s'", name, (long long)min,
                 (long long)max, shown(v, b, sizeof b));
        return ERR_BAD_REQUEST;
    }
    *out = (int)n;
    return 0;
}

int query_parse(const query_args *args, noise_kind kind, uint32_t seed, int flags,
                query_result *out, char *err, size_t err_size)
{
    const char *names[LIMIT_QUERY_PARAMS];
    const char *values[LIMIT_QUERY_PARAMS];
    size_t n_field = 0;
    int seen[P_COUNT] = {0};
    char b[64];

    memset(out, 0, sizeof *out);
    out->render.palette = RENDER_GRAY;
    out->bins = QUERY_BINS_DEFAULT;
    for (size_t i = 0; i < args->n; i++) {
        const char *name = args->names[i];
        const char *v = args->values[i];
        int k = extra_param(name, flags);
        if (k < 0) {
            if (!is_field_param(name)) {
                char takes[96] = "";
                for (int e = 0; e < P_COUNT; e++)
                    if (extra_params[e].flags & flags) {
                        size_t l = strlen(takes);
                        snprintf(takes + l, sizeof takes - l, ", %s", extra_params[e].name);
                    }
                snprintf(err, err_size,
                         "unknown parameter '%s' (this endpoint takes: frequency, octaves, "
                         "lacunarity, gain, fractal, warp, t, lattice%s)",
                         shown(name, b, sizeof b), takes);
                return ERR_BAD_REQUEST;
            }
            names[n_field] = name;
            values[n_field] = v;
            n_field++;
            continue;
        }
        if (seen[k]) {
            snprintf(err, err_size, "parameter '%s' given twice", name);
            return ERR_BAD_REQUEST;
        }
        seen[k] = 1;
        int rc = 0;
        switch (k) {
        case P_PALETTE:
            if (render_palette_from_name(v, &out->render.palette) != 0) {
                const char *const *pn = render_palette_names();
                char list[128] = "";
                for (size_t e = 0; pn[e] != NULL; e++) {
                    size_t l = strlen(list);
                    snprintf(list + l, sizeof list - l, "%s%s", e ? ", " : "", pn[e]);
                }
                snprintf(err, err_size, "palette must be one of %s, got '%s'", list,
                         shown(v, b, sizeof b));
                return ERR_BAD_REQUEST;
            }
            break;
        case P_SHADE: rc = parse_flag("shade", v, &out->render.shade, err, err_size); break;
        case P_ZERO: rc = parse_flag("zero", v, &out->render.zero, err, err_size); break;
        case P_X:
        case P_Y: {
            double *dst = (flags & QUERY_WINDOW) ? (k == P_X ? &out->window.x : &out->window.y)
                                                 : (k == P_X ? &out->x : &out->y);
            if (query_parse_number(v, dst) != 0) {
                snprintf(err, err_size, "%s must be a finite decimal number, got '%s'", name,
                         shown(v, b, sizeof b));
                return ERR_BAD_REQUEST;
            }
            break;
        }
        case P_STEP:
            if (query_parse_number(v, &out->window.step) != 0 || !(out->window.step > 0) ||
                out->window.step > QUERY_WINDOW_MAX_STEP) {
                snprintf(err, err_size, "step must be a number in (0, 1e6], got '%s'",
                         shown(v, b, sizeof b));
                return ERR_BAD_REQUEST;
            }
            break;
        case P_WIDTH:
        case P_HEIGHT:
            rc = parse_int_param(name, v, 1, QUERY_WINDOW_MAX_SIDE,
                                 k == P_WIDTH ? &out->window.width : &out->window.height, err, err_size);
            break;
        case P_BINS: rc = parse_int_param("bins", v, 1, QUERY_BINS_MAX, &out->bins, err, err_size); break;
        }
        if (rc != 0)
            return rc;
    }
    if ((flags & (QUERY_POINT | QUERY_WINDOW)) && !(seen[P_X] && seen[P_Y])) {
        snprintf(err, err_size, "missing parameter '%s' (a finite decimal number)",
                 seen[P_X] ? "y" : "x");
        return ERR_BAD_REQUEST;
    }
    if (flags & QUERY_WINDOW) {
        static const int need[] = {P_STEP, P_WIDTH, P_HEIGHT};
        static const char *const what[] = {"a number in (0, 1e6]", "an integer in 1..8193",
                                           "an integer in 1..8193"};
        for (int e = 0; e < 3; e++)
            if (!seen[need[e]]) {
                snprintf(err, err_size, "missing parameter '%s' (%s)", extra_params[need[e]].name, what[e]);
                return ERR_BAD_REQUEST;
            }
        long long samples = (long long)out->window.width * out->window.height;
        if (samples > QUERY_WINDOW_MAX_SAMPLES) {
            snprintf(err, err_size,
                     "width x height is %d x %d = %lld samples, at most %lld (4097 x 4097) per request",
                     out->window.width, out->window.height, samples, QUERY_WINDOW_MAX_SAMPLES);
            return ERR_TOO_LARGE;
        }
    }
    int rc = noise_spec_parse(&out->spec, kind, seed, n_field, names, values, err, err_size);
    if (rc != 0) {
        if (err_size > 0 && err[0] == '\0')
            snprintf(err, err_size, "%s", noise_strerror(rc));
        return ERR_BAD_REQUEST;
    }
    return 0;
}

int query_render_canonical(const render_opts *opts, char *buf, size_t buf_size)
{
    const char *const *names = render_palette_names();
    int n = snprintf(buf, buf_size, "palette=%s&shade=%d&zero=%d", names[opts->palette],
                     opts->shade ? 1 : 0, opts->zero ? 1 : 0);
    return (n < 0 || (size_t)n >= buf_size) ? -1 : n;
}
