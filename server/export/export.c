/* export.c: `noisetile export`, the command line (see export.h): read the
 * arguments into a plan, then either estimate (--dry-run) or list the
 * shard's tiles, open the output (resuming), render on every core and write
 * in order, close and report. The pieces: plan.h (what is exported),
 * sink.h (where it goes), spool.h (PMTiles' spool), workers.h (the render
 * threads), merge.c (`noisetile merge`). */
#include "export/export.h"

/* Messages naming long paths are cut to the caller's buffer on purpose.
 * (GCC only: clang, which builds the fuzz targets, has no such warning.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/cli.h"
#include "export/plan.h"
#include "export/progress.h"
#include "export/sink.h"
#include "export/workers.h"
#include "service/heightsreq.h"
#include "service/query.h"

static const char export_usage[] =
    "usage: noisetile export FIELD -o OUTPUT --zoom Z|A-B (--bbox X0,Y0,X1,Y1 | --tiles Z/X0-X1/Y0-Y1)\n"
    "                        [--format mbtiles|pmtiles|dir] [--scale 1|2] [--jobs N]\n"
    "                        [--shard K/N] [--name TEXT] [--progress-seconds S] [--dry-run]\n"
    "                        [--yes] [--force]\n"
    "\n"
    "Renders the tiles of one field over plane zooms A..B and a region into an\n"
    "MBTiles file, a PMTiles archive or a z/x/y.png directory; each tile has the\n"
    "bytes the daemon answers for the same URL.\n"
    "\n"
    "  FIELD            KIND/SEED with the URL's parameters, e.g.\n"
    "                   'perlin/7?octaves=5&palette=terrain&shade=1'\n"
    "  -o, --output     OUTPUT.mbtiles, OUTPUT.pmtiles, or a directory\n"
    "  --format         mbtiles, pmtiles or dir (default: from OUTPUT's name)\n"
    "  --zoom           plane zoom or range, 0..30\n"
    "  --bbox           region in plane units (x right, y down), X0<X1, Y0<Y1\n"
    "  --tiles          region as the plane tiles Z/X0-X1/Y0-Y1 (zoom Z unless --zoom)\n"
    "  --scale 2        512-pixel tiles (the daemon's @2x)\n"
    "  --ext npy|r16    numeric tiles (directory exports): the daemon's .npy or\n"
    "                   .r16 tiles; PNG heights: encoding=gray16|terrarium|mapbox\n"
    "                   in FIELD (any format)\n"
    "  --jobs N         render threads, 1..256 (default: number of cores)\n"
    "  --shard K/N      only the K-th (0..N-1) of N equal parts; join with noisetile merge\n"
    "  --progress-seconds S   plain progress line interval off a terminal (default 5)\n"
    "  --dry-run        print the tile count and a size and time estimate, write nothing\n"
    "  --yes            start an export over 10,000,000 tiles or about 10 GB (without it,\n"
    "                   such an export stops and says its size)\n"
    "  --force          replace an existing OUTPUT that holds something else (another\n"
    "                   export, another shard, a file that is no export); without it\n"
    "                   such an OUTPUT is left as it is\n"
    "\n"
    "Archives number tiles 0..2^z-1: archive tile (z, x, y) is plane tile\n"
    "(z-k, x + ox*2^(z-k), y + oy*2^(z-k)), with k, ox, oy chosen to hold the\n"
    "region and recorded in the metadata. Interrupted (Ctrl-C, SIGTERM), the\n"
    "output stays valid and the same command resumes.\n";


/* ---- signals ---- */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

/* Only the calling thread (the writer) sees these; export_workers_start
 * blocks them in the render threads. */
static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* ---- the command line ---- */

/* What the arguments ask for. */
typedef struct {
    plan p;
    const char *field, *out;
    sink_format format;
    int have_zoom, have_region, dry_run;
    long jobs;
    int64_t shard_k, shard_n;
    double plain_seconds;
    /* Derived: positions [from, to) of the export order, and the tag that
     * names the shard in messages and in the spool's head. */
    char shard_tag[64];
    int force, yes;
} export_cmd;

