/* api.h: the JSON endpoints: /point, /points, /tile.json, /api/kinds,
 * /healthz and /openapi.json. */
#ifndef API_H
#define API_H

#include <stddef.h>

#include "http.h"
#include "query.h"
#include "route.h"

/* Each returns 0 and fills *out, or an ERR_* code with a message in err. */

/* GET /{kind}/{seed}/point?x=&y=&<field params>. */
int api_point(const route *r, const query_args *q, http_reply *out, char *err, size_t err_size);

/* POST /{kind}/{seed}/points?<field params> with body[0..body_len). */
int api_points(const route *r, const query_args *q, const char *body, size_t body_len,
               http_reply *out, char *err, size_t err_size);

/* GET /{kind}/{seed}/tile.json?<field and render params>; base_url is the
 * scheme and authority the tiles template starts with ("http://h:p"). */
int api_tilejson(const route *r, const query_args *q, const char *base_url, http_reply *out,
                 char *err, size_t err_size);

/* The documents that never change while the daemon runs: built once by
 * api_init() (returns 0, or -1 out of memory), shared by every request
 * (out->shared is 1), freed by api_cleanup(). */
int api_init(void);
void api_cleanup(void);
int api_kinds(http_reply *out);
int api_healthz(http_reply *out);
int api_openapi(http_reply *out);

/* The body of GET /api/kinds as a new JSON object (caller decrefs). */
json_t *api_kinds_document(void);

#endif
