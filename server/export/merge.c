/* merge.c: `noisetile merge`: the shard outputs of one export (all MBTiles,
 * all PMTiles or all directories) joined into one output, the same bytes as
 * the export run as one process (see export.h). */
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
#include <unistd.h>

#include "export/cli.h"
#include "export/mbtiles.h"
#include "export/pmtiles.h"
#include "export/plan.h"
#include "export/sink.h"
#include "export/spool.h"


static const char merge_usage[] =
    "usage: noisetile merge -o OUTPUT INPUT...\n"
    "\n"
    "Joins the shard outputs of one export (`noisetile export --shard K/N`), all\n"
    "MBTiles, all PMTiles or all directories, into OUTPUT: the same bytes as the\n"
    "export run as one process.\n";

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
    if (n_in <= 0 || n_in > 100000)
        return -1;
    pmtiles_reader **r = calloc((size_t)n_in, sizeof *r);
    FILE **files = calloc((size_t)n_in, sizeof *files);
    pm_collect c = {0};
    int rc = r && files ? 0 : -1;
    for (int i = 0; rc == 0 && i < n_in; i++) {
        r[i] = pmtiles_reader_open(in[i], err, err_size);
        if (r[i] == NULL) {
            rc = -1;
            break;
        }
        if (i > 0 && strcmp(pmtiles_reader_metadata(r[i]), pmtiles_reader_metadata(r[0])) != 0) {
            snprintf(err, err_size, "%s and %s are not shards of the same export (metadata differs)",
                     in[0], in[i]);
            rc = -1;
            break;
        }
        files[i] = fopen(in[i], "rb");
        c.src = (uint32_t)i;
        c.r = r[i];
        if (files[i] == NULL || pmtiles_reader_each(r[i], pm_collect_one, &c, err, err_size) != 0) {
            snprintf(err, err_size, "%s: unreadable tiles", in[i]);
            rc = -1;
        }
    }
    if (rc == 0)
        rc = spool_write_archive(out, pmtiles_reader_metadata(r[0]), c.t, c.n, files, err, err_size);
    for (int i = 0; i < n_in; i++) {
        pmtiles_reader_close(r ? r[i] : NULL);
        if (files && files[i])
            fclose(files[i]);
    }
    free(r);
    free(files);
    free(c.t);
    free(c.buf);
    return rc;
}

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