static int usage(const char *fmt, const char *what)
{
    return cli_usage_error("export", export_usage, fmt, what);
}

/* --tiles Z/X0-X1/Y0-Y1 into the region (and the zoom, unless given). */
static int parse_tiles_option(export_cmd *c, const char *v)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    char *s1 = strchr(buf, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
    int64_t z, xa, xb, ya, yb;
    if (s2 == NULL)
        return usage("--tiles must be Z/X0-X1/Y0-Y1, got '%s'", v);
    *s1 = *s2 = '\0';
    if (route_parse_int(buf, strlen(buf), 0, ROUTE_MAX_Z, &z) != 0 ||
        plan_parse_range(s1 + 1, INT32_MIN, INT32_MAX, &xa, &xb) != 0 ||
        plan_parse_range(s2 + 1, INT32_MIN, INT32_MAX, &ya, &yb) != 0)
        return usage("--tiles must be Z/X0-X1/Y0-Y1 (z 0..30, x and y int32, X0<=X1, Y0<=Y1), got '%s'", v);
    double side = RENDER_WORLD_SIZE / ldexp(1.0, (int)z);
    c->p.x0 = (double)xa * side;
    c->p.x1 = (double)(xb + 1) * side;
    c->p.y0 = (double)ya * side;
    c->p.y1 = (double)(yb + 1) * side;
    if (!c->have_zoom)
        c->p.zmin = c->p.zmax = (int)z;
    c->have_region = 2;
    return 0;
}

/* One option or argument at argv[*i]. Returns 0 to go on, 2 for bad usage,
 * -1 when --help was printed. */
