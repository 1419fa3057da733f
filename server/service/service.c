/* service.c: the service behind the connection layer: its state, the route
 * table bound to handlers, dispatch, and the base URL of written links. */
#include "service/service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "service/api.h"
#include "service/graphapi.h"
#include "service/graphs.h"
#include "service/params.h"
#include "base/daemon_limits.h"
#include "base/errors.h"
#include "service/files.h"
#include "base/gzip.h"
#include "service/heightsreq.h"
#include "base/jsonout.h"
#include "service/openapi.h"
#include "service/tile.h"

/* A JSON document built once, served from its bytes (and their gzip form,
 * made once too). */
typedef struct {
    char *text;
    size_t len;
    unsigned char *gz;
    size_t gz_len;
} document;

struct service {
    config cfg;
    metrics *metrics;
    tile_service *tiles;
    graphs *graphs;
    document kinds, healthz, openapi, tms, graph_list;
    char fallback_base[128];
};

/* ---- lifetime ---- */

static int document_build(document *d, json_t *doc)
{
    int rc = doc != NULL ? jsonout_dump(doc, &d->text, &d->len) : -1;
    json_decref(doc);
    if (rc == 0)
        rc = gzip_buffer(GZIP_TEXT, d->text, d->len, &d->gz, &d->gz_len);
    return rc;
}

service *service_create(const config *cfg, char *err, size_t err_size)
{
    service *s = calloc(1, sizeof *s);
    if (s == NULL)
        goto fail;
    s->cfg = *cfg;
    snprintf(s->fallback_base, sizeof s->fallback_base, "http://127.0.0.1");
    s->metrics = metrics_create();
    if (s->metrics == NULL)
        goto fail;
    s->graphs = graphs_create(cfg->graphs_file, err, err_size);
    if (s->graphs == NULL) {
        service_destroy(s);
        return NULL;
    }
    s->tiles = tile_service_create(cfg->cache_mb * 1024 * 1024, s->metrics);
    if (s->tiles == NULL)
        goto fail;
    tile_service_set_graphs(s->tiles, s->graphs);
    if (document_build(&s->kinds, api_kinds_document()) != 0 ||
        document_build(&s->healthz, json_pack("{s:s}", "status", "ok")) != 0 ||
        document_build(&s->openapi, openapi_document()) != 0 ||
        document_build(&s->tms, api_tms_document()) != 0 ||
        document_build(&s->graph_list, graphs_list_document(s->graphs)) != 0)
        goto fail;
    return s;
fail:
    snprintf(err, err_size, "out of memory creating the service");
    service_destroy(s);
    return NULL;
}

void service_destroy(service *s)
{
    if (s == NULL)
        return;
    free(s->kinds.text);
    free(s->healthz.text);
    free(s->openapi.text);
    free(s->kinds.gz);
    free(s->healthz.gz);
    free(s->openapi.gz);
    free(s->tms.text);
    free(s->tms.gz);
    free(s->graph_list.text);
    free(s->graph_list.gz);
    tile_service_destroy(s->tiles);
    graphs_destroy(s->graphs);
    metrics_destroy(s->metrics);
    free(s);
}

void service_set_fallback_base(service *s, const char *base_url)
{
    snprintf(s->fallback_base, sizeof s->fallback_base, "%s", base_url);
}

metrics *service_metrics(service *s) { return s->metrics; }

/* ---- the base of URLs the daemon writes ---- */

/* 1 if s[0..len) looks like host[:port] (a name, IPv4 or [IPv6]). */
static int plausible_host(const char *s, size_t len)
{
    if (len == 0 || len > 255)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr(".-:[]_", c) != NULL))
            return 0;
    }
    return 1;
}

/* The value of parameter name in the first element of a Forwarded header
 * (RFC 7239: "for=1.2.3.4;proto=https;host=example.com, for=..."), quotes
 * removed, into buf; 0 if present, -1 if not. */
