/* stats.h: statistics of a field over a window of samples (range, mean,
 * standard deviation, share beyond +-0.5, peaks, histogram), as the Islands
 * page measured them, in one pass over the rows with three rows in memory.
 *
 * Sample (i, j) of a window is the field at (x0 + i*step, y0 + j*step), the
 * float that noise_eval_grid gives for it (one field prepared for all the
 * rows), so a window's statistics are those of the grid endpoint's samples. Pure computation: no I/O, no HTTP.
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

#include "noise.h"
#include "tiles/fieldsrc.h"

#define STATS_MAX_BINS 256
#define STATS_DEFAULT_BINS 32

typedef struct {
    uint64_t count;        /* samples */
    double min, max;       /* smallest and largest sample */
    double mean, sd;       /* mean and population standard deviation */
    uint64_t beyond_half;  /* samples with |v| > 0.5 */
    /* strict local maxima: samples off the window's border that are above
     * each of their 8 neighbours (a plateau has none) */
    uint64_t peaks;
    int n_bins;
    /* hist[k] counts samples in [-1 + k*w, -1 + (k+1)*w), w = 2/n_bins; the
     * last bin also holds 1. Values lie in [-1, 1] (noise.h). */
    uint64_t hist[STATS_MAX_BINS];
} stats_summary;

typedef struct stats_acc stats_acc;

/* An accumulator for rows of width samples (width >= 1) into n_bins
 * histogram bins (1..STATS_MAX_BINS). Returns NULL out of memory (or on a
 * caller's bad width/n_bins, asserted in debug builds). Free with
 * stats_destroy(); stats_destroy(NULL) does nothing. */
stats_acc *stats_create(int width, int n_bins);
void stats_destroy(stats_acc *acc);

/* Adds the next row (width floats, top to bottom). */
void stats_add_row(stats_acc *acc, const float *row);

/* The summary of the rows added so far (at least one). */
void stats_finish(const stats_acc *acc, stats_summary *out);

/* Evaluates the width x height window of the field row by row and
 * summarises it. keep_going, when not NULL, is asked between rows and a 0
 * stops the work (a client that left): returns STATS_ECANCELED. Returns 0
 * and fills *out, or STATS_ENOMEM. Memory: 3 rows of floats plus one row
 * of the core's scratch, whatever the height. */
int stats_field(const noise_spec *spec, double x0, double y0, double step, int width, int height,
                int n_bins, int (*keep_going)(void *ctx), void *ctx, stats_summary *out);

/* stats_field of a prepared graph when graph is not NULL (spec unused). */
int stats_field_src(const noise_spec *spec, const fieldsrc_graph *graph, double x0, double y0,
                    double step, int width, int height, int n_bins, int (*keep_going)(void *ctx),
                    void *ctx, stats_summary *out);

#define STATS_ENOMEM (-12)
#define STATS_ECANCELED (-125)

#endif
