/* bench_rest.c: the pieces of a 10,000-point POST /points and of gzip, old
 * against new in one process (make bench-rest; BENCHMARKS.md, "REST at the
 * speed of JSON"):
 * - ns per number: jsonout_number against noise_format_double (the printer
 *   of before, snprintf + strtod), on the values and gradients of the batch;
 * - the answer's text (batch_answer_json) and the same text printed with
 *   noise_format_double; the body's parse (batch_parse) and, as a floor, the
 *   noise evaluation;
 * - gzip of an 8.4 MB .r16 grid (2048 x 2048 samples) and of the batch's
 *   JSON answer: zlib as gzip.c sets it (GZIP_NUMBERS, GZIP_TEXT) against
 *   libdeflate's gzip at level 1; and Adler-32 / CRC-32, zlib against
 *   libdeflate, on the .r16 bytes.
 *
 * Usage: bench_rest [--reps N]. Figures: medians of thread CPU time.
 */
#include <libdeflate.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "base/gzip.h"
#include "base/jsonout.h"
#include "heights/batch.h"
#include "noise.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define NPTS 10000
#define MAXREPS 101
static volatile size_t sink;

/* the answer's text with the printer of before */
static size_t answer_old(const double *values, const double *grads, char *t)
{
    char *p = t;
    p += sprintf(p, "{\"values\":[");
    for (size_t i = 0; i < NPTS; i++) {
        if (i)
            *p++ = ',';
        p += noise_format_double(values[i], p, 32);
    }
    p += sprintf(p, "],\"gradients\":[");
    for (size_t i = 0; i < NPTS; i++) {
        if (i)
            *p++ = ',';
        *p++ = '[';
        p += noise_format_double(grads[2 * i], p, 32);
        *p++ = ',';
        p += noise_format_double(grads[2 * i + 1], p, 32);
        *p++ = ']';
    }
    p += sprintf(p, "]}");
    return (size_t)(p - t);
}

