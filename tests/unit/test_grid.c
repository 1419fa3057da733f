/* test_grid.c: unit tests of the band-wise grid (server/heights/grid.c) and its
 * streams (gzip.c, pngstream.c): every sample equals noise_eval_point at
 * (x + i*step, y + j*step) rounded to float32, whatever the band split;
 * gradients (2 and 3 components); sizes; the gzip body inflated by zlib and
 * the PNG decoded by libpng give the plain bytes; every allocation failure
 * ends cleanly; a job dropped halfway leaks nothing. */
#include "base/failalloc.h"
#include "heights/grid.h"
#include "base/gzip.h"
#include "base/scratch.h"
#include "test.h"

#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static grid_request request(heights_format f, int width, int height)
{
    grid_request r;
    memset(&r, 0, sizeof r);
    noise_spec_default(&r.spec, NOISE_PERLIN, 7);
    r.spec.octaves = 3;
    r.x = 0.1;
    r.y = -3.7;
    r.step = 0.013;
    r.width = width;
    r.height = height;
    r.enc.format = f;
    r.enc.height_scale = 1000;
    return r;
}

static float f32le(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Checks a .npy body of r against noise_eval_point. */
static void check_npy(const grid_request *r, const unsigned char *body, size_t size)
{
    int nc = r->enc.gradient ? (r->spec.has_t ? 4 : 3) : 1;
    size_t hlen = 10 + (size_t)body[8] + 256 * (size_t)body[9];
    CHECK(hlen % 64 == 0);
    CHECKF(size == hlen + 4 * (size_t)nc * r->width * r->height, "size %zu", size);
    if (size != hlen + 4 * (size_t)nc * r->width * r->height)
        return;
    int bad = 0;
    for (int j = 0; j < r->height; j++)
        for (int i = 0; i < r->width; i++) {
            double p[2] = {r->x + (double)i * r->step, r->y + (double)j * r->step}, g[3];
            double v = noise_eval_point(&r->spec, p, 2, g, NULL);
            const unsigned char *s = body + hlen + 4 * (size_t)nc * ((size_t)j * r->width + i);
            if (f32le(s) != (float)v)
                bad++;
            for (int c = 1; c < nc; c++)
                if (f32le(s + 4 * c) != (float)g[c - 1])
                    bad++;
        }
    CHECKF(bad == 0, "%d numbers differ", bad);
}

static void test_npy_values(void)
{
    grid_request r = request(HEIGHTS_NPY, 37, 23);
    unsigned char *body;
    size_t size;
    CHECK(grid_render(&r, &body, &size) == 0);
    check_npy(&r, body, size);
    free(body);
    r.enc.gradient = 1;
    CHECK(grid_render(&r, &body, &size) == 0);
    check_npy(&r, body, size);
    free(body);
    r.spec.has_t = 1;
    r.spec.t = 2.5;
    r.spec.kind = NOISE_SIMPLEX;
    r.spec.warp = 0.3;
    CHECK(grid_render(&r, &body, &size) == 0);
    check_npy(&r, body, size);
    free(body);
}

/* Many bands (10000-byte rows, 26 per band): read through small buffers of
 * varying size, the same bytes as one render; a 4097-wide row per band for .npy. */
static void test_bands(void)
{
    grid_request r = request(HEIGHTS_R16, 5000, 61);
    unsigned char *whole;
    size_t size;
    CHECK(grid_render(&r, &whole, &size) == 0);
    CHECK(size == 2u * 5000 * 61);
    grid_job *job;
    CHECK(grid_job_create(&r, &job) == 0);
    CHECK(grid_job_body_size(job) == 2 * 5000 * 61);
    unsigned char *read = malloc(size + 1);
    size_t got = 0;
    long n;
    size_t chunk = 1;
    while ((n = grid_job_read(job, read + got, chunk)) > 0) {
        got += (size_t)n;
        chunk = chunk * 3 % 70001 + 1;
        CHECK(got <= size);
        if (got > size)
            break;
    }
    CHECK(n == 0 && got == size && memcmp(read, whole, size) == 0);
    grid_job_destroy(job);
    /* each sample: the documented 16-bit mapping of the float32 value */
    int bad = 0;
    for (int j = 0; j < r.height; j += 7)
        for (int i = 0; i < r.width; i += 13) {
            double p[2] = {r.x + (double)i * r.step, r.y + (double)j * r.step};
            float v = (float)noise_eval_point(&r.spec, p, 2, NULL, NULL);
            size_t k = 2 * ((size_t)j * r.width + i);
            if (whole[k] + 256 * whole[k + 1] != heights_u16(v))
                bad++;
        }
    CHECK(bad == 0);
    free(read);
    free(whole);
}

static unsigned char *inflate_all(const unsigned char *z, size_t n, size_t *out_n)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, 15 + 16) != Z_OK)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    unsigned char *out = malloc(cap);
    s.next_in = (Bytef *)z;
    s.avail_in = (uInt)n;
    int rc;
    do {
        if (cap - len < 65536)
            out = realloc(out, cap *= 2);
        s.next_out = out + len;
        s.avail_out = (uInt)(cap - len);
        rc = inflate(&s, Z_NO_FLUSH);
        len = cap - s.avail_out;
    } while (rc == Z_OK);
    inflateEnd(&s);
    *out_n = len;
    if (rc != Z_STREAM_END || s.avail_in != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static void test_gzip(void)
{
    heights_format formats[] = {HEIGHTS_NPY, HEIGHTS_R16};
    for (int k = 0; k < 2; k++) {
        grid_request r = request(formats[k], 3000, 40);
        unsigned char *plain, *gz;
        size_t plain_n, gz_n, back_n;
        CHECK(grid_render(&r, &plain, &plain_n) == 0);
        r.gzip = 1;
        grid_job *job;
        CHECK(grid_job_create(&r, &job) == 0);
        CHECK(grid_job_body_size(job) == -1);
        grid_job_destroy(job);
        CHECK(grid_render(&r, &gz, &gz_n) == 0);
        CHECK(gz_n < plain_n && gz[0] == 0x1f && gz[1] == 0x8b);
        unsigned char *back = inflate_all(gz, gz_n, &back_n);
        CHECK(back != NULL && back_n == plain_n && memcmp(back, plain, plain_n) == 0);
        free(back);
        free(gz);
        free(plain);
    }
    /* whole buffers, and Accept-Encoding */
    const char *text = "{\"values\":[0.1,0.2,0.3,0.1,0.2,0.3,0.1,0.2,0.3]}";
    unsigned char *gz;
    size_t gz_n, back_n;
    CHECK(gzip_buffer(GZIP_TEXT, text, strlen(text), &gz, &gz_n) == 0);
    unsigned char *back = inflate_all(gz, gz_n, &back_n);
    CHECK(back != NULL && back_n == strlen(text) && memcmp(back, text, back_n) == 0);
    free(back);
    free(gz);
    CHECK(gzip_accepted("gzip") && gzip_accepted("deflate, gzip;q=0.5") && gzip_accepted("br, *"));
    CHECK(gzip_accepted("GZIP") && gzip_accepted("x-gzip") && gzip_accepted("gzip ; q=1.0"));
    CHECK(!gzip_accepted(NULL) && !gzip_accepted("") && !gzip_accepted("identity"));
    CHECK(!gzip_accepted("gzip;q=0") && !gzip_accepted("*, gzip;q=0") && !gzip_accepted("gzipx"));
    CHECK(!gzip_accepted("*;q=0") && !gzip_accepted("deflate"));
}

typedef struct {
    const unsigned char *p;
    size_t n, off;
} mem_reader;

static void read_mem(png_structp png, png_bytep out, png_size_t n)
{
    mem_reader *m = png_get_io_ptr(png);
    if (m->off + n > m->n)
        png_error(png, "read past the end");
    memcpy(out, m->p + m->off, n);
    m->off += n;
}

/* Decodes a PNG with libpng (no transforms): returns the rows packed (16-bit
 * samples big-endian), with the header's fields. */
static unsigned char *decode_png(const unsigned char *data, size_t n, int *w, int *h, int *depth,
                                 int *color)
{
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    mem_reader m = {data, n, 0};
    unsigned char *volatile out = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(out);
        return NULL;
    }
    png_set_read_fn(png, &m, read_mem);
    png_read_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    *w = (int)png_get_image_width(png, info);
    *h = (int)png_get_image_height(png, info);
    *depth = png_get_bit_depth(png, info);
    *color = png_get_color_type(png, info);
    size_t rb = png_get_rowbytes(png, info);
    png_bytepp rows = png_get_rows(png, info);
    out = malloc(rb * (size_t)*h);
    for (int j = 0; j < *h; j++)
        memcpy(out + rb * (size_t)j, rows[j], rb);
    png_destroy_read_struct(&png, &info, NULL);
    return out;
}

