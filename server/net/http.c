/* http.c: the connection layer: libmicrohttpd setup, the life of one
 * request on its connection (framing checks, body, access log, metrics),
 * the hand-off of evaluating requests to the render pool with the
 * connection suspended, and a reply turned into a libmicrohttpd response. */
#include "net/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <malloc.h>
#include <microhttpd.h>
#include <noisetile_mhd_build.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/accesslog.h"
#include "service/cache.h"
#include "net/connguard.h"
#include "net/fdlimits.h"
#include "base/daemon_limits.h"
#include "base/errors.h"
#include "base/failalloc.h"
#include "base/monotime.h"
#include "base/ticker.h"
#include "heights/batch.h"
#include "service/pool.h"
#include "service/reply.h"
#include "service/cost.h"
#include "service/service.h"

/* Why the daemon closed a connection on its own, for /metrics. */
#define CLOSE_REASONS(XX)                                                          \
    XX(DEADLINE, "deadline")       /* no complete request in time (connguard) */   \
    XX(FRAMING, "framing")         /* ambiguous framing: 400 and close */          \
    XX(BODY_LIMIT, "body_limit")   /* over the limit, refused before it was sent */ \
    XX(CLIENT_GONE, "client_gone") /* its client left while its job waited */     \
    XX(TIMEOUT, "idle_timeout")    /* libmicrohttpd's idle timeout mid-request */  \
    XX(SHUTDOWN, "shutdown")       /* the daemon stopped with the request open */
enum {
#define CLOSE_ENUM(id, name) CLOSE_##id,
    CLOSE_REASONS(CLOSE_ENUM)
#undef CLOSE_ENUM
    CLOSE_COUNT
};
static const char *const close_names[CLOSE_COUNT] = {
#define CLOSE_NAME(id, name) name,
    CLOSE_REASONS(CLOSE_NAME)
#undef CLOSE_NAME
};

struct http_server {
    struct MHD_Daemon *daemon;
    config cfg;
    unsigned int port;
    service *svc;
    pool *pool;           /* NULL once http_stop destroyed it */
    pthread_rwlock_t pool_lock; /* pool_submit vs. http_stop's destroy */
    connguard *guard;
    fdlimits limits;
    accesslog *log;       /* NULL with --access-log off */
    int log_fd;           /* --access-log FILE, else -1 */
    struct MHD_Response *fallback_503; /* for when nothing can be allocated */
    atomic_int in_flight;
    atomic_size_t body_memory; /* reserved by the bodies in flight (batch_memory_bytes) */
    atomic_ullong closed[CLOSE_COUNT];
    ticker trimmer;       /* gives freed heap back to the system (trim_tick) */
    int trimmer_on;
    size_t free_after_trim; /* the allocator's free bytes after the last trim */
};

/* Where a request's render-pool job stands. */
enum { JOB_NONE = 0, JOB_WAITING, JOB_DONE, JOB_GONE };

/* Per-request state, from the request line to the completion callback. */
typedef struct {
    char *uri;            /* raw request target, still percent-encoded (log) */
    char *target;         /* a copy the service cuts and decodes in place */
    int calls;            /* access-handler calls so far */
    char *body;           /* POST body */
    size_t body_len, body_cap;
    size_t received;      /* body bytes seen, kept or not */
    int body_too_large;
    int no_memory;        /* the body could not be stored */
    int answered;         /* a response is queued */
    int over_body_memory; /* LIMIT_BODY_MEMORY reached: the body is dropped, 503 */
    size_t body_reserved; /* bytes of s->body_memory this request holds */
    unsigned long long announced; /* Content-Length, when given and within the limit */
    pool_job job;         /* evaluating requests: the render pool's job */
    int submit_next;      /* admitted: suspend and submit on the next call */
    uint64_t cost;        /* its estimated work (cost.h), for the submit */
    atomic_int job_state; /* JOB_*: written by the worker before it resumes */
    http_server *server;  /* for the job, which runs on a worker */
    struct MHD_Connection *conn;
    int fd;               /* the connection's socket, for the pool's probe */
    service_request sr;
    reply rp;             /* the answer, filled by the service */
    cache_entry *held;    /* the entry whose bytes the queued response
                             points at: released when the response is done */
    route_id route;
    unsigned int status;
    uint64_t size;        /* body bytes of the response queued */
    int is_stream;        /* the body is produced while sent */
    uint64_t streamed;    /* body bytes a stream produced so far */
    double t0;            /* monotime_s() when the request line arrived */
    struct timespec wall; /* when the request line arrived (log) */
    char method[12];
} request;

/* Stands for a request whose state could not be allocated. */
static request no_memory_request;

/* Stands for a request read from a connection the daemon had already shut
 * down (graceful stop, request deadline): it is not served, and the
 * connection is closed without a response. */
static request closed_request;

/* ---- process-wide state ---- */

void http_global_init(void)
{
    json_set_alloc_funcs(failalloc_malloc, free);
    cache_set_alloc_funcs(failalloc_malloc, free);
}

void http_global_shutdown(void)
{
    json_set_alloc_funcs(malloc, free);
    cache_set_alloc_funcs(NULL, NULL);
}

/* ---- reply -> response ---- */

/* A reply's stream as the response's content reader holds it; produced
 * counts the body bytes handed over, for the access log (libmicrohttpd
 * reads them all before it reports the request completed). */
typedef struct {
    reply_stream s;
    uint64_t *produced;
    /* A stream whose blocks are produced on the render pool (s.produce). */
    http_server *server;
    struct MHD_Connection *conn;
    int fd;
    unsigned char client[16];
    pool_job job;
    atomic_int failed;    /* produce failed, or its job was not run */
} stream_state;

static int submit(http_server *s, pool_job *job, int *retry_after_s);
static int fd_gone(int fd);

static int stream_job_gone(pool_job *job)
{
    stream_state *st = job->arg;
    return fd_gone(st->fd);
}

/* The pool's callback for the next block of a stream: produce it (or give
 * up when the client left or the daemon stops), then resume the
 * connection, whose content reader then reads the block. */
