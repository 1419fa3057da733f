/* spool.h: the spool of a PMTiles export and the tile index an archive is
 * written from. A PMTiles archive is written whole at the end, so an export
 * first appends its tiles to OUTPUT.part (a head line naming the export,
 * then records: id, 8 bytes LE; length, 4 bytes LE; the bytes); a run
 * interrupted and started again keeps the records there. At the end the
 * spool (or, in merge, the shard archives) is indexed into pmtiles_tile
 * entries and the archive is written from them. */
#ifndef EXPORT_SPOOL_H
#define EXPORT_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "export/plan.h"
#include "export/pmtiles.h"

typedef struct {
    FILE *f;
    char path[4200];
    size_t head_len;
    unsigned batch;
} spool;

/* Opens (creating it with head, or resuming) the spool at path for the
 * tiles of plan p's shard, locked (flock) until closed: a spool another
 * process holds is refused, as is one whose head differs. On resume, counts
 * the records that are the first tiles of the shard's order in *done and
 * their bytes in *bytes; the spool is cut after them (a record cut short by
 * a kill, or anything else, goes). Returns 0, or -1 with err. */
int spool_open(spool *s, const char *path, const char *head, const plan *p, uint64_t *done,
               uint64_t *bytes, char *err, size_t err_size);

/* Appends a record. Returns 0, or -1 with err. */
int spool_put(spool *s, uint64_t id, const unsigned char *data, size_t size, char *err,
              size_t err_size);

/* Every record of the spool as a tile (src 0, its offset, length, hash),
 * into a malloc()ed *out in spool order. Returns 0 or -1. */
int spool_index(spool *s, pmtiles_tile **out, size_t *n_out);

/* Memory per tile, at most, of writing an archive: the index here (a
 * 32-byte pmtiles_tile, in an array that doubles: up to 64) and the writer's
 * entries (24), list of distinct tiles (8) and content table (32-byte
 * slots, at least twice the tiles, rounded up to a power of two: up to
 * 128). For estimates. */
#define SPOOL_INDEX_BYTES 224

/* Makes room for one more element in a growing array of n elements,
 * doubling *cap (from 4096) when it is full. Returns the array (moved or
 * not), or NULL out of memory or when the size would overflow: then arr is
 * unchanged and still the caller's. */
void *spool_grow(void *arr, size_t *cap, size_t n, size_t elem);

/* Sorts tiles, drops exact duplicates (the same id with the same bytes;
 * different bytes is an error) and writes the archive at path with the
 * metadata meta_text (which gives bounds, center and zooms); tile bytes are
 * read from files[tile.src]. Returns 0, or -1 with err. */
int spool_write_archive(const char *path, const char *meta_text, pmtiles_tile *tiles, size_t n,
                        FILE **files, char *err, size_t err_size);

#endif