static int forwarded_param(const char *fwd, const char *name, char *buf, size_t buf_size)
{
    size_t nlen = strlen(name);
    const char *p = fwd;
    while (*p != '\0' && *p != ',') {
        while (*p == ' ' || *p == '\t' || *p == ';')
            p++;
        const char *end = p + strcspn(p, ";,");
        if ((size_t)(end - p) > nlen && strncasecmp(p, name, nlen) == 0 && p[nlen] == '=') {
            const char *v = p + nlen + 1;
            size_t vlen = (size_t)(end - v);
            if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"') {
                v++;
                vlen -= 2;
            }
            while (vlen > 0 && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
                vlen--;
            if (vlen >= buf_size)
                return -1;
            memcpy(buf, v, vlen);
            buf[vlen] = '\0';
            return 0;
        }
        p = end;
    }
    return -1;
}

/* The first element of a list-valued header, trimmed, into buf. */
static int first_element(const char *v, char *buf, size_t buf_size)
{
    while (*v == ' ' || *v == '\t')
        v++;
    size_t len = strcspn(v, ",");
    while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
        len--;
    if (len == 0 || len >= buf_size)
        return -1;
    memcpy(buf, v, len);
    buf[len] = '\0';
    return 0;
}

/* "scheme://authority[/prefix]" for links: --public-url when set; else the
 * scheme and host of Forwarded, else X-Forwarded-Proto / X-Forwarded-Host,
 * else http and Host, else the address the daemon listens on. Sets *vary
 * when the result depends on request headers. */
static void base_url(const service *s, const service_request *rq, char *buf, size_t buf_size,
                     int *vary)
{
    *vary = 0;
    if (s->cfg.public_url[0] != '\0') {
        snprintf(buf, buf_size, "%s", s->cfg.public_url);
        return;
    }
    *vary = 1;
    char proto[16] = "", host[260] = "";
    if (rq->forwarded != NULL) {
        if (forwarded_param(rq->forwarded, "proto", proto, sizeof proto) != 0)
            proto[0] = '\0';
        if (forwarded_param(rq->forwarded, "host", host, sizeof host) != 0)
            host[0] = '\0';
    }
    if (proto[0] == '\0' && rq->x_forwarded_proto != NULL &&
        first_element(rq->x_forwarded_proto, proto, sizeof proto) != 0)
        proto[0] = '\0';
    if (host[0] == '\0' && rq->x_forwarded_host != NULL &&
        first_element(rq->x_forwarded_host, host, sizeof host) != 0)
        host[0] = '\0';
    if (host[0] == '\0' && rq->host != NULL)
        snprintf(host, sizeof host, "%.255s", rq->host);
    if (strcasecmp(proto, "https") != 0)
        snprintf(proto, sizeof proto, "http");
    else
        snprintf(proto, sizeof proto, "https");
    if (plausible_host(host, strlen(host)))
        snprintf(buf, buf_size, "%s://%s", proto, host);
    else
        snprintf(buf, buf_size, "%s", s->fallback_base);
}

/* ---- handlers: one per route (route.h, ROUTES_MAP) ---- */

typedef int (*handler_fn)(service *s, const service_request *rq, reply *out, char *err,
                          size_t err_size);

static int handle_none(service *s, const service_request *rq, reply *out, char *err,
                       size_t err_size)
{
    (void)s;
    (void)out;
    snprintf(err, err_size, "no route for %.200s", rq->path);
    return ERR_NOT_FOUND;
}

/* The evaluating routes' handlers read the typed request service_admit
 * built (rq->field), never the query. */

static int handle_tile(service *s, const service_request *rq, reply *out, char *err,
                       size_t err_size)
{
    return tile_answer(s->tiles, &rq->field, rq->if_none_match, out, err, err_size);
}

/* A graph request's prepared graph (from the cache of prepared graphs):
 * a reference the caller releases; NULL with an error code in *rc. */
static fieldsrc_graph *request_graph(service *s, const field_request *fr, int *rc, char *err,
                                     size_t err_size)
{
    *rc = 0;
    fieldsrc_graph *g = graphs_prepare(s->graphs, fr->graph_text, fr->r.seed, fr->gradients, 2,
                                       NULL, NULL, rc, err, err_size);
    return g;
}

/* Answered at admission (ROUTE_ADMIT_STREAM): the stream computes nothing
 * until its bands are produced. */
