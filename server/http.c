/* http.c: the connection layer: libmicrohttpd setup, the life of one
 * request on its connection (framing checks, body, access log, metrics),
 * and a reply turned into a libmicrohttpd response. */
#include "http.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "accesslog.h"
#include "cache.h"
#include "connguard.h"
#include "fdlimits.h"
#include "daemon_limits.h"
#include "errors.h"
#include "failalloc.h"
#include "reply.h"
#include "service.h"

struct http_server {
    struct MHD_Daemon *daemon;
    config cfg;
    unsigned int port;
    service *svc;
    connguard *guard;
    fdlimits limits;
    accesslog *log;
    struct MHD_Response *fallback_503; /* for when nothing can be allocated */
    atomic_int in_flight;
};

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
    service_request sr;
    reply rp;             /* the answer, filled by the service */
    cache_entry *held;    /* the entry whose bytes the queued response
                             points at: released when the response is done */
    route_id route;
    unsigned int status;
    uint64_t size;        /* body bytes of the response queued */
    struct timespec t0;
    struct timespec wall; /* when the request line arrived (log) */
    char method[12];
} request;

/* Stands for a request whose state could not be allocated. */
static request no_memory_request;

/* Stands for a request read from a connection the daemon had already shut
 * down (graceful stop, request deadline): it is not served, and the
 * connection is closed without a response. */
static request closed_request;