static void test_png(void)
{
    heights_format formats[] = {HEIGHTS_GRAY16, HEIGHTS_TERRARIUM, HEIGHTS_MAPBOX};
    for (int k = 0; k < 3; k++) {
        /* tall enough for several IDAT chunks and bands */
        grid_request r = request(formats[k], 700, 300);
        r.enc.height_offset = 12.5;
        unsigned char *png;
        size_t n;
        CHECK(grid_render(&r, &png, &n) == 0);
        int w, h, depth, color;
        unsigned char *px = decode_png(png, n, &w, &h, &depth, &color);
        CHECKF(px != NULL, "%s", heights_format_name(formats[k]));
        if (px == NULL) {
            free(png);
            continue;
        }
        CHECK(w == 700 && h == 300);
        CHECK(formats[k] == HEIGHTS_GRAY16 ? depth == 16 && color == PNG_COLOR_TYPE_GRAY
                                           : depth == 8 && color == PNG_COLOR_TYPE_RGB);
        int bad = 0;
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                double p[2] = {r.x + (double)i * r.step, r.y + (double)j * r.step};
                float v = (float)noise_eval_point(&r.spec, p, 2, NULL, NULL);
                const unsigned char *s = px + ((size_t)j * w + i) * (formats[k] == HEIGHTS_GRAY16 ? 2 : 3);
                double hm = (double)v * 1000 + 12.5;
                if (formats[k] == HEIGHTS_GRAY16)
                    bad += s[0] * 256 + s[1] != heights_u16(v);
                else if (formats[k] == HEIGHTS_TERRARIUM)
                    bad += fabs(s[0] * 256.0 + s[1] + s[2] / 256.0 - 32768.0 - hm) > 1.0 / 512;
                else
                    bad += fabs(-10000 + (s[0] * 65536.0 + s[1] * 256.0 + s[2]) * 0.1 - hm) > 0.05 + 1e-6;
            }
        CHECKF(bad == 0, "%s: %d pixels off", heights_format_name(formats[k]), bad);
        free(px);
        free(png);
    }
}

