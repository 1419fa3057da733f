/* query.c: query-string parameters -> field spec, render options, point. */
#include "query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"

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

int query_parse(const query_args *args, noise_kind kind, uint32_t seed, int flags,
                query_result *out, char *err, size_t err_size)
{
    const char *names[LIMIT_QUERY_PARAMS];
    const char *values[LIMIT_QUERY_PARAMS];
    size_t n_field = 0;
    int seen_palette = 0, seen_shade = 0, seen_zero = 0, seen_x = 0, seen_y = 0;
    char b[64];

    memset(out, 0, sizeof *out);
    out->render.palette = RENDER_GRAY;
    for (size_t i = 0; i < args->n; i++) {
        const char *name = args->names[i];
        const char *v = args->values[i];
        int *seen = NULL;
        if (flags & QUERY_RENDER) {
            if (strcmp(name, "palette") == 0) seen = &seen_palette;
            else if (strcmp(name, "shade") == 0) seen = &seen_shade;
            else if (strcmp(name, "zero") == 0) seen = &seen_zero;
        }
        if (flags & QUERY_POINT) {
            if (strcmp(name, "x") == 0) seen = &seen_x;
            else if (strcmp(name, "y") == 0) seen = &seen_y;
        }
        if (seen == NULL) {
            if (!is_field_param(name)) {
                const char *takes = (flags & QUERY_RENDER) ? ", palette, shade, zero"
                                    : (flags & QUERY_POINT) ? ", x, y" : "";
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
        if (*seen) {
            snprintf(err, err_size, "parameter '%s' given twice", name);
            return ERR_BAD_REQUEST;
        }
        *seen = 1;
        int rc = 0;
        if (seen == &seen_palette) {
            if (render_palette_from_name(v, &out->render.palette) != 0) {
                const char *const *pn = render_palette_names();
                char list[128] = "";
                for (size_t k = 0; pn[k] != NULL; k++) {
                    size_t l = strlen(list);
                    snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "", pn[k]);
                }
                snprintf(err, err_size, "palette must be one of %s, got '%s'", list,
                         shown(v, b, sizeof b));
                return ERR_BAD_REQUEST;
            }
        } else if (seen == &seen_shade) {
            rc = parse_flag("shade", v, &out->render.shade, err, err_size);
        } else if (seen == &seen_zero) {
            rc = parse_flag("zero", v, &out->render.zero, err, err_size);
        } else {
            double *dst = seen == &seen_x ? &out->x : &out->y;
            if (query_parse_number(v, dst) != 0) {
                snprintf(err, err_size, "%s must be a finite decimal number, got '%s'",
                         seen == &seen_x ? "x" : "y", shown(v, b, sizeof b));
                return ERR_BAD_REQUEST;
            }
        }
        if (rc != 0)
            return rc;
    }
    if ((flags & QUERY_POINT) && !(seen_x && seen_y)) {
        snprintf(err, err_size, "missing parameter '%s' (a finite decimal number)",
                 seen_x ? "y" : "x");
        return ERR_BAD_REQUEST;
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