static int parse_one(export_cmd *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v;
    plan *p = &c->p;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        fputs(export_usage, stdout);
        return -1;
    } else if (strcmp(a, "--dry-run") == 0) {
        c->dry_run = 1;
    } else if (strcmp(a, "--force") == 0) {
        c->force = 1;
    } else if (strcmp(a, "--yes") == 0) {
        c->yes = 1;
    } else if ((v = cli_opt_value(argc, argv, i, "-o")) || (v = cli_opt_value(argc, argv, i, "--output"))) {
        c->out = v;
    } else if ((v = cli_opt_value(argc, argv, i, "--format"))) {
        c->format = strcmp(v, "mbtiles") == 0   ? SINK_MBTILES
                    : strcmp(v, "pmtiles") == 0 ? SINK_PMTILES
                    : strcmp(v, "dir") == 0     ? SINK_DIR
                                                : SINK_NONE;
        if (c->format == SINK_NONE)
            return usage("--format must be mbtiles, pmtiles or dir, got '%s'", v);
    } else if ((v = cli_opt_value(argc, argv, i, "--zoom"))) {
        int64_t a0, b0;
        if (plan_parse_range(v, 0, ROUTE_MAX_Z, &a0, &b0) != 0)
            return usage("--zoom must be Z or A-B with 0 <= A <= B <= 30, got '%s'", v);
        p->zmin = (int)a0;
        p->zmax = (int)b0;
        c->have_zoom = 1;
    } else if ((v = cli_opt_value(argc, argv, i, "--bbox"))) {
        double b[4];
        if (plan_parse_doubles(v, b, 4) != 0 || !(b[0] < b[2]) || !(b[1] < b[3]) ||
            fabs(b[0]) > 1e9 || fabs(b[1]) > 1e9 || fabs(b[2]) > 1e9 || fabs(b[3]) > 1e9)
            return usage("--bbox must be X0,Y0,X1,Y1 with X0<X1, Y0<Y1, |values| <= 1e9, got '%s'", v);
        p->x0 = b[0];
        p->y0 = b[1];
        p->x1 = b[2];
        p->y1 = b[3];
        c->have_region = 1;
    } else if ((v = cli_opt_value(argc, argv, i, "--tiles"))) {
        return parse_tiles_option(c, v);
    } else if ((v = cli_opt_value(argc, argv, i, "--ext"))) {
        p->ext = strcmp(v, "png") == 0   ? ROUTE_EXT_PNG
                 : strcmp(v, "npy") == 0 ? ROUTE_EXT_NPY
                 : strcmp(v, "r16") == 0 ? ROUTE_EXT_R16
                                         : (route_ext)-1;
        if ((int)p->ext < 0)
            return usage("--ext must be png, npy or r16, got '%s'", v);
    } else if ((v = cli_opt_value(argc, argv, i, "--scale"))) {
        if (strcmp(v, "1") != 0 && strcmp(v, "2") != 0)
            return usage("--scale must be 1 or 2, got '%s'", v);
        p->scale = v[0] - '0';
    } else if ((v = cli_opt_value(argc, argv, i, "--jobs"))) {
        int64_t j;
        if (route_parse_int(v, strlen(v), 1, 256, &j) != 0)
            return usage("--jobs must be an integer in 1..256, got '%s'", v);
        c->jobs = (long)j;
    } else if ((v = cli_opt_value(argc, argv, i, "--shard"))) {
        const char *sl = strchr(v, '/');
        if (sl == NULL || route_parse_int(v, (size_t)(sl - v), 0, 1000000, &c->shard_k) != 0 ||
            route_parse_int(sl + 1, strlen(sl + 1), 1, 1000000, &c->shard_n) != 0 ||
            c->shard_k >= c->shard_n)
            return usage("--shard must be K/N with 0 <= K < N <= 1000000, got '%s'", v);
    } else if ((v = cli_opt_value(argc, argv, i, "--name"))) {
        if (strlen(v) >= sizeof p->name)
            return usage("--name is too long: '%s'", v);
        if (!cli_valid_utf8(v))
            return usage("%s", "--name must be valid UTF-8 text (it is stored as the archive's name)");
        snprintf(p->name, sizeof p->name, "%s", v);
    } else if ((v = cli_opt_value(argc, argv, i, "--progress-seconds"))) {
        if (query_parse_number(v, &c->plain_seconds) != 0 || !(c->plain_seconds > 0) ||
            c->plain_seconds > 3600)
            return usage("--progress-seconds must be a number in (0, 3600], got '%s'", v);
    } else if (a[0] == '-' && a[1] != '\0') {
        return usage("unknown option '%s'", a);
    } else if (c->field == NULL) {
        c->field = a;
    } else {
        return usage("unexpected argument '%s'", a);
    }
    return 0;
}

/* The arguments into c, the plan made and checked. Returns 0 to go on, or
 * the exit status (0 after --help, 2 for bad usage). */
static int read_command(export_cmd *c, int argc, char **argv)
{
    memset(c, 0, sizeof *c);
    c->p.scale = 1;
    c->jobs = sysconf(_SC_NPROCESSORS_ONLN);
    c->shard_n = 1;
    c->plain_seconds = 5;
    for (int i = 1; i < argc; i++) {
        int rc = parse_one(c, argc, argv, &i);
        if (rc != 0)
            return rc < 0 ? -1 : rc;
    }
    if (c->field == NULL)
        return usage("%s", "missing FIELD");
    if (c->out == NULL)
        return usage("%s", "missing -o OUTPUT");
    if (!c->have_region)
        return usage("%s", "missing --bbox or --tiles (the plane is infinite)");
    if (!c->have_zoom && c->have_region != 2)
        return usage("%s", "missing --zoom");
    char err[1024];
    if (plan_parse_field(c->field, &c->p, err, sizeof err) != 0 ||
        plan_mapping(&c->p, err, sizeof err) != 0) {
        fprintf(stderr, "noisetile export: %s\n", err);
        return 2;
    }
    if (c->format == SINK_NONE)
        c->format = sink_format_of(c->out);
    if (c->p.ext != ROUTE_EXT_PNG && c->format != SINK_DIR)
        return usage("--ext %s tiles go to a directory export only", heightsreq_ext_name(c->p.ext));
    plan_set_shard(&c->p, c->shard_k, c->shard_n);
    if (c->shard_n > 1)
        snprintf(c->shard_tag, sizeof c->shard_tag, "; shard %" PRId64 "/%" PRId64, c->shard_k,
                 c->shard_n);
    return 0;
}