static void stream_job_run(pool_job *job, pool_outcome outcome)
{
    stream_state *st = job->arg;
    struct MHD_Connection *conn = st->conn;
    if (outcome != POOL_RUN || st->s.produce(st->s.ctx) != 0)
        atomic_store(&st->failed, 1);
    MHD_resume_connection(conn);
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    stream_state *st = cls;
    if (atomic_load(&st->failed))
        return MHD_CONTENT_READER_END_WITH_ERROR;
    long n = st->s.read(st->s.ctx, pos, buf, max);
    if (n > 0) {
        *st->produced += (uint64_t)n;
        return (ssize_t)n;
    }
    if (n == REPLY_STREAM_PENDING && st->s.produce != NULL) {
        /* The next block is work for the pool: suspend, submit (the
         * continuation of an admitted request is not refused for the
         * queue's bound), and report no data for now. */
        memset(&st->job, 0, sizeof st->job);
        memcpy(st->job.client, st->client, 16);
        st->job.cost = st->s.produce_cost;
        st->job.run = stream_job_run;
        st->job.gone = st->fd >= 0 ? stream_job_gone : NULL;
        st->job.arg = st;
        st->job.continuation = 1;
        MHD_suspend_connection(st->conn);
        int after;
        if (submit(st->server, &st->job, &after) != 0) {
            atomic_store(&st->failed, 1);
            MHD_resume_connection(st->conn);
        }
        return 0;
    }
    return n == 0 ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void stream_done(void *cls)
{
    stream_state *st = cls;
    if (st->s.done != NULL)
        st->s.done(st->s.ctx);
    free(st);
}

static void add_headers(struct MHD_Response *resp, const reply *rp);

static void destroy_response(void *resp) { MHD_destroy_response(resp); }

/* A cache entry's response, built once and attached to the entry: every
 * later hit queues the same response (headers and all) instead of making
 * one and adding its headers per request (tile.c fills the same reply for
 * an entry every time). NULL out of memory. */
static struct MHD_Response *entry_response(reply *rp)
{
    struct MHD_Response *resp = cache_entry_attached(rp->entry);
    if (resp != NULL)
        return resp;
    resp = MHD_create_response_from_buffer((size_t)rp->size, (void *)rp->body,
                                           MHD_RESPMEM_PERSISTENT);
    if (resp == NULL)
        return NULL;
    add_headers(resp, rp);
    struct MHD_Response *first = cache_entry_attach(rp->entry, resp, destroy_response);
    if (first != resp)
        MHD_destroy_response(resp); /* another thread attached one first */
    return first;
}

/* A response for rp, its headers added; what rp held passes to the
 * response (or to rq->held). *shared is set to 1 for a response that
 * outlives this request (not to be destroyed by it). NULL out of memory
 * (rp then still holds it). */
static struct MHD_Response *make_response(request *rq, reply *rp, int *shared)
{
    struct MHD_Response *resp = NULL;
    *shared = 0;
    if (failalloc_fail_here())
        return NULL;
    if (rp->body_kind == REPLY_ENTRY && !rp->close) {
        resp = entry_response(rp);
        if (resp != NULL) {
            *shared = 1;
            rq->held = rp->entry; /* the bytes stay until the response is done */
            rp->entry = NULL;
        }
        return resp;
    }
    switch (rp->body_kind) {
    case REPLY_EMPTY:
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        break;
    case REPLY_OWNED:
        resp = MHD_create_response_from_buffer_with_free_callback((size_t)rp->size, rp->owned,
                                                                  free);
        if (resp != NULL)
            rp->owned = NULL;
        break;
    case REPLY_BORROWED:
    case REPLY_ENTRY:
        resp = MHD_create_response_from_buffer((size_t)rp->size, (void *)rp->body,
                                               MHD_RESPMEM_PERSISTENT);
        if (resp != NULL) {
            rq->held = rp->entry;
            rp->entry = NULL;
        }
        break;
    case REPLY_FILE:
        resp = MHD_create_response_from_fd((size_t)rp->size, rp->fd);
        if (resp != NULL)
            rp->fd = -1;
        break;
    case REPLY_STREAM: {
        stream_state *st = failalloc_malloc(sizeof *st);
        if (st == NULL)
            return NULL;
        memset(st, 0, sizeof *st);
        st->s = rp->stream;
        st->produced = &rq->streamed;
        st->server = rq->server;
        st->conn = rq->conn;
        st->fd = rq->fd;
        memcpy(st->client, rq->job.client, 16);
        atomic_init(&st->failed, 0);
        rq->is_stream = 1;
        size_t block = st->s.block_bytes != 0 ? st->s.block_bytes : 64 * 1024;
        resp = MHD_create_response_from_callback(
            rp->size == REPLY_SIZE_UNKNOWN ? MHD_SIZE_UNKNOWN : rp->size, block, stream_read,
            st, stream_done);
        if (resp == NULL)
            free(st);
        else
            memset(&rp->stream, 0, sizeof rp->stream);
        break;
    }
    }
    if (resp == NULL)
        return NULL;
    add_headers(resp, rp);
    return resp;
}

static void add_headers(struct MHD_Response *resp, const reply *rp)
{
    if (rp->content_type != NULL)
        MHD_add_response_header(resp, "Content-Type", rp->content_type);
    if (rp->cache_control != NULL)
        MHD_add_response_header(resp, "Cache-Control", rp->cache_control);
    if (rp->content_encoding != NULL)
        MHD_add_response_header(resp, "Content-Encoding", rp->content_encoding);
    if (rp->vary != 0) {
        /* What a shared cache must key the answer on. */
        char vary[96];
        snprintf(vary, sizeof vary, "%s%s%s",
                 rp->vary & REPLY_VARY_ACCEPT_ENCODING ? "Accept-Encoding" : "",
                 rp->vary == (REPLY_VARY_ACCEPT_ENCODING | REPLY_VARY_BASE_URL) ? ", " : "",
                 rp->vary & REPLY_VARY_BASE_URL
                     ? "Forwarded, X-Forwarded-Proto, X-Forwarded-Host, Host"
                     : "");
        MHD_add_response_header(resp, "Vary", vary);
    }
    for (size_t i = 0; i < rp->n_headers; i++)
        MHD_add_response_header(resp, rp->headers[i].name, reply_header_at(rp, i));
    MHD_add_response_header(resp, "Access-Control-Allow-Origin", "*");
    if (rp->close)
        MHD_add_response_header(resp, "Connection", "close");
}

/* Queues the reply in rq->rp and releases what it still holds. The seam a
 * render pool resumes into: fill rq->rp on a worker, resume, and call this
 * on the connection's thread. */
static enum MHD_Result send_reply(http_server *s, struct MHD_Connection *conn, request *rq)
{
    reply *rp = &rq->rp;
    int shared;
    struct MHD_Response *resp = make_response(rq, rp, &shared);
    unsigned int status = rp->status;
    uint64_t size = rp->size;
    if (resp == NULL) {
        resp = s->fallback_503;
        shared = 1;
        status = 503;
        size = 0;
    }
    enum MHD_Result ret = MHD_queue_response(conn, status, resp);
    if (!shared)
        MHD_destroy_response(resp);
    rq->answered = 1;
    rq->status = status;
    rq->size = (status == 304 || status == 204 || strcmp(rq->method, "HEAD") == 0 ||
                size == REPLY_SIZE_UNKNOWN)
                   ? 0
                   : size;
    reply_release(rp);
    return ret;
}

static enum MHD_Result send_error(http_server *s, struct MHD_Connection *conn, request *rq,
                                  int err, const char *msg, int close_after)
{
    reply_release(&rq->rp);
    rq->rp.close = close_after;
    reply_error(&rq->rp, err, msg);
    return send_reply(s, conn, rq);
}

/* ---- request lifecycle ---- */

/* Called with the raw request target before the handler; its return value
 * becomes the request's state pointer. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    http_server *s = cls;
    if (connguard_request_started(conn) != 0)
        return &closed_request;
    request *rq = failalloc_calloc(1, sizeof *rq);
    size_t len = strlen(uri);
    if (rq != NULL && (rq->uri = failalloc_malloc(2 * (len + 1))) != NULL) {
        memcpy(rq->uri, uri, len + 1);
        rq->target = rq->uri + len + 1;
        memcpy(rq->target, uri, len + 1);
    }
    if (rq == NULL || rq->uri == NULL) {
        free(rq);
        return &no_memory_request;
    }
    /* libmicrohttpd 0.9.75 splits the query into a header record per
     * argument in the connection's memory pool (LIMIT_CONNECTION_MEMORY)
     * after this callback: a few hundred arguments exhaust the pool and the
     * connection then ends with
     * no response at all. We split the query ourselves (query_split, from
     * the copy above), so end the string libmicrohttpd is about to parse:
     * it keeps the target in its read buffer, and parse_initial_message_line
     * found the '?' before calling us ("log callback before we modify URI or
     * args") and parses from the byte after it. Writing there is outside
     * its API, and tests/http/edge.test.mjs holds it to its effect: 2000
     * arguments get our 400 naming the limit. */
    char *args = strchr(uri, '?');
    if (args != NULL)
        args[1] = '\0';
    reply_init(&rq->rp);
    rq->t0 = monotime_s();
    clock_gettime(CLOCK_REALTIME, &rq->wall);
    rq->route = ROUTE_NONE;
    atomic_fetch_add(&s->in_flight, 1);
    return rq;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    http_server *s = cls;
    request *rq = *con_cls;
    *con_cls = NULL;
    int guard_status = connguard_answered(conn); /* before request_done resets it */
    connguard_request_done(conn);
    if (rq == NULL || rq == &no_memory_request || rq == &closed_request)
        return;
    /* One access-log line per request on stderr: time (ISO 8601 UTC),
     * client, method, target, status (0: no response, the connection
     * ended), body bytes sent, duration. Batched under load, formatted
     * without printf (accesslog.h: printf-family calls, inet_ntop's
     * included, showed up in profiles of cached tiles). */
    char addr[INET6_ADDRSTRLEN] = "-";
    const union MHD_ConnectionInfo *ci =
        s->log != NULL ? MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS)
                       : NULL;
    if (ci != NULL && ci->client_addr != NULL) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            accesslog_ipv4(ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr),
                           addr);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
                      addr, sizeof addr);
    }
    unsigned long long us = (unsigned long long)((monotime_s() - rq->t0) * 1e6 + 0.5);
    int ok = toe == MHD_REQUEST_TERMINATED_COMPLETED_OK;
    /* A request libmicrohttpd answered itself (docs/http.md, "The edge"): before
     * the handler saw it (a malformed Content-Length, headers over the
     * memory limit), or instead of our reply when the request's headers
     * left no room for its head (our patch 02, deps/libmicrohttpd/): its
     * status, and its bytes unknown. */
    unsigned int status = rq->status;
    int library_answered = 0;
    const union MHD_ConnectionInfo *hi =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_HTTP_STATUS);
    if (hi != NULL && hi->http_status != 0 && (!rq->answered || hi->http_status != rq->status)) {
        status = hi->http_status;
        library_answered = 1;
    } else if (!rq->answered && guard_status != 0) {
        status = (unsigned int)guard_status; /* the guard's 408 or 413 at the deadline */
        library_answered = 1;
    }
    /* Body bytes sent: a stream's count is exact even when the client left
     * early; a buffer or file sent in full, its size (0 for HEAD, 204 and
     * 304); no response queued, 0. A buffer or file cut off mid-send is "-":
     * libmicrohttpd does not say how far it got, and neither its size nor 0
     * would be true. */
    accesslog_line al = {rq->wall, addr, rq->method, rq->uri, status, 0, 0, us, !ok};
    if (rq->is_stream && !library_answered && strcmp(rq->method, "HEAD") != 0) {
        al.sent_known = 1;
        al.sent = rq->streamed;
    } else if ((ok || rq->size == 0) && !library_answered) {
        al.sent_known = 1;
        al.sent = rq->size;
    }
    if (s->log != NULL) {
        char line[ACCESSLOG_LINE_MAX];
        accesslog_write(s->log, line, accesslog_format(&al, line));
    }
    if (toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED)
        atomic_fetch_add(&s->closed[CLOSE_TIMEOUT], 1);
    else if (toe == MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN)
        atomic_fetch_add(&s->closed[CLOSE_SHUTDOWN], 1);
    atomic_fetch_sub(&s->body_memory, rq->body_reserved);
    metrics_count_request(service_metrics(s->svc), rq->route, status);
    reply_release(&rq->rp);
    cache_entry_release(rq->held);
    free(rq->body);
    free(rq->uri);
    free(rq);
    atomic_fetch_sub(&s->in_flight, 1);
}

