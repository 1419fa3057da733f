/* fuzz_service.c: libFuzzer target for the reply contract: the input is a
 * request as the connection layer hands it to the service,
 * "METHOD TARGET\nName: value\n...\n\nBODY", and the harness calls
 * service_prepare / service_admit / service_run exactly as http.c does and
 * reads the plain reply. Routes that render (tiles, grids, stats) stop
 * after service_prepare: their parsing is fuzz_route's, and a render per
 * input would starve the rest.
 *
 * Invariants (besides ASan/UBSan, and LeakSanitizer over reply_release):
 * every reply has a status in 200..599; its body matches its kind and size;
 * an error reply is 4xx/5xx JSON {"error":{"status":S,"message":M}} with S
 * the status and M non-empty printable ASCII, and a 405 carries Allow; a 200
 * JSON reply parses as JSON; a reply's extra headers have names and values;
 * OOM-free input never gets 500 or 503. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "service/config.h"
#include "base/errors.h"
#include "fuzz_util.h"
#include "service/reply.h"
#include "service/service.h"

static service *svc;

static void check_reply(const reply *rp, route_id id)
{
    FUZZ_ASSERT(rp->status >= 200 && rp->status <= 599);
    FUZZ_ASSERT(rp->status != 500 && rp->status != 503);
    switch (rp->body_kind) {
    case REPLY_EMPTY: FUZZ_ASSERT(rp->size == 0 || rp->status == 204); break;
    case REPLY_OWNED: FUZZ_ASSERT(rp->owned != NULL && rp->body == rp->owned); break;
    case REPLY_BORROWED: FUZZ_ASSERT(rp->body != NULL || rp->size == 0); break;
    case REPLY_ENTRY: FUZZ_ASSERT(rp->entry != NULL && rp->body != NULL); break;
    case REPLY_FILE: FUZZ_ASSERT(rp->fd >= 0); break;
    case REPLY_STREAM: FUZZ_ASSERT(rp->stream.read != NULL); break;
    }
    for (size_t i = 0; i < rp->n_headers; i++)
        FUZZ_ASSERT(rp->headers[i].name != NULL && reply_header_at(rp, i) != NULL);
    int json = rp->content_type != NULL && strcmp(rp->content_type, "application/json") == 0;
    if (rp->status >= 400) {
        FUZZ_ASSERT(json && rp->error != 0 && errors_status(rp->error) == rp->status);
        json_t *doc = json_loadb(rp->body, (size_t)rp->size, 0, NULL);
        json_t *e = json_object_get(doc, "error");
        FUZZ_ASSERT(json_integer_value(json_object_get(e, "status")) == rp->status);
        const char *m = json_string_value(json_object_get(e, "message"));
        FUZZ_ASSERT(m != NULL && m[0] != '\0');
        for (const char *c = m; *c != '\0'; c++)
            FUZZ_ASSERT(*c >= 0x20 && *c < 0x7f);
        if (rp->status == 405)
            FUZZ_ASSERT(reply_header_value(rp, "Allow") != NULL);
        json_decref(doc);
    } else if (json && rp->size > 0 && id != ROUTE_STATIC) {
        json_t *doc = json_loadb(rp->body, (size_t)rp->size, 0, NULL);
        FUZZ_ASSERT(doc != NULL);
        json_decref(doc);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16384)
        return 0;
    if (svc == NULL) {
        config cfg;
        char msg[256];
        char *argv[] = {"noisetile", "--cache-mb", "1", NULL};
        FUZZ_ASSERT(config_parse(&cfg, 3, argv, NULL, msg, sizeof msg) == 0);
        svc = service_create(&cfg, msg, sizeof msg);
        FUZZ_ASSERT(svc != NULL);
        service_set_fallback_base(svc, "http://127.0.0.1:8080");
    }
    char *text = fuzz_strndup(data, size);
    service_request rq;
    memset(&rq, 0, sizeof rq);
    /* Request line: METHOD SP TARGET; then header lines; then the body. */
    char *eol = strchr(text, '\n');
    char *line_end = eol != NULL ? eol : text + strlen(text);
    char *body = NULL;
    *line_end = '\0';
    char *sp = strchr(text, ' ');
    if (sp == NULL)
        goto done;
    *sp = '\0';
    rq.method = text;
    rq.target = sp + 1;
    for (char *h = eol != NULL ? eol + 1 : NULL; h != NULL && *h != '\0';) {
        char *next = strchr(h, '\n');
        if (next != NULL)
            *next = '\0';
        if (*h == '\0') { /* blank line: the body follows */
            body = next != NULL ? next + 1 : NULL;
            break;
        }
        char *colon = strchr(h, ':');
        if (colon != NULL) {
            *colon = '\0';
            const char *v = colon + 1 + strspn(colon + 1, " ");
            if (strcasecmp(h, "If-None-Match") == 0) rq.if_none_match = v;
            else if (strcasecmp(h, "Host") == 0) rq.host = v;
            else if (strcasecmp(h, "Forwarded") == 0) rq.forwarded = v;
            else if (strcasecmp(h, "X-Forwarded-Proto") == 0) rq.x_forwarded_proto = v;
            else if (strcasecmp(h, "X-Forwarded-Host") == 0) rq.x_forwarded_host = v;
            else if (strcasecmp(h, "Accept-Encoding") == 0) rq.accept_encoding = v;
        }
        h = next != NULL ? next + 1 : NULL;
    }
    if (body != NULL) {
        /* The body's bytes as sent, NULs included (the input's tail). */
        rq.body = (const char *)data + (body - text);
        rq.body_len = size - (size_t)(body - text);
    }
    reply rp = REPLY_INIT;
    if (service_prepare(svc, &rq, &rp) == 0) {
        route_id id = rq.route.id;
        uint64_t cost = 0;
        /* Cheap evaluations run too: one point, a bounded batch (admitted
         * first, as http.c does: the typed request is built there). */
        if (!route_evaluates(id))
            service_run(svc, &rq, &rp);
        else if (id != ROUTE_POINT && id != ROUTE_POINTS)
            FUZZ_ASSERT(rp.status == 0);
        else if (service_admit(svc, &rq, &rp, &cost) == 0)
            service_run(svc, &rq, &rp);
        else
            FUZZ_ASSERT(rp.status != 0);
    } else {
        FUZZ_ASSERT(rp.status != 0);
    }
    if (rp.status != 0)
        check_reply(&rp, rq.route.id);
    reply_release(&rp);
done:
    free(text);
    return 0;
}
