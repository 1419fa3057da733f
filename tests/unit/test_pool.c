/* test_pool.c: unit tests of the render pool (server/service/pool.c): every job runs
 * exactly once, fair order between addresses (round robin for equal costs,
 * by work for unequal ones), the bound and the per-address share, clients
 * that leave, drain and destroy with jobs waiting, the workers' lower
 * priority, and many threads submitting at once.
 *
 * Links only server/service/pool.c, so it also builds under ThreadSanitizer.
 */
#include "service/pool.h"
#include "test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* ---- a recording job ---- */

#define MAX_LOG 4096

typedef struct {
    pthread_mutex_t lock;
    int order[MAX_LOG]; /* tags of the jobs run with POOL_RUN, in order */
    int n_order;
    atomic_int runs, cancelled, stopped;
} recorder;

typedef struct {
    pool_job job;
    recorder *rec;
    int tag;
    atomic_int calls;     /* run() calls: must end at exactly 1 */
    atomic_int outcome;
    atomic_int leave;     /* gone() answers this */
    atomic_int *gate;     /* POOL_RUN blocks while *gate is 0 */
    int nice_seen;
    int work_us;
} tjob;

static void recorder_init(recorder *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
}

static void tjob_run(pool_job *job, pool_outcome outcome)
{
    tjob *t = job->arg;
    atomic_fetch_add(&t->calls, 1);
    atomic_store(&t->outcome, (int)outcome);
    if (outcome == POOL_RUN) {
        t->nice_seen = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
        while (t->gate != NULL && atomic_load(t->gate) == 0)
            sleep_ms(1);
        if (t->work_us > 0) {
            struct timespec w = {0, (long)t->work_us * 1000L};
            nanosleep(&w, NULL);
        }
        pthread_mutex_lock(&t->rec->lock);
        if (t->rec->n_order < MAX_LOG)
            t->rec->order[t->rec->n_order++] = t->tag;
        pthread_mutex_unlock(&t->rec->lock);
        atomic_fetch_add(&t->rec->runs, 1);
    } else if (outcome == POOL_CANCELLED) {
        atomic_fetch_add(&t->rec->cancelled, 1);
    } else {
        atomic_fetch_add(&t->rec->stopped, 1);
    }
}

static int tjob_gone(pool_job *job)
{
    tjob *t = job->arg;
    return atomic_load(&t->leave);
}

static void tjob_init(tjob *t, recorder *r, int tag, uint32_t client, uint64_t cost)
{
    memset(t, 0, sizeof *t);
    t->rec = r;
    t->tag = tag;
    pool_client_ipv4(t->job.client, client);
    t->job.cost = cost;
    t->job.run = tjob_run;
    t->job.gone = tjob_gone;
    t->job.arg = t;
}

/* Submits n jobs from one client address, each of cost, tagged tag0,
 * tag0 + 1, ... in that order; the pool accepts every one. */
static void submit_run(pool *p, tjob *jobs, int n, recorder *r, int tag0, uint32_t client,
                       uint64_t cost)
{
    for (int i = 0; i < n; i++) {
        tjob_init(&jobs[i], r, tag0 + i, client, cost);
        CHECK(pool_submit(p, &jobs[i].job) == 0);
    }
}

/* From position first of the run order, n jobs of n_addr addresses taking
 * turns: address 1's first (tag 100), address 2's first (200), ..., then
 * address 1's second (101) and so on. */
static void check_turns(const recorder *r, int first, int n, int n_addr)
{
    for (int k = 0; k < n && first + k < r->n_order; k++) {
        int want = 100 * (k % n_addr + 1) + k / n_addr;
        CHECKF(r->order[first + k] == want, "position %d: got %d, want %d", first + k,
               r->order[first + k], want);
    }
}

static pool *make_pool(int workers, uint64_t bound)
{
    pool_config cfg = {workers, 0, bound, 20};
    return pool_create(&cfg);
}

/* Waits until pred() or 5 s. */
static int wait_for(atomic_int *v, int want)
{
    for (int i = 0; i < 5000 && atomic_load(v) < want; i++)
        sleep_ms(1);
    return atomic_load(v) >= want;
}

/* Blocks the pool's only worker with a job from address 10.0.0.1 until the
 * gate opens, so that the jobs queued meanwhile are ordered by the pool,
 * not by the race of submitting them. */
