/* fuzz_route.c: libFuzzer target for the request target of every field
 * route: the input is a raw request target "path?query" as the daemon gets
 * it from libmicrohttpd. The path goes to route_parse exactly as the service
 * cuts it (up to '?' or '#'); the query is split and decoded by query_split
 * and goes through query_parse with the flags of the route; tiles then get their canonical key and ETag, /point and
 * /tile.json their full JSON answer.
 *
 * Invariants checked (besides ASan/UBSan): route_parse returns 0,
 * ERR_BAD_REQUEST, ERR_UNKNOWN_KIND or ERR_NOT_FOUND (a kind with no field
 * shape), an error always comes with a message;
 * a parsed tile route is in range and its path printed back parses to the
 * same route; a parsed query gives a canonical text whose re-parse gives the
 * same text (and the same x, y); query errors are 400 with a message; the
 * ETag is a quoted 16-hex-digit tag that matches itself; the JSON endpoints
 * answer 200 with a response or a 4xx with a message. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/api.h"
#include "base/errors.h"
#include "fuzz_util.h"
#include "service/query.h"
#include "service/route.h"
#include "base/etag.h"
#include "service/fieldreq.h"

static int flags_for(route_id id)
{
    switch (id) {
    case ROUTE_TILE:
    case ROUTE_TILEJSON: return QUERY_RENDER;
    case ROUTE_POINT: return QUERY_POINT;
    default: return 0;
    }
}

static void check_message(const char *err, size_t size)
{
    FUZZ_ASSERT(err[0] != '\0');
    FUZZ_ASSERT(memchr(err, '\0', size) != NULL);
}

/* The canonical query of a parsed request: field, render and point parts. */
static void canonical_query(const query_result *qr, int flags, char *buf, size_t size)
{
    char field[512], rend[128] = "", px[40] = "", py[40] = "";
    FUZZ_ASSERT(noise_spec_canonical(&qr->spec, field, sizeof field) > 0);
    if (flags & QUERY_RENDER)
        FUZZ_ASSERT(query_render_canonical(&qr->render, rend, sizeof rend) > 0);
    if (flags & QUERY_POINT) {
        FUZZ_ASSERT(noise_format_double(qr->x, px, sizeof px) > 0);
        FUZZ_ASSERT(noise_format_double(qr->y, py, sizeof py) > 0);
    }
    int n = snprintf(buf, size, "%s%s%s%s%s%s%s", field, rend[0] ? "&" : "", rend,
                     px[0] ? "&x=" : "", px, py[0] ? "&y=" : "", py);
    FUZZ_ASSERT(n > 0 && (size_t)n < size);
}

