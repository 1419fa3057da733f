/* noise_spec.c: field parameters: the metadata table, the validating
 * parser, the canonical text and shortest round-trip number formatting.
 */
#include "noise.h"
#include "noise_field.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const kind_names[NOISE_KIND_COUNT] = { "value", "perlin", "simplex", "improved", "cellular",
                                                          "classic" };
static const char *const fractal_names[] = { "fbm", "turbulence", "ridged", NULL };
static const char *const lattice_names[] = { "square", "triangle", NULL };
static const char *const distance_names[] = { "euclidean", "manhattan", "chebyshev", NULL };
static const char *const return_names[] = { "f1", "f2", "f2-f1", "cell", NULL };
static const char *const fade_names[] = { "linear", "cubic", "quintic", NULL };
static const char *const gradients_names[] = { "table", "angle", NULL };
static const char *const falloff_names[] = { "classic", "quartic", NULL };

/* The kinds that have a third coordinate: all but classic (the article's
 * function is 2D). */
#define KINDS_3D                                                                                  \
    (NOISE_KIND_BIT(NOISE_VALUE) | NOISE_KIND_BIT(NOISE_PERLIN) | NOISE_KIND_BIT(NOISE_SIMPLEX) | \
     NOISE_KIND_BIT(NOISE_IMPROVED) | NOISE_KIND_BIT(NOISE_CELLULAR))

enum {
    P_FREQUENCY,
    P_OCTAVES,
    P_LACUNARITY,
    P_GAIN,
    P_FRACTAL,
    P_WARP,
    P_LATTICE,
    P_DISTANCE,
    P_RETURN,
    P_JITTER,
    P_PERIOD,
    P_FADE,
    P_GRADIENTS,
    P_FALLOFF,
    P_T,
    P_COUNT
};

