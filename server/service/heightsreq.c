/* heightsreq.c: numeric tile and grid queries -> grid_request, canonical
 * text (see heightsreq.h). */
#include "service/heightsreq.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/errors.h"
#include "base/etag.h"
#include "service/cost.h"
#include "service/graphs.h"
#include "service/query.h"

const char *heightsreq_ext_name(route_ext ext)
{
    return ext == ROUTE_EXT_NPY ? "npy" : ext == ROUTE_EXT_R16 ? "r16" : ext == ROUTE_EXT_WEBP ? "webp" : "png";
}

int heightsreq_is_numeric_tile(route_ext ext, const query_args *q)
{
    if (ext == ROUTE_EXT_WEBP)
        return 0; /* .webp is always a picture */
    if (ext != ROUTE_EXT_PNG)
        return 1;
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->names[i], "encoding") == 0)
            return 1;
    return 0;
}

/* The value of parameter name in q, or NULL. */
static const char *arg(const query_args *q, const char *name)
{
    for (size_t i = 0; i < q->n; i++)
        if (strcmp(q->names[i], name) == 0)
            return q->values[i];
    return NULL;
}

int heightsreq_parse(const query_args *q, noise_kind kind, uint32_t seed, int is_grid,
                     route_ext ext, grid_request *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    /* Parameters of another form: said in words the generic "unknown
     * parameter" cannot give. */
    const char *encoding = arg(q, "encoding");
    if (arg(q, "gradient") != NULL && ext != ROUTE_EXT_NPY) {
        snprintf(err, err_size,
                 "gradient applies only to .npy (value, d/dx, d/dy per sample), not .%s",
                 heightsreq_ext_name(ext));
        return ERR_BAD_REQUEST;
    }
    if (encoding != NULL && ext != ROUTE_EXT_PNG) {
        snprintf(err, err_size, "encoding applies only to .png (gray16, terrarium, mapbox), not .%s",
                 heightsreq_ext_name(ext));
        return ERR_BAD_REQUEST;
    }
    if (arg(q, "quality") != NULL) {
        snprintf(err, err_size, "quality applies only to .webp tiles, not .%s%s",
                 is_grid ? "png grids" : heightsreq_ext_name(ext), is_grid ? "" : " tiles");
        return ERR_BAD_REQUEST;
    }
    if (encoding != NULL) {
        static const char *const drawing[] = {"palette", "shade", "zero", "ramp"};
        for (int k = 0; k < 4; k++)
            if (arg(q, drawing[k]) != NULL) {
                char b[24];
                snprintf(err, err_size,
                         "encoding=%s excludes %s (an encoding carries numbers, not colours, "
                         "shading or a zero line): drop one of them",
                         query_shown(encoding, 20, b, sizeof b), drawing[k]);
                return ERR_BAD_REQUEST;
            }
    }
    int in_metres = encoding != NULL && strcmp(encoding, "gray16") != 0;
    static const char *const metres[] = {"height_scale", "height_offset"};
    for (int k = 0; k < 2; k++)
        if (arg(q, metres[k]) != NULL && !in_metres) {
            snprintf(err, err_size,
                     "%s applies only with encoding=terrarium or encoding=mapbox (heights in "
                     "metres)", metres[k]);
            return ERR_BAD_REQUEST;
        }

    int flags = is_grid ? QUERY_WINDOW : 0;
    if (ext == ROUTE_EXT_NPY)
        flags |= QUERY_NPY;
    else if (ext == ROUTE_EXT_PNG)
        flags |= encoding != NULL ? QUERY_ENCODING : QUERY_RENDER; /* RENDER: a grid's picture */
    query_result qr;
    int rc = query_parse(q, kind, seed, flags, &qr, err, err_size);
    if (rc != 0)
        return rc;

    out->spec = qr.spec;
    out->render = qr.render;
    out->x = qr.window.x;
    out->y = qr.window.y;
    out->step = qr.window.step;
    out->width = qr.window.width;
    out->height = qr.window.height;
    out->enc.height_scale = qr.value[PARAM_HEIGHT_SCALE];
    out->enc.height_offset = qr.value[PARAM_HEIGHT_OFFSET];
    out->enc.gradient = qr.value[PARAM_GRADIENT] != 0;
    if (ext == ROUTE_EXT_NPY)
        out->enc.format = HEIGHTS_NPY;
    else if (ext == ROUTE_EXT_R16)
        out->enc.format = HEIGHTS_R16;
    else if (encoding != NULL)
        heights_encoding_from_name(heights_encoding_names()[(int)qr.value[PARAM_ENCODING]],
                                   &out->enc.format);
    else
        out->picture = 1; /* grid.png without an encoding (tiles never get here) */
    return 0;
}

