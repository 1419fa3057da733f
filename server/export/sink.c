/* sink.c: an export's output: MBTiles, PMTiles (through the spool) or a
 * directory; opening resumes, closing commits or writes the archive (see
 * sink.h). */
#include "export/sink.h"

/* Messages naming long paths are cut to the caller's buffer on purpose.
 * (GCC only: clang, which builds the fuzz targets, has no such warning.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/pmtiles.h"
#include "service/heightsreq.h"

#define SPOOL_MAGIC "noisetile-spool 1\n"

const char *sink_format_name(sink_format f)
{
    return f == SINK_MBTILES ? "mbtiles" : f == SINK_PMTILES ? "pmtiles" : "dir";
}

sink_format sink_format_of(const char *path)
{
    size_t n = strlen(path);
    if (n > 8 && strcmp(path + n - 8, ".mbtiles") == 0)
        return SINK_MBTILES;
    if (n > 8 && strcmp(path + n - 8, ".pmtiles") == 0)
        return SINK_PMTILES;
    return SINK_DIR;
}

void sink_init(sink *s, sink_format format, const char *path, const plan *p)
{
    memset(s, 0, sizeof *s);
    s->format = format;
    s->path = path;
    s->p = p;
    s->lock_fd = -1;
}

int sink_mkdirs(char *path)
{
    for (char *s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        int rc = mkdir(path, 0755);
        *s = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int sink_write_file(const char *path, const void *data, size_t size)
{
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (f == NULL)
        return -1;
    int ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

static void dir_tile_path(const char *root, const plan *p, uint64_t id, char *buf, size_t n)
{
    int z;
    uint32_t x, y;
    pmtiles_tile_zxy(id, &z, &x, &y);
    snprintf(buf, n, "%s/%d/%" PRIu32 "/%" PRIu32 ".%s", root, z, x, y, heightsreq_ext_name(p->ext));
}

const char *const sink_mb_meta_names[] = {"name", "format", "minzoom", "maxzoom", "bounds",
                                            "center", "type", "description", "version",
                                            "attribution", "noisetile_field", "noisetile_origin",
                                            "noisetile_export", "noisetile_shard", NULL};

/* A number in plain decimal, shortest that reads back the same ("-180",
 * "85.051128779806589"): MBTiles readers parse bounds with strtod-likes. */
static void plain_number(double v, char *buf, size_t n)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void sink_mb_meta_values(const plan *p, char values[][SINK_META_VALUE])
{
    plan_geo_box g = plan_geo(p);
    json_t *o = plan_json(p), *nt = json_object_get(o, "noisetile");
    json_t *origin = json_deep_copy(nt);
    json_object_del(origin, "field");
    json_object_del(origin, "shard"); /* a row of its own */
    char *origin_text = plan_json_text(origin);
    json_decref(origin);
    char b[6][32];
    plain_number(g.min_lon, b[0], 32);
    plain_number(g.min_lat, b[1], 32);
    plain_number(g.max_lon, b[2], 32);
    plain_number(g.max_lat, b[3], 32);
    plain_number(g.center_lon, b[4], 32);
    plain_number(g.center_lat, b[5], 32);
    snprintf(values[0], SINK_META_VALUE, "%s", p->name);
    snprintf(values[1], SINK_META_VALUE, "png");
    snprintf(values[2], SINK_META_VALUE, "%d", p->zmin + p->k);
    snprintf(values[3], SINK_META_VALUE, "%d", p->zmax + p->k);
    snprintf(values[4], SINK_META_VALUE, "%s,%s,%s,%s", b[0], b[1], b[2], b[3]);
    snprintf(values[5], SINK_META_VALUE, "%s,%s,%d", b[4], b[5], p->zmin + p->k);
    snprintf(values[6], SINK_META_VALUE, "baselayer");
    snprintf(values[7], SINK_META_VALUE, "%s", json_string_value(json_object_get(o, "description")));
    snprintf(values[8], SINK_META_VALUE, "1.0.0");
    snprintf(values[9], SINK_META_VALUE, "noisetile");
    snprintf(values[10], SINK_META_VALUE, "%s", p->url);
    snprintf(values[11], SINK_META_VALUE, "%s", origin_text ? origin_text : "{}");
    snprintf(values[12], SINK_META_VALUE, "%s", p->identity);
    plan_shard_text(p->shard_k, p->shard_n, p->to - p->from, values[13], SINK_META_VALUE);
    free(origin_text);
    json_decref(o);
}