static int handle_grid(service *s, const service_request *rq, reply *out, char *err,
                       size_t err_size)
{
    if (rq->field.graph) {
        int rc;
        grid_request g = rq->field.g;
        g.graph = request_graph(s, &rq->field, &rc, err, err_size);
        if (g.graph == NULL)
            return rc;
        rc = heightsreq_grid_stream_cost(&g, rq->field.graph_cost, rq->field.etag,
                                         rq->if_none_match, out);
        fieldsrc_graph_release(g.graph); /* the stream's job holds its own */
        return rc;
    }
    return heightsreq_grid_stream(&rq->field.g, rq->field.etag, rq->if_none_match, out);
}

static int handle_point(service *s, const service_request *rq, reply *out, char *err,
                        size_t err_size)
{
    if (rq->field.graph) {
        int rc;
        fieldsrc_graph *g = request_graph(s, &rq->field, &rc, err, err_size);
        if (g == NULL)
            return rc;
        rc = graphapi_point(&rq->field.r, rq->field.graph_text, g, &rq->field.q, out);
        fieldsrc_graph_release(g);
        return rc;
    }
    return api_point(&rq->field.r, &rq->field.q, out);
}

static int handle_points(service *s, const service_request *rq, reply *out, char *err,
                         size_t err_size)
{
    if (rq->field.graph) {
        int rc;
        fieldsrc_graph *g = request_graph(s, &rq->field, &rc, err, err_size);
        if (g == NULL)
            return rc;
        rc = graphapi_points(&rq->field.r, rq->field.graph_text, g,
                             rq->body != NULL ? rq->body : "", rq->body_len, out, err, err_size);
        fieldsrc_graph_release(g);
        return rc;
    }
    return api_points(&rq->field.r, &rq->field.q, rq->body != NULL ? rq->body : "",
                      rq->body_len, out, err, err_size);
}

static int handle_stats(service *s, const service_request *rq, reply *out, char *err,
                        size_t err_size)
{
    if (rq->field.graph) {
        int rc;
        fieldsrc_graph *g = request_graph(s, &rq->field, &rc, err, err_size);
        if (g == NULL)
            return rc;
        rc = graphapi_stats(&rq->field.r, rq->field.graph_text, g, &rq->field.q, out);
        fieldsrc_graph_release(g);
        return rc;
    }
    return api_stats(&rq->field.r, &rq->field.q, out);
}

static int handle_tilejson(service *s, const service_request *rq, reply *out, char *err,
                           size_t err_size)
{
    char base[600];
    int vary;
    base_url(s, rq, base, sizeof base, &vary);
    int rc = rq->graph ? graphapi_tilejson(&rq->route, rq->graph_text, &rq->query, base, out, err,
                                           err_size)
                       : api_tilejson(&rq->route, &rq->query, base, out, err, err_size);
    if (rc == 0 && vary)
        out->vary |= REPLY_VARY_BASE_URL;
    return rc;
}

/* JSON answers smaller than this are not worth compressing. */
#define GZIP_MIN_BYTES 256

static int document_reply(const service_request *rq, const document *d,
                          const char *cache_control, reply *out)
{
    if (d->len >= GZIP_MIN_BYTES && gzip_accepted(rq->accept_encoding)) {
        reply_borrowed(out, 200, "application/json", d->gz, d->gz_len);
        out->content_encoding = "gzip";
    } else {
        reply_borrowed(out, 200, "application/json", d->text, d->len);
    }
    out->vary |= REPLY_VARY_ACCEPT_ENCODING;
    out->cache_control = cache_control;
    return 0;
}

/* A 200 JSON answer a handler built (OWNED) is gzip-compressed when the
 * client accepts it; every such answer says Vary: Accept-Encoding. Out of
 * memory it stays as it is. */
static void gzip_json(const service_request *rq, reply *out)
{
    if (out->status != 200 || out->body_kind != REPLY_OWNED || out->content_encoding != NULL ||
        out->content_type == NULL || strcmp(out->content_type, "application/json") != 0)
        return;
    out->vary |= REPLY_VARY_ACCEPT_ENCODING;
    if (out->size < GZIP_MIN_BYTES || !gzip_accepted(rq->accept_encoding))
        return;
    unsigned char *gz;
    size_t gz_len;
    if (gzip_buffer(GZIP_TEXT, out->body, (size_t)out->size, &gz, &gz_len) != 0)
        return;
    free(out->owned);
    out->owned = gz;
    out->body = gz;
    out->size = gz_len;
    out->content_encoding = "gzip";
}

