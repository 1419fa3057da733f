/* params.h: the one table of query parameters: every parameter a route
 * takes, with the kinds it applies to, its type, range, default and
 * description. Field parameters are the noise core's table (noise.h,
 * noise_params()); the rows here add the routes that take each parameter
 * and the daemon's own parameters (render options, point coordinates).
 * Validation (query.c), /api/kinds, OpenAPI and through /api/kinds the
 * viewer's controls all read it; tests check the README and docs/ against it. */
#ifndef PARAMS_H
#define PARAMS_H

#include <stddef.h>

#include "noise.h"

/* Which routes take a parameter, as bits. */
enum {
    PARAMS_RENDER = 1, /* PNG tiles and tile.json: how the field is drawn */
    PARAMS_POINT = 2,  /* GET /{kind}/{seed}/point */
    PARAMS_FIELD = 4,  /* every route of a field (tile, point, points, tile.json) */
    PARAMS_WINDOW = 8, /* a window of samples: GET /{kind}/{seed}/stats (and grids) */
    PARAMS_STATS = 16, /* GET /{kind}/{seed}/stats */
    PARAMS_NPY = 32,   /* .npy tiles and grids */
    PARAMS_ENCODING = 64 /* numbers as PNG: .png tiles and grids, tile.json */
};

/* The daemon's own parameters, by index into the value arrays of
 * query_result (query.h). Add a parameter: an id here, a row in params.c. */
typedef enum {
    PARAM_PALETTE = 0,
    PARAM_SHADE,
    PARAM_ZERO,
    PARAM_QUALITY,
    PARAM_RAMP,
    PARAM_X,
    PARAM_Y,
    PARAM_STEP,
    PARAM_WIDTH,
    PARAM_HEIGHT,
    PARAM_BINS,
    PARAM_GRADIENT,
    PARAM_ENCODING,
    PARAM_HEIGHT_SCALE,
    PARAM_HEIGHT_OFFSET,
    PARAM_COUNT
} param_id;

typedef struct {
    noise_param p;         /* name, type, description, range, default
                              (p.optional: no default), choices, kinds */
    unsigned int routes;   /* PARAMS_* bits */
    int required;          /* 1: must be given */
    int flag;              /* 1: a switch: exactly "0" or "1" */
    int id;                /* param_id for the daemon's own rows; -1 for
                              field rows (they go to noise_spec_parse) */
} param_row;

/* Rows in order: the field parameters (noise core order), then the
 * daemon's own in param_id order. */
size_t params_count(void);

/* Row i (0 <= i < params_count()) by value. */
param_row params_row(size_t i);

/* The row called name that routes with bits `routes` take; returns 0 and
 * fills *out, or -1. */
int params_find(const char *name, unsigned int routes, param_row *out);

/* The names the routes `routes` take for kind, as "a, b, c" into buf. */
void params_names(unsigned int routes, noise_kind kind, char *buf, size_t buf_size);

/* The range of a row in words, as validation messages and the README say
 * it: "(0, 1e6]", "1..16", "0 or 1", "one of gray, terrain, viridis",
 * "any finite number". */
void params_range_text(const param_row *r, char *buf, size_t buf_size);

#endif
