/* bench_graph.c: the cost of field graphs (noise_graph.h), ns per sample of
 * a 256 x 256 tile fill (noise_graph_field_grid_rows; the grid of
 * bench_graph_cases.h), on the active instruction-set path (NOISE_SIMD
 * picks another):
 *
 * 1. a one-source graph against its kind (noise_field_grid_rows on the
 *    same spec): the ratio, values only and with gradients;
 * 2. the fixed cost of a node per sample: a chain of 16 nodes of one type
 *    above add(perlin, simplex) (binary nodes take the simplex again, which
 *    is the same instance), less that base graph, over 16;
 * 3. the representative graphs of bench_graph_cases.h against the sum of
 *    their sources' fills (each source instance of the prepared graph,
 *    with its frequency and seed, filled alone by noise_field_grid_rows:
 *    found by the cost walk, noise_graph_field_cost), and against the
 *    kinds that compute the same fractals (perlin with octaves=6 for fBm
 *    over perlin) where there are such.
 *
 * Every figure is the median of REPS repetitions; a repetition times every
 * case in turn (interleaved, so a change in machine load hits all alike),
 * each filling the tile until about 10 ms of this thread's CPU time have
 * passed (CLOCK_THREAD_CPUTIME_ID). Run with `make bench-graph`.
 */
#include "bench_graph_cases.h"
#include "bench_util.h"
#include "noise.h"
#include "noise_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W BENCH_GRAPH_W
#define REPS 7
#define CHAIN 16

static float values[W * W], grads[2 * W * W];
static volatile float sink;

/* ns per sample of one fill: a graph, or a kind's field */
typedef struct {
    noise_graph_field *graph;
    noise_field *field;
} filler;

static double time_fill(const filler *f, int with_grads)
{
    double t0 = bench_cpu_time(1e9), t;
    int n = 0;
    do {
        if (f->graph)
            noise_graph_field_grid_rows(f->graph, BENCH_GRAPH_X0, BENCH_GRAPH_Y0, BENCH_GRAPH_STEP, W, 0, W, values,
                                        with_grads ? grads : NULL);
        else
            noise_field_grid_rows(f->field, BENCH_GRAPH_X0, BENCH_GRAPH_Y0, BENCH_GRAPH_STEP, W, 0, W, values,
                                  with_grads ? grads : NULL);
        sink += values[W * W / 2];
        n++;
        t = bench_cpu_time(1e9) - t0;
    } while (t < 1e7);
    return t / n / (W * W);
}

static noise_graph_field *prepare_json(const char *json)
{
    noise_graph_error err;
    noise_graph *g = noise_graph_parse_json(json, strlen(json), &err);
    if (!g) {
        fprintf(stderr, "bench_graph: %s at %s in %s\n", err.message, err.pointer, json);
        exit(1);
    }
    noise_graph_field *f = noise_graph_prepare(g, BENCH_GRAPH_SEED, &err);
    noise_graph_destroy(g);
    if (!f) {
        fprintf(stderr, "bench_graph: %s at %s\n", err.message, err.pointer);
        exit(1);
    }
    return f;
}

/* ---- 1. one source against its kind ---- */

typedef struct {
    const char *name;
    const char *json;
    noise_kind kind;
    int octaves;
} one_case;

static const one_case ones[] = {
    { "perlin", "{\"node\": \"perlin\"}", NOISE_PERLIN, 1 },
    { "simplex", "{\"node\": \"simplex\"}", NOISE_SIMPLEX, 1 },
    { "value", "{\"node\": \"value\"}", NOISE_VALUE, 1 },
    { "cellular", "{\"node\": \"cellular\"}", NOISE_CELLULAR, 1 },
    { "perlin octaves=6", "{\"node\": \"perlin\", \"octaves\": 6}", NOISE_PERLIN, 6 },
};
#define N_ONES ((int)(sizeof ones / sizeof ones[0]))

/* ---- 2. the fixed cost per node ---- */

typedef struct {
    const char *name;
    const char *pre, *post; /* the node around the previous one: pre PREV post */
} node_case;

