/* metrics.h: the daemon's counters and the Prometheus text exposition of
 * them and of the tile cache's statistics. Lock-free: atomic counters. */
#ifndef METRICS_H
#define METRICS_H

#include <stddef.h>

#include "service/cache.h"
#include "service/route.h"

typedef struct metrics metrics;

/* Returns a zeroed set of counters, or NULL out of memory. Free with
 * metrics_destroy(); metrics_destroy(NULL) does nothing. */
metrics *metrics_create(void);
void metrics_destroy(metrics *m);

/* Counts one finished request of route with HTTP status (100..599). */
void metrics_count_request(metrics *m, route_id route, unsigned int status);

/* Records one tile render + encode that took seconds. */
void metrics_observe_render(metrics *m, double seconds);

/* More exposition text that metrics_text() appends: a malloc()ed string
 * (NULL out of memory) and its length. Set before the first scrape. */
typedef char *(*metrics_extra_fn)(void *ctx, size_t *out_len);
void metrics_set_extra(metrics *m, metrics_extra_fn fn, void *ctx);

/* The Prometheus text format (version 0.0.4) of every counter, plus the
 * cache's statistics when c is not NULL. Returns a malloc()ed NUL-terminated
 * string the caller frees and its length in *out_len, or NULL out of memory. */
char *metrics_text(metrics *m, cache *c, size_t *out_len);

#endif
