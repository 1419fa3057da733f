/* ticker.h: a background thread that wakes every period (or when signalled)
 * and runs a function under its owner's lock: the shape the access log's
 * flusher and the connection guard's sweeper share. */
#ifndef TICKER_H
#define TICKER_H

#include <pthread.h>

typedef struct {
    pthread_mutex_t lock; /* the owner's state; held while tick runs */
    pthread_cond_t wake;  /* on CLOCK_MONOTONIC */
    pthread_t thread;
    int stop;
    int period_ms;
    void (*tick)(void *arg);
    void *arg;
} ticker;

/* Initialises t's lock and condition variable and starts its thread, which
 * calls tick(arg) with t->lock held every period_ms until ticker_stop().
 * Returns 0, or -1 with nothing left to clean up. */
int ticker_start(ticker *t, int period_ms, void (*tick)(void *arg), void *arg);

/* Stops and joins the thread (a tick under way finishes first), then
 * destroys the lock and condition variable. */
void ticker_stop(ticker *t);

#endif