/* What the header section says about framing (RFC 9112 sections 6 and 5). */
typedef struct {
    int n_content_length;
    int n_transfer_encoding;
    int bad_content_length;   /* not one plain decimal number */
    int differing;            /* two Content-Length values differ */
    int bad_transfer_encoding;/* anything but one "chunked" */
    int bad_byte;             /* a bare CR, LF or NUL inside a field value */
    int n_host;               /* Host fields */
    const char *expect;       /* the Expect value, NULL if absent */
    unsigned long long content_length;
    const char *prev_value;   /* the previous field's value (NUL check) */
} framing;

/* 1 if the field value v (as libmicrohttpd 0.9.75 stored it: in place in
 * its read buffer, the line's CR LF overwritten with NULs) ended at a NUL
 * that was a byte of the line rather than its end: the byte after the
 * terminating NUL is then neither the LF's NUL nor the next field's name. */
static int value_cut_at_nul(const char *v, const char *next_key)
{
    size_t len = strlen(v);
    return v[len + 1] != '\0' && v + len + 1 != next_key;
}

static enum MHD_Result framing_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                      const char *value)
{
    (void)kind;
    framing *f = cls;
    if (f->prev_value != NULL && value_cut_at_nul(f->prev_value, key))
        f->bad_byte = 1;
    f->prev_value = value;
    if (strpbrk(value, "\r\n") != NULL || strpbrk(key, "\r\n") != NULL)
        f->bad_byte = 1;
    if (strcasecmp(key, "Transfer-Encoding") == 0) {
        f->n_transfer_encoding++;
        if (strcasecmp(value, "chunked") != 0 || f->n_transfer_encoding > 1)
            f->bad_transfer_encoding = 1;
    } else if (strcasecmp(key, "Content-Length") == 0) {
        unsigned long long v = 0;
        const char *p = value;
        int digits = 0;
        for (; *p >= '0' && *p <= '9' && digits < 19; p++, digits++)
            v = v * 10 + (unsigned long long)(*p - '0');
        if (digits == 0 || *p != '\0')
            f->bad_content_length = 1;
        if (f->n_content_length > 0 && v != f->content_length)
            f->differing = 1;
        f->content_length = v;
        f->n_content_length++;
    } else if (strcasecmp(key, "Expect") == 0) {
        f->expect = value;
    } else if (strcasecmp(key, "Host") == 0) {
        f->n_host++;
    }
    return MHD_YES;
}

