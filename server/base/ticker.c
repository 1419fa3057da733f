/* ticker.c: a periodic background thread under its owner's lock (see ticker.h). */
#include "base/ticker.h"

#include "base/monotime.h"

#include <time.h>

static void *run(void *arg)
{
    ticker *t = arg;
    pthread_mutex_lock(&t->lock);
    while (!t->stop) {
        struct timespec until = monotime_after_ms(t->period_ms);
        pthread_cond_timedwait(&t->wake, &t->lock, &until);
        if (t->stop)
            break;
        t->tick(t->arg);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

int ticker_start(ticker *t, int period_ms, void (*tick)(void *arg), void *arg)
{
    t->stop = 0;
    t->period_ms = period_ms;
    t->tick = tick;
    t->arg = arg;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        goto fail_attr;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_cond_init(&t->wake, &ca) != 0)
        goto fail_cond;
    if (pthread_mutex_init(&t->lock, NULL) != 0)
        goto fail_mutex;
    if (pthread_create(&t->thread, NULL, run, t) != 0)
        goto fail_thread;
    pthread_condattr_destroy(&ca);
    return 0;

fail_thread:
    pthread_mutex_destroy(&t->lock);
fail_mutex:
    pthread_cond_destroy(&t->wake);
fail_cond:
    pthread_condattr_destroy(&ca);
fail_attr:
    return -1;
}

void ticker_stop(ticker *t)
{
    pthread_mutex_lock(&t->lock);
    t->stop = 1;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->wake);
}
