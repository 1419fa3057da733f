/* fuzz_spec.c: libFuzzer target for the field-spec parser and its canonical
 * text (noise_spec_parse, noise_spec_canonical). Input: byte 0 picks the
 * kind, bytes 1..4 the seed, bytes 5..20 a point (two doubles), the rest is
 * "name=value&name=value..." (values are handed over as they are, like the
 * percent-decoded query parameters the daemon passes on).
 *
 * Invariants: the parser returns 0 or a NOISE_E* code with a message; a
 * parsed spec is in the documented ranges; its canonical text fits in 512
 * bytes, is refused (NOISE_ENOSPACE, no overflow) by a buffer one byte too
 * short, and parsed again gives the same spec field by field (bit for bit)
 * and the same text (round trip); both give the same value at the point,
 * a value in [-1, 1]. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "noise.h"

#define MAX_PARAMS 40

/* Splits text (modified in place) at '&' and the first '=' of each piece.
 * A piece without '=' gets the value "" (noise_spec_parse takes no NULLs). */
static size_t split(char *text, const char **names, const char **values)
{
    size_t n = 0;
    if (*text == '\0')
        return 0;
    for (char *p = text; p != NULL && n < MAX_PARAMS;) {
        char *amp = strchr(p, '&');
        if (amp != NULL)
            *amp = '\0';
        char *eq = strchr(p, '=');
        if (eq != NULL)
            *eq = '\0';
        names[n] = p;
        values[n] = eq != NULL ? eq + 1 : "";
        n++;
        p = amp != NULL ? amp + 1 : NULL;
    }
    return n;
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int same_spec(const noise_spec *a, const noise_spec *b)
{
    return a->kind == b->kind && a->seed == b->seed && same_double(a->frequency, b->frequency) &&
           a->octaves == b->octaves && same_double(a->lacunarity, b->lacunarity) &&
           same_double(a->gain, b->gain) && a->fractal == b->fractal &&
           same_double(a->warp, b->warp) && a->has_t == b->has_t &&
           (!a->has_t || same_double(a->t, b->t)) && a->lattice == b->lattice;
}

static void check_ranges(const noise_spec *s)
{
    FUZZ_ASSERT(s->frequency > 0 && s->frequency <= 1e6);
    FUZZ_ASSERT(s->octaves >= 1 && s->octaves <= 16);
    FUZZ_ASSERT(s->lacunarity >= 1 && s->lacunarity <= 16);
    FUZZ_ASSERT(s->gain > 0 && s->gain <= 1);
    FUZZ_ASSERT((unsigned)s->fractal < NOISE_FRACTAL_COUNT);
    FUZZ_ASSERT(s->warp >= 0 && s->warp <= 1e6);
    FUZZ_ASSERT(!s->has_t || isfinite(s->t));
    FUZZ_ASSERT((unsigned)s->lattice < NOISE_LATTICE_COUNT);
    FUZZ_ASSERT(s->lattice == NOISE_SQUARE || s->kind == NOISE_VALUE || s->kind == NOISE_PERLIN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 21 || size > 4096)
        return 0;
    noise_kind kind = (noise_kind)(data[0] % NOISE_KIND_COUNT);
    uint32_t seed;
    double p[2];
    memcpy(&seed, data + 1, 4);
    memcpy(p, data + 5, 16);
    if (!isfinite(p[0]) || !isfinite(p[1]))
        p[0] = p[1] = 0.5;
    char *text = fuzz_strndup(data + 21, size - 21);
    const char *names[MAX_PARAMS], *values[MAX_PARAMS];
    size_t n = split(text, names, values);

    noise_spec spec;
    char err[256];
    memset(err, 'x', sizeof err);
    int rc = noise_spec_parse(&spec, kind, seed, n, names, values, err, sizeof err);
    if (rc != 0) {
        FUZZ_ASSERT(rc >= NOISE_ESYNTAX && rc <= NOISE_EUNKNOWN);
        FUZZ_ASSERT(err[0] != '\0' && memchr(err, '\0', sizeof err) != NULL);
        free(text);
        return 0;
    }
    FUZZ_ASSERT(spec.kind == kind && spec.seed == seed);
    check_ranges(&spec);

    char canon[512];
    int len = noise_spec_canonical(&spec, canon, sizeof canon);
    FUZZ_ASSERT(len > 0 && (size_t)len == strlen(canon));
    /* Exactly as long as needed, then one byte short: ASan sees any overflow. */
    char *exact = malloc((size_t)len + 1);
    FUZZ_ASSERT(exact != NULL);
    FUZZ_ASSERT(noise_spec_canonical(&spec, exact, (size_t)len + 1) == len);
    FUZZ_ASSERT(strcmp(exact, canon) == 0);
    FUZZ_ASSERT(noise_spec_canonical(&spec, exact, (size_t)len) == NOISE_ENOSPACE);
    free(exact);

    /* Round trip. */
    char again[512];
    memcpy(again, canon, (size_t)len + 1);
    const char *names2[MAX_PARAMS], *values2[MAX_PARAMS];
    size_t n2 = split(again, names2, values2);
    noise_spec spec2;
    rc = noise_spec_parse(&spec2, kind, seed, n2, names2, values2, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "canonical '%s' refused: %s\n", canon, err);
    FUZZ_ASSERT(rc == 0);
    char canon2[512];
    FUZZ_ASSERT(noise_spec_canonical(&spec2, canon2, sizeof canon2) == len);
    if (strcmp(canon, canon2) != 0)
        fprintf(stderr, "canonical '%s' re-parsed as '%s'\n", canon, canon2);
    FUZZ_ASSERT(strcmp(canon, canon2) == 0);
    FUZZ_ASSERT(same_spec(&spec, &spec2));

    double g1[3], g2[3];
    int ng1 = 0, ng2 = 0;
    double v1 = noise_eval_point(&spec, p, 2, g1, &ng1);
    double v2 = noise_eval_point(&spec2, p, 2, g2, &ng2);
    FUZZ_ASSERT(same_double(v1, v2) && ng1 == ng2);
    if (!(v1 >= -1.0 && v1 <= 1.0))
        fprintf(stderr, "value %.17g at (%.17g, %.17g) for '%s'\n", v1, p[0], p[1], canon);
    FUZZ_ASSERT(v1 >= -1.0 && v1 <= 1.0);
    free(text);
    return 0;
}
