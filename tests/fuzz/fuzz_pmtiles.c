/* fuzz_pmtiles.c: libFuzzer target for the PMTiles reader that `noisetile
 * merge` runs on its inputs (server/export/pmtiles.c). The input is written to a
 * file and read as an archive:
 * - pmtiles_reader_open refuses it with a message or opens it; opened, its
 *   metadata is a NUL-terminated string;
 * - pmtiles_reader_each returns 0, -1 with a message, or the callback's
 *   stop value, in bounded time (leaf loops, huge runs);
 * - every tile it reports has a length > 0 and lies inside the file's tile
 *   data section, and reading its bytes succeeds;
 * - for an input that pmtiles_write wrote (the seeds), the tiles read back
 *   are written again into the same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "export/pmtiles.h"

#define MAX_TILES 4096

typedef struct {
    pmtiles_reader *r;
    uint64_t file_size;
    size_t n;
    pmtiles_tile t[MAX_TILES];
    uint64_t last_id;
    int ascending;
} seen;

static int one(void *ctx, uint64_t id, uint64_t off, uint32_t len)
{
    seen *s = ctx;
    unsigned char buf[65536];
    FUZZ_ASSERT(len > 0);
    FUZZ_ASSERT(off < s->file_size && len <= s->file_size - off);
    if (len <= sizeof buf) {
        FUZZ_ASSERT(pmtiles_reader_read(s->r, off, len, buf) == 0);
        if (s->n > 0 && id <= s->last_id)
            s->ascending = 0;
        s->last_id = id;
        s->t[s->n] = (pmtiles_tile){id, 0, len, off, pmtiles_hash(buf, len)};
    } else {
        s->ascending = 0;
    }
    return ++s->n == MAX_TILES ? 1 : 0;
}

static int read_back(void *ctx, const pmtiles_tile *t, unsigned char *buf)
{
    return pmtiles_reader_read(ctx, t->src_offset, t->length, buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64], again[80];
    if (path[0] == '\0') {
        snprintf(path, sizeof path, "/tmp/fuzz_pmtiles.%d", (int)getpid());
        snprintf(again, sizeof again, "%s.again", path);
    }
    FILE *f = fopen(path, "wb");
    FUZZ_ASSERT(f != NULL);
    FUZZ_ASSERT(fwrite(data, 1, size, f) == size);
    fclose(f);

    char err[256] = "";
    pmtiles_reader *r = pmtiles_reader_open(path, err, sizeof err);
    if (r == NULL) {
        FUZZ_ASSERT(err[0] != '\0');
        return 0;
    }
    FUZZ_ASSERT(strlen(pmtiles_reader_metadata(r)) < 256u << 20);
    static seen s;
    memset(&s, 0, sizeof s);
    s.r = r;
    s.file_size = size;
    s.ascending = 1;
    err[0] = '\0';
    int rc = pmtiles_reader_each(r, one, &s, err, sizeof err);
    FUZZ_ASSERT(rc == 0 || rc == 1 || (rc == -1 && err[0] != '\0'));

    /* A whole, well-formed archive: writing its tiles again gives the same
     * file when the header is the writer's (the seeds are). */
    if (rc == 0 && s.n > 0 && s.ascending) {
        int zmin, zmax;
        pmtiles_reader_zooms(r, &zmin, &zmax);
        pmtiles_info info = {zmin, zmax, 0, 0, 0, 0, 0, 0, 0, pmtiles_reader_metadata(r)};
        /* Collapse the runs the walk expanded; ids stay ascending. */
        FUZZ_ASSERT(pmtiles_write(again, &info, s.t, s.n, read_back, r, err, sizeof err) == 0);
        pmtiles_reader *r2 = pmtiles_reader_open(again, err, sizeof err);
        FUZZ_ASSERT(r2 != NULL);
        FUZZ_ASSERT(strcmp(pmtiles_reader_metadata(r2), pmtiles_reader_metadata(r)) == 0);
        static seen s2;
        memset(&s2, 0, sizeof s2);
        s2.r = r2;
        FILE *g = fopen(again, "rb");
        fseek(g, 0, SEEK_END);
        s2.file_size = (uint64_t)ftell(g);
        fclose(g);
        s2.ascending = 1;
        FUZZ_ASSERT(pmtiles_reader_each(r2, one, &s2, err, sizeof err) == 0);
        FUZZ_ASSERT(s2.n == s.n);
        for (size_t i = 0; i < s.n; i++)
            FUZZ_ASSERT(s2.t[i].id == s.t[i].id && s2.t[i].length == s.t[i].length &&
                        s2.t[i].hash == s.t[i].hash);
        pmtiles_reader_close(r2);
        unlink(again);
    }
    pmtiles_reader_close(r);
    return 0;
}
