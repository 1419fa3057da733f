/* accesslog.h: the access log: one line per request, written to a file
 * descriptor (standard error) in batches under load. Writing each line with
 * its own write() cost a system call per request on the hot path; here a
 * line is written at once when the log is quiet (the last write was 20 ms
 * ago or more) and otherwise buffered, and a background thread writes what
 * is buffered within 50 ms, so no line waits longer than that. */
#ifndef ACCESSLOG_H
#define ACCESSLOG_H

#include <stddef.h>
#include <time.h>

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

/* What one access-log line says about a request. */
typedef struct {
    struct timespec wall;   /* when the request line arrived (CLOCK_REALTIME) */
    const char *addr;       /* the client's address as text ("-": unknown) */
    const char *method;     /* "" or NULL: "-" */
    const char *target;     /* the raw request target */
    unsigned int status;    /* 0: no response, the connection ended */
    int sent_known;         /* 0: body bytes unknown, printed "-" */
    unsigned long long sent;/* body bytes sent */
    unsigned long long us;  /* duration, microseconds */
    int aborted;            /* the response did not complete */
} accesslog_line;

/* The longest line accesslog_format() writes, newline included. */
#define ACCESSLOG_LINE_MAX 600

/* Formats f as one line into out (at least ACCESSLOG_LINE_MAX bytes):
 * time (ISO 8601 UTC, milliseconds), client, "method target", status, body
 * bytes, duration in ms with three decimals, " (aborted)" when it did not
 * complete, newline:
 *   2026-12-01T13:40:48.123Z 127.0.0.1 "GET /healthz" 200 15 0.042ms
 * The target is cut at 299 bytes and any byte outside printable ASCII, a
 * space or '"' becomes '?'. Formatted by hand (printf-family calls were a
 * few per cent of a cached tile's CPU in profiles); the time text is
 * remembered per thread for the current second. Returns the length (no
 * NUL is counted; out is NUL-terminated). Safe from any thread. */
size_t accesslog_format(const accesslog_line *f, char *out);

/* Writes the IPv4 address a (host byte order) in dotted decimal, as
 * inet_ntop() does, into out (at least 16 bytes, NUL-terminated). */
void accesslog_ipv4(unsigned long a, char *out);

/* Writes everything buffered, stops the thread and frees the log.
 * accesslog_destroy(NULL) does nothing. */
void accesslog_destroy(accesslog *l);

#endif
