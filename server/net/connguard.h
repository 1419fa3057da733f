/* connguard.h: the request deadline: a connection must deliver a complete
 * request (headers and body) within a fixed time of being accepted or of its
 * previous response, or it is shut down. libmicrohttpd 0.9.75's connection
 * timeout is an idle timeout that every received byte resets, so a
 * slow-loris client sending one header byte every few seconds would keep its
 * slot forever; this closes that gap (nginx's client_header_timeout does the
 * same job). Idle keep-alive connections end after the same time.
 *
 * A connection cut while its request is under way (its request line has
 * arrived) gets an answer first, 408 (413 when its body is already over the
 * limit), and its sending side is closed; what the client still sends is
 * read and dropped for LIMIT_LINGER_MS (nginx's lingering close), so that
 * the client reads the answer instead of a reset. Deadlines are measured
 * in the time the process ran: a stop (SIGSTOP) counts as at most a
 * second.
 *
 * Usage: pass connguard_notify as MHD_OPTION_NOTIFY_CONNECTION with the
 * guard as its closure, call connguard_request_received() when a request
 * has been read completely and connguard_request_done() when its response
 * is finished. A background thread sweeps the connections once a second. */
#ifndef CONNGUARD_H
#define CONNGUARD_H

#include <microhttpd.h>

typedef struct connguard connguard;

/* Starts the sweeping thread. deadline_ms: how long a connection may take to
 * deliver a request. Returns NULL on failure (out of memory or no thread).
 * Free with connguard_destroy() after MHD_stop_daemon(). */
connguard *connguard_create(int deadline_ms);

/* Stops the thread and frees the guard. connguard_destroy(NULL) does
 * nothing. Every connection must have been closed (MHD_stop_daemon). */
void connguard_destroy(connguard *g);

/* MHD_NotifyConnectionCallback: registers a new connection (its deadline
 * starts now) and unregisters a closed one. cls is the connguard. */
void connguard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                      enum MHD_ConnectionNotificationCode code);

/* The connection's request line has arrived (a request is under way:
 * connguard_drain() leaves it to finish). Returns 0, or -1 if the guard
 * has already shut this connection down (the request was read from the
 * socket buffer afterwards and must not be served: its answer cannot be
 * sent). */
int connguard_request_started(struct MHD_Connection *conn);

/* The connection has delivered a whole request: no deadline until the
 * response is done. Safe on connections the guard does not know. */
void connguard_request_received(struct MHD_Connection *conn);

/* The connection's response is finished (or abandoned): the deadline for
 * its next request starts now, or, once draining, the connection is shut
 * down. */
void connguard_request_done(struct MHD_Connection *conn);

/* The request's body is over the body limit: if its deadline runs before
 * it is read, the answer is 413, not 408. Reset by
 * connguard_request_done(). */
void connguard_body_over_limit(struct MHD_Connection *conn);

/* 1 if the guard has shut the connection down (its deadline ran, it was
 * shed, or the daemon is stopping): a request completed on it afterwards
 * must not be served. */
int connguard_is_shut(struct MHD_Connection *conn);

/* The status the guard answered the connection's request with at its
 * deadline (408, 413), or 0: for the access log. */
int connguard_answered(struct MHD_Connection *conn);

/* Graceful stop (after MHD_quiesce_daemon): shuts down every connection
 * that is between requests, and from now on each connection as soon as its
 * current response is done, so keep-alive clients cannot keep the daemon
 * busy with new requests. Requests under way finish. */
void connguard_drain(connguard *g);

/* Connections shut down for missing their deadline since creation. */
unsigned long long connguard_closed(const connguard *g);

/* Shedding (fdlimits.h): once more than n connections are open, each new
 * connection makes the guard shut down the connection that has waited
 * longest for a request (an idle keep-alive or slow-loris client, or one
 * that connected and sent nothing), never one whose request is being
 * answered or that has bytes waiting to be read. So at its descriptor limit
 * the daemon still accepts and serves a new client at once, and idle
 * holders lose their slots oldest first. 0 (the default): never. Set before
 * the daemon starts. */
void connguard_shed_above(connguard *g, unsigned n);

/* Connections shed since creation. */
unsigned long long connguard_shed(const connguard *g);

/* Connections the guard has seen accepted and not yet shut down or closed. */
unsigned connguard_live(const connguard *g);

#endif