static int handle_kinds(service *s, const service_request *rq, reply *out, char *err,
                        size_t err_size)
{
    (void)rq;
    (void)err;
    (void)err_size;
    return document_reply(rq, &s->kinds, "no-cache", out);
}

/* GET /api/graphs: the named graphs; POST: a graph's canonical URLs. */
static int handle_graphs(service *s, const service_request *rq, reply *out, char *err,
                         size_t err_size)
{
    if (strcmp(rq->method, "POST") != 0) {
        if (rq->query.n > 0) {
            snprintf(err, err_size, "GET /api/graphs takes no parameters (POST a graph with ?seed=)");
            return ERR_BAD_REQUEST;
        }
        return document_reply(rq, &s->graph_list, "no-cache", out);
    }
    char base[600];
    int vary;
    base_url(s, rq, base, sizeof base, &vary);
    int rc = graphapi_post(&rq->query, rq->body, rq->body_len, base, out, err, err_size);
    if (rc == 0 && vary)
        out->vary |= REPLY_VARY_BASE_URL;
    return rc;
}

static int handle_healthz(service *s, const service_request *rq, reply *out, char *err,
                          size_t err_size)
{
    (void)rq;
    (void)err;
    (void)err_size;
    return document_reply(rq, &s->healthz, "no-store", out);
}

static int handle_openapi(service *s, const service_request *rq, reply *out, char *err,
                          size_t err_size)
{
    (void)rq;
    (void)err;
    (void)err_size;
    return document_reply(rq, &s->openapi, "no-cache", out);
}

static int handle_tms(service *s, const service_request *rq, reply *out, char *err,
                      size_t err_size)
{
    (void)err;
    (void)err_size;
    return document_reply(rq, &s->tms, "no-cache", out);
}

static int handle_metrics(service *s, const service_request *rq, reply *out, char *err,
                          size_t err_size)
{
    (void)rq;
    (void)err;
    (void)err_size;
    size_t len;
    char *text = metrics_text(s->metrics, tile_service_cache(s->tiles), &len);
    if (text == NULL)
        return ERR_NOMEM;
    reply_owned(out, 200, "text/plain; version=0.0.4; charset=utf-8", "no-store", text, len);
    return 0;
}

/* The viewer's file at rq->path: from the --static folder when it has it,
 * else the copy built in (so `--static static` works on the viewer's own
 * files and takes the libraries from the binary). */
static int handle_static(service *s, const service_request *rq, reply *out, char *err,
                         size_t err_size)
{
    if (s->cfg.static_dir[0] != '\0') {
        int rc = files_serve(s->cfg.static_dir, rq->path, out, err, err_size);
        if (rc != ERR_NOT_FOUND)
            return rc;
    }
    return files_serve_embedded(rq->path, rq->if_none_match, out, err, err_size);
}

/* The route table's handler column. */
static const handler_fn handlers[ROUTE_COUNT] = {
#define ROUTE_HANDLER(id, name, methods, takes, admit, handler) [ROUTE_##id] = handler,
    ROUTES_MAP(ROUTE_HANDLER)
#undef ROUTE_HANDLER
};

/* ---- dispatch ---- */

static int options_reply(route_id id, reply *out)
{
    out->status = 204;
    out->body_kind = REPLY_EMPTY;
    if (reply_header(out, "Allow", route_allow(id)) != 0 ||
        reply_header(out, "Access-Control-Allow-Methods", route_allow(id)) != 0 ||
        reply_header(out, "Access-Control-Allow-Headers", "Content-Type, If-None-Match") != 0 ||
        reply_header(out, "Access-Control-Max-Age", "86400") != 0)
        return ERR_INTERNAL;
    return 0;
}

