/* pmtiles.c: PMTiles v3 writer and reader (see pmtiles.h).
 *
 * Layout written: header (127 bytes) | root directory | JSON metadata |
 * leaf directories | tile data, all directories and the metadata gzip'd.
 * Tile data is clustered: blobs in tile-id order, a repeated tile pointing
 * back at the first copy, consecutive ids with the same bytes one entry
 * with a run length. The root holds every entry when it fits in 16 KiB with
 * the header; otherwise it holds one entry per leaf directory, leaves of
 * 4096 entries, doubled until the root fits. */
#include "export/pmtiles.h"

#include "base/hash.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define HEADER_BYTES 127
#define ROOT_LIMIT 16384 /* header + root must fit: clients fetch this much first */
#define LEAF_START 4096
#define MAX_DEPTH 4

/* ---- tile ids ---- */

/* One step of the Hilbert curve's rotation within a square of side s. The
 * coordinates may carry higher bits; only the bits below s matter later. */
static void rotate(uint32_t s, uint32_t *x, uint32_t *y, uint32_t rx, uint32_t ry)
{
    if (ry == 0) {
        if (rx != 0) {
            *x = s - 1 - *x;
            *y = s - 1 - *y;
        }
        uint32_t t = *x;
        *x = *y;
        *y = t;
    }
}

uint64_t pmtiles_tile_id(int z, uint32_t x, uint32_t y)
{
    assert(z >= 0 && z <= 31);
    assert(z == 31 || (x < (1u << z) && y < (1u << z)));
    uint64_t id = (((uint64_t)1 << (2 * z)) - 1) / 3;
    for (uint32_t s = z > 0 ? 1u << (z - 1) : 0; s > 0; s >>= 1) {
        uint32_t rx = (x & s) != 0, ry = (y & s) != 0;
        id += (uint64_t)s * s * ((3 * rx) ^ ry);
        rotate(s, &x, &y, rx, ry);
    }
    return id;
}

void pmtiles_tile_zxy(uint64_t id, int *out_z, uint32_t *out_x, uint32_t *out_y)
{
    int z = 0;
    uint64_t acc = 0;
    while (z < 31 && acc + ((uint64_t)1 << (2 * z)) <= id) {
        acc += (uint64_t)1 << (2 * z);
        z++;
    }
    uint64_t d = id - acc;
    uint32_t x = 0, y = 0;
    for (uint64_t s = 1; s < ((uint64_t)1 << z); s <<= 1) {
        uint32_t rx = (uint32_t)(1 & (d / 2));
        uint32_t ry = (uint32_t)(1 & (d ^ rx));
        rotate((uint32_t)s, &x, &y, rx, ry);
        x += (uint32_t)s * rx;
        y += (uint32_t)s * ry;
        d /= 4;
    }
    *out_z = z;
    *out_x = x;
    *out_y = y;
}

uint64_t pmtiles_hash(const unsigned char *data, size_t size)
{
    return hash_fnv1a(data, size);
}

/* ---- byte buffers, varints, gzip ---- */

typedef struct {
    unsigned char *p;
    size_t n, cap;
} buf;

/* Room for at least size bytes after the first b->n. */
static int buf_reserve(buf *b, size_t size)
{
    if (b->n + size > b->cap || b->p == NULL) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + size)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (p == NULL)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    return 0;
}

static int buf_put(buf *b, const void *data, size_t size)
{
    if (buf_reserve(b, size) != 0)
        return -1;
    if (size > 0)
        memcpy(b->p + b->n, data, size);
    b->n += size;
    return 0;
}

static int buf_varint(buf *b, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0;
    do {
        tmp[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v != 0)
            tmp[n] |= 0x80;
        n++;
    } while (v != 0);
    return buf_put(b, tmp, n);
}

/* gzip with a fixed header (zlib writes mtime 0), so equal input gives
 * equal output. */
