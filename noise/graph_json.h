/* graph_json.h: internal to noise/: the small strict JSON reader the graph
 * parser uses (RFC 8259: UTF-8, no duplicate-key rule here, bounded
 * nesting, no locale dependence), and the value tree both the JSON reader
 * and the canonical-text reader (graph_parse.c) fill. Prefix ng_ / NG_.
 */
#ifndef GRAPH_JSON_H
#define GRAPH_JSON_H

#include <stddef.h>

#include "noise_graph.h"

/* Deepest nesting of arrays and objects the reader takes: a graph of the
 * largest depth (NOISE_GRAPH_MAX_DEPTH nodes, two levels each) fits. */
#define NG_JSON_MAX_NESTING 128

typedef enum {
    NG_J_NULL,
    NG_J_FALSE,
    NG_J_TRUE,
    NG_J_NUMBER,
    NG_J_STRING,
    NG_J_ARRAY,
    NG_J_OBJECT,
    NG_J_REF /* canonical text only: "$N", N in num */
} ng_jtype;

/* One value; values are held in one array and linked by index (-1: none). */
typedef struct {
    ng_jtype type;
    int first;          /* array / object: the first element or member */
    int next;           /* the next element or member of the parent */
    int count;          /* array / object: elements or members */
    const char *key;    /* object member: its key (not NUL-terminated) */
    size_t key_len;
    const char *str;    /* string: its bytes (escapes decoded); number: its text as written */
    size_t str_len;
    double num;         /* number: its value (+-inf when it overflows); ref: N */
    size_t pos;         /* byte offset in the input */
} ng_jval;

typedef struct {
    ng_jval *v;
    int n, cap;
    char *strbuf; /* decoded strings */
    size_t str_used, str_cap;
} ng_jdoc;

/* Appends a value of the given type; returns its index or -1 (memory). */
int ng_jdoc_add(ng_jdoc *doc, ng_jtype type, size_t pos);
void ng_jdoc_free(ng_jdoc *doc);
/* Reads a JSON document into doc (emptied first); returns the root's index,
 * or a NOISE_GRAPH_E* code with *err filled (err may be NULL). */
int ng_json_parse(const char *s, size_t len, ng_jdoc *doc, noise_graph_error *err);
/* The value of a number in JSON / C decimal syntax (len bytes, already
 * checked), whatever the C locale: +-inf when it overflows, -0 kept. */
double ng_strtod(const char *s, size_t len);
/* Fills *err (when not NULL) with code, pointer and printf message. */
void ng_error(noise_graph_error *err, int code, const char *pointer, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