int sink_mb_write_meta(mbtiles *mb, char values[][SINK_META_VALUE])
{
    char err[256];
    if (mbtiles_begin(mb, err, sizeof err) != 0)
        return -1;
    for (int i = 0; sink_mb_meta_names[i]; i++)
        if (mbtiles_set_meta(mb, sink_mb_meta_names[i], values[i]) != 0)
            return -1;
    return mbtiles_commit(mb, err, sizeof err);
}

/* Takes the output's lock: an flock on fd, held until sink_close, so a
 * second export into the same output stops with a clear message instead of
 * writing into the first one's work. */
static int take_lock(sink *s, int fd, const char *path, char *err, size_t err_size)
{
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            snprintf(err, err_size,
                     "%s is being written by another export; wait for it to finish or choose "
                     "another output", path);
        else
            snprintf(err, err_size, "%s: lock: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    s->lock_fd = fd;
    return 0;
}

static void drop_lock(sink *s)
{
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    s->lock_fd = -1;
}

int sink_all_digits(const char *name)
{
    if (*name == '\0')
        return 0;
    for (; *name; name++)
        if (*name < '0' || *name > '9')
            return 0;
    return 1;
}

/* The next entry of d (NULL: none) whose name is all digits, as
 * "dir/NAME" in path: 1, or 0 when there is none. */
static int next_numbered(DIR *d, const char *dir, char *path, size_t size)
{
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (sink_all_digits(e->d_name)) {
            snprintf(path, size, "%s/%s", dir, e->d_name);
            return 1;
        }
    return 0;
}

int sink_remove_tiles(const char *root)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/metadata.json", root);
    remove(path);
    DIR *dz = opendir(root);
    char zdir[4300];
    while (next_numbered(dz, root, zdir, sizeof zdir)) {
        DIR *dx = opendir(zdir);
        char xdir[4600];
        while (next_numbered(dx, zdir, xdir, sizeof xdir)) {
            DIR *dy = opendir(xdir);
            struct dirent *ey;
            while (dy && (ey = readdir(dy)) != NULL) {
                const char *dot = strchr(ey->d_name, '.');
                if (dot == NULL || dot == ey->d_name)
                    continue;
                char f[4900];
                snprintf(f, sizeof f, "%s/%s", xdir, ey->d_name);
                remove(f);
            }
            if (dy)
                closedir(dy);
            rmdir(xdir);
        }
        if (dx)
            closedir(dx);
        rmdir(zdir);
    }
    if (dz)
        closedir(dz);
    return 0;
}

/* 1 if directory path has an entry besides "." and "..". */
static int dir_has_entries(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int has = 0;
    while (d && !has && (e = readdir(d)) != NULL)
        has = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return has;
}

static int open_dir(sink *s, uint64_t *done, char *err, size_t err_size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s", s->path);
    if (sink_mkdirs(path) != 0) {
        snprintf(err, err_size, "%s: %s", s->path, strerror(errno));
        return -1;
    }
    int fd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_size, "%s: %s", s->path, strerror(errno));
        return -1;
    }
    if (take_lock(s, fd, s->path, err, err_size) != 0)
        return -1;
    char meta_path[4200];
    snprintf(meta_path, sizeof meta_path, "%s/metadata.json", s->path);
    json_t *o = plan_json(s->p);
    /* TileJSON's tiles: relative to metadata.json. */
    char tiles[32];
    snprintf(tiles, sizeof tiles, "{z}/{x}/{y}.%s", heightsreq_ext_name(s->p->ext));
    json_object_set_new(o, "tiles", json_pack("[s]", tiles));
    char *text = plan_json_text(o);
    json_decref(o);
    json_t *old = json_load_file(meta_path, 0, NULL);
    if (old != NULL) {
        json_t *now = json_loads(text, 0, NULL);
        int same = json_equal(old, now);
        json_decref(now);
        json_decref(old);
        if (!same && !s->force) {
            free(text);
            snprintf(err, err_size,
                     "%s holds another export (its metadata.json differs); remove it, "
                     "choose another directory or pass --force to replace it", s->path);
            return -1;
        }
        if (!same)
            sink_remove_tiles(s->path); /* --force: the old export's files go */
    } else if (dir_has_entries(s->path)) {
        free(text);
        snprintf(err, err_size,
                 "%s is not empty and holds no export (no metadata.json); choose a new or "
                 "empty directory", s->path);
        return -1;
    }
    int rc = text ? sink_write_file(meta_path, text, strlen(text)) : -1;
    free(text);
    if (rc != 0) {
        snprintf(err, err_size, "%s: %s", meta_path, strerror(errno));
        return -1;
    }
    /* Tiles are written in order: the first ones present are done. */
    plan_iter it;
    plan_iter_start(&it, s->p, s->p->from, s->p->to);
    uint64_t id;
    while (plan_iter_next(&it, &id)) {
        char tp[4300];
        dir_tile_path(s->path, s->p, id, tp, sizeof tp);
        if (access(tp, F_OK) != 0)
            break;
        (*done)++;
    }
    return 0;
}

