/* connguard.c: the request deadline (see connguard.h): a registry of open
 * connections with the time each started waiting for a request, and a
 * thread that shuts down the ones waiting too long. */
#include "net/connguard.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "base/daemon_limits.h"
#include "base/monotime.h"
#include "base/ticker.h"

/* One open connection. waiting_since_ms: when it started owing us a request
 * (0: it does not; a request is being answered). started: its request line
 * has arrived (the request is under way). Written by the connection's
 * thread, read by the sweeper and by connguard_drain(). */
typedef struct guard_entry {
    struct guard_entry *prev, *next;
    connguard *g;
    int fd;
    atomic_llong waiting_since_ms;
    atomic_int started;
    atomic_int shut;          /* the guard has shut the socket down */
    atomic_int over_limit;    /* its request body is over the limit (413, not 408) */
    atomic_int answered;      /* the guard answered it: 408 or 413, else 0 */
    long long linger_until;   /* sweeper only: while the client may still send
                                 after our answer, until this (live ms); 0: not */
} guard_entry;

struct connguard {
    ticker sweeper;           /* its lock guards the list */
    guard_entry *head;
    atomic_int draining;      /* graceful stop: no new requests */
    long long deadline_ms;
    long long linger_ms;
    /* The guard's clock (see now_ms) is the monotonic clock less skipped_ms,
     * the time the process stood still beyond LIVE_STEP_MAX_MS per tick;
     * last_real_ms: the monotonic time of the sweeper's last tick (sweeper
     * only). */
    atomic_llong skipped_ms;
    long long last_real_ms;
    atomic_ullong closed;
    unsigned shed_above;      /* 0: no shedding */
    atomic_uint live;         /* registered connections not shut down yet */
    atomic_ullong shed;       /* shed since creation */
    atomic_uint shed_unreported;
};

/* Marks e shut down (once) and counts it out of the live connections; the
 * caller then calls shutdown() on its socket. Returns 1 if this call did. */
static int mark_shut(guard_entry *e)
{
    int zero = 0;
    if (!atomic_compare_exchange_strong(&e->shut, &zero, 1))
        return 0;
    atomic_fetch_sub(&e->g->live, 1);
    return 1;
}

#define SWEEP_MS 250

/* Between two ticks of the sweeper the guard's clock advances by at most
 * this: a process stopped (SIGSTOP, a debugger, a frozen VM) and continued
 * has not spent the stop's length of its clients' deadlines. (A sweeper
 * merely late on a loaded machine skips what is beyond it, which only
 * lengthens deadlines.) */
#define LIVE_STEP_MAX_MS 1000

/* The guard's clock: deadlines are measured in the time the process ran,
 * not in wall time; never 0, which means "not waiting". Until the
 * sweeper's first tick after a stop, a connection's thread may read a
 * time up to the stop's length ahead: that connection's deadline is then
 * only later. */
static long long now_ms(connguard *g)
{
    long long ms = monotime_ms() - atomic_load(&g->skipped_ms);
    return ms > 0 ? ms : 1;
}

static void advance_clock(connguard *g)
{
    long long real = monotime_ms();
    long long step = real - g->last_real_ms;
    g->last_real_ms = real;
    if (step > LIVE_STEP_MAX_MS)
        atomic_fetch_add(&g->skipped_ms, step - LIVE_STEP_MAX_MS);
}

/* The answer to a request cut at its deadline, written on the socket by
 * the sweeper (libmicrohttpd 0.9.75 takes no response in the middle of a
 * request): 408, or 413 for a body already over the limit; the daemon's
 * JSON error with the headers of its own errors. No response of the
 * connection is under way when its deadline runs (the deadline stops while
 * one is). Best effort: a full send buffer drops it, as a client that does
 * not read would. */
