/* accesslog.c: the batched access log (see accesslog.h). */
#include "net/accesslog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/monotime.h"
#include "base/ticker.h"

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
    l->last_write_ms = monotime_ms();
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
    if (monotime_ms() - l->last_write_ms >= LOG_QUIET_MS)
        flush_locked(l);
    pthread_mutex_unlock(&l->flusher.lock);
}

/* Writes v in decimal at p; returns the end. */
static char *put_u64(char *p, unsigned long long v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

/* Copies at most max bytes of the NUL-terminated s to p; returns the end. */
static char *put_str(char *p, const char *s, size_t max)
{
    while (*s != '\0' && max-- > 0)
        *p++ = *s++;
    return p;
}

void accesslog_ipv4(unsigned long a, char *out)
{
    char *p = out;
    for (int shift = 24; shift >= 0; shift -= 8) {
        p = put_u64(p, (a >> shift) & 0xff);
        *p++ = shift != 0 ? '.' : '\0';
    }
}

size_t accesslog_format(const accesslog_line *f, char *out)
{
    /* The time to the second, once per second and thread. */
    static _Thread_local time_t when_sec = (time_t)-1;
    static _Thread_local char when_text[32];
    static _Thread_local size_t when_len;
    if (f->wall.tv_sec != when_sec) {
        struct tm tm;
        gmtime_r(&f->wall.tv_sec, &tm);
        when_len = strftime(when_text, sizeof when_text, "%Y-%m-%dT%H:%M:%S", &tm);
        when_sec = f->wall.tv_sec;
    }
    char *p = out;
    memcpy(p, when_text, when_len);
    p += when_len;
    long ms = f->wall.tv_nsec / 1000000;
    *p++ = '.';
    *p++ = (char)('0' + ms / 100 % 10);
    *p++ = (char)('0' + ms / 10 % 10);
    *p++ = (char)('0' + ms % 10);
    *p++ = 'Z';
    *p++ = ' ';
    p = put_str(p, f->addr != NULL && f->addr[0] != '\0' ? f->addr : "-", 63);
    *p++ = ' ';
    *p++ = '"';
    p = put_str(p, f->method != NULL && f->method[0] != '\0' ? f->method : "-", 31);
    *p++ = ' ';
    const char *t = f->target != NULL ? f->target : "";
    for (size_t i = 0; t[i] != '\0' && i < 299; i++)
        *p++ = (t[i] > 0x20 && t[i] < 0x7f && t[i] != '"') ? t[i] : '?';
    *p++ = '"';
    *p++ = ' ';
    p = put_u64(p, f->status);
    *p++ = ' ';
    if (f->sent_known)
        p = put_u64(p, f->sent);
    else
        *p++ = '-';
    *p++ = ' ';
    p = put_u64(p, f->us / 1000);
    *p++ = '.';
    unsigned long long frac = f->us % 1000;
    *p++ = (char)('0' + frac / 100);
    *p++ = (char)('0' + frac / 10 % 10);
    *p++ = (char)('0' + frac % 10);
    *p++ = 'm';
    *p++ = 's';
    if (f->aborted)
        p = put_str(p, " (aborted)", 10);
    *p++ = '\n';
    *p = '\0';
    return (size_t)(p - out);
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
