/* failalloc.h: malloc wrappers that fail the N-th call when a test asks,
 * so out-of-memory paths on request paths can be exercised (SQLite's fault
 * simulation, libuv's test-loop-oom).
 *
 * Disarmed (the default) they behave exactly like malloc/calloc/realloc.
 * Thread-safe: the count is atomic, so exactly one call fails per arming even
 * when worker threads allocate at once. Memory from them is freed with free().
 */
#ifndef FAILALLOC_H
#define FAILALLOC_H

#include <stddef.h>

/* Like malloc/calloc/realloc, but return NULL for the armed call. A failed
 * realloc leaves the old block untouched, as realloc does. */
void *failalloc_malloc(size_t size);
void *failalloc_calloc(size_t n, size_t size);
void *failalloc_realloc(void *p, size_t size);

/* zlib's alloc_func and free_func (voidpf is void *, uInt unsigned int),
 * so zlib streams fail and free like every other request allocation. */
void *failalloc_zalloc(void *opaque, unsigned int items, unsigned int size);
void failalloc_zfree(void *opaque, void *p);

/* For an allocation made inside a library that takes no allocator
 * (the HTTP library's response objects): counts as one wrapper call and returns
 * 1 if it is the armed one, and the caller then acts as if that library had
 * returned NULL; else 0. */
int failalloc_fail_here(void);

/* How many times the wrappers (and failalloc_fail_here) failed on the
 * calling thread so far, armed or really out of memory. For libraries that
 * report an allocation failure as some other error (jansson's parser calls
 * some of them a syntax error): compare the count before and after. */
unsigned long failalloc_thread_failures(void);

/* Makes the nth wrapper call from now (1-based) fail, once; 0 disarms.
 * Resets the call counter. */
void failalloc_arm(long nth);
/* Wrapper calls since the last failalloc_arm() (counted only while armed).
 * A test loops nth = 1, 2, ... until an operation makes fewer calls than nth
 * (every allocation has then failed once). */
long failalloc_calls(void);
/* 1 if the armed call has happened (and failed) since the last arming. */
int failalloc_fired(void);

#endif
