/* stats.c: one-pass statistics of a window of field samples (stats.h). */
#include "heights/stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/failalloc.h"

struct stats_acc {
    int width, n_bins;
    uint64_t n_rows;
    float *rows[3];   /* ring of the last three rows; rows[n_rows % 3] is next */
    stats_summary s;
    double sum, sum2;
};

stats_acc *stats_create(int width, int n_bins)
{
    assert(width >= 1 && n_bins >= 1 && n_bins <= STATS_MAX_BINS);
    if (width < 1 || n_bins < 1 || n_bins > STATS_MAX_BINS)
        return NULL;
    stats_acc *acc = failalloc_calloc(1, sizeof *acc);
    if (acc == NULL)
        return NULL;
    /* one block for the three rows */
    acc->rows[0] = failalloc_malloc(3 * (size_t)width * sizeof(float));
    if (acc->rows[0] == NULL) {
        free(acc);
        return NULL;
    }
    acc->rows[1] = acc->rows[0] + width;
    acc->rows[2] = acc->rows[1] + width;
    acc->width = width;
    acc->n_bins = n_bins;
    acc->s.min = INFINITY;
    acc->s.max = -INFINITY;
    acc->s.n_bins = n_bins;
    return acc;
}

void stats_destroy(stats_acc *acc)
{
    if (acc == NULL)
        return;
    free(acc->rows[0]);
    free(acc);
}

/* Counts the strict local maxima of row mid against its neighbours above
 * and below (border columns have no 8 neighbours and never count). */
static uint64_t row_peaks(const float *above, const float *mid, const float *below, int width)
{
    uint64_t n = 0;
    for (int i = 1; i < width - 1; i++) {
        float c = mid[i];
        n += c > mid[i - 1] && c > mid[i + 1] && c > above[i - 1] && c > above[i] && c > above[i + 1] &&
             c > below[i - 1] && c > below[i] && c > below[i + 1];
    }
    return n;
}

/* Takes the row already written into the ring's next slot. */
static void commit_row(stats_acc *acc)
{
    const float *row = acc->rows[acc->n_rows % 3];
    stats_summary *s = &acc->s;
    double sum = 0, sum2 = 0, lo = s->min, hi = s->max, bins_per_unit = acc->n_bins / 2.0;
    uint64_t beyond = 0;
    for (int i = 0; i < acc->width; i++) {
        double v = row[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
        sum2 += v * v;
        beyond += fabs(v) > 0.5;
        double b = floor((v + 1.0) * bins_per_unit);
        int k = b < 0 ? 0 : b >= acc->n_bins ? acc->n_bins - 1 : (int)b;
        s->hist[k]++;
    }
    s->min = lo;
    s->max = hi;
    s->beyond_half += beyond;
    s->count += (uint64_t)acc->width;
    /* per-row partial sums keep the rounding of a 4097^2 window small */
    acc->sum += sum;
    acc->sum2 += sum2;
    acc->n_rows++;
    if (acc->n_rows >= 3) {
        uint64_t j = acc->n_rows;   /* rows j-3, j-2, j-1 are in the ring */
        s->peaks += row_peaks(acc->rows[(j - 3) % 3], acc->rows[(j - 2) % 3], acc->rows[(j - 1) % 3],
                              acc->width);
    }
}

void stats_add_row(stats_acc *acc, const float *row)
{
    memcpy(acc->rows[acc->n_rows % 3], row, (size_t)acc->width * sizeof(float));
    commit_row(acc);
}

void stats_finish(const stats_acc *acc, stats_summary *out)
{
    *out = acc->s;
    if (acc->s.count == 0)
        return;
    double n = (double)acc->s.count, mean = acc->sum / n, var = acc->sum2 / n - mean * mean;
    out->mean = mean;
    out->sd = var > 0 ? sqrt(var) : 0;
}

int stats_field(const noise_spec *spec, double x0, double y0, double step, int width, int height,
                int n_bins, int (*keep_going)(void *ctx), void *ctx, stats_summary *out)
{
    return stats_field_src(spec, NULL, x0, y0, step, width, height, n_bins, keep_going, ctx, out);
}

int stats_field_src(const noise_spec *spec, const fieldsrc_graph *graph, double x0, double y0,
                    double step, int width, int height, int n_bins, int (*keep_going)(void *ctx),
                    void *ctx, stats_summary *out)
{
    assert(height >= 1);
    stats_acc *acc = stats_create(width, n_bins);
    /* one field, prepared once, for every row */
    fieldsrc field;
    if (acc == NULL || fieldsrc_init(&field, spec, graph) != 0) {
        stats_destroy(acc);
        return STATS_ENOMEM;
    }
    int rc = 0;
    for (int j = 0; j < height && rc == 0; j++) {
        if (keep_going != NULL && !keep_going(ctx)) {
            rc = STATS_ECANCELED;
            break;
        }
        /* row j exactly as noise_field_grid computes it: y0 + j*step */
        if (fieldsrc_grid(&field, x0, y0 + (double)j * step, step, width, 1,
                          acc->rows[acc->n_rows % 3], NULL) != 0)
            rc = STATS_ENOMEM;
        else
            commit_row(acc);
    }
    if (rc == 0)
        stats_finish(acc, out);
    fieldsrc_free(&field);
    stats_destroy(acc);
    return rc;
}
