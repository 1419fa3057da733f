/* batch.h: the body of POST /{kind}/{seed}/points parsed straight into an
 * array of coordinates, and its answer printed straight from the arrays of
 * values and gradients: no JSON document of one allocation per number, so
 * a batch's memory is a few large blocks whose size is known from the
 * body's length (batch_memory_bytes), which the daemon bounds across all
 * requests in flight. */
#ifndef BATCH_H
#define BATCH_H

#include <stddef.h>

/* Parsed {"points":[[x,y],...]} or [[x,y,t],...]: n points of dims (2 or 3)
 * coordinates each, packed in coords[n * dims]. */
typedef struct {
    size_t n;
    int dims;       /* 2 or 3; 0 when n is 0 */
    double *coords; /* from failalloc_malloc; batch_free() frees it */
} batch;

/* Parses body[0..len): exactly one object whose only member is "points",
 * an array of at most max_points arrays of 2 or 3 finite numbers, all of
 * the length of the first, with JSON's grammar (RFC 8259: whitespace,
 * escapes in the member name, UTF-8). Returns 0 and fills *out (free it
 * with batch_free()); or ERR_BAD_JSON with a message naming what is wrong
 * and where (points[i], or line and column), ERR_TOO_LARGE (more than
 * max_points points) or ERR_NOMEM (out of memory); *out is then empty. */
int batch_parse(const char *body, size_t len, size_t max_points, batch *out, char *err,
                size_t err_size);

void batch_free(batch *b);

/* The answer {"values":[...],"gradients":[[...],...]} for n values and
 * n * g gradient components (g 2 or 3), numbers in shortest round-trip
 * form, null for a number that is not finite. Returns 0 and sets *out_text
 * (failalloc_malloc, NUL-terminated; the caller frees it) and *out_len; or
 * -1 out of memory. */
int batch_answer_json(const double *values, const double *grads, size_t n, int g,
                      char **out_text, size_t *out_len);

/* An upper bound on the memory a batch held in a body buffer of body_bytes
 * needs from arrival to answer: the buffer itself, the coordinates, values
 * and gradients, and the answer's text (at most max_points points). */
size_t batch_memory_bytes(size_t body_bytes, size_t max_points);

#endif