static const noise_param params[P_COUNT] = {
    [P_FREQUENCY] = { "frequency", NOISE_PARAM_NUMBER, "plane coordinates are multiplied by it before sampling",
                      0, 1e6, 1, 0, 0, 1, NULL, NULL, 0 },
    [P_OCTAVES] = { "octaves", NOISE_PARAM_INTEGER, "number of octaves", 1, 16, 0, 0, 0, 1, NULL, NULL, 0 },
    [P_LACUNARITY] = { "lacunarity", NOISE_PARAM_NUMBER, "frequency ratio between octaves", 1, 16, 0, 0, 0, 2,
                       NULL, NULL, 0 },
    [P_GAIN] = { "gain", NOISE_PARAM_NUMBER, "amplitude ratio between octaves", 0, 1, 1, 0, 0, 0.5, NULL, NULL, 0 },
    [P_FRACTAL] = { "fractal", NOISE_PARAM_ENUM, "how octaves combine", 0, 0, 0, 0, 0, 0, fractal_names, "fbm", 0 },
    [P_WARP] = { "warp", NOISE_PARAM_NUMBER, "domain-warp displacement, plane units", 0, 1e6, 0, 0, 0, 0, NULL,
                 NULL, 0 },
    [P_LATTICE] = { "lattice", NOISE_PARAM_ENUM, "lattice of value and perlin noise", 0, 0, 0, 0, 0, 0,
                    lattice_names, "square", NOISE_KIND_BIT(NOISE_VALUE) | NOISE_KIND_BIT(NOISE_PERLIN) },
    [P_DISTANCE] = { "distance", NOISE_PARAM_ENUM, "how cellular noise measures the distance to a feature point",
                     0, 0, 0, 0, 0, 0, distance_names, "euclidean", NOISE_KIND_BIT(NOISE_CELLULAR) },
    [P_RETURN] = { "return", NOISE_PARAM_ENUM,
                   "what cellular noise returns: the nearest (f1) or second-nearest (f2) feature point's distance, "
                   "their difference (f2-f1), or the nearest point's cell value (cell)",
                   0, 0, 0, 0, 0, 0, return_names, "f1", NOISE_KIND_BIT(NOISE_CELLULAR) },
    [P_JITTER] = { "jitter", NOISE_PARAM_NUMBER,
                   "how far cellular feature points stray from their cell's centre: 0 a square grid, 1 anywhere in the cell",
                   0, 1, 0, 0, 0, 1, NULL, NULL, NOISE_KIND_BIT(NOISE_CELLULAR) },
    [P_PERIOD] = { "period", NOISE_PARAM_NUMBER,
                   "present: the field repeats with this period (plane units) in x and y, for seamless textures",
                   0, 1e9, 1, 0, 1, 0, NULL, NULL,
                   NOISE_KIND_BIT(NOISE_VALUE) | NOISE_KIND_BIT(NOISE_PERLIN) | NOISE_KIND_BIT(NOISE_IMPROVED) |
                       NOISE_KIND_BIT(NOISE_CELLULAR) | NOISE_KIND_BIT(NOISE_CLASSIC) },
    [P_FADE] = { "fade", NOISE_PARAM_ENUM,
                 "interpolation of classic: linear as the article's code, cubic or quintic as its comments", 0, 0, 0,
                 0, 0, 0, fade_names, "linear", NOISE_KIND_BIT(NOISE_CLASSIC) },
    [P_GRADIENTS] = { "gradients", NOISE_PARAM_ENUM,
                      "gradients of perlin and simplex: their tables, or angle: unit vectors at a hashed angle (the "
                      "GLSL article's, 2D)",
                      0, 0, 0, 0, 0, 0, gradients_names, "table",
                      NOISE_KIND_BIT(NOISE_PERLIN) | NOISE_KIND_BIT(NOISE_SIMPLEX) },
    [P_FALLOFF] = { "falloff", NOISE_PARAM_ENUM,
                    "kernel of simplex: classic 8 max(0.5 - r^2, 0)^3, or quartic: the GLSL article's max(0.5 - r^2, "
                    "0)^4 x 99 (2D)",
                    0, 0, 0, 0, 0, 0, falloff_names, "classic", NOISE_KIND_BIT(NOISE_SIMPLEX) },
    [P_T] = { "t", NOISE_PARAM_NUMBER, "third coordinate: present means the 3D noise at z = t (scaled by frequency)",
              -DBL_MAX, DBL_MAX, 0, 0, 1, 0, NULL, NULL, KINDS_3D },
};

const noise_param *noise_params(size_t *n_params)
{
    if (n_params)
        *n_params = P_COUNT;
    return params;
}

int noise_param_applies(const noise_param *p, noise_kind kind)
{
    return p->kinds == 0 || (p->kinds & NOISE_KIND_BIT(kind)) != 0;
}

/* "value and perlin": the kinds a parameter applies to, in words. */
static void kinds_text(const noise_param *p, char *buf, size_t buf_size)
{
    size_t n = 0, count = 0, total = 0;
    buf[0] = '\0';
    for (int k = 0; k < NOISE_KIND_COUNT; k++)
        total += noise_param_applies(p, (noise_kind)k);
    for (int k = 0; k < NOISE_KIND_COUNT && n < buf_size; k++) {
        if (!noise_param_applies(p, (noise_kind)k))
            continue;
        count++;
        int w = snprintf(buf + n, buf_size - n, "%s%s", count == 1 ? "" : count == total ? " and " : ", ",
                         kind_names[k]);
        n += w > 0 ? (size_t)w : 0;
    }
}

/* The parameters that apply to kind, as "a, b, c". */
static void known_text(noise_kind kind, char *buf, size_t buf_size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < P_COUNT && n < buf_size; k++) {
        if (!noise_param_applies(&params[k], kind))
            continue;
        int w = snprintf(buf + n, buf_size - n, "%s%s", n ? ", " : "", params[k].name);
        n += w > 0 ? (size_t)w : 0;
    }
}

