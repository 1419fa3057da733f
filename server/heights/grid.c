/* grid.c: a field window -> .npy / .r16 / PNG bytes, band by band (see
 * grid.h). Memory per job: the field prepared once (noise_field_size(), about
 * 30 KB), one row of values and gradients, one encoded row,
 * the pending output (about GRID_BAND_BYTES), and the zlib state of the PNG
 * or gzip stream (about 256 KiB). While a band is computed, the thread
 * computing it lends the band's values (and gradients) from its scratch
 * (scratch.h): one noise_field_grid_rows call fills the band, so the core's
 * loops share a tile's work across its rows (one-octave fields: 2.1-2.4x
 * less CPU than row by row), with the same numbers. */
#include "heights/grid.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytebuf.h"
#include "base/failalloc.h"
#include "base/gzip.h"
#include "heights/pngstream.h"
#include "base/scratch.h"

struct grid_job {
    grid_request req;
    fieldsrc field;      /* the request's field, prepared once for every row (a
                            graph: the request's reference, held by the job) */
    int have_field;
    int n_grad;          /* gradient components per sample in .npy (2, or 3 with t) */
    int with_grad;       /* .npy with gradient=1 */
    size_t row_bytes;    /* one encoded row */
    int rows_per_band;
    int next_row;        /* the first row not yet computed */
    float *values;       /* one row */
    float *grads;        /* one row, n_grad per sample (with_grad, or a shaded picture) */
    int extra;           /* picture with zero line: one more column and row */
    float *below, *grads_below; /* picture with zero line: the next row */
    render_colors colors;
    double *points;      /* one row of (x, y), for the 3-component gradient */
    double *pvalues, *pgrads;
    unsigned char *row;  /* one encoded row */
    pngstream *png;
    gzip_stream *gz;
    bytebuf out;         /* pending bytes: out.data[sent..out.len) */
    size_t sent;
    int broken;
};

static int is_png(const grid_request *r)
{
    return r->picture || (r->enc.format != HEIGHTS_NPY && r->enc.format != HEIGHTS_R16);
}

/* Row bytes of a request's form, and the gradient components of .npy. */
static size_t row_bytes_of(const grid_request *req, int *n_grad)
{
    *n_grad = req->spec.has_t ? 3 : 2;
    if (req->picture) {
        *n_grad = 2;
        return 3 * (size_t)req->width;
    }
    return heights_row_bytes(&req->enc, *n_grad, req->width);
}

int grid_band_rows(const grid_request *req)
{
    int n_grad;
    size_t rows = GRID_BAND_BYTES / row_bytes_of(req, &n_grad);
    return rows < 1 ? 1 : rows > (size_t)req->height ? req->height : (int)rows;
}

