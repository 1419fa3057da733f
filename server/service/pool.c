/* pool.c: the render pool: workers, the fair bounded queue, the sweeper
 * (see pool.h).
 *
 * One mutex guards everything: the clients (a small hash table of the
 * addresses with waiting or running jobs), the list of addresses with
 * waiting jobs in the order they became active, and the counters. Job
 * callbacks always run without the lock. Links on its own (pthreads only)
 * so that the ThreadSanitizer test build needs nothing else.
 */
#include "service/pool.h"

#include "base/hash.h"
#include "base/monotime.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define N_BUCKETS 256
/* One address may hold this share of the bound (numerator / denominator). */
#define SHARE_NUM 3
#define SHARE_DEN 4
/* Speed assumed until the first job is measured (cost.h: a unit is about
 * 20 ns of one core). */
#define DEFAULT_NS_PER_UNIT 20.0

typedef struct pool_client {
    unsigned char addr[16];
    struct pool_client *hnext;       /* hash chain */
    struct pool_client *prev, *next; /* active list: clients with waiting jobs */
    pool_job *head, *tail;           /* waiting jobs, FIFO */
    uint64_t queued_cost;
    int running;                     /* jobs of this client on a worker now */
    int active;                      /* in the active list */
    uint64_t vtime;                  /* work charged so far (fair queueing) */
} pool_client;

struct pool {
    pthread_mutex_t lock;
    pthread_cond_t work;     /* a job was queued, or stopping */
    pthread_cond_t sweep;    /* wakes the sweeper early (destroy) */
    pthread_t *threads;
    int n_threads;
    pthread_t sweeper;
    int sweeper_started;
    pool_config cfg;
    int stopping;            /* draining: submissions only until drain_until_ms */
    long long drain_until_ms;
    int exiting;             /* workers leave when the queue is empty */
    pool_client *buckets[N_BUCKETS];
    pool_client *active_head, *active_tail;
    uint64_t vclock;         /* start tag of the latest started job */
    uint64_t n_marked;       /* waiting jobs marked maybe_gone */
    pool_stats st;
};


void pool_client_ipv4(unsigned char out[16], uint32_t ipv4)
{
    memset(out, 0, 16);
    out[10] = out[11] = 0xff;
    out[12] = (unsigned char)(ipv4 >> 24);
    out[13] = (unsigned char)(ipv4 >> 16);
    out[14] = (unsigned char)(ipv4 >> 8);
    out[15] = (unsigned char)ipv4;
}

static unsigned bucket_of(const unsigned char addr[16])
{
    return (unsigned)(hash_fnv1a(addr, 16) % N_BUCKETS);
}

/* ---- clients (lock held) ---- */

static pool_client *client_find(pool *p, const unsigned char addr[16], int create)
{
    unsigned b = bucket_of(addr);
    for (pool_client *c = p->buckets[b]; c != NULL; c = c->hnext)
        if (memcmp(c->addr, addr, 16) == 0)
            return c;
    if (!create)
        return NULL;
    pool_client *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    memcpy(c->addr, addr, 16);
    c->vtime = p->vclock;
    c->hnext = p->buckets[b];
    p->buckets[b] = c;
    p->st.clients++;
    return c;
}

/* Frees a client with nothing waiting and nothing running. */
static void client_release_if_idle(pool *p, pool_client *c)
{
    if (c->head != NULL || c->running > 0)
        return;
    pool_client **pp = &p->buckets[bucket_of(c->addr)];
    while (*pp != c)
        pp = &(*pp)->hnext;
    *pp = c->hnext;
    p->st.clients--;
    free(c);
}

static void active_remove(pool *p, pool_client *c)
{
    if (!c->active)
        return;
    if (c->prev) c->prev->next = c->next; else p->active_head = c->next;
    if (c->next) c->next->prev = c->prev; else p->active_tail = c->prev;
    c->prev = c->next = NULL;
    c->active = 0;
}

static void active_append(pool *p, pool_client *c)
{
    c->prev = p->active_tail;
    c->next = NULL;
    if (p->active_tail) p->active_tail->next = c; else p->active_head = c;
    p->active_tail = c;
    c->active = 1;
}