static void check_query(const route *r, char *query)
{
    int flags = flags_for(r->id);
    query_args a;
    char err[ERRORS_MSG_MAX] = "";
    if (fuzz_split_query(query, &a) != 0) {
        FUZZ_ASSERT(a.error && a.msg[0] != '\0');
        return; /* query_split answers 400 with a.msg */
    }
    query_result qr;
    int rc = query_parse(&a, r->kind, r->seed, flags, &qr, err, sizeof err);
    if (rc != 0) {
        FUZZ_ASSERT(rc == ERR_BAD_REQUEST);
        check_message(err, sizeof err);
        return;
    }

    /* Round trip: the canonical text, parsed again, gives itself. */
    char canon[1024], canon2[1024];
    canonical_query(&qr, flags, canon, sizeof canon);
    char *copy = strdup(canon);
    query_args a2;
    query_result qr2;
    FUZZ_ASSERT(copy != NULL);
    FUZZ_ASSERT(fuzz_split_query(copy, &a2) == 0);
    rc = query_parse(&a2, r->kind, r->seed, flags, &qr2, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "canonical '%s' refused: %s\n", canon, err);
    FUZZ_ASSERT(rc == 0);
    canonical_query(&qr2, flags, canon2, sizeof canon2);
    if (strcmp(canon, canon2) != 0)
        fprintf(stderr, "canonical '%s' re-parsed as '%s'\n", canon, canon2);
    FUZZ_ASSERT(strcmp(canon, canon2) == 0);
    if (flags & QUERY_POINT)
        FUZZ_ASSERT(memcmp(&qr.x, &qr2.x, sizeof qr.x) == 0 &&
                    memcmp(&qr.y, &qr2.y, sizeof qr.y) == 0);
    free(copy);

    reply out = REPLY_INIT;
    switch (r->id) {
    case ROUTE_TILE: {
        char key[1024], key2[1024], etag[32];
        int n = tile_canonical(r, &qr.spec, &qr.render, key, sizeof key);
        FUZZ_ASSERT(n > 0);
        FUZZ_ASSERT(tile_canonical(r, &qr2.spec, &qr2.render, key2, sizeof key2) == n);
        FUZZ_ASSERT(strcmp(key, key2) == 0);
        tile_etag(key, etag, sizeof etag);
        FUZZ_ASSERT(strlen(etag) == 18 && etag[0] == '"' && etag[17] == '"');
        FUZZ_ASSERT(strspn(etag + 1, "0123456789abcdef") == 16);
        FUZZ_ASSERT(etag_matches(etag, etag) == 1);
        /* The If-None-Match parser on client text: must not crash. */
        (void)etag_matches(canon, etag);
        (void)etag_matches(query, etag);
        return;
    }
    case ROUTE_POINT: rc = api_point(r, &qr, &out); break;
    case ROUTE_TILEJSON:
        rc = api_tilejson(r, &a, "http://127.0.0.1:8080", &out, err, sizeof err);
        break;
    default: return; /* POINTS: its body is fuzz_points' business */
    }
    FUZZ_ASSERT(rc == 0); /* the query parsed above, so nothing can be wrong */
    FUZZ_ASSERT(out.status == 200 && out.body_kind == REPLY_OWNED && out.size > 0);
    json_t *doc = json_loadb(out.body, (size_t)out.size, 0, NULL);
    FUZZ_ASSERT(json_is_object(doc));
    reply_release(&out);
    json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *uri = fuzz_strndup(data, size);
    /* dispatch(): the path is the target up to '?' or '#'. */
    size_t plen = strcspn(uri, "?#");
    char *path = fuzz_strndup((const unsigned char *)uri, plen);
    char *query = uri[plen] == '?' ? uri + plen + 1 : uri + plen + strlen(uri + plen);

    route r;
    char err[ERRORS_MSG_MAX];
    memset(err, 'x', sizeof err);
    int rc = route_parse(path, &r, err, sizeof err);
    FUZZ_ASSERT(rc == 0 || rc == ERR_BAD_REQUEST || rc == ERR_UNKNOWN_KIND || rc == ERR_NOT_FOUND);
    if (rc != 0) {
        check_message(err, sizeof err);
        FUZZ_ASSERT(errors_status(rc) == 400 || errors_status(rc) == 404);
        goto done;
    }
    FUZZ_ASSERT(r.id > ROUTE_NONE && r.id < ROUTE_COUNT);
    FUZZ_ASSERT(route_name(r.id) != NULL && route_allow(r.id) != NULL);
    if (r.id == ROUTE_TILE || r.id == ROUTE_POINT || r.id == ROUTE_POINTS ||
        r.id == ROUTE_TILEJSON) {
        FUZZ_ASSERT((unsigned)r.kind < NOISE_KIND_COUNT);
        if (r.id == ROUTE_TILE) {
            FUZZ_ASSERT(r.z >= 0 && r.z <= ROUTE_MAX_Z);
            FUZZ_ASSERT(r.x >= INT32_MIN && r.x <= INT32_MAX);
            FUZZ_ASSERT(r.y >= INT32_MIN && r.y <= INT32_MAX);
            FUZZ_ASSERT(r.scale == 1 || r.scale == 2);
            /* The route printed back parses to the same route. */
            char again[128];
            route r2;
            snprintf(again, sizeof again, "/%s/%" PRIu32 "/%d/%" PRId64 "/%" PRId64 "%s.png",
                     noise_kind_name(r.kind), r.seed, r.z, r.x, r.y, r.scale == 2 ? "@2x" : "");
            FUZZ_ASSERT(route_parse(again, &r2, err, sizeof err) == 0);
            FUZZ_ASSERT(r2.id == r.id && r2.kind == r.kind && r2.seed == r.seed &&
                        r2.z == r.z && r2.x == r.x && r2.y == r.y && r2.scale == r.scale);
        }
        check_query(&r, query);
    }
done:
    free(path);
    free(uri);
    return 0;
}
