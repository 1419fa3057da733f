/* sink.h: where an export's tiles go: an MBTiles file, a PMTiles archive
 * (through its spool, spool.h) or a z/x/y directory with metadata.json.
 * Opening finds what an interrupted run already wrote, so the same command
 * resumes; closing commits, or writes the archive from the spool. Also the
 * pieces merge shares: the MBTiles metadata rows, directories, files. */
#ifndef EXPORT_SINK_H
#define EXPORT_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "export/mbtiles.h"
#include "export/plan.h"
#include "export/spool.h"

/* MBTiles tiles per transaction (export and merge). */
#define SINK_MBTILES_BATCH 1000

typedef enum { SINK_NONE = 0, SINK_MBTILES, SINK_PMTILES, SINK_DIR } sink_format;

/* "mbtiles", "pmtiles" or "dir". */
const char *sink_format_name(sink_format f);
/* The format a path names: .mbtiles, .pmtiles, else a directory. */
sink_format sink_format_of(const char *path);

typedef struct {
    sink_format format;
    const char *path;
    const plan *p;
    mbtiles *mb;
    spool spool;         /* PMTiles: spool.f NULL until opened */
    char last_dir[4300]; /* directory export: the column made last */
    unsigned batch;
    uint64_t bytes;
    int force;   /* --force: an existing output of something else is replaced */
    int lock_fd; /* the output's lock (-1: none) */
} sink;

/* A sink of format for plan p at path (nothing opened yet). */
void sink_init(sink *s, sink_format format, const char *path, const plan *p);

/* Opens the output, taking its lock (flock, held until sink_close: a
 * second export into the same output is refused); an existing output is
 * resumed when it holds this shard of this export, replaced when it holds
 * something else and s->force, else refused. Tiles are written in the
 * export's order, so what an interrupted run left is a first stretch of the
 * shard's order: *done receives its length. shard_tag ("" or "; shard
 * K/N") is part of what a resumed spool must match. Returns 0, or -1 with
 * err (sink_close then releases what was opened). */
int sink_open(sink *s, const char *shard_tag, uint64_t *done, char *err, size_t err_size);

/* Writes one tile. Returns 0, or -1 with err. */
int sink_put(sink *s, uint64_t id, const unsigned char *png, size_t size, char *err,
             size_t err_size);

/* Closes the output: commits the last MBTiles batch, flushes the spool; with
 * finish (the run is complete and went well) writes the PMTiles archive from
 * the spool and removes the spool. Returns rc, or -1 with err when rc was 0
 * and closing failed. */
int sink_close(sink *s, int finish, int rc, char *err, size_t err_size);

/* The spool's path (PMTiles) or the output's. */
const char *sink_progress_path(const sink *s);

/* 1 if path is already this export's finished PMTiles archive (the same
 * metadata, n tiles), so running the command again has nothing to do. */
int sink_pmtiles_complete(const char *path, const plan *p, uint64_t n);

/* ---- shared with merge ---- */

/* The MBTiles metadata row names, NULL-terminated, and their values for a
 * plan (in that order). */
#define SINK_META_VALUE (GRAPHS_TEXT_MAX + 3200)
extern const char *const sink_mb_meta_names[];
void sink_mb_meta_values(const plan *p, char values[][SINK_META_VALUE]);
/* Writes the metadata rows in one transaction (the same way in export and
 * merge, so their files come out the same). Returns 0 or -1. */
int sink_mb_write_meta(mbtiles *mb, char values[][SINK_META_VALUE]);

/* Removes the files of a directory export under root: metadata.json and
 * the z/x/y.EXT files with their z and x directories (other files and root
 * stay). Returns 0. */
int sink_remove_tiles(const char *root);

/* 1 when a name is all digits (a zoom or column directory), else 0. */
int sink_all_digits(const char *name);
/* mkdir -p. path is modified and restored. Returns 0 or -1 (errno). */
int sink_mkdirs(char *path);
/* Writes a whole file through path.tmp and a rename. Returns 0 or -1. */
int sink_write_file(const char *path, const void *data, size_t size);

#endif
