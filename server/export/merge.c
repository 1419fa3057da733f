/* merge.c: `noisetile merge`: the shard outputs of one export (all MBTiles,
 * all PMTiles or all directories) joined into one output, the same bytes as
 * the export run as one process (see export.h).
 *
 * Every shard records which shard of how many it is and how many tiles it
 * holds when complete (plan.h: "shard" in the metadata, the noisetile_shard
 * row); merge first checks that the inputs are exactly shards 0..N-1 of one
 * export, each complete, and names what is wrong otherwise. It writes to a
 * temporary sibling of OUTPUT (a file, or a directory) renamed into place at
 * the end, so a failed merge leaves nothing behind; an existing OUTPUT is
 * replaced only with --force. */
#include "export/export.h"

/* Messages naming long paths are cut to the caller's buffer on purpose.
 * (GCC only: clang, which builds the fuzz targets, has no such warning.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/cli.h"
#include "export/mbtiles.h"
#include "export/pmtiles.h"
#include "export/plan.h"
#include "export/sink.h"
#include "export/spool.h"

static const char merge_usage[] =
    "usage: noisetile merge -o OUTPUT [--force] INPUT...\n"
    "\n"
    "Joins the shard outputs of one export (`noisetile export --shard K/N`), all\n"
    "MBTiles, all PMTiles or all directories, into OUTPUT: the same bytes as the\n"
    "export run as one process. The inputs must be shards 0..N-1 of one export,\n"
    "each once and complete. OUTPUT is written beside its place and renamed\n"
    "there at the end: a merge that fails leaves nothing.\n"
    "\n"
    "  --force          replace an existing OUTPUT (a directory only when it\n"
    "                   holds an export)\n";

/* ---- the set of shards ---- */

/* One input: its shard record and its metadata without the record. */
typedef struct {
    int has;              /* a shard record was found */
    int64_t k, n;
    uint64_t tiles, found; /* recorded when complete; counted */
    json_t *rest;
    char field[GRAPHS_TEXT_MAX + 2500]; /* a graph's URL is long */
} shard_info;

static void shard_free(shard_info *s, int n_in)
{
    for (int i = 0; s && i < n_in; i++)
        json_decref(s[i].rest);
    free(s);
}

/* The record {"index":K,"count":N,"tiles":T} into s. */
static void shard_read(json_t *rec, shard_info *s)
{
    json_t *k = json_object_get(rec, "index"), *n = json_object_get(rec, "count"),
           *t = json_object_get(rec, "tiles");
    if (!json_is_integer(k) || !json_is_integer(n) || !json_is_integer(t) ||
        json_integer_value(n) < 1 || json_integer_value(k) < 0 ||
        json_integer_value(k) >= json_integer_value(n) || json_integer_value(n) > 1000000 ||
        json_integer_value(t) < 0)
        return;
    s->has = 1;
    s->k = json_integer_value(k);
    s->n = json_integer_value(n);
    s->tiles = (uint64_t)json_integer_value(t);
}

/* A PMTiles or directory metadata object into s (the object is kept). */
static void shard_from_json(json_t *meta, shard_info *s)
{
    json_t *nt = json_object_get(meta, "noisetile");
    snprintf(s->field, sizeof s->field, "%s",
             json_is_string(json_object_get(nt, "field"))
                 ? json_string_value(json_object_get(nt, "field"))
                 : "?");
    shard_read(json_object_get(nt, "shard"), s);
    s->rest = json_deep_copy(meta);
    json_object_del(json_object_get(s->rest, "noisetile"), "shard");
}

/* Input i's metadata object into s: the first input's object is kept in
 * *meta0 (it is the merged export's), the others are released. */
static void shard_take(json_t *meta, int i, shard_info *s, json_t **meta0)
{
    shard_from_json(meta, s);
    if (i == 0)
        *meta0 = meta;
    else
        json_decref(meta);
}

/* Input in's tiles collected: found of them, or failed (unreadable).
 * Returns 0, or -1 with err naming the input. */
static int shard_collected(shard_info *s, size_t found, int failed, const char *in, char *err,
                           size_t err_size)
{
    s->found = found;
    if (failed) {
        snprintf(err, err_size, "%s: unreadable tiles", in);
        return -1;
    }
    return 0;
}

