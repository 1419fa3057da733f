/* pmtiles.h: PMTiles v3 archives (github.com/protomaps/PMTiles, spec/v3):
 * Hilbert tile ids, a writer (clustered, deduplicated, run-length entries,
 * gzip directories, leaf directories when the root would pass 16 KiB) and a
 * reader that walks every tile entry (for `noisetile merge` and tests). */
#ifndef PMTILES_H
#define PMTILES_H

#include <stddef.h>
#include <stdint.h>

/* The tile id of (z, x, y): the tiles of zooms 0..z-1 (4^0 + ... + 4^(z-1))
 * plus the position of (x, y) on the order-z Hilbert curve. z 0..31,
 * x, y < 2^z (asserted). */
uint64_t pmtiles_tile_id(int z, uint32_t x, uint32_t y);

/* The inverse: the zoom and coordinates of a tile id. */
void pmtiles_tile_zxy(uint64_t id, int *z, uint32_t *x, uint32_t *y);

/* What the header says besides the directories (PNG tiles, uncompressed;
 * directories and metadata gzip). */
typedef struct {
    int min_zoom, max_zoom, center_zoom;
    double min_lon, min_lat, max_lon, max_lat; /* degrees */
    double center_lon, center_lat;
    const char *metadata_json; /* written gzip-compressed */
} pmtiles_info;

/* One tile handed to the writer. src and src_offset say where its bytes are,
 * for the caller's read function; hash is any 64-bit hash of the bytes (equal
 * bytes, equal hash), used to find repeats, which are then compared byte by
 * byte before they share data. */
typedef struct {
    uint64_t id;
    uint32_t src;
    uint32_t length; /* > 0 */
    uint64_t src_offset;
    uint64_t hash;
} pmtiles_tile;

/* Reads the tile's length bytes into buf. Returns 0, or -1 (the write fails). */
typedef int (*pmtiles_read_fn)(void *ctx, const pmtiles_tile *t, unsigned char *buf);

/* Writes the archive of n_tiles tiles (ascending id, no id twice; none
 * gives an empty archive, a root directory of no entries) to path: to
 * path + ".tmp" first, renamed over path when complete, so path is either
 * the old file or the whole new archive. The output depends
 * only on the tiles' ids and bytes and on info: the same tiles give the same
 * bytes. Returns 0; or -1 with a message in err (the temporary file removed). */
int pmtiles_write(const char *path, const pmtiles_info *info, const pmtiles_tile *tiles,
                  size_t n_tiles, pmtiles_read_fn read, void *ctx, char *err, size_t err_size);

/* FNV-1a 64 of a buffer, the hash the exporter gives pmtiles_write. */
uint64_t pmtiles_hash(const unsigned char *data, size_t size);

/* ---- reading ---- */

typedef struct pmtiles_reader pmtiles_reader;

/* Opens an archive this writer could have written (v3, gzip or
 * uncompressed directories). Returns NULL with a message in err. Close
 * with pmtiles_reader_close (NULL does nothing). */
pmtiles_reader *pmtiles_reader_open(const char *path, char *err, size_t err_size);
void pmtiles_reader_close(pmtiles_reader *r);

/* The decompressed JSON metadata (owned by the reader), and the header's
 * zoom range. */
const char *pmtiles_reader_metadata(const pmtiles_reader *r);
void pmtiles_reader_zooms(const pmtiles_reader *r, int *min_zoom, int *max_zoom);

/* Calls fn for every addressed tile in directory order (ascending ids in a
 * well-formed archive; a run of n repeated tiles gives n calls with the same
 * data offset): its id, and where its bytes are in the file (checked to lie
 * in the tile data section). Stops at the first nonzero return of fn and
 * returns it (fn should return a positive value to stop); returns 0 after
 * the last tile, -1 with a message in err for a malformed archive
 * (sections past the end of the file, directories nested deeper than 4 or
 * more than 2^20 of them, entries out of their section). */
typedef int (*pmtiles_each_fn)(void *ctx, uint64_t id, uint64_t file_offset, uint32_t length);
int pmtiles_reader_each(pmtiles_reader *r, pmtiles_each_fn fn, void *ctx, char *err,
                        size_t err_size);

/* Reads length bytes at file_offset. Returns 0 or -1. */
int pmtiles_reader_read(pmtiles_reader *r, uint64_t file_offset, uint32_t length,
                        unsigned char *buf);

#endif