static int gzip(const unsigned char *in, size_t in_size, buf *out)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (deflateInit2(&s, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t bound = deflateBound(&s, (uLong)in_size) + 32;
    out->n = 0;
    if (buf_reserve(out, bound) != 0) {
        deflateEnd(&s);
        return -1;
    }
    s.next_in = (unsigned char *)in;
    s.avail_in = (uInt)in_size;
    s.next_out = out->p;
    s.avail_out = (uInt)out->cap;
    int rc = deflate(&s, Z_FINISH);
    out->n = s.total_out;
    deflateEnd(&s);
    return rc == Z_STREAM_END ? 0 : -1;
}

#define GUNZIP_LIMIT (256u << 20)

static int gunzip(const unsigned char *in, size_t in_size, buf *out)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, 15 + 16) != Z_OK)
        return -1;
    out->n = 0;
    s.next_in = (unsigned char *)in;
    s.avail_in = (uInt)in_size;
    int rc;
    do {
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 4096;
            unsigned char *p = cap > GUNZIP_LIMIT ? NULL : realloc(out->p, cap);
            if (p == NULL) {
                inflateEnd(&s);
                return -1;
            }
            out->p = p;
            out->cap = cap;
        }
        s.next_out = out->p + out->n;
        s.avail_out = (uInt)(out->cap - out->n);
        rc = inflate(&s, Z_NO_FLUSH);
        out->n = out->cap - s.avail_out;
    } while (rc == Z_OK);
    inflateEnd(&s);
    return rc == Z_STREAM_END ? 0 : -1;
}

/* ---- directories ---- */

typedef struct {
    uint64_t id, offset;
    uint32_t length, run; /* run 0: a leaf directory */
} entry;

/* The spec's serialisation: count, delta ids, run lengths, lengths, offsets
 * (0 when contiguous with the previous entry, else offset + 1), then gzip. */
static int dir_encode(const entry *e, size_t n, buf *scratch, buf *out)
{
    scratch->n = 0;
    int rc = buf_varint(scratch, n);
    uint64_t last = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = buf_varint(scratch, e[i].id - last);
        last = e[i].id;
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = buf_varint(scratch, e[i].run);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = buf_varint(scratch, e[i].length);
    for (size_t i = 0; i < n && rc == 0; i++) {
        int contiguous = i > 0 && e[i].offset == e[i - 1].offset + e[i - 1].length;
        rc = buf_varint(scratch, contiguous ? 0 : e[i].offset + 1);
    }
    return rc == 0 ? gzip(scratch->p, scratch->n, out) : -1;
}

/* Root (and leaves when needed) for the entries. */
static int dirs_build(const entry *e, size_t n, buf *root, buf *leaves)
{
    buf scratch = {0}, one = {0};
    int rc = dir_encode(e, n, &scratch, root);
    leaves->n = 0;
    for (size_t leaf = LEAF_START; rc == 0 && HEADER_BYTES + root->n > ROOT_LIMIT; leaf *= 2) {
        size_t n_leaves = (n + leaf - 1) / leaf;
        entry *r = malloc(n_leaves * sizeof *r);
        if (r == NULL) {
            rc = -1;
            break;
        }
        leaves->n = 0;
        for (size_t k = 0; k < n_leaves && rc == 0; k++) {
            size_t first = k * leaf, count = n - first < leaf ? n - first : leaf;
            rc = dir_encode(e + first, count, &scratch, &one);
            r[k] = (entry){e[first].id, leaves->n, (uint32_t)one.n, 0};
            if (rc == 0)
                rc = buf_put(leaves, one.p, one.n);
        }
        if (rc == 0)
            rc = dir_encode(r, n_leaves, &scratch, root);
        free(r);
    }
    free(scratch.p);
    free(one.p);
    return rc;
}

/* ---- writing ---- */

typedef struct {
    uint64_t hash;
    uint64_t offset; /* in the tile data section */
    size_t tile;     /* the tile whose bytes are there */
    int used;
} content;

static void le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static int32_t e7(double deg)
{
    return (int32_t)lround(deg * 1e7);
}

/* 1 if tiles a and b have the same bytes, 0 if not, -1 on a read error. */
static int same_bytes(const pmtiles_tile *a, const pmtiles_tile *b, pmtiles_read_fn read,
                      void *ctx, buf *ba, buf *bb)
{
    if (a->hash != b->hash || a->length != b->length)
        return 0;
    ba->n = bb->n = 0;
    if (buf_reserve(ba, a->length) != 0 || buf_reserve(bb, a->length) != 0)
        return -1;
    if (read(ctx, a, ba->p) != 0 || read(ctx, b, bb->p) != 0)
        return -1;
    return memcmp(ba->p, bb->p, a->length) == 0;
}