/* The merged metadata: meta with its shard record made 0/1 of total. */
static char *merged_json_text(const json_t *meta, uint64_t total)
{
    json_t *o = json_deep_copy(meta), *nt = json_object_get(o, "noisetile");
    json_object_del(nt, "shard");
    json_object_set_new(nt, "shard", plan_shard_json(0, 1, total));
    char *text = plan_json_text(o);
    json_decref(o);
    return text;
}

/* Checks that the inputs are shards 0..N-1 of one export, each once.
 * Returns 0, or -1 with err naming what is wrong. */
static int check_set(shard_info *s, char **in, int n_in, char *err, size_t err_size)
{
    for (int i = 0; i < n_in; i++)
        if (!s[i].has) {
            snprintf(err, err_size,
                     "input %d (%s) records no shard: it is not a noisetile export, or one made "
                     "before shards recorded K/N; export it again", i + 1, in[i]);
            return -1;
        }
    for (int i = 1; i < n_in; i++) {
        if (json_equal(s[i].rest, s[0].rest))
            continue;
        if (strcmp(s[i].field, s[0].field) != 0)
            snprintf(err, err_size, "input %d (%s) is a shard of another field (%s, not %s)", i + 1,
                     in[i], s[i].field, s[0].field);
        else
            snprintf(err, err_size,
                     "input %d (%s) is a shard of another export (its region, zooms or name "
                     "differ from input 1's)", i + 1, in[i]);
        return -1;
    }
    for (int i = 1; i < n_in; i++)
        if (s[i].n != s[0].n) {
            snprintf(err, err_size,
                     "shards of %" PRId64 " and %" PRId64 ": input 1 (%s) is shard %" PRId64
                     "/%" PRId64 ", input %d (%s) is shard %" PRId64 "/%" PRId64,
                     s[0].n, s[i].n, in[0], s[0].k, s[0].n, i + 1, in[i], s[i].k, s[i].n);
            return -1;
        }
    int64_t n = s[0].n;
    int *seen = calloc((size_t)n, sizeof *seen); /* input + 1 */
    if (seen == NULL) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    int rc = 0;
    for (int i = 0; rc == 0 && i < n_in; i++) {
        if (seen[s[i].k]) {
            snprintf(err, err_size, "shard %" PRId64 "/%" PRId64 " given twice (inputs %d and %d: %s, %s)",
                     s[i].k, n, seen[s[i].k], i + 1, in[seen[s[i].k] - 1], in[i]);
            rc = -1;
        }
        seen[s[i].k] = i + 1;
    }
    if (rc == 0) {
        char list[512] = "";
        size_t used = 0;
        int missing = 0;
        for (int64_t k = 0; k < n; k++) {
            if (seen[k])
                continue;
            if (missing < 5 && used < sizeof list)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%" PRId64 "/%" PRId64,
                                         missing ? ", " : "", k, n);
            missing++;
        }
        if (missing > 5)
            snprintf(err, err_size, "shards %s and %d more missing", list, missing - 5);
        else if (missing > 0)
            snprintf(err, err_size, "shard%s %s missing", missing > 1 ? "s" : "", list);
        rc = missing > 0 ? -1 : 0;
    }
    free(seen);
    return rc;
}

/* After reading: each input holds the tiles its record says. Returns 0, or
 * -1 with err. */
static int check_complete(const shard_info *s, char **in, int n_in, char *err, size_t err_size)
{
    for (int i = 0; i < n_in; i++) {
        if (s[i].found < s[i].tiles) {
            snprintf(err, err_size,
                     "input %d (%s) is incomplete (stopped half way: %" PRIu64 " of its %" PRIu64
                     " tiles): run its export command again to finish it", i + 1, in[i],
                     s[i].found, s[i].tiles);
            return -1;
        }
        if (s[i].found > s[i].tiles) {
            snprintf(err, err_size, "input %d (%s) holds %" PRIu64 " tiles, not the %" PRIu64
                     " its shard records", i + 1, in[i], s[i].found, s[i].tiles);
            return -1;
        }
    }
    return 0;
}

static uint64_t set_total(const shard_info *s, int n_in)
{
    uint64_t total = 0;
    for (int i = 0; i < n_in; i++)
        total += s[i].tiles;
    return total;
}

/* ---- PMTiles ---- */

typedef struct {
    pmtiles_tile *t;
    size_t n, cap;
    uint32_t src;
    pmtiles_reader *r;
    unsigned char *buf;
    size_t buf_cap;
} pm_collect;