const char *noise_strerror(int err)
{
    switch (err) {
    case 0: return "success";
    case NOISE_EUNKNOWN: return "unknown parameter";
    case NOISE_EDUP: return "parameter given twice";
    case NOISE_ERANGE: return "value out of range";
    case NOISE_ESYNTAX: return "malformed value";
    case NOISE_EKIND: return "unknown kind";
    case NOISE_ENOSPACE: return "buffer too small";
    default: return "unknown error";
    }
}

const char *noise_kind_name(noise_kind kind)
{
    return (unsigned)kind < NOISE_KIND_COUNT ? kind_names[kind] : NULL;
}

int noise_kind_from_name(const char *name, noise_kind *out)
{
    for (int k = 0; name && k < NOISE_KIND_COUNT; k++)
        if (strcmp(name, kind_names[k]) == 0) {
            *out = (noise_kind)k;
            return 0;
        }
    return NOISE_EKIND;
}

/* The GLSL article's variants of perlin and simplex are 2D functions. */
static int glsl_variant(const noise_spec *spec)
{
    return (noise_param_applies(&params[P_GRADIENTS], spec->kind) && spec->gradients == NOISE_GRADIENTS_ANGLE) ||
           (noise_param_applies(&params[P_FALLOFF], spec->kind) && spec->falloff == NOISE_FALLOFF_QUARTIC);
}

int noise_spec_planar(const noise_spec *spec)
{
    return !noise_param_applies(&params[P_T], spec->kind) || glsl_variant(spec);
}

void noise_spec_default(noise_spec *spec, noise_kind kind, uint32_t seed)
{
    memset(spec, 0, sizeof *spec);
    spec->kind = kind;
    spec->seed = seed;
    spec->frequency = params[P_FREQUENCY].default_number;
    spec->octaves = (int)params[P_OCTAVES].default_number;
    spec->lacunarity = params[P_LACUNARITY].default_number;
    spec->gain = params[P_GAIN].default_number;
    spec->fractal = NOISE_FBM;
    spec->warp = params[P_WARP].default_number;
    spec->has_t = 0;
    spec->t = 0;
    spec->lattice = NOISE_SQUARE;
    spec->distance = NOISE_EUCLIDEAN;
    spec->cell_return = NOISE_F1;
    spec->jitter = params[P_JITTER].default_number;
    spec->fade = NOISE_FADE_LINEAR;
    spec->gradients = NOISE_GRADIENTS_TABLE;
    spec->falloff = NOISE_FALLOFF_CLASSIC;
}

