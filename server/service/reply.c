/* reply.c: filling and releasing the plain reply handlers hand back. */
#include "service/reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/jsonout.h"

void reply_init(reply *rp)
{
    memset(rp, 0, sizeof *rp);
    rp->fd = -1;
}

void reply_release(reply *rp)
{
    if (rp == NULL)
        return;
    free(rp->owned);
    cache_entry_release(rp->entry);
    if (rp->fd >= 0)
        close(rp->fd);
    if (rp->body_kind == REPLY_STREAM && rp->stream.done != NULL)
        rp->stream.done(rp->stream.ctx);
    reply_init(rp);
}

int reply_header(reply *rp, const char *name, const char *value)
{
    size_t len = strlen(value) + 1;
    if (rp->n_headers == REPLY_MAX_HEADERS || rp->header_used + len > REPLY_HEADER_BYTES)
        return -1;
    memcpy(rp->header_bytes + rp->header_used, value, len);
    rp->headers[rp->n_headers].name = name;
    rp->headers[rp->n_headers].value = (unsigned short)rp->header_used;
    rp->n_headers++;
    rp->header_used += len;
    return 0;
}

const char *reply_header_at(const reply *rp, size_t i)
{
    return i < rp->n_headers ? rp->header_bytes + rp->headers[i].value : NULL;
}

const char *reply_header_value(const reply *rp, const char *name)
{
    for (size_t i = 0; i < rp->n_headers; i++)
        if (strcasecmp(rp->headers[i].name, name) == 0)
            return reply_header_at(rp, i);
    return NULL;
}

int reply_json(reply *rp, unsigned int status, const json_t *doc, const char *cache_control)
{
    char *text;
    size_t len;
    if (doc == NULL || jsonout_dump(doc, &text, &len) != 0)
        return ERR_NOMEM;
    reply_owned(rp, status, "application/json", cache_control, text, len);
    return 0;
}

void reply_owned(reply *rp, unsigned int status, const char *content_type, const char *cache_control,
                 char *text, size_t size)
{
    rp->status = status;
    rp->content_type = content_type;
    rp->cache_control = cache_control;
    rp->body_kind = REPLY_OWNED;
    rp->owned = text;
    rp->body = text;
    rp->size = size;
}

void reply_borrowed(reply *rp, unsigned int status, const char *content_type, const void *body,
                    size_t size)
{
    rp->status = status;
    rp->content_type = content_type;
    rp->body_kind = REPLY_BORROWED;
    rp->body = body;
    rp->size = size;
}

void reply_error(reply *rp, int err, const char *message)
{
    static const char fallback[] =
        "{\"error\":{\"status\":503,\"message\":\"out of memory, try again\"}}";
    int close_after = rp->close;
    reply_release(rp);
    rp->close = close_after;
    rp->error = err;
    unsigned int status = errors_status(err);
    char pointer[ERRORS_MSG_MAX];
    const char *text = errors_split_pointer(message, pointer, sizeof pointer);
    int has_pointer = text != message; /* "" is a pointer too: the whole document */
    message = text;
    for (char *c = pointer; *c != '\0'; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
    if (message == NULL || message[0] == '\0')
        message = errors_strerror(err);
    char clean[ERRORS_MSG_MAX];
    size_t n = 0;
    for (; message[n] != '\0' && n + 1 < sizeof clean; n++) {
        unsigned char ch = (unsigned char)message[n];
        clean[n] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    clean[n] = '\0';
    json_t *doc = json_pack("{s:{s:I,s:s}}", "error", "status", (json_int_t)status, "message",
                            clean);
    if (doc != NULL && has_pointer &&
        json_object_set_new(json_object_get(doc, "error"), "pointer", json_string(pointer)) != 0) {
        json_decref(doc);
        doc = NULL;
    }
    int rc = reply_json(rp, status, doc, "no-store");
    json_decref(doc);
    if (rc != 0) {
        reply_borrowed(rp, 503, "application/json", fallback, sizeof fallback - 1);
        rp->cache_control = "no-store";
        rp->error = ERR_NOMEM;
    }
}
