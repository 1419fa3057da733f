/* jsonout.h: prints a jansson document as compact JSON with every real in
 * its shortest round-trip form ("0.1", not jansson's "0.10000000000000001"),
 * so the numbers users read are the numbers they sent, and still parse back
 * to the same doubles. */
#ifndef JSONOUT_H
#define JSONOUT_H

#include <jansson.h>
#include <stddef.h>

/* Prints doc. On success returns 0 and sets *out_text to a NUL-terminated
 * buffer from failalloc_malloc (the caller free()s it) and *out_len to its
 * length. Returns -1 out of memory, or for a real that is NaN or infinite
 * (JSON has no such numbers); *out_text is then NULL. Objects keep jansson's
 * insertion order. */
int jsonout_dump(const json_t *doc, char **out_text, size_t *out_len);

/* Prints the finite double v into out (at least 32 bytes), NUL-terminated,
 * exactly as noise_format_double does ("0.1", "1e-7", "1e6", "180",
 * "-0"), and returns the length. Its shortest round-trip digits come from
 * integer arithmetic, not snprintf and strtod (jsonout.c). */
int jsonout_number(double v, char *out);

/* jsonout_number's arithmetic alone: the same text and length, or -1 for
 * the few doubles it leaves to noise_format_double (a rounding too close
 * to a tie or to the end of the double's interval to decide; NaN, inf).
 * For tests. */
int jsonout_number_fast(double v, char *out);

/* The double nearest the JSON number s[0..len) (RFC 8259's grammar, already
 * checked by the caller), as strtod rounds it: returns 0 and sets *out; or
 * -1, *out untouched, for what it leaves to strtod (more than 19 significant
 * digits, a result subnormal or out of range, or a product too close to a
 * halfway point to decide). */
int jsonout_parse_number(const char *s, size_t len, double *out);

#endif
