/* spool.c: the PMTiles export's spool file and the tile index an archive
 * is written from (see spool.h). */
#include "export/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/plan.h"

/* Records between flushes of the spool's stdio buffer. */
#define SPOOL_FLUSH_EVERY 1000

/* A record's head: the tile id (8 bytes) and the data's length (4), little
 * endian (as spool_put writes them). */
static void rec_read(const unsigned char rec[12], uint64_t *id, uint32_t *len)
{
    *id = 0;
    *len = 0;
    for (int i = 7; i >= 0; i--)
        *id = *id << 8 | rec[i];
    for (int i = 11; i >= 8; i--)
        *len = *len << 8 | rec[i];
}

int spool_open(spool *s, const char *path, const char *head, const plan *p, uint64_t *done,
               uint64_t *bytes, char *err, size_t err_size)
{
    snprintf(s->path, sizeof s->path, "%s", path);
    s->head_len = strlen(head);
    /* Opened without truncating and locked before anything is read or
     * written: a second export of the same output stops here. */
    int fd = open(s->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, err_size, "%s: %s", s->path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            snprintf(err, err_size,
                     "%s is being written by another export; wait for it to finish or choose "
                     "another output", s->path);
        else
            snprintf(err, err_size, "%s: lock: %s", s->path, strerror(errno));
        close(fd);
        return -1;
    }
    struct stat st0;
    s->f = fstat(fd, &st0) == 0 ? fdopen(fd, "r+b") : NULL;
    if (s->f == NULL) {
        snprintf(err, err_size, "%s: %s", s->path, strerror(errno));
        close(fd);
        return -1;
    }
    if (st0.st_size == 0) {
        if (fwrite(head, 1, strlen(head), s->f) != strlen(head) || fflush(s->f) != 0) {
            snprintf(err, err_size, "%s: %s", s->path, strerror(errno));
            return -1;
        }
        return 0;
    }
    char old[2048];
    size_t hl = strlen(head);
    if (fread(old, 1, hl, s->f) != hl || memcmp(old, head, hl) != 0) {
        snprintf(err, err_size,
                 "%s holds the partial work of another export; remove it to start this one",
                 s->path);
        return -1;
    }
    /* Records: id (8 bytes LE), length (4 bytes LE), bytes, in the export's
     * order (the writer writes in order), so the spool holds a first
     * stretch of the order. It is kept up to the first record cut short by
     * a kill or out of order; the rest is cut off and rendered again. */
    plan_iter it;
    plan_iter_start(&it, p, p->from, p->to);
    off_t good = (off_t)hl;
    unsigned char rec[12];
    uint64_t want;
    while (fread(rec, 1, 12, s->f) == 12) {
        uint64_t id;
        uint32_t len;
        rec_read(rec, &id, &len);
        if (len == 0 || fseeko(s->f, (off_t)len, SEEK_CUR) != 0)
            break;
        off_t end = ftello(s->f);
        struct stat st;
        if (fstat(fileno(s->f), &st) != 0 || end > st.st_size || !plan_iter_next(&it, &want) ||
            want != id)
            break;
        good = end;
        (*done)++;
        *bytes += len;
    }
    if (ftruncate(fileno(s->f), good) != 0 || fseeko(s->f, good, SEEK_SET) != 0) {
        snprintf(err, err_size, "%s: %s", s->path, strerror(errno));
        return -1;
    }
    return 0;
}

int spool_put(spool *s, uint64_t id, const unsigned char *data, size_t size, char *err,
              size_t err_size)
{
    unsigned char rec[12];
    for (int i = 0; i < 8; i++)
        rec[i] = (unsigned char)(id >> (8 * i));
    for (int i = 0; i < 4; i++)
        rec[8 + i] = (unsigned char)((uint32_t)size >> (8 * i));
    if (fwrite(rec, 1, 12, s->f) != 12 || fwrite(data, 1, size, s->f) != size) {
        snprintf(err, err_size, "%s: %s", s->path, strerror(errno));
        return -1;
    }
    if (++s->batch == SPOOL_FLUSH_EVERY) {
        s->batch = 0;
        fflush(s->f);
    }
    return 0;
}

