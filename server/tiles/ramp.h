/* ramp.h: colour ramps by URL (`ramp=`): a named ramp, or a JSON list of
 * stops [[value, colour], ...], validated, and written back in one
 * canonical form for the cache key and the TileJSON template.
 */
#ifndef RAMP_H
#define RAMP_H

#include <stddef.h>

#include "tiles/render.h"

/* The named ramps ("heat", "ice", "diverging", "bands"), NULL-terminated,
 * for /api/kinds, OpenAPI and messages. */
const char *const *ramp_names(void);

/* Parses a ramp: a name of ramp_names(), or a JSON array of 2 to
 * RENDER_RAMP_MAX_STOPS stops, each [value, colour]: value a finite
 * number in [-1, 1], not below the previous stop's (equal values make a
 * sharp edge); colour "#rrggbb", "rrggbb" (hexadecimal, either case) or
 * [r, g, b] with integers 0..255. Returns 0 and fills *out, or -1 with a
 * message in err naming the problem (the stop's number, from 1, and what is
 * wrong with it). */
int ramp_parse(const char *text, render_ramp *out, char *err, size_t err_size);

/* The canonical text of a ramp: its name if it is a named ramp's stops,
 * else compact JSON [[v,"rrggbb"],...] with the shortest round-trip
 * numbers. Returns the length, or -1 if it does not fit. Parsing the
 * canonical text gives the same ramp. */
/* Room for any ramp's canonical text (32 stops of [-0.30000000000000004,"rrggbb"]). */
#define RAMP_CANONICAL_MAX 1024
int ramp_canonical(const render_ramp *r, char *buf, size_t size);

#endif
