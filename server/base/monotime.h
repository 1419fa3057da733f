/* monotime.h: the one monotonic clock of the daemon and the export tool
 * (CLOCK_MONOTONIC): durations, deadlines and the absolute times that
 * condition variables set to that clock wait for. */
#ifndef MONOTIME_H
#define MONOTIME_H

#include <time.h>

/* Seconds on the monotonic clock. */
static inline double monotime_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Milliseconds on the monotonic clock. */
static inline long long monotime_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The monotonic time ms milliseconds from now, for pthread_cond_timedwait
 * on a condition variable whose clock is CLOCK_MONOTONIC. */
static inline struct timespec monotime_after_ms(long long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

#endif
