/* query.c: query-string parameters -> field spec, render options, point. */
#include "service/query.h"

#include "tiles/ramp.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

const char *query_shown(const char *v, size_t max, char *buf, size_t buf_size)
{
    size_t n = 0, i = 0;
    for (; v[i] != '\0' && n + 4 < buf_size && i < max; i++)
        buf[n++] = (v[i] >= 0x20 && v[i] < 0x7f) ? v[i] : '?';
    if (v[i] != '\0') {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

static const char *shown(const char *v, char *buf, size_t buf_size)
{
    return query_shown(v, 40, buf, buf_size);
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

/* Parses the value v of one of the daemon's own rows into *out (an enum:
 * the choice's index). Returns 0, or ERR_BAD_REQUEST with a message naming
 * the parameter, its range (params_range_text) and what was sent. */
static int parse_own(const param_row *r, const char *v, double *out, char *err, size_t err_size)
{
    char b[64], range[160];
    const noise_param *p = &r->p;
    if (r->flag) {
        /* One rule for switches, as documented: exactly 0 or 1. */
        if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
            *out = v[0] - '0';
            return 0;
        }
    } else if (p->type == NOISE_PARAM_ENUM) {
        for (size_t i = 0; p->choices != NULL && p->choices[i] != NULL; i++)
            if (strcmp(v, p->choices[i]) == 0) {
                *out = (double)i;
                return 0;
            }
    } else {
        double x;
        if (query_parse_number(v, &x) == 0 &&
            (p->type != NOISE_PARAM_INTEGER || x == floor(x)) &&
            (p->min_exclusive ? x > p->min : x >= p->min) &&
            (p->max_exclusive ? x < p->max : x <= p->max)) {
            *out = x;
            return 0;
        }
    }
    params_range_text(r, range, sizeof range);
    const char *what = r->flag || p->type == NOISE_PARAM_ENUM ? ""
                       : p->type == NOISE_PARAM_INTEGER       ? "an integer in "
                                                              : "a number in ";
    if (strncmp(range, "any", 3) == 0) {
        what = "";
        snprintf(range, sizeof range, "a finite decimal number");
    }
    snprintf(err, err_size, "%s must be %s%s, got '%s'", p->name, what, range,
             shown(v, b, sizeof b));
    return ERR_BAD_REQUEST;
}

/* query_parse's calls (query_parse_calls): relaxed, a count and nothing
 * it orders. */
static atomic_ulong parse_calls;

unsigned long query_parse_calls(void)
{
    return atomic_load_explicit(&parse_calls, memory_order_relaxed);
}

int query_parse(const query_args *args, noise_kind kind, uint32_t seed, int flags,
                query_result *out, char *err, size_t err_size)
{
    atomic_fetch_add_explicit(&parse_calls, 1, memory_order_relaxed);
    const char *names[LIMIT_QUERY_PARAMS];
    const char *values[LIMIT_QUERY_PARAMS];
    size_t n_field = 0;
    unsigned int routes = PARAMS_FIELD | (unsigned int)flags;
    char b[64];

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < args->n; i++) {
        const char *name = args->names[i];
        const char *v = args->values[i];
        param_row r;
        if (params_find(name, routes, &r) != 0) {
            char takes[256];
            params_names(routes, kind, takes, sizeof takes);
            snprintf(err, err_size, "unknown parameter '%s' (this endpoint takes: %s)",
                     shown(name, b, sizeof b), takes);
            return ERR_BAD_REQUEST;
        }
        if (r.id < 0) { /* a field parameter: the noise core checks it */
            names[n_field] = name;
            values[n_field] = v;
            n_field++;
            continue;
        }
        if (out->given[r.id]) {
            snprintf(err, err_size, "parameter '%s' given twice", r.p.name);
            return ERR_BAD_REQUEST;
        }
        if (r.id == PARAM_RAMP) {
            /* a name or a JSON list of stops, into the render options */
            if (ramp_parse(v, &out->render.ramp, err, err_size) != 0)
                return ERR_BAD_REQUEST;
            out->given[r.id] = 1;
            continue;
        }
        int rc = parse_own(&r, v, &out->value[r.id], err, err_size);
        double side;
        if (rc != 0 && (r.id == PARAM_WIDTH || r.id == PARAM_HEIGHT) &&
            query_parse_number(v, &side) == 0 && side == floor(side) && side > r.p.max) {
            /* a window too large is a 413, like a batch of too many points */
            snprintf(err + strlen(err), err_size - strlen(err),
                     " (ask for a larger window in several requests)");
            return ERR_TOO_LARGE;
        }
        if (rc != 0)
            return rc;
        out->given[r.id] = 1;
    }
    /* Required rows, then defaults. */
    for (int id = 0; id < PARAM_COUNT; id++) {
        param_row r = params_row(params_count() - PARAM_COUNT + (size_t)id);
        if (!(r.routes & routes) || out->given[id])
            continue;
        if (r.required) {
            char range[160];
            params_range_text(&r, range, sizeof range);
            int any = strcmp(range, "any finite number") == 0;
            snprintf(err, err_size, "missing parameter '%s' (%s%s)", r.p.name,
                     any ? "a finite decimal number" : r.p.type == NOISE_PARAM_NUMBER ? "a number in " : "",
                     any ? "" : range);
            return ERR_BAD_REQUEST;
        }
        out->value[id] = r.p.default_number;
        if (r.p.type == NOISE_PARAM_ENUM)
            for (size_t k = 0; r.p.choices != NULL && r.p.choices[k] != NULL; k++)
                if (r.p.default_choice != NULL && strcmp(r.p.choices[k], r.p.default_choice) == 0)
                    out->value[id] = (double)k;
    }
    if (out->given[PARAM_RAMP] && out->given[PARAM_PALETTE]) {
        snprintf(err, err_size, "give palette or ramp, not both (a ramp replaces the palette)");
        return ERR_BAD_REQUEST;
    }
    out->render.palette = (render_palette)(int)out->value[PARAM_PALETTE];
    out->render.shade = out->value[PARAM_SHADE] != 0;
    out->render.zero = out->value[PARAM_ZERO] != 0;
    out->x = out->value[PARAM_X];
    out->y = out->value[PARAM_Y];
    out->window.x = out->value[PARAM_X];
    out->window.y = out->value[PARAM_Y];
    out->window.step = out->value[PARAM_STEP];
    out->window.width = (int)out->value[PARAM_WIDTH];
    out->window.height = (int)out->value[PARAM_HEIGHT];
    out->bins = (int)out->value[PARAM_BINS];
    if (flags & QUERY_WINDOW) {
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
    int n;
    if (opts->ramp.n > 0) {
        /* the ramp's canonical text, percent-encoded where a URL needs it
         * (this text is also a TileJSON template's query) */
        char ramp[RAMP_CANONICAL_MAX], enc[3 * RAMP_CANONICAL_MAX];
        if (ramp_canonical(&opts->ramp, ramp, sizeof ramp) < 0)
            return -1;
        size_t o = 0;
        for (const char *c = ramp; *c != '\0'; c++) {
            if (strchr("[]\",#", *c) != NULL)
                o += (size_t)snprintf(enc + o, sizeof enc - o, "%%%02X", (unsigned char)*c);
            else
                enc[o++] = *c;
        }
        enc[o] = '\0';
        n = snprintf(buf, buf_size, "ramp=%s&shade=%d&zero=%d", enc, opts->shade ? 1 : 0,
                     opts->zero ? 1 : 0);
    } else {
        n = snprintf(buf, buf_size, "palette=%s&shade=%d&zero=%d", names[opts->palette],
                     opts->shade ? 1 : 0, opts->zero ? 1 : 0);
    }
    return (n < 0 || (size_t)n >= buf_size) ? -1 : n;
}