/* Unlinks job from its client's queue (it must be queued there). */
static void job_unlink(pool *p, pool_job *job)
{
    pool_client *c = job->owner;
    pool_job **pp = &c->head;
    pool_job *prev = NULL;
    while (*pp != job) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    *pp = job->next;
    if (c->tail == job)
        c->tail = prev;
    job->next = NULL;
    if (job->maybe_gone)
        p->n_marked--;
    c->queued_cost -= job->cost;
    p->st.queued_cost -= job->cost;
    p->st.queued_jobs--;
    if (c->head == NULL)
        active_remove(p, c);
}

/* The next job in fair order, taken off the queue; NULL if none. */
static pool_job *take_next(pool *p)
{
    pool_client *best = NULL;
    for (pool_client *c = p->active_head; c != NULL; c = c->next)
        if (best == NULL || c->vtime < best->vtime)
            best = c; /* ties: the earliest in the list, i.e. round robin */
    if (best == NULL)
        return NULL;
    pool_job *job = best->head;
    job_unlink(p, job);
    if (best->vtime > p->vclock)
        p->vclock = best->vtime;
    best->vtime += job->cost;
    best->running++;
    p->st.running_jobs++;
    if (best->head != NULL) {
        /* Served: to the back of the line among equals. */
        active_remove(p, best);
        active_append(p, best);
    }
    return job;
}

/* ---- workers ---- */

static void lower_priority(int nice)
{
    if (nice <= 0)
        return;
    /* Linux: PRIO_PROCESS with a thread id sets that thread's nice value. */
    id_t tid = (id_t)syscall(SYS_gettid);
    int cur = getpriority(PRIO_PROCESS, tid);
    setpriority(PRIO_PROCESS, tid, cur + nice > 19 ? 19 : cur + nice);
}

