/* bench_grid.c: what a grid costs beyond its noise. The 1025 x 1025 window
 * of a 6-octave Perlin fBm as .npy, .r16, gzip .r16, gray16 and Terrarium
 * PNG (grid.c: row by row, encoded, in bands), each against the bare
 * noise_eval_grid fill of the same window into one float array, in the same
 * run; and what gzip and the PNG encodings save in bytes.
 *
 * Usage: bench_grid [--reps N] [--side N]
 * Figures are medians over the repetitions of thread CPU time, one thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heights/grid.h"
#include "bench_util.h"
#include "noise.h"

int main(int argc, char **argv)
{
    int reps = 5, side = 1025;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (strcmp(argv[a], "--reps") == 0)
            reps = atoi(argv[a + 1]);
        else if (strcmp(argv[a], "--side") == 0)
            side = atoi(argv[a + 1]);
    }
    if (reps < 1 || reps > 1000 || side < 1 || side > GRID_MAX_SIDE) {
        fprintf(stderr, "usage: bench_grid [--reps 1..1000] [--side 1..%d]\n", GRID_MAX_SIDE);
        return 2;
    }
    grid_request r;
    memset(&r, 0, sizeof r);
    noise_spec_default(&r.spec, NOISE_PERLIN, 1);
    r.spec.octaves = 6;
    r.x = -8.0;
    r.y = -8.0;
    r.step = 16.0 / (side - 1 > 0 ? side - 1 : 1);
    r.width = r.height = side;
    r.enc.height_scale = 1000;

    float *values = malloc((size_t)side * side * sizeof *values);
    double *t_fill = malloc((size_t)reps * sizeof(double)), *t = malloc((size_t)reps * sizeof(double));
    for (int k = 0; k < reps; k++) {
        double t0 = now_ms();
        noise_eval_grid(&r.spec, r.x, r.y, r.step, side, side, values, NULL);
        t_fill[k] = now_ms() - t0;
    }
    double fill = median(t_fill, reps);
    printf("grid %d x %d, perlin fbm 6 octaves, %d reps, median thread CPU time\n", side, side, reps);
    printf("%-22s %10s %8s %12s %8s\n", "form", "ms", "x fill", "bytes", "of raw");
    printf("%-22s %10.1f %8.2f %12zu %8s\n", "noise_eval_grid fill", fill, 1.0,
           (size_t)side * side * 4, "-");
    struct {
        const char *name;
        heights_format f;
        int gzip, gradient;
    } forms[] = {
        {".npy", HEIGHTS_NPY, 0, 0},          {".npy gzip", HEIGHTS_NPY, 1, 0},
        {".npy gradient=1", HEIGHTS_NPY, 0, 1}, {".r16", HEIGHTS_R16, 0, 0},
        {".r16 gzip", HEIGHTS_R16, 1, 0},     {".png gray16", HEIGHTS_GRAY16, 0, 0},
        {".png terrarium", HEIGHTS_TERRARIUM, 0, 0}, {".png mapbox", HEIGHTS_MAPBOX, 0, 0},
    };
    size_t raw_r16 = 0, raw_npy = 0;
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        r.enc.format = forms[f].f;
        r.gzip = forms[f].gzip;
        r.enc.gradient = forms[f].gradient;
        size_t size = 0;
        for (int k = 0; k < reps; k++) {
            unsigned char *body;
            double t0 = now_ms();
            if (grid_render(&r, &body, &size) != 0) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
            t[k] = now_ms() - t0;
            free(body);
        }
        if (forms[f].f == HEIGHTS_R16 && !forms[f].gzip)
            raw_r16 = size;
        if (forms[f].f == HEIGHTS_NPY && !forms[f].gzip && !forms[f].gradient)
            raw_npy = size;
        size_t raw = forms[f].f == HEIGHTS_NPY ? raw_npy : raw_r16;
        double ms = median(t, reps);
        char share[16] = "-";
        if (!forms[f].gradient && raw > 0)
            snprintf(share, sizeof share, "%.1f%%", 100.0 * (double)size / (double)raw);
        printf("%-22s %10.1f %8.2f %12zu %8s\n", forms[f].name, ms, ms / fill, size, share);
    }
    free(t);
    free(t_fill);
    free(values);
    return 0;
}
