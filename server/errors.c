/* errors.c: maps the daemon's error codes to HTTP statuses and JSON bodies. */
#include "errors.h"

#include <jansson.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

static struct MHD_Response *fallback_503;

unsigned int errors_status(int err)
{
    switch (err) {
    case ERR_BAD_REQUEST:
    case ERR_BAD_JSON: return 400;
    case ERR_NOT_FOUND:
    case ERR_UNKNOWN_KIND: return 404;
    case ERR_METHOD: return 405;
    case ERR_TOO_LARGE: return 413;
    case ERR_OVERLOADED: return 503;
    default: return 500;
    }
}

const char *errors_strerror(int err)
{
    switch (err) {
    case ERR_BAD_REQUEST: return "bad request";
    case ERR_BAD_JSON: return "request body is not valid JSON";
    case ERR_NOT_FOUND: return "not found";
    case ERR_UNKNOWN_KIND: return "unknown kind";
    case ERR_METHOD: return "method not allowed";
    case ERR_TOO_LARGE: return "request too large";
    case ERR_OVERLOADED: return "server overloaded, try again";
    default: return "internal error";
    }
}

struct MHD_Response *errors_response(int err, const char *message)
{
    unsigned int status = errors_status(err);
    if (message == NULL || message[0] == '\0')
        message = errors_strerror(err);
    /* Messages echo client input: keep printable ASCII only, so the body is
     * always valid UTF-8 and one line. */
    char clean[ERRORS_MSG_MAX];
    size_t n = 0;
    for (; message[n] != '\0' && n + 1 < sizeof clean; n++) {
        unsigned char ch = (unsigned char)message[n];
        clean[n] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    clean[n] = '\0';
    json_t *doc = json_pack("{s:{s:I,s:s}}", "error", "status", (json_int_t)status,
                            "message", clean);
    if (doc == NULL)
        return NULL;
    struct MHD_Response *resp = http_response_json(doc, "no-store", NULL);
    json_decref(doc);
    return resp;
}

int errors_init(void)
{
    static const char body[] =
        "{\"error\":{\"status\":503,\"message\":\"server overloaded, try again\"}}";
    fallback_503 = MHD_create_response_from_buffer(sizeof body - 1, (void *)body,
                                                   MHD_RESPMEM_PERSISTENT);
    if (fallback_503 == NULL)
        return -1;
    MHD_add_response_header(fallback_503, "Content-Type", "application/json");
    MHD_add_response_header(fallback_503, "Cache-Control", "no-store");
    MHD_add_response_header(fallback_503, "Access-Control-Allow-Origin", "*");
    return 0;
}

struct MHD_Response *errors_fallback(void) { return fallback_503; }

void errors_cleanup(void)
{
    if (fallback_503 != NULL)
        MHD_destroy_response(fallback_503);
    fallback_503 = NULL;
}