/* Opens path for its lock (creating an empty file); *fresh is 1 when the
 * file is empty (new, or made by a run that stopped before its schema). */
static int lock_file(sink *s, const char *path, int *fresh, char *err, size_t err_size)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (take_lock(s, fd, path, err, err_size) != 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    *fresh = st.st_size == 0;
    return 0;
}

/* What an existing MBTiles file holds: 0 this shard of this export, or -1
 * with a message naming what else it holds. */
static int mbtiles_same(sink *s, char *err, size_t err_size)
{
    char old[SINK_META_VALUE], shard[SINK_META_VALUE], want[128];
    char e2[512];
    mbtiles *mb = mbtiles_open(s->path, 0, e2, sizeof e2);
    const char *what = NULL;
    if (mb == NULL || mbtiles_get_meta(mb, "noisetile_export", old, sizeof old) != 0)
        what = "no noisetile export";
    else if (strcmp(old, s->p->identity) != 0)
        what = "another export";
    else {
        plan_shard_text(s->p->shard_k, s->p->shard_n, s->p->to - s->p->from, want, sizeof want);
        if (mbtiles_get_meta(mb, "noisetile_shard", shard, sizeof shard) != 0 ||
            strcmp(shard, want) != 0)
            what = "another shard of this export";
    }
    if (what == NULL) {
        s->mb = mb;
        return 0;
    }
    mbtiles_close(mb);
    snprintf(err, err_size,
             "%s exists and holds %s; remove it, choose another name or pass --force to "
             "replace it", s->path, what);
    return -1;
}

static int open_mbtiles(sink *s, uint64_t *done, char *err, size_t err_size)
{
    int fresh;
    if (lock_file(s, s->path, &fresh, err, err_size) != 0)
        return -1;
    if (!fresh && mbtiles_same(s, err, err_size) != 0) {
        if (!s->force)
            return -1;
        /* --force: the old file goes; a new one (locked again) takes its name. */
        char journal[4300];
        snprintf(journal, sizeof journal, "%s-journal", s->path);
        if (unlink(s->path) != 0) {
            snprintf(err, err_size, "%s: %s", s->path, strerror(errno));
            return -1;
        }
        remove(journal);
        drop_lock(s);
        if (lock_file(s, s->path, &fresh, err, err_size) != 0)
            return -1;
    }
    if (fresh) {
        s->mb = mbtiles_open(s->path, 1, err, err_size);
        if (s->mb == NULL)
            return -1;
        char values[16][SINK_META_VALUE];
        sink_mb_meta_values(s->p, values);
        if (sink_mb_write_meta(s->mb, values) != 0) {
            snprintf(err, err_size, "%s: cannot write metadata", s->path);
            return -1;
        }
    }
    /* Tiles are committed in order: the first ones present are done. */
    plan_iter it;
    plan_iter_start(&it, s->p, s->p->from, s->p->to);
    uint64_t id;
    while (!fresh && plan_iter_next(&it, &id)) {
        int z;
        uint32_t x, y;
        pmtiles_tile_zxy(id, &z, &x, &y);
        int has = mbtiles_has(s->mb, z, x, y);
        if (has < 0) {
            snprintf(err, err_size, "%s: read error", s->path);
            return -1;
        }
        if (!has)
            break;
        (*done)++;
    }
    return 0;
}

/* An existing file at a PMTiles export's path (not this export's finished
 * archive: the caller checked) is replaced only with --force. */
static int pmtiles_may_replace(sink *s, char *err, size_t err_size)
{
    if (access(s->path, F_OK) != 0 || s->force)
        return 0;
    char e2[256];
    pmtiles_reader *r = pmtiles_reader_open(s->path, e2, sizeof e2);
    json_t *o = r ? json_loads(pmtiles_reader_metadata(r), 0, NULL) : NULL;
    int ours = json_object_get(o, "noisetile") != NULL;
    json_decref(o);
    pmtiles_reader_close(r);
    snprintf(err, err_size,
             "%s exists and holds %s; remove it, choose another name or pass --force to "
             "replace it", s->path, ours ? "another export" : "no noisetile export");
    return -1;
}