#define SIMPLEX_IN "{\"node\": \"simplex\"}"
static const node_case nodes[] = {
    { "add", "{\"node\": \"add\", \"inputs\": [", ", " SIMPLEX_IN "]}" },
    { "multiply", "{\"node\": \"mul\", \"inputs\": [", ", " SIMPLEX_IN "]}" },
    { "min", "{\"node\": \"min\", \"inputs\": [", ", " SIMPLEX_IN "]}" },
    { "smin", "{\"node\": \"smin\", \"k\": 0.2, \"inputs\": [", ", " SIMPLEX_IN "]}" },
    { "divide", "{\"node\": \"div\", \"inputs\": [", ", " SIMPLEX_IN "]}" },
    { "scale_bias", "{\"node\": \"scale_bias\", \"scale\": 0.9, \"bias\": 0.01, \"inputs\": [", "]}" },
    { "remap", "{\"node\": \"remap\", \"from_min\": -1, \"from_max\": 1, \"to_min\": -0.9, \"to_max\": 0.9, \"inputs\": [",
      "]}" },
    { "abs", "{\"node\": \"abs\", \"inputs\": [", "]}" },
    { "clamp", "{\"node\": \"clamp\", \"min\": -0.9, \"max\": 0.9, \"inputs\": [", "]}" },
    { "pow", "{\"node\": \"pow\", \"exponent\": 1.1, \"inputs\": [", "]}" },
    { "powi", "{\"node\": \"powi\", \"n\": 3, \"inputs\": [", "]}" },
    { "curve (6 points)",
      "{\"node\": \"curve\", \"points\": [[-1, -1], [-0.5, -0.6], [0, 0.1], [0.3, 0.2], [0.6, 0.7], [1, 1]], "
      "\"inputs\": [",
      "]}" },
    { "terrace (5 points)", "{\"node\": \"terrace\", \"points\": [-1, -0.4, 0, 0.5, 1], \"inputs\": [", "]}" },
    { "blend", "{\"node\": \"blend\", \"inputs\": [", ", " SIMPLEX_IN ", " SIMPLEX_IN "]}" },
    { "select (falloff)",
      "{\"node\": \"select\", \"lower\": -0.2, \"upper\": 0.5, \"falloff\": 0.1, \"inputs\": [",
      ", " SIMPLEX_IN ", " SIMPLEX_IN "]}" },
};
#define N_NODES ((int)(sizeof nodes / sizeof nodes[0]))
#define BASE_JSON "{\"node\": \"add\", \"inputs\": [{\"node\": \"perlin\"}, " SIMPLEX_IN "]}"

static char *chain_json(const node_case *nc, int k)
{
    size_t cap = strlen(BASE_JSON) + (size_t)k * (strlen(nc->pre) + strlen(nc->post)) + 1;
    char *s = malloc(cap);
    if (!s)
        exit(1);
    s[0] = 0;
    for (int i = 0; i < k; i++)
        strcat(s, nc->pre);
    strcat(s, BASE_JSON);
    for (int i = 0; i < k; i++)
        strcat(s, nc->post);
    return s;
}

/* ---- 3. representative graphs against their sources ---- */

/* The cost walk's source callback: fills the source alone and adds its time. */
typedef struct {
    int with_grads;
    double ns;
    int n_sources;
} source_sum;

static double time_source(const noise_spec *spec, int gradients, void *ctx)
{
    source_sum *s = ctx;
    filler f = { NULL, noise_field_create(spec) };
    if (!f.field)
        exit(1);
    s->ns += time_fill(&f, gradients);
    s->n_sources++;
    noise_field_destroy(f.field);
    return 0.0;
}

