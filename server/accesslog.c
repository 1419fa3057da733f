/* accesslog.c: the batched access log (see accesslog.h). */
#include "accesslog.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOG_BUFFER_BYTES (64 * 1024)
#define LOG_QUIET_MS 20  /* a line after this long without a write goes out at once */
#define LOG_FLUSH_MS 50  /* buffered lines wait at most this long */

struct accesslog {
    pthread_mutex_t lock;  /* everything below; held while writing, so lines keep their order */
    pthread_cond_t wake;
    int fd;
    int stop;
    char *buf;
    size_t len;
    long long last_write_ms;
    pthread_t thread;
};

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Writes the buffer out (lock held). A log that cannot be written (a
 * closed pipe, a full disk) drops the lines rather than stop serving. */
static void flush_locked(accesslog *l)
{
    size_t off = 0;
    while (off < l->len) {
        ssize_t n = write(l->fd, l->buf + off, l->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    l->len = 0;
    l->last_write_ms = now_ms();
}

static void *flusher(void *arg)
{
    accesslog *l = arg;
    pthread_mutex_lock(&l->lock);
    while (!l->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += LOG_FLUSH_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&l->wake, &l->lock, &until);
        if (l->len > 0)
            flush_locked(l);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

accesslog *accesslog_create(int fd)
{
    accesslog *l = calloc(1, sizeof *l);
    if (l == NULL)
        return NULL;
    l->fd = fd;
    l->buf = malloc(LOG_BUFFER_BYTES);
    if (l->buf == NULL)
        goto fail_buf;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        goto fail_attr;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_cond_init(&l->wake, &ca) != 0)
        goto fail_cond;
    if (pthread_mutex_init(&l->lock, NULL) != 0)
        goto fail_mutex;
    if (pthread_create(&l->thread, NULL, flusher, l) != 0)
        goto fail_thread;
    pthread_condattr_destroy(&ca);
    return l;

fail_thread:
    pthread_mutex_destroy(&l->lock);
fail_mutex:
    pthread_cond_destroy(&l->wake);
fail_cond:
    pthread_condattr_destroy(&ca);
fail_attr:
    free(l->buf);
fail_buf:
    free(l);
    return NULL;
}

void accesslog_write(accesslog *l, const char *line, size_t len)
{
    pthread_mutex_lock(&l->lock);
    if (l->len + len > LOG_BUFFER_BYTES)
        flush_locked(l);
    if (len > LOG_BUFFER_BYTES)
        len = LOG_BUFFER_BYTES; /* lines are far shorter; never overflow */
    memcpy(l->buf + l->len, line, len);
    l->len += len;
    if (now_ms() - l->last_write_ms >= LOG_QUIET_MS)
        flush_locked(l);
    pthread_mutex_unlock(&l->lock);
}

void accesslog_destroy(accesslog *l)
{
    if (l == NULL)
        return;
    pthread_mutex_lock(&l->lock);
    l->stop = 1;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->thread, NULL);
    flush_locked(l);
    pthread_mutex_destroy(&l->lock);
    pthread_cond_destroy(&l->wake);
    free(l->buf);
    free(l);
}