int grid_job_create(const grid_request *req, grid_job **out)
{
    assert(req->width >= 1 && req->height >= 1 && req->step > 0);
    *out = NULL;
    grid_job *job = failalloc_calloc(1, sizeof *job);
    if (job == NULL)
        return -1;
    job->req = *req;
    if (is_png(req))
        job->req.gzip = 0; /* PNG is compressed already */
    if (req->picture) {
        job->req.enc.gradient = 0;
        job->extra = req->render.zero ? 1 : 0;
        job->n_grad = 2;
        job->row_bytes = 3 * (size_t)req->width;
        render_colors_init(&job->colors, &req->render,
                           req->graph != NULL ? fieldsrc_graph_shade_frequency(req->graph)
                                              : req->spec.frequency);
    } else {
        job->with_grad = req->enc.format == HEIGHTS_NPY && req->enc.gradient;
        job->n_grad = req->spec.has_t ? 3 : 2;
        job->row_bytes = heights_row_bytes(&req->enc, job->n_grad, req->width);
    }
    job->rows_per_band = grid_band_rows(req);
    job->req.graph = fieldsrc_graph_retain(req->graph);
    if (fieldsrc_init(&job->field, &req->spec, req->graph) != 0)
        goto fail;
    job->have_field = 1;
    size_t w = (size_t)req->width + (size_t)job->extra;
    job->values = failalloc_malloc(w * sizeof *job->values);
    job->row = failalloc_malloc(job->row_bytes);
    if (job->values == NULL || job->row == NULL)
        goto fail;
    if (req->picture && req->render.shade &&
        (job->grads = failalloc_malloc(2 * w * sizeof *job->grads)) == NULL)
        goto fail;
    if (job->extra && ((job->below = failalloc_malloc(w * sizeof *job->below)) == NULL ||
                       (req->render.shade &&
                        (job->grads_below = failalloc_malloc(2 * w * sizeof(float))) == NULL)))
        goto fail;
    if (job->with_grad) {
        job->grads = failalloc_malloc(w * (size_t)job->n_grad * sizeof *job->grads);
        if (job->grads == NULL)
            goto fail;
        if (job->n_grad == 3) {
            /* noise_field_grid drops d/dt: this row goes through noise_field_points */
            job->points = failalloc_malloc(2 * w * sizeof *job->points);
            job->pvalues = failalloc_malloc(w * sizeof *job->pvalues);
            job->pgrads = failalloc_malloc(3 * w * sizeof *job->pgrads);
            if (job->points == NULL || job->pvalues == NULL || job->pgrads == NULL)
                goto fail;
        }
    }
    if (job->req.gzip && (job->gz = gzip_create(GZIP_NUMBERS)) == NULL)
        goto fail;
    *out = job;
    return 0;
fail:
    grid_job_destroy(job);
    return -1;
}

void grid_job_destroy(grid_job *job)
{
    if (job == NULL)
        return;
    gzip_destroy(job->gz);
    pngstream_destroy(job->png);
    bytebuf_free(&job->out);
    free(job->row);
    free(job->pgrads);
    free(job->pvalues);
    free(job->points);
    free(job->grads_below);
    free(job->below);
    free(job->grads);
    free(job->values);
    if (job->have_field)
        fieldsrc_free(&job->field);
    fieldsrc_graph_release(job->req.graph);
    free(job);
}

int64_t grid_job_body_size(const grid_job *job)
{
    const grid_request *r = &job->req;
    if (is_png(r) || r->gzip)
        return -1;
    int64_t body = (int64_t)job->row_bytes * r->height;
    if (r->enc.format == HEIGHTS_NPY) {
        unsigned char h[HEIGHTS_NPY_HEADER_MAX];
        body += (int64_t)heights_npy_header(r->height, r->width,
                                            heights_channels(&r->enc, job->n_grad), h);
    }
    return body;
}

/* Values (and gradients) of row j into job->values / job->grads: 0, or -1
 * out of memory. */
static int eval_row(grid_job *job, int j)
{
    const grid_request *r = &job->req;
    double y = r->y + (double)j * r->step;
    if (job->with_grad && job->n_grad == 3) {
        for (int i = 0; i < r->width; i++) {
            job->points[2 * i] = r->x + (double)i * r->step;
            job->points[2 * i + 1] = y;
        }
        if (fieldsrc_points(&job->field, (size_t)r->width, job->points, 2, job->pvalues,
                            job->pgrads) != 0)
            return -1;
        for (int i = 0; i < r->width; i++)
            job->values[i] = (float)job->pvalues[i];
        for (size_t k = 0; k < 3 * (size_t)r->width; k++)
            job->grads[k] = (float)job->pgrads[k];
        return 0;
    }
    return fieldsrc_grid(&job->field, r->x, y, r->step, r->width, 1, job->values,
                         job->with_grad ? job->grads : NULL);
}

/* A band's values (and gradients) for rows j0 .. j1 - 1 of a numeric
 * grid, in one call, into blocks lent by this thread's scratch; b->values
 * stays NULL where the rows go one at a time through eval_row instead (a
 * picture, the 3-component gradient, or no memory for the band). */
typedef struct {
    float *values, *grads;
} band_fill;

