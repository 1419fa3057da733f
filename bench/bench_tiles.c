/* bench_tiles.c: how long a cold tile takes (grid fill, PNG encode, the two
 * together) and how the tile encoder compares with libpng's defaults, in
 * time and bytes, for gray, palette (terrain) and shaded tiles; the WebP
 * encoder against the PNG one on busy and smooth tiles; and what a
 * supersampled tile below zoom 0 costs (coarse.h).
 *
 * Usage: bench_tiles [--reps N] [--explore]
 *   --explore also times a range of zlib levels, strategies and row
 *   filters per format (how pngenc's settings were chosen).
 * Field: perlin, seed 1, 6 octaves (fBm); 8 tiles of zoom 3, 256 x 256.
 * Every figure is the median over tiles x repetitions, one thread.
 */
#include <malloc.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "bench_util.h"
#include "noise.h"
#include "tiles/coarse.h"
#include "tiles/pngenc.h"
#include "tiles/render.h"
#include "tiles/webpenc.h"

#define PX 256
#define N_TILES 8
static const int tile_xy[N_TILES][2] = {{-2, -1}, {-1, -1}, {0, -1}, {1, -1},
                                        {-2, 0},  {-1, 0},  {0, 0},  {1, 0}};
#define ZOOM 3

/* ---- raw decode of our own tiles (pixels as stored, palette) ---- */

typedef struct {
    const unsigned char *data;
    size_t size, pos;
} reader;

static void read_mem(png_structp png, png_bytep out, png_size_t n)
{
    reader *r = png_get_io_ptr(png);
    if (n > r->size - r->pos)
        png_error(png, "truncated");
    memcpy(out, r->data + r->pos, n);
    r->pos += n;
}

typedef struct {
    pngenc_format format;
    unsigned char *pixels; /* PX * PX * channels */
    size_t stride;
    unsigned char plte[768];
    int n_plte;
} image;