static void *worker_main(void *arg)
{
    pool *p = arg;
    lower_priority(p->cfg.nice);
    pthread_mutex_lock(&p->lock);
    for (;;) {
        pool_job *job = take_next(p);
        if (job == NULL) {
            if (p->exiting)
                break;
            pthread_cond_wait(&p->work, &p->lock);
            continue;
        }
        pool_client *c = job->owner;
        uint64_t cost = job->cost;
        p->st.wait_seconds += (double)(monotime_ms() - job->queued_ms) * 1e-3;
        pthread_mutex_unlock(&p->lock);

        pool_outcome outcome =
            (job->gone != NULL && job->gone(job) == POOL_GONE) ? POOL_CANCELLED : POOL_RUN;
        double t0 = monotime_s();
        job->run(job, outcome); /* job may be freed from here on */
        double dt = monotime_s() - t0;

        pthread_mutex_lock(&p->lock);
        c->running--;
        p->st.running_jobs--;
        if (outcome == POOL_RUN) {
            p->st.completed++;
            p->st.cost_done += cost;
            p->st.run_seconds += dt;
            /* Moving average of the speed, from jobs big enough that their
             * fixed costs (a reply's allocation, a small batch's parsing)
             * do not swamp the estimate: a 256-pixel tile's worth. */
            if (cost >= 65536 && dt > 1e-4) {
                double ns = dt * 1e9 / (double)cost;
                p->st.ns_per_unit = 0.8 * p->st.ns_per_unit + 0.2 * ns;
            }
        } else {
            p->st.cancelled++;
        }
        client_release_if_idle(p, c);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Which waiting jobs collect() takes. */
enum {
    TAKE_ALL,
    TAKE_GONE,  /* probes each job: takes POOL_GONE, marks POOL_MAYBE_GONE */
    TAKE_MARKED /* the marked ones (no probe) */
};

/* Takes the jobs that match off the queue into a list; *n gets their
 * number. */
static pool_job *collect(pool *p, int which, uint64_t *n)
{
    pool_job *out = NULL, **tail = &out;
    *n = 0;
    for (pool_client *c = p->active_head, *cn; c != NULL; c = cn) {
        cn = c->next;
        for (pool_job *j = c->head, *jn; j != NULL; j = jn) {
            jn = j->next;
            if (which == TAKE_MARKED && !j->maybe_gone)
                continue;
            if (which == TAKE_GONE) {
                int g = j->gone != NULL ? j->gone(j) : POOL_THERE;
                /* The next block of a stream already under way is not
                 * marked: its client, once written to, is POOL_GONE if it
                 * left. */
                if (g == POOL_MAYBE_GONE && !j->maybe_gone && !j->continuation) {
                    j->maybe_gone = 1;
                    p->n_marked++;
                }
                if (g != POOL_GONE)
                    continue;
            }
            (*n)++;
            job_unlink(p, j);
            *tail = j;
            tail = &j->next;
        }
        client_release_if_idle(p, c);
    }
    return out;
}

/* Runs each job of list with outcome (lock not held). */
static void finish_list(pool_job *list, pool_outcome outcome)
{
    while (list != NULL) {
        pool_job *next = list->next;
        list->next = NULL;
        list->run(list, outcome);
        list = next;
    }
}

static void *sweeper_main(void *arg)
{
    pool *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->exiting) {
        struct timespec until = monotime_after_ms(p->cfg.sweep_ms);
        pthread_cond_timedwait(&p->sweep, &p->lock, &until);
        if (p->exiting || p->active_head == NULL)
            continue;
        /* The probes are cheap non-blocking syscalls on at most the queue's
         * jobs (bounded); taking the lock for them keeps jobs from moving. */
        uint64_t n;
        pool_job *gone = collect(p, TAKE_GONE, &n);
        p->st.cancelled += n;
        pthread_mutex_unlock(&p->lock);
        finish_list(gone, POOL_CANCELLED);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* ---- lifetime ---- */

pool *pool_create(const pool_config *cfg)
{
    if (cfg->workers < 1)
        return NULL;
    pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        goto fail_pool;
    p->cfg = *cfg;
    if (p->cfg.sweep_ms <= 0)
        p->cfg.sweep_ms = 100;
    p->st.workers = cfg->workers;
    p->st.max_queued_cost = cfg->max_queued_cost;
    p->st.ns_per_unit = DEFAULT_NS_PER_UNIT;
    p->threads = calloc((size_t)cfg->workers, sizeof *p->threads);
    if (p->threads == NULL)
        goto fail_threads;
    if (pthread_mutex_init(&p->lock, NULL) != 0)
        goto fail_lock;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        goto fail_attr;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_cond_init(&p->work, NULL) != 0)
        goto fail_work;
    if (pthread_cond_init(&p->sweep, &ca) != 0)
        goto fail_sweep;
    pthread_condattr_destroy(&ca);
    for (; p->n_threads < cfg->workers; p->n_threads++)
        if (pthread_create(&p->threads[p->n_threads], NULL, worker_main, p) != 0)
            goto fail_start;
    if (pthread_create(&p->sweeper, NULL, sweeper_main, p) != 0)
        goto fail_start;
    p->sweeper_started = 1;
    return p;

fail_start:
    pool_destroy(p); /* joins the threads started so far */
    return NULL;
fail_sweep:
    pthread_cond_destroy(&p->work);
fail_work:
    pthread_condattr_destroy(&ca);
fail_attr:
    pthread_mutex_destroy(&p->lock);
fail_lock:
    free(p->threads);
fail_threads:
    free(p);
fail_pool:
    return NULL;
}

int pool_submit(pool *p, pool_job *job)
{
    if (job->cost == 0)
        job->cost = 1;
    pthread_mutex_lock(&p->lock);
    int rc = 0;
    pool_job *evicted = NULL;
    if (p->stopping) {
        /* Draining: a request already under way when the drain began (its
         * body was still arriving) is still rendered if the workers can
         * finish it, after all the work waiting, before the drain's end. */
        double ms = (double)(p->st.queued_cost + job->cost) * p->st.ns_per_unit * 1e-6 /
                    (double)p->n_threads;
        /* The next block of a stream under way (a continuation) is taken
         * until the pool is destroyed at the drain's end: a grid being
         * sent finishes within the drain time instead of being cut when
         * the budget for new work runs out. */
        if (p->exiting ||
            (!job->continuation && (double)monotime_ms() + ms > (double)p->drain_until_ms)) {
            p->st.refused_stopped++;
            rc = POOL_ESTOPPED;
            goto out;
        }
    }
    uint64_t bound = p->cfg.max_queued_cost;
    uint64_t share = bound / SHARE_DEN * SHARE_NUM;
    /* An empty queue takes any job, so a job over the bound cannot wait
     * forever; otherwise both the total and the address's share must fit. */
    pool_client *c = client_find(p, job->client, 0);
    uint64_t mine = c != NULL ? c->queued_cost : 0;
    int fits = job->continuation || p->st.queued_jobs == 0 ||
               (p->st.queued_cost + job->cost <= bound && mine + job->cost <= share);
    if (!fits && p->n_marked > 0) {
        /* Room taken by jobs whose clients may have left is given back
         * first (pool.h, "Clients that leave"). */
        uint64_t n;
        evicted = collect(p, TAKE_MARKED, &n); /* may free c */
        p->st.cancelled += n;
        c = client_find(p, job->client, 0);
        mine = c != NULL ? c->queued_cost : 0;
        fits = p->st.queued_jobs == 0 ||
               (p->st.queued_cost + job->cost <= bound && mine + job->cost <= share);
    }
    if (fits && c == NULL)
        c = client_find(p, job->client, 1);
    if (c == NULL && fits) {
        rc = POOL_ENOMEM;
        goto out;
    }
    if (!fits) {
        p->st.refused_full++;
        rc = POOL_EFULL;
        goto out;
    }
    job->owner = c;
    job->next = NULL;
    job->maybe_gone = 0;
    job->queued_ms = monotime_ms();
    if (c->tail) c->tail->next = job; else c->head = job;
    c->tail = job;
    c->queued_cost += job->cost;
    if (!c->active) {
        /* Back after a pause: level with the others, no banked credit. */
        if (c->vtime < p->vclock)
            c->vtime = p->vclock;
        active_append(p, c);
    }
    p->st.queued_cost += job->cost;
    p->st.queued_jobs++;
    p->st.submitted++;
    pthread_cond_signal(&p->work);
out:
    pthread_mutex_unlock(&p->lock);
    finish_list(evicted, POOL_CANCELLED);
    return rc;
}

void pool_drain(pool *p, int budget_ms)
{
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    p->drain_until_ms = monotime_ms() + budget_ms;
    /* Each address gets about 1/n of the workers' time: a job whose place
     * in its address's queue times n fits the budget stays. */
    uint64_t n_active = 0;
    for (pool_client *c = p->active_head; c != NULL; c = c->next)
        n_active++;
    double units_budget =
        (double)budget_ms * 1e6 / p->st.ns_per_unit * (double)p->n_threads;
    pool_job *out = NULL, **tail = &out;
    uint64_t n_out = 0;
    for (pool_client *c = p->active_head, *cn; c != NULL; c = cn) {
        cn = c->next;
        double ahead = 0;
        for (pool_job *j = c->head, *jn; j != NULL; j = jn) {
            jn = j->next;
            ahead += (double)j->cost;
            if (j->continuation || ahead * (double)n_active <= units_budget)
                continue; /* a stream's next block stays (see pool_submit) */
            job_unlink(p, j);
            *tail = j;
            tail = &j->next;
            n_out++;
        }
        client_release_if_idle(p, c);
    }
    p->st.stopped += n_out;
    pthread_mutex_unlock(&p->lock);
    finish_list(out, POOL_STOPPED);
}

void pool_destroy(pool *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->stopping = 1;
    p->exiting = 1;
    uint64_t n;
    pool_job *left = collect(p, TAKE_ALL, &n);
    p->st.stopped += n;
    pthread_cond_broadcast(&p->work);
    pthread_cond_broadcast(&p->sweep);
    pthread_mutex_unlock(&p->lock);
    finish_list(left, POOL_STOPPED);
    for (int i = 0; i < p->n_threads; i++)
        pthread_join(p->threads[i], NULL);
    if (p->sweeper_started)
        pthread_join(p->sweeper, NULL);
    /* Every client is idle now and was freed by the workers. */
    pthread_cond_destroy(&p->sweep);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p);
}

void pool_get_stats(pool *p, pool_stats *out)
{
    pthread_mutex_lock(&p->lock);
    *out = p->st;
    pthread_mutex_unlock(&p->lock);
}

int pool_retry_after_s(pool *p)
{
    pthread_mutex_lock(&p->lock);
    double s = (double)p->st.queued_cost * p->st.ns_per_unit * 1e-9 / (double)p->n_threads;
    pthread_mutex_unlock(&p->lock);
    return s < 1 ? 1 : s > 60 ? 60 : (int)(s + 0.999);
}
