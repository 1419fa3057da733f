/* test_connguard.c: unit tests of the request deadline (server/net/connguard.c)
 * against a real libmicrohttpd daemon on loopback: idle and slow-loris
 * connections are shut down after the deadline and not before, a complete
 * request is answered and its keep-alive connection then gets a new
 * deadline, connguard_drain() ends connections between requests at once
 * but lets a request under way finish, and past its threshold the guard
 * sheds the connection that has waited longest for a request. */
#include "net/connguard.h"
#include "test.h"
#include "test_server_util.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int dummy_request;

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    (void)cls;
    (void)method;
    (void)version;
    (void)upload;
    (void)upload_size;
    if (*con_cls == NULL) {
        *con_cls = &dummy_request;
        return MHD_YES;
    }
    connguard_request_received(conn);
    if (strcmp(url, "/slow") == 0) {
        struct timespec nap = {0, 400 * 1000 * 1000};
        nanosleep(&nap, NULL); /* a request that takes a while to answer */
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(2, (void *)"ok", MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_queue_response(conn, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)uri;
    connguard_request_started(conn);
    return NULL;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)con_cls;
    (void)toe;
    connguard_request_done(conn);
}

typedef struct {
    struct MHD_Daemon *d;
    connguard *g;
    unsigned port;
} server;

/* shed_above: connguard_shed_above() (0: no shedding). */
static int start(server *s, int deadline_ms, unsigned shed_above)
{
    s->g = connguard_create(deadline_ms);
    if (s->g == NULL)
        return -1;
    connguard_shed_above(s->g, shed_above);
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC, 0,
                            NULL, NULL, handler, NULL, MHD_OPTION_THREAD_POOL_SIZE, 2u,
                            MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
                            MHD_OPTION_NOTIFY_CONNECTION, connguard_notify, s->g,
                            MHD_OPTION_END);
    if (s->d == NULL) {
        connguard_destroy(s->g);
        return -1;
    }
    s->port = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT)->port;
    return 0;
}

static void stop(server *s)
{
    MHD_stop_daemon(s->d);
    connguard_destroy(s->g);
}

/* Starts a server (start, no shedding) and connects to it: the socket, or
 * -1 (a failed CHECK). */
static int start_connected(server *s, int deadline_ms)
{
    CHECK(start(s, deadline_ms, 0) == 0);
    int fd = test_connect_loopback(s->port, 0);
    CHECK(fd >= 0);
    return fd;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Waits up to timeout_ms for the peer to close fd (reading and dropping
 * whatever comes first into buf). Returns the bytes read before the close,
 * or -1 if the connection was still open at the timeout. */
static int wait_closed(int fd, int timeout_ms, char *buf, size_t buf_size)
{
    size_t got = 0;
    double until = now_s() + timeout_ms / 1000.0;
    for (;;) {
        int left = (int)((until - now_s()) * 1000);
        if (left <= 0)
            return -1;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, left) <= 0)
            continue;
        char tmp[512];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n <= 0)
            return (int)got;
        if (got + (size_t)n < buf_size) {
            memcpy(buf + got, tmp, (size_t)n);
            got += (size_t)n;
            buf[got] = '\0';
        }
    }
}

/* Waits up to 3 s until the guard has registered n live connections: a
 * connect() returns before the daemon's thread accepts, and on a loaded
 * machine two accepts can fall in the same millisecond, which would leave
 * "oldest" to chance. Returns 1 when there. */
static int wait_live(const connguard *g, unsigned n)
{
    struct timespec nap = {0, 2 * 1000 * 1000};
    for (int i = 0; i < 1500; i++) {
        if (connguard_live(g) == n)
            return 1;
        nanosleep(&nap, NULL);
    }
    return 0;
}

static void test_idle_connection_closed_at_deadline(void)
{
    server s;
    int fd = start_connected(&s, 300);
    double t0 = now_s();
    char buf[1024] = "";
    CHECK(wait_closed(fd, 3000, buf, sizeof buf) == 0);
    double took = now_s() - t0;
    CHECKF(took >= 0.28 && took < 1.5, "closed after %.3f s (deadline 0.3 s)", took);
    CHECK(connguard_closed(s.g) == 1);
    close(fd);
    stop(&s);
}

static void test_slow_loris_closed_despite_activity(void)
{
    server s;
    int fd = start_connected(&s, 500);
    double t0 = now_s();
    CHECK(send(fd, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ", 33, MSG_NOSIGNAL) == 33);
    int closed = 0;
    char got[1024] = "";
    size_t n_got = 0;
    double took = 0;
    /* a byte every 100 ms: libmicrohttpd's idle timeout would never fire */
    for (int i = 0; i < 30 && !closed; i++) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) > 0) {
            ssize_t n = recv(fd, got + n_got, sizeof got - 1 - n_got, 0);
            if (took == 0)
                took = now_s() - t0; /* the answer, or the close */
            if (n <= 0)
                closed = 1;
            else
                n_got += (size_t)n;
        } else if (send(fd, "a", 1, MSG_NOSIGNAL) != 1) {
            closed = 1;
        }
    }
    CHECKF(closed && took >= 0.45 && took < 1.5, "closed=%d after %.3f s (deadline 0.5 s)",
           closed, took);
    /* its request was under way: answered 408 before the close */
    CHECKF(strncmp(got, "HTTP/1.1 408 Request Timeout\r\n", 30) == 0 &&
               strstr(got, "Content-Type: application/json\r\n") != NULL &&
               strstr(got, "{\"error\":{\"status\":408,") != NULL,
           "got: %s", got);
    close(fd);
    stop(&s);
}