/* An export past either size asks for --yes. */
#define ASK_TILES 10000000ULL /* tiles in one run */
#define ASK_BYTES 10e9        /* estimated bytes of one run: 10 GB */

/* Bytes a tile can take at most (8 per pixel: more than a PNG of RGBA or
 * a .npy of float32 carries): below ASK_BYTES at that, no sampling needed. */
static double worst_tile_bytes(const plan *p)
{
    double side = 256.0 * p->scale;
    return side * side * 8 + 4096;
}

/* --dry-run: the count, the mapping, and an estimate from sample tiles,
 * in bounded memory and seconds whatever the size. */
static int dry_run(const export_cmd *c)
{
    const plan *p = &c->p;
    uint64_t n = p->to - p->from;
    printf("noisetile export: %" PRIu64 " tiles%s (plane zoom %d-%d, archive zoom %d-%d) of %s\n",
           n, c->shard_tag, p->zmin, p->zmax, p->zmin + p->k, p->zmax + p->k, p->url);
    printf("output: %s (%s); archive tile (z, x, y) = plane tile (z-%d, x%+" PRId64
           "*2^(z-%d), y%+" PRId64 "*2^(z-%d))\n",
           c->out, sink_format_name(c->format), p->k, p->ox, p->k, p->oy, p->k);
    plan_estimate e;
    plan_estimate_size(p, &e);
    char size_text[32], time_text[32];
    double bytes = e.bytes_per_tile * (double)n;
    progress_format_bytes(bytes, size_text, sizeof size_text);
    progress_format_seconds(e.seconds_per_tile * (double)n / (double)c->jobs, time_text,
                            sizeof time_text);
    printf("estimate from %d sample tiles: %.0f bytes/tile, %s, %s with %ld threads\n", e.samples,
           e.bytes_per_tile, size_text, time_text, c->jobs);
    if (c->format == SINK_PMTILES)
        printf("memory: up to %.0f MB at the end, for the PMTiles directory (%d bytes a tile)\n",
               (double)n * SPOOL_INDEX_BYTES / 1e6, SPOOL_INDEX_BYTES);
    if ((double)n > (double)ASK_TILES || bytes > ASK_BYTES)
        printf("note: over %llu tiles or 10 GB: the export asks for --yes\n", ASK_TILES);
    return 0;
}

/* An export over ASK_TILES tiles or about ASK_BYTES bytes starts only with
 * --yes. Returns 0 to go on, or 2 after saying why not. */
static int ask_size(const export_cmd *c)
{
    const plan *p = &c->p;
    uint64_t n = p->to - p->from;
    double bytes = 0;
    int samples = 0;
    if ((double)n * worst_tile_bytes(p) > ASK_BYTES) {
        plan_estimate e;
        plan_estimate_size(p, &e);
        bytes = e.bytes_per_tile * (double)n;
        samples = e.samples;
    }
    if (c->yes || (n <= ASK_TILES && bytes <= ASK_BYTES))
        return 0;
    char size_text[32], shard[64] = "";
    progress_format_bytes(bytes, size_text, sizeof size_text);
    if (p->shard_n > 1)
        snprintf(shard, sizeof shard, " (shard %" PRId64 "/%" PRId64 ")", p->shard_k, p->shard_n);
    fprintf(stderr,
            "noisetile export: this run is %" PRIu64 " tiles%s, about %s (estimate from %d "
            "sample tiles), over the %llu tiles or 10 GB an export starts without asking: pass "
            "--yes to go ahead (--dry-run estimates without writing)\n",
            n, shard, size_text, samples, ASK_TILES);
    return 2;
}