static void block_worker(pool *p, tjob *blocker, recorder *r, atomic_int *gate)
{
    tjob_init(blocker, r, -1, 0x0a000001, 1);
    blocker->gate = gate;
    CHECK(pool_submit(p, &blocker->job) == 0);
    for (int i = 0; i < 5000; i++) {
        pool_stats st;
        pool_get_stats(p, &st);
        if (st.running_jobs == 1)
            break;
        sleep_ms(1);
    }
}

/* r emptied, and a one-worker pool of the given bound whose worker is held
 * by blocker until gate opens (block_worker; gate is closed here). */
static pool *blocked_pool(uint64_t bound, recorder *r, tjob *blocker, atomic_int *gate)
{
    recorder_init(r);
    pool *p = make_pool(1, bound);
    atomic_store(gate, 0);
    block_worker(p, blocker, r, gate);
    return p;
}

/* ---- tests ---- */

static void test_every_job_runs_once(void)
{
    recorder r;
    recorder_init(&r);
    pool *p = make_pool(3, 1000000);
    CHECK(p != NULL);
    static tjob jobs[200];
    for (int i = 0; i < 200; i++) {
        tjob_init(&jobs[i], &r, i, 0x7f000001 + (uint32_t)(i % 7), 5);
        CHECK(pool_submit(p, &jobs[i].job) == 0);
    }
    CHECK(wait_for(&r.runs, 200));
    pool_destroy(p);
    for (int i = 0; i < 200; i++)
        CHECKF(atomic_load(&jobs[i].calls) == 1 && atomic_load(&jobs[i].outcome) == POOL_RUN,
               "job %d: %d calls", i, atomic_load(&jobs[i].calls));
    pool_destroy(NULL);
}

static void test_round_robin_equal_costs(void)
{
    recorder r;
    atomic_int gate = 0;
    tjob blocker, a[5], b[5], c[5];
    pool *p = blocked_pool(1000000, &r, &blocker, &gate);
    /* Address A queues all of its jobs first, then B, then C. */
    submit_run(p, a, 5, &r, 100, 0x7f000002, 10);
    submit_run(p, b, 5, &r, 200, 0x7f000003, 10);
    submit_run(p, c, 5, &r, 300, 0x7f000004, 10);
    atomic_store(&gate, 1);
    CHECK(wait_for(&r.runs, 16));
    pool_destroy(p);
    /* A1 B1 C1 A2 B2 C2 ...: each address in turn, each in its own order. */
    CHECK(r.n_order == 16 && r.order[0] == -1);
    check_turns(&r, 1, 15, 3);
}

static void test_fair_by_work_not_by_job(void)
{
    /* A floods jobs costing 1000 units, B sends 30 costing 1 each: B's are
     * all done before A's second job starts (by job count, round robin
     * would give B one turn per A job). */
    recorder r;
    atomic_int gate = 0;
    tjob blocker, a[10], b[30];
    pool *p = blocked_pool(1000000, &r, &blocker, &gate);
    submit_run(p, a, 10, &r, 100, 0x7f000002, 1000);
    submit_run(p, b, 30, &r, 200, 0x7f000003, 1);
    atomic_store(&gate, 1);
    CHECK(wait_for(&r.runs, 41));
    pool_destroy(p);
    int pos_a2 = -1, pos_b_last = -1;
    for (int k = 0; k < r.n_order; k++) {
        if (r.order[k] == 101)
            pos_a2 = k;
        if (r.order[k] == 229)
            pos_b_last = k;
    }
    CHECKF(pos_b_last >= 0 && pos_a2 > pos_b_last, "B's last job at %d, A's second at %d",
           pos_b_last, pos_a2);
    /* Each address's own jobs stay in order. */
    int last_a = 99, last_b = 199, in_order = 1;
    for (int k = 1; k < r.n_order; k++) {
        int t = r.order[k];
        if (t < 200) { in_order &= t > last_a; last_a = t; }
        else { in_order &= t > last_b; last_b = t; }
    }
    CHECK(in_order);
}

static void test_no_banked_credit(void)
{
    /* B was idle while A worked; when B comes back it does not get a run of
     * turns for the time it was away: B and A alternate. */
    recorder r;
    recorder_init(&r);
    pool *p = make_pool(1, 1000000);
    tjob warm[20];
    for (int i = 0; i < 20; i++) {
        tjob_init(&warm[i], &r, 0, 0x7f000002, 10);
        CHECK(pool_submit(p, &warm[i].job) == 0);
    }
    CHECK(wait_for(&r.runs, 20));
    atomic_int gate = 0;
    tjob blocker, a[4], b[4];
    block_worker(p, &blocker, &r, &gate);
    for (int i = 0; i < 4; i++) {
        tjob_init(&a[i], &r, 100 + i, 0x7f000002, 10);
        CHECK(pool_submit(p, &a[i].job) == 0);
        tjob_init(&b[i], &r, 200 + i, 0x7f000003, 10);
        CHECK(pool_submit(p, &b[i].job) == 0);
    }
    atomic_store(&gate, 1);
    CHECK(wait_for(&r.runs, 29));
    pool_destroy(p);
    /* After the 20 warm-up jobs and the blocker: A B A B ... */
    check_turns(&r, 21, 8, 2);
}

