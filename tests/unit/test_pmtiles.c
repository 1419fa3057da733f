/* test_pmtiles.c: unit tests of the PMTiles v3 writer and reader
 * (server/export/pmtiles.c): Hilbert tile ids against the spec's first values and
 * round trips, directories with leaves when the root would pass 16 KiB,
 * run-length entries and deduplicated contents, deterministic bytes, an
 * empty archive (no tiles) written and read back.
 *
 * `test_pmtiles write FILE N` writes the synthetic archive of N tiles that
 * tests/http/export.test.mjs reads back with the `pmtiles` npm package. */
#include "export/pmtiles.h"
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A 32-bit mixer (also in export.test.mjs). */
static uint32_t mix(uint32_t k)
{
    uint32_t h = k * 0x9E3779B1u;
    h ^= h >> 15;
    h *= 0x85EBCA77u;
    h ^= h >> 13;
    return h;
}

/* Synthetic archive, also computed by export.test.mjs: of ids 0..m-1, those
 * in [1000, 1300) and those with mix(id) % 4 != 0 are tiles; every 10th
 * id has one shared blob; ids in [1000, 1300) repeat the blob of their
 * group of 3 (runs); others are unique, 1..50 bytes long. */
static int synth_has(uint64_t id)
{
    return (id >= 1000 && id < 1300) || mix((uint32_t)id) % 4 != 0;
}

static size_t synth(uint64_t id, unsigned char *out)
{
    uint64_t key = id;
    if (id % 10 == 0)
        key = 7777777;
    else if (id >= 1000 && id < 1300)
        key = 1000000 + id / 3;
    size_t len = 1 + (size_t)(mix((uint32_t)key) % 50);
    for (size_t j = 0; j < len; j++)
        out[j] = (unsigned char)((key * 31 + j * 17) & 255);
    return len;
}

static int synth_read(void *ctx, const pmtiles_tile *t, unsigned char *buf)
{
    (void)ctx;
    unsigned char tmp[64];
    size_t len = synth(t->src_offset, tmp);
    if (len != t->length)
        return -1;
    memcpy(buf, tmp, len);
    return 0;
}

static pmtiles_tile *synth_tiles(size_t m, size_t *n)
{
    pmtiles_tile *t = malloc(m * sizeof *t);
    unsigned char tmp[64];
    *n = 0;
    for (size_t i = 0; i < m; i++) {
        if (!synth_has(i))
            continue;
        size_t len = synth(i, tmp);
        t[(*n)++] = (pmtiles_tile){i, 0, (uint32_t)len, i, pmtiles_hash(tmp, len)};
    }
    return t;
}

static char tmpdir[64];

