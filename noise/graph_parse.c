/* graph_parse.c: the graph language (docs/graphs.md): a graph from its JSON
 * document or its canonical text, checked node by node with JSON pointers
 * in the errors; identical sub-graphs merged (hash-consing) into the node
 * array in canonical order (graph_ir.h); the canonical text and JSON out.
 *
 * Both readers fill one value tree (graph_json.h): the JSON reader as the
 * document is written, the text reader with each NAME(...) as an object
 * {"node": NAME, "inputs": [...], KEY: VALUE...} and "$N" as a reference.
 * One builder then walks that tree. The text is accepted only when the
 * graph it builds encodes back to the very same bytes.
 */
#include "graph_ir.h"
#include "graph_json.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the node table: names, inputs, parameters ---- */

enum { PK_NUM, PK_INT, PK_BOOL, PK_WORD, PK_SEED, PK_POINTS, PK_PAIRS };

typedef struct {
    const char *name;
    unsigned char kind;     /* PK_* */
    signed char slot;       /* index in p[] (PK_NUM, PK_INT, PK_BOOL, PK_WORD) */
    double def, lo, hi;     /* default and range */
    unsigned char lo_ex, hi_ex;
    unsigned char required; /* no default (constant's value, curve and terrace points) */
    unsigned char nonzero;  /* 0 itself is out of range */
} ng_pdef;

typedef struct {
    const char *name;
    int min_in, max_in;
    int n_p;
    ng_pdef p[5];
} ng_opdef;

static const char *const fractal_types[] = { "fbm", "ridged", "turbulence", "pingpong", NULL };

#define FIN -DBL_MAX, DBL_MAX

static const ng_opdef ops[NG_OP_COUNT] = {
    [NG_SOURCE] = { "source", 0, 0, 0, { { 0 } } },
    [NG_CONSTANT] = { "constant", 0, 0, 1, { { "value", PK_NUM, 0, 0, FIN, 0, 0, 1, 0 } } },
    [NG_X] = { "x", 0, 0, 0, { { 0 } } },
    [NG_Y] = { "y", 0, 0, 0, { { 0 } } },
    [NG_T] = { "t", 0, 0, 0, { { 0 } } },
    [NG_DISTANCE] = { "distance", 0, 0, 2,
                      { { "px", PK_NUM, 0, 0, FIN, 0, 0, 0, 0 }, { "py", PK_NUM, 1, 0, FIN, 0, 0, 0, 0 } } },
    [NG_ADD] = { "add", 2, NOISE_GRAPH_MAX_INPUTS, 0, { { 0 } } },
    [NG_SUBTRACT] = { "sub", 2, 2, 0, { { 0 } } },
    [NG_MULTIPLY] = { "mul", 2, NOISE_GRAPH_MAX_INPUTS, 0, { { 0 } } },
    [NG_DIVIDE] = { "div", 2, 2, 0, { { 0 } } },
    [NG_MIN] = { "min", 2, NOISE_GRAPH_MAX_INPUTS, 0, { { 0 } } },
    [NG_MAX] = { "max", 2, NOISE_GRAPH_MAX_INPUTS, 0, { { 0 } } },
    [NG_SMIN] = { "smin", 2, 2, 1, { { "k", PK_NUM, 0, 0.1, 0, 1e6, 1, 0, 0, 0 } } },
    [NG_SMAX] = { "smax", 2, 2, 1, { { "k", PK_NUM, 0, 0.1, 0, 1e6, 1, 0, 0, 0 } } },
    [NG_NEGATE] = { "neg", 1, 1, 0, { { 0 } } },
    [NG_ABS] = { "abs", 1, 1, 0, { { 0 } } },
    [NG_POW] = { "pow", 1, 1, 1, { { "exponent", PK_NUM, 0, 2, 0, 16, 1, 0, 0, 0 } } },
    [NG_POWI] = { "powi", 1, 1, 1, { { "n", PK_INT, 0, 2, 0, 16, 0, 0, 0, 0 } } },
    [NG_SQRT] = { "sqrt", 1, 1, 0, { { 0 } } },
    [NG_SSQRT] = { "ssqrt", 1, 1, 0, { { 0 } } },
    [NG_CLAMP] = { "clamp", 1, 1, 2,
                   { { "min", PK_NUM, 0, -1, FIN, 0, 0, 0, 0 }, { "max", PK_NUM, 1, 1, FIN, 0, 0, 0, 0 } } },
    [NG_SCALE_BIAS] = { "scale_bias", 1, 1, 2,
                        { { "scale", PK_NUM, 0, 1, FIN, 0, 0, 0, 0 }, { "bias", PK_NUM, 1, 0, FIN, 0, 0, 0, 0 } } },
    [NG_REMAP] = { "remap", 1, 1, 4,
                   { { "from_min", PK_NUM, 0, -1, FIN, 0, 0, 0, 0 },
                     { "from_max", PK_NUM, 1, 1, FIN, 0, 0, 0, 0 },
                     { "to_min", PK_NUM, 2, 0, FIN, 0, 0, 0, 0 },
                     { "to_max", PK_NUM, 3, 1, FIN, 0, 0, 0, 0 } } },
    [NG_CURVE] = { "curve", 1, 1, 1, { { "points", PK_PAIRS, -1, 0, FIN, 0, 0, 1, 0 } } },
    [NG_TERRACE] = { "terrace", 1, 1, 3,
                     { { "points", PK_POINTS, -1, 0, FIN, 0, 0, 1, 0 },
                       { "invert", PK_BOOL, 0, 0, 0, 1, 0, 0, 0, 0 },
                       { "smooth", PK_BOOL, 1, 0, 0, 1, 0, 0, 0, 0 } } },
    [NG_BLEND] = { "blend", 3, 3, 0, { { 0 } } },
    [NG_SELECT] = { "select", 3, 3, 3,
                    { { "lower", PK_NUM, 0, -1, FIN, 0, 0, 0, 0 },
                      { "upper", PK_NUM, 1, 1, FIN, 0, 0, 0, 0 },
                      { "falloff", PK_NUM, 2, 0, 0, DBL_MAX, 0, 0, 0, 0 } } },
    [NG_DOMAIN_SCALE] = { "domain_scale", 1, 1, 1, { { "scale", PK_NUM, 0, 1, -1e6, 1e6, 0, 0, 0, 1 } } },
    [NG_DOMAIN_OFFSET] = { "domain_offset", 1, 1, 3,
                           { { "x", PK_NUM, 0, 0, FIN, 0, 0, 0, 0 },
                             { "y", PK_NUM, 1, 0, FIN, 0, 0, 0, 0 },
                             { "t", PK_NUM, 2, 0, FIN, 0, 0, 0, 0 } } },
    [NG_DOMAIN_ROTATE] = { "domain_rotate", 1, 1, 1, { { "angle", PK_NUM, 0, 0, -360, 360, 0, 0, 0, 0 } } },
    [NG_WARP] = { "warp", 3, 3, 1, { { "amplitude", PK_NUM, 0, 1, -1e6, 1e6, 0, 0, 0, 0 } } },
    [NG_FRACTAL] = { "fractal", 1, 1, 5,
                     { { "type", PK_WORD, 0, 0, 0, 3, 0, 0, 0, 0 },
                       { "octaves", PK_INT, 1, 3, 1, 16, 0, 0, 0, 0 },
                       { "lacunarity", PK_NUM, 2, 2, 1, 16, 0, 0, 0, 0 },
                       { "gain", PK_NUM, 3, 0.5, 0, 1, 1, 0, 0, 0 },
                       { "strength", PK_NUM, 4, 2, 0, 16, 1, 0, 0, 0 } } },
    [NG_SEED_OFFSET] = { "seed_offset", 1, 1, 1, { { "seed", PK_SEED, -1, 0, 0, 0, 0, 0, 0, 0 } } },
};

/* the source's seed offset: a parameter of every kind's node */
static const ng_pdef source_seed = { "seed", PK_SEED, -1, 0, 0, 0, 0, 0, 0, 0 };

const char *ng_node_name(const ng_node *node)
{
    if (!node || (unsigned)node->op >= NG_OP_COUNT)
        return "?";
    if (node->op == NG_SOURCE) {
        const char *k = noise_kind_name(node->spec.kind);
        return k ? k : "?";
    }
    return ops[node->op].name;
}

/* "value, perlin, ..., seed_offset": every node name, for messages. */
static void all_names(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < NOISE_KIND_COUNT && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "", noise_kind_name((noise_kind)k));
    for (int op = NG_CONSTANT; op < NG_OP_COUNT && used < size; op++)
        used += (size_t)snprintf(buf + used, size - used, ", %s", ops[op].name);
}

static int op_from_name(const char *s, size_t len, ng_op *op, noise_kind *kind)
{
    for (int k = 0; k < NOISE_KIND_COUNT; k++) {
        const char *name = noise_kind_name((noise_kind)k);
        if (strlen(name) == len && memcmp(name, s, len) == 0) {
            *op = NG_SOURCE;
            *kind = (noise_kind)k;
            return 0;
        }
    }
    for (int o = NG_CONSTANT; o < NG_OP_COUNT; o++)
        if (strlen(ops[o].name) == len && memcmp(ops[o].name, s, len) == 0) {
            *op = (ng_op)o;
            return 0;
        }
    return -1;
}

