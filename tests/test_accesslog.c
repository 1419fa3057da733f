/* test_accesslog.c: unit tests of the batched access log
 * (server/accesslog.c), writing into a pipe: a line on a quiet log is out at
 * once, a burst comes out whole and in order within the flush interval,
 * lines from many threads are never torn, and destroy writes what is left. */
#include "accesslog.h"
#include "test.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Reads from fd until want bytes arrived or timeout_ms passed; returns the
 * bytes read (buf is NUL-terminated). */
static size_t read_for(int fd, char *buf, size_t buf_size, size_t want, int timeout_ms)
{
    size_t got = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (got < want && got + 1 < buf_size) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        int left = timeout_ms - (int)((t1.tv_sec - t0.tv_sec) * 1000 +
                                      (t1.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0)
            break;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, left) <= 0)
            continue;
        ssize_t n = read(fd, buf + got, buf_size - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    return got;
}

static void test_quiet_line_written_at_once(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    accesslog *l = accesslog_create(p[1]);
    CHECK(l != NULL);
    struct timespec nap = {0, 60 * 1000 * 1000};
    nanosleep(&nap, NULL); /* quiet for longer than 20 ms */
    accesslog_write(l, "one\n", 4);
    char buf[64];
    /* 5 ms is far less than the 50 ms flush interval */
    CHECK(read_for(p[0], buf, sizeof buf, 4, 5) == 4 && strcmp(buf, "one\n") == 0);
    accesslog_destroy(l);
    close(p[0]);
    close(p[1]);
}

static void test_burst_arrives_whole_and_in_order(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    accesslog *l = accesslog_create(p[1]);
    char expect[16384] = "";
    size_t elen = 0;
    for (int i = 0; i < 500; i++) {
        char line[32];
        int n = snprintf(line, sizeof line, "line %03d\n", i);
        accesslog_write(l, line, (size_t)n);
        memcpy(expect + elen, line, (size_t)n);
        elen += (size_t)n;
    }
    expect[elen] = '\0';
    static char buf[16384];
    size_t got = read_for(p[0], buf, sizeof buf, elen, 300);
    CHECKF(got == elen && strcmp(buf, expect) == 0, "got %zu of %zu bytes", got, elen);
    accesslog_destroy(l);
    close(p[0]);
    close(p[1]);
}

typedef struct {
    accesslog *l;
    int id;
} writer_arg;

static void *writer(void *arg)
{
    writer_arg *w = arg;
    for (int i = 0; i < 200; i++) {
        char line[64];
        int n = snprintf(line, sizeof line, "thread %d request %03d done\n", w->id, i);
        accesslog_write(w->l, line, (size_t)n);
    }
    return NULL;
}

static void test_threads_never_tear_lines(void)
{
    char path[] = "/tmp/test_accesslog.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    accesslog *l = accesslog_create(fd);
    pthread_t t[8];
    writer_arg a[8];
    for (int i = 0; i < 8; i++) {
        a[i] = (writer_arg){l, i};
        pthread_create(&t[i], NULL, writer, &a[i]);
    }
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    accesslog_destroy(l); /* writes what is left */
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    int lines = 0, bad = 0, next[8] = {0};
    char line[128];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        int id, req;
        char tail[16];
        if (sscanf(line, "thread %d request %d %15s", &id, &req, tail) != 3 || id < 0 || id > 7 ||
            strcmp(tail, "done") != 0 || req != next[id]++)
            bad++;
        lines++;
    }
    CHECKF(lines == 1600 && bad == 0, "%d lines, %d torn or out of order", lines, bad);
    if (f != NULL)
        fclose(f);
    close(fd);
    unlink(path);
}

int main(void)
{
    RUN(test_quiet_line_written_at_once);
    RUN(test_burst_arrives_whole_and_in_order);
    RUN(test_threads_never_tear_lines);
    accesslog_destroy(NULL);
    return t_done();
}
