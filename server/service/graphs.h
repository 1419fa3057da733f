/* graphs.h: field graphs in the service: the named graphs (the presets
 * built into the binary from graphs/presets.json, and those --graphs FILE
 * loads at start-up), the graph of a URL's g= decoded and checked, and a
 * small cache of graphs prepared for a seed (noise_graph_prepare) with
 * their per-sample cost, shared by the requests that ask for the same
 * graph and seed (a tile's neighbours, a grid's bands).
 *
 * Why a cache of prepared graphs: preparing a graph (decode, build its
 * sources, unroll its fractals) took 29-54 us for the presets against
 * 0.7-12 ms for a shaded 256 x 256 tile of them (1-5 %), and a request
 * needs it twice (its cost at admission, its values on the worker); kept,
 * a graph is prepared once for all its tiles, bands and points.
 *
 * Every graph is known by its canonical text (noise_graph.h): the cache
 * keys and ETags of graph requests are made of it, so a graph named, sent
 * in g= or POSTed in any spelling is one entry. */
#ifndef GRAPHS_H
#define GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "noise.h"
#include "noise_graph.h"
#include "tiles/fieldsrc.h"

typedef struct graphs graphs;

/* Prepared graphs kept (least recently used dropped first). */
#define GRAPHS_PREPARED_MAX 32

/* The presets and, when user_file is not "" or NULL, the graphs of that
 * file ({name: {"description": "...", "graph": <graph JSON>}}). NULL with
 * a message in err naming the file, the name and the JSON pointer of what
 * is wrong (a bad file stops the daemon's start). */
graphs *graphs_create(const char *user_file, char *err, size_t err_size);
void graphs_destroy(graphs *g);

/* The canonical text of the named graph, or NULL. */
const char *graphs_named(const graphs *g, const char *name);
/* Every name, ", "-separated, into buf. */
void graphs_names(const graphs *g, char *buf, size_t buf_size);
/* GET /api/graphs: {"graphs": [{"name", "description", "graph", "json"}...]}. */
json_t *graphs_list_document(const graphs *g);

/* The longest canonical text (NUL included). */
#define GRAPHS_TEXT_MAX (NOISE_GRAPH_MAX_TEXT + 1)

/* Decodes text (a URL's g=, len bytes): 0 with its canonical text in
 * canon (GRAPHS_TEXT_MAX bytes) and, when the graph is one source node with
 * seed offset 0, *is_spec 1 and its spec in *spec; or ERR_BAD_REQUEST with
 * err holding the parser's message and pointer (errors_pointer_message). */
int graphs_decode(const char *text, size_t len, char *canon, int *is_spec, noise_spec *spec,
                  char *err, size_t err_size);
/* The same for a graph's JSON document (POST /api/graphs); *out (not
 * NULL) receives the parsed graph, which the caller destroys. */
int graphs_parse_json(const char *json, size_t len, noise_graph **out, char *err,
                      size_t err_size);

/* The graph of canonical text prepared for seed, from the cache or
 * prepared now: a reference the caller releases (fieldsrc_graph_release).
 * When cost is not NULL, *cost receives the per-sample cost (cost.h units)
 * of a 2D evaluation with gradients (1) or not (0), and dominant (256
 * bytes) the JSON pointer of the node that costs most. NULL out of memory
 * or for a graph that cannot be prepared, with a message in err (code in
 * *code: ERR_NOMEM or ERR_BAD_REQUEST with a pointer). */
fieldsrc_graph *graphs_prepare(graphs *g, const char *canon, uint32_t seed, int gradients,
                               int dims, double *cost, char *dominant, int *code, char *err,
                               size_t err_size);

/* Counters for tests: preparations made, and cache hits. */
unsigned long graphs_prepare_count(const graphs *g);

#endif