/* The framing checks on the first call: 0, or an error code with msg. Each
 * error is answered at once and the connection closed: bytes after an
 * ambiguous header section cannot be trusted to start a request. Malformed
 * Content-Length values never get here: libmicrohttpd 0.9.75 answers them
 * itself (400, connection closed) before the first call. */
static int check_framing(struct MHD_Connection *conn, const char *version, char *msg,
                         size_t msg_size, unsigned long long *announced, const char **expect)
{
    framing f;
    memset(&f, 0, sizeof f);
    MHD_get_connection_values(conn, MHD_HEADER_KIND, framing_header, &f);
    if (f.prev_value != NULL && value_cut_at_nul(f.prev_value, NULL))
        f.bad_byte = 1;
    *announced = f.content_length;
    *expect = f.expect;
    if (f.bad_byte) {
        snprintf(msg, msg_size, "a header field holds a NUL byte, a bare CR or a bare LF "
                                "(RFC 9110 section 5.5)");
        return ERR_FRAMING;
    }
    if (f.n_host > 1 || (f.n_host == 0 && strcmp(version, "HTTP/1.1") == 0)) {
        snprintf(msg, msg_size, "an HTTP/1.1 request needs exactly one Host header "
                                "(RFC 9112 section 3.2), got %d", f.n_host);
        return ERR_FRAMING;
    }
    if (f.n_content_length > 0 && f.n_transfer_encoding > 0) {
        snprintf(msg, msg_size, "Content-Length together with Transfer-Encoding is ambiguous "
                                "framing (RFC 9112 section 6.1); send one of them");
        return ERR_FRAMING;
    }
    if (f.n_transfer_encoding > 0 && strcmp(version, "HTTP/1.0") == 0) {
        snprintf(msg, msg_size, "Transfer-Encoding in an HTTP/1.0 request (RFC 9112 section "
                                "6.1); send Content-Length");
        return ERR_FRAMING;
    }
    if (f.bad_transfer_encoding) {
        snprintf(msg, msg_size, "Transfer-Encoding other than one 'chunked' is not supported; "
                                "send Content-Length or Transfer-Encoding: chunked");
        return ERR_NOT_IMPLEMENTED;
    }
    if (f.bad_content_length) {
        snprintf(msg, msg_size, "Content-Length must be one decimal number");
        return ERR_FRAMING;
    }
    if (f.differing) {
        snprintf(msg, msg_size, "Content-Length given twice with different values");
        return ERR_FRAMING;
    }
    if (f.n_content_length > 1) {
        snprintf(msg, msg_size, "Content-Length given more than once");
        return ERR_FRAMING;
    }
    if (f.expect != NULL && strcasecmp(f.expect, "100-continue") != 0) {
        snprintf(msg, msg_size, "Expect: only 100-continue is supported");
        return ERR_EXPECTATION;
    }
    return 0;
}

/* The request's facts for the service; strings borrowed from the
 * connection, which keeps them until the response is done. */
static void fill_service_request(struct MHD_Connection *conn, request *rq)
{
    service_request *sr = &rq->sr;
    memset(sr, 0, sizeof *sr);
    sr->method = rq->method;
    sr->target = rq->target;
    sr->raw_target = rq->uri;
    sr->body = rq->body;
    sr->body_len = rq->body_len;
    sr->body_too_large = rq->body_too_large;
    sr->body_no_memory = rq->no_memory;
    sr->if_none_match = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-None-Match");
    sr->host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
    sr->forwarded = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Forwarded");
    sr->x_forwarded_proto =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Forwarded-Proto");
    sr->x_forwarded_host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Forwarded-Host");
    sr->accept_encoding = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept-Encoding");
}

/* ---- the render pool ---- */

/* The client's address as the pool's 16-byte key (IPv4 mapped into IPv6). */
static void client_key(struct MHD_Connection *conn, unsigned char out[16])
{
    memset(out, 0, 16);
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci == NULL || ci->client_addr == NULL)
        return;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        pool_client_ipv4(out, ntohl(in->sin_addr.s_addr));
    } else if (sa->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
    }
}

/* The pool's probe, on a worker or the sweeper while the connection is
 * suspended (libmicrohttpd does not look at a suspended connection, so it
 * would only notice a departed client after the work): POOL_GONE when the
 * connection was reset (a client that closed with our bytes unread, or
 * that closed before bytes we sent reached it); POOL_MAYBE_GONE at end of
 * stream: the client closed its sending side, which a client that left
 * does, and so does one that half-closes after its request (HTTP/1.1
 * allows it) and still reads the answer; the two look alike until the
 * daemon writes. Bytes waiting (a pipelined request) mean it is there. */
static int fd_gone(int fd)
{
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0)
        return POOL_MAYBE_GONE;
    return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR ? POOL_GONE
                                                                             : POOL_THERE;
}

static int job_gone(pool_job *job)
{
    request *rq = job->arg;
    return fd_gone(rq->fd);
}

/* pool_submit, or POOL_ESTOPPED once http_stop has taken the pool away;
 * *retry_after_s gets the wait to suggest when refused. */
static int submit(http_server *s, pool_job *job, int *retry_after_s)
{
    pthread_rwlock_rdlock(&s->pool_lock);
    int rc = POOL_ESTOPPED;
    *retry_after_s = 1;
    if (s->pool != NULL) {
        rc = pool_submit(s->pool, job);
        if (rc != 0)
            *retry_after_s = pool_retry_after_s(s->pool);
    }
    pthread_rwlock_unlock(&s->pool_lock);
    return rc;
}

