/* bench_graph_cases.h: the graphs bench/bench_graph.c times, as graph JSON
 * (docs/graphs.md), on the tile grid every noise bench uses: 256 x 256
 * samples at step 1/16 from (1000 + 1/32, -2000 + 1/32) (a zoom-0 tile of
 * the daemon: 16 plane units, pixel centres). Kept in a header of its own
 * so a peer's bench (FastNoise2's node graphs of the same shapes) can
 * build the same graphs from the same numbers.
 *
 * Shapes (frequencies in cycles per plane unit; octave k at lacunarity^k
 * times the frequency with amplitude gain^k; fractal values not clamped):
 * - fbm6: fBm of 6 octaves (lacunarity 2, gain 0.5) over perlin at
 *   frequency 1.
 * - continents: remap from [-1, 1] to [0, 1] of fBm of 5 octaves over
 *   simplex at frequency 0.25, times ridged of 4 octaves over perlin at
 *   frequency 1.
 * - warp: perlin at frequency 1 at (x + 0.5 wx, y + 0.5 wy), wx and wy
 *   simplex at frequency 0.5 with seed offsets 0 and 1.
 */
#ifndef BENCH_GRAPH_CASES_H
#define BENCH_GRAPH_CASES_H

#include <stddef.h>

#define BENCH_GRAPH_W 256
#define BENCH_GRAPH_X0 (1000.0 + 0.5 / 16)
#define BENCH_GRAPH_Y0 (-2000.0 + 0.5 / 16)
#define BENCH_GRAPH_STEP (1.0 / 16)
#define BENCH_GRAPH_SEED 1u

/* kinds: the same fractals as kind fields (one-source graphs, each the
 * kind with octaves: the core's fused fractal loops), whose fills' sum the
 * graph is also compared with; NULL-terminated, or none. */
typedef struct {
    const char *name;
    const char *json;
    const char *kinds[3];
} bench_graph_case;

static const bench_graph_case bench_graph_cases[] = {
    { "fbm6",
      "{\"node\": \"fractal\", \"type\": \"fbm\", \"octaves\": 6, \"lacunarity\": 2, \"gain\": 0.5,"
      " \"inputs\": [{\"node\": \"perlin\", \"frequency\": 1}]}",
      { "{\"node\": \"perlin\", \"octaves\": 6}", NULL } },
    { "continents",
      "{\"node\": \"mul\", \"inputs\": ["
      "{\"node\": \"remap\", \"from_min\": -1, \"from_max\": 1, \"to_min\": 0, \"to_max\": 1, \"inputs\": ["
      "{\"node\": \"fractal\", \"type\": \"fbm\", \"octaves\": 5, \"lacunarity\": 2, \"gain\": 0.5,"
      " \"inputs\": [{\"node\": \"simplex\", \"frequency\": 0.25}]}]},"
      "{\"node\": \"fractal\", \"type\": \"ridged\", \"octaves\": 4, \"lacunarity\": 2, \"gain\": 0.5,"
      " \"inputs\": [{\"node\": \"perlin\", \"frequency\": 1}]}]}",
      { "{\"node\": \"simplex\", \"frequency\": 0.25, \"octaves\": 5}",
        "{\"node\": \"perlin\", \"fractal\": \"ridged\", \"octaves\": 4}", NULL } },
    { "warp",
      "{\"node\": \"warp\", \"amplitude\": 0.5, \"inputs\": ["
      "{\"node\": \"perlin\", \"frequency\": 1},"
      "{\"node\": \"simplex\", \"frequency\": 0.5},"
      "{\"node\": \"simplex\", \"frequency\": 0.5, \"seed\": 1}]}",
      { NULL } },
};
#define BENCH_GRAPH_N_CASES ((int)(sizeof bench_graph_cases / sizeof bench_graph_cases[0]))

#endif
