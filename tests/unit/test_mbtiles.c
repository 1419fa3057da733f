/* test_mbtiles.c: unit tests of the MBTiles writer (server/export/mbtiles.c): the
 * schema, metadata rows, XYZ rows stored as TMS rows, a tile put twice kept
 * once, batches committed, a file reopened, a file that is not MBTiles
 * refused. */
#include "export/mbtiles.h"
#include "test.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static int count_tile(void *ctx, int z, uint32_t x, uint32_t y, const unsigned char *d, size_t n)
{
    int *c = ctx;
    /* Tile (z, x, y) holds the bytes "z/x/y". */
    char want[64];
    snprintf(want, sizeof want, "%d/%u/%u", z, x, y);
    if (n == strlen(want) && memcmp(d, want, n) == 0)
        c[0]++;
    else
        c[1]++;
    return 0;
}

static long long scalar(const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void test_write_read(void)
{
    char err[256], buf[64];
    unlink(path);
    mbtiles *m = mbtiles_open(path, 1, err, sizeof err);
    CHECKF(m != NULL, "%s", err);
    if (m == NULL)
        return;
    CHECK(mbtiles_set_meta(m, "name", "test") == 0);
    CHECK(mbtiles_set_meta(m, "format", "png") == 0);
    CHECK(mbtiles_set_meta(m, "name", "renamed") == 0); /* replaces */
    int puts = 0;
    for (int z = 0; z <= 3; z++)
        for (uint32_t x = 0; x < (1u << z); x++)
            for (uint32_t y = 0; y < (1u << z); y++) {
                snprintf(buf, sizeof buf, "%d/%u/%u", z, x, y);
                CHECK(mbtiles_put(m, z, x, y, (const unsigned char *)buf, strlen(buf), err,
                                  sizeof err) == 0);
                if (++puts % 10 == 0)
                    CHECK(mbtiles_commit(m, err, sizeof err) == 0);
            }
    /* Again: kept as it was. */
    CHECK(mbtiles_put(m, 2, 1, 3, (const unsigned char *)"other", 5, err, sizeof err) == 1);
    CHECK(mbtiles_commit(m, err, sizeof err) == 0);
    CHECK(mbtiles_has(m, 3, 7, 0) == 1);
    CHECK(mbtiles_has(m, 4, 0, 0) == 0);
    mbtiles_close(m);

    /* TMS rows: XYZ (2, 1, 3) is row 2^2-1-3 = 0. */
    CHECK(scalar("SELECT count(*) FROM tiles") == 85);
    CHECK(scalar("SELECT length(tile_data) FROM tiles WHERE zoom_level=2 AND tile_column=1 AND tile_row=0") == 5);
    CHECK(scalar("SELECT count(*) FROM metadata WHERE name='name' AND value='renamed'") == 1);

    m = mbtiles_open(path, 0, err, sizeof err);
    CHECKF(m != NULL, "%s", err);
    if (m == NULL)
        return;
    CHECK(mbtiles_get_meta(m, "format", buf, sizeof buf) == 0 && strcmp(buf, "png") == 0);
    CHECK(mbtiles_get_meta(m, "nothing", buf, sizeof buf) == 1 && buf[0] == '\0');
    CHECK(mbtiles_get_meta(m, "name", buf, 3) == -1); /* "renamed" does not fit */
    int c[2] = {0, 0};
    CHECK(mbtiles_each(m, count_tile, c) == 0);
    CHECK(c[0] == 85 && c[1] == 0);
    unsigned char *data = NULL;
    size_t n = 0;
    CHECK(mbtiles_get(m, 3, 5, 6, &data, &n) == 0 && n == 5 && memcmp(data, "3/5/6", 5) == 0);
    free(data);
    CHECK(mbtiles_get(m, 5, 0, 0, &data, &n) == 1 && data == NULL);
    mbtiles_close(m);
    mbtiles_close(NULL);
}

static void test_not_mbtiles(void)
{
    char err[256];
    FILE *f = fopen(path, "wb");
    fputs("this is not a database, just text that is long enough to look like a header", f);
    fclose(f);
    CHECK(mbtiles_open(path, 1, err, sizeof err) == NULL);
    CHECK(mbtiles_open("/nonexistent-dir/x.mbtiles", 0, err, sizeof err) == NULL);
    unlink(path);
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/test_mbtiles.%d.mbtiles", (int)getpid());
    RUN(test_write_read);
    RUN(test_not_mbtiles);
    unlink(path);
    return t_done();
}