static int pm_collect_one(void *ctx, uint64_t id, uint64_t off, uint32_t len)
{
    pm_collect *c = ctx;
    pmtiles_tile *t = spool_grow(c->t, &c->cap, c->n, sizeof *t);
    if (t == NULL)
        return 1;
    c->t = t;
    if (len > c->buf_cap) {
        unsigned char *b = realloc(c->buf, len);
        if (b == NULL)
            return 1;
        c->buf = b;
        c->buf_cap = len;
    }
    if (pmtiles_reader_read(c->r, off, len, c->buf) != 0)
        return 1;
    c->t[c->n++] = (pmtiles_tile){id, c->src, len, off, pmtiles_hash(c->buf, len)};
    return 0;
}

static int merge_pmtiles(const char *out, char **in, int n_in, char *err, size_t err_size)
{
    pmtiles_reader **r = calloc((size_t)n_in, sizeof *r);
    FILE **files = calloc((size_t)n_in, sizeof *files);
    shard_info *s = calloc((size_t)n_in, sizeof *s);
    json_t *meta0 = NULL;
    pm_collect c = {0};
    int rc = r && files && s ? 0 : -1;
    if (rc != 0)
        snprintf(err, err_size, "out of memory");
    for (int i = 0; rc == 0 && i < n_in; i++) {
        r[i] = pmtiles_reader_open(in[i], err, err_size);
        if (r[i] == NULL) {
            rc = -1;
            break;
        }
        json_t *meta = json_loads(pmtiles_reader_metadata(r[i]), 0, NULL);
        shard_take(meta, i, &s[i], &meta0);
    }
    if (rc == 0)
        rc = check_set(s, in, n_in, err, err_size);
    for (int i = 0; rc == 0 && i < n_in; i++) {
        files[i] = fopen(in[i], "rb");
        c.src = (uint32_t)i;
        c.r = r[i];
        size_t before = c.n;
        int failed = files[i] == NULL ||
                     pmtiles_reader_each(r[i], pm_collect_one, &c, err, err_size) != 0;
        rc = shard_collected(&s[i], c.n - before, failed, in[i], err, err_size);
    }
    if (rc == 0)
        rc = check_complete(s, in, n_in, err, err_size);
    if (rc == 0) {
        /* pmtiles_write goes through OUTPUT.tmp and a rename. */
        char *meta = merged_json_text(meta0, set_total(s, n_in));
        rc = meta ? spool_write_archive(out, meta, c.t, c.n, files, err, err_size) : -1;
        free(meta);
    }
    for (int i = 0; i < n_in; i++) {
        pmtiles_reader_close(r ? r[i] : NULL);
        if (files && files[i])
            fclose(files[i]);
    }
    json_decref(meta0);
    shard_free(s, n_in);
    free(r);
    free(files);
    free(c.t);
    free(c.buf);
    return rc;
}

/* ---- MBTiles ---- */

typedef struct {
    uint64_t id;
    int src;
} mb_key;

typedef struct {
    mb_key *k;
    size_t n, cap;
    int src;
} mb_collect;

static int mb_collect_one(void *ctx, int z, uint32_t x, uint32_t y, const unsigned char *d,
                          size_t size)
{
    (void)d;
    (void)size;
    mb_collect *c = ctx;
    mb_key *k = spool_grow(c->k, &c->cap, c->n, sizeof *k);
    if (k == NULL)
        return 1;
    c->k = k;
    c->k[c->n++] = (mb_key){pmtiles_tile_id(z, x, y), c->src};
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    const mb_key *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->src - y->src;
}

/* The metadata rows of m into values (sink_mb_meta_names order) and s: the
 * rows but the shard record as s->rest, the record parsed. */
static int mb_read_meta(mbtiles *m, char values[][SINK_META_VALUE], shard_info *s)
{
    s->rest = json_object();
    for (int k = 0; sink_mb_meta_names[k]; k++) {
        const char *name = sink_mb_meta_names[k];
        if (mbtiles_get_meta(m, name, values[k], SINK_META_VALUE) != 0)
            values[k][0] = '\0';
        if (strcmp(name, "noisetile_shard") == 0) {
            json_t *rec = json_loads(values[k], 0, NULL);
            shard_read(rec, s);
            json_decref(rec);
        } else {
            json_object_set_new(s->rest, name, json_string(values[k]));
        }
        if (strcmp(name, "noisetile_field") == 0)
            snprintf(s->field, sizeof s->field, "%s", values[k]);
    }
    return 0;
}