int heightsreq_canonical(const grid_request *r, int is_grid, char *buf, size_t buf_size)
{
    return heightsreq_canonical_field(r, is_grid, NULL, buf, buf_size);
}

int heightsreq_canonical_field(const grid_request *r, int is_grid, const char *graph_text,
                               char *buf, size_t buf_size)
{
    char field[GRAPHS_TEXT_MAX + 8], window[160] = "", form[QUERY_RENDER_CANONICAL_MAX + 8];
    if (graph_text != NULL) {
        int n = snprintf(field, sizeof field, "g=%s", graph_text);
        if (n < 0 || (size_t)n >= sizeof field)
            return -1;
    } else if (noise_spec_canonical(&r->spec, field, sizeof field) < 0)
        return -1;
    if (is_grid) {
        char x[32], y[32], step[32];
        noise_format_double(r->x + 0.0, x, sizeof x); /* -0 is 0 */
        noise_format_double(r->y + 0.0, y, sizeof y);
        noise_format_double(r->step, step, sizeof step);
        snprintf(window, sizeof window, "&x=%s&y=%s&step=%s&width=%d&height=%d", x, y, step,
                 r->width, r->height);
    }
    if (r->picture) {
        char rend[QUERY_RENDER_CANONICAL_MAX];
        if (query_render_canonical(&r->render, rend, sizeof rend) < 0)
            return -1;
        snprintf(form, sizeof form, "&%s", rend);
    } else if (r->enc.format == HEIGHTS_NPY) {
        snprintf(form, sizeof form, "&gradient=%d", r->enc.gradient ? 1 : 0);
    } else if (r->enc.format == HEIGHTS_R16) {
        form[0] = '\0';
    } else if (r->enc.format == HEIGHTS_GRAY16) {
        snprintf(form, sizeof form, "&encoding=gray16");
    } else {
        char scale[32], offset[32];
        noise_format_double(r->enc.height_scale, scale, sizeof scale);
        noise_format_double(r->enc.height_offset + 0.0, offset, sizeof offset);
        snprintf(form, sizeof form, "&encoding=%s&height_scale=%s&height_offset=%s",
                 heights_format_name(r->enc.format), scale, offset);
    }
    int n = snprintf(buf, buf_size, "%s%s%s", field, window, form);
    return (n < 0 || (size_t)n >= buf_size) ? -1 : n;
}

/* heightsreq_key's calls (heightsreq_key_calls). */
static atomic_ulong key_calls;

unsigned long heightsreq_key_calls(void)
{
    return atomic_load_explicit(&key_calls, memory_order_relaxed);
}

int heightsreq_key(const route *r, const grid_request *g, char *buf, size_t buf_size)
{
    return heightsreq_key_field(r, g, NULL, buf, buf_size);
}

int heightsreq_key_field(const route *r, const grid_request *g, const char *graph_text, char *buf,
                         size_t buf_size)
{
    atomic_fetch_add_explicit(&key_calls, 1, memory_order_relaxed);
    char canon[GRAPHS_TEXT_MAX + 1024];
    int is_grid = r->id == ROUTE_GRID;
    if (heightsreq_canonical_field(g, is_grid, graph_text, canon, sizeof canon) < 0)
        return -1;
    const char *ext = heightsreq_ext_name(r->ext);
    const char *label = graph_text != NULL ? "graph" : noise_kind_name(r->kind);
    int n;
    if (is_grid)
        n = snprintf(buf, buf_size, "%s/%" PRIu32 "/grid.%s?%s#heights%d%s",
                     label, r->seed, ext, canon, HEIGHTS_VERSION,
                     g->gzip ? "#gzip" : "");
    else
        n = snprintf(buf, buf_size, "%s/%" PRIu32 "/%d/%" PRId64 "/%" PRId64 "@%dx.%s?%s#heights%d%s",
                     label, r->seed, r->z, r->x, r->y, r->scale, ext, canon,
                     HEIGHTS_VERSION, g->gzip ? "#gzip" : "");
    return (n < 0 || (size_t)n >= buf_size) ? -1 : n;
}