int noise_format_double(double v, char *buf, size_t buf_size)
{
    char tmp[40];
    int len = 0;
    if (isnan(v)) {
        len = snprintf(tmp, sizeof tmp, "nan");
    } else if (isinf(v)) {
        len = snprintf(tmp, sizeof tmp, v < 0 ? "-inf" : "inf");
    } else {
        /* The shortest precision that round-trips. For a normal double
         * whose shortest form has k <= 15 digits, %.15g prints those digits
         * (padded with zeros): count them and print once more with %.kg,
         * which also picks the exponent form ("1e+06") where that is
         * shorter. Otherwise 16 or 17 digits. Subnormals, whose precision
         * is lower, take the plain search. At most four snprintf calls
         * instead of seventeen: this prints every number of a batch. */
        int prec = fabs(v) < DBL_MIN ? 1 : 15;
        for (; prec <= 17; prec++) {
            len = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
            if (strtod(tmp, NULL) == v)
                break;
        }
        if (prec == 15) {
            int digits = 0, trailing_zeros = 0, leading = 1;
            for (const char *c = tmp; *c != '\0' && *c != 'e'; c++) {
                if (*c < '0' || *c > '9')
                    continue;
                if (leading && *c == '0')
                    continue;
                leading = 0;
                digits++;
                trailing_zeros = *c == '0' ? trailing_zeros + 1 : 0;
            }
            int k = digits - trailing_zeros;
            if (k >= 1 && k < 15)
                len = snprintf(tmp, sizeof tmp, "%.*g", k, v);
        }
        /* %.kg takes the exponent form whenever the decimal exponent is at
         * least k, even where it is longer: 180 would print as "1.8e+02".
         * The plain digits padded with zeros ("180") are the same number;
         * keep whichever is shorter, the plain one on a tie ("12000"). */
        const char *ep = strchr(tmp, 'e');
        if (ep && ep[1] == '+') {
            int exp10 = atoi(ep + 2);
            if (exp10 < 17) {
                char plain[40];
                int plain_len = snprintf(plain, sizeof plain, "%.*g", exp10 + 1, v);
                int exp_len = len - 1 - (ep[2] == '0'); /* after compaction below */
                /* only zeros may pad: 56460374335683856 is 17 digits where
                 * 5.646037433568386e16 needs 16 */
                int mant_digits = 0, plain_digits = 0, plain_zeros = 0;
                for (const char *c = tmp; c < ep; c++)
                    mant_digits += *c >= '0' && *c <= '9';
                for (const char *c = plain; *c; c++) {
                    if (*c < '0' || *c > '9')
                        continue;
                    plain_digits++;
                    plain_zeros = *c == '0' ? plain_zeros + 1 : 0;
                }
                if (plain_len > 0 && !strchr(plain, 'e') && plain_len <= exp_len &&
                    plain_digits - plain_zeros <= mant_digits && strtod(plain, NULL) == v) {
                    memcpy(tmp, plain, (size_t)plain_len + 1);
                    len = plain_len;
                }
            }
        }
        /* "1e+06" -> "1e6", "1e-07" -> "1e-7": no '+' (it means space in a
         * query string) and no leading exponent zeros. */
        char *e = strchr(tmp, 'e');
        if (e) {
            char *src = e + 1, *dst = e + 1;
            if (*src == '+')
                src++;
            else if (*src == '-')
                *dst++ = *src++;
            while (*src == '0' && src[1] != '\0')
                src++;
            memmove(dst, src, strlen(src) + 1);
            len = (int)strlen(tmp);
        }
    }
    if (len < 0 || (size_t)len >= buf_size)
        return NOISE_ENOSPACE;
    memcpy(buf, tmp, (size_t)len + 1);
    return len;
}

/* Decimal or exponent notation, nothing else: [+-]? (d+ (.d*)? | .d+) ([eE][+-]?d+)? */
static int is_decimal(const char *s)
{
    const char *p = s;
    int digits = 0;
    if (*p == '+' || *p == '-')
        p++;
    while (isdigit((unsigned char)*p)) {
        p++;
        digits++;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            p++;
            digits++;
        }
    }
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return 0;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return *p == '\0';
}

static int is_nonfinite_word(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    return strcasecmp(s, "nan") == 0 || strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0;
}

/* "in (0, 1e6]" / "in 1..16" / "from: fbm, turbulence, ridged" */
static void describe_range(const noise_param *p, char *out, size_t size)
{
    char lo[32], hi[32];
    if (p->type == NOISE_PARAM_ENUM) {
        size_t used = 0;
        used += (size_t)snprintf(out, size, "one of ");
        for (int i = 0; p->choices[i] && used < size; i++)
            used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", p->choices[i]);
        return;
    }
    if (p->min == -DBL_MAX && p->max == DBL_MAX) {
        snprintf(out, size, "a finite number");
        return;
    }
    noise_format_double(p->min, lo, sizeof lo);
    noise_format_double(p->max, hi, sizeof hi);
    if (p->type == NOISE_PARAM_INTEGER)
        snprintf(out, size, "an integer in %s..%s", lo, hi);
    else
        snprintf(out, size, "a number in %c%s, %s%c", p->min_exclusive ? '(' : '[', lo, hi,
                 p->max_exclusive ? ')' : ']');
}

static int fail(int code, char *err, size_t err_size, const char *fmt, const char *a, const char *b,
                const char *c)
{
    if (err && err_size > 0)
        snprintf(err, err_size, fmt, a, b, c);
    return code;
}

