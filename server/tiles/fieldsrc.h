/* fieldsrc.h: the field a renderer evaluates: a kind's spec (noise.h), or
 * a field graph prepared for a seed (noise_graph.h). Every place that
 * evaluates the field (tiles, numeric tiles and grids, statistics, points
 * and batches, export) goes through one of these, so a graph is served
 * wherever a kind is.
 *
 * A prepared graph (fieldsrc_graph) is immutable and reference-counted:
 * the service keeps recently used ones (service/graphs.h) and a job that
 * outlives the request that made it (a grid stream) holds a reference. */
#ifndef FIELDSRC_H
#define FIELDSRC_H

#include <stddef.h>

#include "noise.h"
#include "noise_graph.h"

typedef struct fieldsrc_graph fieldsrc_graph;

/* Takes f (prepared by noise_graph_prepare; destroyed with the last
 * reference). shade_frequency: the frequency hillshading divides the
 * gradient by (a kind uses its own). NULL out of memory (f is then
 * destroyed). One reference. */
fieldsrc_graph *fieldsrc_graph_create(noise_graph_field *f, double shade_frequency);
fieldsrc_graph *fieldsrc_graph_retain(fieldsrc_graph *g);
void fieldsrc_graph_release(fieldsrc_graph *g); /* NULL: nothing */
const noise_graph_field *fieldsrc_graph_field(const fieldsrc_graph *g);
double fieldsrc_graph_shade_frequency(const fieldsrc_graph *g);

/* A field ready to evaluate: the kind's prepared noise_field (owned), or
 * the graph (borrowed: the caller keeps its reference while it is used). */
typedef struct {
    noise_field *field;
    const fieldsrc_graph *graph;
} fieldsrc;

/* Prepares spec's field, or takes graph when it is not NULL (spec is then
 * not used and may be NULL). 0, or -1 out of memory. */
int fieldsrc_init(fieldsrc *s, const noise_spec *spec, const fieldsrc_graph *graph);
void fieldsrc_free(fieldsrc *s);

/* 1 when the field's 2D evaluation has a third gradient component (a kind
 * with t: d/dt); a graph's grids always have 2. */
int fieldsrc_grid_grads3(const fieldsrc *s);
/* The frequency hillshading divides by. */
double fieldsrc_shade_frequency(const fieldsrc *s);

/* As noise_field_grid_rows / _grid / _points / _point: 0, or -1 out of
 * memory (a graph's working memory; nothing written). */
int fieldsrc_grid_rows(const fieldsrc *s, double x0, double y0, double step, int width, int row0,
                       int rows, float *values, float *grads);
int fieldsrc_grid(const fieldsrc *s, double x0, double y0, double step, int width, int height,
                  float *values, float *grads);
int fieldsrc_points(const fieldsrc *s, size_t n, const double *points, int dims, double *values,
                    double *grads);
int fieldsrc_point(const fieldsrc *s, const double *p, int dims, double *value, double *grad,
                   int *n_grad);

#endif
