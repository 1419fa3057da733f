/* graph_json.c: the strict JSON reader of the graph parser (RFC 8259):
 * one document, UTF-8 checked, strings with every escape (surrogate pairs
 * joined, lone surrogates refused), numbers in JSON's own syntax only,
 * nesting at most NG_JSON_MAX_NESTING deep. Errors say at which character.
 */
#include "graph_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ng_error(noise_graph_error *err, int code, const char *pointer, const char *fmt, ...)
{
    if (!err)
        return;
    err->code = code;
    snprintf(err->pointer, sizeof err->pointer, "%s", pointer ? pointer : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

int ng_jdoc_add(ng_jdoc *doc, ng_jtype type, size_t pos)
{
    if (doc->n == doc->cap) {
        int cap = doc->cap ? doc->cap * 2 : 64;
        ng_jval *v = realloc(doc->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        doc->v = v;
        doc->cap = cap;
    }
    ng_jval *j = &doc->v[doc->n];
    memset(j, 0, sizeof *j);
    j->type = type;
    j->first = j->next = -1;
    j->pos = pos;
    return doc->n++;
}

void ng_jdoc_free(ng_jdoc *doc)
{
    free(doc->v);
    free(doc->strbuf);
    memset(doc, 0, sizeof *doc);
}

double ng_strtod(const char *s, size_t len)
{
    /* strtod reads the locale's decimal point: write that in place of '.'
     * (printf writes it too: "0.5" is "0,5" in some locales) */
    char small[64], *buf = small, half[16], dp[8];
    int hl = snprintf(half, sizeof half, "%.1f", 0.5);
    size_t dp_len = hl >= 3 && (size_t)hl - 2 < sizeof dp ? (size_t)hl - 2 : 1;
    if (hl >= 3 && (size_t)hl - 2 < sizeof dp)
        memcpy(dp, half + 1, dp_len);
    else
        dp[0] = '.';
    dp[dp_len] = '\0';
    size_t need = len + dp_len + 1;
    if (need > sizeof small) {
        buf = malloc(need);
        if (!buf)
            return 0; /* never for the lengths a document can hold */
    }
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '.') {
            memcpy(buf + o, dp, dp_len);
            o += dp_len;
        } else {
            buf[o++] = s[i];
        }
    }
    buf[o] = '\0';
    double v = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    return v;
}

typedef struct {
    const char *s;
    size_t len, i;
    ng_jdoc *doc;
    noise_graph_error *err;
} reader;

static int syntax(reader *r, const char *what)
{
    if (r->i >= r->len)
        ng_error(r->err, NOISE_GRAPH_ESYNTAX, "", "not JSON: %s at the end of the document (character %zu)", what,
                 r->i + 1);
    else
        ng_error(r->err, NOISE_GRAPH_ESYNTAX, "", "not JSON: %s at character %zu", what, r->i + 1);
    return NOISE_GRAPH_ESYNTAX;
}

static int oom(reader *r)
{
    ng_error(r->err, NOISE_GRAPH_ENOMEM, "", "out of memory reading the graph");
    return NOISE_GRAPH_ENOMEM;
}

static void skip_ws(reader *r)
{
    while (r->i < r->len && (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' || r->s[r->i] == '\r'))
        r->i++;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t k;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        k = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < k)
        return 0;
    unsigned cp = c & (0x7F >> k);
    for (size_t j = 1; j < k; j++) {
        if ((p[j] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[j] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

static void put_utf8(char *out, size_t *o, unsigned cp)
{
    if (cp < 0x80) {
        out[(*o)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*o)++] = (char)(0xC0 | (cp >> 6));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*o)++] = (char)(0xE0 | (cp >> 12));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*o)++] = (char)(0xF0 | (cp >> 18));
        out[(*o)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*o)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* A string at r->i (the opening quote); its decoded bytes go to the doc's
 * string buffer (never longer than the input). */
static int read_string(reader *r, const char **str, size_t *str_len)
{
    r->i++; /* " */
    char *out = r->doc->strbuf + r->doc->str_used;
    size_t o = 0;
    for (;;) {
        if (r->i >= r->len)
            return syntax(r, "unterminated string");
        unsigned char c = (unsigned char)r->s[r->i];
        if (c == '"') {
            r->i++;
            break;
        }
        if (c < 0x20)
            return syntax(r, "a control character inside a string (escape it)");
        if (c == '\\') {
            if (r->i + 1 >= r->len)
                return syntax(r, "unterminated string");
            char e = r->s[r->i + 1];
            const char *simple = strchr("\"\\/bfnrt", e);
            if (e != '\0' && simple) {
                static const char map[] = "\"\\/\b\f\n\r\t";
                out[o++] = map[simple - "\"\\/bfnrt"];
                r->i += 2;
                continue;
            }
            if (e != 'u')
                return syntax(r, "an unknown escape in a string");
            unsigned cp;
            if (r->i + 6 > r->len || hex4(r->s + r->i + 2, &cp) < 0)
                return syntax(r, "\\u not followed by four hex digits");
            r->i += 6;
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                return syntax(r, "a lone low surrogate escape");
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (r->i + 6 > r->len || r->s[r->i] != '\\' || r->s[r->i + 1] != 'u' ||
                    hex4(r->s + r->i + 2, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
                    return syntax(r, "a high surrogate escape not followed by a low one");
                r->i += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            put_utf8(out, &o, cp);
            continue;
        }
        size_t k = utf8_len((const unsigned char *)r->s + r->i, r->len - r->i);
        if (k == 0)
            return syntax(r, "bytes that are not UTF-8");
        memcpy(out + o, r->s + r->i, k);
        o += k;
        r->i += k;
    }
    *str = out;
    *str_len = o;
    r->doc->str_used += o;
    return 0;
}

static int read_number(reader *r, int vi)
{
    size_t start = r->i;
    if (r->i < r->len && r->s[r->i] == '-')
        r->i++;
    if (r->i >= r->len || !is_digit(r->s[r->i]))
        return syntax(r, "a number without digits");
    if (r->s[r->i] == '0') {
        r->i++;
        if (r->i < r->len && is_digit(r->s[r->i]))
            return syntax(r, "a number with a leading zero");
    } else {
        while (r->i < r->len && is_digit(r->s[r->i]))
            r->i++;
    }
    if (r->i < r->len && r->s[r->i] == '.') {
        r->i++;
        if (r->i >= r->len || !is_digit(r->s[r->i]))
            return syntax(r, "no digit after a decimal point");
        while (r->i < r->len && is_digit(r->s[r->i]))
            r->i++;
    }
    if (r->i < r->len && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
        r->i++;
        if (r->i < r->len && (r->s[r->i] == '+' || r->s[r->i] == '-'))
            r->i++;
        if (r->i >= r->len || !is_digit(r->s[r->i]))
            return syntax(r, "no digit in an exponent");
        while (r->i < r->len && is_digit(r->s[r->i]))
            r->i++;
    }
    ng_jval *v = &r->doc->v[vi];
    v->str = r->s + start;
    v->str_len = r->i - start;
    v->num = ng_strtod(v->str, v->str_len);
    return 0;
}

static int read_value(reader *r, int depth);

static int read_container(reader *r, int vi, int depth, int object)
{
    char close = object ? '}' : ']';
    r->i++;
    skip_ws(r);
    int last = -1, count = 0;
    if (r->i < r->len && r->s[r->i] == close) {
        r->i++;
        return 0;
    }
    for (;;) {
        skip_ws(r);
        const char *key = NULL;
        size_t key_len = 0;
        if (object) {
            if (r->i >= r->len || r->s[r->i] != '"')
                return syntax(r, "expected a key (a string)");
            int rc = read_string(r, &key, &key_len);
            if (rc < 0)
                return rc;
            skip_ws(r);
            if (r->i >= r->len || r->s[r->i] != ':')
                return syntax(r, "expected ':' after a key");
            r->i++;
            skip_ws(r);
        }
        int child = read_value(r, depth + 1);
        if (child < 0)
            return child;
        r->doc->v[child].key = key;
        r->doc->v[child].key_len = key_len;
        if (last < 0)
            r->doc->v[vi].first = child;
        else
            r->doc->v[last].next = child;
        last = child;
        count++;
        r->doc->v[vi].count = count;
        skip_ws(r);
        if (r->i < r->len && r->s[r->i] == ',') {
            r->i++;
            continue;
        }
        if (r->i < r->len && r->s[r->i] == close) {
            r->i++;
            return 0;
        }
        return syntax(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if (r->len - r->i < n || memcmp(r->s + r->i, word, n) != 0)
        return -1;
    r->i += n;
    return 0;
}

/* Reads one value at r->i (whitespace skipped by the caller); returns its index. */
static int read_value(reader *r, int depth)
{
    if (r->i >= r->len)
        return syntax(r, "expected a value");
    char c = r->s[r->i];
    ng_jtype type;
    switch (c) {
    case '{': type = NG_J_OBJECT; break;
    case '[': type = NG_J_ARRAY; break;
    case '"': type = NG_J_STRING; break;
    case 't': type = NG_J_TRUE; break;
    case 'f': type = NG_J_FALSE; break;
    case 'n': type = NG_J_NULL; break;
    default:
        if (c == '-' || is_digit(c)) {
            type = NG_J_NUMBER;
            break;
        }
        return syntax(r, "expected a value");
    }
    if ((type == NG_J_OBJECT || type == NG_J_ARRAY) && depth >= NG_JSON_MAX_NESTING) {
        ng_error(r->err, NOISE_GRAPH_ELIMIT, "", "the document nests arrays and objects more than %d deep (character %zu)",
                 NG_JSON_MAX_NESTING, r->i + 1);
        return NOISE_GRAPH_ELIMIT;
    }
    int vi = ng_jdoc_add(r->doc, type, r->i);
    if (vi < 0)
        return oom(r);
    int rc = 0;
    switch (type) {
    case NG_J_OBJECT: rc = read_container(r, vi, depth, 1); break;
    case NG_J_ARRAY: rc = read_container(r, vi, depth, 0); break;
    case NG_J_STRING: {
        const char *str;
        size_t n;
        rc = read_string(r, &str, &n);
        if (rc == 0) {
            r->doc->v[vi].str = str;
            r->doc->v[vi].str_len = n;
        }
        break;
    }
    case NG_J_TRUE: rc = literal(r, "true") < 0 ? syntax(r, "expected a value") : 0; break;
    case NG_J_FALSE: rc = literal(r, "false") < 0 ? syntax(r, "expected a value") : 0; break;
    case NG_J_NULL: rc = literal(r, "null") < 0 ? syntax(r, "expected a value") : 0; break;
    default: rc = read_number(r, vi); break;
    }
    return rc < 0 ? rc : vi;
}

int ng_json_parse(const char *s, size_t len, ng_jdoc *doc, noise_graph_error *err)
{
    doc->n = 0;
    doc->str_used = 0;
    if (doc->str_cap < len + 1) {
        char *b = realloc(doc->strbuf, len + 1);
        if (!b) {
            ng_error(err, NOISE_GRAPH_ENOMEM, "", "out of memory reading the graph");
            return NOISE_GRAPH_ENOMEM;
        }
        doc->strbuf = b;
        doc->str_cap = len + 1;
    }
    reader r = { s, len, 0, doc, err };
    skip_ws(&r);
    if (r.i >= len) {
        ng_error(err, NOISE_GRAPH_ESYNTAX, "", "not JSON: the document is empty");
        return NOISE_GRAPH_ESYNTAX;
    }
    int root = read_value(&r, 0);
    if (root < 0)
        return root;
    skip_ws(&r);
    if (r.i < len)
        return syntax(&r, "more after the end of the document");
    return root;
}
