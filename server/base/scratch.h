/* scratch.h: a thread's reusable working buffers for tile renders (and
 * grid bands).
 *
 * The daemon sends every block of 64 KiB and more straight to mmap (main.c),
 * so a tile's working arrays (the field's floats and gradients, the pixels,
 * the filtered rows, the encoder's tokens) were fresh pages on every render,
 * and their page faults cost more than the noise did (BENCHMARKS.md, "Cold
 * 6-octave terrain tile"). Instead each thread keeps one buffer per slot, up
 * to SCRATCH_KEEP bytes, reused by its next render and freed when the thread
 * exits. Every tile the daemon makes fits (the largest, 512 px shaded with
 * the zero line, needs 6.0 MiB in all, its gradients 2.0 MiB), so a render
 * thread holds at most that; a larger request would get a block of its
 * own, freed on return, as before.
 *
 * New blocks come from failalloc_malloc, so the out-of-memory tests reach
 * them; a reused one allocates nothing. Contents are undefined on take.
 */
#ifndef SCRATCH_H
#define SCRATCH_H

#include <stddef.h>

typedef enum {
    SCRATCH_VALUES, /* render: the grid's floats; grid.c: a band's */
    SCRATCH_GRADS,  /* render: their gradients (shaded tiles); grid.c: a band's */
    SCRATCH_PIXELS, /* render: the image */
    SCRATCH_ROWS,   /* pngenc: the filtered rows */
    SCRATCH_TOKENS, /* fastz: the tokens */
    SCRATCH_SLOTS
} scratch_slot;

/* The largest block a slot keeps between renders. */
#define SCRATCH_KEEP ((size_t)4 << 20)

/* A block of at least size bytes for this thread's slot (the kept one when
 * it is free and large enough), or NULL when out of memory. */
void *scratch_take(scratch_slot slot, size_t size);
/* Gives back a block scratch_take returned for the same slot (NULL: none). */
void scratch_give(scratch_slot slot, void *p);

/* The largest block a slot keeps from now on, process-wide (SCRATCH_KEEP
 * at start). Tests that fail allocations one at a time set 0, so every
 * render allocates its blocks as a thread's first render does; blocks
 * already kept stay until their thread exits. */
void scratch_set_keep(size_t bytes);

#endif
