/* progress.h: the progress report of a long job on standard error: a bar
 * redrawn in place on a terminal, one plain line every few seconds otherwise. */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct progress progress;

/* A report of total units (tiles) to out: bar on (1, a terminal) or plain
 * lines every plain_seconds (bar 0). label starts each plain line. NULL out
 * of memory. progress_destroy(NULL) does nothing. */
progress *progress_create(FILE *out, int bar, double plain_seconds, uint64_t total,
                          const char *label);
void progress_destroy(progress *p);

/* done units of total so far and bytes written; prints when due (the bar
 * at most 10 times a second). Rates count only this run's work. */
void progress_update(progress *p, uint64_t done, uint64_t bytes);

/* The final report: always printed (the bar ends its line). */
void progress_finish(progress *p, uint64_t done, uint64_t bytes);

/* "12.3 MiB" style sizes and "1 h 02 min" style durations for messages. */
void progress_format_bytes(double bytes, char *buf, size_t buf_size);
void progress_format_seconds(double seconds, char *buf, size_t buf_size);

#endif
