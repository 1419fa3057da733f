/* http.h: the HTTP side of the daemon: libmicrohttpd setup, the request
 * lifecycle (routing, methods, CORS, access log, metrics), graceful stop,
 * and the response helpers the endpoint modules share. */
#ifndef HTTP_H
#define HTTP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct MHD_Response;
struct MHD_Connection;
struct cache_entry;

typedef struct http_server http_server;

/* What an endpoint hands back to the request lifecycle on success. */
typedef struct {
    struct MHD_Response *resp;  /* queued with status */
    unsigned int status;
    int shared;                 /* 1: resp is owned elsewhere, do not destroy */
    struct cache_entry *entry;  /* released after queuing (may be NULL) */
    uint64_t size;              /* body bytes, for the access log */
} http_reply;

/* Drops what a reply holds (its response unless shared, its cache entry)
 * and zeroes it; MHD keeps its own reference to a queued response. */
void http_reply_release(http_reply *rp);

/* Starts the daemon as cfg says and returns it listening; NULL on failure
 * with a message in err. Free with http_stop(). */
http_server *http_start(const config *cfg, char *err, size_t err_size);

/* The TCP port the daemon listens on (the chosen one after --port 0). */
unsigned int http_port(const http_server *s);

/* Graceful stop: stops accepting, waits up to drain_ms for requests in
 * flight to finish, closes every connection and frees the server.
 * http_stop(NULL, ...) does nothing. */
void http_stop(http_server *s, int drain_ms);

/* A new response with doc printed as compact JSON (jsonout.h: doubles in
 * shortest round-trip form), Content-Type application/json,
 * CORS, and Cache-Control: cache_control unless NULL. Returns NULL out of
 * memory. The caller queues and destroys it. *out_size (if not NULL) gets
 * the body's length. */
struct MHD_Response *http_response_json(const json_t *doc, const char *cache_control,
                                        uint64_t *out_size);

/* Adds the headers every response carries (CORS). */
void http_add_common_headers(struct MHD_Response *resp);

#endif
