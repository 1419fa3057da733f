/* test_fdlimits.c: connection limits from the descriptor limit
 * (server/net/fdlimits.c): what 1024, 20000 and a tiny limit give, the reserve
 * kept for what is not a connection, the per-address share, the shedding
 * threshold below the limit, and the process's own limit after planning. */
#include "net/fdlimits.h"
#include "base/daemon_limits.h"
#include "test.h"

#include <string.h>
#include <sys/resource.h>

static void test_1024_descriptors_16_threads(void)
{
    fdlimits l;
    char err[256] = "";
    CHECK(fdlimits_derive(1024, 1024, 16, LIMIT_CONNECTIONS_PER_THREAD, &l, err, sizeof err) == 0);
    /* every connection is a descriptor: connections + reserve fit in 1024 */
    CHECKF(l.connections + l.reserve <= 1024, "%u + %u", l.connections, l.reserve);
    CHECK(l.reserve >= 2 * 16 + 4);     /* each thread's epoll and wake-up fds, stdio, listener */
    CHECK(l.connections == 1024 - l.reserve);
    CHECK(l.by_files == 1);
    CHECK(l.per_address == l.connections * LIMIT_PER_IP_NUM / LIMIT_PER_IP_DEN);
    CHECK(l.shed_above < l.connections && l.connections - l.shed_above >= 16);
    CHECK(l.shed_above > l.connections * 9 / 10);
}

static void test_20000_descriptors_thread_limit_wins(void)
{
    fdlimits l;
    char err[256] = "";
    CHECK(fdlimits_derive(20000, 0, 16, LIMIT_CONNECTIONS_PER_THREAD, &l, err, sizeof err) == 0);
    CHECK(l.connections == 16 * LIMIT_CONNECTIONS_PER_THREAD);
    CHECK(l.by_files == 0);
    char line[256];
    fdlimits_describe(&l, line, sizeof line);
    CHECKF(strstr(line, "open-file limit 20000 (hard unlimited): 1920 connections") == line, "%s", line);
    CHECKF(strstr(line, "1440 per address") != NULL, "%s", line);
}

static void test_too_few_descriptors_refused_with_advice(void)
{
    fdlimits l;
    char err[256] = "";
    CHECK(fdlimits_derive(100, 100, 16, LIMIT_CONNECTIONS_PER_THREAD, &l, err, sizeof err) == -1);
    CHECKF(strstr(err, "open-file limit 100") && strstr(err, "ulimit -n") && strstr(err, "--threads"), "%s", err);
    /* one thread fits in 100 */
    CHECK(fdlimits_derive(100, 100, 1, LIMIT_CONNECTIONS_PER_THREAD, &l, err, sizeof err) == 0);
    CHECK(l.connections >= 1 && l.connections + l.reserve <= 100 && l.shed_above >= 1);
}

static void test_plan_raises_soft_limit_up_to_hard(void)
{
    struct rlimit saved, rl;
    CHECK(getrlimit(RLIMIT_NOFILE, &saved) == 0);
    if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < 600)
        return; /* cannot set up the case here */
    rl.rlim_cur = 300;
    rl.rlim_max = saved.rlim_max;
    CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    fdlimits l;
    char err[256] = "";
    CHECK(fdlimits_plan(2, LIMIT_CONNECTIONS_PER_THREAD, &l, err, sizeof err) == 0);
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    CHECKF(rl.rlim_cur >= 2 * LIMIT_CONNECTIONS_PER_THREAD + l.reserve, "soft %llu", (unsigned long long)rl.rlim_cur);
    CHECK(l.nofile == (unsigned long long)rl.rlim_cur);
    CHECK(l.connections == 2 * LIMIT_CONNECTIONS_PER_THREAD);
    CHECK(setrlimit(RLIMIT_NOFILE, &saved) == 0);
}

int main(void)
{
    RUN(test_1024_descriptors_16_threads);
    RUN(test_20000_descriptors_thread_limit_wins);
    RUN(test_too_few_descriptors_refused_with_advice);
    RUN(test_plan_raises_soft_limit_up_to_hard);
    return t_done();
}