/* The pool's callback, called once per job: evaluates on a worker (or
 * answers 503 when the daemon is stopping), stores the reply, marks the
 * request and resumes its connection, and then touches nothing of it: the
 * connection's thread sends the reply and may free the request at once. */
static void job_run(pool_job *job, pool_outcome outcome)
{
    request *rq = job->arg;
    http_server *s = rq->server;
    struct MHD_Connection *conn = rq->conn;
    int state = JOB_DONE;
    if (outcome == POOL_RUN) {
        service_run(s->svc, &rq->sr, &rq->rp);
    } else if (outcome == POOL_CANCELLED) {
        state = JOB_GONE;
    } else {
        reply_error(&rq->rp, ERR_OVERLOADED,
                    "the daemon is shutting down and could not start this request; retry");
        reply_header(&rq->rp, "Retry-After", "1");
    }
    atomic_store_explicit(&rq->job_state, state, memory_order_release);
    MHD_resume_connection(conn);
}

/* Hands an evaluating request to the pool: suspend first, then submit, so
 * the worker's resume always follows the suspend (docs/architecture.md,
 * "The HTTP library"). A request the pool refuses (over its bound, shutting
 * down) is answered 503 with Retry-After at once, through the same resume. */
static enum MHD_Result submit_job(http_server *s, struct MHD_Connection *conn, request *rq,
                                  uint64_t cost)
{
    rq->job.cost = cost;
    rq->job.run = job_run;
    rq->job.gone = rq->fd >= 0 ? job_gone : NULL;
    rq->job.arg = rq;
    atomic_store_explicit(&rq->job_state, JOB_WAITING, memory_order_relaxed);
    MHD_suspend_connection(conn);
    int after;
    int rc = submit(s, &rq->job, &after);
    if (rc == 0)
        return MHD_YES;
    char msg[200], retry[16];
    if (rc == POOL_EFULL)
        snprintf(msg, sizeof msg,
                 "the render queue is full (its work is bounded so that waits stay short); "
                 "retry in %d s",
                 after);
    else if (rc == POOL_ESTOPPED)
        snprintf(msg, sizeof msg, "the daemon is shutting down; retry");
    else
        snprintf(msg, sizeof msg, "out of memory, try again");
    reply_error(&rq->rp, rc == POOL_ENOMEM ? ERR_NOMEM : ERR_OVERLOADED, msg);
    snprintf(retry, sizeof retry, "%d", after);
    reply_header(&rq->rp, "Retry-After", retry);
    atomic_store_explicit(&rq->job_state, JOB_DONE, memory_order_release);
    MHD_resume_connection(conn);
    return MHD_YES;
}

/* Raises rq's share of the body-memory bound to want bytes. Returns 0, or
 * -1 when that would take all bodies in flight over LIMIT_BODY_MEMORY. */
static int reserve_body_memory(http_server *s, request *rq, size_t want)
{
    if (want <= rq->body_reserved)
        return 0;
    size_t more = want - rq->body_reserved;
    size_t cur = atomic_load(&s->body_memory);
    do {
        if (cur + more > (size_t)LIMIT_BODY_MEMORY)
            return -1;
    } while (!atomic_compare_exchange_weak(&s->body_memory, &cur, cur + more));
    rq->body_reserved = want;
    return 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)url;
    http_server *s = cls;
    request *rq = *con_cls;
    if (rq == &closed_request)
        return MHD_NO;
    if (rq == NULL || rq == &no_memory_request) {
        connguard_request_received(conn);
        return MHD_queue_response(conn, 503, s->fallback_503);
    }
    /* Called again after the pool's worker resumed the connection. */
    switch (atomic_load_explicit(&rq->job_state, memory_order_acquire)) {
    case JOB_WAITING:
        return MHD_YES; /* not resumed yet (never happens: suspended) */
    case JOB_DONE:
        if (rq->answered)
            return MHD_YES;
        return send_reply(s, conn, rq);
    case JOB_GONE:
        /* Nobody to answer: close. Logged as 499 (nginx's "client closed
         * request"), marked aborted. */
        if (!rq->answered) {
            rq->answered = 1;
            rq->status = 499;
            atomic_fetch_add(&s->closed[CLOSE_CLIENT_GONE], 1);
        }
        return MHD_NO;
    default:
        break;
    }
    if (rq->submit_next) {
        rq->submit_next = 0;
        return submit_job(s, conn, rq, rq->cost);
    }

    if (rq->calls++ == 0) {
        snprintf(rq->method, sizeof rq->method, "%s", method);
        /* What the render pool needs of the connection: its socket (to see
         * a client leave while its job waits) and the client's address. */
        const union MHD_ConnectionInfo *fi =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        rq->fd = fi != NULL ? fi->connect_fd : -1;
        rq->server = s;
        rq->conn = conn;
        client_key(conn, rq->job.client);
        char msg[ERRORS_MSG_MAX];
        unsigned long long announced = 0;
        const char *expect = NULL;
        int rc = check_framing(conn, version, msg, sizeof msg, &announced, &expect);
        if (rc != 0) {
            /* Queued now, before any body is read: libmicrohttpd closes the
             * connection after it, so nothing after the ambiguous request is
             * read as one (docs/architecture.md, "The HTTP library"). */
            connguard_request_received(conn);
            atomic_fetch_add(&s->closed[CLOSE_FRAMING], 1);
            return send_error(s, conn, rq, rc, msg, 1);
        }
        /* Answer on a later call: a response queued now, before the request
         * is read, makes libmicrohttpd close the connection after it
         * (docs/architecture.md, "The HTTP library"). Refused now: a body
         * over the limit whose client waits for 100 Continue (it then need
         * not send it at all). Any other body over the limit is read and
         * dropped, however large, and answered 413 at its end: a client
         * that sends its whole body before it reads (Python's http.client)
         * would otherwise meet a reset, not the 413. The request deadline
         * bounds that in time (daemon_limits.h, LIMIT_LINGER_MS).
         * libmicrohttpd 0.9.75 takes a response only before or after the
         * body, not in the middle. */
        if (announced > LIMIT_BODY_BYTES && expect != NULL) {
            connguard_request_received(conn);
            atomic_fetch_add(&s->closed[CLOSE_BODY_LIMIT], 1);
            snprintf(msg, sizeof msg, "request body larger than %d bytes", LIMIT_BODY_BYTES);
            return send_error(s, conn, rq, ERR_TOO_LARGE, msg, 1);
        }
        if (announced > LIMIT_BODY_BYTES) {
            rq->body_too_large = 1;
            connguard_body_over_limit(conn);
        } else
            rq->announced = announced;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (rq->answered)
            return MHD_YES; /* answered already; libmicrohttpd drops the rest */
        rq->received += n;
        if (rq->received > LIMIT_BODY_BYTES && !rq->body_too_large) {
            rq->body_too_large = 1;
            connguard_body_over_limit(conn);
        }
        if (rq->body_too_large || strcmp(method, "POST") != 0)
            return MHD_YES; /* read and dropped; 413 (or ignored) at the end */
        if (rq->body_len + n + 1 > rq->body_cap) {
            /* The announced length at once (one block, no copies), else
             * doubling. */
            size_t cap = rq->body_cap ? rq->body_cap
                         : rq->announced > 0 ? (size_t)rq->announced + 1 : 4096;
            while (cap < rq->body_len + n + 1)
                cap *= 2;
            /* Reserve, for all bodies in flight together, what this batch
             * will need up to its answer (batch.h); over the bound the body
             * is dropped and the request answered 503. */
            if (reserve_body_memory(s, rq, batch_memory_bytes(cap, LIMIT_MAX_POINTS)) != 0) {
                rq->over_body_memory = 1;
                rq->body_too_large = 1; /* drop the rest */
                free(rq->body);
                rq->body = NULL;
                rq->body_len = rq->body_cap = 0;
                return MHD_YES;
            }
            char *nb = failalloc_realloc(rq->body, cap);
            if (nb == NULL) {
                rq->body_too_large = 1; /* drop the rest; answered at the end */
                rq->no_memory = 1;
                return MHD_YES;
            }
            rq->body = nb;
            rq->body_cap = cap;
        }
        memcpy(rq->body + rq->body_len, upload_data, n);
        rq->body_len += n;
        rq->body[rq->body_len] = '\0';
        return MHD_YES;
    }
    if (rq->answered)
        return MHD_YES; /* already answered (413 during the upload) */
    if (connguard_is_shut(conn))
        return MHD_NO; /* completed after its deadline's answer (or a drain): not served */
    connguard_request_received(conn); /* whole request read: its deadline is met */

    if (rq->over_body_memory) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "request bodies in flight have reached the daemon's bound of %d MiB; retry "
                 "shortly",
                 LIMIT_BODY_MEMORY / (1024 * 1024));
        reply_error(&rq->rp, ERR_OVERLOADED, msg);
        reply_header(&rq->rp, "Retry-After", "1");
        return send_reply(s, conn, rq);
    }

    /* Everything that needs no evaluation is answered here, on the
     * connection's thread: errors, OPTIONS, documents, files, /metrics,
     * and for evaluating routes the cached tiles and their 304s, bad
     * queries and requests over the cost limit (service_admit). The rest
     * goes to the render pool with the connection suspended. */
    fill_service_request(conn, rq);
    int done = service_prepare(s->svc, &rq->sr, &rq->rp);
    rq->route = rq->sr.route.id;
    if (done)
        return send_reply(s, conn, rq);
    if (!route_evaluates(rq->route)) {
        service_run(s->svc, &rq->sr, &rq->rp);
        return send_reply(s, conn, rq);
    }
    if (service_admit(s->svc, &rq->sr, &rq->rp, &rq->cost) != 0)
        return send_reply(s, conn, rq);
    /* Suspend on the next call, not this one (docs/architecture.md, "The
     * HTTP library"): libmicrohttpd 0.9.75 reads the socket once more on
     * resume when the suspend came in the same pass as the read that
     * completed the request, and a client that half-closed after its
     * request would then lose its answer. Returning without a response
     * ends the pass with the request complete and no read wanted; the
     * library calls again at once. */
    rq->submit_next = 1;
    return MHD_YES;
}