/* Renders the n tiles of the order from position pos on the render
 * threads and writes them in order into s, counting into *done. Returns 0,
 * or -1 with err; a stop signal ends it early with 0 (stop_signal then says
 * which). */
static int render_and_write(const export_cmd *c, sink *s, uint64_t pos, uint64_t n,
                            uint64_t total, uint64_t *done, char *err, size_t err_size)
{
    catch_stop_signals();
    export_workers w;
    int started = export_workers_start(&w, &c->p, pos, n, c->jobs) == 0;
    progress *prog = progress_create(stderr, isatty(STDERR_FILENO), c->plain_seconds, total,
                                     "noisetile export");
    int rc = started && prog ? 0 : -1;
    if (rc != 0)
        snprintf(err, err_size, "cannot start the render threads");
    if (rc == 0)
        progress_update(prog, *done, s->bytes);
    for (uint64_t i = 0; rc == 0 && i < n; i++) {
        export_workers_slot got;
        if (!export_workers_take(&w, i, &stop_signal, &got))
            break;
        if (got.rc != 0) {
            snprintf(err, err_size, "rendering a tile failed (%d)", got.rc);
            rc = -1;
        } else {
            rc = sink_put(s, got.id, got.png, got.size, err, err_size);
        }
        free(got.png);
        (*done)++;
        progress_update(prog, *done, s->bytes);
    }
    export_workers_stop(&w);
    if (prog && rc == 0)
        progress_finish(prog, *done, s->bytes);
    progress_destroy(prog);
    return rc;
}

/* The last words of a run stopped by a signal; returns its exit status. */
static int report_stopped(const export_cmd *c, const sink *s, int sig, uint64_t done,
                          uint64_t total)
{
    const char *name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    if (c->format == SINK_PMTILES)
        fprintf(stderr,
                "noisetile export: %s: stopped after %" PRIu64 " of %" PRIu64
                " tiles. A PMTiles archive is written at the end, so %s is not there yet; "
                "the tiles so far are kept in %s: run the same command again to resume.\n",
                name, done, total, c->out, s->spool.path);
    else
        fprintf(stderr,
                "noisetile export: %s: stopped after %" PRIu64 " of %" PRIu64
                " tiles; %s is valid with the tiles so far: run the same command again to "
                "resume.\n",
                name, done, total, c->out);
    return 128 + sig;
}

int export_main(int argc, char **argv)
{
    export_cmd c;
    int rc = read_command(&c, argc, argv);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    if (c.dry_run)
        return dry_run(&c);

    rc = ask_size(&c);
    if (rc != 0)
        return rc;
    char err[1024];
    uint64_t n_shard = c.p.to - c.p.from, done = 0;
    if (c.format == SINK_PMTILES && sink_pmtiles_complete(c.out, &c.p, n_shard)) {
        fprintf(stderr, "noisetile export: %s is complete (%" PRIu64 " tiles%s): nothing to do\n",
                c.out, n_shard, c.shard_tag);
        return 0;
    }
    sink s;
    sink_init(&s, c.format, c.out, &c.p);
    s.force = c.force;
    if (sink_open(&s, c.shard_tag, &done, err, sizeof err) != 0) {
        fprintf(stderr, "noisetile export: %s\n", err);
        sink_close(&s, 0, -1, err, sizeof err);
        return 1;
    }
    if (done > 0)
        fprintf(stderr, "noisetile export: resuming: %" PRIu64 " of %" PRIu64 " tiles already in %s\n",
                done, n_shard, sink_progress_path(&s));

    rc = render_and_write(&c, &s, c.p.from + done, n_shard - done, n_shard, &done, err,
                          sizeof err);
    int sig = stop_signal;
    rc = sink_close(&s, !sig, rc, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "noisetile export: %s\n", err);
        return 1;
    }
    if (sig)
        return report_stopped(&c, &s, sig, done, n_shard);
    fprintf(stderr, "noisetile export: wrote %" PRIu64 " tiles%s to %s\n", n_shard, c.shard_tag, c.out);
    return 0;
}