int heightsreq_headers(const grid_request *g, reply *out)
{
    char w[16], h[16];
    snprintf(w, sizeof w, "%d", g->width);
    snprintf(h, sizeof h, "%d", g->height);
    int numbers = !g->picture && (g->enc.format == HEIGHTS_NPY || g->enc.format == HEIGHTS_R16);
    out->content_type = g->picture ? "image/png" : heights_content_type(g->enc.format);
    if (numbers)
        out->vary |= REPLY_VARY_ACCEPT_ENCODING;
    if (g->gzip)
        out->content_encoding = "gzip";
    return reply_header(out, "X-Width", w) == 0 && reply_header(out, "X-Height", h) == 0 ? 0 : -1;
}

#define GRID_CACHE_CONTROL "public, max-age=31536000, immutable"

/* The estimated work of one band of g (cost.h): gradients for .npy with
 * gradient=1 and for shaded pictures. */
static uint64_t grid_band_cost(const grid_request *g, double graph_cost)
{
    int grads = (g->enc.format == HEIGHTS_NPY && g->enc.gradient && !g->picture) ||
                (g->picture && g->render.shade);
    uint64_t samples = (uint64_t)g->width * (uint64_t)grid_band_rows(g);
    return g->graph != NULL ? cost_graph(graph_cost, samples) : cost_estimate(&g->spec, samples, grads);
}

/* REPLY_STREAM's side of a grid job: read hands over what the bands made;
 * produce (the connection layer's call, reply.h) makes the next band. */
static long stream_read(void *ctx, uint64_t pos, char *buf, size_t max)
{
    (void)pos; /* the job's own position: reads come in order */
    long n = grid_job_take(ctx, buf, max);
    if (n == 0)
        return grid_job_finished(ctx) ? 0 : REPLY_STREAM_PENDING;
    return n;
}

static int stream_produce(void *ctx) { return grid_job_compute_band(ctx) < 0 ? -1 : 0; }

static void stream_done(void *ctx) { grid_job_destroy(ctx); }


int heightsreq_grid_stream(const grid_request *g, const char *etag, const char *if_none_match,
                           reply *out)
{
    return heightsreq_grid_stream_cost(g, 0, etag, if_none_match, out);
}

int heightsreq_grid_stream_cost(const grid_request *g, double graph_cost, const char *etag,
                                const char *if_none_match, reply *out)
{
    out->cache_control = GRID_CACHE_CONTROL;
    if (reply_header(out, "ETag", etag) != 0 || heightsreq_headers(g, out) != 0) {
        reply_release(out);
        return ERR_INTERNAL;
    }
    if (etag_matches(if_none_match, etag)) {
        out->status = 304; /* the client has these bytes: compute nothing */
        out->body_kind = REPLY_EMPTY;
        return 0;
    }
    grid_job *job;
    if (grid_job_create(g, &job) != 0) {
        reply_release(out);
        return ERR_NOMEM;
    }
    int64_t size = grid_job_body_size(job);
    out->status = 200;
    out->body_kind = REPLY_STREAM;
    out->size = size >= 0 ? (uint64_t)size : REPLY_SIZE_UNKNOWN;
    out->stream.read = stream_read;
    out->stream.done = stream_done;
    out->stream.ctx = job;
    out->stream.block_bytes = 64 * 1024;
    out->stream.produce = stream_produce;
    out->stream.produce_cost = grid_band_cost(g, graph_cost);
    return 0;
}
