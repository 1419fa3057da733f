/* http.h: the connection layer: libmicrohttpd setup, the life of one
 * request on its connection (framing checks, body, access log, metrics),
 * turning a reply (reply.h) into a response, and graceful stop. With
 * connguard.c it is the only code that speaks libmicrohttpd; what a request
 * means is the service's business (service.h). */
#ifndef HTTP_H
#define HTTP_H

#include <stddef.h>

#include "service/config.h"
#include "net/fdlimits.h"

typedef struct http_server http_server;

/* Process-wide setup, SQLite-style: points jansson's and the tile cache's
 * allocators at failalloc.h (plain malloc unless a test arms it) so every
 * allocation of a request path can be failed in tests. Call once before
 * any server starts and before other threads use jansson;
 * http_global_shutdown() restores the default allocators after the last
 * server stopped. Servers share nothing else. */
void http_global_init(void);
void http_global_shutdown(void);

/* Starts a daemon as cfg says, with its own service (tile cache, metrics,
 * documents), access log and connection guard, and returns it listening;
 * NULL on failure with a message in err. Free with http_stop(). Several
 * servers may run in one process and stop in any order. */
http_server *http_start(const config *cfg, char *err, size_t err_size);

/* The TCP port the daemon listens on (the chosen one after --port 0). */
unsigned int http_port(const http_server *s);

/* The connection limits the daemon runs with (fdlimits.h). */
const fdlimits *http_limits(const http_server *s);
/* The HTTP library this binary runs: its version as the library itself
 * reports it, and its build (the source package and the patches applied,
 * scripts/libmicrohttpd.sh), for the line printed at start-up. Not
 * thread-safe: one static buffer. */
const char *http_library(void);

/* SIGHUP: reopens the --access-log file by its name (after log rotation
 * moved it); does nothing for standard error or --access-log off. On
 * failure the log keeps writing to the old file, with a message. */
void http_reopen_log(http_server *s);

/* Graceful stop: stops accepting, waits up to drain_ms for requests in
 * flight to finish, closes every connection and frees the server.
 * http_stop(NULL, ...) does nothing. */
void http_stop(http_server *s, int drain_ms);

#endif
