/* batch.c: POST /points bodies straight into arrays, answers straight from
 * them (see batch.h).
 *
 * A small recursive-descent reader for the one shape we take. Errors of
 * shape name the point (points[i]); errors of syntax name the line and
 * column, like the JSON library's messages did before. Numbers follow
 * RFC 8259's grammar and are converted by jsonout_parse_number, or by strtod
 * where it declines (the daemon never changes its locale from "C"). */
#include "heights/batch.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/failalloc.h"
#include "base/jsonout.h"
#include "noise.h"

typedef struct {
    const char *p, *end, *start;
    char *err;
    size_t err_size;
} reader;

/* A syntax error at the reader's position. */
static int syntax(reader *r, const char *what)
{
    int line = 1, col = 1;
    for (const char *q = r->start; q < r->p && q < r->end; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(r->err, r->err_size, "request body is not valid JSON: %s at line %d column %d",
             what, line, col);
    return ERR_BAD_JSON;
}

static int shape(reader *r, const char *msg)
{
    snprintf(r->err, r->err_size, "%s", msg);
    return ERR_BAD_JSON;
}

static void skip_ws(reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

/* Expects c after optional whitespace; consumes it and returns 1, else 0. */
static int accept(reader *r, char c)
{
    skip_ws(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return 1;
    }
    return 0;
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(unsigned cp, char *out)
{
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    unsigned cp;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; }
    else return 0;
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

/* A string (the opening quote next); its decoded text, cut to fit, goes to
 * out. */
static int read_string(reader *r, char *out, size_t out_size)
{
    size_t n = 0;
    r->p++; /* the quote */
    for (;;) {
        if (r->p >= r->end)
            return syntax(r, "unterminated string");
        unsigned char c = (unsigned char)*r->p;
        char tmp[4];
        size_t tl = 0;
        if (c == '"') {
            r->p++;
            break;
        }
        if (c < 0x20)
            return syntax(r, "control character in a string");
        if (c == '\\') {
            if (r->end - r->p < 2)
                return syntax(r, "unterminated string");
            char e = r->p[1];
            r->p += 2;
            const char *simple = strchr("\"\\/bfnrt", e);
            if (e != '\0' && simple != NULL) {
                static const char map[] = "\"\\/\b\f\n\r\t";
                tmp[0] = map[simple - "\"\\/bfnrt"];
                tl = 1;
            } else if (e == 'u') {
                unsigned cp, lo;
                if (r->end - r->p < 4 || hex4(r->p, &cp) != 0)
                    return syntax(r, "invalid \\u escape");
                r->p += 4;
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' ||
                        hex4(r->p + 2, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
                        return syntax(r, "invalid \\u surrogate pair");
                    r->p += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                    return syntax(r, "invalid \\u surrogate pair");
                }
                if (cp == 0)
                    return syntax(r, "\\u0000 in a string");
                tl = put_utf8(cp, tmp);
            } else {
                return syntax(r, "invalid escape");
            }
        } else {
            tl = utf8_len((const unsigned char *)r->p, (const unsigned char *)r->end);
            if (tl == 0)
                return syntax(r, "invalid UTF-8 in a string");
            memcpy(tmp, r->p, tl);
            r->p += tl;
        }
        if (n + tl < out_size) {
            memcpy(out + n, tmp, tl);
            n += tl;
        }
    }
    if (out_size > 0)
        out[n < out_size ? n : out_size - 1] = '\0';
    return 0;
}

/* One or more digits at q: returns the position after them, or NULL (the
 * reader's position set to q, where a digit was expected). */
static const char *digits(reader *r, const char *q)
{
    if (q >= r->end || !(*q >= '0' && *q <= '9')) {
        r->p = q;
        return NULL;
    }
    while (q < r->end && *q >= '0' && *q <= '9')
        q++;
    return q;
}

/* A number with JSON's grammar at the reader's position (whitespace
 * skipped). Returns 0 and sets *out; 1 if no number starts here; or an
 * error. */
static int read_number(reader *r, double *out)
{
    const char *s = r->p;
    const char *q = s;
    if (q < r->end && *q == '-')
        q++;
    if (q >= r->end || !(*q >= '0' && *q <= '9'))
        return q == s ? 1 : syntax(r, "invalid number");
    if (*q == '0') {
        q++;
    } else {
        while (q < r->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < r->end && *q == '.' && (q = digits(r, q + 1)) == NULL)
        return syntax(r, "invalid number");
    if (q < r->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < r->end && (*q == '+' || *q == '-'))
            q++;
        if ((q = digits(r, q)) == NULL)
            return syntax(r, "invalid number");
    }
    size_t len = (size_t)(q - s);
    if (jsonout_parse_number(s, len, out) != 0) {
        /* strtod needs a terminated string: numbers longer than any double
         * needs are still exact when copied whole. */
        char local[64];
        char *buf = local;
        if (len >= sizeof local && (buf = failalloc_malloc(len + 1)) == NULL)
            return ERR_NOMEM;
        memcpy(buf, s, len);
        buf[len] = '\0';
        *out = strtod(buf, NULL);
        if (buf != local)
            free(buf);
    }
    r->p = q;
    return 0;
}

/* Skips one JSON value of any kind (for the message about a point that is
 * not an array of numbers we still want to be precise about syntax). */
static int is_value_start(char c)
{
    return c == '"' || c == '{' || c == '[' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
           c == 'f' || c == 'n';
}

/* The points array (after its '['). */
static int read_points(reader *r, size_t max_points, batch *out, size_t cap)
{
    size_t i = 0;
    char msg[160];
    if (accept(r, ']'))
        return 0;
    for (;; i++) {
        skip_ws(r);
        if (r->p >= r->end)
            return syntax(r, "unexpected end of body");
        if (*r->p != '[') {
            if (!is_value_start(*r->p))
                return syntax(r, "expected a value");
            if (i == 0)
                return shape(r, "points[0] must be an array [x, y] or [x, y, t]");
            snprintf(msg, sizeof msg, "points[%zu] must be an array of %d numbers like points[0]",
                     i, out->dims);
            return shape(r, msg);
        }
        r->p++;
        double c[4];
        int k = 0;
        if (!accept(r, ']')) {
            for (;;) {
                skip_ws(r);
                double v = 0;
                int rc = r->p < r->end ? read_number(r, &v) : syntax(r, "unexpected end of body");
                if (rc == 1) {
                    if (!is_value_start(*r->p))
                        return syntax(r, "expected a value");
                    snprintf(msg, sizeof msg, "points[%zu] must hold numbers only", i);
                    return shape(r, msg);
                }
                if (rc != 0)
                    return rc;
                if (!isfinite(v)) {
                    snprintf(msg, sizeof msg, "points[%zu] holds a JSON number too large for a double", i);
                    return shape(r, msg);
                }
                if (k < 4)
                    c[k] = v;
                k++;
                if (accept(r, ']'))
                    break;
                if (!accept(r, ','))
                    return syntax(r, "expected ',' or ']'");
            }
        }
        if (i == 0) {
            if (k != 2 && k != 3)
                return shape(r, "points[0] must be an array [x, y] or [x, y, t]");
            out->dims = k;
        } else if (k != out->dims) {
            snprintf(msg, sizeof msg, "points[%zu] must be an array of %d numbers like points[0]",
                     i, out->dims);
            return shape(r, msg);
        }
        if (i < cap)
            memcpy(out->coords + i * (size_t)out->dims, c, (size_t)k * sizeof *c);
        else if (i < max_points)
            return ERR_INTERNAL; /* cannot happen: cap bounds what the body holds */
        if (accept(r, ']'))
            break;
        if (!accept(r, ','))
            return syntax(r, "expected ',' or ']'");
    }
    out->n = i + 1;
    return 0;
}

int batch_parse(const char *body, size_t len, size_t max_points, batch *out, char *err,
                size_t err_size)
{
    memset(out, 0, sizeof *out);
    reader r = {body, body + len, body, err, err_size};
    /* A point takes at least 6 bytes ("[0,0],"): the body's length bounds
     * the count, so the array is sized once. */
    size_t cap = len / 6 + 1;
    if (cap > max_points)
        cap = max_points;
    out->coords = failalloc_malloc((cap ? cap : 1) * 3 * sizeof *out->coords);
    if (out->coords == NULL)
        return ERR_NOMEM;
    static const char *const shape_msg = "request body must be an object {\"points\":[[x,y],...]}";
    int rc = 0, seen = 0;
    if (!accept(&r, '{')) {
        skip_ws(&r);
        rc = r.p < r.end && is_value_start(*r.p) ? shape(&r, shape_msg)
                                                  : syntax(&r, "expected a value");
        goto fail;
    }
    if (!accept(&r, '}')) {
        for (;;) {
            skip_ws(&r);
            if (r.p >= r.end || *r.p != '"') {
                rc = syntax(&r, "expected a member name");
                goto fail;
            }
            char key[48];
            if ((rc = read_string(&r, key, sizeof key)) != 0)
                goto fail;
            if (!accept(&r, ':')) {
                rc = syntax(&r, "expected ':'");
                goto fail;
            }
            if (strcmp(key, "points") != 0 || seen) {
                char m[120];
                if (seen && strcmp(key, "points") == 0)
                    snprintf(m, sizeof m, "duplicate member \"points\" in request body");
                else
                    snprintf(m, sizeof m, "unknown member '%.40s' in request body (only \"points\")",
                             key);
                rc = shape(&r, m);
                goto fail;
            }
            seen = 1;
            skip_ws(&r);
            if (r.p >= r.end || *r.p != '[') {
                rc = r.p < r.end && is_value_start(*r.p) ? shape(&r, shape_msg)
                                                          : syntax(&r, "expected a value");
                goto fail;
            }
            r.p++;
            if ((rc = read_points(&r, max_points, out, cap)) != 0)
                goto fail;
            if (accept(&r, '}'))
                break;
            if (!accept(&r, ',')) {
                rc = syntax(&r, "expected ',' or '}'");
                goto fail;
            }
        }
    }
    skip_ws(&r);
    if (r.p != r.end) {
        rc = syntax(&r, "end of body expected");
        goto fail;
    }
    if (!seen) {
        rc = shape(&r, shape_msg);
        goto fail;
    }
    if (out->n > max_points) {
        snprintf(err, err_size, "too many points: %zu, at most %zu per request", out->n,
                 max_points);
        rc = ERR_TOO_LARGE;
        goto fail;
    }
    return 0;

fail:
    batch_free(out);
    return rc;
}

void batch_free(batch *b)
{
    free(b->coords);
    memset(b, 0, sizeof *b);
}

/* Longest number text: "-1.2345678901234567e-308" is 24 bytes; "null" 4. */
#define NUM_MAX 25

static size_t put_num(char *p, double v)
{
    if (!isfinite(v)) {
        memcpy(p, "null", 4);
        return 4;
    }
    return (size_t)jsonout_number(v, p);
}

int batch_answer_json(const double *values, const double *grads, size_t n, int g,
                      char **out_text, size_t *out_len)
{
    /* {"values":[v,...],"gradients":[[a,b,c],...]} */
    size_t cap = 32 + n * (NUM_MAX + 1) + n * ((size_t)g * (NUM_MAX + 1) + 3) + 8;
    char *t = failalloc_malloc(cap);
    *out_text = NULL;
    if (t == NULL)
        return -1;
    char *p = t;
    memcpy(p, "{\"values\":[", 11);
    p += 11;
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            *p++ = ',';
        p += put_num(p, values[i]);
    }
    memcpy(p, "],\"gradients\":[", 15);
    p += 15;
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            *p++ = ',';
        *p++ = '[';
        for (int k = 0; k < g; k++) {
            if (k > 0)
                *p++ = ',';
            p += put_num(p, grads[i * (size_t)g + (size_t)k]);
        }
        *p++ = ']';
    }
    memcpy(p, "]}", 3);
    p += 2;
    *out_text = t;
    *out_len = (size_t)(p - t);
    return 0;
}

size_t batch_memory_bytes(size_t body_bytes, size_t max_points)
{
    size_t n = body_bytes / 6 + 1;
    if (n > max_points)
        n = max_points;
    /* body, coordinates, values, gradients, answer text */
    return body_bytes + n * 3 * sizeof(double) + n * sizeof(double) + n * 3 * sizeof(double) +
           32 + n * (NUM_MAX + 1) + n * (3 * (NUM_MAX + 1) + 3) + 8;
}