/* The absolute form of a request target, "http://host[:port]/path?query"
 * (RFC 9112 section 3.2.2, what a client sends to a proxy): a server must
 * accept it, take the path from it and the host from its authority instead
 * of Host. Returns the target's origin form ("/path?query", in place, or
 * NULL when there is no path: the path is then "/"); or the target itself
 * when it is not in absolute form. */
static char *origin_form(service_request *rq, char *target, int *no_path)
{
    *no_path = 0;
    size_t scheme = strncasecmp(target, "http://", 7) == 0    ? 7
                    : strncasecmp(target, "https://", 8) == 0 ? 8
                                                              : 0;
    if (scheme == 0)
        return target;
    char *auth = target + scheme;
    size_t alen = strcspn(auth, "/?#");
    if (alen > 0 && alen < sizeof rq->authority) {
        memcpy(rq->authority, auth, alen);
        rq->authority[alen] = '\0';
        rq->host = rq->authority;
        rq->forwarded = rq->x_forwarded_host = rq->x_forwarded_proto = NULL;
    }
    *no_path = auth[alen] != '/';
    return auth + alen;
}

/* 404 for a name that is neither a kind nor a named graph. */
static int unknown_name(const service *s, const char *name, char *err, size_t err_size)
{
    char kinds[80] = "", names[600];
    for (int k = 0; k < NOISE_KIND_COUNT; k++) {
        size_t used = strlen(kinds);
        snprintf(kinds + used, sizeof kinds - used, "%s%s", k ? ", " : "",
                 noise_kind_name((noise_kind)k));
    }
    graphs_names(s->graphs, names, sizeof names);
    snprintf(err, err_size,
             "unknown kind '%s' (kinds: %s), nor a named graph (graphs: %s; any graph: "
             "/graph/{seed}/...?g=)", name, kinds, names[0] ? names : "none");
    return ERR_UNKNOWN_KIND;
}

/* A graph route's field: g= (or the name) decoded into rq->graph_text;
 * the kinds' field parameters refused; a graph that is one kind's field
 * turned into that kind's URL. */
static int resolve_graph(service *s, service_request *rq, char *err, size_t err_size)
{
    query_args *q = &rq->query;
    const char *text = NULL;
    int named = rq->route.field == ROUTE_FIELD_NAMED;
    size_t kept = 0;
    char b[64];
    for (size_t i = 0; i < q->n; i++) {
        const char *name = q->names[i];
        param_row row;
        if (strcmp(name, "g") == 0) {
            if (named) {
                snprintf(err, err_size,
                         "g is not taken by the named graph %s (it is the graph); another graph "
                         "is /graph/{seed}/...?g=", rq->route.name);
                return ERR_BAD_REQUEST;
            }
            if (text != NULL) {
                errors_pointer_message(err, err_size, "", "parameter 'g' given twice");
                return ERR_BAD_REQUEST;
            }
            text = q->values[i];
            continue;
        }
        if (params_find(name, PARAMS_FIELD, &row) == 0 && row.id < 0) {
            char msg[300];
            if (named)
                snprintf(msg, sizeof msg,
                         "%s is a parameter of a kind, not of the named graph %s (its sources' "
                         "parameters are in its definition: GET /api/graphs)",
                         query_shown(name, 40, b, sizeof b), rq->route.name);
            else
                snprintf(msg, sizeof msg,
                         "%s is a parameter of a kind, not of a graph URL: set it on a source "
                         "node in g, e.g. perlin(%s:...)", query_shown(name, 40, b, sizeof b),
                         query_shown(name, 40, b, sizeof b));
            errors_pointer_message(err, err_size, "", msg); /* the graph as a whole */
            return ERR_BAD_REQUEST;
        }
        q->names[kept] = q->names[i];
        q->values[kept] = q->values[i];
        kept++;
    }
    q->n = kept;
    if (named)
        text = graphs_named(s->graphs, rq->route.name);
    if (text == NULL) {
        errors_pointer_message(err, err_size, "",
                               "missing parameter 'g' (the graph's canonical text; POST its JSON "
                               "to /api/graphs for its URLs)");
        return ERR_BAD_REQUEST;
    }
    noise_spec spec;
    int is_spec = 0;
    int rc = graphs_decode(text, strlen(text), rq->graph_text, &is_spec, &spec, err, err_size);
    if (rc != 0)
        return rc;
    if (!is_spec) {
        rq->graph = 1;
        return 0;
    }
    /* one kind's field: its URL, the same bytes, keys and ETags */
    rq->route.field = ROUTE_FIELD_KIND;
    rq->route.kind = spec.kind;
    rq->graph = 0;
    if (noise_spec_canonical(&spec, rq->graph_args, sizeof rq->graph_args) < 0) {
        snprintf(err, err_size, "graph parameters too long");
        return ERR_INTERNAL;
    }
    query_args extra;
    rc = query_split(rq->graph_args, &extra, err, err_size);
    for (size_t i = 0; rc == 0 && i < extra.n; i++)
        if (query_args_add(q, extra.names[i], strlen(extra.names[i]), extra.values[i],
                           strlen(extra.values[i])) != 0) {
            snprintf(err, err_size, "%s", q->msg);
            rc = ERR_BAD_REQUEST;
        }
    return rc;
}