int sink_open(sink *s, const char *shard_tag, uint64_t *done, char *err, size_t err_size)
{
    *done = 0;
    if (s->format == SINK_DIR)
        return open_dir(s, done, err, err_size);
    if (s->format == SINK_MBTILES)
        return open_mbtiles(s, done, err, err_size);
    if (pmtiles_may_replace(s, err, err_size) != 0)
        return -1;
    /* PMTiles: tiles go to a spool file first; the archive is written from
     * it at the end (replacing a file there only then). A spool left by an
     * interrupted run is resumed. */
    char spool_path[4200], head[2048];
    snprintf(spool_path, sizeof spool_path, "%s.part", s->path);
    snprintf(head, sizeof head, "%s%s%s\n", SPOOL_MAGIC, s->p->identity, shard_tag);
    return spool_open(&s->spool, spool_path, head, s->p, done, &s->bytes, err, err_size);
}

int sink_put(sink *s, uint64_t id, const unsigned char *png, size_t size, char *err,
             size_t err_size)
{
    s->bytes += size;
    if (s->format == SINK_DIR) {
        char tp[4300];
        dir_tile_path(s->path, s->p, id, tp, sizeof tp);
        char *slash = strrchr(tp, '/');
        *slash = '\0';
        int rc = 0;
        if (strcmp(tp, s->last_dir) != 0) { /* Hilbert order: neighbours often share a column */
            rc = sink_mkdirs(tp);
            snprintf(s->last_dir, sizeof s->last_dir, "%s", rc == 0 ? tp : "");
        }
        *slash = '/';
        if (rc != 0 || sink_write_file(tp, png, size) != 0) {
            snprintf(err, err_size, "%s: %s", tp, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (s->format == SINK_MBTILES) {
        int z;
        uint32_t x, y;
        pmtiles_tile_zxy(id, &z, &x, &y);
        if (mbtiles_put(s->mb, z, x, y, png, size, err, err_size) < 0)
            return -1;
        if (++s->batch == SINK_MBTILES_BATCH) {
            s->batch = 0;
            return mbtiles_commit(s->mb, err, err_size);
        }
        return 0;
    }
    return spool_put(&s->spool, id, png, size, err, err_size);
}

static int count_one(void *ctx, uint64_t id, uint64_t off, uint32_t len)
{
    (void)id;
    (void)off;
    (void)len;
    (*(uint64_t *)ctx)++;
    return 0;
}

int sink_pmtiles_complete(const char *path, const plan *p, uint64_t n)
{
    char err[256];
    if (access(path, F_OK) != 0)
        return 0;
    pmtiles_reader *r = pmtiles_reader_open(path, err, sizeof err);
    json_t *o = plan_json(p);
    char *meta = plan_json_text(o);
    json_decref(o);
    uint64_t count = 0;
    int same = r && meta && strcmp(pmtiles_reader_metadata(r), meta) == 0 &&
               pmtiles_reader_each(r, count_one, &count, err, sizeof err) == 0 && count == n;
    free(meta);
    pmtiles_reader_close(r);
    return same;
}

const char *sink_progress_path(const sink *s)
{
    return s->format == SINK_PMTILES ? s->spool.path : s->path;
}

/* The archive from the spool; the spool is removed once it is written. */
static int finish_pmtiles(sink *s, char *err, size_t err_size)
{
    pmtiles_tile *tiles = NULL;
    size_t n_tiles = 0;
    json_t *o = plan_json(s->p);
    char *meta = plan_json_text(o);
    json_decref(o);
    int rc;
    if (meta == NULL || spool_index(&s->spool, &tiles, &n_tiles) != 0) {
        snprintf(err, err_size, "%s: cannot read back", s->spool.path);
        rc = -1;
    } else {
        FILE *files[1] = {s->spool.f};
        rc = spool_write_archive(s->path, meta, tiles, n_tiles, files, err, err_size);
    }
    free(meta);
    free(tiles);
    if (rc == 0)
        remove(s->spool.path);
    return rc;
}

int sink_close(sink *s, int finish, int rc, char *err, size_t err_size)
{
    if (s->mb != NULL) {
        char e2[256];
        if (mbtiles_commit(s->mb, e2, sizeof e2) != 0 && rc == 0) {
            snprintf(err, err_size, "%s", e2);
            rc = -1;
        }
        mbtiles_close(s->mb);
        s->mb = NULL;
    }
    if (s->spool.f != NULL && fflush(s->spool.f) != 0 && rc == 0) {
        snprintf(err, err_size, "%s: %s", s->spool.path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && finish && s->spool.f != NULL)
        rc = finish_pmtiles(s, err, err_size);
    if (s->spool.f != NULL) {
        fclose(s->spool.f);
        s->spool.f = NULL;
    }
    drop_lock(s);
    return rc;
}