static int decode_raw(const unsigned char *png_bytes, size_t size, image *out)
{
    reader r = {png_bytes, size, 0};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_set_read_fn(png, &r, read_mem);
    png_read_info(png, info);
    int ct = png_get_color_type(png, info);
    out->format = ct == PNG_COLOR_TYPE_GRAY ? PNGENC_GRAY
                  : ct == PNG_COLOR_TYPE_PALETTE ? PNGENC_INDEXED
                                                 : PNGENC_RGB;
    out->stride = (size_t)PX * (out->format == PNGENC_RGB ? 3 : 1);
    out->pixels = malloc(out->stride * PX);
    out->n_plte = 0;
    if (ct == PNG_COLOR_TYPE_PALETTE) {
        png_colorp pal;
        png_get_PLTE(png, info, &pal, &out->n_plte);
        for (int k = 0; k < out->n_plte; k++) {
            out->plte[3 * k] = pal[k].red;
            out->plte[3 * k + 1] = pal[k].green;
            out->plte[3 * k + 2] = pal[k].blue;
        }
    }
    for (int j = 0; j < PX; j++)
        png_read_row(png, out->pixels + (size_t)j * out->stride, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

/* ---- measurements ---- */

typedef struct {
    const char *name;
    render_opts opts;
} tile_kind;

static const tile_kind kinds[] = {
    {"gray", {.palette = RENDER_GRAY, .shade = 0, .zero = 0}},
    {"palette (terrain)", {.palette = RENDER_TERRAIN, .shade = 0, .zero = 0}},
    {"shaded (terrain)", {.palette = RENDER_TERRAIN, .shade = 1, .zero = 0}},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

typedef struct {
    double us, bytes;
} result;

/* Median encode time and size over the N_TILES images for each of n
 * settings, interleaved (tile, repetition, setting) so that load changes
 * on the machine hit every setting alike; results in out[n]. */
static void time_encode(image *imgs, const pngenc_settings *s, int n, int reps, result *out)
{
    double *t = malloc(sizeof(double) * (size_t)n * N_TILES * reps);
    double *bytes = malloc(sizeof(double) * (size_t)n * N_TILES);
    for (int k = 0; k < N_TILES; k++)
        for (int r = 0; r < reps; r++)
            for (int c = 0; c < n; c++) {
                unsigned char *png;
                size_t size;
                double t0 = now_us();
                int rc = pngenc_encode(imgs[k].pixels, PX, PX, imgs[k].stride, imgs[k].format,
                                       imgs[k].plte, imgs[k].n_plte ? imgs[k].n_plte : 1, &s[c],
                                       &png, &size);
                t[((size_t)c * N_TILES + k) * reps + r] = now_us() - t0;
                if (rc) {
                    fprintf(stderr, "encode failed: %d\n", rc);
                    exit(1);
                }
                bytes[(size_t)c * N_TILES + k] = (double)size;
                free(png);
            }
    for (int c = 0; c < n; c++) {
        out[c].us = median(t + (size_t)c * N_TILES * reps, (size_t)N_TILES * reps);
        out[c].bytes = median(bytes + (size_t)c * N_TILES, N_TILES);
    }
    free(t);
    free(bytes);
}

/* Renders the N_TILES tiles (zoom, tile_xy + offset) of every kind, reps
 * times each; medians into render_us/render_bytes, images into imgs. */
static int render_set(const noise_spec *spec, int zoom, int offset, image imgs[N_KINDS][N_TILES],
                      int reps, double *render_us, double *render_bytes)
{
    double *t = malloc(sizeof(double) * N_TILES * reps);
    for (size_t c = 0; c < N_KINDS; c++) {
        double bytes[N_TILES];
        for (int k = 0; k < N_TILES; k++)
            for (int r = 0; r < reps; r++) {
                unsigned char *png;
                size_t n;
                double t0 = now_us();
                int rc = render_tile_png(spec, zoom, tile_xy[k][0] + offset,
                                         tile_xy[k][1] + offset, PX, &kinds[c].opts, &png, &n);
                t[k * reps + r] = now_us() - t0;
                if (rc || (r == 0 && decode_raw(png, n, &imgs[c][k]) != 0)) {
                    fprintf(stderr, "render or decode failed: %d\n", rc);
                    free(t);
                    return -1;
                }
                if (r == 0)
                    bytes[k] = (double)n;
                free(png);
            }
        render_us[c] = median(t, (size_t)N_TILES * reps);
        render_bytes[c] = median(bytes, N_TILES);
    }
    free(t);
    return 0;
}

static const char *filter_name(int f)
{
    switch (f) {
    case PNG_FILTER_NONE: return "none";
    case PNG_FILTER_SUB: return "sub";
    case PNG_FILTER_UP: return "up";
    case PNG_FILTER_AVG: return "avg";
    case PNG_FILTER_PAETH: return "paeth";
    case PNG_ALL_FILTERS: return "adaptive";
    default: return "?";
    }
}

/* The image as RGB (what the WebP encoder takes), malloc()ed. */
static unsigned char *image_rgb(const image *im)
{
    unsigned char *rgb = malloc((size_t)PX * PX * 3);
    for (size_t p = 0; p < (size_t)PX * PX; p++) {
        if (im->format == PNGENC_RGB)
            memcpy(rgb + 3 * p, im->pixels + 3 * p, 3);
        else if (im->format == PNGENC_GRAY)
            memset(rgb + 3 * p, im->pixels[p], 3);
        else
            memcpy(rgb + 3 * p, im->plte + 3 * (size_t)im->pixels[p], 3);
    }
    return rgb;
}

/* PNG (the tile settings) against WebP as the daemon encodes a tile of the
 * kind (lossless unshaded, lossy at the default quality shaded): median
 * encode time and bytes over the N_TILES images, interleaved. */
static void webp_vs_png(const char *set_name, image imgs[N_KINDS][N_TILES], int reps)
{
    double *tp = malloc(sizeof(double) * N_TILES * reps), *tw = malloc(sizeof(double) * N_TILES * reps);
    for (size_t c = 0; c < N_KINDS; c++) {
        double bp[N_TILES], bw[N_TILES];
        int q = render_webp_lossless(&kinds[c].opts) ? WEBPENC_LOSSLESS : WEBPENC_DEFAULT_QUALITY;
        pngenc_settings ps = pngenc_tile_settings(imgs[c][0].format);
        for (int k = 0; k < N_TILES; k++) {
            image *im = &imgs[c][k];
            unsigned char *rgb = image_rgb(im);
            for (int r = 0; r < reps; r++) {
                unsigned char *out;
                size_t n;
                double t0 = now_us();
                if (pngenc_encode(im->pixels, PX, PX, im->stride, im->format, im->plte,
                                  im->n_plte ? im->n_plte : 1, &ps, &out, &n) != 0)
                    exit(1);
                tp[k * reps + r] = now_us() - t0;
                bp[k] = (double)n;
                free(out);
                t0 = now_us();
                if (webpenc_encode(rgb, PX, PX, (size_t)PX * 3, q, &out, &n) != 0)
                    exit(1);
                tw[k * reps + r] = now_us() - t0;
                bw[k] = (double)n;
                free(out);
            }
            free(rgb);
        }
        printf("| %s | %s | %s | %.0f | %.0f | %.0f | %.0f |\n", set_name, kinds[c].name,
               q == WEBPENC_LOSSLESS ? "lossless" : "lossy q80", median(tp, (size_t)N_TILES * reps),
               median(bp, N_TILES), median(tw, (size_t)N_TILES * reps), median(bw, N_TILES));
    }
    free(tp);
    free(tw);
}

/* Render+encode of the shaded terrain tiles (tile_xy) at zoom z: plain
 * (ss 1: render_tile) or supersampled (coarse_render_tile), as PNG or WebP;
 * median µs and bytes. */
static result render_at(const noise_spec *spec, int z, int ss, render_format f, int reps)
{
    const render_opts *o = &kinds[2].opts;
    double *t = malloc(sizeof(double) * N_TILES * reps), bytes[N_TILES];
    for (int k = 0; k < N_TILES; k++)
        for (int r = 0; r < reps; r++) {
            unsigned char *out;
            size_t n;
            double t0 = now_us();
            int rc = ss > 1 ? coarse_render_tile(spec, z, tile_xy[k][0], tile_xy[k][1], PX, ss, o, f, 0,
                                                 &out, &n)
                            : render_tile(spec, z, tile_xy[k][0], tile_xy[k][1], PX, o, f, 0, &out, &n);
            t[k * reps + r] = now_us() - t0;
            if (rc)
                exit(1);
            bytes[k] = (double)n;
            free(out);
        }
    result res = {median(t, (size_t)N_TILES * reps), median(bytes, N_TILES)};
    free(t);
    return res;
}

static const char *strategy_name(int s)
{
    switch (s) {
    case Z_DEFAULT_STRATEGY: return "default";
    case Z_FILTERED: return "filtered";
    case Z_RLE: return "rle";
    case Z_HUFFMAN_ONLY: return "huffman";
    default: return "?";
    }
}

/* Every candidate on every image, interleaved (tile, repetition, candidate)
 * so that load changes on the machine hit all candidates alike. */
static void explore_set(const char *set_name, image imgs[N_KINDS][N_TILES], int reps)
{
    static const pngenc_settings cand[] = {
        {6, Z_DEFAULT_STRATEGY, PNG_ALL_FILTERS, PNGENC_ZLIB}, {1, Z_DEFAULT_STRATEGY, PNG_FILTER_NONE, PNGENC_ZLIB},
        {1, Z_DEFAULT_STRATEGY, PNG_FILTER_SUB, PNGENC_ZLIB},  {1, Z_DEFAULT_STRATEGY, PNG_FILTER_UP, PNGENC_ZLIB},
        {1, Z_DEFAULT_STRATEGY, PNG_FILTER_PAETH, PNGENC_ZLIB}, {1, Z_DEFAULT_STRATEGY, PNG_ALL_FILTERS, PNGENC_ZLIB},
        {2, Z_DEFAULT_STRATEGY, PNG_FILTER_UP, PNGENC_ZLIB},   {3, Z_DEFAULT_STRATEGY, PNG_FILTER_UP, PNGENC_ZLIB},
        {1, Z_RLE, PNG_FILTER_UP, PNGENC_ZLIB},                {1, Z_RLE, PNG_FILTER_SUB, PNGENC_ZLIB},
        {1, Z_RLE, PNG_FILTER_PAETH, PNGENC_ZLIB},             {1, Z_HUFFMAN_ONLY, PNG_FILTER_UP, PNGENC_ZLIB},
        {1, Z_HUFFMAN_ONLY, PNG_FILTER_SUB, PNGENC_ZLIB},      {1, Z_HUFFMAN_ONLY, PNG_FILTER_PAETH, PNGENC_ZLIB},
        {1, Z_HUFFMAN_ONLY, PNG_FILTER_NONE, PNGENC_ZLIB},     {1, Z_RLE, PNG_FILTER_NONE, PNGENC_ZLIB},
        {0, Z_DEFAULT_STRATEGY, PNG_FILTER_NONE, PNGENC_ZLIB},
        {0, 0, PNG_FILTER_UP, PNGENC_FASTZ},      {0, 0, PNG_FILTER_SUB, PNGENC_FASTZ},
        {0, 0, PNG_FILTER_NONE, PNGENC_FASTZ},
    };
    enum { N_CAND = sizeof cand / sizeof cand[0] };
    static const char *const level_name[] = {"zlib 0", "zlib 1", "zlib 2", "zlib 3", "zlib 4",
                                             "zlib 5", "zlib 6", "zlib 7", "zlib 8", "zlib 9"};
    double *t = malloc(sizeof(double) * N_CAND * N_TILES * reps);
    double bytes[N_CAND][N_TILES];
    for (size_t k = 0; k < N_KINDS; k++) {
        for (int i = 0; i < N_TILES; i++)
            for (int r = 0; r < reps; r++)
                for (int c = 0; c < N_CAND; c++) {
                    image *im = &imgs[k][i];
                    unsigned char *png;
                    size_t n;
                    double t0 = now_us();
                    if (pngenc_encode(im->pixels, PX, PX, im->stride, im->format, im->plte,
                                      im->n_plte ? im->n_plte : 1, &cand[c], &png, &n) != 0)
                        exit(1);
                    t[((size_t)c * N_TILES + i) * reps + r] = now_us() - t0;
                    bytes[c][i] = (double)n;
                    free(png);
                }
        for (int c = 0; c < N_CAND; c++)
            printf("| %s | %s | %s | %s | %s | %.0f | %.0f |\n", set_name, kinds[k].name,
                   cand[c].engine == PNGENC_FASTZ ? "fastz" : level_name[cand[c].level],
                   cand[c].engine == PNGENC_FASTZ ? "runs+huffman" : strategy_name(cand[c].strategy),
                   filter_name(cand[c].filters),
                   median(t + (size_t)c * N_TILES * reps, (size_t)N_TILES * reps),
                   median(bytes[c], N_TILES));
    }
    free(t);
}

int main(int argc, char **argv)
{
    int reps = 25, do_explore = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (strcmp(argv[a], "--explore") == 0)
            do_explore = 1;
        else {
            fprintf(stderr, "usage: %s [--reps N] [--explore]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    /* the daemon's allocator setting (server/main.c): blocks of 64 KiB and
     * more mapped and unmapped on their own, so the render+encode column is
     * what a render thread of the daemon spends */
    mallopt(M_MMAP_THRESHOLD, 64 * 1024);

    noise_spec spec;
    noise_spec_default(&spec, NOISE_PERLIN, 1);
    spec.octaves = 6;
    double side = 16.0 / (1 << ZOOM), step = side / PX;

    printf("# bench_tiles: perlin seed 1, 6 octaves; %d tiles of zoom %d, %d px; %d reps; medians\n",
           N_TILES, ZOOM, PX, reps);

    /* grid fill alone */
    float *values = malloc(sizeof(float) * PX * PX), *grads = malloc(sizeof(float) * 2 * PX * PX);
    double *t = malloc(sizeof(double) * N_TILES * reps);
    double fill_us[2];
    for (int g = 0; g < 2; g++) {
        for (int k = 0; k < N_TILES; k++)
            for (int r = 0; r < reps; r++) {
                double x0 = (tile_xy[k][0] + 0.5 / PX) * side, y0 = (tile_xy[k][1] + 0.5 / PX) * side;
                double t0 = now_us();
                noise_eval_grid(&spec, x0, y0, step, PX, PX, values, g ? grads : NULL);
                t[k * reps + r] = now_us() - t0;
            }
        fill_us[g] = median(t, (size_t)N_TILES * reps);
    }

    /* whole tiles, and the images they hold */
    static image imgs[N_KINDS][N_TILES], smooth[N_KINDS][N_TILES];
    double render_us[N_KINDS], render_bytes[N_KINDS];
    if (render_set(&spec, ZOOM, 0, imgs, reps, render_us, render_bytes) != 0)
        return 1;

    printf("\n## Cold tile: grid fill, encode, and render+encode (median per tile)\n\n");
    printf("| tile | grid fill µs | encode µs | render+encode µs | bytes |\n|---|---|---|---|---|\n");
    pngenc_settings def = pngenc_libpng_default_settings();
    result ours[N_KINDS], base[N_KINDS];
    for (size_t c = 0; c < N_KINDS; c++) {
        pngenc_settings pair[2] = {pngenc_tile_settings(imgs[c][0].format), def};
        result r[2];
        time_encode(imgs[c], pair, 2, reps, r);
        ours[c] = r[0];
        base[c] = r[1];
        printf("| %s | %.0f | %.0f | %.0f | %.0f |\n", kinds[c].name,
               fill_us[kinds[c].opts.shade ? 1 : 0], ours[c].us, render_us[c], render_bytes[c]);
    }
    printf("\n(grid fill: values only %.0f µs, with gradients %.0f µs)\n", fill_us[0], fill_us[1]);

    printf("\n## Tile encoder vs libpng defaults (level 6, adaptive filters), same images\n\n");
    printf("| tile | ours µs | ours bytes | libpng default µs | bytes | speed-up | bytes ratio | "
           "target (>=5x, <=1.3x) |\n|---|---|---|---|---|---|---|---|\n");
    int all_ok = 1;
    for (size_t c = 0; c < N_KINDS; c++) {
        double speedup = base[c].us / ours[c].us, ratio = ours[c].bytes / base[c].bytes;
        int ok = speedup >= 5.0 && ratio <= 1.3;
        all_ok &= ok;
        printf("| %s | %.0f | %.0f | %.0f | %.0f | %.1fx | %.2fx | %s |\n", kinds[c].name,
               ours[c].us, ours[c].bytes, base[c].us, base[c].bytes, speedup, ratio,
               ok ? "met" : "MISSED");
    }
    printf("\nencoder target met for all three: %s\n", all_ok ? "yes" : "NO");

    /* WebP against PNG, busy (these zoom-3 tiles) and smooth (zoom 8) */
    {
        double u[N_KINDS], b[N_KINDS];
        if (render_set(&spec, 8, 37, smooth, 1, u, b) != 0)
            return 1;
        printf("\n## WebP against PNG: encode only, the daemon's settings (median per tile)\n\n");
        printf("| tiles | tile | WebP | PNG µs | PNG bytes | WebP µs | WebP bytes |\n"
               "|---|---|---|---|---|---|---|\n");
        webp_vs_png("busy (zoom 3)", imgs, reps);
        webp_vs_png("smooth (zoom 8)", smooth, reps);
    }

    /* Below zoom 0: supersampled against point-sampled, shaded terrain */
    {
        int cr = reps < 5 ? reps : 5;
        printf("\n## Below zoom 0: shaded terrain, render+encode (median per tile, %d reps)\n\n", cr);
        printf("| tile | PNG µs | PNG bytes | WebP µs | WebP bytes |\n|---|---|---|---|---|\n");
        static const struct { const char *name; int z, ss; } rows[] = {
            {"zoom 0", 0, 1}, {"zoom -2, one sample a pixel (before)", -2, 1},
            {"zoom -1, 2 x 2 sub-pixels", -1, 2}, {"zoom -2, 4 x 4 sub-pixels", -2, 4}};
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            result p = render_at(&spec, rows[i].z, rows[i].ss, RENDER_PNG, cr);
            result w = render_at(&spec, rows[i].z, rows[i].ss, RENDER_WEBP, cr);
            printf("| %s | %.0f | %.0f | %.0f | %.0f |\n", rows[i].name, p.us, p.bytes, w.us, w.bytes);
        }
    }

    if (do_explore) {
        /* the same field zoomed in (zoom 8): smooth images, where LZ matches
         * and runs pay, unlike the busy zoom-3 tiles */
        printf("\n## Encoder settings explored (median per tile, candidates interleaved)\n\n");
        printf("| tiles | format | coder | strategy | filter | µs | bytes |\n"
               "|---|---|---|---|---|---|---|\n");
        explore_set("zoom 3", imgs, reps);
        explore_set("zoom 8", smooth, reps);
        /* gray as 8-bit grayscale or as indexed with a grey palette */
        image as_indexed[N_TILES];
        for (int k = 0; k < N_TILES; k++) {
            as_indexed[k] = imgs[0][k];
            as_indexed[k].format = PNGENC_INDEXED;
            as_indexed[k].n_plte = 256;
            for (int g = 0; g < 256; g++)
                memset(as_indexed[k].plte + 3 * g, g, 3);
        }
        pngenc_settings gs = pngenc_tile_settings(PNGENC_GRAY);
        result gi, gg;
        time_encode(as_indexed, &gs, 1, reps, &gi);
        time_encode(imgs[0], &gs, 1, reps, &gg);
        printf("\ngray zoom-3 tiles as 8-bit gray: %.0f µs %.0f bytes; as indexed: %.0f µs %.0f "
               "bytes\n", gg.us, gg.bytes, gi.us, gi.bytes);
    }

    for (size_t c = 0; c < N_KINDS; c++)
        for (int k = 0; k < N_TILES; k++)
            free(smooth[c][k].pixels);

    for (size_t c = 0; c < N_KINDS; c++)
        for (int k = 0; k < N_TILES; k++)
            free(imgs[c][k].pixels);
    free(t);
    free(values);
    free(grads);
    return 0;
}
