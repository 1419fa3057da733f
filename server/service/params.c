/* params.c: the daemon's rows of the parameter table and the views of the
 * whole table. */
#include "service/params.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/daemon_limits.h"
#include "heights/heights.h"
#include "tiles/ramp.h"
#include "tiles/render.h"
#include "tiles/webpenc.h"

/* The daemon's own rows; palette's choices come from render.h. */
static const param_row own[PARAM_COUNT] = {
    [PARAM_PALETTE] = {{"palette", NOISE_PARAM_ENUM, "colour map; terrain has its coastline at 0", 0, 0,
                        0, 0, 0, 0, NULL, "gray", 0},
                       PARAMS_RENDER, 0, 0, PARAM_PALETTE},
    [PARAM_SHADE] = {{"shade", NOISE_PARAM_INTEGER,
                      "1: hillshading from the analytic gradient (no seams between tiles)", 0, 1, 0, 0, 0,
                      0, NULL, NULL, 0},
                     PARAMS_RENDER, 0, 1, PARAM_SHADE},
    [PARAM_ZERO] = {{"zero", NOISE_PARAM_INTEGER, "1: mark where the value crosses 0", 0, 1, 0, 0, 0, 0,
                     NULL, NULL, 0},
                    PARAMS_RENDER, 0, 1, PARAM_ZERO},
    [PARAM_X] = {{"x", NOISE_PARAM_NUMBER, "plane x coordinate of the point, or of a window's first sample",
                  -DBL_MAX, DBL_MAX, 0, 0, 1, 0, NULL, NULL, 0},
                 PARAMS_POINT | PARAMS_WINDOW, 1, 0, PARAM_X},
    [PARAM_Y] = {{"y", NOISE_PARAM_NUMBER,
                  "plane y coordinate of the point, or of a window's first sample (growing downwards)",
                  -DBL_MAX, DBL_MAX, 0, 0, 1, 0, NULL, NULL, 0},
                 PARAMS_POINT | PARAMS_WINDOW, 1, 0, PARAM_Y},
    /* width x height is at most QUERY_WINDOW_MAX_SAMPLES (query.h): 413 */
    [PARAM_STEP] = {{"step", NOISE_PARAM_NUMBER, "plane units between neighbouring samples", 0, LIMIT_GRID_STEP, 1, 0, 1,
                     0, NULL, NULL, 0},
                    PARAMS_WINDOW, 1, 0, PARAM_STEP},
    [PARAM_WIDTH] = {{"width", NOISE_PARAM_INTEGER, "samples per row: sample i is at x + i*step", 1, LIMIT_GRID_SIDE, 0,
                      0, 1, 0, NULL, NULL, 0},
                     PARAMS_WINDOW, 1, 0, PARAM_WIDTH},
    [PARAM_HEIGHT] = {{"height", NOISE_PARAM_INTEGER, "rows: row j is at y + j*step", 1, LIMIT_GRID_SIDE, 0, 0, 1, 0,
                       NULL, NULL, 0},
                      PARAMS_WINDOW, 1, 0, PARAM_HEIGHT},
    [PARAM_BINS] = {{"bins", NOISE_PARAM_INTEGER, "histogram bins over [-1, 1]", 1, 256, 0, 0, 0, 32, NULL,
                     NULL, 0},
                    PARAMS_STATS, 0, 0, PARAM_BINS},
    [PARAM_GRADIENT] = {{"gradient", NOISE_PARAM_INTEGER,
                         "1: value, d/dx, d/dy per sample, shape (H, W, 3); with t (H, W, 4), adding d/dt",
                         0, 1, 0, 0, 0, 0, NULL, NULL, 0},
                        PARAMS_NPY, 0, 1, PARAM_GRADIENT},
    [PARAM_ENCODING] = {{"encoding", NOISE_PARAM_ENUM,
                         "numbers instead of colours: gray16 is 16-bit gray (the .r16 mapping), "
                         "terrarium and mapbox are heights in metres as RGB",
                         0, 0, 0, 0, 1, 0, NULL, NULL, 0},
                        PARAMS_ENCODING, 0, 0, PARAM_ENCODING},
    [PARAM_HEIGHT_SCALE] = {{"height_scale", NOISE_PARAM_NUMBER,
                             "metres per unit of value (terrarium, mapbox): height = value * "
                             "height_scale + height_offset",
                             0, HEIGHTS_MAX_SCALE, 1, 0, 0, HEIGHTS_DEFAULT_SCALE, NULL, NULL, 0},
                            PARAMS_ENCODING, 0, 0, PARAM_HEIGHT_SCALE},
    [PARAM_HEIGHT_OFFSET] = {{"height_offset", NOISE_PARAM_NUMBER,
                              "metres at value 0 (terrarium, mapbox)", -HEIGHTS_MAX_OFFSET,
                              HEIGHTS_MAX_OFFSET, 0, 0, 0, 0, NULL, NULL, 0},
                             PARAMS_ENCODING, 0, 0, PARAM_HEIGHT_OFFSET},
    [PARAM_QUALITY] = {{"quality", NOISE_PARAM_INTEGER,
                        ".webp tiles: lossy quality of shaded tiles (unshaded ones are lossless); "
                        "not for .png",
                        WEBPENC_MIN_QUALITY, WEBPENC_MAX_QUALITY, 0, 0, 0, WEBPENC_DEFAULT_QUALITY, NULL,
                        NULL, 0},
                       PARAMS_RENDER, 0, 0, PARAM_QUALITY},
    /* a name from ramp.h or a JSON list of stops: parsed by ramp_parse
     * (query.c), its choices are the names */
    [PARAM_RAMP] = {{"ramp", NOISE_PARAM_ENUM,
                     "colour ramp instead of the palette: a name, or a JSON list of 2..32 stops "
                     "[[value, colour], ...], value in [-1, 1] non-decreasing, colour \"#rrggbb\" "
                     "or [r, g, b]",
                     0, 0, 0, 0, 1, 0, NULL, NULL, 0},
                    PARAMS_RENDER, 0, 0, PARAM_RAMP},
};

