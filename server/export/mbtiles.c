/* mbtiles.c: MBTiles 1.3 through SQLite (see mbtiles.h). One tiles table
 * with a unique index (the spec's schema), a rollback journal so a killed
 * writer leaves the last committed batch. */
#include "export/mbtiles.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct mbtiles {
    sqlite3 *db;
    sqlite3_stmt *put, *get;
    int in_batch;
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS metadata (name TEXT NOT NULL, value TEXT);"
    "CREATE UNIQUE INDEX IF NOT EXISTS metadata_name ON metadata (name);"
    "CREATE TABLE IF NOT EXISTS tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL,"
    " tile_row INTEGER NOT NULL, tile_data BLOB NOT NULL);"
    "CREATE UNIQUE INDEX IF NOT EXISTS tile_index ON tiles (zoom_level, tile_column, tile_row);";

mbtiles *mbtiles_open(const char *path, int create, char *err, size_t err_size)
{
    mbtiles *m = calloc(1, sizeof *m);
    if (m == NULL) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    /* An empty file (made by the exporter to hold its lock) has no schema yet. */
    struct stat st;
    int exists = stat(path, &st) == 0 && st.st_size > 0;
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path, &m->db, flags, NULL) != SQLITE_OK) {
        snprintf(err, err_size, "%s: %s", path, m->db ? sqlite3_errmsg(m->db) : "cannot open");
        goto fail;
    }
    sqlite3_busy_timeout(m->db, 5000);
    if (sqlite3_exec(m->db, "PRAGMA synchronous=NORMAL;", NULL, NULL, NULL) != SQLITE_OK ||
        (!exists && sqlite3_exec(m->db, schema, NULL, NULL, NULL) != SQLITE_OK)) {
        snprintf(err, err_size, "%s: %s", path, sqlite3_errmsg(m->db));
        goto fail;
    }
    if (sqlite3_prepare_v2(m->db,
                           "INSERT OR IGNORE INTO tiles (zoom_level, tile_column, tile_row, "
                           "tile_data) VALUES (?, ?, ?, ?)",
                           -1, &m->put, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(m->db,
                           "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? "
                           "AND tile_row = ?",
                           -1, &m->get, NULL) != SQLITE_OK) {
        snprintf(err, err_size, "%s: not an MBTiles file (%s)", path, sqlite3_errmsg(m->db));
        goto fail;
    }
    return m;
fail:
    mbtiles_close(m);
    return NULL;
}

void mbtiles_close(mbtiles *m)
{
    if (m == NULL)
        return;
    char err[256];
    mbtiles_commit(m, err, sizeof err);
    sqlite3_finalize(m->put);
    sqlite3_finalize(m->get);
    sqlite3_close(m->db);
    free(m);
}

int mbtiles_get_meta(mbtiles *m, const char *name, char *buf, size_t buf_size)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(m->db, "SELECT value FROM metadata WHERE name = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_DONE) {
        rc = 1;
    } else if (step == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        size_t n = v ? strlen((const char *)v) : 0;
        if (n < buf_size) {
            if (n > 0)
                memcpy(buf, v, n);
            buf[n] = '\0';
            rc = 0;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

int mbtiles_set_meta(mbtiles *m, const char *name, const char *value)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(m->db, "INSERT OR REPLACE INTO metadata (name, value) VALUES (?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(st);
    return rc;
}

int mbtiles_begin(mbtiles *m, char *err, size_t err_size)
{
    if (m->in_batch)
        return 0;
    if (sqlite3_exec(m->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, err_size, "begin: %s", sqlite3_errmsg(m->db));
        return -1;
    }
    m->in_batch = 1;
    return 0;
}

int mbtiles_has(mbtiles *m, int z, uint32_t x, uint32_t y)
{
    sqlite3_reset(m->get);
    sqlite3_bind_int(m->get, 1, z);
    sqlite3_bind_int64(m->get, 2, x);
    sqlite3_bind_int64(m->get, 3, (sqlite3_int64)(((uint64_t)1 << z) - 1 - y));
    int step = sqlite3_step(m->get);
    sqlite3_reset(m->get);
    return step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : -1;
}

int mbtiles_put(mbtiles *m, int z, uint32_t x, uint32_t y, const unsigned char *data,
                size_t size, char *err, size_t err_size)
{
    if (mbtiles_begin(m, err, err_size) != 0)
        return -1;
    uint32_t row = (uint32_t)(((uint64_t)1 << z) - 1 - y);
    sqlite3_reset(m->put);
    sqlite3_bind_int(m->put, 1, z);
    sqlite3_bind_int64(m->put, 2, x);
    sqlite3_bind_int64(m->put, 3, row);
    sqlite3_bind_blob(m->put, 4, data, (int)size, SQLITE_STATIC);
    if (sqlite3_step(m->put) != SQLITE_DONE) {
        snprintf(err, err_size, "insert: %s", sqlite3_errmsg(m->db));
        return -1;
    }
    return sqlite3_changes(m->db) == 0 ? 1 : 0;
}

int mbtiles_commit(mbtiles *m, char *err, size_t err_size)
{
    if (!m->in_batch)
        return 0;
    m->in_batch = 0;
    sqlite3_reset(m->put);
    if (sqlite3_exec(m->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, err_size, "commit: %s", sqlite3_errmsg(m->db));
        return -1;
    }
    return 0;
}

int mbtiles_each(mbtiles *m, mbtiles_each_fn fn, void *ctx)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(m->db,
                           "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles", -1,
                           &st, NULL) != SQLITE_OK)
        return -1;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int z = sqlite3_column_int(st, 0);
        sqlite3_int64 x = sqlite3_column_int64(st, 1), row = sqlite3_column_int64(st, 2);
        if (z < 0 || z > 30 || x < 0 || row < 0 || x >> z != 0 || row >> z != 0) {
            rc = -1;
            break;
        }
        const unsigned char *data = sqlite3_column_blob(st, 3);
        size_t size = (size_t)sqlite3_column_bytes(st, 3);
        rc = fn(ctx, z, (uint32_t)x, (uint32_t)((((sqlite3_int64)1 << z) - 1) - row), data, size);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    sqlite3_finalize(st);
    return rc;
}

int mbtiles_get(mbtiles *m, int z, uint32_t x, uint32_t y, unsigned char **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    sqlite3_reset(m->get);
    sqlite3_bind_int(m->get, 1, z);
    sqlite3_bind_int64(m->get, 2, x);
    sqlite3_bind_int64(m->get, 3, (sqlite3_int64)(((uint64_t)1 << z) - 1 - y));
    int step = sqlite3_step(m->get);
    if (step == SQLITE_DONE)
        return 1;
    if (step != SQLITE_ROW)
        return -1;
    size_t n = (size_t)sqlite3_column_bytes(m->get, 0);
    *out = malloc(n ? n : 1);
    if (*out == NULL)
        return -1;
    if (n > 0)
        memcpy(*out, sqlite3_column_blob(m->get, 0), n);
    *size = n;
    sqlite3_reset(m->get);
    return 0;
}