static void send_deadline_answer(const connguard *g, guard_entry *e)
{
    int too_large = atomic_load(&e->over_limit);
    char body[256], msg[512];
    int nb = too_large
                 ? snprintf(body, sizeof body,
                            "{\"error\":{\"status\":413,\"message\":\"request body larger "
                            "than %d bytes, and not sent to its end within %g s\"}}",
                            LIMIT_BODY_BYTES, (double)g->deadline_ms / 1000)
                 : snprintf(body, sizeof body,
                            "{\"error\":{\"status\":408,\"message\":\"the request was not "
                            "complete within %g s of the connection's start or its previous "
                            "response\"}}",
                            (double)g->deadline_ms / 1000);
    int n = snprintf(msg, sizeof msg,
                     "HTTP/1.1 %s\r\nConnection: close\r\nContent-Type: application/json\r\n"
                     "Cache-Control: no-store\r\nAccess-Control-Allow-Origin: *\r\n"
                     "Content-Length: %d\r\n\r\n%s",
                     too_large ? "413 Content Too Large" : "408 Request Timeout", nb, body);
    if (n > 0 && (size_t)n < sizeof msg) {
        atomic_store(&e->answered, too_large ? 413 : 408);
        (void)send(e->fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
}

/* The sweeper's tick (list lock held): shuts down connections that have
 * waited too long for a complete request. */
static void sweep(void *arg)
{
    connguard *g = arg;
    advance_clock(g);
    long long now = now_ms(g);
    unsigned n = 0;
    /* Under the lock an entry's fd is still open: libmicrohttpd reports
     * a connection closed (and we unlink it) before closing its socket.
     * shutdown() wakes the connection's thread with end-of-file, and
     * libmicrohttpd then closes and frees the connection itself. */
    for (guard_entry *e = g->head; e != NULL; e = e->next) {
        if (e->linger_until != 0) {
            /* Answered at its deadline: what the client still sends is read
             * and dropped (libmicrohttpd goes on reading the request), so
             * that it reads our answer rather than a reset; for
             * linger_ms at most, like nginx's lingering_time. */
            if (now >= e->linger_until) {
                e->linger_until = 0;
                shutdown(e->fd, SHUT_RDWR);
            }
            continue;
        }
        long long since = atomic_load(&e->waiting_since_ms);
        if (since == 0 || now - since <= g->deadline_ms)
            continue;
        /* Bytes the daemon has not read yet: its own thread is busy
         * (rendering for another connection), the client is not slow. A
         * request under way with bytes waiting gets one more deadline:
         * a body sent fast for ever is not a reason to wait for ever. */
        int pending = 0;
        if (ioctl(e->fd, FIONREAD, &pending) == 0 && pending > 0 &&
            (!atomic_load(&e->started) || now - since <= 2 * g->deadline_ms))
            continue;
        if (atomic_compare_exchange_strong(&e->waiting_since_ms, &since, 0) && mark_shut(e)) {
            atomic_fetch_add(&g->closed, 1); /* counted before the client can see it */
            if (atomic_load(&e->started)) {
                /* A request under way: answered 408 (413), then the
                 * sending side closed and the rest read until the client
                 * closes or the lingering time ends. */
                send_deadline_answer(g, e);
                shutdown(e->fd, SHUT_WR);
                e->linger_until = now + (g->linger_ms > 0 ? g->linger_ms : 1);
            } else {
                shutdown(e->fd, SHUT_RDWR);
            }
            n++;
        }
    }
    if (n > 0) {
        fprintf(stderr,
                "noisetile: closed %u connection(s) that sent no complete request "
                "within %lld ms\n",
                n, g->deadline_ms);
    }
    unsigned shed = atomic_exchange(&g->shed_unreported, 0);
    if (shed > 0)
        fprintf(stderr,
                "noisetile: at %u open connections: closed the %u oldest idle one(s) to "
                "accept new ones\n",
                g->shed_above, shed);
}

/* Called with the list lock held after e joined: while more than
 * shed_above connections are live, shuts down the one that has waited
 * longest for a request (idle keep-alive, slow-loris, or a client that
 * connected and sent nothing), never one with a request being answered or
 * with unread bytes, and never e itself. */
static void shed_oldest(connguard *g, const guard_entry *e)
{
    while (g->shed_above > 0 && atomic_load(&g->live) > g->shed_above) {
        guard_entry *oldest = NULL;
        long long oldest_since = 0;
        for (guard_entry *c = g->head; c != NULL; c = c->next) {
            long long since = atomic_load(&c->waiting_since_ms);
            if (c == e || since == 0 || atomic_load(&c->shut))
                continue;
            if (oldest == NULL || since < oldest_since) {
                int pending = 0;
                if (ioctl(c->fd, FIONREAD, &pending) == 0 && pending > 0)
                    continue;
                oldest = c;
                oldest_since = since;
            }
        }
        if (oldest == NULL)
            return; /* every other connection is busy: libmicrohttpd's limit holds */
        if (atomic_compare_exchange_strong(&oldest->waiting_since_ms, &oldest_since, 0) &&
            mark_shut(oldest)) {
            atomic_fetch_add(&g->shed, 1);
            atomic_fetch_add(&g->shed_unreported, 1);
            shutdown(oldest->fd, SHUT_RDWR);
        }
    }
}

connguard *connguard_create(int deadline_ms)
{
    connguard *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    g->deadline_ms = deadline_ms;
    g->linger_ms = LIMIT_LINGER_MS;
    atomic_init(&g->skipped_ms, 0);
    g->last_real_ms = monotime_ms();
    atomic_init(&g->closed, 0);
    atomic_init(&g->live, 0);
    atomic_init(&g->shed, 0);
    atomic_init(&g->shed_unreported, 0);
    atomic_init(&g->draining, 0);
    if (ticker_start(&g->sweeper, SWEEP_MS, sweep, g) != 0) {
        free(g);
        return NULL;
    }
    return g;
}

void connguard_destroy(connguard *g)
{
    if (g == NULL)
        return;
    ticker_stop(&g->sweeper);
    /* Entries left (none after MHD_stop_daemon) are freed with the list. */
    while (g->head != NULL) {
        guard_entry *e = g->head;
        g->head = e->next;
        free(e);
    }
    free(g);
}

void connguard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                      enum MHD_ConnectionNotificationCode code)
{
    connguard *g = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        guard_entry *e = ci != NULL ? calloc(1, sizeof *e) : NULL;
        *socket_context = e;
        if (e == NULL)
            return; /* out of memory: this connection has only the idle timeout */
        e->g = g;
        e->fd = ci->connect_fd;
        atomic_init(&e->waiting_since_ms, now_ms(g));
        atomic_init(&e->started, 0);
        atomic_init(&e->shut, 0);
        atomic_init(&e->over_limit, 0);
        atomic_init(&e->answered, 0);
        pthread_mutex_lock(&g->sweeper.lock);
        e->next = g->head;
        if (g->head != NULL)
            g->head->prev = e;
        g->head = e;
        atomic_fetch_add(&g->live, 1);
        shed_oldest(g, e);
        pthread_mutex_unlock(&g->sweeper.lock);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        guard_entry *e = *socket_context;
        *socket_context = NULL;
        if (e == NULL)
            return;
        pthread_mutex_lock(&g->sweeper.lock);
        if (e->prev != NULL)
            e->prev->next = e->next;
        else
            g->head = e->next;
        if (e->next != NULL)
            e->next->prev = e->prev;
        mark_shut(e); /* counted out of the live ones, if nothing shut it before */
        pthread_mutex_unlock(&g->sweeper.lock);
        free(e);
    }
}