static int key_is(const ng_jval *v, const char *name)
{
    return v->key_len == strlen(name) && memcmp(v->key, name, v->key_len) == 0;
}

/* A string for a message: at most 40 bytes of it, printable ASCII kept,
 * anything else as '?'. */
static void shown(const char *s, size_t len, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < len && i < 40 && o + 1 < size; i++)
        out[o++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    if (len > 40 && o + 4 < size) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

/* ---- growing strings ---- */

typedef struct {
    char *b;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_put(sbuf *s, const char *p, size_t n)
{
    if (s->oom)
        return;
    if (s->n + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->n + n + 1)
            cap *= 2;
        char *b = realloc(s->b, cap);
        if (!b) {
            s->oom = 1;
            return;
        }
        s->b = b;
        s->cap = cap;
    }
    memcpy(s->b + s->n, p, n);
    s->n += n;
    s->b[s->n] = '\0';
}

static void sb_str(sbuf *s, const char *p) { sb_put(s, p, strlen(p)); }

static void sb_printf(sbuf *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf *s, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        sb_put(s, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void sb_num(sbuf *s, double v)
{
    char tmp[40];
    if (v == 0)
        v = 0.0;
    int n = noise_format_double(v, tmp, sizeof tmp);
    if (n > 0)
        sb_put(s, tmp, (size_t)n);
}

/* ---- building: the value tree to the node array ---- */

typedef struct {
    const ng_jdoc *doc;
    noise_graph_error *err;
    ng_node *nodes;
    int *depth;
    int n, cap;
    int from_text;
    /* named nodes of a JSON document */
    int nodes_obj;   /* the "nodes" object, or -1 */
    int *named;      /* per member: -2 not built, -1 being built, else the node */
    /* text: the node of each NAME written, in the order written */
    int *ord;
    int n_ord, ord_cap;
    int hops; /* named nodes being built, nested */
    char path[1024];
    size_t path_len;
} builder;

#define MAX_NAMED 1024
#define MAX_HOPS (2 * NOISE_GRAPH_MAX_DEPTH)
#define MAX_MEMBERS 64

static void path_push_key(builder *b, const char *key, size_t len)
{
    if (b->path_len + 1 < sizeof b->path)
        b->path[b->path_len++] = '/';
    for (size_t i = 0; i < len && b->path_len + 3 < sizeof b->path; i++) {
        if (key[i] == '~') {
            b->path[b->path_len++] = '~';
            b->path[b->path_len++] = '0';
        } else if (key[i] == '/') {
            b->path[b->path_len++] = '~';
            b->path[b->path_len++] = '1';
        } else {
            b->path[b->path_len++] = key[i];
        }
    }
    b->path[b->path_len] = '\0';
}

static void path_push_index(builder *b, int i)
{
    char tmp[16];
    int n = snprintf(tmp, sizeof tmp, "%d", i);
    path_push_key(b, tmp, (size_t)n);
}

static int fail(builder *b, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(builder *b, int code, const char *fmt, ...)
{
    if (b->err) {
        b->err->code = code;
        size_t n = b->path_len < sizeof b->err->pointer ? b->path_len : sizeof b->err->pointer - 1;
        memcpy(b->err->pointer, b->path, n);
        b->err->pointer[n] = '\0';
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(b->err->message, sizeof b->err->message, fmt, ap);
        va_end(ap);
        /* printable ASCII only: noise_spec_parse quotes what was sent */
        for (char *c = b->err->message; *c; c++)
            if (*c < 0x20 || *c > 0x7e)
                *c = '?';
    }
    return code;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int same_spec(const noise_spec *a, const noise_spec *b)
{
    return a->kind == b->kind && a->seed == b->seed && same_bits(a->frequency, b->frequency) &&
           a->octaves == b->octaves && same_bits(a->lacunarity, b->lacunarity) && same_bits(a->gain, b->gain) &&
           a->fractal == b->fractal && same_bits(a->warp, b->warp) && a->has_t == b->has_t &&
           same_bits(a->t, b->t) && a->lattice == b->lattice && a->distance == b->distance &&
           a->cell_return == b->cell_return && same_bits(a->jitter, b->jitter) &&
           same_bits(a->period, b->period) && a->fade == b->fade && a->gradients == b->gradients &&
           a->falloff == b->falloff;
}

static int same_node(const ng_node *a, const ng_node *b)
{
    if (a->op != b->op || a->n_in != b->n_in || a->seed != b->seed || a->n_pts != b->n_pts)
        return 0;
    for (int i = 0; i < a->n_in; i++)
        if (a->in[i] != b->in[i])
            return 0;
    for (int i = 0; i < NG_MAX_PARAMS; i++)
        if (!same_bits(a->p[i], b->p[i]))
            return 0;
    int n_vals = a->op == NG_CURVE ? 2 * a->n_pts : a->n_pts;
    for (int i = 0; i < n_vals; i++)
        if (!same_bits(a->pts[i], b->pts[i]))
            return 0;
    return a->op != NG_SOURCE || same_spec(&a->spec, &b->spec);
}

/* The node's index: an equal node's, or a new one appended. */
static int intern(builder *b, const ng_node *nd)
{
    int d = 1;
    for (int i = 0; i < nd->n_in; i++)
        if (b->depth[nd->in[i]] + 1 > d)
            d = b->depth[nd->in[i]] + 1;
    for (int i = 0; i < b->n; i++)
        if (same_node(&b->nodes[i], nd))
            return i;
    if (d > NOISE_GRAPH_MAX_DEPTH)
        return fail(b, NOISE_GRAPH_ELIMIT,
                    "the graph is more than %d nodes deep at this %s node (its longest input chain is %d nodes)",
                    NOISE_GRAPH_MAX_DEPTH, ng_node_name(nd), d);
    if (b->n == NOISE_GRAPH_MAX_NODES)
        return fail(b, NOISE_GRAPH_ELIMIT,
                    "the graph has more than %d distinct nodes (identical sub-graphs count once)",
                    NOISE_GRAPH_MAX_NODES);
    if (b->n == b->cap) {
        int cap = b->cap ? b->cap * 2 : 16;
        if (cap > NOISE_GRAPH_MAX_NODES)
            cap = NOISE_GRAPH_MAX_NODES;
        ng_node *nodes = realloc(b->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes)
            return fail(b, NOISE_GRAPH_ENOMEM, "out of memory building the graph");
        b->nodes = nodes;
        int *depth = realloc(b->depth, (size_t)cap * sizeof *depth);
        if (!depth)
            return fail(b, NOISE_GRAPH_ENOMEM, "out of memory building the graph");
        b->depth = depth;
        b->cap = cap;
    }
    b->nodes[b->n] = *nd;
    b->depth[b->n] = d;
    return b->n++;
}

static const char *jtype_name(ng_jtype t)
{
    switch (t) {
    case NG_J_NULL: return "null";
    case NG_J_FALSE:
    case NG_J_TRUE: return "a boolean";
    case NG_J_NUMBER: return "a number";
    case NG_J_STRING: return "a string";
    case NG_J_ARRAY: return "an array";
    case NG_J_OBJECT: return "an object";
    default: return "a reference";
    }
}

/* "a number in (0, 1e6]", "an integer in 0..16", "a finite number" */
static void describe(const ng_pdef *d, char *out, size_t size)
{
    char lo[32], hi[32];
    if (d->kind == PK_SEED) {
        snprintf(out, size, "an integer in -2147483648..4294967295");
        return;
    }
    if (d->kind == PK_BOOL) {
        snprintf(out, size, "true or false");
        return;
    }
    if (d->kind == PK_WORD) {
        snprintf(out, size, "one of fbm, ridged, turbulence, pingpong");
        return;
    }
    if (d->lo == -DBL_MAX && d->hi == DBL_MAX) {
        snprintf(out, size, "a finite number");
        return;
    }
    if (d->hi == DBL_MAX) {
        noise_format_double(d->lo, lo, sizeof lo);
        snprintf(out, size, "a finite number %s %s", d->lo_ex ? ">" : ">=", lo);
        return;
    }
    noise_format_double(d->lo, lo, sizeof lo);
    noise_format_double(d->hi, hi, sizeof hi);
    if (d->kind == PK_INT)
        snprintf(out, size, "an integer in %s..%s", lo, hi);
    else
        snprintf(out, size, "a %snumber in %c%s, %s%c", d->nonzero ? "nonzero " : "", d->lo_ex ? '(' : '[', lo, hi,
                 d->hi_ex ? ')' : ']');
}

/* How a value was written, for messages: its text or its type. */
static void written_as(const ng_jval *v, char *out, size_t size)
{
    if (v->type == NG_J_NUMBER || v->type == NG_J_STRING) {
        char s[48];
        shown(v->str, v->str_len, s, sizeof s);
        snprintf(out, size, v->type == NG_J_STRING ? "the string '%s'" : "%s", s);
    } else {
        snprintf(out, size, "%s", jtype_name(v->type));
    }
}

static int param_fail(builder *b, const char *node, const ng_pdef *d, const ng_jval *v)
{
    char range[128], got[80];
    describe(d, range, sizeof range);
    written_as(v, got, sizeof got);
    return fail(b, NOISE_GRAPH_EPARAM, "%s: %s must be %s, got %s", node, d->name, range, got);
}

/* A number value in range: into *out (-0 read as 0). */
static int read_number(builder *b, const char *node, const ng_pdef *d, const ng_jval *v, double *out)
{
    if (d->kind == PK_BOOL) {
        if (v->type == NG_J_TRUE || v->type == NG_J_FALSE) {
            *out = v->type == NG_J_TRUE;
            return 0;
        }
        if (v->type == NG_J_NUMBER && (v->num == 0 || v->num == 1)) {
            *out = v->num == 1;
            return 0;
        }
        return param_fail(b, node, d, v);
    }
    if (d->kind == PK_WORD) {
        if (v->type == NG_J_STRING)
            for (int i = 0; fractal_types[i]; i++)
                if (strlen(fractal_types[i]) == v->str_len && memcmp(fractal_types[i], v->str, v->str_len) == 0) {
                    *out = i;
                    return 0;
                }
        return param_fail(b, node, d, v);
    }
    if (v->type != NG_J_NUMBER)
        return param_fail(b, node, d, v);
    double x = v->num;
    if (x == 0)
        x = 0.0;
    if (!isfinite(x))
        return param_fail(b, node, d, v);
    if (d->kind == PK_SEED) {
        if (x != floor(x) || x < -2147483648.0 || x > 4294967295.0)
            return param_fail(b, node, d, v);
        *out = x;
        return 0;
    }
    if ((d->kind == PK_INT && x != floor(x)) || x < d->lo || x > d->hi || (d->lo_ex && x == d->lo) ||
        (d->hi_ex && x == d->hi) || (d->nonzero && x == 0))
        return param_fail(b, node, d, v);
    *out = x;
    return 0;
}

static uint32_t seed_of(double x)
{
    return x < 0 ? (uint32_t)(int64_t)x : (uint32_t)x;
}

/* Points of curve (pairs) or terrace (values): flat numbers, or for curve
 * also [[x, y], ...]. */
static int read_points(builder *b, const char *node, const ng_pdef *d, const ng_jval *v, ng_node *nd)
{
    const ng_jval *J = b->doc->v;
    int pairs = d->kind == PK_PAIRS;
    if (v->type != NG_J_ARRAY)
        return fail(b, NOISE_GRAPH_EPARAM, "%s: points must be an array of %s, got %s", node,
                    pairs ? "[x, y] pairs" : "numbers", jtype_name(v->type));
    double vals[2 * NOISE_GRAPH_MAX_POINTS];
    int n_vals = 0;
    int nested = pairs && v->count > 0 && J[v->first].type == NG_J_ARRAY;
    int n_points = pairs && !nested ? v->count / 2 : v->count;
    if (n_points > NOISE_GRAPH_MAX_POINTS)
        return fail(b, NOISE_GRAPH_ELIMIT, "%s: at most %d points, got %d", node, NOISE_GRAPH_MAX_POINTS, n_points);
    if (pairs && !nested && v->count % 2)
        return fail(b, NOISE_GRAPH_EPARAM,
                    "%s: points must be [x, y] pairs (or x0, y0, x1, y1, ...: an even count), got %d numbers", node,
                    v->count);
    int idx = 0;
    for (int e = v->first; e >= 0; e = J[e].next, idx++) {
        int one[2] = { e, -1 };
        int n_one = 1;
        if (nested) {
            if (J[e].type != NG_J_ARRAY || J[e].count != 2)
                return path_push_index(b, idx),
                       fail(b, NOISE_GRAPH_EPARAM, "%s: each point must be an [x, y] pair, got %s", node,
                            J[e].type == NG_J_ARRAY ? "an array of another length" : jtype_name(J[e].type));
            one[0] = J[e].first;
            one[1] = J[one[0]].next;
            n_one = 2;
        }
        for (int k = 0; k < n_one; k++) {
            const ng_jval *x = &J[one[k]];
            if (x->type != NG_J_NUMBER || !isfinite(x->num)) {
                char got[80];
                written_as(x, got, sizeof got);
                path_push_index(b, idx);
                if (nested)
                    path_push_index(b, k);
                return fail(b, NOISE_GRAPH_EPARAM, "%s: points must be finite numbers, got %s", node, got);
            }
            vals[n_vals++] = x->num == 0 ? 0.0 : x->num;
        }
    }
    int stride = pairs ? 2 : 1;
    n_points = n_vals / stride;
    if (n_points < 2)
        return fail(b, NOISE_GRAPH_EPARAM, "%s: points needs at least 2 points, got %d", node, n_points);
    for (int i = 1; i < n_points; i++)
        if (!(vals[i * stride] > vals[(i - 1) * stride])) {
            char a[32], c[32];
            noise_format_double(vals[(i - 1) * stride], a, sizeof a);
            noise_format_double(vals[i * stride], c, sizeof c);
            path_push_index(b, nested || !pairs ? i : 2 * i);
            return fail(b, NOISE_GRAPH_EPARAM,
                        "%s: the points' x must be strictly increasing, got %s after %s (point %d)", node, c, a, i);
        }
    memcpy(nd->pts, vals, (size_t)n_vals * sizeof *vals);
    nd->n_pts = n_points;
    return 0;
}

static int build(builder *b, int vi, int level);

/* A source node: its parameters through noise_spec_parse. */
static int build_source(builder *b, const ng_jval *obj, noise_kind kind, ng_node *nd)
{
    const ng_jval *J = b->doc->v;
    const char *kname = noise_kind_name(kind);
    size_t n_params;
    const noise_param *params = noise_params(&n_params);
    const char *names[MAX_MEMBERS];
    char *values[MAX_MEMBERS];
    int where[MAX_MEMBERS];
    int n = 0, rc = 0;
    size_t base = b->path_len;
    for (int m = obj->first; m >= 0; m = J[m].next) {
        const ng_jval *v = &J[m];
        if (key_is(v, "node") || key_is(v, "inputs"))
            continue;
        path_push_key(b, v->key, v->key_len);
        if (key_is(v, "seed")) {
            double s;
            rc = read_number(b, kname, &source_seed, v, &s);
            if (rc < 0)
                goto out;
            nd->seed = seed_of(s);
        } else {
            const noise_param *p = NULL;
            for (size_t k = 0; k < n_params; k++)
                if (key_is(v, params[k].name))
                    p = &params[k];
            if (p && p->type == NOISE_PARAM_ENUM && v->type != NG_J_STRING) {
                char got[80];
                written_as(v, got, sizeof got);
                rc = fail(b, NOISE_GRAPH_EPARAM, "%s: %s must be a word (a string), got %s", kname, p->name, got);
                goto out;
            }
            if (p && p->type != NOISE_PARAM_ENUM && v->type != NG_J_NUMBER) {
                char got[80];
                written_as(v, got, sizeof got);
                rc = fail(b, NOISE_GRAPH_EPARAM, "%s: %s must be a number, got %s", kname, p->name, got);
                goto out;
            }
            /* unknown names go to noise_spec_parse for its message */
            const char *text = v->type == NG_J_NUMBER || v->type == NG_J_STRING ? v->str : "";
            size_t text_len = v->type == NG_J_NUMBER || v->type == NG_J_STRING ? v->str_len : 0;
            char *copy = malloc(text_len + 1);
            char *name = malloc(v->key_len + 1);
            if (!copy || !name) {
                free(copy);
                free(name);
                rc = fail(b, NOISE_GRAPH_ENOMEM, "out of memory building the graph");
                goto out;
            }
            memcpy(copy, text, text_len);
            copy[text_len] = '\0';
            memcpy(name, v->key, v->key_len);
            name[v->key_len] = '\0';
            /* a NUL (\u0000) inside: no parameter name or word has one */
            for (size_t c = 0; c < text_len; c++)
                copy[c] = copy[c] ? copy[c] : '?';
            for (size_t c = 0; c < v->key_len; c++)
                name[c] = name[c] ? name[c] : '?';
            names[n] = name;
            values[n] = copy;
            where[n] = m;
            n++;
        }
        b->path_len = base;
        b->path[base] = '\0';
    }
    char msg[400];
    rc = noise_spec_parse(&nd->spec, kind, 0, (size_t)n, names, (const char *const *)values, msg, sizeof msg);
    if (rc < 0) {
        /* the first parameter whose prefix fails is the one to point at */
        int bad = n - 1;
        for (int k = 1; k < n; k++) {
            noise_spec tmp;
            if (noise_spec_parse(&tmp, kind, 0, (size_t)k, names, (const char *const *)values, NULL, 0) < 0) {
                bad = k - 1;
                break;
            }
        }
        if (bad >= 0)
            path_push_key(b, J[where[bad]].key, J[where[bad]].key_len);
        rc = fail(b, NOISE_GRAPH_EPARAM, "%s: %s", kname, msg);
        goto out;
    }
    nd->spec.seed = 0;
    if (nd->spec.t == 0)
        nd->spec.t = 0.0;
    rc = 0;
out:
    for (int k = 0; k < n; k++) {
        free((void *)names[k]);
        free(values[k]);
    }
    b->path_len = base;
    b->path[base] = '\0';
    return rc;
}

static int build_object(builder *b, int vi, int level)
{
    const ng_jval *J = b->doc->v;
    const ng_jval *obj = &J[vi];
    size_t base = b->path_len;
    int ord = -1;
    if (b->from_text) {
        if (b->n_ord == b->ord_cap) {
            int cap = b->ord_cap ? b->ord_cap * 2 : 64;
            int *o = realloc(b->ord, (size_t)cap * sizeof *o);
            if (!o)
                return fail(b, NOISE_GRAPH_ENOMEM, "out of memory building the graph");
            b->ord = o;
            b->ord_cap = cap;
        }
        ord = b->n_ord++;
        b->ord[ord] = -1;
    }
    if (obj->count > MAX_MEMBERS)
        return fail(b, NOISE_GRAPH_EPARAM, "a node has at most %d keys, this one has %d", MAX_MEMBERS, obj->count);
    /* duplicate keys */
    for (int m = obj->first; m >= 0; m = J[m].next)
        for (int o = obj->first; o != m; o = J[o].next)
            if (J[o].key_len == J[m].key_len && memcmp(J[o].key, J[m].key, J[m].key_len) == 0) {
                char k[48];
                shown(J[m].key, J[m].key_len, k, sizeof k);
                path_push_key(b, J[m].key, J[m].key_len);
                return fail(b, NOISE_GRAPH_EPARAM, "'%s' is given twice in one node", k);
            }
    int name_v = -1, inputs_v = -1;
    for (int m = obj->first; m >= 0; m = J[m].next) {
        if (key_is(&J[m], "node"))
            name_v = m;
        else if (key_is(&J[m], "inputs"))
            inputs_v = m;
    }
    char names[400];
    if (name_v < 0) {
        all_names(names, sizeof names);
        return fail(b, NOISE_GRAPH_ENODE, "a node object needs \"node\": its name, one of %s", names);
    }
    if (J[name_v].type != NG_J_STRING) {
        path_push_key(b, "node", 4);
        return fail(b, NOISE_GRAPH_ENODE, "\"node\" must be a node name (a string), got %s",
                    jtype_name(J[name_v].type));
    }
    ng_op op;
    noise_kind kind = NOISE_VALUE;
    if (op_from_name(J[name_v].str, J[name_v].str_len, &op, &kind) < 0) {
        char s[48];
        shown(J[name_v].str, J[name_v].str_len, s, sizeof s);
        all_names(names, sizeof names);
        path_push_key(b, "node", 4);
        return fail(b, NOISE_GRAPH_ENODE, "unknown node '%s'; nodes: %s", s, names);
    }
    const ng_opdef *def = &ops[op];
    const char *nname = op == NG_SOURCE ? noise_kind_name(kind) : def->name;
    ng_node nd;
    memset(&nd, 0, sizeof nd);
    nd.op = op;
    /* inputs */
    int n_in = 0;
    if (inputs_v >= 0) {
        const ng_jval *in = &J[inputs_v];
        if (in->type != NG_J_ARRAY) {
            path_push_key(b, "inputs", 6);
            return fail(b, NOISE_GRAPH_EINPUTS, "%s: inputs must be an array, got %s", nname, jtype_name(in->type));
        }
        n_in = in->count;
    }
    if (n_in < def->min_in || n_in > def->max_in) {
        if (inputs_v >= 0)
            path_push_key(b, "inputs", 6);
        int limit = def->max_in == NOISE_GRAPH_MAX_INPUTS && n_in > def->max_in;
        if (def->max_in == 0)
            return fail(b, NOISE_GRAPH_EINPUTS, "%s takes no inputs, got %d", nname, n_in);
        if (def->min_in == def->max_in)
            return fail(b, NOISE_GRAPH_EINPUTS, "%s takes %d input%s, got %d", nname, def->min_in,
                        def->min_in == 1 ? "" : "s", n_in);
        return fail(b, limit ? NOISE_GRAPH_ELIMIT : NOISE_GRAPH_EINPUTS, "%s takes %d to %d inputs, got %d", nname,
                    def->min_in, def->max_in, n_in);
    }
    if (n_in > 0) {
        int idx = 0;
        for (int e = J[inputs_v].first; e >= 0; e = J[e].next, idx++) {
            path_push_key(b, "inputs", 6);
            path_push_index(b, idx);
            int r = build(b, e, level + 1);
            if (r < 0)
                return r;
            b->path_len = base;
            b->path[base] = '\0';
            nd.in[idx] = r;
        }
        nd.n_in = n_in;
    }
    /* parameters */
    int rc;
    int seen[5] = { 0 };
    if (op == NG_SOURCE) {
        rc = build_source(b, obj, kind, &nd);
        if (rc < 0)
            return rc;
    } else {
        for (int k = 0; k < def->n_p; k++)
            if (def->p[k].slot >= 0)
                nd.p[def->p[k].slot] = def->p[k].def;
        if (op == NG_FRACTAL)
            nd.p[4] = 2;
        for (int m = obj->first; m >= 0; m = J[m].next) {
            if (m == name_v || m == inputs_v)
                continue;
            int k = 0;
            while (k < def->n_p && !key_is(&J[m], def->p[k].name))
                k++;
            path_push_key(b, J[m].key, J[m].key_len);
            if (k == def->n_p) {
                char s[48], known[160] = "";
                size_t used = 0;
                shown(J[m].key, J[m].key_len, s, sizeof s);
                for (int q = 0; q < def->n_p; q++)
                    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", q ? ", " : "",
                                             def->p[q].name);
                if (def->n_p == 0)
                    return fail(b, NOISE_GRAPH_EPARAM, "%s: unknown parameter '%s'; %s takes no parameters", nname, s,
                                nname);
                return fail(b, NOISE_GRAPH_EPARAM, "%s: unknown parameter '%s'; known: %s", nname, s, known);
            }
            const ng_pdef *d = &def->p[k];
            seen[k] = 1;
            if (d->kind == PK_POINTS || d->kind == PK_PAIRS) {
                rc = read_points(b, nname, d, &J[m], &nd);
            } else {
                double x;
                rc = read_number(b, nname, d, &J[m], &x);
                if (rc == 0) {
                    if (d->kind == PK_SEED)
                        nd.seed = seed_of(x);
                    else
                        nd.p[d->slot] = x;
                }
            }
            if (rc < 0)
                return rc;
            b->path_len = base;
            b->path[base] = '\0';
        }
        for (int k = 0; k < def->n_p; k++)
            if (def->p[k].required && !seen[k])
                return fail(b, NOISE_GRAPH_EPARAM, "%s needs the parameter %s", nname, def->p[k].name);
        /* rules between parameters: point at the second one when given */
#define POINT_AT(k1, k0) path_push_key(b, def->p[seen[k1] ? k1 : k0].name, strlen(def->p[seen[k1] ? k1 : k0].name))
        char a[32], c[32];
        if (op == NG_CLAMP && nd.p[0] > nd.p[1]) {
            noise_format_double(nd.p[0], a, sizeof a);
            noise_format_double(nd.p[1], c, sizeof c);
            POINT_AT(1, 0);
            return fail(b, NOISE_GRAPH_EPARAM, "clamp: min must be at most max, got min %s and max %s", a, c);
        }
        if (op == NG_REMAP && nd.p[0] == nd.p[1]) {
            noise_format_double(nd.p[0], a, sizeof a);
            POINT_AT(1, 0);
            return fail(b, NOISE_GRAPH_EPARAM, "remap: from_min and from_max must differ, both are %s", a);
        }
        if (op == NG_SELECT && nd.p[0] > nd.p[1]) {
            noise_format_double(nd.p[0], a, sizeof a);
            noise_format_double(nd.p[1], c, sizeof c);
            POINT_AT(1, 0);
            return fail(b, NOISE_GRAPH_EPARAM, "select: lower must be at most upper, got lower %s and upper %s", a,
                        c);
        }
        if (op == NG_SELECT && nd.p[2] > (nd.p[1] - nd.p[0]) / 2) {
            noise_format_double(nd.p[2], a, sizeof a);
            noise_format_double((nd.p[1] - nd.p[0]) / 2, c, sizeof c);
            POINT_AT(2, 2);
            return fail(b, NOISE_GRAPH_EPARAM,
                        "select: falloff must be at most (upper - lower) / 2 = %s, got %s", c, a);
        }
        if (op == NG_FRACTAL && seen[4] && nd.p[0] != NG_FRACTAL_PINGPONG) {
            POINT_AT(4, 4);
            return fail(b, NOISE_GRAPH_EPARAM, "fractal: strength applies only to type pingpong, the type is %s",
                        fractal_types[(int)nd.p[0]]);
        }
#undef POINT_AT
    }
    int idx = intern(b, &nd);
    if (idx >= 0 && ord >= 0)
        b->ord[ord] = idx;
    return idx;
}

/* The node index of the input value vi (a node object, a number, a name,
 * a text reference). */
static int build(builder *b, int vi, int level)
{
    const ng_jval *v = &b->doc->v[vi];
    if (level > NOISE_GRAPH_MAX_DEPTH)
        return fail(b, NOISE_GRAPH_ELIMIT, "the graph is more than %d nodes deep here (its longest input chain may "
                                           "have at most %d nodes)",
                    NOISE_GRAPH_MAX_DEPTH, NOISE_GRAPH_MAX_DEPTH);
    switch (v->type) {
    case NG_J_OBJECT: return build_object(b, vi, level);
    case NG_J_NUMBER: {
        if (!isfinite(v->num)) {
            char s[48];
            shown(v->str, v->str_len, s, sizeof s);
            return fail(b, NOISE_GRAPH_EPARAM, "a constant must be a finite number, got %s", s);
        }
        ng_node nd;
        memset(&nd, 0, sizeof nd);
        nd.op = NG_CONSTANT;
        nd.p[0] = v->num == 0 ? 0.0 : v->num;
        return intern(b, &nd);
    }
    case NG_J_STRING: {
        char s[48];
        shown(v->str, v->str_len, s, sizeof s);
        if (b->nodes_obj < 0)
            return fail(b, NOISE_GRAPH_EINPUTS,
                        "an input must be a node object or a number, got the string '%s' (names refer to entries "
                        "of a top-level \"nodes\" object, and this document has none)",
                        s);
        const ng_jval *J = b->doc->v;
        int k = 0, m;
        for (m = J[b->nodes_obj].first; m >= 0; m = J[m].next, k++)
            if (J[m].key_len == v->str_len && memcmp(J[m].key, v->str, v->str_len) == 0)
                break;
        if (m < 0)
            return fail(b, NOISE_GRAPH_EINPUTS, "no node named '%s' in \"nodes\"", s);
        if (b->named[k] == -1)
            return fail(b, NOISE_GRAPH_ECYCLE, "the named node '%s' refers to itself through its inputs", s);
        if (b->named[k] >= 0) {
            /* built already: its depth must still fit here */
            if (level - 1 + b->depth[b->named[k]] > NOISE_GRAPH_MAX_DEPTH)
                return fail(b, NOISE_GRAPH_ELIMIT,
                            "the graph is more than %d nodes deep here (the named node '%s' is %d deep)",
                            NOISE_GRAPH_MAX_DEPTH, s, b->depth[b->named[k]]);
            return b->named[k];
        }
        /* names naming names: bounded, as the stack is */
        if (++b->hops > MAX_HOPS)
            return fail(b, NOISE_GRAPH_ELIMIT, "named nodes refer to named nodes more than %d deep here", MAX_HOPS);
        size_t saved_len = b->path_len;
        char *saved = malloc(saved_len + 1);
        if (!saved)
            return fail(b, NOISE_GRAPH_ENOMEM, "out of memory building the graph");
        memcpy(saved, b->path, saved_len + 1);
        b->path_len = 0;
        b->path[0] = '\0';
        path_push_key(b, "nodes", 5);
        path_push_key(b, J[m].key, J[m].key_len);
        b->named[k] = -1;
        int r = build(b, m, level);
        if (r >= 0) {
            b->named[k] = r;
            memcpy(b->path, saved, saved_len + 1);
            b->path_len = saved_len;
        }
        free(saved);
        b->hops--;
        return r;
    }
    case NG_J_REF: {
        int n = (int)v->num;
        if (v->num >= b->n_ord || v->num < 0)
            return fail(b, NOISE_GRAPH_EINPUTS, "$%.0f refers to a node not written before it", v->num);
        if (b->ord[n] < 0)
            return fail(b, NOISE_GRAPH_ECYCLE, "$%d refers to a node that contains it", n);
        return b->ord[n];
    }
    default:
        return fail(b, NOISE_GRAPH_EINPUTS, "an input must be a node object, a number or a node's name, got %s",
                    jtype_name(v->type));
    }
}

static void builder_free(builder *b)
{
    free(b->nodes);
    free(b->depth);
    free(b->named);
    free(b->ord);
}

static noise_graph *finish(builder *b)
{
    noise_graph *g = malloc(sizeof *g);
    if (!g) {
        fail(b, NOISE_GRAPH_ENOMEM, "out of memory building the graph");
        builder_free(b);
        return NULL;
    }
    g->n = b->n;
    g->nodes = b->nodes;
    g->depth = b->depth[b->n - 1];
    for (int i = 0; i < b->n; i++)
        if (b->depth[i] > g->depth)
            g->depth = b->depth[i];
    b->nodes = NULL;
    builder_free(b);
    return g;
}

/* Entries of "nodes" that the output does not use are checked all the
 * same (built into a scratch array, then dropped): an error in one is an
 * error of the document. */
static int check_unused(builder *b)
{
    const ng_jval *J = b->doc->v;
    builder s;
    memset(&s, 0, sizeof s);
    s.doc = b->doc;
    s.err = b->err;
    s.nodes_obj = b->nodes_obj;
    int count = J[b->nodes_obj].count;
    s.named = malloc((size_t)(count + 1) * sizeof *s.named);
    if (!s.named)
        return fail(b, NOISE_GRAPH_ENOMEM, "out of memory building the graph");
    for (int k = 0; k < count; k++)
        s.named[k] = -2;
    int rc = 0, k = 0;
    for (int m = J[b->nodes_obj].first; m >= 0 && rc >= 0; m = J[m].next, k++) {
        if (b->named[k] != -2 || s.named[k] != -2)
            continue;
        s.path_len = 0;
        s.path[0] = '\0';
        path_push_key(&s, "nodes", 5);
        path_push_key(&s, J[m].key, J[m].key_len);
        s.named[k] = -1;
        int r = build(&s, m, 1);
        if (r < 0)
            rc = r;
        else
            s.named[k] = r;
    }
    builder_free(&s);
    return rc;
}

/* The graph of a value tree's root (a JSON document or a text's tree). */
static noise_graph *build_graph(const ng_jdoc *doc, int root, int from_text, noise_graph_error *err)
{
    builder b;
    memset(&b, 0, sizeof b);
    b.doc = doc;
    b.err = err;
    b.from_text = from_text;
    b.nodes_obj = -1;
    const ng_jval *J = doc->v;
    int out = root;
    if (!from_text && J[root].type == NG_J_OBJECT) {
        int node_k = -1, nodes_k = -1, output_k = -1;
        for (int m = J[root].first; m >= 0; m = J[m].next) {
            if (key_is(&J[m], "node"))
                node_k = m;
            else if (key_is(&J[m], "nodes"))
                nodes_k = m;
            else if (key_is(&J[m], "output"))
                output_k = m;
        }
        if (node_k < 0 && (output_k >= 0 || nodes_k >= 0)) {
            for (int m = J[root].first; m >= 0; m = J[m].next) {
                int dup = 0;
                for (int o = J[root].first; o != m; o = J[o].next)
                    dup |= J[o].key_len == J[m].key_len && memcmp(J[o].key, J[m].key, J[m].key_len) == 0;
                if (dup || (m != nodes_k && m != output_k)) {
                    char s[48];
                    shown(J[m].key, J[m].key_len, s, sizeof s);
                    path_push_key(&b, J[m].key, J[m].key_len);
                    fail(&b, NOISE_GRAPH_ESYNTAX,
                         dup ? "'%s' is given twice" : "unknown key '%s': a graph document has \"nodes\" and \"output\"",
                         s);
                    return NULL;
                }
            }
            if (output_k < 0) {
                fail(&b, NOISE_GRAPH_ESYNTAX, "a graph document with \"nodes\" needs \"output\": its root node");
                return NULL;
            }
            if (nodes_k >= 0) {
                const ng_jval *nv = &J[nodes_k];
                path_push_key(&b, "nodes", 5);
                if (nv->type != NG_J_OBJECT) {
                    fail(&b, NOISE_GRAPH_ESYNTAX, "\"nodes\" must be an object {name: node, ...}, got %s",
                         jtype_name(nv->type));
                    return NULL;
                }
                if (nv->count > MAX_NAMED) {
                    fail(&b, NOISE_GRAPH_ELIMIT, "\"nodes\" may name at most %d nodes, got %d", MAX_NAMED, nv->count);
                    return NULL;
                }
                for (int m = nv->first; m >= 0; m = J[m].next)
                    for (int o = nv->first; o != m; o = J[o].next)
                        if (J[o].key_len == J[m].key_len && memcmp(J[o].key, J[m].key, J[m].key_len) == 0) {
                            char s[48];
                            shown(J[m].key, J[m].key_len, s, sizeof s);
                            path_push_key(&b, J[m].key, J[m].key_len);
                            fail(&b, NOISE_GRAPH_ESYNTAX, "the node name '%s' is given twice in \"nodes\"", s);
                            return NULL;
                        }
                b.path_len = 0;
                b.path[0] = '\0';
                b.nodes_obj = nodes_k;
                b.named = malloc((size_t)(nv->count + 1) * sizeof *b.named);
                if (!b.named) {
                    fail(&b, NOISE_GRAPH_ENOMEM, "out of memory building the graph");
                    return NULL;
                }
                for (int k = 0; k < nv->count; k++)
                    b.named[k] = -2;
            }
            path_push_key(&b, "output", 6);
            out = output_k;
        }
    }
    if (!from_text && J[out].type != NG_J_OBJECT && J[out].type != NG_J_NUMBER && J[out].type != NG_J_STRING) {
        fail(&b, NOISE_GRAPH_ESYNTAX, "a graph is a node object, a number or a document {\"nodes\": ..., \"output\": "
                                      "...}, got %s",
             jtype_name(J[out].type));
        builder_free(&b);
        return NULL;
    }
    int r = build(&b, out, 1);
    if (r < 0) {
        builder_free(&b);
        return NULL;
    }
    if (b.nodes_obj >= 0 && check_unused(&b) < 0) {
        builder_free(&b);
        return NULL;
    }
    return finish(&b);
}

/* ---- the canonical text ---- */

typedef void (*param_fn)(void *ctx, const noise_param *p, const char *value, size_t len);
static int source_params(const ng_node *nd, int with_defaults, param_fn fn, void *ctx);


/* A node written as its bare name: no inputs, every parameter at its default. */
static int is_bare(const ng_node *nd)
{
    if (nd->op == NG_CONSTANT || nd->n_in > 0)
        return 0;
    if (nd->op == NG_SOURCE)
        return nd->seed == 0 && source_params(nd, 0, NULL, NULL) == 0;
    const ng_opdef *def = &ops[nd->op];
    for (int k = 0; k < def->n_p; k++)
        if (def->p[k].slot >= 0 && !same_bits(nd->p[def->p[k].slot], def->p[k].def))
            return 0;
    return 1;
}

/* "name=value" pairs of noise_spec_canonical: finds name's value in text. */
static const char *canon_value(const char *text, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (const char *p = text; *p;) {
        const char *amp = strchr(p, '&');
        size_t piece = amp ? (size_t)(amp - p) : strlen(p);
        if (piece > nl && memcmp(p, name, nl) == 0 && p[nl] == '=') {
            *len = piece - nl - 1;
            return p + nl + 1;
        }
        p += piece;
        if (*p == '&')
            p++;
    }
    return NULL;
}


/* A parameter's value in a spec's canonical text, or its default where the
 * text leaves it out; NULL for an optional parameter that is absent. */
static const char *param_value(const char *text, const noise_param *p, char *num, size_t *len)
{
    const char *v = canon_value(text, p->name, len);
    if (v || p->optional)
        return v;
    if (p->type == NOISE_PARAM_ENUM) {
        *len = strlen(p->default_choice);
        return p->default_choice;
    }
    int n = noise_format_double(p->default_number, num, 40);
    *len = n > 0 ? (size_t)n : 0;
    return num;
}

/* Calls fn on each parameter of the source in canonical order (those that
 * apply to its kind; optional ones when present), with its value text;
 * with_defaults 0: only those that differ from the kind's default. Returns
 * how many. */
static int source_params(const ng_node *nd, int with_defaults, param_fn fn, void *ctx)
{
    char text[512], dtext[512];
    noise_spec def;
    noise_spec_default(&def, nd->spec.kind, 0);
    if (noise_spec_canonical(&nd->spec, text, sizeof text) < 0)
        text[0] = '\0';
    if (noise_spec_canonical(&def, dtext, sizeof dtext) < 0)
        dtext[0] = '\0';
    size_t n_params;
    const noise_param *params = noise_params(&n_params);
    int written = 0;
    for (size_t k = 0; k < n_params; k++) {
        const noise_param *p = &params[k];
        if (!noise_param_applies(p, nd->spec.kind))
            continue;
        char num[40], dnum[40];
        size_t len = 0, dlen = 0;
        const char *v = param_value(text, p, num, &len);
        const char *dv = param_value(dtext, p, dnum, &dlen);
        if (!v)
            continue;
        if (!with_defaults && dv && dlen == len && memcmp(dv, v, len) == 0)
            continue;
        if (fn)
            fn(ctx, p, v, len);
        written++;
    }
    return written;
}

typedef struct {
    const noise_graph *g;
    int *written; /* per node: its number in the text, -1 not written yet */
    int counter;
    sbuf *s;
} encoder;

static void text_param(void *ctx, const noise_param *p, const char *value, size_t len)
{
    sbuf *s = ctx;
    sb_str(s, ",");
    sb_str(s, p->name);
    sb_str(s, ":");
    sb_put(s, value, len);
}

static void encode_node(encoder *e, int i)
{
    const ng_node *nd = &e->g->nodes[i];
    sbuf *s = e->s;
    if (nd->op == NG_CONSTANT) {
        sb_num(s, nd->p[0]);
        return;
    }
    if (is_bare(nd)) {
        e->counter++;
        sb_str(s, ng_node_name(nd));
        return;
    }
    if (e->written[i] >= 0) {
        sb_printf(s, "$%d", e->written[i]);
        return;
    }
    e->written[i] = e->counter++;
    sb_str(s, ng_node_name(nd));
    sb_str(s, "(");
    size_t start = s->n;
    for (int k = 0; k < nd->n_in; k++) {
        if (k)
            sb_str(s, ",");
        encode_node(e, nd->in[k]);
    }
    if (nd->op == NG_SOURCE) {
        source_params(nd, 0, text_param, s);
        if (nd->seed)
            sb_printf(s, ",seed:%u", (unsigned)nd->seed);
    } else {
        const ng_opdef *def = &ops[nd->op];
        for (int k = 0; k < def->n_p; k++) {
            const ng_pdef *d = &def->p[k];
            if (d->kind == PK_SEED) {
                if (nd->seed)
                    sb_printf(s, ",%s:%u", d->name, (unsigned)nd->seed);
                continue;
            }
            if (d->kind == PK_POINTS || d->kind == PK_PAIRS) {
                sb_printf(s, ",%s:(", d->name);
                int n_vals = d->kind == PK_PAIRS ? 2 * nd->n_pts : nd->n_pts;
                for (int q = 0; q < n_vals; q++) {
                    if (q)
                        sb_str(s, ",");
                    sb_num(s, nd->pts[q]);
                }
                sb_str(s, ")");
                continue;
            }
            double v = nd->p[d->slot];
            if (!d->required && same_bits(v, d->def))
                continue;
            sb_printf(s, ",%s:", d->name);
            if (d->kind == PK_BOOL)
                sb_str(s, v != 0 ? "true" : "false");
            else if (d->kind == PK_WORD)
                sb_str(s, fractal_types[(int)v]);
            else
                sb_num(s, v);
        }
    }
    /* the parameters' loop wrote a ',' before each: the first one after
     * "(" goes */
    if (nd->n_in == 0 && s->n > start && !s->oom) {
        memmove(s->b + start, s->b + start + 1, s->n - start);
        s->n--;
    }
    sb_str(s, ")");
}

/* The canonical text into s; 0 or NOISE_GRAPH_ENOMEM. */
static int encode_sb(const noise_graph *g, sbuf *s)
{
    encoder e = { g, malloc((size_t)g->n * sizeof(int)), 0, s };
    if (!e.written)
        return NOISE_GRAPH_ENOMEM;
    for (int i = 0; i < g->n; i++)
        e.written[i] = -1;
    encode_node(&e, g->n - 1);
    free(e.written);
    if (!s->b)
        sb_put(s, "", 0);
    return s->oom ? NOISE_GRAPH_ENOMEM : 0;
}

static int copy_out(const sbuf *s, char *buf, size_t buf_size)
{
    if (s->n >= buf_size || s->n > (size_t)INT32_MAX) {
        if (buf && buf_size > 0)
            buf[0] = '\0';
        return NOISE_ENOSPACE;
    }
    memcpy(buf, s->b, s->n + 1);
    return (int)s->n;
}

int noise_graph_encode(const noise_graph *g, char *buf, size_t buf_size)
{
    sbuf s = { 0 };
    int rc = encode_sb(g, &s);
    if (rc == 0)
        rc = copy_out(&s, buf, buf_size);
    else
        rc = NOISE_ENOSPACE;
    free(s.b);
    return rc;
}

/* ---- the canonical JSON and node pointers ---- */

typedef struct {
    const noise_graph *g;
    int *shared; /* per node: its number in "nodes" (n0, n1...), or -1 */
    int n_shared;
} layout;

static int layout_init(layout *l, const noise_graph *g)
{
    l->g = g;
    l->n_shared = 0;
    int *refs = calloc((size_t)g->n, sizeof *refs);
    l->shared = malloc((size_t)g->n * sizeof *l->shared);
    if (!refs || !l->shared) {
        free(refs);
        free(l->shared);
        return -1;
    }
    for (int i = 0; i < g->n; i++)
        for (int k = 0; k < g->nodes[i].n_in; k++)
            refs[g->nodes[i].in[k]]++;
    for (int i = 0; i < g->n; i++)
        l->shared[i] = refs[i] >= 2 && g->nodes[i].op != NG_CONSTANT ? l->n_shared++ : -1;
    free(refs);
    return 0;
}

static void json_param(void *ctx, const noise_param *p, const char *value, size_t len)
{
    sbuf *s = ctx;
    sb_str(s, ",\"");
    sb_str(s, p->name);
    sb_str(s, "\":");
    if (p->type == NOISE_PARAM_ENUM)
        sb_str(s, "\"");
    sb_put(s, value, len);
    if (p->type == NOISE_PARAM_ENUM)
        sb_str(s, "\"");
}

static void json_input(const layout *l, sbuf *s, int i);

static void json_object(const layout *l, sbuf *s, int i)
{
    const ng_node *nd = &l->g->nodes[i];
    sb_str(s, "{\"node\":\"");
    sb_str(s, ng_node_name(nd));
    sb_str(s, "\"");
    if (nd->n_in > 0) {
        sb_str(s, ",\"inputs\":[");
        for (int k = 0; k < nd->n_in; k++) {
            if (k)
                sb_str(s, ",");
            json_input(l, s, nd->in[k]);
        }
        sb_str(s, "]");
    }
    if (nd->op == NG_SOURCE) {
        source_params(nd, 1, json_param, s);
        sb_printf(s, ",\"seed\":%u", (unsigned)nd->seed);
    } else {
        const ng_opdef *def = &ops[nd->op];
        for (int k = 0; k < def->n_p; k++) {
            const ng_pdef *d = &def->p[k];
            if (nd->op == NG_FRACTAL && k == 4 && nd->p[0] != NG_FRACTAL_PINGPONG)
                continue;
            sb_printf(s, ",\"%s\":", d->name);
            if (d->kind == PK_SEED) {
                sb_printf(s, "%u", (unsigned)nd->seed);
            } else if (d->kind == PK_POINTS || d->kind == PK_PAIRS) {
                sb_str(s, "[");
                for (int q = 0; q < nd->n_pts; q++) {
                    if (q)
                        sb_str(s, ",");
                    if (d->kind == PK_PAIRS) {
                        sb_str(s, "[");
                        sb_num(s, nd->pts[2 * q]);
                        sb_str(s, ",");
                        sb_num(s, nd->pts[2 * q + 1]);
                        sb_str(s, "]");
                    } else {
                        sb_num(s, nd->pts[q]);
                    }
                }
                sb_str(s, "]");
            } else if (d->kind == PK_BOOL) {
                sb_str(s, nd->p[d->slot] != 0 ? "true" : "false");
            } else if (d->kind == PK_WORD) {
                sb_printf(s, "\"%s\"", fractal_types[(int)nd->p[d->slot]]);
            } else {
                sb_num(s, nd->p[d->slot]);
            }
        }
    }
    sb_str(s, "}");
}

static void json_input(const layout *l, sbuf *s, int i)
{
    const ng_node *nd = &l->g->nodes[i];
    if (nd->op == NG_CONSTANT)
        sb_num(s, nd->p[0]);
    else if (l->shared[i] >= 0)
        sb_printf(s, "\"n%d\"", l->shared[i]);
    else
        json_object(l, s, i);
}

int noise_graph_to_json(const noise_graph *g, char *buf, size_t buf_size)
{
    layout l;
    if (layout_init(&l, g) < 0)
        return NOISE_ENOSPACE;
    sbuf s = { 0 };
    if (l.n_shared > 0) {
        sb_str(&s, "{\"nodes\":{");
        for (int i = 0; i < g->n; i++)
            if (l.shared[i] >= 0) {
                sb_printf(&s, "%s\"n%d\":", l.shared[i] ? "," : "", l.shared[i]);
                json_object(&l, &s, i);
            }
        sb_str(&s, "},\"output\":");
        json_object(&l, &s, g->n - 1);
        sb_str(&s, "}");
    } else {
        json_object(&l, &s, g->n - 1);
    }
    int rc = s.oom ? NOISE_ENOSPACE : copy_out(&s, buf, buf_size);
    free(s.b);
    free(l.shared);
    return rc;
}

/* Pointers of every node in the canonical JSON, in document order. */
static void pointer_walk(const layout *l, char (*ptr)[512], int i, const char *path)
{
    const ng_node *nd = &l->g->nodes[i];
    if (ptr[i][0] == '\0')
        snprintf(ptr[i], 512, "%s", path[0] ? path : "/");
    if (nd->op == NG_CONSTANT)
        return;
    for (int k = 0; k < nd->n_in; k++) {
        int c = nd->in[k];
        if (l->shared[c] >= 0)
            continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s/inputs/%d", path, k);
        pointer_walk(l, ptr, c, sub);
    }
}

int ng_node_pointer(const noise_graph *g, int i, char *buf, size_t buf_size)
{
    if (!g || i < 0 || i >= g->n || !buf || buf_size == 0)
        return NOISE_ENOSPACE;
    layout l;
    char(*ptr)[512] = calloc((size_t)g->n, sizeof *ptr);
    if (!ptr || layout_init(&l, g) < 0) {
        free(ptr);
        buf[0] = '\0';
        return 0;
    }
    for (int k = 0; k < g->n; k++)
        if (l.shared[k] >= 0) {
            char path[32];
            snprintf(path, sizeof path, "/nodes/n%d", l.shared[k]);
            pointer_walk(&l, ptr, k, path);
        }
    pointer_walk(&l, ptr, g->n - 1, l.n_shared > 0 ? "/output" : "");
    /* "/" stood for the root "" while walking */
    const char *p = strcmp(ptr[i], "/") == 0 ? "" : ptr[i];
    int n = snprintf(buf, buf_size, "%s", p);
    free(ptr);
    free(l.shared);
    return n < (int)buf_size ? n : (int)buf_size - 1;
}

/* ---- the text reader ---- */

typedef struct {
    const char *s;
    size_t len, i;
    ng_jdoc *doc;
    noise_graph_error *err;
} text_reader;

static int t_fail(text_reader *r, const char *what)
{
    if (r->i >= r->len)
        ng_error(r->err, NOISE_GRAPH_ESYNTAX, "", "undecodable graph text: %s at the end (character %zu)", what,
                 r->i + 1);
    else
        ng_error(r->err, NOISE_GRAPH_ESYNTAX, "", "undecodable graph text: %s at character %zu ('%c')", what,
                 r->i + 1, (r->s[r->i] >= 0x21 && r->s[r->i] < 0x7f) ? r->s[r->i] : '?');
    return NOISE_GRAPH_ESYNTAX;
}

static int t_oom(text_reader *r)
{
    ng_error(r->err, NOISE_GRAPH_ENOMEM, "", "out of memory reading the graph");
    return NOISE_GRAPH_ENOMEM;
}

static int t_is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int t_is_digit(char c) { return c >= '0' && c <= '9'; }
static int t_is_word(char c) { return t_is_alpha(c) || t_is_digit(c) || c == '-'; }

static void t_link(ng_jdoc *doc, int parent, int *last, int child)
{
    if (*last < 0)
        doc->v[parent].first = child;
    else
        doc->v[*last].next = child;
    *last = child;
    doc->v[parent].count++;
}

/* [-+]? digits [. digits] [e [-+] digits] (leniently: any spelling C reads;
 * the canonical check refuses all but the shortest) */
static int t_number(text_reader *r)
{
    size_t start = r->i;
    int digits = 0;
    if (r->i < r->len && (r->s[r->i] == '-' || r->s[r->i] == '+'))
        r->i++;
    while (r->i < r->len && t_is_digit(r->s[r->i]))
        r->i++, digits++;
    if (r->i < r->len && r->s[r->i] == '.') {
        r->i++;
        while (r->i < r->len && t_is_digit(r->s[r->i]))
            r->i++, digits++;
    }
    if (!digits)
        return t_fail(r, "a number without digits");
    if (r->i < r->len && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
        r->i++;
        if (r->i < r->len && (r->s[r->i] == '-' || r->s[r->i] == '+'))
            r->i++;
        if (r->i >= r->len || !t_is_digit(r->s[r->i]))
            return t_fail(r, "no digit in an exponent");
        while (r->i < r->len && t_is_digit(r->s[r->i]))
            r->i++;
    }
    int vi = ng_jdoc_add(r->doc, NG_J_NUMBER, start);
    if (vi < 0)
        return t_oom(r);
    r->doc->v[vi].str = r->s + start;
    r->doc->v[vi].str_len = r->i - start;
    r->doc->v[vi].num = ng_strtod(r->s + start, r->i - start);
    return vi;
}

static int t_node(text_reader *r, int depth);

static int t_value(text_reader *r)
{
    if (r->i >= r->len)
        return t_fail(r, "expected a value");
    char c = r->s[r->i];
    if (c == '(') {
        int vi = ng_jdoc_add(r->doc, NG_J_ARRAY, r->i);
        if (vi < 0)
            return t_oom(r);
        r->i++;
        int last = -1;
        for (;;) {
            int e = t_number(r);
            if (e < 0)
                return e;
            t_link(r->doc, vi, &last, e);
            if (r->i < r->len && r->s[r->i] == ',') {
                r->i++;
                continue;
            }
            if (r->i < r->len && r->s[r->i] == ')') {
                r->i++;
                return vi;
            }
            return t_fail(r, "expected ',' or ')' in a list of numbers");
        }
    }
    if (t_is_alpha(c)) {
        size_t start = r->i;
        while (r->i < r->len && t_is_word(r->s[r->i]))
            r->i++;
        size_t n = r->i - start;
        ng_jtype type = NG_J_STRING;
        if (n == 4 && memcmp(r->s + start, "true", 4) == 0)
            type = NG_J_TRUE;
        else if (n == 5 && memcmp(r->s + start, "false", 5) == 0)
            type = NG_J_FALSE;
        int vi = ng_jdoc_add(r->doc, type, start);
        if (vi < 0)
            return t_oom(r);
        r->doc->v[vi].str = r->s + start;
        r->doc->v[vi].str_len = n;
        return vi;
    }
    return t_number(r);
}

static int t_node(text_reader *r, int depth)
{
    if (depth > NG_JSON_MAX_NESTING) {
        ng_error(r->err, NOISE_GRAPH_ELIMIT, "", "the graph text nests more than %d deep (character %zu)",
                 NG_JSON_MAX_NESTING, r->i + 1);
        return NOISE_GRAPH_ELIMIT;
    }
    if (r->i >= r->len)
        return t_fail(r, "expected a node");
    char c = r->s[r->i];
    if (c == '$') {
        size_t start = r->i++;
        double n = 0;
        int digits = 0;
        while (r->i < r->len && t_is_digit(r->s[r->i]) && digits < 9) {
            n = n * 10 + (r->s[r->i++] - '0');
            digits++;
        }
        if (!digits)
            return t_fail(r, "'$' not followed by a node number");
        int vi = ng_jdoc_add(r->doc, NG_J_REF, start);
        if (vi < 0)
            return t_oom(r);
        r->doc->v[vi].num = n;
        return vi;
    }
    if (!t_is_alpha(c))
        return t_number(r);
    size_t start = r->i;
    while (r->i < r->len && t_is_word(r->s[r->i]))
        r->i++;
    int obj = ng_jdoc_add(r->doc, NG_J_OBJECT, start);
    int name = ng_jdoc_add(r->doc, NG_J_STRING, start);
    if (obj < 0 || name < 0)
        return t_oom(r);
    ng_jdoc *d = r->doc;
    d->v[name].key = "node";
    d->v[name].key_len = 4;
    d->v[name].str = r->s + start;
    d->v[name].str_len = r->i - start;
    int last = -1, inputs = -1, in_last = -1;
    t_link(d, obj, &last, name);
    if (r->i < r->len && r->s[r->i] == '(') {
        r->i++;
        for (;;) {
            /* KEY ':' value, or a node */
            size_t k = r->i;
            while (k < r->len && t_is_word(r->s[k]))
                k++;
            if (r->i < r->len && t_is_alpha(r->s[r->i]) && k < r->len && r->s[k] == ':') {
                size_t key_start = r->i;
                size_t key_len = k - r->i;
                if ((key_len == 4 && memcmp(r->s + key_start, "node", 4) == 0) ||
                    (key_len == 6 && memcmp(r->s + key_start, "inputs", 6) == 0))
                    return t_fail(r, "a parameter named like a node's own key");
                r->i = k + 1;
                int v = t_value(r);
                if (v < 0)
                    return v;
                d = r->doc;
                d->v[v].key = r->s + key_start;
                d->v[v].key_len = key_len;
                t_link(d, obj, &last, v);
            } else {
                int child = t_node(r, depth + 1);
                if (child < 0)
                    return child;
                d = r->doc;
                if (inputs < 0) {
                    inputs = ng_jdoc_add(r->doc, NG_J_ARRAY, start);
                    if (inputs < 0)
                        return t_oom(r);
                    d = r->doc;
                    d->v[inputs].key = "inputs";
                    d->v[inputs].key_len = 6;
                    t_link(d, obj, &last, inputs);
                }
                t_link(d, inputs, &in_last, child);
            }
            if (r->i < r->len && r->s[r->i] == ',') {
                r->i++;
                continue;
            }
            if (r->i < r->len && r->s[r->i] == ')') {
                r->i++;
                break;
            }
            return t_fail(r, "expected ',' or ')'");
        }
    }
    return obj;
}

/* ---- the public functions ---- */

static noise_graph *check_length(noise_graph *g, noise_graph_error *err)
{
    sbuf s = { 0 };
    int rc = encode_sb(g, &s);
    free(s.b);
    if (rc < 0) {
        ng_error(err, NOISE_GRAPH_ENOMEM, "", "out of memory encoding the graph");
        noise_graph_destroy(g);
        return NULL;
    }
    if (s.n > NOISE_GRAPH_MAX_TEXT) {
        ng_error(err, NOISE_GRAPH_ELIMIT, "",
                 "the graph is too long for a URL: its canonical text has %zu characters, at most %d", s.n,
                 NOISE_GRAPH_MAX_TEXT);
        noise_graph_destroy(g);
        return NULL;
    }
    return g;
}

noise_graph *noise_graph_parse_json(const char *json, size_t len, noise_graph_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    ng_jdoc doc;
    memset(&doc, 0, sizeof doc);
    int root = ng_json_parse(json ? json : "", json ? len : 0, &doc, err);
    noise_graph *g = NULL;
    if (root >= 0)
        g = build_graph(&doc, root, 0, err);
    ng_jdoc_free(&doc);
    return g ? check_length(g, err) : NULL;
}

noise_graph *noise_graph_decode(const char *text, size_t len, noise_graph_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (!text)
        len = 0;
    if (len > NOISE_GRAPH_MAX_TEXT) {
        ng_error(err, NOISE_GRAPH_ELIMIT, "", "the graph text is too long: %zu characters, at most %d", len,
                 NOISE_GRAPH_MAX_TEXT);
        return NULL;
    }
    if (len == 0) {
        ng_error(err, NOISE_GRAPH_ESYNTAX, "", "undecodable graph text: it is empty");
        return NULL;
    }
    ng_jdoc doc;
    memset(&doc, 0, sizeof doc);
    text_reader r = { text, len, 0, &doc, err };
    int root = t_node(&r, 0);
    if (root >= 0 && r.i < len)
        root = t_fail(&r, "more after the end of the graph");
    noise_graph *g = NULL;
    if (root >= 0)
        g = build_graph(&doc, root, 1, err);
    ng_jdoc_free(&doc);
    if (!g)
        return NULL;
    sbuf s = { 0 };
    if (encode_sb(g, &s) < 0) {
        free(s.b);
        noise_graph_destroy(g);
        ng_error(err, NOISE_GRAPH_ENOMEM, "", "out of memory encoding the graph");
        return NULL;
    }
    if (s.n != len || memcmp(s.b, text, len) != 0) {
        size_t at = 0;
        while (at < len && at < s.n && s.b[at] == text[at])
            at++;
        if (s.n <= 400)
            ng_error(err, NOISE_GRAPH_ECANONICAL, "",
                     "the graph text is not in canonical form (it differs from character %zu); canonical: %s",
                     at + 1, s.b);
        else
            ng_error(err, NOISE_GRAPH_ECANONICAL, "",
                     "the graph text is not in canonical form (it differs from character %zu; its canonical form "
                     "has %zu characters: POST the graph to get it)",
                     at + 1, s.n);
        free(s.b);
        noise_graph_destroy(g);
        return NULL;
    }
    free(s.b);
    return g;
}

noise_graph *noise_graph_from_spec(const noise_spec *spec)
{
    noise_graph *g = malloc(sizeof *g);
    ng_node *nd = calloc(1, sizeof *nd);
    if (!g || !nd) {
        free(g);
        free(nd);
        return NULL;
    }
    nd->op = NG_SOURCE;
    nd->spec = *spec;
    nd->spec.seed = 0;
    if (nd->spec.t == 0 || !nd->spec.has_t)
        nd->spec.t = 0.0;
    /* through its canonical text and the parser, so that the node is the
     * one that text reads as (fields a kind does not use at their
     * defaults); a spec the parser refuses is kept as given */
    char text[512], *names[32], *values[32];
    size_t n = 0;
    if ((unsigned)spec->kind < NOISE_KIND_COUNT && noise_spec_canonical(&nd->spec, text, sizeof text) >= 0) {
        for (char *p = text; *p && n < 32;) {
            names[n] = p;
            char *amp = strchr(p, '&');
            if (amp)
                *amp = '\0';
            char *eq = strchr(p, '=');
            if (eq)
                *eq = '\0';
            values[n++] = eq ? eq + 1 : p + strlen(p);
            p = amp ? amp + 1 : p + strlen(p);
        }
        noise_spec parsed;
        if (noise_spec_parse(&parsed, spec->kind, 0, n, (const char *const *)names, (const char *const *)values,
                             NULL, 0) == 0)
            nd->spec = parsed;
    }
    g->n = 1;
    g->nodes = nd;
    g->depth = 1;
    return g;
}

void noise_graph_destroy(noise_graph *g)
{
    if (!g)
        return;
    free(g->nodes);
    free(g);
}

int noise_graph_as_spec(const noise_graph *g, noise_spec *spec)
{
    if (!g || g->n != 1 || g->nodes[0].op != NG_SOURCE || g->nodes[0].seed != 0)
        return 0;
    *spec = g->nodes[0].spec;
    spec->seed = 0;
    return 1;
}

int noise_graph_node_count(const noise_graph *g) { return g ? g->n : 0; }

int noise_graph_depth(const noise_graph *g) { return g ? g->depth : 0; }

int noise_graph_planar(const noise_graph *g)
{
    if (!g)
        return 0;
    int sources = 0;
    for (int i = 0; i < g->n; i++) {
        const ng_node *nd = &g->nodes[i];
        if (nd->op == NG_T)
            return 0;
        if (nd->op == NG_SOURCE) {
            if (!noise_spec_planar(&nd->spec))
                return 0;
            sources++;
        }
    }
    return sources > 0;
}
