/* bench_fastnoise2.h: the C side of the FastNoise2 shim (bench_fastnoise2.cpp). */
#ifndef BENCH_FASTNOISE2_H
#define BENCH_FASTNOISE2_H

#ifdef __cplusplus
extern "C" {
#endif

/* the node trees the shim builds */
enum {
    BENCH_FN2_PERLIN,      /* Perlin, frequency 1 */
    BENCH_FN2_VALUE,       /* Value, frequency 1 */
    BENCH_FN2_SIMPLEX,     /* Simplex, frequency 1/sqrt(3) */
    BENCH_FN2_FBM_PERLIN,  /* FractalFBm of 6 octaves over Perlin */
    BENCH_FN2_FBM_SIMPLEX, /* FractalFBm of 6 octaves over Simplex */
    BENCH_FN2_CELLULAR,    /* CellularDistance, euclidean, F1 */
    /* the graphs of bench/bench_graph_cases.h, as node trees of the same
     * shape (the file that uses these includes that header) */
    BENCH_FN2_G_FBM6,       /* FractalFBm, 6 octaves, over Perlin */
    BENCH_FN2_G_CONTINENTS, /* Multiply(Remap(FractalFBm 5 over Simplex at 0.25), FractalRidged 4 over Perlin) */
    BENCH_FN2_G_WARP,       /* DomainOffset of Perlin by 0.5 x Simplex at 0.5 (seed offsets 0 and 1) */
    BENCH_FN2_SHAPES
};

/* A generator of that shape on FastNoise2's AVX-512 path (avx512 = 1) or
 * its AVX2 path (0); NULL if this CPU (or this build) cannot run it. */
void *bench_fn2_new(int shape, int avx512);
/* out[j * width + i] = the value at (x0 + i * step, y0 + j * step) */
void bench_fn2_fill(void *g, double x0, double y0, double step, int width, int height, float *out);
void bench_fn2_free(void *g);

#ifdef __cplusplus
}
#endif

#endif