int pmtiles_write(const char *path, const pmtiles_info *info, const pmtiles_tile *tiles,
                  size_t n_tiles, pmtiles_read_fn read, void *ctx, char *err, size_t err_size)
{
    int rc = -1;
    FILE *f = NULL;
    char tmp[4096];
    entry *ent = malloc((n_tiles ? n_tiles : 1) * sizeof *ent);
    size_t *unique = malloc((n_tiles ? n_tiles : 1) * sizeof *unique); /* tiles whose bytes are written */
    size_t cap = 16;
    while (cap < 2 * n_tiles)
        cap *= 2;
    content *table = calloc(cap, sizeof *table);
    buf ba = {0}, bb = {0}, root = {0}, leaves = {0}, meta = {0};
    size_t n_ent = 0, n_unique = 0, last_tile = 0;
    uint64_t data_bytes = 0, addressed = 0;
    snprintf(err, err_size, "out of memory");
    if (ent == NULL || unique == NULL || table == NULL)
        goto done;
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        snprintf(err, err_size, "path too long");
        goto done;
    }

    /* Entries: runs of equal consecutive tiles, repeats pointing back. */
    for (size_t i = 0; i < n_tiles; i++) {
        const pmtiles_tile *t = &tiles[i];
        assert(t->length > 0 && (i == 0 || t->id > tiles[i - 1].id));
        int same = 0;
        if (n_ent > 0 && t->id == ent[n_ent - 1].id + ent[n_ent - 1].run &&
            ent[n_ent - 1].run < UINT32_MAX)
            same = same_bytes(t, &tiles[last_tile], read, ctx, &ba, &bb);
        if (same < 0)
            goto read_failed;
        last_tile = i;
        if (same) {
            ent[n_ent - 1].run++;
            addressed++;
            continue;
        }
        size_t slot = (size_t)t->hash & (cap - 1);
        uint64_t offset = data_bytes;
        int found = 0;
        for (; table[slot].used; slot = (slot + 1) & (cap - 1)) {
            int s = table[slot].hash == t->hash
                        ? same_bytes(t, &tiles[table[slot].tile], read, ctx, &ba, &bb)
                        : 0;
            if (s < 0)
                goto read_failed;
            if (s) {
                offset = table[slot].offset;
                found = 1;
                break;
            }
        }
        if (!found) {
            table[slot] = (content){t->hash, data_bytes, i, 1};
            unique[n_unique++] = i;
            data_bytes += t->length;
        }
        ent[n_ent++] = (entry){t->id, offset, t->length, 1};
        addressed++;
    }

    const char *json = info->metadata_json ? info->metadata_json : "{}";
    if (dirs_build(ent, n_ent, &root, &leaves) != 0 ||
        gzip((const unsigned char *)json, strlen(json), &meta) != 0)
        goto done;

    unsigned char h[HEADER_BYTES];
    memset(h, 0, sizeof h);
    memcpy(h, "PMTiles", 7);
    h[7] = 3;
    uint64_t at = HEADER_BYTES;
    le(h + 8, at, 8);
    le(h + 16, root.n, 8);
    at += root.n;
    le(h + 24, at, 8);
    le(h + 32, meta.n, 8);
    at += meta.n;
    le(h + 40, at, 8);
    le(h + 48, leaves.n, 8);
    at += leaves.n;
    le(h + 56, at, 8);
    le(h + 64, data_bytes, 8);
    le(h + 72, addressed, 8);
    le(h + 80, n_ent, 8);
    le(h + 88, n_unique, 8);
    h[96] = 1; /* clustered */
    h[97] = 2; /* directories: gzip */
    h[98] = 1; /* tiles: no compression (PNG is compressed) */
    h[99] = 2; /* PNG */
    h[100] = (unsigned char)info->min_zoom;
    h[101] = (unsigned char)info->max_zoom;
    le(h + 102, (uint32_t)e7(info->min_lon), 4);
    le(h + 106, (uint32_t)e7(info->min_lat), 4);
    le(h + 110, (uint32_t)e7(info->max_lon), 4);
    le(h + 114, (uint32_t)e7(info->max_lat), 4);
    h[118] = (unsigned char)info->center_zoom;
    le(h + 119, (uint32_t)e7(info->center_lon), 4);
    le(h + 123, (uint32_t)e7(info->center_lat), 4);

    f = fopen(tmp, "wb");
    if (f == NULL) {
        snprintf(err, err_size, "%s: %s", tmp, strerror(errno));
        goto done;
    }
    int ok = fwrite(h, 1, sizeof h, f) == sizeof h && fwrite(root.p, 1, root.n, f) == root.n &&
             fwrite(meta.p, 1, meta.n, f) == meta.n &&
             (leaves.n == 0 || fwrite(leaves.p, 1, leaves.n, f) == leaves.n);
    for (size_t k = 0; ok && k < n_unique; k++) {
        const pmtiles_tile *t = &tiles[unique[k]];
        ba.n = 0;
        if (buf_reserve(&ba, t->length) != 0) {
            ok = 0;
            break;
        }
        if (read(ctx, t, ba.p) != 0)
            goto read_failed;
        ok = fwrite(ba.p, 1, t->length, f) == t->length;
    }
    if (fclose(f) != 0)
        ok = 0;
    f = NULL;
    if (!ok) {
        snprintf(err, err_size, "%s: write failed: %s", tmp, strerror(errno));
        goto done;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, err_size, "rename %s: %s", tmp, strerror(errno));
        goto done;
    }
    rc = 0;
    goto done;