static const char *tmp(const char *name)
{
    static char path[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", tmpdir, name);
    return path[k];
}

static const pmtiles_info info = {0, 9, 0, -180, -85, 180, 85, 0, 0, "{\"name\":\"synthetic\"}"};

static int write_synth(const char *path, size_t m)
{
    char err[256];
    size_t n;
    pmtiles_tile *t = synth_tiles(m, &n);
    int rc = pmtiles_write(path, &info, t, n, synth_read, NULL, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    free(t);
    return rc;
}

static void test_tile_ids(void)
{
    /* The spec's numbering: z0 is 0, z1 is 1..4 along the Hilbert curve. */
    CHECK(pmtiles_tile_id(0, 0, 0) == 0);
    CHECK(pmtiles_tile_id(1, 0, 0) == 1);
    CHECK(pmtiles_tile_id(1, 0, 1) == 2);
    CHECK(pmtiles_tile_id(1, 1, 1) == 3);
    CHECK(pmtiles_tile_id(1, 1, 0) == 4);
    CHECK(pmtiles_tile_id(2, 0, 0) == 5);
    CHECK(pmtiles_tile_id(3, 0, 0) == 21);
    for (int z = 0; z <= 12; z++)
        for (uint32_t k = 0; k < 300; k++) {
            uint32_t n = 1u << z, x = (k * 2654435761u) % n, y = (k * 40503u + 7) % n;
            uint64_t id = pmtiles_tile_id(z, x, y);
            int z2;
            uint32_t x2, y2;
            pmtiles_tile_zxy(id, &z2, &x2, &y2);
            CHECKF(z2 == z && x2 == x && y2 == y, "z%d %u,%u -> %llu -> z%d %u,%u", z, x, y,
                   (unsigned long long)id, z2, x2, y2);
        }
    /* Every id of zoom 4 is used exactly once. */
    unsigned char seen[256] = {0};
    for (uint32_t x = 0; x < 16; x++)
        for (uint32_t y = 0; y < 16; y++) {
            uint64_t id = pmtiles_tile_id(4, x, y) - 85;
            CHECK(id < 256);
            if (id < 256)
                seen[id]++;
        }
    for (int i = 0; i < 256; i++)
        CHECK(seen[i] == 1);
    /* Far zooms stay in range. */
    int z;
    uint32_t x, y;
    pmtiles_tile_zxy(pmtiles_tile_id(30, (1u << 30) - 1, 12345), &z, &x, &y);
    CHECK(z == 30 && x == (1u << 30) - 1 && y == 12345);
}

typedef struct {
    pmtiles_reader *r;
    uint64_t next;
    int bad;
} walk_ctx;

static int check_tile(void *vctx, uint64_t id, uint64_t off, uint32_t len)
{
    walk_ctx *c = vctx;
    unsigned char want[64], got[64];
    size_t n = synth(id, want);
    while (c->next < id && !synth_has(c->next))
        c->next++;
    if (id != c->next || len != n || pmtiles_reader_read(c->r, off, len, got) != 0 ||
        memcmp(got, want, n) != 0)
        c->bad++;
    c->next = id + 1;
    return 0;
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void check_archive(const char *path, size_t m, int want_leaves)
{
    size_t n = 0;
    for (size_t i = 0; i < m; i++)
        n += (size_t)synth_has(i);
    char err[256];
    unsigned char h[127];
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL && fread(h, 1, sizeof h, f) == sizeof h);
    if (f)
        fclose(f);
    uint64_t root_len = 0, leaf_len = 0, addressed = 0, entries = 0, contents = 0;
    for (int i = 7; i >= 0; i--) {
        root_len = root_len << 8 | h[16 + i];
        leaf_len = leaf_len << 8 | h[48 + i];
        addressed = addressed << 8 | h[72 + i];
        entries = entries << 8 | h[80 + i];
        contents = contents << 8 | h[88 + i];
    }
    CHECK(memcmp(h, "PMTiles\3", 8) == 0);
    CHECKF(127 + root_len <= 16384, "root %llu bytes", (unsigned long long)root_len);
    CHECKF((leaf_len > 0) == want_leaves, "leaf section %llu bytes", (unsigned long long)leaf_len);
    CHECK(addressed == n);
    CHECK(h[96] == 1 && h[97] == 2 && h[98] == 1 && h[99] == 2);
    /* Runs: [1000, 1300) has 100 groups of 3 less the multiples of 10 that
     * break them, so fewer entries than tiles; contents fewer still. */
    if (n > 1300) {
        CHECK(entries < n - 100);
        CHECK(contents < entries);
    }
    pmtiles_reader *r = pmtiles_reader_open(path, err, sizeof err);
    CHECKF(r != NULL, "%s", err);
    if (r == NULL)
        return;
    CHECK(strcmp(pmtiles_reader_metadata(r), "{\"name\":\"synthetic\"}") == 0);
    walk_ctx c = {r, 0, 0};
    CHECK(pmtiles_reader_each(r, check_tile, &c, err, sizeof err) == 0);
    CHECK(c.bad == 0);
    while (c.next < m && !synth_has(c.next))
        c.next++;
    CHECK(c.next == m);
    pmtiles_reader_close(r);
}

static void test_small_archive(void)
{
    const char *path = tmp("small.pmtiles");
    CHECK(write_synth(path, 2000) == 0);
    check_archive(path, 2000, 0);
    remove(path);
}

static void test_leaves_and_determinism(void)
{
    const char *a = tmp("leaves-a.pmtiles");
    const char *b = tmp("leaves-b.pmtiles");
    CHECK(write_synth(a, 60000) == 0);
    CHECK(write_synth(b, 60000) == 0);
    check_archive(a, 60000, 1);
    long na = file_size(a), nb = file_size(b);
    CHECK(na > 0 && na == nb);
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    for (int ca, cb; same && (ca = fgetc(fa)) != EOF;)
        same = (cb = fgetc(fb)) == ca;
    CHECK(same);
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    remove(a);
    remove(b);
}

static void test_reader_refuses_garbage(void)
{
    const char *path = tmp("garbage.pmtiles");
    char err[256];
    FILE *f = fopen(path, "wb");
    fputs("PMTiles\2 this is not version 3", f);
    fclose(f);
    CHECK(pmtiles_reader_open(path, err, sizeof err) == NULL);
    CHECK(strstr(err, "not a PMTiles v3 archive") != NULL);
    CHECK(pmtiles_reader_open(tmp("does-not-exist.pmtiles"), err, sizeof err) == NULL);
    remove(path);
}

static int count_tile(void *ctx, uint64_t id, uint64_t off, uint32_t len)
{
    (void)id;
    (void)off;
    (void)len;
    (*(int *)ctx)++;
    return 0;
}

/* No tiles (an empty shard): a valid archive whose root directory has no
 * entries, read back as no tiles and its metadata. */
static void test_empty_archive(void)
{
    const char *path = tmp("empty.pmtiles");
    char err[256];
    CHECK(pmtiles_write(path, &info, NULL, 0, synth_read, NULL, err, sizeof err) == 0);
    pmtiles_reader *r = pmtiles_reader_open(path, err, sizeof err);
    CHECK(r != NULL);
    if (r != NULL) {
        int n = 0;
        CHECK(pmtiles_reader_each(r, count_tile, &n, err, sizeof err) == 0);
        CHECK(n == 0);
        CHECK(strcmp(pmtiles_reader_metadata(r), info.metadata_json) == 0);
        pmtiles_reader_close(r);
    }
    remove(path);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "write") == 0)
        return write_synth(argv[2], (size_t)strtoull(argv[3], NULL, 10)) == 0 ? 0 : 1;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_pmtiles.XXXXXX");
    if (mkdtemp(tmpdir) == NULL)
        return 1;
    RUN(test_tile_ids);
    RUN(test_small_archive);
    RUN(test_leaves_and_determinism);
    RUN(test_reader_refuses_garbage);
    RUN(test_empty_archive);
    rmdir(tmpdir);
    return t_done();
}