size_t params_count(void)
{
    size_t n_field;
    noise_params(&n_field);
    return n_field + PARAM_COUNT;
}

param_row params_row(size_t i)
{
    size_t n_field;
    const noise_param *field = noise_params(&n_field);
    param_row r;
    if (i < n_field) {
        memset(&r, 0, sizeof r);
        r.p = field[i];
        r.routes = PARAMS_FIELD;
        r.id = -1;
        return r;
    }
    r = own[i - n_field];
    if (r.id == PARAM_PALETTE)
        r.p.choices = render_palette_names();
    if (r.id == PARAM_ENCODING)
        r.p.choices = heights_encoding_names();
    if (r.id == PARAM_RAMP)
        r.p.choices = ramp_names();
    return r;
}

int params_find(const char *name, unsigned int routes, param_row *out)
{
    size_t n = params_count();
    for (size_t i = 0; i < n; i++) {
        param_row r = params_row(i);
        if ((r.routes & routes) != 0 && strcmp(r.p.name, name) == 0) {
            *out = r;
            return 0;
        }
    }
    return -1;
}

void params_names(unsigned int routes, noise_kind kind, char *buf, size_t buf_size)
{
    size_t n = params_count(), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < buf_size; i++) {
        param_row r = params_row(i);
        if ((r.routes & routes) == 0 || !noise_param_applies(&r.p, kind))
            continue;
        int w = snprintf(buf + used, buf_size - used, "%s%s", used ? ", " : "", r.p.name);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* A number as the README writes it: 1e6, 0.5, 16. */
static void fmt(double v, char *buf, size_t size)
{
    if (noise_format_double(v, buf, size) < 0)
        snprintf(buf, size, "?");
}

void params_range_text(const param_row *r, char *buf, size_t buf_size)
{
    const noise_param *p = &r->p;
    char lo[32], hi[32];
    if (r->id == PARAM_RAMP) {
        snprintf(buf, buf_size, "a name (heat, ice, diverging, bands) or a JSON list of 2..%d stops "
                 "[[value, colour], ...]", RENDER_RAMP_MAX_STOPS);
    } else if (r->flag) {
        snprintf(buf, buf_size, "0 or 1");
    } else if (p->type == NOISE_PARAM_ENUM) {
        size_t used = (size_t)snprintf(buf, buf_size, "one of ");
        for (size_t i = 0; p->choices != NULL && p->choices[i] != NULL && used < buf_size; i++) {
            int w = snprintf(buf + used, buf_size - used, "%s%s", i ? ", " : "", p->choices[i]);
            used += w > 0 ? (size_t)w : 0;
        }
    } else if (!(fabs(p->min) < DBL_MAX) && !(fabs(p->max) < DBL_MAX)) {
        snprintf(buf, buf_size, "any finite number");
    } else if (p->type == NOISE_PARAM_INTEGER && !p->min_exclusive && !p->max_exclusive) {
        fmt(p->min, lo, sizeof lo);
        fmt(p->max, hi, sizeof hi);
        snprintf(buf, buf_size, "%s..%s", lo, hi);
    } else {
        fmt(p->min, lo, sizeof lo);
        fmt(p->max, hi, sizeof hi);
        snprintf(buf, buf_size, "%c%s, %s%c", p->min_exclusive ? '(' : '[', lo, hi,
                 p->max_exclusive ? ')' : ']');
    }
}