read_failed:
    snprintf(err, err_size, "reading a tile's bytes failed");
done:
    if (f != NULL)
        fclose(f);
    if (rc != 0 && tmp[0] != '\0')
        remove(tmp);
    free(ent);
    free(unique);
    free(table);
    free(ba.p);
    free(bb.p);
    free(root.p);
    free(leaves.p);
    free(meta.p);
    return rc;
}

/* ---- reading ---- */

/* Directories read in one walk at most: a malformed archive whose leaves
 * point at each other cannot make a walk take forever. */
#define MAX_DIRS_PER_WALK (1u << 20)

struct pmtiles_reader {
    FILE *f;
    uint64_t file_size;
    unsigned dirs; /* read in the current walk */
    uint64_t root_off, root_len, meta_off, meta_len, leaf_off, leaf_len, data_off, data_len;
    int compression, min_zoom, max_zoom;
    char *metadata;
};

static uint64_t rd_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int pmtiles_reader_read(pmtiles_reader *r, uint64_t off, uint32_t length, unsigned char *out)
{
    if (fseeko(r->f, (off_t)off, SEEK_SET) != 0)
        return -1;
    return fread(out, 1, length, r->f) == length ? 0 : -1;
}

/* Reads and decompresses the section at [off, off+len) into out. */
static int read_section(pmtiles_reader *r, uint64_t off, uint64_t len, buf *out)
{
    if (len > GUNZIP_LIMIT || off > r->file_size || len > r->file_size - off)
        return -1;
    unsigned char *raw = malloc(len ? len : 1);
    if (raw == NULL || pmtiles_reader_read(r, off, (uint32_t)len, raw) != 0) {
        free(raw);
        return -1;
    }
    int rc = 0;
    if (r->compression == 2) {
        rc = gunzip(raw, len, out);
    } else {
        out->n = 0;
        rc = buf_put(out, raw, len);
    }
    free(raw);
    return rc;
}

pmtiles_reader *pmtiles_reader_open(const char *path, char *err, size_t err_size)
{
    unsigned char h[HEADER_BYTES];
    pmtiles_reader *r = calloc(1, sizeof *r);
    buf meta = {0};
    if (r == NULL) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    r->f = fopen(path, "rb");
    if (r->f == NULL) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        goto fail;
    }
    if (fread(h, 1, sizeof h, r->f) != sizeof h || memcmp(h, "PMTiles", 7) != 0 || h[7] != 3) {
        snprintf(err, err_size, "%s: not a PMTiles v3 archive", path);
        goto fail;
    }
    struct stat st;
    if (fstat(fileno(r->f), &st) != 0) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        goto fail;
    }
    r->file_size = (uint64_t)st.st_size;
    r->root_off = rd_le(h + 8, 8);
    r->root_len = rd_le(h + 16, 8);
    r->meta_off = rd_le(h + 24, 8);
    r->meta_len = rd_le(h + 32, 8);
    r->leaf_off = rd_le(h + 40, 8);
    r->leaf_len = rd_le(h + 48, 8);
    r->data_off = rd_le(h + 56, 8);
    r->data_len = rd_le(h + 64, 8);
    r->compression = h[97];
    r->min_zoom = h[100];
    r->max_zoom = h[101];
    if (r->leaf_off > r->file_size || r->leaf_len > r->file_size - r->leaf_off ||
        r->data_off > r->file_size || r->data_len > r->file_size - r->data_off) {
        snprintf(err, err_size, "%s: sections past the end of the file (cut short?)", path);
        goto fail;
    }
    if ((r->compression != 1 && r->compression != 2) ||
        read_section(r, r->meta_off, r->meta_len, &meta) != 0 || buf_put(&meta, "", 1) != 0) {
        snprintf(err, err_size, "%s: unreadable metadata", path);
        goto fail;
    }
    r->metadata = (char *)meta.p;
    return r;
