/* mbtiles.h: MBTiles 1.3 files through SQLite: the metadata table, the
 * tiles table in TMS row order, batched transactions. */
#ifndef MBTILES_H
#define MBTILES_H

#include <stddef.h>
#include <stdint.h>

typedef struct mbtiles mbtiles;

/* Opens path; with create, makes the file and its schema when it does not
 * exist (an existing file is opened as it is). Returns NULL with a message
 * in err (not an MBTiles file, cannot create). Close with mbtiles_close
 * (NULL does nothing), which commits an open batch. */
mbtiles *mbtiles_open(const char *path, int create, char *err, size_t err_size);
void mbtiles_close(mbtiles *m);

/* The value of metadata row name into buf. Returns 0; 1 when there is no
 * such row (buf ""); -1 on an error or when buf is too small. */
int mbtiles_get_meta(mbtiles *m, const char *name, char *buf, size_t buf_size);
/* Sets (inserts or replaces) a metadata row. Returns 0 or -1. */
int mbtiles_set_meta(mbtiles *m, const char *name, const char *value);

/* Stores tile (z, x, y) with y in XYZ order (0 at the top); the file holds
 * the TMS row 2^z-1-y. Inside a batch: the first put begins a transaction,
 * mbtiles_commit ends it. Returns 0; 1 if the tile is already there (left
 * as it is); -1 on an error with the message in err. */
int mbtiles_put(mbtiles *m, int z, uint32_t x, uint32_t y, const unsigned char *data,
                size_t size, char *err, size_t err_size);
/* Begins a batch explicitly (for metadata rows written together).
 * Returns 0 or -1. */
int mbtiles_begin(mbtiles *m, char *err, size_t err_size);
/* 1 if tile (z, x, y) (XYZ y) is there, 0 if not, -1 on an error. */
int mbtiles_has(mbtiles *m, int z, uint32_t x, uint32_t y);
/* Commits the open batch, if any. Returns 0 or -1. */
int mbtiles_commit(mbtiles *m, char *err, size_t err_size);

/* Calls fn for every tile (y in XYZ order), in no particular order; stops at
 * the first nonzero return of fn and returns it; 0 after the last tile, -1
 * on a read error. */
typedef int (*mbtiles_each_fn)(void *ctx, int z, uint32_t x, uint32_t y,
                               const unsigned char *data, size_t size);
int mbtiles_each(mbtiles *m, mbtiles_each_fn fn, void *ctx);

/* The bytes of tile (z, x, y) (y in XYZ order) into a malloc()ed *out
 * (caller frees). Returns 0; 1 if absent; -1 on an error. */
int mbtiles_get(mbtiles *m, int z, uint32_t x, uint32_t y, unsigned char **out, size_t *size);

#endif