static int merge_mbtiles(const char *out, char **in, int n_in, char *err, size_t err_size)
{
    if (n_in <= 0 || n_in > 100000)
        return -1;
    if (access(out, F_OK) == 0) {
        snprintf(err, err_size, "%s exists; merge writes a new file", out);
        return -1;
    }
    mbtiles **m = calloc((size_t)n_in, sizeof *m), *o = NULL;
    mb_collect c = {0};
    char values[16][SINK_META_VALUE], v[SINK_META_VALUE];
    int rc = m ? 0 : -1;
    for (int i = 0; rc == 0 && i < n_in; i++) {
        m[i] = mbtiles_open(in[i], 0, err, err_size);
        if (m[i] == NULL) {
            rc = -1;
            break;
        }
        for (int k = 0; rc == 0 && sink_mb_meta_names[k]; k++) {
            if (mbtiles_get_meta(m[i], sink_mb_meta_names[k], v, sizeof v) != 0 ||
                (i > 0 && strcmp(v, values[k]) != 0)) {
                snprintf(err, err_size, "%s: metadata '%s' %s", in[i], sink_mb_meta_names[k],
                         i > 0 ? "differs from the first input's" : "missing");
                rc = -1;
            }
            if (i == 0)
                snprintf(values[k], sizeof values[k], "%s", v);
        }
        c.src = i;
        if (rc == 0 && mbtiles_each(m[i], mb_collect_one, &c) != 0) {
            snprintf(err, err_size, "%s: unreadable tiles", in[i]);
            rc = -1;
        }
    }
    if (rc == 0) {
        qsort(c.k, c.n, sizeof *c.k, cmp_key);
        o = mbtiles_open(out, 1, err, err_size);
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
    if (rc != 0 && o != NULL)
        remove(out);
    for (int i = 0; m && i < n_in; i++)
        mbtiles_close(m[i]);
    free(m);
    free(c.k);
    return rc;
}

/* Copies every z/x/y.png of in into out, and metadata.json (which must be
 * the same in every input). */
static int merge_dir(const char *out, char **in, int n_in, char *err, size_t err_size)
{
    char first[4200], path[4300];
    snprintf(first, sizeof first, "%s/metadata.json", in[0]);
    json_t *meta0 = json_load_file(first, 0, NULL);
    if (meta0 == NULL) {
        snprintf(err, err_size, "%s: missing or unreadable", first);
        return -1;
    }
    int rc = 0;
    snprintf(path, sizeof path, "%s", out);
    if (sink_mkdirs(path) != 0) {
        snprintf(err, err_size, "%s: %s", out, strerror(errno));
        rc = -1;
    }
    for (int i = 0; rc == 0 && i < n_in; i++) {
        snprintf(path, sizeof path, "%s/metadata.json", in[i]);
        json_t *meta = json_load_file(path, 0, NULL);
        int same = meta && json_equal(meta, meta0);
        json_decref(meta);
        if (!same) {
            snprintf(err, err_size, "%s: not a shard of the same export as %s", in[i], in[0]);
            rc = -1;
            break;
        }
        DIR *dz = opendir(in[i]);
        struct dirent *ez, *ex, *ey;
        while (rc == 0 && dz && (ez = readdir(dz)) != NULL) {
            if (ez->d_name[0] < '0' || ez->d_name[0] > '9')
                continue;
            char zdir[4300];
            snprintf(zdir, sizeof zdir, "%s/%s", in[i], ez->d_name);
            DIR *dx = opendir(zdir);
            while (rc == 0 && dx && (ex = readdir(dx)) != NULL) {
                if (ex->d_name[0] < '0' || ex->d_name[0] > '9')
                    continue;
                char xdir[4600];
                snprintf(xdir, sizeof xdir, "%s/%s", zdir, ex->d_name);
                DIR *dy = opendir(xdir);
                while (rc == 0 && dy && (ey = readdir(dy)) != NULL) {
                    size_t len = strlen(ey->d_name);
                    if (len < 5 || strcmp(ey->d_name + len - 4, ".png") != 0)
                        continue;
                    char src[4900], dst[4900];
                    snprintf(src, sizeof src, "%s/%s", xdir, ey->d_name);
                    snprintf(dst, sizeof dst, "%s/%s/%s", out, ez->d_name, ex->d_name);
                    FILE *f = fopen(src, "rb");
                    unsigned char *data = NULL;
                    long size = -1;
                    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
                        fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)size + 1)) &&
                        fread(data, 1, (size_t)size, f) == (size_t)size && sink_mkdirs(dst) == 0) {
                        snprintf(dst, sizeof dst, "%s/%s/%s/%s", out, ez->d_name, ex->d_name,
                                 ey->d_name);
                        if (sink_write_file(dst, data, (size_t)size) != 0)
                            rc = -1;
                    } else {
                        rc = -1;
                    }
                    if (rc != 0)
                        snprintf(err, err_size, "copying %s: %s", src, strerror(errno));
                    free(data);
                    if (f)
                        fclose(f);
                }
                if (dy)
                    closedir(dy);
            }
            if (dx)
                closedir(dx);
        }
        if (dz)
            closedir(dz);
    }
    if (rc == 0) {
        char *text = plan_json_text(meta0);
        snprintf(path, sizeof path, "%s/metadata.json", out);
        if (text == NULL || sink_write_file(path, text, strlen(text)) != 0) {
            snprintf(err, err_size, "%s: cannot write", path);
            rc = -1;
        }
        free(text);
    }
    json_decref(meta0);
    return rc;
}

int export_merge_main(int argc, char **argv)
{
    const char *out = NULL, *v;
    char **in = calloc((size_t)argc, sizeof *in);
    int n_in = 0;
    char err[1024];
    if (in == NULL)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(merge_usage, stdout);
            free(in);
            return 0;
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
    sink_format f = sink_format_of(out);
    for (int i = 0; i < n_in; i++)
        if (sink_format_of(in[i]) != f) {
            fprintf(stderr, "noisetile merge: %s is not a %s like %s\n", in[i], sink_format_name(f), out);
            free(in);
            return 2;
        }
    int rc = f == SINK_PMTILES   ? merge_pmtiles(out, in, n_in, err, sizeof err)
             : f == SINK_MBTILES ? merge_mbtiles(out, in, n_in, err, sizeof err)
                                : merge_dir(out, in, n_in, err, sizeof err);
    free(in);
    if (rc != 0) {
        fprintf(stderr, "noisetile merge: %s\n", err);
        return 1;
    }
    fprintf(stderr, "noisetile merge: wrote %s from %d inputs\n", out, n_in);
    return 0;
}