static void test_bound_and_share(void)
{
    recorder r;
    atomic_int gate = 0;
    tjob blocker, a[10], b[5], big;
    pool *p = blocked_pool(100, &r, &blocker, &gate);
    /* One address may queue 3/4 of the bound: 7 jobs of 10, not 8. */
    int admitted_a = 0, refused_a = 0;
    for (int i = 0; i < 10; i++) {
        tjob_init(&a[i], &r, 100 + i, 0x7f000002, 10);
        int rc = pool_submit(p, &a[i].job);
        CHECK(rc == 0 || rc == POOL_EFULL);
        admitted_a += rc == 0;
        refused_a += rc == POOL_EFULL;
    }
    CHECKF(admitted_a == 7 && refused_a == 3, "address A: %d admitted, %d refused", admitted_a,
           refused_a);
    /* Another address fills the rest of the bound: 3 jobs, then refused. */
    int admitted_b = 0;
    for (int i = 0; i < 5; i++) {
        tjob_init(&b[i], &r, 200 + i, 0x7f000003, 10);
        admitted_b += pool_submit(p, &b[i].job) == 0;
    }
    CHECKF(admitted_b == 3, "address B: %d admitted", admitted_b);
    pool_stats st;
    pool_get_stats(p, &st);
    CHECK(st.queued_cost == 100 && st.queued_jobs == 10 && st.refused_full == 5);
    CHECK(pool_retry_after_s(p) >= 1 && pool_retry_after_s(p) <= 60);
    atomic_store(&gate, 1);
    CHECK(wait_for(&r.runs, 11));
    /* An empty queue takes even a job over the bound (else it could never
     * run). */
    for (int i = 0; i < 1000; i++) {
        pool_get_stats(p, &st);
        if (st.running_jobs == 0 && st.queued_jobs == 0)
            break;
        sleep_ms(1);
    }
    tjob_init(&big, &r, 999, 0x7f000002, 1000);
    CHECK(pool_submit(p, &big.job) == 0);
    CHECK(wait_for(&r.runs, 12));
    pool_destroy(p);
    for (int i = 0; i < 10; i++)
        CHECK(atomic_load(&a[i].calls) == (i < 7 ? 1 : 0));
}

static void test_gone_clients_leave_the_queue(void)
{
    recorder r;
    atomic_int gate = 0;
    tjob blocker, a[7], more;
    pool *p = blocked_pool(100, &r, &blocker, &gate);
    submit_run(p, a, 7, &r, 100, 0x7f000002, 10);
    tjob_init(&more, &r, 200, 0x7f000002, 10);
    CHECK(pool_submit(p, &more.job) == POOL_EFULL);
    /* Five of them leave while the worker is still busy: the sweeper takes
     * them out (run with POOL_CANCELLED) and their share is free again. */
    for (int i = 0; i < 5; i++)
        atomic_store(&a[i].leave, 1);
    CHECK(wait_for(&r.cancelled, 5));
    pool_stats st;
    pool_get_stats(p, &st);
    CHECK(st.queued_jobs == 2 && st.queued_cost == 20 && st.cancelled == 5);
    CHECK(pool_submit(p, &more.job) == 0);
    /* A job whose client leaves just before a worker takes it is skipped
     * too. */
    atomic_store(&a[5].leave, 1);
    atomic_store(&gate, 1);
    CHECK(wait_for(&r.runs, 3));
    pool_destroy(p);
    for (int i = 0; i < 7; i++)
        CHECK(atomic_load(&a[i].calls) == 1);
    CHECK(atomic_load(&a[5].outcome) == POOL_CANCELLED);
    CHECK(atomic_load(&a[6].outcome) == POOL_RUN && atomic_load(&more.outcome) == POOL_RUN);
    CHECK(atomic_load(&r.cancelled) == 6);
}

/* A client that closed its sending side may still read its answer (a
 * half-close) or may have left: its job stays and runs, and is evicted only
 * when a job that would not fit needs its room. */