static int merge_mbtiles(const char *out, const char *tmp, char **in, int n_in, char *err,
                         size_t err_size)
{
    mbtiles **m = calloc((size_t)n_in, sizeof *m), *o = NULL;
    shard_info *s = calloc((size_t)n_in, sizeof *s);
    mb_collect c = {0};
    char values[16][SINK_META_VALUE], other[16][SINK_META_VALUE];
    int rc = m && s ? 0 : -1;
    if (rc != 0)
        snprintf(err, err_size, "out of memory");
    for (int i = 0; rc == 0 && i < n_in; i++) {
        m[i] = mbtiles_open(in[i], 0, err, err_size);
        if (m[i] == NULL) {
            rc = -1;
            break;
        }
        mb_read_meta(m[i], i == 0 ? values : other, &s[i]);
    }
    if (rc == 0)
        rc = check_set(s, in, n_in, err, err_size);
    for (int i = 0; rc == 0 && i < n_in; i++) {
        c.src = i;
        size_t before = c.n;
        int failed = mbtiles_each(m[i], mb_collect_one, &c) != 0;
        rc = shard_collected(&s[i], c.n - before, failed, in[i], err, err_size);
    }
    if (rc == 0)
        rc = check_complete(s, in, n_in, err, err_size);
    if (rc == 0) {
        for (int k = 0; sink_mb_meta_names[k]; k++)
            if (strcmp(sink_mb_meta_names[k], "noisetile_shard") == 0)
                plan_shard_text(0, 1, set_total(s, n_in), values[k], SINK_META_VALUE);
        if (c.n > 0)
            qsort(c.k, c.n, sizeof *c.k, cmp_key);
        o = mbtiles_open(tmp, 1, err, err_size);
        if (o == NULL || sink_mb_write_meta(o, values) != 0)
            rc = -1;
    }
    unsigned batch = 0;
    for (size_t i = 0; rc == 0 && i < c.n; i++) {
        int z;
        uint32_t x, y;
        pmtiles_tile_zxy(c.k[i].id, &z, &x, &y);
        unsigned char *data = NULL, *first = NULL;
        size_t size = 0, first_size = 0;
        if (mbtiles_get(m[c.k[i].src], z, x, y, &data, &size) != 0) {
            snprintf(err, err_size, "%s: unreadable tile %d/%u/%u", in[c.k[i].src], z, x, y);
            rc = -1;
        } else if (i > 0 && c.k[i].id == c.k[i - 1].id) {
            /* The same tile in two inputs: kept once if the bytes agree. */
            if (mbtiles_get(o, z, x, y, &first, &first_size) != 0 || first_size != size ||
                memcmp(first, data, size) != 0) {
                snprintf(err, err_size, "tile %d/%u/%u differs between %s and another input", z,
                         x, y, in[c.k[i].src]);
                rc = -1;
            }
            free(first);
            free(data);
            continue;
        } else if (mbtiles_put(o, z, x, y, data, size, err, err_size) < 0) {
            rc = -1;
        }
        free(data);
        if (rc == 0 && ++batch == SINK_MBTILES_BATCH) {
            batch = 0;
            rc = mbtiles_commit(o, err, err_size);
        }
    }
    if (o != NULL && rc == 0)
        rc = mbtiles_commit(o, err, err_size);
    mbtiles_close(o);
    if (rc == 0 && rename(tmp, out) != 0) {
        snprintf(err, err_size, "rename %s to %s: %s", tmp, out, strerror(errno));
        rc = -1;
    }
    if (rc != 0 && o != NULL) {
        char journal[4300];
        snprintf(journal, sizeof journal, "%s-journal", tmp);
        remove(tmp);
        remove(journal);
    }
    for (int i = 0; m && i < n_in; i++)
        mbtiles_close(m[i]);
    free(m);
    shard_free(s, n_in);
    free(c.k);
    return rc;
}

/* ---- directories ---- */

/* Copies src to dst (whose directory exists). Returns 0 or -1 (errno). */
static int copy_file(const char *src, const char *dst)
{
    FILE *f = fopen(src, "rb");
    unsigned char *data = NULL;
    long size = -1;
    int rc = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)size + 1)) && fread(data, 1, (size_t)size, f) == (size_t)size)
        rc = sink_write_file(dst, data, (size_t)size);
    free(data);
    if (f)
        fclose(f);
    return rc;
}

/* Copies the z/x/y.EXT tiles of input i into tmp, counting them into
 * s->found. Returns 0, or -1 with err. */