int main(void)
{
    printf("# bench_graph: ns per sample of a %d x %d tile fill, path %s, median of %d interleaved runs\n", W, W,
           noise_simd_name(noise_simd_active()), REPS);

    /* 1 */
    filler one_g[N_ONES], one_k[N_ONES];
    for (int i = 0; i < N_ONES; i++) {
        one_g[i].graph = prepare_json(ones[i].json);
        one_g[i].field = NULL;
        noise_spec s;
        noise_spec_default(&s, ones[i].kind, BENCH_GRAPH_SEED);
        s.octaves = ones[i].octaves;
        one_k[i].graph = NULL;
        one_k[i].field = noise_field_create(&s);
    }
    /* 2 */
    filler base = { prepare_json(BASE_JSON), NULL }, chain[N_NODES];
    for (int i = 0; i < N_NODES; i++) {
        char *j = chain_json(&nodes[i], CHAIN);
        chain[i].graph = prepare_json(j);
        chain[i].field = NULL;
        free(j);
    }
    /* 3 */
    filler rep[BENCH_GRAPH_N_CASES], kinds[BENCH_GRAPH_N_CASES][3];
    int n_kinds[BENCH_GRAPH_N_CASES];
    for (int i = 0; i < BENCH_GRAPH_N_CASES; i++) {
        rep[i].graph = prepare_json(bench_graph_cases[i].json);
        rep[i].field = NULL;
        n_kinds[i] = 0;
        for (int k = 0; k < 3 && bench_graph_cases[i].kinds[k]; k++) {
            kinds[i][k].graph = prepare_json(bench_graph_cases[i].kinds[k]);
            kinds[i][k].field = NULL;
            n_kinds[i]++;
        }
    }

    static double t_one_g[2][N_ONES][REPS], t_one_k[2][N_ONES][REPS], t_base[2][REPS], t_chain[2][N_NODES][REPS];
    static double t_rep[2][BENCH_GRAPH_N_CASES][REPS], t_src[2][BENCH_GRAPH_N_CASES][REPS];
    static double t_kind[2][BENCH_GRAPH_N_CASES][REPS];
    int n_src[BENCH_GRAPH_N_CASES];
    for (int r = 0; r < REPS; r++)
        for (int gr = 0; gr < 2; gr++) {
            for (int i = 0; i < N_ONES; i++) {
                t_one_g[gr][i][r] = time_fill(&one_g[i], gr);
                t_one_k[gr][i][r] = time_fill(&one_k[i], gr);
            }
            t_base[gr][r] = time_fill(&base, gr);
            for (int i = 0; i < N_NODES; i++)
                t_chain[gr][i][r] = time_fill(&chain[i], gr);
            for (int i = 0; i < BENCH_GRAPH_N_CASES; i++) {
                t_rep[gr][i][r] = time_fill(&rep[i], gr);
                source_sum s = { gr, 0.0, 0 };
                noise_graph_field_cost(rep[i].graph, gr, 2, time_source, &s, 0.0, NULL, 0);
                t_src[gr][i][r] = s.ns;
                n_src[i] = s.n_sources;
                t_kind[gr][i][r] = 0.0;
                for (int k = 0; k < n_kinds[i]; k++)
                    t_kind[gr][i][r] += time_fill(&kinds[i][k], gr);
            }
        }

    printf("\n## one-source graph against its kind (ns per sample)\n\n");
    printf("| field | values: kind | graph | ratio | gradients: kind | graph | ratio |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < N_ONES; i++) {
        double kv = median(t_one_k[0][i], REPS), gv = median(t_one_g[0][i], REPS);
        double kg = median(t_one_k[1][i], REPS), gg = median(t_one_g[1][i], REPS);
        printf("| %s | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f |\n", ones[i].name, kv, gv, gv / kv, kg, gg, gg / kg);
    }

    printf("\n## fixed cost of a node per sample (chain of %d above add(perlin, simplex); ns per node per sample)\n\n",
           CHAIN);
    double bv = median(t_base[0], REPS), bg = median(t_base[1], REPS);
    printf("base graph add(perlin, simplex): %.2f ns (values), %.2f ns (gradients)\n\n", bv, bg);
    printf("| node | values | gradients |\n|---|---:|---:|\n");
    for (int i = 0; i < N_NODES; i++) {
        double cv = (median(t_chain[0][i], REPS) - bv) / CHAIN, cg = (median(t_chain[1][i], REPS) - bg) / CHAIN;
        printf("| %s | %.2f | %.2f |\n", nodes[i].name, cv, cg);
    }

    printf("\n## representative graphs against the sum of their sources' fills (ns per sample)\n\n");
    printf("| graph | sources | values: graph | sources | ratio | kinds | ratio | gradients: graph | sources | ratio "
           "| kinds | ratio |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < BENCH_GRAPH_N_CASES; i++) {
        printf("| %s | %d", bench_graph_cases[i].name, n_src[i]);
        for (int gr = 0; gr < 2; gr++) {
            double g = median(t_rep[gr][i], REPS), s = median(t_src[gr][i], REPS), k = median(t_kind[gr][i], REPS);
            printf(" | %.2f | %.2f | %.3f", g, s, g / s);
            if (n_kinds[i])
                printf(" | %.2f | %.3f", k, g / k);
            else
                printf(" | - | -");
        }
        printf(" |\n");
    }
    printf("\n");
    for (int i = 0; i < BENCH_GRAPH_N_CASES; i++) {
        noise_graph *g = noise_graph_parse_json(bench_graph_cases[i].json, strlen(bench_graph_cases[i].json), NULL);
        char text[NOISE_GRAPH_MAX_TEXT + 1];
        if (g && noise_graph_encode(g, text, sizeof text) > 0)
            printf("%s: %s\n", bench_graph_cases[i].name, text);
        noise_graph_destroy(g);
        noise_graph_field_destroy(rep[i].graph);
        for (int k = 0; k < n_kinds[i]; k++)
            noise_graph_field_destroy(kinds[i][k].graph);
    }
    for (int i = 0; i < N_ONES; i++) {
        noise_graph_field_destroy(one_g[i].graph);
        noise_field_destroy(one_k[i].field);
    }
    noise_graph_field_destroy(base.graph);
    for (int i = 0; i < N_NODES; i++)
        noise_graph_field_destroy(chain[i].graph);
    return 0;
}
