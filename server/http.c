/* http.c: libmicrohttpd setup and the life of one request: raw URI, body,
 * routing, method checks, CORS, the endpoint, the access log and metrics. */
#include "http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "accesslog.h"
#include "api.h"
#include "cache.h"
#include "connguard.h"
#include "daemon_limits.h"
#include "errors.h"
#include "failalloc.h"
#include "files.h"
#include "jsonout.h"
#include "metrics.h"
#include "query.h"
#include "route.h"
#include "tile.h"

struct http_server {
    struct MHD_Daemon *daemon;
    config cfg;
    unsigned int port;
    metrics *metrics;
    tile_service *tiles;
    connguard *guard;
    accesslog *log;
    atomic_int in_flight;
};

/* Per-request state, from the request line to the completion callback. */
typedef struct {
    char *uri;            /* raw request target, still percent-encoded */
    int calls;            /* access-handler calls so far */
    char *body;           /* POST body */
    size_t body_len, body_cap;
    size_t received;      /* body bytes seen, kept or not */
    int body_too_large;
    int no_memory;        /* the body could not be stored */
    route_id route;
    unsigned int status;
    uint64_t size;
    struct timespec t0;
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

void http_add_common_headers(struct MHD_Response *resp)
{
    MHD_add_response_header(resp, "Access-Control-Allow-Origin", "*");
}

struct MHD_Response *http_response_json(const json_t *doc, const char *cache_control,
                                        uint64_t *out_size)
{
    char *text;
    size_t len;
    if (jsonout_dump(doc, &text, &len) != 0)
        return NULL;
    if (out_size != NULL)
        *out_size = len;
    struct MHD_Response *resp =
        failalloc_fail_here()
            ? NULL
            : MHD_create_response_from_buffer_with_free_callback(len, text, free);
    if (resp == NULL) {
        free(text);
        return NULL;
    }
    MHD_add_response_header(resp, "Content-Type", "application/json");
    if (cache_control != NULL)
        MHD_add_response_header(resp, "Cache-Control", cache_control);
    http_add_common_headers(resp);
    return resp;
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
    if (rq != NULL && (rq->uri = failalloc_malloc(len + 1)) != NULL)
        memcpy(rq->uri, uri, len + 1);
    if (rq == NULL || rq->uri == NULL) {
        free(rq);
        return &no_memory_request;
    }
    clock_gettime(CLOCK_MONOTONIC, &rq->t0);
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
    /* One access-log line per request on stderr: client, method, target,
     * status (0: no response, the connection ended), body bytes, time.
     * Batched under load (accesslog.h); the time is formatted from integer
     * microseconds (printf's %f showed up in profiles). */
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
    char target[300];
    printable(rq->uri, target, sizeof target);
    char line[512];
    unsigned long long us = (unsigned long long)(elapsed_s(&rq->t0) * 1e6 + 0.5);
    int n = snprintf(line, sizeof line, "%s \"%s %s\" %u %llu %llu.%03llums%s\n", addr,
                     rq->method[0] ? rq->method : "-", target,
                     rq->status, (unsigned long long)rq->size, us / 1000, us % 1000,
                     toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (aborted)");
    if (n > 0)
        accesslog_write(s->log, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    metrics_count_request(s->metrics, rq->route, rq->status);
    free(rq->body);
    free(rq->uri);
    free(rq);
    atomic_fetch_sub(&s->in_flight, 1);
}

void http_reply_release(http_reply *rp)
{
    if (rp->resp != NULL && !rp->shared)
        MHD_destroy_response(rp->resp);
    cache_entry_release(rp->entry);
    memset(rp, 0, sizeof *rp);
}

/* Queues reply and releases what it holds. */
static enum MHD_Result send_reply(struct MHD_Connection *conn, request *rq, http_reply *rp)
{
    enum MHD_Result ret = MHD_queue_response(conn, rp->status, rp->resp);
    rq->status = rp->status;
    rq->size = rp->status == 304 ? 0 : rp->size;
    http_reply_release(rp);
    return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *conn, request *rq, int err,
                                  const char *msg, const char *allow)
{
    http_reply rp = {0};
    rp.status = errors_status(err);
    rp.resp = errors_response(err, msg);
    if (rp.resp == NULL) {
        rp.resp = errors_fallback();
        rp.status = 503;
        rp.shared = 1;
    } else if (allow != NULL) {
        MHD_add_response_header(rp.resp, "Allow", allow);
    }
    return send_reply(conn, rq, &rp);
}

/* CORS preflight and plain OPTIONS: 204 with the methods of the route. */
static int options_reply(const route *r, http_reply *out)
{
    out->resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (out->resp == NULL)
        return ERR_OVERLOADED;
    out->status = 204;
    MHD_add_response_header(out->resp, "Allow", route_allow(r->id));
    MHD_add_response_header(out->resp, "Access-Control-Allow-Methods", route_allow(r->id));
    MHD_add_response_header(out->resp, "Access-Control-Allow-Headers",
                            "Content-Type, If-None-Match");
    MHD_add_response_header(out->resp, "Access-Control-Max-Age", "86400");
    http_add_common_headers(out->resp);
    return 0;
}

static int metrics_reply(http_server *s, http_reply *out)
{
    size_t len;
    char *text = metrics_text(s->metrics, tile_service_cache(s->tiles), &len);
    if (text == NULL)
        return ERR_OVERLOADED;
    out->resp = MHD_create_response_from_buffer_with_free_callback(len, text, free);
    if (out->resp == NULL) {
        free(text);
        return ERR_OVERLOADED;
    }
    MHD_add_response_header(out->resp, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    MHD_add_response_header(out->resp, "Cache-Control", "no-store");
    http_add_common_headers(out->resp);
    out->status = 200;
    out->size = len;
    return 0;
}

/* "http://" + the Host header when it looks like a host[:port], else the
 * address the daemon listens on. */
static void base_url(http_server *s, struct MHD_Connection *conn, char *buf, size_t buf_size)
{
    const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
    int ok = host != NULL && host[0] != '\0' && strlen(host) < 256;
    for (const char *p = host; ok && *p != '\0'; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             strchr(".-:[]_", *p) != NULL;
    if (ok)
        snprintf(buf, buf_size, "http://%s", host);
    else if (strchr(s->cfg.bind, ':') != NULL)
        snprintf(buf, buf_size, "http://[%s]:%u", s->cfg.bind, s->port);
    else
        snprintf(buf, buf_size, "http://%s:%u", s->cfg.bind, s->port);
}

/* The viewer's file at path: from the --static folder when it has it, else
 * the copy built in (so `--static static` works on the viewer's own files
 * and takes the libraries from the binary). */
static int viewer_file(http_server *s, struct MHD_Connection *conn, const char *path,
                       http_reply *out, char *err, size_t err_size)
{
    if (s->cfg.static_dir[0] != '\0') {
        int rc = files_serve(s->cfg.static_dir, path, out, err, err_size);
        if (rc != ERR_NOT_FOUND)
            return rc;
    }
    return files_serve_embedded(
        path, MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-None-Match"), out, err,
        err_size);
}

static int dispatch(http_server *s, struct MHD_Connection *conn, request *rq, const char *method,
                    http_reply *out, char *err, size_t err_size, const char **allow)
{
    char path[LIMIT_CONNECTION_MEMORY];
    size_t plen = strcspn(rq->uri, "?#");
    if (plen >= sizeof path)
        plen = sizeof path - 1;
    memcpy(path, rq->uri, plen);
    path[plen] = '\0';

    route r;
    int rc = route_parse(path, &r, err, err_size);
    rq->route = r.id;
    int is_get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    if (rc == ERR_UNKNOWN_KIND && is_get) {
        /* A viewer file that happens to look like a tile path. */
        char ferr[ERRORS_MSG_MAX];
        if (viewer_file(s, conn, path, out, ferr, sizeof ferr) == 0) {
            rq->route = ROUTE_STATIC;
            return 0;
        }
    }
    if (rc != 0)
        return rc;
    if (!route_allows(r.id, method)) {
        *allow = route_allow(r.id);
        snprintf(err, err_size, "method %.20s not allowed on %.200s (allowed: %s)", method, path,
                 route_allow(r.id));
        return ERR_METHOD;
    }
    if (strcmp(method, "OPTIONS") == 0)
        return options_reply(&r, out);
    if (rq->no_memory)
        return ERR_OVERLOADED;
    if (rq->body_too_large) {
        snprintf(err, err_size, "request body larger than %d bytes", LIMIT_BODY_BYTES);
        return ERR_TOO_LARGE;
    }

    query_args q;
    switch (r.id) {
    case ROUTE_TILE:
    case ROUTE_POINT:
    case ROUTE_POINTS:
    case ROUTE_TILEJSON:
        rc = query_collect(conn, &q, err, err_size);
        if (rc != 0)
            return rc;
        break;
    default:
        break;
    }
    switch (r.id) {
    case ROUTE_TILE:
        return tile_handle(s->tiles,
                           MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-None-Match"),
                           &r, &q, out, err, err_size);
    case ROUTE_POINT: return api_point(&r, &q, out, err, err_size);
    case ROUTE_POINTS:
        return api_points(&r, &q, rq->body ? rq->body : "", rq->body_len, out, err, err_size);
    case ROUTE_TILEJSON: {
        char base[300];
        base_url(s, conn, base, sizeof base);
        return api_tilejson(&r, &q, base, out, err, err_size);
    }
    case ROUTE_KINDS: return api_kinds(out);
    case ROUTE_HEALTHZ: return api_healthz(out);
    case ROUTE_OPENAPI: return api_openapi(out);
    case ROUTE_METRICS: return metrics_reply(s, out);
    case ROUTE_STATIC: return viewer_file(s, conn, path, out, err, err_size);
    default:
        snprintf(err, err_size, "no route for %.200s", path);
        return ERR_NOT_FOUND;
    }
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)url;
    (void)version;
    http_server *s = cls;
    request *rq = *con_cls;
    if (rq == &closed_request)
        return MHD_NO;
    if (rq == NULL || rq == &no_memory_request) {
        connguard_request_received(conn);
        return MHD_queue_response(conn, 503, errors_fallback());
    }

    if (rq->calls++ == 0) {
        snprintf(rq->method, sizeof rq->method, "%s", method);
        /* Answer on a later call: a response queued now, before the request
         * is read, makes libmicrohttpd close the connection after it
         * (FIELD-NOTES.md). Only a body announced beyond what we would even
         * read is refused now (libmicrohttpd 0.9.75 takes a response only
         * before or after the body, not in the middle). */
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
        unsigned long long announced = cl != NULL ? strtoull(cl, NULL, 10) : 0;
        if (announced > LIMIT_BODY_DISCARD_BYTES) {
            connguard_request_received(conn);
            char msg[128];
            snprintf(msg, sizeof msg, "request body larger than %d bytes", LIMIT_BODY_BYTES);
            return send_error(conn, rq, ERR_TOO_LARGE, msg, NULL);
        }
        if (announced > LIMIT_BODY_BYTES)
            rq->body_too_large = 1;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (rq->status != 0)
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
    if (rq->status != 0)
        return MHD_YES; /* already answered (413 during the upload) */
    connguard_request_received(conn); /* whole request read: its deadline is met */

    http_reply rp = {0};
    char err[ERRORS_MSG_MAX] = "";
    const char *allow = NULL;
    int rc = dispatch(s, conn, rq, method, &rp, err, sizeof err, &allow);
    if (rc != 0)
        return send_error(conn, rq, rc, err, allow);
    return send_reply(conn, rq, &rp);
}

/* ---- start and stop ---- */

/* Each connection is a descriptor: raise the soft RLIMIT_NOFILE (often 1024)
 * towards what the connection limit needs, as far as the hard limit allows. */
static void raise_fd_limit(rlim_t need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return;
    rlim_t want = (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) ? rl.rlim_max : need;
    if (want > rl.rlim_cur) {
        rl.rlim_cur = want;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (want < need)
        fprintf(stderr, "noisetile: warning: open-file limit %llu is below the %llu the "
                        "connection limit needs\n", (unsigned long long)want,
                (unsigned long long)need);
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
    /* jansson's and the tile cache's memory comes from failalloc.h's
     * wrappers (plain malloc unless a test arms them: tests/test_oom.c), so
     * every allocation of a request path can be failed in tests. */
    json_set_alloc_funcs(failalloc_malloc, free);
    cache_set_alloc_funcs(failalloc_malloc, free);
    if (errors_init() != 0 || api_init() != 0) {
        snprintf(err, err_size, "out of memory building the static documents");
        goto fail_docs;
    }
    s->metrics = metrics_create();
    if (s->metrics == NULL) {
        snprintf(err, err_size, "out of memory");
        goto fail_metrics;
    }
    s->tiles = tile_service_create(cfg->cache_mb * 1024 * 1024, s->metrics);
    if (s->tiles == NULL) {
        snprintf(err, err_size, "out of memory creating the tile cache");
        goto fail_tiles;
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
        goto fail_daemon;
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
    unsigned int conn_limit = (unsigned int)cfg->threads * per_thread;
    raise_fd_limit((rlim_t)conn_limit + 64 + 4 * (rlim_t)cfg->threads);
    s->guard = connguard_create(LIMIT_REQUEST_DEADLINE_S * 1000);
    s->log = accesslog_create(STDERR_FILENO);
    if (s->guard == NULL || s->log == NULL) {
        snprintf(err, err_size, "out of memory");
        goto fail_daemon;
    }
    s->daemon = MHD_start_daemon(
        flags, (uint16_t)cfg->port, NULL, NULL, on_request, s,
        MHD_OPTION_SOCK_ADDR, sa,
        MHD_OPTION_THREAD_POOL_SIZE, pool,
        MHD_OPTION_CONNECTION_LIMIT, conn_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, conn_limit * LIMIT_PER_IP_NUM / LIMIT_PER_IP_DEN,
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
        goto fail_daemon;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di != NULL ? di->port : (unsigned int)cfg->port;
    return s;

fail_daemon:
    accesslog_destroy(s->log);
    connguard_destroy(s->guard);
    tile_service_destroy(s->tiles);
fail_tiles:
    metrics_destroy(s->metrics);
fail_metrics:
fail_docs:
    api_cleanup();
    errors_cleanup();
    free(s);
    return NULL;
}

unsigned int http_port(const http_server *s) { return s->port; }

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
    tile_service_destroy(s->tiles);
    metrics_destroy(s->metrics);
    api_cleanup();
    errors_cleanup();
    free(s);
}
