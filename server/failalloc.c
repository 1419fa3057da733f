/* failalloc.c: allocation wrappers that can fail the N-th call (see failalloc.h). */
#include "failalloc.h"

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

void *failalloc_malloc(size_t size)
{
    return should_fail() ? NULL : malloc(size);
}

void *failalloc_calloc(size_t n, size_t size)
{
    return should_fail() ? NULL : calloc(n, size);
}

void *failalloc_realloc(void *p, size_t size)
{
    return should_fail() ? NULL : realloc(p, size);
}

int failalloc_fail_here(void)
{
    return should_fail();
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