fail:
    free(meta.p);
    pmtiles_reader_close(r);
    return NULL;
}

void pmtiles_reader_close(pmtiles_reader *r)
{
    if (r == NULL)
        return;
    if (r->f != NULL)
        fclose(r->f);
    free(r->metadata);
    free(r);
}

const char *pmtiles_reader_metadata(const pmtiles_reader *r) { return r->metadata; }

void pmtiles_reader_zooms(const pmtiles_reader *r, int *min_zoom, int *max_zoom)
{
    *min_zoom = r->min_zoom;
    *max_zoom = r->max_zoom;
}

static int get_varint(const buf *b, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*pos >= b->n)
            return -1;
        unsigned char c = b->p[(*pos)++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

static int walk(pmtiles_reader *r, uint64_t off, uint64_t len, int depth, pmtiles_each_fn fn,
                void *ctx)
{
    buf d = {0};
    entry *e = NULL;
    uint64_t n = 0;
    size_t pos = 0;
    int rc = -1;
    if (depth > MAX_DEPTH || ++r->dirs > MAX_DIRS_PER_WALK || read_section(r, off, len, &d) != 0 ||
        get_varint(&d, &pos, &n) != 0 || (n == 0 && depth > 0) || n > d.n)
        goto done;
    if (n == 0) { /* an empty archive: a root directory of no entries */
        rc = 0;
        goto done;
    }
    e = calloc(n, sizeof *e);
    if (e == NULL)
        goto done;
    uint64_t id = 0, v;
    for (uint64_t i = 0; i < n; i++) {
        if (get_varint(&d, &pos, &v) != 0)
            goto done;
        id += v;
        e[i].id = id;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (get_varint(&d, &pos, &v) != 0 || v > UINT32_MAX)
            goto done;
        e[i].run = (uint32_t)v;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (get_varint(&d, &pos, &v) != 0 || v == 0 || v > UINT32_MAX)
            goto done;
        e[i].length = (uint32_t)v;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (get_varint(&d, &pos, &v) != 0 || (v == 0 && i == 0))
            goto done;
        e[i].offset = v == 0 ? e[i - 1].offset + e[i - 1].length : v - 1;
    }
    rc = 0;
    for (uint64_t i = 0; i < n && rc == 0; i++) {
        if (e[i].run == 0) {
            if (e[i].offset > r->leaf_len || e[i].length > r->leaf_len - e[i].offset) {
                rc = -1;
                break;
            }
            rc = walk(r, r->leaf_off + e[i].offset, e[i].length, depth + 1, fn, ctx);
            continue;
        }
        if (e[i].offset > r->data_len || e[i].length > r->data_len - e[i].offset) {
            rc = -1;
            break;
        }
        for (uint32_t k = 0; k < e[i].run && rc == 0; k++)
            rc = fn(ctx, e[i].id + k, r->data_off + e[i].offset, e[i].length);
    }
done:
    free(d.p);
    free(e);
    return rc;
}

int pmtiles_reader_each(pmtiles_reader *r, pmtiles_each_fn fn, void *ctx, char *err,
                        size_t err_size)
{
    r->dirs = 0;
    int rc = walk(r, r->root_off, r->root_len, 0, fn, ctx);
    if (rc == -1)
        snprintf(err, err_size, "malformed PMTiles directory");
    return rc;
}