static double elapsed_s(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

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

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    reply_stream *st = cls;
    long n = st->read(st->ctx, pos, buf, max);
    if (n > 0)
        return (ssize_t)n;
    return n == 0 ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void stream_done(void *cls)
{
    reply_stream *st = cls;
    if (st->done != NULL)
        st->done(st->ctx);
    free(st);
}

/* A response for rp, its headers added; what rp held passes to the
 * response (or to rq->held). NULL out of memory (rp then still holds it). */
static struct MHD_Response *make_response(request *rq, reply *rp)
{
    struct MHD_Response *resp = NULL;
    if (failalloc_fail_here())
        return NULL;
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
        reply_stream *st = failalloc_malloc(sizeof *st);
        if (st == NULL)
            return NULL;
        *st = rp->stream;
        size_t block = st->block_bytes != 0 ? st->block_bytes : 64 * 1024;
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
    if (rp->content_type != NULL)
        MHD_add_response_header(resp, "Content-Type", rp->content_type);
    if (rp->cache_control != NULL)
        MHD_add_response_header(resp, "Cache-Control", rp->cache_control);
    if (rp->content_encoding != NULL)
        MHD_add_response_header(resp, "Content-Encoding", rp->content_encoding);
    if (rp->vary != NULL)
        MHD_add_response_header(resp, "Vary", rp->vary);
    for (size_t i = 0; i < rp->n_headers; i++)
        MHD_add_response_header(resp, rp->headers[i].name, reply_header_at(rp, i));
    MHD_add_response_header(resp, "Access-Control-Allow-Origin", "*");
    if (rp->close)
        MHD_add_response_header(resp, "Connection", "close");
    return resp;
}

/* Queues the reply in rq->rp and releases what it still holds. The seam a
 * render pool resumes into: fill rq->rp on a worker, resume, and call this
 * on the connection's thread. */
static enum MHD_Result send_reply(http_server *s, struct MHD_Connection *conn, request *rq)
{
    reply *rp = &rq->rp;
    struct MHD_Response *resp = make_response(rq, rp);
    unsigned int status = rp->status;
    uint64_t size = rp->size;
    int shared = 0;
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
     * argument in the connection's 32 KiB pool after this callback: a few
     * hundred arguments exhaust the pool and the connection then ends with
     * no response at all. We split the query ourselves (query_split, from
     * the copy above), so end the string libmicrohttpd is about to parse:
     * it keeps the target in its read buffer, and parse_initial_message_line
     * found the '?' before calling us ("log callback before we modify URI or
     * args") and parses from the byte after it. Writing there is outside
     * its API, and tests/http/edge.test.mjs holds it to its effect: 4000
     * arguments get our 400 naming the limit. */
    char *args = strchr(uri, '?');
    if (args != NULL)
        args[1] = '\0';
    reply_init(&rq->rp);
    clock_gettime(CLOCK_MONOTONIC, &rq->t0);
    clock_gettime(CLOCK_REALTIME, &rq->wall);
    rq->route = ROUTE_NONE;
    atomic_fetch_add(&s->in_flight, 1);
    return rq;
}

static void printable(const char *in, char *out, size_t out_size)
{
    size_t n = 0;
    for (; *in != '\0' && n + 1 < out_size; in++)
        out[n++] = (*in > 0x20 && *in < 0x7f && *in != '"') ? *in : '?';
    out[n] = '\0';
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    http_server *s = cls;
    request *rq = *con_cls;
    *con_cls = NULL;
    connguard_request_done(conn);
    if (rq == NULL || rq == &no_memory_request || rq == &closed_request)
        return;
    /* One access-log line per request on stderr: time (ISO 8601 UTC),
     * client, method, target, status (0: no response, the connection
     * ended), body bytes sent, duration. Batched under load (accesslog.h);
     * numbers formatted from integers (printf's %f showed up in profiles). */
    char addr[INET6_ADDRSTRLEN] = "-";
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci != NULL && ci->client_addr != NULL) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, addr,
                      sizeof addr);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
                      addr, sizeof addr);
    }
    char when[40];
    struct tm tm;
    gmtime_r(&rq->wall.tv_sec, &tm);
    size_t wn = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + wn, sizeof when - wn, ".%03ldZ", rq->wall.tv_nsec / 1000000);
    char target[300];
    printable(rq->uri, target, sizeof target);
    char line[600];
    unsigned long long us = (unsigned long long)(elapsed_s(&rq->t0) * 1e6 + 0.5);
    int ok = toe == MHD_REQUEST_TERMINATED_COMPLETED_OK;
    int n = snprintf(line, sizeof line, "%s %s \"%s %s\" %u %llu %llu.%03llums%s\n", when, addr,
                     rq->method[0] ? rq->method : "-", target, rq->status,
                     ok ? (unsigned long long)rq->size : 0ULL, us / 1000, us % 1000,
                     ok ? "" : " (aborted)");
    if (n > 0)
        accesslog_write(s->log, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    metrics_count_request(service_metrics(s->svc), rq->route, rq->status);
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

    if (rq->calls++ == 0) {
        snprintf(rq->method, sizeof rq->method, "%s", method);
        char msg[ERRORS_MSG_MAX];
        unsigned long long announced = 0;
        const char *expect = NULL;
        int rc = check_framing(conn, version, msg, sizeof msg, &announced, &expect);
        if (rc != 0) {
            /* Queued now, before any body is read: libmicrohttpd closes the
             * connection after it, so nothing after the ambiguous request is
             * read as one (FIELD-NOTES.md). */
            connguard_request_received(conn);
            return send_error(s, conn, rq, rc, msg, 1);
        }
        /* Answer on a later call: a response queued now, before the request
         * is read, makes libmicrohttpd close the connection after it
         * (FIELD-NOTES.md). Refused now: a body announced beyond what we
         * would even read, and one over the limit whose client waits for
         * 100 Continue (it then need not send it at all). libmicrohttpd
         * 0.9.75 takes a response only before or after the body, not in the
         * middle. */
        if (announced > LIMIT_BODY_DISCARD_BYTES ||
            (announced > LIMIT_BODY_BYTES && expect != NULL)) {
            connguard_request_received(conn);
            snprintf(msg, sizeof msg, "request body larger than %d bytes", LIMIT_BODY_BYTES);
            return send_error(s, conn, rq, ERR_TOO_LARGE, msg, 1);
        }
        if (announced > LIMIT_BODY_BYTES)
            rq->body_too_large = 1;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (rq->answered)
            return MHD_YES; /* answered already; libmicrohttpd drops the rest */
        rq->received += n;
        if (rq->received > LIMIT_BODY_BYTES)
            rq->body_too_large = 1;
        if (rq->received > LIMIT_BODY_DISCARD_BYTES)
            return MHD_NO; /* an endless chunked body: close the connection */
        if (rq->body_too_large || strcmp(method, "POST") != 0)
            return MHD_YES; /* read and dropped; 413 (or ignored) at the end */
        if (rq->body_len + n + 1 > rq->body_cap) {
            size_t cap = rq->body_cap ? rq->body_cap : 4096;
            while (cap < rq->body_len + n + 1)
                cap *= 2;
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
    connguard_request_received(conn); /* whole request read: its deadline is met */

    fill_service_request(conn, rq);
    /* The seam a render pool takes: service_prepare answers everything that
     * needs no handler; route_evaluates(rq->sr.route.id) says which
     * handlers may compute the field, and service_run may run on a worker
     * thread while the connection is suspended, filling rq->rp. */
    if (service_prepare(s->svc, &rq->sr, &rq->rp) == 0)
        service_run(s->svc, &rq->sr, &rq->rp);
    rq->route = rq->sr.route.id;
    return send_reply(s, conn, rq);
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
    atomic_init(&s->in_flight, 0);
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
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC;
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
    /* Benchmarks only (BENCHMARKS.md, "HTTP"): NOISETILE_BENCH_MHD=perconn
     * runs a thread per connection, =pool:N allows N connections per epoll
     * thread, to measure the modes we did not choose. */
    const char *bench = getenv("NOISETILE_BENCH_MHD");
    if (bench != NULL && strcmp(bench, "perconn") == 0) {
        flags = (flags & ~(unsigned int)MHD_USE_EPOLL) | MHD_USE_THREAD_PER_CONNECTION;
        pool = 0;
    } else if (bench != NULL && strncmp(bench, "pool:", 5) == 0 && atoi(bench + 5) > 0) {
        per_thread = (unsigned int)atoi(bench + 5);
    }
    /* Connection limits from the descriptors the process gets (fdlimits.h). */
    if (fdlimits_plan((unsigned int)cfg->threads, per_thread, &s->limits, err, err_size) != 0)
        goto fail;
    unsigned int conn_limit = s->limits.connections;
    s->guard = connguard_create(LIMIT_REQUEST_DEADLINE_S * 1000);
    s->log = accesslog_create(STDERR_FILENO);
    if (s->guard == NULL || s->log == NULL) {
        snprintf(err, err_size, "out of memory");
        goto fail;
    }
    connguard_shed_above(s->guard, s->limits.shed_above);
    s->daemon = MHD_start_daemon(
        flags, (uint16_t)cfg->port, NULL, NULL, on_request, s,
        MHD_OPTION_SOCK_ADDR, sa,
        MHD_OPTION_THREAD_POOL_SIZE, pool,
        MHD_OPTION_CONNECTION_LIMIT, conn_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->limits.per_address,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)LIMIT_CONNECTION_TIMEOUT_S,
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
    accesslog_destroy(s->log);
    connguard_destroy(s->guard);
    if (s->fallback_503 != NULL)
        MHD_destroy_response(s->fallback_503);
    service_destroy(s->svc);
    free(s);
    return NULL;
}

unsigned int http_port(const http_server *s) { return s->port; }

const fdlimits *http_limits(const http_server *s) { return &s->limits; }

void http_reopen_log(http_server *s) { (void)s; }

void http_stop(http_server *s, int drain_ms)
{
    if (s == NULL)
        return;
    /* Stop accepting; connections already open are still served. */
    MHD_socket listen_fd = MHD_quiesce_daemon(s->daemon);
    /* Keep-alive clients would otherwise keep sending new requests and the
     * daemon would never drain: close connections between requests. */
    connguard_drain(s->guard);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (atomic_load(&s->in_flight) > 0 && elapsed_s(&t0) * 1e3 < drain_ms) {
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    MHD_stop_daemon(s->daemon);
    if (listen_fd != MHD_INVALID_SOCKET)
        close(listen_fd);
    connguard_destroy(s->guard);
    accesslog_destroy(s->log);
    MHD_destroy_response(s->fallback_503);
    service_destroy(s->svc);
    free(s);
}
