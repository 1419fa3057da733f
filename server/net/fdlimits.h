/* fdlimits.h: connection limits derived from the open-file limit the daemon
 * actually gets. Every connection is a descriptor; when the descriptor
 * limit (RLIMIT_NOFILE) is too small for threads x 120 connections (1024 is
 * the soft and hard default of podman, buildah, many CI runners and
 * services), a daemon that tried to accept them all would meet EMFILE:
 * accept() fails, and the client the limits protect gets no answer at all.
 * So the daemon first raises its soft limit as far as the hard one allows,
 * keeps a reserve of descriptors for everything that is not a connection
 * (the listening socket, each thread's epoll and wake-up descriptors, files
 * served with --static, logs, libraries), and allows only what is left as
 * connections. Near that number the connection guard sheds the oldest idle
 * connections so that a new client is always accepted (connguard.h). */
#ifndef FDLIMITS_H
#define FDLIMITS_H

#include <stddef.h>

typedef struct {
    unsigned long long nofile;  /* soft RLIMIT_NOFILE after raising */
    unsigned long long hard;    /* hard RLIMIT_NOFILE; 0: unlimited */
    unsigned threads;
    unsigned reserve;           /* descriptors kept for what is not a connection */
    unsigned connections;       /* daemon-wide connection limit */
    unsigned per_address;       /* connections from one IP address */
    unsigned shed_above;        /* open connections beyond which the oldest idle one is shed */
    int by_files;               /* 1: the open-file limit, not threads x per_thread, set connections */
} fdlimits;

/* Derives the limits from a descriptor limit nofile (hard: the hard limit,
 * 0 for unlimited, only reported) for threads epoll threads of at most
 * per_thread connections each. Returns 0, or -1 with a message in err when
 * nofile leaves fewer connections than threads. Pure: for tests. */
int fdlimits_derive(unsigned long long nofile, unsigned long long hard, unsigned threads,
                    unsigned per_thread, fdlimits *out, char *err, size_t err_size);

/* Raises the soft RLIMIT_NOFILE towards what threads x per_thread
 * connections and the reserve need (as far as the hard limit allows), then
 * derives the limits from what it got. Returns 0 or -1 with a message. */
int fdlimits_plan(unsigned threads, unsigned per_thread, fdlimits *out, char *err,
                  size_t err_size);

/* One line for the start-up output: "open-file limit 1024 (hard 1024):
 * 912 connections, 684 per address, ..." (no newline). */
void fdlimits_describe(const fdlimits *l, char *buf, size_t buf_size);

#endif