/* Parses one value; on success stores it into *num or *choice. */
static int parse_value(const noise_param *p, const char *text, double *num, int *choice, char *err,
                       size_t err_size)
{
    char range[96];
    describe_range(p, range, sizeof range);
    /* quote at most 40 bytes of what was sent */
    char shown[48];
    snprintf(shown, sizeof shown, "%.40s%s", text, strlen(text) > 40 ? "..." : "");
    if (p->type == NOISE_PARAM_ENUM) {
        for (int i = 0; p->choices[i]; i++)
            if (strcmp(text, p->choices[i]) == 0) {
                *choice = i;
                return 0;
            }
        return fail(NOISE_ESYNTAX, err, err_size, "%s must be %s, got '%s'", p->name, range, shown);
    }
    if (*text == '\0')
        return fail(NOISE_ESYNTAX, err, err_size, "%s must be %s, got an empty value%s", p->name, range, "");
    if (is_nonfinite_word(text))
        return fail(NOISE_ERANGE, err, err_size, "%s must be %s, got '%s'", p->name, range, shown);
    if (!is_decimal(text))
        return fail(NOISE_ESYNTAX, err, err_size, "%s must be %s, got '%s'", p->name, range, shown);
    errno = 0;
    double v = strtod(text, NULL);
    if (!isfinite(v))
        return fail(NOISE_ERANGE, err, err_size, "%s must be %s, got '%s'", p->name, range, shown);
    if (v == 0)
        v = 0.0; /* -0 and 0 are the same field */
    if (p->type == NOISE_PARAM_INTEGER && v != floor(v))
        return fail(NOISE_ESYNTAX, err, err_size, "%s must be %s, got '%s'", p->name, range, shown);
    if (v < p->min || v > p->max || (p->min_exclusive && v == p->min) || (p->max_exclusive && v == p->max))
        return fail(NOISE_ERANGE, err, err_size, "%s must be %s, got '%s'", p->name, range, shown);
    *num = v;
    return 0;
}

/* Why a parameter does not apply to a kind, where the kinds it applies to
 * do not say it: the end of the "applies only to" message, or "". */
static const char *why_not(int id, noise_kind kind)
{
    if (id == P_PERIOD && kind == NOISE_SIMPLEX)
        return ": simplex noise's triangular lattice has no square period ((P, 0) and (0, P) are never both "
               "lattice vectors, as sqrt 3 is irrational)";
    return "";
}

int ne_spec_periodic(const noise_spec *spec)
{
    if (!(spec->period > 0) || (unsigned)spec->kind >= NOISE_KIND_COUNT ||
        !noise_param_applies(&params[P_PERIOD], spec->kind))
        return 0;
    return !noise_param_applies(&params[P_LATTICE], spec->kind) || spec->lattice == NOISE_SQUARE;
}

uint32_t ne_period_cells(double period, double freq, double *cells)
{
    double n = period * freq;
    if (cells)
        *cells = n;
    if (!(n >= 0.5 && n < NOISE_PERIOD_MAX_CELLS + 0.5))
        return 0;
    double whole = floor(n + 0.5);
    return fabs(n - whole) <= 1e-12 * whole ? (uint32_t)whole : 0;
}

/* period given: the lattice must be square, and each octave's period a
 * whole number of cells, 1..NOISE_PERIOD_MAX_CELLS (the frequencies are the
 * layers': frequency times lacunarity k times). */
