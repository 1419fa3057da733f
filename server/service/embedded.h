/* embedded.h: the viewer's files (static/ and the pinned libraries from
 * node_modules, staged in build/www), compiled into the binary by
 * scripts/embed-www.sh, so build/noisetile alone serves its viewer. The
 * Makefile's WWW_VENDOR lists the library files. */
#ifndef EMBEDDED_H
#define EMBEDDED_H

#include <stddef.h>

typedef struct {
    const char *path;          /* URL path, "/index.html", "/vendor/leaflet/leaflet.js" */
    const unsigned char *data; /* the file's bytes, in read-only memory */
    size_t size;
    const char *etag;          /* strong ETag, quotes included */
} embedded_file;

/* Sorted by path (strcmp order). */
extern const embedded_file embedded_files[];
extern const size_t embedded_count;

#endif