static guard_entry *entry_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci != NULL ? ci->socket_context : NULL;
}

int connguard_request_started(struct MHD_Connection *conn)
{
    guard_entry *e = entry_of(conn);
    if (e == NULL)
        return 0;
    atomic_store(&e->started, 1);
    return atomic_load(&e->shut) ? -1 : 0;
}

void connguard_request_received(struct MHD_Connection *conn)
{
    guard_entry *e = entry_of(conn);
    if (e != NULL)
        atomic_store(&e->waiting_since_ms, 0);
}

void connguard_request_done(struct MHD_Connection *conn)
{
    guard_entry *e = entry_of(conn);
    if (e == NULL)
        return;
    atomic_store(&e->started, 0);
    atomic_store(&e->over_limit, 0);
    atomic_store(&e->waiting_since_ms, now_ms(e->g));
    /* Stopping: the response is out; end the connection before the client
     * sends another request on it. */
    if (atomic_load(&e->g->draining) && mark_shut(e))
        shutdown(e->fd, SHUT_RDWR);
}

void connguard_body_over_limit(struct MHD_Connection *conn)
{
    guard_entry *e = entry_of(conn);
    if (e != NULL)
        atomic_store(&e->over_limit, 1);
}

int connguard_is_shut(struct MHD_Connection *conn)
{
    guard_entry *e = entry_of(conn);
    return e != NULL && atomic_load(&e->shut);
}

int connguard_answered(struct MHD_Connection *conn)
{
    guard_entry *e = entry_of(conn);
    return e != NULL ? atomic_load(&e->answered) : 0;
}

void connguard_drain(connguard *g)
{
    atomic_store(&g->draining, 1);
    pthread_mutex_lock(&g->sweeper.lock);
    for (guard_entry *e = g->head; e != NULL; e = e->next)
        if (atomic_load(&e->waiting_since_ms) != 0 && !atomic_load(&e->started) && mark_shut(e))
            shutdown(e->fd, SHUT_RDWR);
    pthread_mutex_unlock(&g->sweeper.lock);
}

unsigned long long connguard_closed(const connguard *g)
{
    return atomic_load(&g->closed);
}

void connguard_shed_above(connguard *g, unsigned n)
{
    g->shed_above = n;
}

unsigned long long connguard_shed(const connguard *g)
{
    return atomic_load(&g->shed);
}

unsigned connguard_live(const connguard *g)
{
    return atomic_load(&g->live);
}
