/* fdlimits.c: connection limits from the open-file limit (fdlimits.h). */
#include "net/fdlimits.h"

#include <stdio.h>
#include <sys/resource.h>

#include "base/daemon_limits.h"

int fdlimits_derive(unsigned long long nofile, unsigned long long hard, unsigned threads,
                    unsigned per_thread, fdlimits *out, char *err, size_t err_size)
{
    fdlimits l = {0};
    l.nofile = nofile;
    l.hard = hard;
    l.threads = threads;
    l.reserve = LIMIT_FD_RESERVE_PER_THREAD * threads + LIMIT_FD_RESERVE;
    unsigned long long want = (unsigned long long)threads * per_thread;
    unsigned long long room = nofile > l.reserve ? nofile - l.reserve : 0;
    if (room < threads) {
        snprintf(err, err_size,
                 "the open-file limit %llu leaves no room for connections with %u threads "
                 "(it needs at least %u): raise it (ulimit -n, docker run --ulimit nofile=N) "
                 "or lower --threads",
                 nofile, threads, l.reserve + threads);
        return -1;
    }
    l.by_files = room < want;
    l.connections = (unsigned)(l.by_files ? room : want);
    l.per_address = l.connections * LIMIT_PER_IP_NUM / LIMIT_PER_IP_DEN;
    if (l.per_address == 0)
        l.per_address = 1;
    /* Headroom below the connection limit: one slot per thread at least, so
     * that while the guard keeps the open count at shed_above some thread
     * of the pool is always below its share and accepts (the HTTP library
     * divides the limit among the threads). */
    unsigned headroom = l.connections / LIMIT_SHED_HEADROOM_DIV;
    if (headroom < threads)
        headroom = threads;
    l.shed_above = l.connections > headroom ? l.connections - headroom : 1;
    *out = l;
    return 0;
}

int fdlimits_plan(unsigned threads, unsigned per_thread, fdlimits *out, char *err,
                  size_t err_size)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        snprintf(err, err_size, "cannot read the open-file limit");
        return -1;
    }
    rlim_t need = (rlim_t)threads * per_thread +
                  (rlim_t)(LIMIT_FD_RESERVE_PER_THREAD * threads + LIMIT_FD_RESERVE);
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        rlim_t want = (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) ? rl.rlim_max : need;
        if (want > rl.rlim_cur) {
            struct rlimit raised = {want, rl.rlim_max};
            if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
                rl.rlim_cur = want;
        }
    }
    unsigned long long nofile =
        rl.rlim_cur == RLIM_INFINITY ? (unsigned long long)need : (unsigned long long)rl.rlim_cur;
    unsigned long long hard = rl.rlim_max == RLIM_INFINITY ? 0 : (unsigned long long)rl.rlim_max;
    return fdlimits_derive(nofile, hard, threads, per_thread, out, err, err_size);
}

void fdlimits_describe(const fdlimits *l, char *buf, size_t buf_size)
{
    char hard[32];
    if (l->hard == 0)
        snprintf(hard, sizeof hard, "unlimited");
    else
        snprintf(hard, sizeof hard, "%llu", l->hard);
    snprintf(buf, buf_size,
             "open-file limit %llu (hard %s): %u connections (%s), %u per address; "
             "beyond %u open the oldest idle one is closed for each new one",
             l->nofile, hard, l->connections,
             l->by_files ? "set by the open-file limit" : "threads x per-thread limit",
             l->per_address, l->shed_above);
}