/* A picture over a tile's window shows the tile's pixels exactly, for
 * every palette with and without shading and zero line (the tile decoded
 * by libpng, expanded to RGB). */
static void test_picture_is_tile(void)
{
    render_opts all[] = {{.palette = RENDER_GRAY, .shade = 0, .zero = 0}, {.palette = RENDER_GRAY, .shade = 1, .zero = 1}, {.palette = RENDER_TERRAIN, .shade = 0, .zero = 1},
                         {.palette = RENDER_TERRAIN, .shade = 1, .zero = 0}, {.palette = RENDER_VIRIDIS, .shade = 1, .zero = 1}, {.palette = RENDER_VIRIDIS, .shade = 0, .zero = 0}};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        noise_spec spec;
        noise_spec_default(&spec, NOISE_SIMPLEX, 3);
        spec.octaves = 4;
        spec.frequency = 0.7;
        unsigned char *tile, *pic;
        size_t tile_n, pic_n;
        CHECK(render_tile_png(&spec, 3, -2, 1, 256, &all[k], &tile, &tile_n) == 0);
        grid_request r;
        memset(&r, 0, sizeof r);
        r.spec = spec;
        render_pixel_center(3, -2, 1, 256, 0, 0, &r.x, &r.y);
        r.step = 2.0 / 256;
        r.width = r.height = 256;
        r.picture = 1;
        r.render = all[k];
        CHECK(grid_render(&r, &pic, &pic_n) == 0);
        int w, h, depth, color, tw, th, tdepth, tcolor;
        unsigned char *px = decode_png(pic, pic_n, &w, &h, &depth, &color);
        unsigned char *tpx = decode_png(tile, tile_n, &tw, &th, &tdepth, &tcolor);
        CHECK(px != NULL && tpx != NULL && w == 256 && h == 256 && depth == 8 && color == PNG_COLOR_TYPE_RGB);
        if (px != NULL && tpx != NULL) {
            /* the tile as RGB: gray, indexed (its PLTE) or RGB as stored */
            png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
            png_infop info = png_create_info_struct(png);
            mem_reader m = {tile, tile_n, 0};
            png_set_read_fn(png, &m, read_mem);
            png_read_info(png, info);
            png_colorp plte = NULL;
            int n_plte = 0;
            if (tcolor == PNG_COLOR_TYPE_PALETTE)
                png_get_PLTE(png, info, &plte, &n_plte);
            int bad = 0;
            for (int p = 0; p < 256 * 256; p++) {
                unsigned char rgb[3];
                if (tcolor == PNG_COLOR_TYPE_GRAY)
                    rgb[0] = rgb[1] = rgb[2] = tpx[p];
                else if (tcolor == PNG_COLOR_TYPE_PALETTE) {
                    rgb[0] = plte[tpx[p]].red;
                    rgb[1] = plte[tpx[p]].green;
                    rgb[2] = plte[tpx[p]].blue;
                } else
                    memcpy(rgb, tpx + 3 * p, 3);
                bad += memcmp(rgb, px + 3 * p, 3) != 0;
            }
            CHECKF(bad == 0, "options %zu: %d pixels differ", k, bad);
            png_destroy_read_struct(&png, &info, NULL);
        }
        free(px);
        free(tpx);
        free(pic);
        free(tile);
    }
}

