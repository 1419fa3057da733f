/* jsonout.c: compact JSON text from a jansson document, reals in shortest
 * round-trip form (see jsonout.h). */
#include "base/jsonout.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/failalloc.h"
#include "noise.h"

typedef struct {
    char *text;
    size_t len, cap;
} buf;

static int put(buf *b, const char *s, size_t n)
{
    if (n + 1 > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 256;
        while (n + 1 > cap - b->len) {
            if (cap > SIZE_MAX / 2)
                return -1;
            cap *= 2;
        }
        char *p = failalloc_realloc(b->text, cap);
        if (p == NULL)
            return -1;
        b->text = p;
        b->cap = cap;
    }
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = '\0';
    return 0;
}

static int put_string(buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (put(b, "\"", 1) != 0)
        return -1;
    size_t run = 0; /* bytes copied as they are, flushed before an escape */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[7];
        size_t esc_len = 0;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            esc_len = 2;
        } else if (c < 0x20 || c == 0x7f) {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            esc_len = 6;
        }
        if (esc_len == 0) {
            run++;
            continue;
        }
        if (put(b, s + i - run, run) != 0 || put(b, esc, esc_len) != 0)
            return -1;
        run = 0;
    }
    if (put(b, s + n - run, run) != 0)
        return -1;
    return put(b, "\"", 1);
}

static int put_value(buf *b, const json_t *v)
{
    char num[40];
    int n;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *key;
        json_t *member;
        int first = 1;
        if (put(b, "{", 1) != 0)
            return -1;
        json_object_foreach((json_t *)v, key, member) {
            if ((!first && put(b, ",", 1) != 0) || put_string(b, key, strlen(key)) != 0 ||
                put(b, ":", 1) != 0 || put_value(b, member) != 0)
                return -1;
            first = 0;
        }
        return put(b, "}", 1);
    }
    case JSON_ARRAY: {
        if (put(b, "[", 1) != 0)
            return -1;
        for (size_t i = 0; i < json_array_size(v); i++)
            if ((i > 0 && put(b, ",", 1) != 0) || put_value(b, json_array_get(v, i)) != 0)
                return -1;
        return put(b, "]", 1);
    }
    case JSON_STRING:
        return put_string(b, json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        n = snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return put(b, num, (size_t)n);
    case JSON_REAL:
        if (!isfinite(json_real_value(v)))
            return -1;
        n = noise_format_double(json_real_value(v), num, sizeof num);
        return n < 0 ? -1 : put(b, num, (size_t)n);
    case JSON_TRUE:
        return put(b, "true", 4);
    case JSON_FALSE:
        return put(b, "false", 5);
    case JSON_NULL:
        return put(b, "null", 4);
    }
    return -1;
}

int jsonout_dump(const json_t *doc, char **out_text, size_t *out_len)
{
    buf b = {NULL, 0, 0};
    *out_text = NULL;
    if (put_value(&b, doc) != 0 || b.text == NULL) {
        free(b.text);
        return -1;
    }
    *out_text = b.text;
    *out_len = b.len;
    return 0;
}