static void fill_band(grid_job *job, int j0, int j1, band_fill *b)
{
    const grid_request *r = &job->req;
    b->values = b->grads = NULL;
    if (r->picture || (job->with_grad && job->n_grad == 3))
        return;
    size_t n = (size_t)(j1 - j0) * (size_t)r->width;
    b->values = scratch_take(SCRATCH_VALUES, n * sizeof(float));
    if (job->with_grad)
        b->grads = scratch_take(SCRATCH_GRADS, 2 * n * sizeof(float));
    if (b->values == NULL || (job->with_grad && b->grads == NULL)) {
        scratch_give(SCRATCH_VALUES, b->values);
        scratch_give(SCRATCH_GRADS, b->grads);
        b->values = b->grads = NULL;
        return;
    }
    if (fieldsrc_grid_rows(&job->field, r->x, r->y, r->step, r->width, j0, j1 - j0, b->values,
                           b->grads) != 0) {
        scratch_give(SCRATCH_VALUES, b->values);
        scratch_give(SCRATCH_GRADS, b->grads);
        b->values = b->grads = NULL; /* row by row instead */
    }
}

static void band_done(band_fill *b)
{
    scratch_give(SCRATCH_VALUES, b->values);
    scratch_give(SCRATCH_GRADS, b->grads);
    b->values = b->grads = NULL;
}

/* Row j of a numeric grid (band b filled from row j0, or row by row):
 * its values and gradients */
static int numeric_row(grid_job *job, const band_fill *b, int j0, int j, const float **values,
                       const float **grads)
{
    if (b->values == NULL) {
        *values = job->values;
        *grads = job->grads;
        return eval_row(job, j);
    }
    size_t at = (size_t)(j - j0) * (size_t)job->req.width;
    *values = b->values + at;
    *grads = b->grads ? b->grads + 2 * at : NULL;
    return 0;
}

/* Row j of a picture, coloured into job->row. With the zero line, row j
 * was computed as the row below j - 1 (except the first), and row j + 1 is
 * computed now, one column wider than the window like row j. */
static int picture_row(grid_job *job, int j)
{
    const grid_request *r = &job->req;
    int w = r->width + job->extra;
    float *g = r->render.shade ? job->grads : NULL;
    if (!job->extra) {
        if (fieldsrc_grid(&job->field, r->x, r->y + (double)j * r->step, r->step, w, 1, job->values, g) != 0)
            return -1;
        render_color_row(&job->colors, r->width, job->values, NULL, g, job->row);
        return 0;
    }
    if (j == 0) {
        if (fieldsrc_grid(&job->field, r->x, r->y, r->step, w, 1, job->values, g) != 0)
            return -1;
    } else {
        float *t = job->values;
        job->values = job->below;
        job->below = t;
        t = job->grads;
        job->grads = job->grads_below;
        job->grads_below = t;
        g = r->render.shade ? job->grads : NULL;
    }
    if (fieldsrc_grid(&job->field, r->x, r->y + (double)(j + 1) * r->step, r->step, w, 1, job->below,
                      r->render.shade ? job->grads_below : NULL) != 0)
        return -1;
    render_color_row(&job->colors, r->width, job->values, job->below, g, job->row);
    return 0;
}

/* Appends plain body bytes to the output, through gzip when asked. */
static int emit(grid_job *job, const unsigned char *data, size_t n, int last)
{
    if (job->gz != NULL)
        return gzip_write(job->gz, data, n, last, &job->out);
    return bytebuf_append(&job->out, data, n);
}

