/* fuzz_points.c: libFuzzer target for POST /{kind}/{seed}/points: the input
 * is "<query>\n<body>" (no newline: all body, no query); byte 0 of the query
 * line picks the kind. api_points gets the query split and parsed as the
 * daemon's admission does it and the body as the daemon stores it, and fills a plain reply
 * whose JSON body the harness parses and checks against its own reading of
 * the request body:
 * - an error is a 4xx code (400 bad JSON or query, 413 too many points)
 *   with a message; 503 never happens here (nothing fails to allocate);
 * - a body that is an object with only "points", an array of at most 10000
 *   arrays of 2 or 3 finite numbers (all as long as the first), is answered
 *   200, anything else is an error (so are 3-number points when the query
 *   has t);
 * - a 200 answer is {"values":[...],"gradients":[...]} with exactly one
 *   value (a number in [-1, 1]) and one gradient (2 numbers, 3 for 3D) per
 *   point;
 * - the body parser (batch.h) accepts exactly those bodies, with the count,
 *   dimension and coordinates (bit for bit) that jansson reads. jansson
 *   refuses integers beyond 64 bits, which are ordinary JSON numbers, so
 *   such bodies are left out of every comparison. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/api.h"
#include "heights/batch.h"
#include "base/daemon_limits.h"
#include "base/errors.h"
#include "fuzz_util.h"

/* The harness's own reading of the body: the number of points and their
 * dimension if the body is acceptable, else -1. */
static long expected_points(const char *body, size_t len, int *dims, double **coords)
{
    /* JSON has no NUL byte outside a string (RFC 8259); jansson's reader
     * lets some through between tokens, the daemon's refuses them. */
    if (memchr(body, '\0', len) != NULL)
        return -1;
    json_error_t jerr;
    json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    long n = -1;
    *coords = NULL;
    if (doc == NULL)
        return strstr(jerr.text, "too big") != NULL ? -2 : -1; /* "too big (negative) integer" */
    json_t *pts = json_object_get(doc, "points");
    if (!json_is_object(doc) || json_object_size(doc) != 1 || !json_is_array(pts))
        goto done;
    size_t count = json_array_size(pts);
    if (count > LIMIT_MAX_POINTS)
        goto done;
    *dims = 2;
    *coords = malloc((count ? count : 1) * 3 * sizeof **coords);
    FUZZ_ASSERT(*coords != NULL);
    for (size_t i = 0; i < count; i++) {
        json_t *pt = json_array_get(pts, i);
        if (!json_is_array(pt))
            goto done;
        size_t d = json_array_size(pt);
        if (i == 0)
            *dims = (int)d;
        if ((d != 2 && d != 3) || (int)d != *dims)
            goto done;
        for (size_t k = 0; k < d; k++) {
            json_t *c = json_array_get(pt, k);
            if (!json_is_number(c) || !isfinite(json_number_value(c)))
                goto done;
            (*coords)[i * d + k] = json_number_value(c);
        }
    }
    n = (long)count;
done:
    json_decref(doc);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *captured = NULL;
    double *want = NULL;
    if (size < 1 || size > 65536)
        return 0;
    route r = {0};
    r.id = ROUTE_POINTS;
    r.kind = (noise_kind)(data[0] % NOISE_KIND_COUNT);
    r.seed = (uint32_t)size * 2654435761u;
    data++;
    size--;
    const uint8_t *nl = memchr(data, '\n', size);
    size_t qlen = nl != NULL ? (size_t)(nl - data) : 0;
    char *query = fuzz_strndup(data, qlen);
    size_t blen = nl != NULL ? size - qlen - 1 : size;
    /* The daemon's body buffer: the bytes, then a NUL it adds. */
    char *body = fuzz_strndup(nl != NULL ? nl + 1 : data, blen);

    query_args q;
    if (fuzz_split_query(query, &q) != 0)
        goto done; /* 400 from query_split; fuzz_route covers it */

    /* The query parsed once, as the service's admission does; a batch
     * whose query does not parse gets its 400. */
    query_result qr;
    reply out = REPLY_INIT;
    char err[ERRORS_MSG_MAX];
    memset(err, 'x', sizeof err);
    int rc = query_parse(&q, r.kind, r.seed, 0, &qr, err, sizeof err);
    int query_ok = rc == 0;
    if (query_ok)
        rc = api_points(&r, &qr, body, blen, &out, err, sizeof err);
    int dims = 2;
    long n = expected_points(body, blen, &dims, &want);
    if (n == -2) {
        reply_release(&out);
        goto done;
    }

    /* The body parser against jansson's reading. */
    batch b;
    char berr[ERRORS_MSG_MAX];
    int brc = batch_parse(body, blen, LIMIT_MAX_POINTS, &b, berr, sizeof berr);
    FUZZ_ASSERT((brc == 0) == (n >= 0));
    if (brc == 0) {
        FUZZ_ASSERT(b.n == (size_t)n && (n == 0 || b.dims == dims));
        for (size_t i = 0; i < b.n * (size_t)b.dims; i++)
            FUZZ_ASSERT(b.coords[i] == want[i]);
    } else {
        FUZZ_ASSERT((brc == ERR_BAD_JSON || brc == ERR_TOO_LARGE) && berr[0] != '\0');
    }
    batch_free(&b);
    /* t in the query and in every point is refused (400), and so are
     * [x, y, t] points for a 2D-only field (classic, gradients=angle,
     * falloff=quartic) */
    if (query_ok && n > 0 && dims == 3 && (qr.spec.has_t || noise_spec_planar(&qr.spec)))
        n = -1;

    if (rc != 0) {
        unsigned st = errors_status(rc);
        FUZZ_ASSERT(st == 400 || st == 413);
        FUZZ_ASSERT(err[0] != '\0' && memchr(err, '\0', sizeof err) != NULL);
        if (query_ok && n >= 0)
            fprintf(stderr, "acceptable body refused (%u): %s\n", st, err);
        FUZZ_ASSERT(!(query_ok && n >= 0));
        goto done;
    }
    FUZZ_ASSERT(query_ok && n >= 0);
    FUZZ_ASSERT(out.status == 200 && out.body_kind == REPLY_OWNED && out.size > 0);
    FUZZ_ASSERT(strcmp(out.content_type, "application/json") == 0);
    captured = json_loadb(out.body, (size_t)out.size, 0, NULL);
    reply_release(&out);

    FUZZ_ASSERT(json_is_object(captured) && json_object_size(captured) == 2);
    json_t *values = json_object_get(captured, "values");
    json_t *grads = json_object_get(captured, "gradients");
    FUZZ_ASSERT(json_is_array(values) && json_is_array(grads));
    FUZZ_ASSERT(json_array_size(values) == (size_t)n && json_array_size(grads) == (size_t)n);
    size_t g = (dims == 3 || qr.spec.has_t) ? 3 : 2;
    for (size_t i = 0; i < (size_t)n; i++) {
        json_t *v = json_array_get(values, i);
        /* The printed body: reals in shortest form, so 0 reads back as an
         * integer. */
        FUZZ_ASSERT(json_is_number(v));
        double x = json_number_value(v);
        FUZZ_ASSERT(x >= -1.0 && x <= 1.0);
        json_t *gi = json_array_get(grads, i);
        FUZZ_ASSERT(json_is_array(gi) && json_array_size(gi) == g);
        for (size_t k = 0; k < g; k++)
            FUZZ_ASSERT(json_is_number(json_array_get(gi, k)) ||
                        json_is_null(json_array_get(gi, k)));
    }
done:
    json_decref(captured);
    free(want);
    free(body);
    free(query);
    return 0;
}
