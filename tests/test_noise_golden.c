/* test_noise_golden.c: golden checksums that pin the noise core's output:
 * FNV-1a over the bytes of the floats of a 256 x 256 grid (values, and
 * gradients) for every kind and lattice in several modes. A change here
 * means every cached tile changes: bump NOISE_VERSION with it.
 *
 * The build uses -ffp-contract=off and no fast-math, so these hold on every
 * x86-64 build. To regenerate after an intended change, run the test and
 * copy the "got" values it prints.
 */
#include "noise.h"
#include "test.h"
#include "test_noise_util.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    noise_fractal fractal;
    int octaves;
    double warp;
    int has_t;
} golden_mode;

static const golden_mode modes[] = {
    { "fbm1", NOISE_FBM, 1, 0, 0 },        { "fbm5", NOISE_FBM, 5, 0, 0 },
    { "turbulence4", NOISE_TURBULENCE, 4, 0, 0 }, { "ridged4", NOISE_RIDGED, 4, 0, 0 },
    { "warp3", NOISE_FBM, 3, 1.5, 0 },     { "t2", NOISE_FBM, 2, 0, 1 },
};
#define N_MODES ((int)(sizeof modes / sizeof modes[0]))

/* [base][mode][values, gradients] */
static const uint64_t golden[TN_N_BASES][N_MODES][2] = {
    {
        { 0xd03b28770defbbe1ull, 0xf103322a643fc0bdull }, /* value fbm1 */
        { 0xce0275d1aa9a3e64ull, 0x5e86a9a8b1c7de39ull }, /* value fbm5 */
        { 0x8290e13106b5bf1eull, 0x8484a1e56c166f5dull }, /* value turbulence4 */
        { 0xad8c922aa091f885ull, 0x661376762fc23088ull }, /* value ridged4 */
        { 0x618718f3be390928ull, 0xfdbff4b63ef2bd43ull }, /* value warp3 */
        { 0x7d9b60a7e12f40aaull, 0xa78654e3d1799536ull }, /* value t2 */
    },
    {
        { 0xe1915ed0b1861b85ull, 0xc671b4bc145c71e3ull }, /* value/triangle fbm1 */
        { 0x972925b75a011322ull, 0xee1568688d951a23ull }, /* value/triangle fbm5 */
        { 0x6e2e29c403e39cbfull, 0x26a748ad3a457d65ull }, /* value/triangle turbulence4 */
        { 0xb8870e65375f1cfaull, 0x0d65ec25dc0d0387ull }, /* value/triangle ridged4 */
        { 0xd3e8b470ee3c4754ull, 0x5cd2549876a6eb59ull }, /* value/triangle warp3 */
        { 0x0be6b49fb1b8db05ull, 0x95ef3d1eb8d82283ull }, /* value/triangle t2 */
    },
    {
        { 0x173f1839b3f765e1ull, 0x4474fb968731aee7ull }, /* perlin fbm1 */
        { 0xcfbbee6f7d7aa0bfull, 0xc62c2d5302337c67ull }, /* perlin fbm5 */
        { 0xf5d59d25b84374b6ull, 0x46aaf1ba9e0ec7fbull }, /* perlin turbulence4 */
        { 0xa06c48a8ebc261b3ull, 0x83c0777f4e28d0afull }, /* perlin ridged4 */
        { 0x5c66ce92433b7c9full, 0xf8cb08587c429f48ull }, /* perlin warp3 */
        { 0x18288870ba829b2bull, 0x68c897fb89512854ull }, /* perlin t2 */
    },
    {
        { 0x99d04d8e6a478fe8ull, 0x23643b870afda9fbull }, /* perlin/triangle fbm1 */
        { 0xc7fc4ff44b36a090ull, 0xc6800728b2a3aaf6ull }, /* perlin/triangle fbm5 */
        { 0x6aed8a939456b618ull, 0x73ac6bbc86d3ac83ull }, /* perlin/triangle turbulence4 */
        { 0x0925a1b43631a4b5ull, 0x1574a4561f241354ull }, /* perlin/triangle ridged4 */
        { 0x380430dc14db0ff4ull, 0xa9c4e222321b2ce7ull }, /* perlin/triangle warp3 */
        { 0x96c3cfc8024355dbull, 0xfddb64b47d265b83ull }, /* perlin/triangle t2 */
    },
    {
        { 0x23e83350fffd515dull, 0x10e172e9c2d7c4aaull }, /* simplex fbm1 */
        { 0x47ddb9c8b3afc488ull, 0xc76e0b74bf99054bull }, /* simplex fbm5 */
        { 0x8fb8cea1fe07c918ull, 0x593a2abceae001fcull }, /* simplex turbulence4 */
        { 0x44e9b4b0e23105efull, 0x660330d0cb376618ull }, /* simplex ridged4 */
        { 0x8a40ae3cef958da2ull, 0xfdc992fded0c92ccull }, /* simplex warp3 */
        { 0x9e17064bae5fe9e2ull, 0x5734d4b34cfc349dull }, /* simplex t2 */
    },
    {
        { 0x17325c7a0cdaac19ull, 0x8151a4f727b16013ull }, /* improved fbm1 */
        { 0x71c4fe38bd312b52ull, 0x8c01144903ab70b9ull }, /* improved fbm5 */
        { 0x9f53d4dc7026cbc2ull, 0x3e404a9db5d07f49ull }, /* improved turbulence4 */
        { 0x944c888c5c5d9e4bull, 0x381c89bd9f4c95cbull }, /* improved ridged4 */
        { 0x441942cc075b99bcull, 0x8e9ccd289c44746bull }, /* improved warp3 */
        { 0x46d88607c25c532eull, 0x28c3a8a027fff52full }, /* improved t2 */
    },
    {
        { 0xeba51d28b093b655ull, 0xd2f0fece50fda61bull }, /* cellular fbm1 */
        { 0xf602db59fb541a00ull, 0x137c55e3607142e6ull }, /* cellular fbm5 */
        { 0x951064159be65bb7ull, 0x779bba73fbb3f960ull }, /* cellular turbulence4 */
        { 0x4339d576c32cdda7ull, 0xb55e0a95a5b4cd87ull }, /* cellular ridged4 */
        { 0xb9a0eb252f5402c4ull, 0xd85afc4f00f1a37cull }, /* cellular warp3 */
        { 0xf62352e3d08f1634ull, 0x1da991c10a91f2a8ull }, /* cellular t2 */
    },
};