static int check_period(const noise_spec *spec, char *err, size_t err_size)
{
    if (noise_param_applies(&params[P_LATTICE], spec->kind) && spec->lattice != NOISE_SQUARE)
        return fail(NOISE_ERANGE, err, err_size,
                    "period needs lattice=square: the triangle lattice has no square period ((P, 0) and (0, P) are "
                    "never both lattice vectors, as sqrt 3 is irrational)%s%s%s", "", "", "");
    double freq = spec->frequency;
    for (int k = 0; k < spec->octaves; k++, freq *= spec->lacunarity) {
        double cells;
        if (ne_period_cells(spec->period, freq, &cells))
            continue;
        char what[48], got[32], max[32];
        if (k == 0)
            snprintf(what, sizeof what, "period x frequency");
        else
            snprintf(what, sizeof what, "period x frequency x lacunarity^%d", k);
        noise_format_double(cells, got, sizeof got);
        noise_format_double(NOISE_PERIOD_MAX_CELLS, max, sizeof max);
        if (err && err_size > 0) {
            if (cells >= NOISE_PERIOD_MAX_CELLS + 0.5)
                snprintf(err, err_size,
                         "%s (octave %d's period in lattice cells) must be at most %s (2^30), got %s: lower period, "
                         "frequency, lacunarity or octaves", what, k, max, got);
            else if (k == 0)
                snprintf(err, err_size, "%s must be a whole number of lattice cells (1 or more), got %s", what, got);
            else
                snprintf(err, err_size,
                         "%s (octave %d's period in lattice cells) must be a whole number, got %s: lacunarity must "
                         "be an integer when period is set (or keep every octave whole)", what, k, got);
        }
        return NOISE_ERANGE;
    }
    return 0;
}

int noise_spec_parse(noise_spec *spec, noise_kind kind, uint32_t seed, size_t n_params, const char *const *names,
                     const char *const *values, char *err, size_t err_size)
{
    int seen[P_COUNT] = { 0 };
    if (err && err_size > 0)
        err[0] = '\0';
    if ((unsigned)kind >= NOISE_KIND_COUNT)
        return fail(NOISE_EKIND, err, err_size, "unknown kind%s%s%s", "", "", "");
    noise_spec_default(spec, kind, seed);
    for (size_t i = 0; i < n_params; i++) {
        const char *name = names[i] ? names[i] : "";
        const char *text = values[i] ? values[i] : "";
        int id = -1;
        for (int k = 0; k < P_COUNT; k++)
            if (strcmp(name, params[k].name) == 0)
                id = k;
        char shown[48];
        snprintf(shown, sizeof shown, "%.40s%s", name, strlen(name) > 40 ? "..." : "");
        if (id < 0) {
            char known[160];
            known_text(kind, known, sizeof known);
            return fail(NOISE_EUNKNOWN, err, err_size, "unknown parameter '%s'; known: %s%s", shown, known, "");
        }
        if (!noise_param_applies(&params[id], kind)) {
            char kinds[80], where[160], sent[48];
            kinds_text(&params[id], kinds, sizeof kinds);
            snprintf(where, sizeof where, "%s, not to %s%s", kinds, kind_names[kind],
                     id == P_T ? " (a 2D field: it has no third coordinate)" : "");
            snprintf(sent, sizeof sent, "%.40s%s", text, strlen(text) > 40 ? "..." : "");
            if (err && err_size > 0)
                snprintf(err, err_size, "parameter '%s' applies only to %s%s; got '%s'", params[id].name, where,
                         why_not(id, kind), sent);
            return NOISE_EUNKNOWN;
        }
        if (seen[id])
            return fail(NOISE_EDUP, err, err_size, "parameter '%s' given twice%s%s", params[id].name, "", "");
        seen[id] = 1;
        double num = 0;
        int choice = 0;
        int rc = parse_value(&params[id], text, &num, &choice, err, err_size);
        if (rc < 0)
            return rc;
        switch (id) {
        case P_FREQUENCY: spec->frequency = num; break;
        case P_OCTAVES: spec->octaves = (int)num; break;
        case P_LACUNARITY: spec->lacunarity = num; break;
        case P_GAIN: spec->gain = num; break;
        case P_FRACTAL: spec->fractal = (noise_fractal)choice; break;
        case P_WARP: spec->warp = num; break;
        case P_LATTICE: spec->lattice = (noise_lattice)choice; break;
        case P_DISTANCE: spec->distance = (noise_cell_distance)choice; break;
        case P_RETURN: spec->cell_return = (noise_cell_return)choice; break;
        case P_JITTER: spec->jitter = num; break;
        case P_PERIOD: spec->period = num; break;
        case P_FADE: spec->fade = (noise_fade)choice; break;
        case P_GRADIENTS: spec->gradients = (noise_gradients)choice; break;
        case P_FALLOFF: spec->falloff = (noise_falloff)choice; break;
        case P_T:
            spec->has_t = 1;
            spec->t = num;
            break;
        }
    }
    if (spec->has_t && glsl_variant(spec))
        return fail(NOISE_EUNKNOWN, err, err_size,
                    "parameter 't' does not apply to %s with %s: the GLSL article's function is 2D (no third "
                    "coordinate)%s",
                    kind_names[kind],
                    spec->gradients == NOISE_GRADIENTS_ANGLE ? "gradients=angle" : "falloff=quartic", "");
    /* rules between parameters, whatever their order */
    if (seen[P_PERIOD])
        return check_period(spec, err, err_size);
    return 0;
}

