/* daemon_limits.h: every limit the daemon enforces, in one place, with the reason
 * for each value. A hardening test can read these names and probe them.
 * (Not "limits.h": with -Iserver it would shadow the system <limits.h>.) */
#ifndef DAEMON_LIMITS_H
#define DAEMON_LIMITS_H

/* Connections handled by one thread of the epoll pool. Kept below 125: a
 * single epoll thread of the HTTP library (MHD 0.9.75) stalls for seconds
 * when exactly 128 or 256 connections are ready at once
 * (docs/architecture.md, "The HTTP library"). The daemon-wide
 * MHD_OPTION_CONNECTION_LIMIT is this times the thread count; at it,
 * the HTTP library stops accepting and new connections wait in the listen
 * backlog until a slot frees (measured; the per-address limit below, by
 * contrast, closes a connection at once). */
#define LIMIT_CONNECTIONS_PER_THREAD 120

/* Default --threads: at least this many epoll threads even on a small
 * machine, because the per-thread limit above caps connections at
 * threads * LIMIT_CONNECTIONS_PER_THREAD: 16 threads hold 1920 connections,
 * enough for 1000 idle clients and 100 slow-loris clients to leave room for
 * real ones (make slowtest). Idle threads cost nothing; a thread busy
 * rendering a tile delays only its own connections. BENCHMARKS.md, "HTTP",
 * compares thread counts and modes. */
#define LIMIT_DEFAULT_THREADS_MIN 16

/* Descriptors kept out of the connection limit for what is not a
 * connection (fdlimits.h): per epoll thread (its epoll and wake-up
 * descriptors, one spare), and for the whole daemon (standard streams, the
 * listening socket, the main thread's descriptors, files being sent with
 * --static, libraries; generous, as running out is what this prevents). At
 * the common limit of 1024 with 16 threads this leaves 912 connections. */
#define LIMIT_FD_RESERVE_PER_THREAD 3
#define LIMIT_FD_RESERVE 64

/* Shedding (connguard.h): the guard keeps at most connections - headroom
 * open, closing the oldest idle connection for each new one beyond it; the
 * headroom is the connection limit / this, at least one per thread. */
#define LIMIT_SHED_HEADROOM_DIV 64

/* Connections from one IP address, as a share of the daemon-wide limit
 * (numerator / denominator): one client cannot take every slot, a quarter
 * stays free for others. Loopback benchmarks share one address, so this is
 * deliberately generous rather than a small fixed number. */
#define LIMIT_PER_IP_NUM 3
#define LIMIT_PER_IP_DEN 4

/* Seconds a connection may stay idle (between requests, or mid-request with
 * no bytes moving) before the HTTP library closes it, so idle keep-alive and
 * slow-loris clients cannot hold slots forever (the library default is
 * "never"). */
#define LIMIT_CONNECTION_TIMEOUT_S 30

/* Seconds a connection has to deliver a complete request (headers and
 * body), counted from its accept or from its previous response; then it is
 * shut down (connguard.h). The idle timeout above is reset by every byte,
 * so without this a slow-loris client sending a header byte every few
 * seconds would hold its slot forever. Also ends idle keep-alive
 * connections. */
#define LIMIT_REQUEST_DEADLINE_S 10

/* Bytes of memory per connection for the request line, headers and read
 * buffer (MHD_OPTION_CONNECTION_MEMORY_LIMIT). A request line or header
 * block that does not fit gets 414 / 431 from the HTTP library itself.
 * 16 KiB holds a request line of about 16200 bytes (twice the 8 KiB that
 * nginx and Apache accept by default) and any sensible tile or point URL
 * many times over. It was 32 KiB; the HTTP library (MHD 0.9.75) zeroes
 * this memory on every request (about 1.5 times its size: the read buffer
 * shrunk for the reply, then the whole pool reset), which was 13-16 % of a
 * cached tile's CPU; 16 KiB halves that (BENCHMARKS.md, "HTTP", "Hot path
 * changes"). 8 KiB would refuse a 4 KB Cookie header with 431. */
