/* accesslog.c: the batched access log (see accesslog.h). */
#include "accesslog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ticker.h"

#define LOG_BUFFER_BYTES (64 * 1024)
#define LOG_QUIET_MS 20  /* a line after this long without a write goes out at once */
#define LOG_FLUSH_MS 50  /* buffered lines wait at most this long */

struct accesslog {
    ticker flusher;  /* its lock guards everything below; held while writing, so lines keep their order */
    int fd;
    char *buf;
    size_t len;
    long long last_write_ms;
};

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
    l->last_write_ms = ticker_now_ms();
}

/* The flusher's tick: buffered lines wait at most LOG_FLUSH_MS. */
static void flush_tick(void *arg)
{
    accesslog *l = arg;
    if (l->len > 0)
        flush_locked(l);
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
    if (ticker_start(&l->flusher, LOG_FLUSH_MS, flush_tick, l) != 0)
        goto fail_ticker;
    return l;

fail_ticker:
    free(l->buf);
fail_buf:
    free(l);
    return NULL;
}

void accesslog_write(accesslog *l, const char *line, size_t len)
{
    pthread_mutex_lock(&l->flusher.lock);
    if (l->len + len > LOG_BUFFER_BYTES)
        flush_locked(l);
    if (len > LOG_BUFFER_BYTES)
        len = LOG_BUFFER_BYTES; /* lines are far shorter; never overflow */
    memcpy(l->buf + l->len, line, len);
    l->len += len;
    if (ticker_now_ms() - l->last_write_ms >= LOG_QUIET_MS)
        flush_locked(l);
    pthread_mutex_unlock(&l->flusher.lock);
}

int accesslog_swap_fd(accesslog *l, int fd)
{
    pthread_mutex_lock(&l->flusher.lock);
    if (l->len > 0)
        flush_locked(l);
    int old = l->fd;
    l->fd = fd;
    pthread_mutex_unlock(&l->flusher.lock);
    return old;
}

void accesslog_destroy(accesslog *l)
{
    if (l == NULL)
        return;
    ticker_stop(&l->flusher);
    flush_locked(l); /* the thread is gone: no lock needed */
    free(l->buf);
    free(l);
}
