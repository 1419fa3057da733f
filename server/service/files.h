/* files.h: serves the viewer at /: the files embedded in the binary
 * (embedded.h), or those of the --static directory and nothing outside it. */
#ifndef FILES_H
#define FILES_H

#include <stddef.h>

#include "service/reply.h"

/* Serves the file that raw_path (the request path, still percent-encoded)
 * names under root (an absolute, resolved directory): index.html for a
 * directory, Content-Type by extension. Rejects with ERR_BAD_REQUEST paths
 * with "..", "." or hidden segments, encoded slashes or backslashes, NUL
 * bytes or bad escapes; with ERR_NOT_FOUND missing files, non-regular files
 * and anything whose resolved path (symlinks followed) leaves root. Returns
 * 0 and fills *out, or the code with a message in err. */
int files_serve(const char *root, const char *raw_path, reply *out, char *err,
                size_t err_size);

/* Serves the embedded file raw_path names (index.html for "/" and for a
 * directory), with a strong ETag: 304 without a body when if_none_match
 * (may be NULL) matches it. The same path checks and errors as
 * files_serve(); ERR_NOT_FOUND for a path not embedded. */
int files_serve_embedded(const char *raw_path, const char *if_none_match, reply *out,
                         char *err, size_t err_size);

/* The Content-Type for a file name, by extension
 * ("application/octet-stream" when unknown). */
const char *files_content_type(const char *name);

#endif
