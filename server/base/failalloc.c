/* failalloc.c: allocation wrappers that can fail the N-th call (see failalloc.h). */
#include "base/failalloc.h"

#include <stdatomic.h>
#include <stdlib.h>

static atomic_long armed_nth; /* 0: disarmed */
static atomic_long n_calls;
static atomic_int fired;

/* Counts the call; returns 1 if it is the one that must fail. Disarmed (the
 * daemon's normal state: jansson and the tile cache allocate through these
 * wrappers too) it costs one relaxed load and touches no shared counter. */
static int should_fail(void)
{
    long nth = atomic_load_explicit(&armed_nth, memory_order_relaxed);
    if (nth == 0)
        return 0;
    long k = atomic_fetch_add(&n_calls, 1) + 1;
    if (nth > 0 && k == nth) {
        atomic_store(&fired, 1);
        return 1;
    }
    return 0;
}

/* NULLs handed out on this thread, armed or real (failalloc_thread_failures). */
static _Thread_local unsigned long thread_failures;

static void *counted(void *p, size_t size)
{
    if (p == NULL && size > 0)
        thread_failures++;
    return p;
}

void *failalloc_malloc(size_t size)
{
    return counted(should_fail() ? NULL : malloc(size), size);
}

void *failalloc_calloc(size_t n, size_t size)
{
    return counted(should_fail() ? NULL : calloc(n, size), n * size);
}

void *failalloc_realloc(void *p, size_t size)
{
    return counted(should_fail() ? NULL : realloc(p, size), size);
}

int failalloc_fail_here(void)
{
    int fail = should_fail();
    thread_failures += (unsigned long)fail;
    return fail;
}

unsigned long failalloc_thread_failures(void)
{
    return thread_failures;
}

void failalloc_arm(long nth)
{
    atomic_store(&armed_nth, 0);
    atomic_store(&n_calls, 0);
    atomic_store(&fired, 0);
    atomic_store(&armed_nth, nth > 0 ? nth : 0);
}

long failalloc_calls(void)
{
    return atomic_load(&n_calls);
}

int failalloc_fired(void)
{
    return atomic_load(&fired);
}

void *failalloc_zalloc(void *opaque, unsigned int items, unsigned int size)
{
    (void)opaque;
    return failalloc_calloc(items, size);
}

void failalloc_zfree(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}