static int copy_tiles(const char *in, const char *tmp, const char *ext, shard_info *s, char *err,
                      size_t err_size)
{
    int rc = 0;
    size_t ext_len = strlen(ext);
    DIR *dz = opendir(in);
    struct dirent *ez, *ex, *ey;
    while (rc == 0 && dz && (ez = readdir(dz)) != NULL) {
        if (!sink_all_digits(ez->d_name))
            continue;
        char zdir[4300];
        snprintf(zdir, sizeof zdir, "%s/%s", in, ez->d_name);
        DIR *dx = opendir(zdir);
        while (rc == 0 && dx && (ex = readdir(dx)) != NULL) {
            if (!sink_all_digits(ex->d_name))
                continue;
            char xdir[4600], dst[4900];
            snprintf(xdir, sizeof xdir, "%s/%s", zdir, ex->d_name);
            snprintf(dst, sizeof dst, "%s/%s/%s", tmp, ez->d_name, ex->d_name);
            DIR *dy = opendir(xdir);
            int made = 0;
            while (rc == 0 && dy && (ey = readdir(dy)) != NULL) {
                size_t len = strlen(ey->d_name);
                if (len < ext_len + 2 || ey->d_name[len - ext_len - 1] != '.' ||
                    strcmp(ey->d_name + len - ext_len, ext) != 0)
                    continue;
                char src[4900], to[5200];
                snprintf(src, sizeof src, "%s/%s", xdir, ey->d_name);
                snprintf(to, sizeof to, "%s/%s", dst, ey->d_name);
                if ((!made && sink_mkdirs(dst) != 0) || copy_file(src, to) != 0) {
                    snprintf(err, err_size, "copying %s: %s", src, strerror(errno));
                    rc = -1;
                }
                made = 1;
                s->found++;
            }
            if (dy)
                closedir(dy);
        }
        if (dx)
            closedir(dx);
    }
    if (dz)
        closedir(dz);
    return rc;
}

/* Copies every tile of the inputs into the temporary directory tmp, with
 * the merged metadata.json; renaming tmp into place is the caller's. */
static int merge_dir(const char *tmp, char **in, int n_in, char *err, size_t err_size)
{
    shard_info *s = calloc((size_t)n_in, sizeof *s);
    json_t *meta0 = NULL;
    int rc = s ? 0 : -1;
    if (rc != 0)
        snprintf(err, err_size, "out of memory");
    for (int i = 0; rc == 0 && i < n_in; i++) {
        char path[4300];
        snprintf(path, sizeof path, "%s/metadata.json", in[i]);
        json_t *meta = json_load_file(path, 0, NULL);
        if (meta == NULL) {
            snprintf(err, err_size, "input %d (%s): no readable metadata.json, not an export", i + 1,
                     in[i]);
            rc = -1;
            break;
        }
        shard_take(meta, i, &s[i], &meta0);
    }
    if (rc == 0)
        rc = check_set(s, in, n_in, err, err_size);
    char path[4300];
    snprintf(path, sizeof path, "%s", tmp);
    if (rc == 0 && sink_mkdirs(path) != 0) {
        snprintf(err, err_size, "%s: %s", tmp, strerror(errno));
        rc = -1;
    }
    const char *ext = json_is_string(json_object_get(meta0, "format"))
                          ? json_string_value(json_object_get(meta0, "format"))
                          : "png";
    for (int i = 0; rc == 0 && i < n_in; i++)
        rc = copy_tiles(in[i], tmp, ext, &s[i], err, err_size);
    if (rc == 0)
        rc = check_complete(s, in, n_in, err, err_size);
    if (rc == 0) {
        char *text = merged_json_text(meta0, set_total(s, n_in));
        snprintf(path, sizeof path, "%s/metadata.json", tmp);
        if (text == NULL || sink_write_file(path, text, strlen(text)) != 0) {
            snprintf(err, err_size, "%s: cannot write", path);
            rc = -1;
        }
        free(text);
    }
    json_decref(meta0);
    shard_free(s, n_in);
    return rc;
}

/* Removes a directory merge's temporary (or replaced) directory. */
static void remove_dir_output(const char *path)
{
    sink_remove_tiles(path);
    rmdir(path);
}

/* The temporary directory into place; an existing OUTPUT (--force, an
 * export's directory) is moved aside first and removed after. */