/* ---- /metrics: the render pool and the connections the daemon closed ---- */

static char *metrics_extra(void *ctx, size_t *out_len)
{
    http_server *s = ctx;
    pool_stats st;
    memset(&st, 0, sizeof st);
    pthread_rwlock_rdlock(&s->pool_lock);
    if (s->pool != NULL)
        pool_get_stats(s->pool, &st);
    pthread_rwlock_unlock(&s->pool_lock);
    char *t = failalloc_malloc(4096);
    if (t == NULL)
        return NULL;
    int n = snprintf(
        t, 4096,
        "# HELP noisetile_pool_workers Render threads (--workers).\n"
        "# TYPE noisetile_pool_workers gauge\nnoisetile_pool_workers %d\n"
        "# HELP noisetile_pool_queued_jobs Requests waiting for a render thread.\n"
        "# TYPE noisetile_pool_queued_jobs gauge\nnoisetile_pool_queued_jobs %llu\n"
        "# HELP noisetile_pool_queued_work Estimated work waiting (cost.h units).\n"
        "# TYPE noisetile_pool_queued_work gauge\nnoisetile_pool_queued_work %llu\n"
        "# HELP noisetile_pool_queued_work_limit The bound on waiting work.\n"
        "# TYPE noisetile_pool_queued_work_limit gauge\nnoisetile_pool_queued_work_limit %llu\n"
        "# HELP noisetile_pool_running_jobs Requests being evaluated now.\n"
        "# TYPE noisetile_pool_running_jobs gauge\nnoisetile_pool_running_jobs %llu\n"
        "# HELP noisetile_pool_jobs_total Requests handed to the render pool, by outcome.\n"
        "# TYPE noisetile_pool_jobs_total counter\n"
        "noisetile_pool_jobs_total{outcome=\"completed\"} %llu\n"
        "noisetile_pool_jobs_total{outcome=\"client_gone\"} %llu\n"
        "noisetile_pool_jobs_total{outcome=\"shutdown\"} %llu\n"
        "noisetile_pool_jobs_total{outcome=\"refused_full\"} %llu\n"
        "noisetile_pool_jobs_total{outcome=\"refused_stopping\"} %llu\n"
        "# HELP noisetile_pool_wait_seconds_total Time jobs waited in the queue.\n"
        "# TYPE noisetile_pool_wait_seconds_total counter\nnoisetile_pool_wait_seconds_total %.6f\n"
        "# HELP noisetile_pool_run_seconds_total Worker time spent on jobs.\n"
        "# TYPE noisetile_pool_run_seconds_total counter\nnoisetile_pool_run_seconds_total %.6f\n"
        "# HELP noisetile_body_memory_bytes Memory reserved by request bodies in flight.\n"
        "# TYPE noisetile_body_memory_bytes gauge\nnoisetile_body_memory_bytes %zu\n"
        "# HELP noisetile_connections_closed_total Connections the daemon closed on its own, "
        "by reason.\n# TYPE noisetile_connections_closed_total counter\n",
        st.workers, (unsigned long long)st.queued_jobs, (unsigned long long)st.queued_cost,
        (unsigned long long)st.max_queued_cost, (unsigned long long)st.running_jobs,
        (unsigned long long)st.completed, (unsigned long long)st.cancelled,
        (unsigned long long)st.stopped, (unsigned long long)st.refused_full,
        (unsigned long long)st.refused_stopped, st.wait_seconds, st.run_seconds,
        atomic_load(&s->body_memory));
    for (int i = 0; i < CLOSE_COUNT && n > 0 && n < 4096; i++) {
        unsigned long long v = atomic_load(&s->closed[i]);
        if (i == CLOSE_DEADLINE)
            v = connguard_closed(s->guard);
        n += snprintf(t + n, 4096 - (size_t)n,
                      "noisetile_connections_closed_total{reason=\"%s\"} %llu\n",
                      close_names[i], v);
    }
    *out_len = n > 0 && n < 4096 ? (size_t)n : 0;
    return t;
}

