/* grid.h: a window of the field (any origin, spacing and size) encoded as
 * .npy, .r16 or a 16-bit/Terrain-RGB PNG (heights.h), produced in bands of
 * rows so that a large grid is sent while it is computed, in bounded memory.
 *
 * Sample (i, j) is the field at (x + i*step, y + j*step), each row computed
 * at exactly y + j*step (noise_field_grid on one row, of a field prepared
 * once per job), so any band split gives the same numbers as /points at
 * those coordinates (float32).
 *
 * A job is driven from outside: grid_job_compute_band() does the heavy
 * work (one band: noise, encoding, compression) and may run on any thread;
 * grid_job_pending()/grid_job_consume() hand the bytes to the connection.
 * One thread at a time per job.
 *
 * A picture (grid.png without an encoding) shows each sample in the colour
 * an RGB tile of the same options gives it (render_color_row); its zero line
 * looks at the sample to the right and below, computed one column and one
 * row beyond the window as tiles do.
 */
#ifndef GRID_H
#define GRID_H

#include <stddef.h>
#include <stdint.h>

#include "base/daemon_limits.h"
#include "heights/heights.h"
#include "noise.h"
#include "tiles/fieldsrc.h"
#include "tiles/render.h"

/* Window limits (daemon_limits.h says why). */
#define GRID_MAX_SIDE LIMIT_GRID_SIDE        /* width and height each */
#define GRID_MAX_SAMPLES LIMIT_GRID_SAMPLES  /* 4097 * 4097 */
#define GRID_MAX_STEP LIMIT_GRID_STEP

/* Bytes of encoded output one band aims at (a band is at least one row). */
#define GRID_BAND_BYTES (256 * 1024)

typedef struct {
    noise_spec spec;
    double x, y, step;  /* finite; step > 0 */
    int width, height;  /* 1..GRID_MAX_SIDE, product <= GRID_MAX_SAMPLES */
    heights_opts enc;   /* the numbers' encoding, unless picture */
    int picture;        /* 1: an 8-bit RGB PNG picture with render's colours
                           (palette, shade, zero line) instead of numbers */
    render_opts render; /* picture only */
    int gzip;           /* 1: gzip the body (.npy and .r16 only) */
    fieldsrc_graph *graph; /* not NULL: this prepared graph is the field, not
                              spec (borrowed; a job holds its own reference) */
} grid_request;

typedef struct grid_job grid_job;

/* Rows per band of a job for req: as many as make about GRID_BAND_BYTES of
 * encoded output, at least one. */
int grid_band_rows(const grid_request *req);

/* A new job for req (copied). Returns 0 and *out, or -1 out of memory.
 * Free with grid_job_destroy() (NULL: nothing). Nothing is computed yet. */
int grid_job_create(const grid_request *req, grid_job **out);
void grid_job_destroy(grid_job *job);

/* The body's exact size when known in advance (uncompressed .npy and
 * .r16), else -1 (PNG, gzip: sent chunked). */
int64_t grid_job_body_size(const grid_job *job);

/* Computes the next band and appends its bytes to the pending ones.
 * Returns 1 if a band was computed, 0 when every row is done already, -1
 * out of memory (the job is then unusable). */
int grid_job_compute_band(grid_job *job);

/* 1 when every row has been computed (the pending bytes are the last). */
int grid_job_finished(const grid_job *job);

/* The bytes computed and not yet consumed: returns their count and points
 * *data at them (valid until the next compute or consume). */
size_t grid_job_pending(const grid_job *job, const unsigned char **data);
/* Marks n pending bytes as sent. */
void grid_job_consume(grid_job *job, size_t n);
/* Copies up to max pending bytes into buf and consumes them: the count
 * (at most LONG_MAX), 0 when nothing is pending. Computes nothing. */
long grid_job_take(grid_job *job, void *buf, size_t max);

/* Copies up to max bytes of the body into buf, computing bands as needed
 * (the whole job on the calling thread, for the connection layer's content reader
 * when no worker is used). Returns the bytes copied, 0 at the end of the
 * body, -1 out of memory. */
long grid_job_read(grid_job *job, unsigned char *buf, size_t max);

/* The whole body at once (numeric tiles): returns 0 and a malloc()ed
 * *out_body of *out_size bytes that the caller frees; -1 out of memory. */
int grid_render(const grid_request *req, unsigned char **out_body, size_t *out_size);

#endif