static int prepare(service *s, service_request *rq, reply *out, char *err, size_t err_size)
{
    int no_path;
    char *target = origin_form(rq, rq->target, &no_path);
    size_t plen = strcspn(target, "?#");
    char *query = target + plen;
    if (*query == '?') {
        *query++ = '\0';
        query[strcspn(query, "#")] = '\0';
    } else {
        *query = '\0';
    }
    rq->path = target;
    if (no_path) {
        snprintf(rq->root, sizeof rq->root, "/");
        rq->path = rq->root;
    }
    if (strcmp(rq->path, "*") == 0) {
        /* asterisk-form: the server itself (RFC 9112 section 3.2.4). */
        if (strcmp(rq->method, "OPTIONS") != 0) {
            snprintf(err, err_size, "the target '*' is for OPTIONS only");
            return ERR_BAD_REQUEST;
        }
        out->status = 204;
        return reply_header(out, "Allow", "GET, HEAD, POST, OPTIONS") == 0 ? 1 : ERR_INTERNAL;
    }

    int rc = route_parse(rq->path, &rq->route, err, err_size);
    if (rc == 0 && rq->route.field == ROUTE_FIELD_NAMED &&
        graphs_named(s->graphs, rq->route.name) == NULL)
        rc = unknown_name(s, rq->route.name, err, err_size);
    route_id id = rq->route.id;
    unsigned int method = route_method_bit(rq->method);
    if ((rc == ERR_UNKNOWN_KIND || rc == ERR_NOT_FOUND) && (method & (ROUTE_GET | ROUTE_HEAD))) {
        /* A viewer file that happens to look like a field path. */
        char ferr[ERRORS_MSG_MAX];
        reply file = REPLY_INIT;
        if (handle_static(s, rq, &file, ferr, sizeof ferr) == 0) {
            rq->route.id = ROUTE_STATIC;
            *out = file;
            return 1;
        }
    }
    if (rc != 0)
        return rc;
    if (!(route_methods(id) & method)) {
        snprintf(err, err_size, "method %.20s not allowed on %.200s (allowed: %s)", rq->method,
                 rq->path, route_allow(id));
        return ERR_METHOD;
    }
    if (method == ROUTE_OPTIONS) {
        rc = options_reply(id, out);
        return rc != 0 ? rc : 1;
    }
    if (rq->body_no_memory)
        return ERR_NOMEM;
    if (rq->body_too_large) {
        snprintf(err, err_size, "request body larger than %d bytes", LIMIT_BODY_BYTES);
        return ERR_TOO_LARGE;
    }
    if (route_takes(id) & ROUTE_TAKES_QUERY) {
        rc = query_split(query, &rq->query, err, err_size);
        if (rc != 0)
            return rc;
    }
    if (rq->route.field != ROUTE_FIELD_KIND)
        return resolve_graph(s, rq, err, err_size);
    return 0;
}

