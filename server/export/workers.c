/* workers.c: the export's render threads, results taken in order (see
 * workers.h). */
#include "export/workers.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *worker(void *arg)
{
    export_workers *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->stop && w->next < w->n && w->next >= w->written + w->window)
            pthread_cond_wait(&w->work, &w->mu);
        if (w->stop || w->next >= w->n)
            break;
        uint64_t i = w->next++, id = 0;
        int have = plan_iter_next(&w->order, &id);
        pthread_mutex_unlock(&w->mu);
        unsigned char *png = NULL;
        size_t size = 0;
        int rc = have ? plan_render_tile(w->p, id, &png, &size) : RENDER_ENOMEM;
        pthread_mutex_lock(&w->mu);
        w->slots[i % w->window] = (export_workers_slot){1, rc, id, png, size};
        pthread_cond_broadcast(&w->done);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int export_workers_start(export_workers *w, const plan *p, uint64_t pos, uint64_t n, long jobs)
{
    memset(w, 0, sizeof *w);
    w->p = p;
    plan_iter_start(&w->order, p, pos, pos + n);
    w->n = n;
    w->window = (size_t)jobs * 8;
    w->slots = calloc(w->window, sizeof *w->slots);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->work, NULL);
    pthread_cond_init(&w->done, NULL);
    w->threads = calloc((size_t)jobs, sizeof *w->threads);
    sigset_t stopset, old;
    sigemptyset(&stopset);
    sigaddset(&stopset, SIGINT);
    sigaddset(&stopset, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopset, &old);
    for (; w->slots && w->threads && w->started < jobs; w->started++)
        if (pthread_create(&w->threads[w->started], NULL, worker, w) != 0)
            break;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return w->started > 0 ? 0 : -1;
}

int export_workers_take(export_workers *w, uint64_t i, volatile sig_atomic_t *stop,
                        export_workers_slot *got)
{
    pthread_mutex_lock(&w->mu);
    while (!w->slots[i % w->window].ready && !*stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 200000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&w->done, &w->mu, &until);
    }
    if (*stop) {
        pthread_mutex_unlock(&w->mu);
        return 0;
    }
    *got = w->slots[i % w->window];
    w->slots[i % w->window] = (export_workers_slot){0, 0, 0, NULL, 0};
    w->written = i + 1;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->mu);
    return 1;
}

void export_workers_stop(export_workers *w)
{
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->mu);
    for (long t = 0; t < w->started; t++)
        pthread_join(w->threads[t], NULL);
    for (size_t k = 0; w->slots && k < w->window; k++)
        free(w->slots[k].png);
    free(w->slots);
    free(w->threads);
    w->slots = NULL;
    w->threads = NULL;
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->done);
}
