/* test_scratch.c: a thread's reusable render buffers (server/base/scratch.h):
 * a slot's block is reused by the thread's next take, a busy slot or a
 * block over SCRATCH_KEEP gets a block of its own, a thread's blocks go
 * when it exits (LeakSanitizer checks at exit), out of memory is NULL; and
 * tiles rendered one after another on one thread, whatever came before
 * them, are the bytes of the same tiles rendered on a fresh thread. */
#include "base/failalloc.h"
#include "noise.h"
#include "tiles/render.h"
#include "base/scratch.h"
#include "test.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void test_reuse(void)
{
    unsigned char *a = scratch_take(SCRATCH_PIXELS, 100000);
    CHECK(a != NULL);
    memset(a, 1, 100000);
    /* busy: another block */
    unsigned char *b = scratch_take(SCRATCH_PIXELS, 1000);
    CHECK(b != NULL && b != a);
    memset(b, 2, 1000);
    scratch_give(SCRATCH_PIXELS, b);
    scratch_give(SCRATCH_PIXELS, a);
    /* given back: the same block for a size it holds, a larger one replaces it */
    unsigned char *c = scratch_take(SCRATCH_PIXELS, 50000);
    CHECK(c == a);
    scratch_give(SCRATCH_PIXELS, c);
    unsigned char *d = scratch_take(SCRATCH_PIXELS, 300000);
    CHECK(d != NULL);
    memset(d, 3, 300000);
    scratch_give(SCRATCH_PIXELS, d);
    CHECK(scratch_take(SCRATCH_PIXELS, 300000) == d);
    scratch_give(SCRATCH_PIXELS, d);
    /* slots are separate */
    unsigned char *e = scratch_take(SCRATCH_ROWS, 1000);
    CHECK(e != NULL && e != d);
    scratch_give(SCRATCH_ROWS, e);
    /* over SCRATCH_KEEP: a block of its own each time, not kept */
    unsigned char *f = scratch_take(SCRATCH_VALUES, SCRATCH_KEEP + 1);
    CHECK(f != NULL);
    memset(f, 4, SCRATCH_KEEP + 1);
    scratch_give(SCRATCH_VALUES, f);
    unsigned char *g = scratch_take(SCRATCH_VALUES, 10);
    CHECK(g != NULL);
    scratch_give(SCRATCH_VALUES, g);
    scratch_give(SCRATCH_VALUES, NULL);
}

static void test_out_of_memory(void)
{
    /* a new block that cannot be had is NULL, and the slot stays usable */
    failalloc_arm(1);
    void *p = scratch_take(SCRATCH_TOKENS, (size_t)1 << 20);
    failalloc_arm(0);
    CHECK(p == NULL);
    p = scratch_take(SCRATCH_TOKENS, (size_t)1 << 20);
    CHECK(p != NULL);
    memset(p, 5, (size_t)1 << 20);
    scratch_give(SCRATCH_TOKENS, p);
}

/* ---- tiles: one thread's sequence against fresh threads ---- */

typedef struct {
    noise_spec spec;
    int z, px;
    long long x, y;
    render_opts opts;
} job;

static const job *jobs;
static int n_jobs;

typedef struct {
    const job *j;
    unsigned char *png;
    size_t size;
    int rc;
} result;

static void run_job(result *r)
{
    r->rc = render_tile_png(&r->j->spec, r->j->z, r->j->x, r->j->y, r->j->px, &r->j->opts, &r->png, &r->size);
}

static void *one_fresh(void *arg)
{
    run_job(arg);
    return NULL;
}

static void *all_in_one(void *arg)
{
    result *rs = arg;
    for (int i = 0; i < n_jobs; i++)
        run_job(&rs[i]);
    return NULL;
}

static void test_tiles_same_bytes(void)
{
    enum { N = 8 };
    static job js[N];
    noise_kind kinds[N] = { NOISE_PERLIN, NOISE_SIMPLEX, NOISE_VALUE, NOISE_PERLIN,
                            NOISE_CELLULAR, NOISE_PERLIN, NOISE_IMPROVED, NOISE_PERLIN };
    for (int i = 0; i < N; i++) {
        noise_spec_default(&js[i].spec, kinds[i], (uint32_t)(i + 1));
        js[i].spec.octaves = 1 + i % 6;
        js[i].z = i % 5;
        js[i].x = i - 3;
        js[i].y = 2 * i - 5;
        js[i].px = i == 3 || i == 6 ? 512 : 256; /* scale 2 tiles between the others */
        js[i].opts = (render_opts){ .palette = (render_palette)(i % RENDER_PALETTE_COUNT), .shade = i % 3 == 1, .zero = i % 4 == 2 };
    }
    jobs = js;
    n_jobs = N;
    result seq[N], fresh[N];
    for (int i = 0; i < N; i++) {
        seq[i] = (result){ &js[i], NULL, 0, -1 };
        fresh[i] = (result){ &js[i], NULL, 0, -1 };
    }
    /* twice through on one thread (the second pass reuses every slot), and
     * each tile on a thread of its own */
    result again[N];
    memcpy(again, seq, sizeof seq);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, all_in_one, seq) == 0);
    pthread_join(t, NULL);
    all_in_one(again); /* this thread: the first pass takes its blocks, the second reuses them */
    for (int i = 0; i < N; i++) {
        free(again[i].png);
        again[i].png = NULL;
    }
    all_in_one(again);
    for (int i = 0; i < N; i++) {
        CHECK(pthread_create(&t, NULL, one_fresh, &fresh[i]) == 0);
        pthread_join(t, NULL);
    }
    int same = 0;
    for (int i = 0; i < N; i++) {
        CHECKF(seq[i].rc == 0 && fresh[i].rc == 0 && again[i].rc == 0, "tile %d: %d %d %d", i, seq[i].rc,
               fresh[i].rc, again[i].rc);
        if (seq[i].rc || fresh[i].rc || again[i].rc)
            continue;
        int ok = seq[i].size == fresh[i].size && memcmp(seq[i].png, fresh[i].png, seq[i].size) == 0 &&
                 again[i].size == fresh[i].size && memcmp(again[i].png, fresh[i].png, again[i].size) == 0;
        CHECKF(ok, "tile %d: %zu / %zu / %zu bytes differ between one thread's sequence and a fresh thread", i,
               seq[i].size, again[i].size, fresh[i].size);
        same += ok;
    }
    printf("# %d of %d tiles the same bytes in sequence and fresh\n", same, N);
    for (int i = 0; i < N; i++) {
        free(seq[i].png);
        free(fresh[i].png);
        free(again[i].png);
    }
}

int main(void)
{
    RUN(test_reuse);
    RUN(test_out_of_memory);
    RUN(test_tiles_same_bytes);
    return t_done();
}
