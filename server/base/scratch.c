/* scratch.c: per-thread reusable buffers (scratch.h), kept in a
 * pthread key whose destructor frees them when the thread exits. */
#include "base/scratch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/failalloc.h"

typedef struct {
    void *block[SCRATCH_SLOTS];
    size_t cap[SCRATCH_SLOTS];
    unsigned char busy[SCRATCH_SLOTS];
} scratch_set;

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int have_key;
static _Atomic size_t keep = SCRATCH_KEEP;

void scratch_set_keep(size_t bytes) { atomic_store(&keep, bytes); }

static void free_set(void *v)
{
    scratch_set *s = v;
    for (int i = 0; i < SCRATCH_SLOTS; i++)
        free(s->block[i]);
    free(s);
}

static void make_key(void) { have_key = pthread_key_create(&key, free_set) == 0; }

/* This thread's set; create: make it if there is none (NULL if that fails) */
static scratch_set *thread_set(int create)
{
    pthread_once(&key_once, make_key);
    if (!have_key)
        return NULL;
    scratch_set *s = pthread_getspecific(key);
    if (s || !create)
        return s;
    s = calloc(1, sizeof *s);
    if (s && pthread_setspecific(key, s) != 0) {
        free(s);
        s = NULL;
    }
    return s;
}

void *scratch_take(scratch_slot slot, size_t size)
{
    if (size == 0)
        size = 1;
    scratch_set *s = size <= atomic_load(&keep) ? thread_set(1) : NULL;
    if (!s || s->busy[slot])
        return failalloc_malloc(size);
    if (s->cap[slot] < size) {
        void *p = failalloc_malloc(size);
        if (!p)
            return NULL;
        free(s->block[slot]);
        s->block[slot] = p;
        s->cap[slot] = size;
    }
    s->busy[slot] = 1;
    return s->block[slot];
}

void scratch_give(scratch_slot slot, void *p)
{
    if (!p)
        return;
    scratch_set *s = thread_set(0);
    if (s && s->block[slot] == p) {
        s->busy[slot] = 0;
        return;
    }
    free(p);
}
