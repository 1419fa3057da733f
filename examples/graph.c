/* graph.c: a field graph evaluated by the installed noise core, without
 * the daemon. The one-node graph perlin(octaves:4) at seed 7 is the kind:
 * it prints the numbers of the README's /perlin/7/point example; the
 * composed graph prints its canonical text (what the daemon's g= takes)
 * and its value and gradient at the same point, as
 * GET /graph/7/point?g=<that text>&x=1.5&y=-2.25 answers them.
 *
 * Build against an installed copy (make install):
 *   cc graph.c $(pkg-config --cflags --libs noisetile) -o graph
 */
#include <noisetile/noise_graph.h>

#include <stdio.h>
#include <string.h>

static void print_number(const char *before, double v)
{
    char buf[32];
    noise_format_double(v, buf, sizeof buf);
    printf("%s%s", before, buf);
}

/* Parses json, prepares it for seed 7, prints its value and gradient at
 * (1.5, -2.25). Returns 0, or 1 with a message. */
static int show(const char *label, const char *json)
{
    noise_graph_error err;
    noise_graph *g = noise_graph_parse_json(json, strlen(json), &err);
    if (g == NULL) {
        fprintf(stderr, "graph: %s at %s\n", err.message, err.pointer);
        return 1;
    }
    char text[NOISE_GRAPH_MAX_TEXT + 1];
    if (noise_graph_encode(g, text, sizeof text) < 0) {
        noise_graph_destroy(g);
        return 1;
    }
    noise_graph_field *f = noise_graph_prepare(g, 7, &err);
    noise_graph_destroy(g); /* the prepared field keeps what it needs */
    if (f == NULL) {
        fprintf(stderr, "graph: %s\n", err.message);
        return 1;
    }
    double p[2] = { 1.5, -2.25 }, value, grad[3];
    int n_grad = 0;
    int rc = noise_graph_field_point(f, p, 2, &value, grad, &n_grad);
    noise_graph_field_destroy(f);
    if (rc != 0)
        return 1;
    printf("%s %s seed 7 at (1.5, -2.25):", label, text);
    print_number(" value ", value);
    print_number(" gradient ", grad[0]);
    for (int c = 1; c < n_grad; c++)
        print_number(" ", grad[c]);
    printf("\n");
    return 0;
}

int main(void)
{
    if (show("one node", "{\"node\": \"perlin\", \"octaves\": 4}") != 0)
        return 1;
    /* continents bent through a curve, ridged mountains where they are high */
    return show("composed",
                "{\"nodes\": {\"land\": {\"node\": \"curve\", \"points\": [[-1, -0.6], [0, 0], [1, 0.8]],"
                "                        \"inputs\": [{\"node\": \"perlin\", \"frequency\": 0.05, \"octaves\": 5}]}},"
                " \"output\": {\"node\": \"add\", \"inputs\": [\"land\", {\"node\": \"mul\", \"inputs\": ["
                "   {\"node\": \"clamp\", \"min\": 0, \"inputs\": [\"land\"]},"
                "   {\"node\": \"simplex\", \"fractal\": \"ridged\", \"octaves\": 6, \"frequency\": 0.2, \"seed\": 1}]}]}}");
}
