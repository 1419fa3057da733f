/* etag.h: the one ETag module: strong ETags made from a canonical request
 * and the versions of what produced its bytes, and If-None-Match matching.
 * Every cached answer (picture and numeric tiles, grids, the viewer's
 * files) uses these two. */
#ifndef ETAG_H
#define ETAG_H

#include <stddef.h>

/* Longest ETag etag_of writes, with its quotes and NUL. */
#define ETAG_SIZE 24

/* Writes into buf (buf_size >= ETAG_SIZE) the strong ETag ("..." around
 * 16 hex digits) of canonical followed by versions (for example
 * "#noise1#render3"): equal inputs give equal tags on every build. */
void etag_of(const char *canonical, const char *versions, char *buf, size_t buf_size);

/* 1 if the If-None-Match header value if_none_match (NULL: absent) matches
 * etag: a list of tags, weak ones (W/) compared weakly, or "*"; else 0. */
int etag_matches(const char *if_none_match, const char *etag);

#endif