int main(int argc, char **argv)
{
    int reps = 21;
    for (int a = 1; a + 1 < argc; a += 2)
        if (strcmp(argv[a], "--reps") == 0)
            reps = atoi(argv[a + 1]);
    if (reps < 1 || reps > MAXREPS)
        reps = 21;
    double t[MAXREPS], u[MAXREPS];

    /* the batch: points like bench-rest.mjs's (a window of 200 x 200) */
    static double pts[2 * NPTS], values[NPTS], grads[2 * NPTS];
    uint64_t s = 12345;
    for (int i = 0; i < 2 * NPTS; i++) {
        s = (s * 1103515245 + 12345) % 2147483648u;
        pts[i] = (double)s / 2147483648.0 * 200 - 100;
    }
    noise_spec spec;
    noise_spec_default(&spec, NOISE_PERLIN, 1);
    /* the body as Node's JSON.stringify writes it: shortest round-trip */
    char *body = malloc(64 * NPTS), *p = body;
    p += sprintf(p, "{\"points\":[");
    for (int i = 0; i < NPTS; i++)
        p += sprintf(p, "%s[%.17g,%.17g]", i ? "," : "", pts[2 * i], pts[2 * i + 1]);
    p += sprintf(p, "]}");
    size_t body_len = (size_t)(p - body);

    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        noise_eval_points(&spec, NPTS, pts, 2, values, grads);
        t[r] = now_ms() - t0;
    }
    printf("10,000-point batch (perlin, values and gradients); medians of %d runs, thread CPU\n", reps);
    printf("  noise evaluation            %8.3f ms\n", median(t, reps));

    for (int r = 0; r < reps; r++) {
        batch b;
        char err[200];
        double t0 = now_ms();
        if (batch_parse(body, body_len, 100000, &b, err, sizeof err) != 0 || b.n != NPTS) {
            fprintf(stderr, "parse: %s\n", err);
            return 1;
        }
        t[r] = now_ms() - t0;
        batch_free(&b);
    }
    printf("  batch_parse (%zu B body)  %8.3f ms  (%.0f ns a number)\n", body_len, median(t, reps),
           median(t, reps) * 1e6 / (2 * NPTS));

    char *old_text = malloc(64 * 3 * NPTS);
    size_t old_len = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        old_len = answer_old(values, grads, old_text);
        t[r] = now_ms() - t0;
        char *text;
        size_t len;
        t0 = now_ms();
        if (batch_answer_json(values, grads, NPTS, 2, &text, &len) != 0)
            return 1;
        u[r] = now_ms() - t0;
        if (len != old_len || memcmp(text, old_text, len) != 0) {
            fprintf(stderr, "the answer's text differs from the old printer's\n");
            return 1;
        }
        free(text);
    }
    double a_old = median(t, reps), a_new = median(u, reps);
    printf("  answer text (%zu B)       old %8.3f ms, new %8.3f ms: %.1fx (same bytes)\n", old_len,
           a_old, a_new, a_old / a_new);
    printf("  per number (30,000)         old %8.1f ns, new %8.1f ns\n", a_old * 1e6 / (3 * NPTS),
           a_new * 1e6 / (3 * NPTS));

    /* gzip: an 8.4 MB .r16 and the JSON answer */
    int side = 2048;
    float *grid = malloc(sizeof(float) * (size_t)side * side);
    noise_spec fbm;
    noise_spec_default(&fbm, NOISE_PERLIN, 1);
    fbm.octaves = 6;
    noise_eval_grid(&fbm, -8, -8, 16.0 / 1024, side, side, grid, NULL);
    size_t r16_len = (size_t)side * side * 2;
    unsigned char *r16 = malloc(r16_len);
    for (size_t i = 0; i < (size_t)side * side; i++) {
        unsigned v = (unsigned)lrint((grid[i] + 1.0) * 0.5 * 65535);
        r16[2 * i] = (unsigned char)v;
        r16[2 * i + 1] = (unsigned char)(v >> 8);
    }
    struct libdeflate_compressor *ld = libdeflate_alloc_compressor(1);
    struct {
        const char *name;
        gzip_content content;
        const unsigned char *data;
        size_t n;
    } bodies[] = {{".r16 grid", GZIP_NUMBERS, r16, r16_len},
                  {"JSON answer", GZIP_TEXT, (unsigned char *)old_text, old_len}};
    printf("gzip, zlib as gzip.c sets it against libdeflate level 1\n");
    for (int k = 0; k < 2; k++) {
        size_t zlen = 0, llen = 0;
        size_t cap = libdeflate_gzip_compress_bound(ld, bodies[k].n);
        unsigned char *lout = malloc(cap);
        int reps_gz = reps > 7 ? 7 : reps;
        for (int r = 0; r < reps_gz; r++) {
            unsigned char *gz;
            double t0 = now_ms();
            if (gzip_buffer(bodies[k].content, bodies[k].data, bodies[k].n, &gz, &zlen) != 0)
                return 1;
            t[r] = now_ms() - t0;
            free(gz);
            t0 = now_ms();
            llen = libdeflate_gzip_compress(ld, bodies[k].data, bodies[k].n, lout, cap);
            u[r] = now_ms() - t0;
        }
        free(lout);
        printf("  %-12s %9zu B: zlib %8.2f ms -> %9zu B; libdeflate %8.2f ms -> %9zu B (%.1fx)\n",
               bodies[k].name, bodies[k].n, median(t, reps_gz), zlen, median(u, reps_gz), llen,
               median(t, reps_gz) / median(u, reps_gz));
    }
    libdeflate_free_compressor(ld);

    printf("checksums over the .r16 bytes (8.4 MB)\n");
    uint32_t c1 = 0, c2 = 0, a1 = 0, a2 = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        c1 = (uint32_t)crc32_z(crc32(0L, Z_NULL, 0), r16, r16_len);
        t[r] = now_ms() - t0;
        t0 = now_ms();
        c2 = libdeflate_crc32(0, r16, r16_len);
        u[r] = now_ms() - t0;
    }
    printf("  CRC-32:   zlib %6.3f ms, libdeflate %6.3f ms (%.1fx), %s\n", median(t, reps),
           median(u, reps), median(t, reps) / median(u, reps), c1 == c2 ? "same" : "DIFFER");
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        a1 = (uint32_t)adler32_z(adler32(0L, Z_NULL, 0), r16, r16_len);
        t[r] = now_ms() - t0;
        t0 = now_ms();
        a2 = libdeflate_adler32(1, r16, r16_len);
        u[r] = now_ms() - t0;
    }
    printf("  Adler-32: zlib %6.3f ms, libdeflate %6.3f ms (%.1fx), %s\n", median(t, reps),
           median(u, reps), median(t, reps) / median(u, reps), a1 == a2 ? "same" : "DIFFER");
    sink = c1 + a1;
    free(r16);
    free(grid);
    free(old_text);
    free(body);
    return c1 == c2 && a1 == a2 ? 0 : 1;
}