int grid_job_compute_band(grid_job *job)
{
    const grid_request *r = &job->req;
    band_fill b = { NULL, NULL };
    if (job->broken)
        return -1;
    if (job->next_row >= r->height)
        return 0;
    /* drop what was sent, so the buffer holds about one band */
    if (job->sent > 0) {
        memmove(job->out.data, job->out.data + job->sent, job->out.len - job->sent);
        job->out.len -= job->sent;
        job->sent = 0;
    }
    if (job->next_row == 0) {
        if (!r->picture && r->enc.format == HEIGHTS_NPY) {
            unsigned char h[HEIGHTS_NPY_HEADER_MAX];
            size_t n = heights_npy_header(r->height, r->width,
                                          heights_channels(&r->enc, job->n_grad), h);
            if (emit(job, h, n, 0) != 0)
                goto broken;
        } else if (is_png(r)) {
            job->png = pngstream_create(r->width, r->height,
                                        r->picture ? PNGSTREAM_PICTURE
                                        : r->enc.format == HEIGHTS_GRAY16 ? PNGSTREAM_GRAY16
                                                                          : PNGSTREAM_RGB8,
                                        &job->out);
            if (job->png == NULL)
                goto broken;
        }
    }
    int end = job->next_row + job->rows_per_band;
    if (end > r->height)
        end = r->height;
    fill_band(job, job->next_row, end, &b);
    const float *vals, *grads;
    if (job->gz != NULL) {
        /* encode the band into the output, then gzip it in one piece */
        size_t plain = (size_t)(end - job->next_row) * job->row_bytes;
        bytebuf band = {0};
        if (bytebuf_reserve(&band, plain) != 0)
            goto broken;
        for (int j = job->next_row; j < end; j++) {
            if (numeric_row(job, &b, job->next_row, j, &vals, &grads) != 0) {
                bytebuf_free(&band);
                goto broken;
            }
            heights_encode_row(&r->enc, r->width, vals, grads, job->n_grad, band.data + band.len);
            band.len += job->row_bytes;
        }
        int rc = gzip_write(job->gz, band.data, band.len, end == r->height, &job->out);
        bytebuf_free(&band);
        if (rc != 0)
            goto broken;
    } else {
        for (int j = job->next_row; j < end; j++) {
            if (r->picture) {
                if (picture_row(job, j) != 0 || pngstream_row(job->png, job->row, &job->out) != 0)
                    goto broken;
                continue;
            }
            if (numeric_row(job, &b, job->next_row, j, &vals, &grads) != 0)
                goto broken;
            if (job->png != NULL) {
                heights_encode_row(&r->enc, r->width, vals, grads, job->n_grad, job->row);
                if (pngstream_row(job->png, job->row, &job->out) != 0)
                    goto broken;
            } else {
                if (bytebuf_reserve(&job->out, job->row_bytes) != 0)
                    goto broken;
                heights_encode_row(&r->enc, r->width, vals, grads, job->n_grad,
                                   job->out.data + job->out.len);
                job->out.len += job->row_bytes;
            }
        }
    }
    band_done(&b);
    job->next_row = end;
    return 1;
broken:
    band_done(&b);
    job->broken = 1;
    return -1;
}

int grid_job_finished(const grid_job *job) { return job->next_row >= job->req.height; }

size_t grid_job_pending(const grid_job *job, const unsigned char **data)
{
    *data = job->out.data + job->sent;
    return job->out.len - job->sent;
}

void grid_job_consume(grid_job *job, size_t n)
{
    assert(n <= job->out.len - job->sent);
    job->sent += n;
}

long grid_job_take(grid_job *job, void *buf, size_t max)
{
    const unsigned char *p;
    size_t n = grid_job_pending(job, &p);
    if (n == 0)
        return 0;
    if (n > max)
        n = max;
    if (n > (size_t)LONG_MAX)
        n = (size_t)LONG_MAX;
    memcpy(buf, p, n);
    grid_job_consume(job, n);
    return (long)n;
}

long grid_job_read(grid_job *job, unsigned char *buf, size_t max)
{
    const unsigned char *p;
    while (grid_job_pending(job, &p) == 0) {
        int rc = grid_job_compute_band(job);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return 0;
    }
    return grid_job_take(job, buf, max);
}

int grid_render(const grid_request *req, unsigned char **out_body, size_t *out_size)
{
    *out_body = NULL;
    *out_size = 0;
    grid_job *job;
    if (grid_job_create(req, &job) != 0)
        return -1;
    int rc;
    while ((rc = grid_job_compute_band(job)) == 1)
        ;
    if (rc == 0) {
        *out_body = job->out.data + 0; /* nothing consumed: sent is 0 */
        *out_size = job->out.len;
        memset(&job->out, 0, sizeof job->out);
    }
    grid_job_destroy(job);
    return rc == 0 ? 0 : -1;
}
