/* cost.h: the estimated work of a request that evaluates the field, for the
 * render pool's bound (pool.h) and the per-request limit.
 *
 * cost = samples x octaves x warp factor x gradient factor x 3D factor
 *
 * in units of one noise sample of one octave, about 20 ns of one core of
 * this machine (2D simplex; BENCHMARKS.md, "Render pool", has the
 * measurements behind each factor):
 * - samples: pixels of a tile (256^2, or 512^2 for @2x), points of a batch
 *   (1 for /point), samples of a grid band;
 * - warp factor 3 when warp > 0: the warp evaluates the field three times;
 * - gradient factor 2 when analytic gradients are computed (shade=1 tiles,
 *   every point answer): measured 1.1x to 2.5x the value alone;
 * - 3D factor 4 with t: 3D noise measured 1.2x (improved) to 4.2x
 *   (simplex) the 2D cost, and up to 20x for the square-lattice kinds whose
 *   2D rows share lattice work (their 2D cost is a fifth of simplex's).
 * It is an estimate that keeps the costliest requests from crowding the
 * queue, not a price: within a factor of about 4 of the measured time. */
#ifndef COST_H
#define COST_H

#include <stddef.h>
#include <stdint.h>

#include "noise.h"

#define COST_WARP_FACTOR 3
#define COST_GRADIENT_FACTOR 2
#define COST_3D_FACTOR 4

/* A single request (or one band of a grid) may cost at most this: about
 * one second of one core. The costliest tile that passes validation
 * (@2x, 16 octaves, warp, t, shade) is 512^2 x 16 x 3 x 2 x 4 = 100.7M. */
#define COST_REQUEST_LIMIT 50000000ULL

/* A grid may cost at most this in all: about eight seconds of one core, so
 * that the largest window (4097^2, Unity's largest heightmap) can be had
 * with the octaves and the gradients or warp that terrain takes (6 octaves
 * with warp: 302M; with gradients: 201M), while the costliest one that passes
 * validation (16 octaves, warp, t: 3222.8M, about a minute) is refused.
 * A grid is computed in bands, each its own job of the fair render pool
 * within COST_REQUEST_LIMIT, so a grid never holds a worker for long;
 * /stats of a window is one job and keeps COST_REQUEST_LIMIT. */
#define COST_GRID_LIMIT 400000000ULL

/* The render pool's bound on waiting work, per worker thread: about four
 * seconds of work each (so a request admitted to a full queue starts
 * within about four seconds). */
#define COST_QUEUE_PER_WORKER 200000000ULL

/* The estimated cost of evaluating spec at samples samples, with analytic
 * gradients when gradients is 1. Never 0. */
uint64_t cost_estimate(const noise_spec *spec, uint64_t samples, int gradients);

/* 0 when the request's cost is within limit (COST_REQUEST_LIMIT, or
 * COST_GRID_LIMIT for a grid); else -1 with a message in err naming the
 * cost, its factors, the limit and the parameters to lower (lower_hint,
 * e.g. "ask for @1x", is added to them when not NULL). */
int cost_check(const noise_spec *spec, uint64_t samples, int gradients, uint64_t limit,
               const char *lower_hint, char *err, size_t err_size);

/* ---- field graphs (noise_graph.h) ----
 *
 * A graph's cost per sample is noise_graph_field_cost's walk over its
 * unrolled nodes: each source instance costs what its kind costs
 * (cost_source: cost_estimate of one sample, its octaves, warp, gradients
 * and t), each other node instance COST_GRAPH_NODE. The request's cost is
 * that times its samples. COST_GRAPH_NODE is a node's work per sample in
 * units of one source octave's sample, measured on the grid path
 * (noise_graph_field_grid_rows, 512 x 512 samples, best of 7, this 2-core
 * machine under other builds, 2026-12-05, graph_eval.c as of eaafb32): a
 * 2D simplex source 1.00 ns per sample; 16 chained scale_bias nodes over it
 * add 0.17 ns per node per sample, 16 add-a-constant nodes 0.21 ns, 8
 * curve nodes (3 points) 4-5.5 ns. BENCHMARKS.md ("Field graphs", make
 * bench-graph) has every node, values / with gradients: add, mul,
 * scale_bias 0.13-0.15 / 0.40-0.68 ns, select 1.35 / 2.42, curve 3.1 /
 * 3.8, pow 13.9 / 14.5, against about 1.2 ns per source octave sample in a
 * graph. 0.5 covers the arithmetic nodes, which most graphs are made of,
 * with room; one constant does not see the heavier ones (a graph of many
 * curves is under-estimated up to 8 times, of pow nodes up to about 25). */
#define COST_GRAPH_NODE 0.5

/* source_cost for noise_graph_field_cost: cost_estimate(spec, 1,
 * gradients) (ctx unused). */
double cost_source(const noise_spec *spec, int gradients, void *ctx);

/* per_sample x samples, rounded up, at least 1. */
uint64_t cost_graph(double per_sample, uint64_t samples);

/* 0 when cost_graph(per_sample, samples) is within limit; else -1 with a
 * message in err naming the cost, the limit, the node that dominates it
 * (dominant: its JSON pointer in the canonical JSON) and what to lower. */
int cost_check_graph(double per_sample, uint64_t samples, int gradients, uint64_t limit,
                     const char *dominant, const char *lower_hint, char *err, size_t err_size);

#endif