/* ---- memory after a burst ---- */

/* Free heap bytes that make a trim worth it (below: not worth a call). */
#define TRIM_SLACK_BYTES (8u * 1024 * 1024)

/* Once a second: when the allocator holds at least TRIM_SLACK_BYTES more
 * free memory than after the last trim, malloc_trim gives the free pages of
 * every arena back to the system. Blocks of 64 KiB and more are mmapped and
 * go back when freed (main.c), but the many small ones of a burst of
 * connections (600 grid clients that do not read: their connection memory,
 * stream states, bands) are spread over the connection threads' arenas,
 * which glibc keeps: RSS stayed at 110-156 MB with 20 MB in use. A trim
 * costs a walk over the arenas' free lists, which is why it waits for a
 * burst's worth of freed memory instead of running every tick. */
static void trim_tick(void *arg)
{
    http_server *s = arg;
    struct mallinfo2 mi = mallinfo2();
    if (mi.fordblks < s->free_after_trim + TRIM_SLACK_BYTES) {
        if (mi.fordblks < s->free_after_trim)
            s->free_after_trim = mi.fordblks; /* reused since: measure from here */
        return;
    }
    malloc_trim(0);
    s->free_after_trim = mallinfo2().fordblks;
}

/* ---- start and stop ---- */

static struct MHD_Response *make_fallback_503(void)
{
    static const char body[] =
        "{\"error\":{\"status\":503,\"message\":\"out of memory, try again\"}}";
    struct MHD_Response *r =
        MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    if (r == NULL)
        return NULL;
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "Access-Control-Allow-Origin", "*");
    return r;
}

http_server *http_start(const config *cfg, char *err, size_t err_size)
{
    http_server *s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->log_fd = -1;
    pthread_rwlock_init(&s->pool_lock, NULL);
    atomic_init(&s->in_flight, 0);
    atomic_init(&s->body_memory, 0);
    for (int i = 0; i < CLOSE_COUNT; i++)
        atomic_init(&s->closed[i], 0);
    s->svc = service_create(cfg, err, err_size);
    if (s->svc == NULL)
        goto fail;
    s->fallback_503 = make_fallback_503();
    if (s->fallback_503 == NULL) {
        snprintf(err, err_size, "out of memory");
        goto fail;
    }

    struct sockaddr_in sa4;
    struct sockaddr_in6 sa6;
    const struct sockaddr *sa;
    /* Suspend/resume hands evaluating requests to the render pool
     * (MHD_ALLOW_SUSPEND_RESUME brings MHD_USE_ITC). */
    unsigned int flags =
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME;
    memset(&sa4, 0, sizeof sa4);
    memset(&sa6, 0, sizeof sa6);
    if (inet_pton(AF_INET, cfg->bind, &sa4.sin_addr) == 1) {
        sa4.sin_family = AF_INET;
        sa4.sin_port = htons((uint16_t)cfg->port);
        sa = (const struct sockaddr *)&sa4;
    } else if (inet_pton(AF_INET6, cfg->bind, &sa6.sin6_addr) == 1) {
        sa6.sin6_family = AF_INET6;
        sa6.sin6_port = htons((uint16_t)cfg->port);
        sa = (const struct sockaddr *)&sa6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, err_size, "bad bind address '%s'", cfg->bind);
        goto fail;
    }
    unsigned int per_thread = LIMIT_CONNECTIONS_PER_THREAD;
    unsigned int pool = (unsigned int)cfg->threads;
    /* Benchmarks only (BENCHMARKS.md, "HTTP"): NOISETILE_BENCH_MHD=pool:N
     * allows N connections per epoll thread instead of 120, to measure the
     * mode we did not choose. Thread-per-connection ("perconn") was the
     * other such mode; it is refused: libmicrohttpd 0.9.75 does not wake a
     * connection thread when a render worker resumes its suspended request
     * (the thread waits in select() without the wake-up descriptor), so the
     * first uncached tile would hang its client for good. */
    const char *bench = getenv("NOISETILE_BENCH_MHD");
    if (bench != NULL) {
        char *end = NULL;
        long n = strncmp(bench, "pool:", 5) == 0 ? strtol(bench + 5, &end, 10) : 0;
        if (strcmp(bench, "perconn") == 0) {
            snprintf(err, err_size,
                     "NOISETILE_BENCH_MHD=perconn is not supported: in libmicrohttpd's "
                     "thread-per-connection mode a request handed to the render pool is "
                     "never resumed; unset it (or use pool:N)");
            goto fail;
        }
        if (end == NULL || end == bench + 5 || *end != '\0' || n < 1 || n > 100000) {
            snprintf(err, err_size,
                     "NOISETILE_BENCH_MHD must be pool:N (connections per epoll thread, "
                     "1..100000), got '%.40s'",
                     bench);
            goto fail;
        }
        per_thread = (unsigned int)n;
    }
    /* Connection limits from the descriptors the process gets (fdlimits.h). */
    if (fdlimits_plan((unsigned int)cfg->threads, per_thread, &s->limits, err, err_size) != 0)
        goto fail;
    unsigned int conn_limit = s->limits.connections;
    if (cfg->access_log[0] != '\0' && strcmp(cfg->access_log, "off") != 0) {
        s->log_fd = open(cfg->access_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (s->log_fd < 0) {
            snprintf(err, err_size, "cannot open access log '%s': %s", cfg->access_log,
                     strerror(errno));
            goto fail;
        }
    }
    int log_on = strcmp(cfg->access_log, "off") != 0;
    /* Tests only (tests/http/strain.test.mjs, lingering.test.mjs):
     * NOISETILE_TEST_TIMEOUTS=DEADLINE_MS,IDLE_S shortens the request
     * deadline and libmicrohttpd's idle timeout, so that what happens at
     * them can be tested in seconds. */
    int deadline_ms = LIMIT_REQUEST_DEADLINE_S * 1000;
    unsigned int idle_s = LIMIT_CONNECTION_TIMEOUT_S;
    const char *tt = getenv("NOISETILE_TEST_TIMEOUTS");
    if (tt != NULL) {
        int dms = 0, is = 0;
        if (sscanf(tt, "%d,%d", &dms, &is) != 2 || dms < 100 || dms > 600000 || is < 1 ||
            is > 3600) {
            snprintf(err, err_size,
                     "NOISETILE_TEST_TIMEOUTS must be DEADLINE_MS,IDLE_S (100..600000, "
                     "1..3600), got '%.40s'",
                     tt);
            goto fail;
        }
        deadline_ms = dms;
        idle_s = (unsigned int)is;
    }
    s->guard = connguard_create(deadline_ms);
    if (log_on)
        s->log = accesslog_create(s->log_fd >= 0 ? s->log_fd : STDERR_FILENO);
    /* Workers at nice +10: the connection threads (cached tiles, health
     * checks) win the CPU whenever they have work. */
    pool_config pc = {cfg->workers, LIMIT_WORKER_NICE,
                      (uint64_t)cfg->workers * COST_QUEUE_PER_WORKER, 0};
    s->pool = pool_create(&pc);
    if (s->guard == NULL || (log_on && s->log == NULL) || s->pool == NULL) {
        snprintf(err, err_size, "out of memory");
        goto fail;
    }
    metrics_set_extra(service_metrics(s->svc), metrics_extra, s);
    connguard_shed_above(s->guard, s->limits.shed_above);
    s->daemon = MHD_start_daemon(
        flags, (uint16_t)cfg->port, NULL, NULL, on_request, s,
        MHD_OPTION_SOCK_ADDR, sa,
        MHD_OPTION_THREAD_POOL_SIZE, pool,
        MHD_OPTION_CONNECTION_LIMIT, conn_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->limits.per_address,
        MHD_OPTION_CONNECTION_TIMEOUT, idle_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)LIMIT_CONNECTION_MEMORY,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)LIMIT_LISTEN_BACKLOG,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, connguard_notify, s->guard,
        MHD_OPTION_END);
    if (s->daemon == NULL) {
        snprintf(err, err_size, "cannot listen on %s port %d (in use, or not an address here?)",
                 cfg->bind, cfg->port);
        goto fail;
    }
    s->trimmer_on = ticker_start(&s->trimmer, 1000, trim_tick, s) == 0;
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di != NULL ? di->port : (unsigned int)cfg->port;
    char base[128];
    if (strchr(cfg->bind, ':') != NULL)
        snprintf(base, sizeof base, "http://[%s]:%u", cfg->bind, s->port);
    else
        snprintf(base, sizeof base, "http://%s:%u", cfg->bind, s->port);
    service_set_fallback_base(s->svc, base);
    return s;

