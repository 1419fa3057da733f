/* bench_util.h: the timing helpers the C benchmarks share: thread CPU time
 * and the median of a run of figures. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

/* This thread's CPU time, in units of which a second has per_second
 * (1e3: milliseconds, 1e6: microseconds). */
static inline double bench_cpu_time(double per_second)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * per_second + ts.tv_nsec / (1e9 / per_second);
}

static inline double now_ms(void)
{
    return bench_cpu_time(1e3);
}

static inline double now_us(void)
{
    return bench_cpu_time(1e6);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v[0..n) and returns its median. */
static inline double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
