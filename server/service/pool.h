/* pool.h: the render pool: worker threads that evaluate the field off the
 * connection threads, fed by a queue that is fair between client addresses
 * and bounded by estimated work.
 *
 * Fairness. Each client address has its own FIFO of jobs. A free worker
 * takes the next job of the address that has been charged the least work so
 * far (start-time fair queueing: a job's estimated cost is charged to its
 * address when it starts; an address that comes back after a pause starts
 * level with the others, it does not bank credit). With equal costs this is
 * plain round robin; with unequal costs it shares the workers' time, not
 * their job count, so an address flooding 2-second renders cannot starve
 * another address's 2-millisecond tiles (round robin by job would give
 * those one turn per 2 seconds).
 *
 * Bound. The total estimated cost of waiting jobs (not the running ones) is
 * at most max_queued_cost, and one address may hold at most three quarters
 * of it, so a flood from one address leaves room for everyone else (the
 * same share as the per-address connection limit, daemon_limits.h). A job
 * that does not fit is refused at once (POOL_EFULL): the caller answers
 * 503 with Retry-After (pool_retry_after_s).
 *
 * Clients that leave. A job may carry a gone() probe (the HTTP layer peeks
 * at the socket). Workers probe a job before running it, and a sweeper
 * thread probes every waiting job every 100 ms; a job whose client has gone
 * (POOL_GONE) leaves the queue (run with POOL_CANCELLED) and frees its share
 * of the bound. A job whose client may have gone (POOL_MAYBE_GONE: it
 * closed its sending side, which a client that half-closes after its
 * request and still reads the answer does too) stays and is run, unless its
 * room is needed: the sweeper marks it, and a job that does not fit the
 * bound first evicts the marked ones (POOL_CANCELLED; no probe on that
 * path), then is refused only if it still does not fit. The next block of
 * a stream under way (continuation) is never evicted. A job already
 * running is not interrupted (a tile then finishes into the cache).
 *
 * Every submitted job's run() is called exactly once, with POOL_RUN on a
 * worker, or with POOL_CANCELLED / POOL_STOPPED on a worker, the sweeper or
 * the thread that drains or destroys the pool. After run() returns the pool
 * never touches the job again (run may free it). */
#ifndef POOL_H
#define POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct pool pool;
typedef struct pool_job pool_job;

typedef enum {
    POOL_RUN = 0,   /* do the work now (on a worker thread) */
    POOL_CANCELLED, /* the client left while the job waited: skip the work */
    POOL_STOPPED    /* the pool is stopping and the job was not run: answer 503 */
} pool_outcome;

struct pool_job {
    /* Set by the caller before pool_submit(). */
    unsigned char client[16];  /* client address (IPv4 as ::ffff:a.b.c.d) */
    uint64_t cost;             /* estimated work (cost.h), >= 1 */
    void (*run)(pool_job *job, pool_outcome outcome);
    int (*gone)(pool_job *job); /* optional: POOL_THERE, POOL_GONE or
                                   POOL_MAYBE_GONE (see above) */
    void *arg;                 /* the caller's */
    int continuation;          /* 1: more work of an admitted request (the
                                  next band of a stream): not refused for
                                  the bound, only when stopping */
    /* The pool's. */
    pool_job *next;
    struct pool_client *owner;
    long long queued_ms;
    int maybe_gone;            /* the sweeper saw POOL_MAYBE_GONE */
};

typedef struct {
    int workers;              /* worker threads, >= 1 */
    int nice;                 /* added to the workers' nice value (0..19) */
    uint64_t max_queued_cost; /* bound on the waiting jobs' total cost */
    int sweep_ms;             /* how often waiting jobs are probed; 0: 100 */
} pool_config;

/* What a job's gone() probe answers. */
enum { POOL_THERE = 0, POOL_GONE = 1, POOL_MAYBE_GONE = 2 };

/* Error codes of pool_submit (negative). */
enum { POOL_EFULL = -1, POOL_ESTOPPED = -2, POOL_ENOMEM = -3 };

/* Starts cfg->workers threads at the lower priority and the sweeper.
 * Returns NULL on failure (out of memory, no thread). Free with
 * pool_destroy(). */
pool *pool_create(const pool_config *cfg);

/* Queues job (see the bound above). Returns 0: job->run will be called
 * exactly once; or POOL_EFULL (over the bound), POOL_ESTOPPED (draining or
 * destroyed) or POOL_ENOMEM: run is never called. Thread-safe. */
int pool_submit(pool *p, pool_job *job);

/* Graceful stop, first half: of the waiting jobs, those the workers can
 * start within budget_ms at the measured speed stay queued, the others are
 * run with POOL_STOPPED now; from now on pool_submit() takes only a job
 * the workers can finish, after everything waiting, within budget_ms of
 * this call (a request whose body was still arriving), and returns
 * POOL_ESTOPPED for the others. Running jobs go on. A continuation (the
 * next block of a stream under way) is neither dropped nor refused: it
 * runs until pool_destroy(). */
void pool_drain(pool *p, int budget_ms);

/* Runs every job still waiting with POOL_STOPPED, waits for the running
 * jobs to finish, joins the threads and frees the pool. pool_destroy(NULL)
 * does nothing. */
void pool_destroy(pool *p);

typedef struct {
    int workers;
    uint64_t max_queued_cost;
    uint64_t queued_jobs, queued_cost, running_jobs, clients;
    uint64_t submitted, refused_full, refused_stopped;
    uint64_t completed, cancelled, stopped; /* outcomes so far */
    uint64_t cost_done;       /* estimated cost of the completed jobs */
    double run_seconds;       /* worker time spent in completed jobs */
    double wait_seconds;      /* queue time of the jobs started so far */
    double ns_per_unit;       /* measured speed of one worker (moving average) */
} pool_stats;

/* A consistent snapshot of the pool's counters. */
void pool_get_stats(pool *p, pool_stats *out);

/* Seconds a refused client should wait before retrying: the time the
 * workers need for the work waiting now, at least 1, at most 60. */
int pool_retry_after_s(pool *p);

/* Writes the IPv4-mapped form (::ffff:a.b.c.d) of an IPv4 address. */
void pool_client_ipv4(unsigned char out[16], uint32_t ipv4_host_order);

#endif