static int place_dir(const char *tmp, const char *out, int exists, char *err, size_t err_size)
{
    char old[4300];
    snprintf(old, sizeof old, "%s.merge-%ld.old", out, (long)getpid());
    if (exists && rename(out, old) != 0) {
        snprintf(err, err_size, "rename %s: %s", out, strerror(errno));
        return -1;
    }
    if (rename(tmp, out) != 0) {
        snprintf(err, err_size, "rename %s to %s: %s", tmp, out, strerror(errno));
        if (exists)
            rename(old, out);
        return -1;
    }
    if (exists) {
        remove_dir_output(old);
        if (access(old, F_OK) == 0)
            fprintf(stderr, "noisetile merge: the replaced %s held other files: they are in %s\n",
                    out, old);
    }
    return 0;
}

/* ---- the command ---- */

/* Whether OUTPUT may be written: absent, or present with --force (a
 * directory only when it holds an export). Returns 0, or -1 with err. */
static int check_output(const char *out, sink_format f, int force, int *exists, char *err,
                        size_t err_size)
{
    struct stat st;
    *exists = stat(out, &st) == 0;
    if (!*exists)
        return 0;
    if (!force) {
        snprintf(err, err_size,
                 "%s exists; merge writes a new output: remove it, choose another name or pass "
                 "--force to replace it", out);
        return -1;
    }
    char meta[4300];
    snprintf(meta, sizeof meta, "%s/metadata.json", out);
    if (f == SINK_DIR && (!S_ISDIR(st.st_mode) || access(meta, F_OK) != 0)) {
        snprintf(err, err_size,
                 "%s exists and is not an export's directory (no metadata.json): --force "
                 "replaces only an export", out);
        return -1;
    }
    if (f != SINK_DIR && S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "%s is a directory", out);
        return -1;
    }
    return 0;
}

int export_merge_main(int argc, char **argv)
{
    const char *out = NULL, *v;
    char **in = calloc((size_t)argc, sizeof *in);
    int n_in = 0, force = 0;
    char err[1024];
    if (in == NULL)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(merge_usage, stdout);
            free(in);
            return 0;
        } else if (strcmp(argv[i], "--force") == 0) {
            force = 1;
        } else if ((v = cli_opt_value(argc, argv, &i, "-o")) || (v = cli_opt_value(argc, argv, &i, "--output"))) {
            out = v;
        } else if (argv[i][0] == '-') {
            free(in);
            return cli_usage_error("merge", merge_usage, "unknown option '%s'", argv[i]);
        } else {
            in[n_in++] = argv[i];
        }
    }
    if (out == NULL || n_in == 0) {
        free(in);
        return cli_usage_error("merge", merge_usage, "%s", out ? "no INPUT" : "missing -o OUTPUT");
    }
    /* "out/" names the directory out: its temporary sibling is "out.merge-…". */
    char out_buf[4096];
    snprintf(out_buf, sizeof out_buf, "%s", out);
    for (size_t n = strlen(out_buf); n > 1 && out_buf[n - 1] == '/'; n--)
        out_buf[n - 1] = '\0';
    out = out_buf;
    sink_format f = sink_format_of(out);
    for (int i = 0; i < n_in; i++)
        if (sink_format_of(in[i]) != f) {
            fprintf(stderr, "noisetile merge: %s is not a %s like %s\n", in[i], sink_format_name(f), out);
            free(in);
            return 2;
        }
    int exists = 0;
    int rc = n_in <= 100000 ? check_output(out, f, force, &exists, err, sizeof err) : -1;
    if (n_in > 100000)
        snprintf(err, sizeof err, "more than 100000 inputs");
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.merge-%ld.tmp", out, (long)getpid());
    if (rc == 0 && f == SINK_PMTILES)
        rc = merge_pmtiles(out, in, n_in, err, sizeof err);
    else if (rc == 0 && f == SINK_MBTILES)
        rc = merge_mbtiles(out, tmp, in, n_in, err, sizeof err);
    else if (rc == 0) {
        rc = merge_dir(tmp, in, n_in, err, sizeof err);
        if (rc == 0)
            rc = place_dir(tmp, out, exists, err, sizeof err);
        if (rc != 0)
            remove_dir_output(tmp);
    }
    free(in);
    if (rc != 0) {
        fprintf(stderr, "noisetile merge: %s\n", err);
        return 1;
    }
    fprintf(stderr, "noisetile merge: wrote %s from %d inputs\n", out, n_in);
    return 0;
}