fail:
    pool_destroy(s->pool);
    accesslog_destroy(s->log);
    if (s->log_fd >= 0)
        close(s->log_fd);
    connguard_destroy(s->guard);
    if (s->fallback_503 != NULL)
        MHD_destroy_response(s->fallback_503);
    service_destroy(s->svc);
    pthread_rwlock_destroy(&s->pool_lock);
    free(s);
    return NULL;
}

unsigned int http_port(const http_server *s) { return s->port; }

const fdlimits *http_limits(const http_server *s) { return &s->limits; }

/* NOISETILE_MHD_BUILD comes from the build of the library itself
 * (noisetile_mhd_build.h, written by scripts/libmicrohttpd.sh next to the
 * microhttpd.h it installs); MHD_get_version() from the code linked in. */
const char *http_library(void)
{
    static char text[1024];
    snprintf(text, sizeof text, "libmicrohttpd %s (%s)", MHD_get_version(), NOISETILE_MHD_BUILD);
    return text;
}

void http_reopen_log(http_server *s)
{
    if (s->log == NULL || s->log_fd < 0)
        return; /* off, or standard error: nothing to reopen */
    int fd = open(s->cfg.access_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "noisetile: cannot reopen access log '%s': %s (still writing to the "
                        "old file)\n", s->cfg.access_log, strerror(errno));
        return;
    }
    close(accesslog_swap_fd(s->log, fd));
    s->log_fd = fd;
}

void http_stop(http_server *s, int drain_ms)
{
    if (s == NULL)
        return;
    /* Stop accepting; connections already open are still served. The
     * listening socket stops listening at once, not at the end: a client
     * then gets a refused connection (and tries another replica) instead
     * of waiting in the listen backlog for a daemon that will never accept
     * it. shutdown() does that (Linux: the backlog is reset, later
     * connects refused) without closing the descriptor, which a
     * connection thread may still be about to accept() on (libmicrohttpd:
     * "must not be closed while it's in use"): it is closed after
     * MHD_stop_daemon. */
    MHD_socket listen_fd = MHD_quiesce_daemon(s->daemon);
    if (listen_fd != MHD_INVALID_SOCKET)
        shutdown(listen_fd, SHUT_RDWR);
    /* Keep-alive clients would otherwise keep sending new requests and the
     * daemon would never drain: close connections between requests. */
    connguard_drain(s->guard);
    double t0 = monotime_s();
    /* Waiting jobs the workers can start within half the drain time are
     * rendered; the others are answered 503 now. Responses under way
     * finish. */
    pool_drain(s->pool, drain_ms / 2);
    while (atomic_load(&s->in_flight) > 0 && (monotime_s() - t0) * 1e3 < drain_ms) {
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    /* Every job still waiting is answered 503; a render still running
     * finishes (bounded by the per-request cost limit). Once the pool is
     * gone every suspended connection has been resumed, which
     * MHD_stop_daemon requires (it aborts the process otherwise), and the
     * 503s get a moment to be sent. */
    pthread_rwlock_wrlock(&s->pool_lock);
    pool *p = s->pool;
    s->pool = NULL; /* from now on a late request is answered 503 */
    pthread_rwlock_unlock(&s->pool_lock);
    pool_destroy(p);
    double t1 = monotime_s();
    while (atomic_load(&s->in_flight) > 0 && monotime_s() - t1 < 1.0) {
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    MHD_stop_daemon(s->daemon);
    if (listen_fd != MHD_INVALID_SOCKET)
        close(listen_fd);
    if (s->trimmer_on)
        ticker_stop(&s->trimmer);
    connguard_destroy(s->guard);
    accesslog_destroy(s->log);
    if (s->log_fd >= 0)
        close(s->log_fd);
    MHD_destroy_response(s->fallback_503);
    service_destroy(s->svc);
    pthread_rwlock_destroy(&s->pool_lock);
    free(s);
}
