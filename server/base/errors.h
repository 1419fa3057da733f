/* errors.h: the daemon's one error table: every error code of the server
 * modules with its HTTP status and its short text, written once (libuv's
 * UV_ERRNO_MAP shape) and expanded into the enum, errors_status() and
 * errors_strerror(). */
#ifndef ERRORS_H
#define ERRORS_H

#include <stddef.h>

/* XX(NAME, code, HTTP status, short text). Codes are negative and distinct
 * (a duplicate does not compile: errors.c switches on them), and they lie
 * below -99, apart from the noise core's NOISE_E* codes (-1..-6), so a code
 * names its failure wherever it travels. The tile cache, the renderer and
 * the PNG encoder report their failures with these codes too. */
#define ERRORS_MAP(XX)                                                                    \
    XX(BAD_REQUEST, -100, 400, "bad request")                                             \
    XX(BAD_JSON, -101, 400, "request body is not valid JSON")                             \
    XX(FRAMING, -102, 400, "malformed or ambiguous request framing")                      \
    XX(NOT_FOUND, -103, 404, "not found")                                                 \
    XX(UNKNOWN_KIND, -104, 404, "unknown kind")                                           \
    XX(METHOD, -105, 405, "method not allowed")                                           \
    XX(TOO_LARGE, -106, 413, "request too large")                                         \
    XX(URI_TOO_LONG, -107, 414, "request target too long")                                \
    XX(NOMEM, -108, 503, "out of memory, try again")                                      \
    XX(OVERLOADED, -109, 503, "server overloaded, try again")                             \
    XX(PNG, -110, 500, "PNG encoding failed")                                             \
    XX(INVALID, -111, 500, "invalid argument")                                            \
    XX(INTERNAL, -112, 500, "internal error")                                             \
    XX(EXPECTATION, -113, 417, "expectation not supported")                               \
    XX(NOT_IMPLEMENTED, -114, 501, "not implemented")                                     \
    XX(TOO_COSTLY, -115, 422, "request too costly")

enum {
#define ERRORS_ENUM(name, code, status, text) ERR_##name = (code),
    ERRORS_MAP(ERRORS_ENUM)
#undef ERRORS_ENUM
};

/* Longest message a handler writes (bytes including the NUL): a graph's
 * message quotes its canonical form and carries a JSON pointer. */
#define ERRORS_MSG_MAX 1024

/* A message may name where in a request's document the error is (a JSON
 * pointer, RFC 6901: "/inputs/1/octaves"): it then starts with
 * ERRORS_POINTER_MARK, the pointer, ERRORS_POINTER_MARK, and the message
 * follows. reply_error puts the pointer in the error body's "pointer". */
#define ERRORS_POINTER_MARK '\x1f'

/* Writes pointer and message into err in that form (message alone when
 * pointer is NULL). */
void errors_pointer_message(char *err, size_t err_size, const char *pointer, const char *message);

/* The message part of err; the pointer (or "" when err has none) into
 * pointer (pointer_size bytes). */
const char *errors_split_pointer(const char *err, char *pointer, size_t pointer_size);

/* The HTTP status of an error code; 500 for a code not in the table. */
unsigned int errors_status(int err);

/* The short static text of an error code ("not found", ...), used when a
 * handler gave no message; "internal error" for a code not in the table. */
const char *errors_strerror(int err);

/* The code's name without the prefix ("NOT_FOUND"); "?" if unknown. */
const char *errors_name(int err);

#endif