static void test_request_answered_then_keepalive_deadline(void)
{
    server s;
    int fd = start_connected(&s, 400);
    /* close to the deadline: the clock starts at accept */
    struct timespec nap = {0, 250 * 1000 * 1000};
    nanosleep(&nap, NULL);
    const char *req = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req));
    /* the answer takes 400 ms, past the deadline counted from accept: the
     * deadline stops while a request is answered */
    double t0 = now_s();
    char buf[1024] = "";
    int n = wait_closed(fd, 3000, buf, sizeof buf);
    double took = now_s() - t0;
    CHECKF(strstr(buf, "HTTP/1.1 200") != NULL && strstr(buf, "\r\n\r\nok") != NULL,
           "answer: %s", buf);
    /* then the keep-alive connection is closed one deadline after the
     * answer (about 0.4 + 0.4 s) */
    CHECKF(n > 0 && took >= 0.7 && took < 2.0, "n=%d, closed %.3f s after the request", n,
           took);
    close(fd);
    stop(&s);
}

static void test_drain_closes_idle_but_finishes_request(void)
{
    server s;
    CHECK(start(&s, 10000, 0) == 0);
    int idle = test_connect_loopback(s.port, 0);
    int busy = test_connect_loopback(s.port, 0);
    CHECK(idle >= 0 && busy >= 0);
    CHECK(wait_live(s.g, 2));
    const char *req = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(send(busy, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req));
    struct timespec nap = {0, 100 * 1000 * 1000};
    nanosleep(&nap, NULL); /* the request is being answered */
    double t0 = now_s();
    connguard_drain(s.g);
    char buf[1024] = "";
    CHECK(wait_closed(idle, 1000, buf, sizeof buf) == 0);
    CHECKF(now_s() - t0 < 0.5, "idle connection closed after %.3f s", now_s() - t0);
    /* the request under way is answered, then its connection ends */
    int n = wait_closed(busy, 3000, buf, sizeof buf);
    CHECKF(n > 0 && strstr(buf, "\r\n\r\nok") != NULL, "n=%d answer: %s", n, buf);
    close(idle);
    close(busy);
    stop(&s);
}

/* 1 if the peer has not closed fd within wait_ms (nothing to read). */
static int still_open(int fd, int wait_ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, wait_ms) <= 0)
        return 1;
    char c;
    return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

static void test_shed_oldest_waiting_connection_past_the_limit(void)
{
    server s;
    CHECK(start(&s, 10000, 3) == 0);
    struct timespec nap = {0, 30 * 1000 * 1000};
    int busy = test_connect_loopback(s.port, 0);
    const char *req = "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(send(busy, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req));
    CHECK(wait_live(s.g, 1));
    nanosleep(&nap, NULL);
    int a = test_connect_loopback(s.port, 0);
    CHECK(wait_live(s.g, 2));
    nanosleep(&nap, NULL);
    int b = test_connect_loopback(s.port, 0);
    CHECK(wait_live(s.g, 3));
    nanosleep(&nap, NULL);
    /* three open: at the threshold, nothing shed */
    CHECK(still_open(a, 100) && still_open(b, 0));
    CHECK(connguard_shed(s.g) == 0);
    /* a fourth: the one that has waited longest for a request goes (a, the
     * oldest idle one; busy's request is being answered or was answered
     * after a connected) */
    int c = test_connect_loopback(s.port, 0);
    CHECK(busy >= 0 && a >= 0 && b >= 0 && c >= 0);
    char buf[1024] = "";
    CHECKF(wait_closed(a, 2000, buf, sizeof buf) == 0, "the oldest idle connection was not shed");
    CHECK(still_open(b, 100) && still_open(c, 0));
    CHECK(connguard_shed(s.g) == 1);
    CHECK(connguard_closed(s.g) == 0); /* shed, not timed out */
    /* the request under way was answered */
    struct pollfd p = {busy, POLLIN, 0};
    CHECK(poll(&p, 1, 2000) == 1 && recv(busy, buf, sizeof buf - 1, 0) > 0);
    CHECKF(strstr(buf, "HTTP/1.1 200") != NULL, "busy got: %s", buf);
    /* a new client on a new connection is still served */
    int d = test_connect_loopback(s.port, 0);
    const char *q = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    CHECK(send(d, q, strlen(q), MSG_NOSIGNAL) == (ssize_t)strlen(q));
    memset(buf, 0, sizeof buf);
    CHECK(wait_closed(d, 2000, buf, sizeof buf) > 0);
    CHECKF(strstr(buf, "\r\n\r\nok") != NULL, "new client got: %s", buf);
    close(a);
    close(b);
    close(c);
    close(d);
    close(busy);
    stop(&s);
}

int main(void)
{
    RUN(test_idle_connection_closed_at_deadline);
    RUN(test_slow_loris_closed_despite_activity);
    RUN(test_request_answered_then_keepalive_deadline);
    RUN(test_drain_closes_idle_but_finishes_request);
    RUN(test_shed_oldest_waiting_connection_past_the_limit);
    return t_done();
}
