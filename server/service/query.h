/* query.h: the query string of a request, split into the parameters each
 * endpoint takes: field parameters (handed to noise_spec_parse), render
 * parameters (palette, shade, zero) and point coordinates (x, y). */
#ifndef QUERY_H
#define QUERY_H

#include <stddef.h>

#include "base/daemon_limits.h"
#include "noise.h"
#include "service/params.h"
#include "tiles/render.h"

typedef struct {
    size_t n;
    const char *names[LIMIT_QUERY_PARAMS];  /* borrowed: see query_split */
    const char *values[LIMIT_QUERY_PARAMS]; /* never NULL */
    int error;                              /* set by query_args_add */
    char msg[160];
} query_args;

/* Which parameters besides the field's an endpoint takes (params.h). */
enum {
    QUERY_RENDER = PARAMS_RENDER, /* palette, shade, zero */
    QUERY_POINT = PARAMS_POINT,   /* x, y */
    QUERY_WINDOW = PARAMS_WINDOW, /* x, y, step, width, height: a window of samples */
    QUERY_BINS = PARAMS_STATS,    /* bins (/stats) */
    QUERY_NPY = PARAMS_NPY,       /* gradient */
    QUERY_ENCODING = PARAMS_ENCODING /* encoding, height_scale, height_offset */
};

/* Samples in one window at most (width and height each have their row's
 * range, 1..8193): 4097 x 4097, Unity's largest heightmap. */
#define QUERY_WINDOW_MAX_SAMPLES LIMIT_GRID_SAMPLES

/* Percent-decodes s in place the way the query and the path of a request
 * are decoded: "%XX" with two hex digits becomes that byte (a "%00" too: the
 * result may hold NULs), any other '%' stays as it is. Returns the decoded
 * length. */
size_t query_unescape(char *s);

/* Splits the query string q (the request target after '?', without '#...')
 * into arguments, in place: q is modified and must stay alive as long as
 * *out is used. Pieces are separated by '&' and split at their first '=';
 * '+' means a space; names and values are then percent-decoded
 * (query_unescape). Each argument goes through query_args_add. Returns 0;
 * or ERR_BAD_REQUEST with the reason in err (and out->msg): more than
 * LIMIT_QUERY_PARAMS arguments, an empty name, a name without '=' value, a
 * NUL byte inside a name or value. */
int query_split(char *q, query_args *out, char *err, size_t err_size);

/* The check query_split applies to each argument (key and value
 * percent-decoded, sizes as decoded, value NULL for a name without '='):
 * appends it to a, or returns -1 with a->error set and the reason in a->msg
 * (and then refuses every later call). a starts zeroed. */
/* Echoes a client value into a message: printable ASCII (others as '?'), at
 * most max bytes of it and '...' when cut; buf must hold at least 5 bytes. */
const char *query_shown(const char *v, size_t max, char *buf, size_t buf_size);

int query_args_add(query_args *a, const char *key, size_t key_size, const char *value,
                   size_t value_size);

/* The parsed parameters of one request. */
typedef struct {
    noise_spec spec;
    double value[PARAM_COUNT]; /* the daemon's own parameters by param_id
                                  (an enum: its choice's index), defaults
                                  filled in for the rows the route takes */
    int given[PARAM_COUNT];    /* 1: sent in the query */
    render_opts render;        /* with QUERY_RENDER, from value[] */
    double x, y;               /* with QUERY_POINT, from value[] */
    struct {                   /* with QUERY_WINDOW: sample (i, j) at (x + i*step, y + j*step) */
        double x, y, step;
        int width, height;
    } window;
    int bins;                  /* with QUERY_BINS */
} query_result;

/* Splits args by the parameter table (params.h) for an endpoint that takes
 * the field's parameters and those of flags (QUERY_RENDER, QUERY_POINT,
 * QUERY_WINDOW, QUERY_BINS), checks the daemon's own against their rows,
 * and hands the field's to noise_spec_parse for (kind, seed). Returns 0 and
 * fills *out; or ERR_BAD_REQUEST with a message naming the parameter:
 * unknown for this endpoint (listing what it takes), given twice, missing
 * (x, y; step, width, height), out of range, not a number; or
 * ERR_TOO_LARGE for a window of more than QUERY_WINDOW_MAX_SAMPLES or
 * wider or taller than its rows allow (8193). */
int query_parse(const query_args *args, noise_kind kind, uint32_t seed, int flags,
                query_result *out, char *err, size_t err_size);

/* How many times query_parse ran in this process (a test counter: with
 * fieldreq_key_calls, it shows a request parsed and keyed once). */
unsigned long query_parse_calls(void);

/* The canonical text of the render options: "palette=gray&shade=0&zero=0",
 * or with a ramp "ramp=<ramp_canonical, percent-encoded>&shade=0&zero=0"
 * (without a ramp the text is as before ramps existed, so keys and ETags
 * of palette tiles did not change). At most QUERY_RENDER_CANONICAL_MAX
 * bytes with the NUL. Returns the length or -1 if buf is too small. */
#define QUERY_RENDER_CANONICAL_MAX 2048
int query_render_canonical(const render_opts *opts, char *buf, size_t buf_size);

/* Strict finite decimal number: optional sign, digits with an optional '.'
 * fraction, optional exponent; no spaces, hex, inf or nan. Returns 0 and sets
 * *out, or -1. */
int query_parse_number(const char *s, double *out);

#endif