typedef struct {
    FILE **files;
} pm_src;

static int pm_read(void *ctx, const pmtiles_tile *t, unsigned char *buf)
{
    pm_src *src = ctx;
    FILE *f = src->files[t->src];
    return fseeko(f, (off_t)t->src_offset, SEEK_SET) == 0 && fread(buf, 1, t->length, f) == t->length
               ? 0
               : -1;
}

static int cmp_tile(const void *a, const void *b)
{
    const pmtiles_tile *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Header fields from the metadata object (bounds, center, zooms). */
static int pm_info_from_json(json_t *o, const char *text, pmtiles_info *info)
{
    json_t *b = json_object_get(o, "bounds"), *c = json_object_get(o, "center");
    if (!json_is_array(b) || json_array_size(b) != 4 || !json_is_array(c) ||
        json_array_size(c) != 3)
        return -1;
    info->min_lon = json_number_value(json_array_get(b, 0));
    info->min_lat = json_number_value(json_array_get(b, 1));
    info->max_lon = json_number_value(json_array_get(b, 2));
    info->max_lat = json_number_value(json_array_get(b, 3));
    info->center_lon = json_number_value(json_array_get(c, 0));
    info->center_lat = json_number_value(json_array_get(c, 1));
    info->center_zoom = (int)json_integer_value(json_array_get(c, 2));
    info->min_zoom = (int)json_integer_value(json_object_get(o, "minzoom"));
    info->max_zoom = (int)json_integer_value(json_object_get(o, "maxzoom"));
    info->metadata_json = text;
    return 0;
}

int spool_write_archive(const char *path, const char *meta_text, pmtiles_tile *tiles, size_t n,
                        FILE **files, char *err, size_t err_size)
{
    if (n > 0)
        qsort(tiles, n, sizeof *tiles, cmp_tile);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && tiles[m - 1].id == tiles[i].id) {
            if (tiles[m - 1].hash != tiles[i].hash || tiles[m - 1].length != tiles[i].length) {
                snprintf(err, err_size, "tile id %" PRIu64 " appears twice with different bytes",
                         tiles[i].id);
                return -1;
            }
            continue;
        }
        tiles[m++] = tiles[i];
    }
    json_t *o = json_loads(meta_text, 0, NULL);
    pmtiles_info info;
    int rc = o && pm_info_from_json(o, meta_text, &info) == 0 ? 0 : -1;
    if (rc != 0)
        snprintf(err, err_size, "metadata lacks bounds, center or zooms");
    pm_src src = {files};
    if (rc == 0)
        rc = pmtiles_write(path, &info, tiles, m, pm_read, &src, err, err_size);
    json_decref(o);
    return rc;
}

void *spool_grow(void *arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t c = *cap ? *cap * 2 : 4096;
    if (c < *cap || c > ((size_t)-1) / elem)
        return NULL;
    void *p = realloc(arr, c * elem);
    if (p != NULL)
        *cap = c;
    return p;
}

int spool_index(spool *s, pmtiles_tile **out, size_t *n_out)
{
    FILE *f = s->f;
    size_t head_len = s->head_len;
    pmtiles_tile *t = NULL;
    size_t n = 0, cap = 0;
    unsigned char rec[12], *data = NULL;
    size_t data_cap = 0;
    if (fseeko(f, (off_t)head_len, SEEK_SET) != 0)
        return -1;
    while (fread(rec, 1, 12, f) == 12) {
        uint64_t id;
        uint32_t len;
        rec_read(rec, &id, &len);
        if (len > data_cap) {
            unsigned char *d = realloc(data, len);
            if (d == NULL)
                goto fail;
            data = d;
            data_cap = len;
        }
        off_t at = ftello(f);
        if (fread(data, 1, len, f) != len)
            goto fail;
        pmtiles_tile *nt = spool_grow(t, &cap, n, sizeof *t);
        if (nt == NULL)
            goto fail;
        t = nt;
        t[n++] = (pmtiles_tile){id, 0, len, (uint64_t)at, pmtiles_hash(data, len)};
    }
    free(data);
    *out = t;
    *n_out = n;
    return 0;
fail:
    free(data);
    free(t);
    return -1;
}