static void test_maybe_gone_clients_stay_until_their_room_is_needed(void)
{
    recorder r;
    atomic_int gate = 0;
    tjob blocker, a[5], b, c;
    pool *p = blocked_pool(100, &r, &blocker, &gate);
    submit_run(p, a, 5, &r, 100, 0x7f000002, 10);
    for (int i = 0; i < 2; i++)
        atomic_store(&a[i].leave, POOL_MAYBE_GONE);
    sleep_ms(150); /* several sweeps (every 20 ms): none of them is taken */
    pool_stats st;
    pool_get_stats(p, &st);
    CHECK(st.queued_jobs == 5 && st.cancelled == 0);
    /* 50 + 60 > 100: the half-closed ones make room, the others stay. */
    tjob_init(&b, &r, 200, 0x7f000003, 60);
    CHECK(pool_submit(p, &b.job) == 0);
    pool_get_stats(p, &st);
    CHECK(st.cancelled == 2 && st.queued_jobs == 4 && st.queued_cost == 90);
    CHECK(atomic_load(&a[0].outcome) == POOL_CANCELLED && atomic_load(&a[1].calls) == 1);
    /* Nothing left to evict: refused. */
    tjob_init(&c, &r, 300, 0x7f000003, 20);
    CHECK(pool_submit(p, &c.job) == POOL_EFULL);
    /* A worker runs a maybe-gone job it takes (only POOL_GONE skips it). */
    atomic_store(&a[3].leave, POOL_MAYBE_GONE);
    atomic_store(&gate, 1);
    CHECK(wait_for(&r.runs, 5));
    pool_destroy(p);
    for (int i = 2; i < 5; i++)
        CHECK(atomic_load(&a[i].calls) == 1 && atomic_load(&a[i].outcome) == POOL_RUN);
    CHECK(atomic_load(&b.outcome) == POOL_RUN && atomic_load(&c.calls) == 0);
    CHECK(atomic_load(&r.cancelled) == 2);
}

static void *open_gate_later(void *gate)
{
    sleep_ms(50);
    atomic_store((atomic_int *)gate, 1);
    return NULL;
}

static void test_drain_and_destroy(void)
{
    recorder r;
    atomic_int gate = 0;
    tjob blocker, a[6], late;
    pool *p = blocked_pool(1000000, &r, &blocker, &gate);
    for (int i = 0; i < 6; i++) {
        tjob_init(&a[i], &r, 100 + i, 0x7f000002 + (uint32_t)(i % 2), 1000);
        CHECK(pool_submit(p, &a[i].job) == 0);
    }
    /* A budget of 0 ms fits nothing waiting: all six answered at once; the
     * running job goes on; new work is refused. */
    pool_drain(p, 0);
    CHECK(atomic_load(&r.stopped) == 6);
    tjob_init(&late, &r, 300, 0x7f000002, 1);
    CHECK(pool_submit(p, &late.job) == POOL_ESTOPPED);
    CHECK(atomic_load(&blocker.calls) == 1 && atomic_load(&r.runs) == 0);
    atomic_store(&gate, 1);
    pool_destroy(p);
    CHECK(atomic_load(&r.runs) == 1);
    for (int i = 0; i < 6; i++)
        CHECK(atomic_load(&a[i].calls) == 1 && atomic_load(&a[i].outcome) == POOL_STOPPED);
    CHECK(atomic_load(&late.calls) == 0);

    /* A generous budget keeps the waiting jobs: they run. Destroy with jobs
     * still waiting answers them POOL_STOPPED and lets the running one
     * finish. */
    p = blocked_pool(1000000, &r, &blocker, &gate);
    submit_run(p, a, 3, &r, 100, 0x7f000002, 1000);
    pool_drain(p, 60000);
    CHECK(atomic_load(&r.stopped) == 0);
    /* While draining, a job the workers can finish in time is still taken
     * (a request whose body was arriving at the signal); one that cannot
     * is refused. */
    tjob in_time, too_big;
    tjob_init(&in_time, &r, 400, 0x7f000003, 1000);
    tjob_init(&too_big, &r, 401, 0x7f000003, 4000000000000ULL);
    CHECK(pool_submit(p, &in_time.job) == 0);
    CHECK(pool_submit(p, &too_big.job) == POOL_ESTOPPED);
    atomic_store(&gate, 1);
    CHECK(wait_for(&r.runs, 5));
    pool_destroy(p);
    for (int i = 0; i < 3; i++)
        CHECK(atomic_load(&a[i].outcome) == POOL_RUN);
    CHECK(atomic_load(&in_time.outcome) == POOL_RUN && atomic_load(&too_big.calls) == 0);

    p = blocked_pool(1000000, &r, &blocker, &gate);
    submit_run(p, a, 3, &r, 100, 0x7f000002, 1000);
    /* Opens the gate from another thread while destroy waits. */
    pthread_t opener;
    pthread_create(&opener, NULL, open_gate_later, &gate);
    pool_destroy(p);
    pthread_join(opener, NULL);
    CHECK(atomic_load(&blocker.calls) == 1 && atomic_load(&blocker.outcome) == POOL_RUN);
    for (int i = 0; i < 3; i++)
        CHECK(atomic_load(&a[i].calls) == 1 && atomic_load(&a[i].outcome) == POOL_STOPPED);
    CHECK(atomic_load(&r.runs) == 1 && atomic_load(&r.stopped) == 3);
}

