/* accesslog.h: the access log: one line per request, written to a file
 * descriptor (standard error) in batches under load. Writing each line with
 * its own write() cost a system call per request on the hot path; here a
 * line is written at once when the log is quiet (the last write was 20 ms
 * ago or more) and otherwise buffered, and a background thread writes what
 * is buffered within 50 ms, so no line waits longer than that. */
#ifndef ACCESSLOG_H
#define ACCESSLOG_H

#include <stddef.h>

typedef struct accesslog accesslog;

/* Starts a log writing to fd (not closed by the log). Returns NULL on
 * failure (out of memory, no thread). Free with accesslog_destroy(). */
accesslog *accesslog_create(int fd);

/* Appends len bytes (whole lines). Safe from any thread. */
void accesslog_write(accesslog *l, const char *line, size_t len);

/* Writes what is buffered to the current descriptor, then sends the lines
 * to fd from now on (log rotation). Returns the previous descriptor, which
 * the caller closes. Safe from any thread. */
int accesslog_swap_fd(accesslog *l, int fd);

/* Writes everything buffered, stops the thread and frees the log.
 * accesslog_destroy(NULL) does nothing. */
void accesslog_destroy(accesslog *l);

#endif