#define LIMIT_CONNECTION_MEMORY 16384

/* listen() backlog. */
#define LIMIT_LISTEN_BACKLOG 511

/* Query-string parameters per request; more -> 400. Every endpoint takes at
 * most 11 legitimate ones (8 field, 3 render or 2 point). */
#define LIMIT_QUERY_PARAMS 32

/* Request body of POST /{kind}/{seed}/points, bytes; more -> 413. 10000
 * points of three 17-digit numbers take about 700 KB. */
#define LIMIT_BODY_BYTES (1024 * 1024)

/* A body over LIMIT_BODY_BYTES is read and dropped, then answered with 413,
 * so the client sees the answer (a client that sends its whole body before
 * reading, as Python's http.client does, would see a reset instead of an
 * early answer) and the connection stays usable. What bounds the reading
 * is time, not bytes (nginx's lingering_time): the request deadline
 * (LIMIT_REQUEST_DEADLINE_S); a body still arriving then is answered 413
 * and its connection closed after LIMIT_LINGER_MS. A client that sends
 * Expect: 100-continue is answered 413 before it sends the body. */

/* Milliseconds a connection answered at its request deadline (408, or 413
 * for a body over the limit) is still read from, the bytes dropped, before
 * it is closed: a client still sending then reads the answer rather than a
 * reset. nginx's lingering_time is 30 s; this is shorter because the
 * connection holds a slot meanwhile. */
#define LIMIT_LINGER_MS 5000

/* Bytes all request bodies in flight may hold together, counting for each
 * POST /points batch what it needs from arrival to answer (the body, its
 * coordinates, values, gradients and answer text: batch_memory_bytes(),
 * about 3.7 MB for a 1 MiB batch). Beyond it a new body is dropped as it
 * arrives and answered 503 with Retry-After. 64 MiB holds sixteen 1 MiB
 * batches at once. */
#define LIMIT_BODY_MEMORY (64 * 1024 * 1024)

/* Points per POST /points request; more -> 413. Evaluating 10000 points with
 * 16 octaves and warp takes a few tens of milliseconds of one worker thread. */
#define LIMIT_MAX_POINTS 10000

/* A grid or window (grid.npy/.r16/.png, /stats): each side at most 8193
 * samples and 16785409 samples in all (4097 x 4097, Unity's largest
 * heightmap: the target, 33.6 MB as .r16, 67 MB as .npy). A grid is
 * streamed in bands, so the limit bounds a request's time (about 1 s of one
 * core for 6 octaves), not its memory. Beyond: 413, ask for several grids.
 * Sample spacing at most 1e6 plane units (the warp and frequency limit). */
#define LIMIT_GRID_SIDE 8193
#define LIMIT_GRID_SAMPLES 16785409LL
#define LIMIT_GRID_STEP 1e6

/* Nice value added to the render pool's threads (--workers): the
 * connection threads, which answer cached tiles, health checks and errors,
 * get the CPU first whenever they have work; renders use what is left.
 * On a quiet machine two workers at +10 render as many tiles per second as
 * the old daemon's sixteen threads at nice 0; where other work at nice 0
 * wants the cores, every step towards 0 buys render throughput with cached
 * latency (BENCHMARKS.md, "Render pool": +10, +3, +1 measured). */
#define LIMIT_WORKER_NICE 10

/* Upper bound on --threads (and NOISETILE_THREADS). */
#define LIMIT_MAX_THREADS 256

/* Upper bound on --cache-mb (and NOISETILE_CACHE_MB): 64 GiB. */
#define LIMIT_MAX_CACHE_MB (64 * 1024)

/* Milliseconds SIGINT/SIGTERM waits for in-flight requests to finish before
 * the daemon stops anyway. */
#define LIMIT_DRAIN_MS 10000

/* Bytes of a static file path after the --static directory. */
#define LIMIT_STATIC_PATH 1024

/* Static files larger than this are not served (404): the viewer's files are
 * small, and this keeps a stray large file from being exposed by accident. */
#define LIMIT_STATIC_FILE_BYTES (64LL * 1024 * 1024)

#endif