static void test_goldens(void)
{
    enum { W = 256 };
    float *v = malloc(sizeof(float) * W * W), *g = malloc(sizeof(float) * 2 * W * W);
    int bad = 0;
    for (int b = 0; b < TN_N_BASES; b++)
        for (int m = 0; m < N_MODES; m++) {
            noise_spec s;
            noise_spec_default(&s, tn_bases[b].kind, 2024 + (uint32_t)m);
            s.lattice = tn_bases[b].lattice;
            s.fractal = modes[m].fractal;
            s.octaves = modes[m].octaves;
            s.warp = modes[m].warp;
            s.has_t = modes[m].has_t;
            s.t = -2.75;
            s.frequency = 0.75;
            memset(v, 0, sizeof(float) * W * W);
            noise_eval_grid(&s, -37.3, 12.6, 0.173, W, W, v, g);
            uint64_t hv = tn_fnv1a(v, sizeof(float) * W * W), hg = tn_fnv1a(g, sizeof(float) * 2 * W * W);
            /* values-only fills give the same values */
            noise_eval_grid(&s, -37.3, 12.6, 0.173, W, W, v, NULL);
            uint64_t hv2 = tn_fnv1a(v, sizeof(float) * W * W);
            if (hv != golden[b][m][0] || hg != golden[b][m][1] || hv2 != hv) {
                bad++;
                fprintf(stderr, "  %s %s: got { 0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull }%s\n", tn_bases[b].name,
                        modes[m].name, hv, hg, hv2 != hv ? " (values-only fill differs)" : "");
            }
            printf("# { 0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull }, /* %s %s */\n", hv, hg, tn_bases[b].name,
                   modes[m].name);
        }
    CHECKF(bad == 0, "%d of %d golden checksums differ", bad, TN_N_BASES * N_MODES);
    free(v);
    free(g);
}

/* The checksums would not notice a grid of zeros twice; make sure they
 * separate what they should: different fields give different sums. */
static void test_goldens_distinct(void)
{
    int dup = 0;
    for (int a = 0; a < TN_N_BASES * N_MODES; a++)
        for (int b = a + 1; b < TN_N_BASES * N_MODES; b++)
            dup += golden[a / N_MODES][a % N_MODES][0] == golden[b / N_MODES][b % N_MODES][0];
    CHECKF(dup == 0, "%d pairs of fields share a checksum", dup);
}

int main(void)
{
    RUN_PATHS(test_goldens);
    RUN(test_goldens_distinct);
    return t_done();
}