static void test_workers_run_at_lower_priority(void)
{
    recorder r;
    recorder_init(&r);
    int base = getpriority(PRIO_PROCESS, 0);
    pool_config cfg = {2, 7, 1000, 20};
    pool *p = pool_create(&cfg);
    tjob j;
    tjob_init(&j, &r, 1, 0x7f000002, 1);
    CHECK(pool_submit(p, &j.job) == 0);
    CHECK(wait_for(&r.runs, 1));
    pool_destroy(p);
    int want = base + 7 > 19 ? 19 : base + 7;
    CHECKF(j.nice_seen == want, "worker nice %d, want %d", j.nice_seen, want);
    /* The submitting thread keeps its own priority. */
    CHECK(getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid)) == base);
}

/* ---- many submitters at once (the ThreadSanitizer build's main case) ---- */

#define N_SUBMITTERS 4
#define PER_SUBMITTER 300

typedef struct {
    pool *p;
    recorder *r;
    tjob *jobs;
    int id;
    int refused;
} submitter;

static void *submit_many(void *arg)
{
    submitter *s = arg;
    unsigned seed = (unsigned)s->id * 7919u + 1;
    for (int i = 0; i < PER_SUBMITTER; i++) {
        tjob *t = &s->jobs[i];
        seed = seed * 1103515245u + 12345u;
        tjob_init(t, s->r, s->id * 1000 + i, 0x7f000002 + (seed >> 16) % 5,
                  1 + (seed >> 8) % 50);
        t->work_us = (int)((seed >> 4) % 200);
        if ((seed >> 12) % 10 == 0)
            atomic_store(&t->leave, 1);
        if (pool_submit(s->p, &t->job) != 0)
            s->refused++;
        if (i % 50 == 0)
            sleep_ms(2);
    }
    return NULL;
}

static void test_many_threads_submit(void)
{
    recorder r;
    recorder_init(&r);
    pool *p = make_pool(3, 2000);
    static tjob jobs[N_SUBMITTERS][PER_SUBMITTER];
    submitter s[N_SUBMITTERS];
    pthread_t th[N_SUBMITTERS];
    for (int i = 0; i < N_SUBMITTERS; i++) {
        s[i] = (submitter){p, &r, jobs[i], i, 0};
        pthread_create(&th[i], NULL, submit_many, &s[i]);
    }
    int refused = 0;
    for (int i = 0; i < N_SUBMITTERS; i++) {
        pthread_join(th[i], NULL);
        refused += s[i].refused;
    }
    pool_destroy(p);
    /* Every admitted job got exactly one call; refused ones none. */
    int calls = 0, bad = 0;
    for (int i = 0; i < N_SUBMITTERS; i++)
        for (int k = 0; k < PER_SUBMITTER; k++) {
            int c = atomic_load(&jobs[i][k].calls);
            calls += c;
            bad += c > 1;
        }
    CHECK(bad == 0);
    CHECKF(calls + refused == N_SUBMITTERS * PER_SUBMITTER, "%d calls + %d refused", calls,
           refused);
    CHECK(atomic_load(&r.runs) + atomic_load(&r.cancelled) + atomic_load(&r.stopped) == calls);
    CHECK(atomic_load(&r.runs) > 0);
}

int main(void)
{
    RUN(test_every_job_runs_once);
    RUN(test_round_robin_equal_costs);
    RUN(test_fair_by_work_not_by_job);
    RUN(test_no_banked_credit);
    RUN(test_bound_and_share);
    RUN(test_gone_clients_leave_the_queue);
    RUN(test_maybe_gone_clients_stay_until_their_room_is_needed);
    RUN(test_drain_and_destroy);
    RUN(test_workers_run_at_lower_priority);
    RUN(test_many_threads_submit);
    return t_done();
}
