/* workers.h: the export's render threads. Workers take the next tile of
 * the export's order (plan_iter) and render it in parallel, at most a
 * window of tiles ahead of the writer; the writer takes the results strictly
 * in order, so the output does not depend on thread timing. Memory: the
 * window (8 tiles a thread), whatever the export's size. */
#ifndef EXPORT_WORKERS_H
#define EXPORT_WORKERS_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "export/plan.h"

/* One rendered tile, waiting for the writer. */
typedef struct {
    int ready, rc;
    uint64_t id; /* the tile's archive id */
    unsigned char *png;
    size_t size;
} export_workers_slot;

typedef struct {
    const plan *p;
    plan_iter order;
    uint64_t n, next, written;
    size_t window;
    export_workers_slot *slots;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    pthread_t *threads;
    long started;
} export_workers;

/* Starts jobs threads rendering the n tiles of p's order from position
 * pos. The threads start with
 * SIGINT and SIGTERM blocked, so only the calling thread sees them.
 * Returns 0, or -1 when no thread could start (export_workers_stop still
 * releases w). */
int export_workers_start(export_workers *w, const plan *p, uint64_t pos, uint64_t n, long jobs);

/* Waits for tile i (taken in order 0, 1, ...) and hands it over in *got
 * (the caller frees got->png). Returns 1, or 0 when *stop became non-zero
 * first (checked at least every 200 ms). */
int export_workers_take(export_workers *w, uint64_t i, volatile sig_atomic_t *stop,
                        export_workers_slot *got);

/* Stops and joins the threads and frees what is left. */
void export_workers_stop(export_workers *w);

#endif
