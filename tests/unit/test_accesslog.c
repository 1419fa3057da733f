/* test_accesslog.c: unit tests of the batched access log
 * (server/net/accesslog.c), writing into a pipe: a line on a quiet log is out at
 * once, a burst comes out whole and in order within the flush interval,
 * lines from many threads are never torn, and destroy writes what is left. */
#include "net/accesslog.h"
#include "test.h"

#include <arpa/inet.h>
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

/* The line as snprintf and strftime print it (the format before
 * accesslog_format, and the independent reader here). */
static int reference_line(const accesslog_line *f, char *out, size_t size)
{
    char when[40];
    struct tm tm;
    gmtime_r(&f->wall.tv_sec, &tm);
    size_t wn = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + wn, sizeof when - wn, ".%03ldZ", f->wall.tv_nsec / 1000000);
    char target[300];
    size_t n = 0;
    for (const char *t = f->target; *t != '\0' && n + 1 < sizeof target; t++)
        target[n++] = (*t > 0x20 && *t < 0x7f && *t != '"') ? *t : '?';
    target[n] = '\0';
    char sent[24] = "-";
    if (f->sent_known)
        snprintf(sent, sizeof sent, "%llu", f->sent);
    return snprintf(out, size, "%s %s \"%s %s\" %u %s %llu.%03llums%s\n", when, f->addr,
                    f->method[0] ? f->method : "-", target, f->status, sent, f->us / 1000,
                    f->us % 1000, f->aborted ? " (aborted)" : "");
}

static void test_format_matches_printf(void)
{
    char target[400];
    memset(target, 'x', sizeof target - 1);
    target[sizeof target - 1] = '\0';
    static const char odd[] = "/a b\"c\x01\x7f\xff?q=1";
    memcpy(target, odd, sizeof odd - 1);
    const char *targets[] = {"/healthz", "/perlin/7/3/1/2.png?octaves=4", "", target, target + 250};
    const char *methods[] = {"GET", "", "OPTIONS", "LONGMETHOD1"};
    const char *addrs[] = {"127.0.0.1", "::1", "-", "2001:db8:ffff:ffff:ffff:ffff:255.255.255.255"};
    const time_t secs[] = {0, 1764596448, 1764596449, 4102444799, 253402300799};
    const long nsecs[] = {0, 999999999, 5000000, 123456789};
    const unsigned long long nums[] = {0, 1, 9, 10, 999, 1000, 1001, 123456789, 18446744073709551615ULL};
    int cases = 0, bad = 0;
    for (size_t a = 0; a < sizeof secs / sizeof *secs; a++)
        for (size_t b = 0; b < sizeof nums / sizeof *nums; b++) {
            accesslog_line f = {{secs[a], nsecs[b % 4]}, addrs[b % 4], methods[(a + b) % 4],
                                targets[(a + b) % 5], (unsigned)(nums[(b + 3) % 9] % 1000),
                                (int)(b % 3 != 0), nums[b], nums[(b * 7) % 9], (int)(a % 2)};
            if (b == 8)
                f.status = 4294967295u;
            char want[1024], got[ACCESSLOG_LINE_MAX + 64];
            memset(got, '#', sizeof got);
            int wn = reference_line(&f, want, sizeof want);
            size_t gn = accesslog_format(&f, got);
            cases++;
            if (gn != (size_t)wn || strcmp(got, want) != 0 || gn >= ACCESSLOG_LINE_MAX) {
                if (bad++ < 3)
                    fprintf(stderr, "  want %s  got  %s\n", want, got);
            }
        }
    CHECKF(bad == 0, "%d of %d lines differ from printf's", bad, cases);
}

static void test_ipv4_matches_inet_ntop(void)
{
    const unsigned long addrs[] = {0, 0x7f000001, 0x7f000002, 0x0a000a01, 0xc0a80001, 0xffffffff,
                                   0x01020304, 0x64646464};
    for (size_t i = 0; i < sizeof addrs / sizeof *addrs; i++) {
        struct in_addr in = {htonl((uint32_t)addrs[i])};
        char want[INET_ADDRSTRLEN], got[INET_ADDRSTRLEN];
        CHECK(inet_ntop(AF_INET, &in, want, sizeof want) != NULL);
        accesslog_ipv4(addrs[i], got);
        CHECKF(strcmp(want, got) == 0, "want %s got %s", want, got);
    }
}

int main(void)
{
    RUN(test_quiet_line_written_at_once);
    RUN(test_burst_arrives_whole_and_in_order);
    RUN(test_threads_never_tear_lines);
    RUN(test_format_matches_printf);
    RUN(test_ipv4_matches_inet_ntop);
    accesslog_destroy(NULL);
    return t_done();
}
