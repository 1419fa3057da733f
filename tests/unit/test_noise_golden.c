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
    {
        { 0xf89045665ca08392ull, 0xf8e4e172a50a3144ull }, /* classic fbm1 */
        { 0xe9d27b931463b985ull, 0xec3ba144b9304bd3ull }, /* classic fbm5 */
        { 0xc6732e8882d8efcfull, 0x4908d4481f880d6bull }, /* classic turbulence4 */
        { 0x0407f32ee51b2b89ull, 0xfc9a569f89666f74ull }, /* classic ridged4 */
        { 0xd40b6ff917860a6aull, 0x832479869d4eddc9ull }, /* classic warp3 */
        { 0xb679f4353ca06a2cull, 0xbef30dee75e313b0ull }, /* classic t2 */
    },
    {
        { 0x2125384a0974793dull, 0x2fd63db306758388ull }, /* classic/cubic fbm1 */
        { 0x55a255b5035361fdull, 0xa9b2893844f272a7ull }, /* classic/cubic fbm5 */
        { 0xdd62f986ac5cb20bull, 0xc9ac2d09eb3662bcull }, /* classic/cubic turbulence4 */
        { 0x14f080d94fe2c4ffull, 0xd6390aaa585a0192ull }, /* classic/cubic ridged4 */
        { 0x2ea576d4cea481e3ull, 0xd368b1614842ba6bull }, /* classic/cubic warp3 */
        { 0x13a75fbd69a507d0ull, 0x7f5f2dc978458cf8ull }, /* classic/cubic t2 */
    },
    {
        { 0xfd8237a667d3c324ull, 0x4f87b33f04792c22ull }, /* classic/quintic fbm1 */
        { 0x0baf7322dd110956ull, 0x76935e596b07a059ull }, /* classic/quintic fbm5 */
        { 0x429245337a37c09eull, 0x85a9ffd6b208890dull }, /* classic/quintic turbulence4 */
        { 0x30d7021e88be9c36ull, 0xa55a03d299cda22aull }, /* classic/quintic ridged4 */
        { 0xa28781fb6210df75ull, 0xb53824857971f51cull }, /* classic/quintic warp3 */
        { 0x7d34b18f984b7794ull, 0xbfbf6e3fef6cc353ull }, /* classic/quintic t2 */
    },
    {
        { 0x48baaa06de429d07ull, 0x88a750f2bbb47710ull }, /* perlin/angle fbm1 */
        { 0x9faec5387d5689f9ull, 0x67de65565f036c1bull }, /* perlin/angle fbm5 */
        { 0x97a5a10ea2347443ull, 0x1f6900610c497be2ull }, /* perlin/angle turbulence4 */
        { 0x078a940b82cb574aull, 0xdda6db8cb9fae77full }, /* perlin/angle ridged4 */
        { 0xa54793cf3519a978ull, 0x301027809d3447d6ull }, /* perlin/angle warp3 */
        { 0x1c97b379c9f56797ull, 0xb3caec76dc7c7cdbull }, /* perlin/angle t2 */
    },
    {
        { 0xd03ae830b56db910ull, 0xa5735f92d4803762ull }, /* simplex/angle fbm1 */
        { 0x221b01e65651545full, 0x662c68567eb7c3d0ull }, /* simplex/angle fbm5 */
        { 0xe7712fc9339b9e8bull, 0xc30aa97940ccf7fbull }, /* simplex/angle turbulence4 */
        { 0xfa9b58fc277cdde9ull, 0x53b0f07a444f5558ull }, /* simplex/angle ridged4 */
        { 0x2eced2170139da1bull, 0xf334ccb7d9bff840ull }, /* simplex/angle warp3 */
        { 0xc8cfedb5c8f09ad8ull, 0x02169c65e7279f28ull }, /* simplex/angle t2 */
    },
    {
        { 0x12244496980f98eaull, 0x3f33adabb043e822ull }, /* simplex/quartic fbm1 */
        { 0xf9a1ffcbe194297bull, 0xeb30c85b34cdc343ull }, /* simplex/quartic fbm5 */
        { 0x68f8d9cbc0ba4d8cull, 0x6f42eac074249d6aull }, /* simplex/quartic turbulence4 */
        { 0xc676d4c6df53a32bull, 0x7d9b9d0c3834ad82ull }, /* simplex/quartic ridged4 */
        { 0xbf6af294845f50e4ull, 0xfeaa06c77e56a218ull }, /* simplex/quartic warp3 */
        { 0x02098a160c3dbfc2ull, 0x3e07d0a311de8006ull }, /* simplex/quartic t2 */
    },
    {
        { 0x1e898502f8689f04ull, 0x4011f3769f1132d8ull }, /* simplex/angle/quartic fbm1 */
        { 0xcfe20fa143b73410ull, 0xc7e58ec457bde752ull }, /* simplex/angle/quartic fbm5 */
        { 0x9e0bf901412e41f6ull, 0x5686b86b93e54898ull }, /* simplex/angle/quartic turbulence4 */
        { 0x77c138acf5d41e7cull, 0x5f9385eafa00afafull }, /* simplex/angle/quartic ridged4 */
        { 0xb7754edb0e3ad85dull, 0x48acc95348817c3dull }, /* simplex/angle/quartic warp3 */
        { 0x5a55727e31d371e5ull, 0xf57c3bcca1179c48ull }, /* simplex/angle/quartic t2 */
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
            tn_apply(&s, b);
            tn_golden_spec(&s, modes[m].fractal, modes[m].octaves, modes[m].warp, modes[m].has_t);
            memset(v, 0, sizeof(float) * W * W);
            uint64_t hv, hg, hv2;
            tn_golden_grid(&s, W, v, g, &hv, &hg);
            /* values-only fills give the same values */
            tn_golden_grid(&s, W, v, NULL, &hv2, NULL);
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
