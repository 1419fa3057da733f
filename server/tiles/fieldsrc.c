/* fieldsrc.c: a kind's field or a prepared graph behind one evaluation
 * interface (see fieldsrc.h). */
#include "tiles/fieldsrc.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "base/failalloc.h"

struct fieldsrc_graph {
    noise_graph_field *field;
    double shade_frequency;
    atomic_int refs;
};

fieldsrc_graph *fieldsrc_graph_create(noise_graph_field *f, double shade_frequency)
{
    fieldsrc_graph *g = failalloc_malloc(sizeof *g);
    if (g == NULL) {
        noise_graph_field_destroy(f);
        return NULL;
    }
    g->field = f;
    g->shade_frequency = shade_frequency > 0 ? shade_frequency : 1.0;
    atomic_init(&g->refs, 1);
    return g;
}

fieldsrc_graph *fieldsrc_graph_retain(fieldsrc_graph *g)
{
    if (g != NULL)
        atomic_fetch_add_explicit(&g->refs, 1, memory_order_relaxed);
    return g;
}

void fieldsrc_graph_release(fieldsrc_graph *g)
{
    if (g == NULL || atomic_fetch_sub_explicit(&g->refs, 1, memory_order_acq_rel) != 1)
        return;
    noise_graph_field_destroy(g->field);
    free(g);
}

const noise_graph_field *fieldsrc_graph_field(const fieldsrc_graph *g) { return g->field; }

double fieldsrc_graph_shade_frequency(const fieldsrc_graph *g) { return g->shade_frequency; }

int fieldsrc_init(fieldsrc *s, const noise_spec *spec, const fieldsrc_graph *graph)
{
    s->graph = graph;
    s->field = NULL;
    if (graph != NULL)
        return 0;
    s->field = noise_field_init(failalloc_malloc(noise_field_size()), spec);
    return s->field != NULL ? 0 : -1;
}

void fieldsrc_free(fieldsrc *s)
{
    free(s->field);
    s->field = NULL;
    s->graph = NULL;
}

int fieldsrc_grid_grads3(const fieldsrc *s)
{
    return s->graph == NULL && noise_field_spec(s->field)->has_t;
}

double fieldsrc_shade_frequency(const fieldsrc *s)
{
    return s->graph != NULL ? s->graph->shade_frequency : noise_field_spec(s->field)->frequency;
}

int fieldsrc_grid_rows(const fieldsrc *s, double x0, double y0, double step, int width, int row0,
                       int rows, float *values, float *grads)
{
    if (s->graph == NULL) {
        noise_field_grid_rows(s->field, x0, y0, step, width, row0, rows, values, grads);
        return 0;
    }
    return noise_graph_field_grid_rows(s->graph->field, x0, y0, step, width, row0, rows, values,
                                       grads) == 0
               ? 0
               : -1;
}

int fieldsrc_grid(const fieldsrc *s, double x0, double y0, double step, int width, int height,
                  float *values, float *grads)
{
    if (s->graph == NULL) {
        noise_field_grid(s->field, x0, y0, step, width, height, values, grads);
        return 0;
    }
    return fieldsrc_grid_rows(s, x0, y0, step, width, 0, height, values, grads);
}

int fieldsrc_points(const fieldsrc *s, size_t n, const double *points, int dims, double *values,
                    double *grads)
{
    if (s->graph == NULL) {
        noise_field_points(s->field, n, points, dims, values, grads);
        return 0;
    }
    return noise_graph_field_points(s->graph->field, n, points, dims, values, grads) == 0 ? 0 : -1;
}

int fieldsrc_point(const fieldsrc *s, const double *p, int dims, double *value, double *grad,
                   int *n_grad)
{
    if (s->graph == NULL) {
        *value = noise_field_point(s->field, p, dims, grad, n_grad);
        return 0;
    }
    return noise_graph_field_point(s->graph->field, p, dims, value, grad, n_grad) == 0 ? 0 : -1;
}