int service_prepare(service *s, service_request *rq, reply *out)
{
    char err[ERRORS_MSG_MAX] = "";
    memset(&rq->route, 0, sizeof rq->route);
    memset(&rq->query, 0, sizeof rq->query);
    rq->route.id = ROUTE_NONE;
    rq->graph = 0;
    rq->graph_text[0] = '\0';
    rq->field.ask = FIELD_ASK_NONE;
    int rc = prepare(s, rq, out, err, sizeof err);
    if (rc == 1)
        return 1;
    if (rc == 0)
        return 0;
    reply_error(out, rc, err);
    if (rc == ERR_METHOD)
        reply_header(out, "Allow", route_allow(rq->route.id));
    return 1;
}

/* The handler of rq's route; 0, or an ERR_* code with a message in err. */
static int run_handler(service *s, const service_request *rq, reply *out, char *err,
                       size_t err_size)
{
    route_id id = rq->route.id;
    if ((unsigned)id >= ROUTE_COUNT)
        id = ROUTE_NONE;
    if (route_evaluates(id) && rq->field.ask == FIELD_ASK_NONE) {
        snprintf(err, err_size, "%s request run without admission", route_name(id));
        return ERR_INTERNAL;
    }
    return handlers[id](s, rq, out, err, err_size);
}

void service_run(service *s, const service_request *rq, reply *out)
{
    char err[ERRORS_MSG_MAX] = "";
    int rc = run_handler(s, rq, out, err, sizeof err);
    if (rc != 0)
        reply_error(out, rc, err);
    else
        gzip_json(rq, out);
}

int service_admit(service *s, service_request *rq, reply *out, uint64_t *out_cost)
{
    char err[ERRORS_MSG_MAX] = "";
    route_id id = rq->route.id;
    route_admit how = route_admission(id);
    field_request *fr = &rq->field;
    *out_cost = 1;
    fr->ask = FIELD_ASK_NONE;
    if (how == ROUTE_ADMIT_RUN)
        return 0;
    field_ask ask = fieldreq_ask(&rq->route, &rq->query);
    int rc = 0;
    if (ask == FIELD_ASK_PICTURE_TILE) {
        /* the fast path: a picture tile asked for again in the same words */
        rc = tile_memo_lookup(s->tiles, rq->raw_target, rq->if_none_match, out);
        if (rc == 1)
            return 1;
    }
    double graph_cost[2] = {0, 0};
    char dominant[2][256] = {"", ""};
    if (rc == 0 && rq->graph) {
        /* the graph prepared for its seed (or found prepared): its cost per
         * sample without and with gradients, which the request's cost and
         * a coarse tile's supersampling need */
        for (int grads = 0; grads < 2 && rc == 0; grads++) {
            fieldsrc_graph *g = graphs_prepare(s->graphs, rq->graph_text, rq->route.seed, grads,
                                               2, &graph_cost[grads], dominant[grads], &rc, err,
                                               sizeof err);
            fieldsrc_graph_release(g);
        }
    }
    if (rc == 0)
        rc = fieldreq_build_graph(fr, ask, &rq->route, &rq->query, rq->graph ? rq->graph_text : NULL,
                                  graph_cost, rq->accept_encoding,
                                  (route_takes(id) & ROUTE_TAKES_BODY) ? rq->body : NULL,
                                  rq->body_len, err, sizeof err);
    if (rc == 0 && how == ROUTE_ADMIT_CACHED) {
        rc = tile_lookup(s->tiles, fr, rq->raw_target, rq->if_none_match, out);
        if (rc == 1)
            return 1;
    }
    if (rc == 0 && fr->graph)
        fieldreq_set_graph_cost(fr, fr->graph_cost, dominant[fr->gradients ? 1 : 0]);
    if (rc == 0)
        rc = fieldreq_check_cost(fr, err, sizeof err);
    if (rc == 0 && how == ROUTE_ADMIT_STREAM) {
        rc = run_handler(s, rq, out, err, sizeof err);
        if (rc == 0)
            return 1;
    }
    if (rc == 0) {
        *out_cost = fr->cost;
        return 0;
    }
    reply_error(out, rc, err);
    return 1;
}

void service_handle(service *s, service_request *rq, reply *out)
{
    uint64_t cost;
    if (service_prepare(s, rq, out) == 0 && service_admit(s, rq, out, &cost) == 0)
        service_run(s, rq, out);
}
