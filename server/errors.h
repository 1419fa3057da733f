/* errors.h: the daemon's error codes and the one place that maps each to an
 * HTTP status and a JSON body {"error":{"status":N,"message":"..."}}. */
#ifndef ERRORS_H
#define ERRORS_H

#include <stddef.h>

struct MHD_Response;

/* Error codes of the server modules: 0 is success, these are negative.
 * Handlers return one of them together with a message that names what was
 * wrong (which parameter, which value, which range). */
enum {
    ERR_BAD_REQUEST = -1,     /* 400: malformed path number, parameter, query */
    ERR_BAD_JSON = -2,        /* 400: request body is not the JSON we take */
    ERR_NOT_FOUND = -3,       /* 404: no such route or file */
    ERR_UNKNOWN_KIND = -4,    /* 404: the {kind} path segment is not a kind */
    ERR_METHOD = -5,          /* 405: route exists, method does not */
    ERR_TOO_LARGE = -6,       /* 413: body or point count over the limit */
    ERR_OVERLOADED = -7,      /* 503: out of memory or capacity */
    ERR_INTERNAL = -8         /* 500: a bug */
};

/* Longest message a handler writes (bytes including the NUL). */
#define ERRORS_MSG_MAX 512

/* The HTTP status for an error code (500 for codes it does not know). */
unsigned int errors_status(int err);

/* A short static description of an error code, used when a handler gave no
 * message ("not found", "method not allowed"...). */
const char *errors_strerror(int err);

/* A new response with the JSON error body for err and message (NULL or ""
 * means errors_strerror(err)), Content-Type application/json, CORS and
 * Cache-Control: no-store headers. The caller queues it with
 * errors_status(err) and destroys it. Returns NULL when out of memory. */
struct MHD_Response *errors_response(int err, const char *message);

/* A response for when nothing can be allocated: a static 503 body made once
 * at startup. errors_init() builds it (returns 0, or -1 out of memory);
 * errors_fallback() returns it (never NULL after a successful init; the
 * caller must not destroy it); errors_cleanup() frees it. */
int errors_init(void);
struct MHD_Response *errors_fallback(void);
void errors_cleanup(void);

#endif
