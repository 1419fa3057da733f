/* reply.h: what a handler hands back: a plain struct (status, content type,
 * cache policy, body, extra headers) that the connection layer alone turns
 * into bytes on a socket (lwan's response struct). Handlers fill it on any
 * thread and never see the HTTP library, so a unit test or a fuzz target
 * calls a handler and reads the body directly.
 *
 * Lifetime: start from REPLY_INIT (or reply_init), fill, and either pass it
 * to the connection layer (which takes what it holds) or reply_release() it.
 * A reply owns its body (REPLY_OWNED), its cache reference (REPLY_ENTRY),
 * its file (REPLY_FILE) or its stream (REPLY_STREAM) until released. It may
 * be moved by value (memcpy): header values are stored as offsets. */
#ifndef REPLY_H
#define REPLY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "service/cache.h"

/* Extra headers per reply and the bytes of their values. */
#define REPLY_MAX_HEADERS 8
#define REPLY_HEADER_BYTES 768

/* Bits of reply.vary. */
enum {
    REPLY_VARY_ACCEPT_ENCODING = 1, /* Vary: Accept-Encoding (gzip or not) */
    REPLY_VARY_BASE_URL = 2         /* Vary: Forwarded, X-Forwarded-Proto,
                                       X-Forwarded-Host, Host (written URLs) */
};

/* REPLY_STREAM with no known length: sent chunked. */
#define REPLY_SIZE_UNKNOWN UINT64_MAX

typedef enum {
    REPLY_EMPTY = 0, /* no body (204; or a 304 built from nothing) */
    REPLY_OWNED,     /* body: a malloc()ed buffer the reply frees */
    REPLY_BORROWED,  /* body: bytes that outlive the request (static text, or
                        documents the service owns until it is destroyed) */
    REPLY_ENTRY,     /* body: the data of a cache entry the reply holds a
                        reference to (released when the response is done) */
    REPLY_FILE,      /* body: size bytes of an open file descriptor, closed
                        when done */
    REPLY_STREAM     /* body: produced in blocks by stream.read while it is
                        sent (row bands of a large grid) */
} reply_body;

/* A body produced while it is sent. read copies up to max bytes of the body
 * at offset pos into buf and returns how many (> 0), 0 at the end of a body
 * of unknown size, or -1 on failure (the connection is then closed; a
 * status already sent cannot change). Called on a connection thread, one
 * call at a time, pos growing. done frees ctx once, when the response is
 * finished or abandoned (also if it never started).
 */
typedef struct {
    long (*read)(void *ctx, uint64_t pos, char *buf, size_t max);
    void (*done)(void *ctx);
    void *ctx;
    size_t block_bytes; /* suggested size of one read (0: 64 KiB) */
    /* Optional, for bodies whose blocks are costly to compute (grid bands):
     * read returns REPLY_STREAM_PENDING when nothing is ready; the
     * connection layer then runs produce(ctx) on a render-pool worker (the
     * connection suspended meanwhile, never a connection thread) and calls
     * read again once it returned. produce computes the next block and
     * returns 0, or -1 on failure (the stream then ends with an error); it
     * is never called at the same time as read. produce_cost is the
     * estimated work of one produce call (cost.h), for the pool's
     * fairness; the continuation of a stream is never refused for the
     * queue's bound (its request was admitted), only when the daemon
     * stops. */
    int (*produce)(void *ctx);
    uint64_t produce_cost;
} reply_stream;

/* What read returns when the next block must be produced first. */
#define REPLY_STREAM_PENDING (-2)

typedef struct {
    unsigned int status;        /* HTTP status; 0 means "not filled" */
    const char *content_type;   /* static text; NULL: no Content-Type */
    const char *cache_control;  /* static text; NULL: no Cache-Control */
    const char *content_encoding; /* static text ("gzip"); NULL: identity */
    unsigned int vary;          /* REPLY_VARY_* bits: the request headers the
                                   answer depends on (the connection layer
                                   writes one Vary header for them all) */
    reply_body body_kind;
    const void *body;           /* OWNED, BORROWED, ENTRY: the bytes */
    uint64_t size;              /* body bytes (REPLY_SIZE_UNKNOWN: a stream
                                   of unknown length) */
    void *owned;                /* OWNED: what free() releases */
    cache_entry *entry;         /* ENTRY: the reference */
    int fd;                     /* FILE: the descriptor (-1 otherwise) */
    reply_stream stream;        /* STREAM */
    int close;                  /* 1: close the connection after sending */
    int error;                  /* the ERR_* code of an error reply, else 0 */
    size_t n_headers;
    struct {
        const char *name;       /* static text */
        unsigned short value;   /* offset into header_bytes */
    } headers[REPLY_MAX_HEADERS];
    size_t header_used;
    char header_bytes[REPLY_HEADER_BYTES];
} reply;

#define REPLY_INIT {.fd = -1}

/* Sets *rp to an empty, unfilled reply. */
void reply_init(reply *rp);

/* Releases what the reply holds (body buffer, cache reference, file,
 * stream) and leaves it as reply_init() does. release(NULL) does nothing. */
void reply_release(reply *rp);

/* Adds header name (static text) with a copy of value. Returns 0, or -1 if
 * the reply has no room left (REPLY_MAX_HEADERS, REPLY_HEADER_BYTES): a bug
 * of the caller, who adds a bounded set. */
int reply_header(reply *rp, const char *name, const char *value);

/* The value of the first header called name (case-insensitive), or NULL. */
const char *reply_header_value(const reply *rp, const char *name);
/* The value of the i-th extra header. */
const char *reply_header_at(const reply *rp, size_t i);

/* A 200 (or status) reply with doc printed as compact JSON (jsonout.h),
 * Content-Type application/json and Cache-Control cache_control (NULL:
 * none). Returns 0, or ERR_NOMEM with *rp unchanged. */
int reply_json(reply *rp, unsigned int status, const json_t *doc, const char *cache_control);

/* A reply that owns text[0..size) (malloc'd; reply_release frees it),
 * Content-Type content_type, Cache-Control cache_control (NULL: none). */
void reply_owned(reply *rp, unsigned int status, const char *content_type, const char *cache_control,
                 char *text, size_t size);

/* A reply with the bytes body[0..size) that the reply does not own: they
 * must outlive the response (static text, or a document of the service). */
void reply_borrowed(reply *rp, unsigned int status, const char *content_type,
                    const void *body, size_t size);

/* Turns *rp into the JSON error reply of err: status from the error table,
 * body {"error":{"status":N,"message":"..."}} with message (NULL or "":
 * errors_strerror(err)), Cache-Control no-store. Whatever the reply held
 * (body, headers) is released first; only its close flag is kept. Never
 * fails: out of memory it becomes a static 503 body. Messages echo client
 * input: bytes outside printable ASCII become '?'. */
void reply_error(reply *rp, int err, const char *message);

#endif