/* Appends printf output at *used; *used grows past size when it does not fit. */
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*used < size ? buf + *used : NULL, *used < size ? size - *used : 0, fmt, ap);
    va_end(ap);
    *used += n > 0 ? (size_t)n : 0;
}

int noise_spec_canonical(const noise_spec *spec, char *buf, size_t buf_size)
{
    char f[32], l[32], g[32], w[32], num[32];
    noise_format_double(spec->frequency, f, sizeof f);
    noise_format_double(spec->lacunarity, l, sizeof l);
    noise_format_double(spec->gain, g, sizeof g);
    noise_format_double(spec->warp, w, sizeof w);
    const char *fr = (unsigned)spec->fractal < NOISE_FRACTAL_COUNT ? fractal_names[spec->fractal] : "fbm";
    size_t n = 0;
    append(buf, buf_size, &n, "frequency=%s&octaves=%d&lacunarity=%s&gain=%s&fractal=%s&warp=%s", f, spec->octaves,
           l, g, fr, w);
    if (noise_param_applies(&params[P_LATTICE], spec->kind))
        append(buf, buf_size, &n, "&lattice=%s", spec->lattice == NOISE_TRIANGLE ? "triangle" : "square");
    /* cellular (a kind added after NOISE_VERSION 1) always lists its own
     * three parameters, classic (added after it too) its fade; parameters
     * added to the older kinds (period, gradients, falloff) appear only
     * where they differ from their default, so the text of every field
     * that existed at version 1 is unchanged */
    if (noise_param_applies(&params[P_DISTANCE], spec->kind)) {
        noise_format_double(spec->jitter == 0 ? 0.0 : spec->jitter, num, sizeof num);
        append(buf, buf_size, &n, "&distance=%s&return=%s&jitter=%s",
               distance_names[(unsigned)spec->distance < NOISE_DISTANCE_COUNT ? spec->distance : 0],
               return_names[(unsigned)spec->cell_return < NOISE_RETURN_COUNT ? spec->cell_return : 0], num);
    }
    if (ne_spec_periodic(spec)) {
        noise_format_double(spec->period, num, sizeof num);
        append(buf, buf_size, &n, "&period=%s", num);
    }
    if (spec->kind == NOISE_CLASSIC)
        append(buf, buf_size, &n, "&fade=%s",
               fade_names[(unsigned)spec->fade < NOISE_FADE_COUNT ? spec->fade : NOISE_FADE_LINEAR]);
    if (noise_param_applies(&params[P_GRADIENTS], spec->kind) && spec->gradients == NOISE_GRADIENTS_ANGLE)
        append(buf, buf_size, &n, "&gradients=angle");
    if (noise_param_applies(&params[P_FALLOFF], spec->kind) && spec->falloff == NOISE_FALLOFF_QUARTIC)
        append(buf, buf_size, &n, "&falloff=quartic");
    if (spec->has_t) {
        noise_format_double(spec->t == 0 ? 0.0 : spec->t, num, sizeof num);
        append(buf, buf_size, &n, "&t=%s", num);
    }
    if (n >= buf_size) {
        if (buf && buf_size > 0)
            buf[0] = '\0';
        return NOISE_ENOSPACE;
    }
    return (int)n;
}