/* Every allocation of a render fails once, in turn: -1 and nothing leaked
 * (ASan), then it succeeds. */
/* Each allocation of a grid failed in turn: the render fails cleanly, or
 * (a band's scratch block: the band goes row by row instead) gives the
 * same bytes. Scratch keeps nothing here, so every band allocates. */
static void test_oom(void)
{
    heights_format formats[] = {HEIGHTS_NPY, HEIGHTS_R16, HEIGHTS_GRAY16, HEIGHTS_GRAY16, HEIGHTS_NPY};
    int survived = 0;
    scratch_set_keep(0);
    for (int k = 0; k < 5; k++) {
        for (int gz = 0; gz < 2; gz++) {
            grid_request r = request(formats[k], 300, 500);
            r.picture = k == 3;
            r.render = (render_opts){.palette = RENDER_TERRAIN, .shade = gz, .zero = 1};
            r.gzip = gz;
            r.enc.gradient = formats[k] == HEIGHTS_NPY;
            r.spec.has_t = k == 0; /* k 4: the 2-component gradient, by bands */
            unsigned char *want;
            size_t want_size;
            CHECK(grid_render(&r, &want, &want_size) == 0);
            long nth;
            for (nth = 1; nth < 1000; nth++) {
                failalloc_arm(nth);
                unsigned char *body;
                size_t size;
                int rc = grid_render(&r, &body, &size);
                int fired = failalloc_fired();
                failalloc_arm(0);
                if (rc == 0) {
                    CHECK(size == want_size && memcmp(body, want, size) == 0);
                    survived += fired;
                } else {
                    CHECK(rc == -1 && fired);
                }
                free(body);
                if (!fired)
                    break;
            }
            CHECK(nth > 2 && nth < 1000);
            free(want);
        }
    }
    scratch_set_keep(SCRATCH_KEEP);
    /* the numeric forms' bands survived their blocks' failures */
    CHECKF(survived > 0, "no allocation failure was survived (%d)", survived);
}

/* A job dropped after one band (the client left) frees everything. */
static void test_drop_halfway(void)
{
    grid_request r = request(HEIGHTS_GRAY16, 4097, 4097);
    grid_job *job;
    CHECK(grid_job_create(&r, &job) == 0);
    CHECK(grid_job_compute_band(job) == 1);
    const unsigned char *p;
    size_t n = grid_job_pending(job, &p);
    CHECK(n > 8 && memcmp(p, "\x89PNG", 4) == 0);
    CHECK(!grid_job_finished(job));
    grid_job_destroy(job);
}

int main(void)
{
    RUN(test_npy_values);
    RUN(test_bands);
    RUN(test_gzip);
    RUN(test_png);
    RUN(test_picture_is_tile);
    RUN(test_oom);
    RUN(test_drop_halfway);
    return t_done();
}
