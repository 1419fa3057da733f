/* test_noise_spec.c: unit tests of the field parameters (noise/noise_spec.c):
 * the validating parser against a table of edge cases, its error messages,
 * the canonical text, shortest round-trip formatting, kind names and the
 * metadata table; and that noise/ includes nothing but libc, libm and its
 * own headers.
 */
#include "noise.h"
#include "test.h"

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    noise_kind kind;
    const char *query;  /* "name=value&name=value" (no decoding) */
    int rc;             /* expected return code */
    const char *expect; /* canonical text on success, a substring of the message on failure */
} parse_case;

static const parse_case cases[] = {
    /* defaults, spelled out or omitted */
    { NOISE_PERLIN, "", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square" },
    { NOISE_PERLIN, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square", 0,
      "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square" },
    { NOISE_SIMPLEX, "", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0" },
    /* the same number in other spellings */
    { NOISE_VALUE, "lacunarity=2.0", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square" },
    { NOISE_VALUE, "lacunarity=2e0", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square" },
    { NOISE_VALUE, "lacunarity=+02.000", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square" },
    { NOISE_VALUE, "gain=.5&octaves=4.0", 0, "frequency=1&octaves=4&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square" },
    { NOISE_VALUE, "octaves=16&frequency=1e6&warp=1E6", 0,
      "frequency=1e6&octaves=16&lacunarity=2&gain=0.5&fractal=fbm&warp=1e6&lattice=square" },
    { NOISE_VALUE, "frequency=0.000001", 0, "frequency=1e-6&octaves=1" },
    { NOISE_VALUE, "frequency=0.1", 0, "frequency=0.1&" },
    { NOISE_VALUE, "frequency=5e-324", 0, "frequency=5e-324&" },
    { NOISE_VALUE, "gain=1&lacunarity=1&lacunarity_x=1", NOISE_EUNKNOWN, "unknown parameter 'lacunarity_x'" },
    { NOISE_VALUE, "gain=1&lacunarity=16&fractal=ridged&lattice=triangle", 0,
      "frequency=1&octaves=1&lacunarity=16&gain=1&fractal=ridged&warp=0&lattice=triangle" },
    { NOISE_PERLIN, "fractal=turbulence", 0, "fractal=turbulence&" },
    /* t: present means 3D, at the end of the canonical text; -0 is 0 */
    { NOISE_IMPROVED, "t=7", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&t=7" },
    { NOISE_IMPROVED, "t=-0", 0, "&warp=0&t=0" },
    { NOISE_IMPROVED, "t=-1.5e300", 0, "&t=-1.5e300" },
    { NOISE_IMPROVED, "t=0.1", 0, "&t=0.1" },
    /* ranges */
    { NOISE_PERLIN, "octaves=20", NOISE_ERANGE, "octaves must be an integer in 1..16, got '20'" },
    { NOISE_PERLIN, "octaves=0", NOISE_ERANGE, "octaves must be an integer in 1..16, got '0'" },
    { NOISE_PERLIN, "octaves=2.5", NOISE_ESYNTAX, "octaves must be an integer in 1..16, got '2.5'" },
    { NOISE_PERLIN, "frequency=0", NOISE_ERANGE, "frequency must be a number in (0, 1e6], got '0'" },
    { NOISE_PERLIN, "frequency=-1", NOISE_ERANGE, "frequency must be a number in (0, 1e6], got '-1'" },
    { NOISE_PERLIN, "frequency=1000000.0001", NOISE_ERANGE, "in (0, 1e6], got '1000000.0001'" },
    { NOISE_PERLIN, "lacunarity=0.99", NOISE_ERANGE, "lacunarity must be a number in [1, 16], got '0.99'" },
    { NOISE_PERLIN, "gain=0", NOISE_ERANGE, "gain must be a number in (0, 1], got '0'" },
    { NOISE_PERLIN, "gain=1.0000001", NOISE_ERANGE, "gain must be a number in (0, 1]" },
    { NOISE_PERLIN, "warp=-0.1", NOISE_ERANGE, "warp must be a number in [0, 1e6], got '-0.1'" },
    { NOISE_PERLIN, "frequency=1e999", NOISE_ERANGE, "frequency must be a number in (0, 1e6], got '1e999'" },
    { NOISE_PERLIN, "t=1e309", NOISE_ERANGE, "t must be a finite number, got '1e309'" },
    /* NaN and infinities */
    { NOISE_PERLIN, "frequency=nan", NOISE_ERANGE, "frequency must be a number in (0, 1e6], got 'nan'" },
    { NOISE_PERLIN, "t=NaN", NOISE_ERANGE, "t must be a finite number, got 'NaN'" },
    { NOISE_PERLIN, "t=-inf", NOISE_ERANGE, "got '-inf'" },
    { NOISE_PERLIN, "warp=Infinity", NOISE_ERANGE, "got 'Infinity'" },
    /* syntax */
    { NOISE_PERLIN, "octaves=", NOISE_ESYNTAX, "octaves must be an integer in 1..16, got an empty value" },
    { NOISE_PERLIN, "gain=", NOISE_ESYNTAX, "gain must be a number in (0, 1], got an empty value" },
    { NOISE_PERLIN, "octaves=2x", NOISE_ESYNTAX, "got '2x'" },
    { NOISE_PERLIN, "frequency=0x10", NOISE_ESYNTAX, "got '0x10'" },
    { NOISE_PERLIN, "frequency=0x1p3", NOISE_ESYNTAX, "got '0x1p3'" },
    { NOISE_PERLIN, "frequency= 1", NOISE_ESYNTAX, "got ' 1'" },
    { NOISE_PERLIN, "frequency=1 ", NOISE_ESYNTAX, "got '1 '" },
    { NOISE_PERLIN, "frequency=1e", NOISE_ESYNTAX, "got '1e'" },
    { NOISE_PERLIN, "frequency=.", NOISE_ESYNTAX, "got '.'" },
    { NOISE_PERLIN, "frequency=--1", NOISE_ESYNTAX, "got '--1'" },
    { NOISE_PERLIN, "frequency=1,5", NOISE_ESYNTAX, "got '1,5'" },
    { NOISE_PERLIN, "fractal=FBM", NOISE_ESYNTAX, "fractal must be one of fbm, turbulence, ridged, got 'FBM'" },
    { NOISE_PERLIN, "fractal=", NOISE_ESYNTAX, "fractal must be one of fbm, turbulence, ridged, got ''" },
    { NOISE_PERLIN, "lattice=hex", NOISE_ESYNTAX, "lattice must be one of square, triangle, got 'hex'" },
    /* unknown, duplicates, lattice on other kinds */
    { NOISE_PERLIN, "seed=3", NOISE_EUNKNOWN, "unknown parameter 'seed'" },
    { NOISE_PERLIN, "Frequency=3", NOISE_EUNKNOWN, "unknown parameter 'Frequency'" },
    { NOISE_PERLIN, "=3", NOISE_EUNKNOWN, "unknown parameter ''" },
    { NOISE_PERLIN, "octaves=2&octaves=2", NOISE_EDUP, "parameter 'octaves' given twice" },
    { NOISE_PERLIN, "t=1&frequency=2&t=1", NOISE_EDUP, "parameter 't' given twice" },
    { NOISE_SIMPLEX, "lattice=square", NOISE_EUNKNOWN, "'lattice' applies only to value and perlin, not to simplex" },
    { NOISE_IMPROVED, "lattice=triangle", NOISE_EUNKNOWN, "not to improved" },
    /* cellular: its own parameters always in its canonical text (a kind
     * added after NOISE_VERSION 1), lattice refused; its parameters refused
     * for the other kinds */
    { NOISE_CELLULAR, "", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&distance=euclidean&return=f1&jitter=1" },
    { NOISE_CELLULAR, "jitter=0.25&return=f2-f1&distance=chebyshev&t=-0",
      0, "&warp=0&distance=chebyshev&return=f2-f1&jitter=0.25&t=0" },
    { NOISE_CELLULAR, "jitter=0&return=cell&distance=manhattan", 0, "&distance=manhattan&return=cell&jitter=0" },
    { NOISE_CELLULAR, "jitter=-0", 0, "&jitter=0" },
    { NOISE_CELLULAR, "return=f2", 0, "&return=f2&" },
    { NOISE_CELLULAR, "distance=foo", NOISE_ESYNTAX, "distance must be one of euclidean, manhattan, chebyshev, got 'foo'" },
    { NOISE_CELLULAR, "return=f3", NOISE_ESYNTAX, "return must be one of f1, f2, f2-f1, cell, got 'f3'" },
    { NOISE_CELLULAR, "jitter=2", NOISE_ERANGE, "jitter must be a number in [0, 1], got '2'" },
    { NOISE_CELLULAR, "jitter=-0.1", NOISE_ERANGE, "jitter must be a number in [0, 1], got '-0.1'" },
    { NOISE_CELLULAR, "jitter=nan", NOISE_ERANGE, "got 'nan'" },
    { NOISE_CELLULAR, "lattice=triangle", NOISE_EUNKNOWN, "'lattice' applies only to value and perlin, not to cellular; got 'triangle'" },
    { NOISE_CELLULAR, "return=f1&return=f1", NOISE_EDUP, "parameter 'return' given twice" },
    { NOISE_PERLIN, "distance=manhattan", NOISE_EUNKNOWN, "'distance' applies only to cellular, not to perlin" },
    { NOISE_VALUE, "jitter=0.5", NOISE_EUNKNOWN, "'jitter' applies only to cellular, not to value" },
    { NOISE_IMPROVED, "return=f1", NOISE_EUNKNOWN, "'return' applies only to cellular, not to improved" },
    /* period: absent leaves the canonical text as it was; present, it follows lattice, before t */
    { NOISE_PERLIN, "period=4", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square&period=4" },
    { NOISE_VALUE, "t=2&period=4.0&octaves=3", 0, "&octaves=3&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square&period=4&t=2" },
    { NOISE_IMPROVED, "period=256", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&period=256" },
    { NOISE_PERLIN, "period=10&frequency=0.1", 0, "frequency=0.1&" },          /* 1 cell, up to rounding */
    { NOISE_PERLIN, "period=0.7&frequency=10", 0, "&period=0.7" },             /* 7 cells */
    { NOISE_PERLIN, "period=4&lacunarity=1.5&octaves=3", 0, "&period=4" },     /* 4, 6, 9 cells */
    { NOISE_PERLIN, "period=4&lacunarity=2.5&octaves=1", 0, "&period=4" },     /* one octave: lacunarity unused */
    { NOISE_PERLIN, "period=1e9", 0, "&period=1e9" },                          /* 1e9 cells <= 2^30 */
    { NOISE_PERLIN, "period=1e-6&frequency=1e6", 0, "&period=1e-6" },
    { NOISE_PERLIN, "period=0", NOISE_ERANGE, "period must be a number in (0, 1e9], got '0'" },
    { NOISE_PERLIN, "period=-4", NOISE_ERANGE, "period must be a number in (0, 1e9], got '-4'" },
    { NOISE_PERLIN, "period=inf", NOISE_ERANGE, "period must be a number in (0, 1e9], got 'inf'" },
    { NOISE_PERLIN, "period=nan", NOISE_ERANGE, "period must be a number in (0, 1e9], got 'nan'" },
    { NOISE_PERLIN, "period=", NOISE_ESYNTAX, "period must be a number in (0, 1e9], got an empty value" },
    { NOISE_PERLIN, "period=4&period=4", NOISE_EDUP, "parameter 'period' given twice" },
    { NOISE_SIMPLEX, "period=4", NOISE_EUNKNOWN,
      "parameter 'period' applies only to value, perlin, improved, cellular and classic, not to simplex: simplex noise's "
      "triangular "
      "lattice has no square period ((P, 0) and (0, P) are never both lattice vectors, as sqrt 3 is irrational)" },
    { NOISE_VALUE, "period=4&lattice=triangle", NOISE_ERANGE, "period needs lattice=square: the triangle lattice has no square period" },
    { NOISE_PERLIN, "lattice=triangle&period=4", NOISE_ERANGE, "period needs lattice=square" },
    { NOISE_PERLIN, "period=2.5", NOISE_ERANGE, "period x frequency must be a whole number of lattice cells (1 or more), got 2.5" },
    { NOISE_PERLIN, "frequency=0.3&period=3", NOISE_ERANGE, "period x frequency must be a whole number of lattice cells (1 or more), got 0.8999999999999999" },
    { NOISE_PERLIN, "period=0.25", NOISE_ERANGE, "(1 or more), got 0.25" },
    { NOISE_PERLIN, "octaves=3&lacunarity=2.5&period=3", NOISE_ERANGE,
      "period x frequency x lacunarity^1 (octave 1's period in lattice cells) must be a whole number, got 7.5: "
      "lacunarity must be an integer when period is set" },
    { NOISE_PERLIN, "octaves=3&period=4&lacunarity=1.5&frequency=0.5", NOISE_ERANGE, "lacunarity^2 (octave 2's period in lattice cells) must be a whole number, got 4.5" },
    { NOISE_PERLIN, "period=1e9&frequency=2", NOISE_ERANGE,
      "period x frequency (octave 0's period in lattice cells) must be at most 1073741824 (2^30), got 2e9: lower period, frequency, lacunarity or octaves" },
    { NOISE_VALUE, "period=1e6&octaves=16", NOISE_ERANGE, "period x frequency x lacunarity^11 (octave 11's period in lattice cells) must be at most 1073741824" },
    { NOISE_CELLULAR, "period=4&distance=manhattan", 0, "&distance=manhattan&return=f1&jitter=1&period=4" },
    { NOISE_CELLULAR, "t=1&period=4", 0, "&jitter=1&period=4&t=1" },
    { NOISE_CLASSIC, "period=8&fade=cubic", 0, "&warp=0&period=8&fade=cubic" },
    { NOISE_PERLIN, "gradients=angle&period=8", 0, "&lattice=square&period=8&gradients=angle" },
    /* classic: its fade always shown; no t (2D); fade on no other kind */
    { NOISE_CLASSIC, "", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&fade=linear" },
    { NOISE_CLASSIC, "fade=quintic&octaves=3", 0,
      "frequency=1&octaves=3&lacunarity=2&gain=0.5&fractal=fbm&warp=0&fade=quintic" },
    { NOISE_CLASSIC, "fade=cubic&fade=cubic", NOISE_EDUP, "parameter 'fade' given twice" },
    { NOISE_CLASSIC, "fade=smooth", NOISE_ESYNTAX, "fade must be one of linear, cubic, quintic, got 'smooth'" },
    { NOISE_CLASSIC, "t=1", NOISE_EUNKNOWN,
      "parameter 't' applies only to value, perlin, simplex, improved and cellular, not to classic (a 2D field: it "
      "has no third coordinate); got '1'" },
    { NOISE_CLASSIC, "lattice=square", NOISE_EUNKNOWN, "'lattice' applies only to value and perlin, not to classic" },
    { NOISE_PERLIN, "fade=cubic", NOISE_EUNKNOWN, "parameter 'fade' applies only to classic, not to perlin" },
    { NOISE_IMPROVED, "fade=linear", NOISE_EUNKNOWN, "'fade' applies only to classic, not to improved" },
    /* the GLSL variants: shown only when not the default; 2D; only where they apply */
    { NOISE_PERLIN, "gradients=table", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square" },
    { NOISE_PERLIN, "gradients=angle", 0,
      "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&lattice=square&gradients=angle" },
    { NOISE_SIMPLEX, "falloff=classic&gradients=table", 0, "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0" },
    { NOISE_SIMPLEX, "falloff=quartic&gradients=angle", 0,
      "frequency=1&octaves=1&lacunarity=2&gain=0.5&fractal=fbm&warp=0&gradients=angle&falloff=quartic" },
    { NOISE_SIMPLEX, "gradients=angle&t=1", NOISE_EUNKNOWN,
      "parameter 't' does not apply to simplex with gradients=angle: the GLSL article's function is 2D" },
    { NOISE_SIMPLEX, "t=2&falloff=quartic", NOISE_EUNKNOWN, "does not apply to simplex with falloff=quartic" },
    { NOISE_PERLIN, "t=0&gradients=angle", NOISE_EUNKNOWN, "does not apply to perlin with gradients=angle" },
    { NOISE_PERLIN, "falloff=quartic", NOISE_EUNKNOWN, "parameter 'falloff' applies only to simplex, not to perlin" },
    { NOISE_VALUE, "gradients=angle", NOISE_EUNKNOWN, "parameter 'gradients' applies only to perlin and simplex" },
    { NOISE_CLASSIC, "gradients=angle", NOISE_EUNKNOWN, "not to classic" },
    { NOISE_SIMPLEX, "gradients=hashed", NOISE_ESYNTAX, "gradients must be one of table, angle, got 'hashed'" },
    { NOISE_SIMPLEX, "falloff=cubic", NOISE_ESYNTAX, "falloff must be one of classic, quartic, got 'cubic'" },
};

/* Splits "a=1&b=2" into names and values (in place, at most 16 pairs). */
static size_t split_query(char *q, const char **names, const char **values)
{
    size_t n = 0;
    if (*q == '\0')
        return 0;
    for (char *part = q; part && n < 16;) {
        char *amp = strchr(part, '&');
        if (amp)
            *amp = '\0';
        char *eq = strchr(part, '=');
        names[n] = part;
        values[n] = eq ? eq + 1 : "";
        if (eq)
            *eq = '\0';
        n++;
        part = amp ? amp + 1 : NULL;
    }
    return n;
}

static void test_parse_table(void)
{
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char q[256], err[256], canon[256];
        const char *names[16], *values[16];
        snprintf(q, sizeof q, "%s", cases[c].query);
        size_t n = split_query(q, names, values);
        noise_spec s;
        memset(err, 'x', sizeof err);
        int rc = noise_spec_parse(&s, cases[c].kind, 42, n, names, values, err, sizeof err);
        CHECKF(rc == cases[c].rc, "'%s': rc %d, want %d (%s)", cases[c].query, rc, cases[c].rc, rc ? err : "");
        if (rc == 0 && cases[c].rc == 0) {
            CHECK(s.kind == cases[c].kind && s.seed == 42);
            int len = noise_spec_canonical(&s, canon, sizeof canon);
            CHECKF(len == (int)strlen(canon) && strstr(canon, cases[c].expect), "'%s': canonical '%s', want '%s'",
                   cases[c].query, canon, cases[c].expect);
        } else if (rc < 0) {
            CHECKF(strstr(err, cases[c].expect) != NULL, "'%s': message '%s', want '%s'", cases[c].query, err,
                   cases[c].expect);
        }
    }
}

/* Canonical text parses back to the same spec, and specs that mean the same
 * field give the same text. */
static void test_canonical_round_trip(void)
{
    const char *queries[] = { "frequency=0.3&octaves=5&gain=0.7&fractal=ridged&warp=2.5&t=-3.25&lattice=triangle",
                              "lacunarity=1.9999999999999998&frequency=123456.789", "t=1e-300", "" };
    const char *cell_queries[] = { "return=f2-f1&jitter=0.1&distance=manhattan&octaves=3&t=2",
                                   "jitter=0.30000000000000004&return=cell", "distance=chebyshev&warp=1.5", "" };
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
            char q[256], q2[256], canon[256], canon2[256], err[256];
            const char *names[16], *values[16];
            snprintf(q, sizeof q, "%s", k == 2 ? cell_queries[i] : queries[i]);
            size_t n = split_query(q, names, values);
            noise_spec a, b;
            noise_kind kind = k == 2 ? NOISE_CELLULAR : k ? NOISE_VALUE : NOISE_PERLIN;
            CHECK(noise_spec_parse(&a, kind, 7, n, names, values, err, sizeof err) == 0);
            CHECK(noise_spec_canonical(&a, canon, sizeof canon) > 0);
            snprintf(q2, sizeof q2, "%s", canon);
            n = split_query(q2, names, values);
            CHECKF(noise_spec_parse(&b, kind, 7, n, names, values, err, sizeof err) == 0, "%s", err);
            CHECK(noise_spec_canonical(&b, canon2, sizeof canon2) > 0);
            CHECKF(strcmp(canon, canon2) == 0, "'%s' vs '%s'", canon, canon2);
            CHECK(a.frequency == b.frequency && a.octaves == b.octaves && a.lacunarity == b.lacunarity &&
                  a.gain == b.gain && a.fractal == b.fractal && a.warp == b.warp && a.has_t == b.has_t &&
                  a.t == b.t && a.lattice == b.lattice && a.distance == b.distance &&
                  a.cell_return == b.cell_return && a.jitter == b.jitter);
        }
    /* a parsed default equals noise_spec_default's canonical text */
    noise_spec d, p;
    char c1[256], c2[256];
    noise_spec_default(&d, NOISE_PERLIN, 1);
    CHECK(noise_spec_parse(&p, NOISE_PERLIN, 1, 0, NULL, NULL, NULL, 0) == 0);
    noise_spec_canonical(&d, c1, sizeof c1);
    noise_spec_canonical(&p, c2, sizeof c2);
    CHECK(strcmp(c1, c2) == 0);
    /* too small a buffer */
    CHECK(noise_spec_canonical(&d, c1, 10) == NOISE_ENOSPACE);
    CHECK(noise_spec_canonical(&d, c1, strlen(c2)) == NOISE_ENOSPACE);
    CHECK(noise_spec_canonical(&d, c1, strlen(c2) + 1) == (int)strlen(c2));
}

static void test_format_double(void)
{
    static const struct {
        double v;
        const char *text;
    } known[] = { { 2, "2" }, { 0.5, "0.5" }, { 1e-7, "1e-7" }, { 1e6, "1e6" }, { 123456, "123456" },
                  { 0.1, "0.1" }, { -2.25, "-2.25" }, { 1e21, "1e21" }, { 5e-324, "5e-324" },
                  { 1.7976931348623157e308, "1.7976931348623157e308" }, { 0.30000000000000004, "0.30000000000000004" },
                  { 180, "180" }, { -180, "-180" }, { 1200, "1200" }, { 12000, "12000" }, { 120000, "1.2e5" },
                  { 85.0511287798066, "85.0511287798066" }, { 1e15, "1e15" }, { 1.5e16, "1.5e16" } };
    char buf[32];
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        int n = noise_format_double(known[i].v, buf, sizeof buf);
        CHECKF(n == (int)strlen(known[i].text) && strcmp(buf, known[i].text) == 0, "%.17g -> '%s', want '%s'",
               known[i].v, buf, known[i].text);
    }
    /* round trip of many doubles, every text under 32 bytes */
    uint64_t x = 1;
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double v;
        uint64_t bits = x;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        int n = noise_format_double(v, buf, sizeof buf);
        if (n <= 0 || n >= 32 || strtod(buf, NULL) != v || strchr(buf, '+'))
            bad++;
    }
    CHECKF(bad == 0, "%d doubles do not round-trip", bad);
    CHECK(noise_format_double(0.5, buf, 3) == NOISE_ENOSPACE);
    CHECK(noise_format_double(0.5, buf, 4) == 3);
}

static void test_kinds_and_params(void)
{
    noise_kind k;
    CHECK(noise_kind_from_name("simplex", &k) == 0 && k == NOISE_SIMPLEX);
    CHECK(noise_kind_from_name("improved", &k) == 0 && k == NOISE_IMPROVED);
    CHECK(noise_kind_from_name("Perlin", &k) == NOISE_EKIND);
    CHECK(noise_kind_from_name("", &k) == NOISE_EKIND);
    for (int i = 0; i < NOISE_KIND_COUNT; i++)
        CHECK(noise_kind_from_name(noise_kind_name((noise_kind)i), &k) == 0 && k == (noise_kind)i);
    CHECK(noise_kind_name(NOISE_KIND_COUNT) == NULL);
    size_t n = 0;
    const noise_param *p = noise_params(&n);
    CHECK(n == 15);
    const char *order[] = { "frequency", "octaves", "lacunarity", "gain", "fractal", "warp", "lattice", "distance",
                            "return", "jitter", "period", "fade", "gradients", "falloff", "t" };
    for (size_t i = 0; i < n && i < 15; i++)
        CHECKF(strcmp(p[i].name, order[i]) == 0, "param %zu is %s", i, p[i].name);
    /* the defaults in the table are the ones noise_spec_default uses */
    noise_spec d;
    noise_spec_default(&d, NOISE_VALUE, 0);
    CHECK(p[0].default_number == d.frequency && p[1].default_number == d.octaves &&
          p[2].default_number == d.lacunarity && p[3].default_number == d.gain && p[5].default_number == d.warp);
    CHECK(p[0].min == 0 && p[0].min_exclusive && p[0].max == 1e6 && !p[0].max_exclusive);
    CHECK(p[1].type == NOISE_PARAM_INTEGER && p[1].min == 1 && p[1].max == 16);
    CHECK(p[4].type == NOISE_PARAM_ENUM && strcmp(p[4].default_choice, "fbm") == 0 &&
          strcmp(p[4].choices[2], "ridged") == 0 && p[4].choices[3] == NULL);
    CHECK(p[10].optional == 1 && p[10].min == 0 && p[10].min_exclusive && p[10].max == 1e9);
    CHECK(p[14].optional == 1 && strcmp(p[14].name, "t") == 0);
    /* cellular's rows: defaults as noise_spec_default, cellular only */
    noise_spec_default(&d, NOISE_CELLULAR, 0);
    CHECK(strcmp(p[7].default_choice, "euclidean") == 0 && d.distance == NOISE_EUCLIDEAN);
    CHECK(strcmp(p[8].default_choice, "f1") == 0 && d.cell_return == NOISE_F1 && strcmp(p[8].choices[2], "f2-f1") == 0);
    CHECK(p[9].default_number == d.jitter && d.jitter == 1 && p[9].min == 0 && p[9].max == 1 && !p[9].min_exclusive);
    for (int i = 7; i <= 9; i++)
        for (int kd = 0; kd < NOISE_KIND_COUNT; kd++)
            CHECK(noise_param_applies(&p[i], (noise_kind)kd) == (kd == NOISE_CELLULAR));
    CHECK(!noise_param_applies(&p[6], NOISE_CELLULAR));
    CHECK(noise_kind_from_name("cellular", &k) == 0 && k == NOISE_CELLULAR && NOISE_CELLULAR == 4);
    CHECK(noise_kind_from_name("classic", &k) == 0 && k == NOISE_CLASSIC && NOISE_CLASSIC == 5);
    CHECK(strcmp(p[11].default_choice, "linear") == 0 && p[11].kinds == NOISE_KIND_BIT(NOISE_CLASSIC));
    /* classic is the one planar kind; perlin and simplex are planar with
     * the GLSL variants, the other kinds ignore those fields */
    for (int i = 0; i < NOISE_KIND_COUNT; i++) {
        noise_spec_default(&d, (noise_kind)i, 0);
        CHECK(noise_spec_planar(&d) == (i == NOISE_CLASSIC));
        d.gradients = NOISE_GRADIENTS_ANGLE;
        CHECK(noise_spec_planar(&d) == (i == NOISE_CLASSIC || i == NOISE_PERLIN || i == NOISE_SIMPLEX));
        d.gradients = NOISE_GRADIENTS_TABLE;
        d.falloff = NOISE_FALLOFF_QUARTIC;
        CHECK(noise_spec_planar(&d) == (i == NOISE_CLASSIC || i == NOISE_SIMPLEX));
    }
    for (int e = -6; e <= 0; e++)
        CHECK(noise_strerror(e) != NULL && noise_strerror(e)[0] != '\0');
    /* errors with no message buffer, and a truncated one */
    const char *nm[] = { "octaves" }, *vl[] = { "99" };
    noise_spec s;
    char small[8];
    CHECK(noise_spec_parse(&s, NOISE_VALUE, 0, 1, nm, vl, NULL, 0) == NOISE_ERANGE);
    CHECK(noise_spec_parse(&s, NOISE_VALUE, 0, 1, nm, vl, small, sizeof small) == NOISE_ERANGE);
    CHECK(strlen(small) == sizeof small - 1);
    CHECK(noise_spec_parse(&s, NOISE_KIND_COUNT, 0, 0, NULL, NULL, NULL, 0) == NOISE_EKIND);
}

/* Acceptance 8 (source side): noise/ includes only its own headers and the
 * C library's. (The link side: `make` builds build/noise_standalone from
 * libnoise.a with -lm only.) */
static void test_noise_includes_only_libc(void)
{
    static const char *const allowed[] = { "<math.h>",   "<stdint.h>", "<stddef.h>", "<string.h>", "<stdio.h>",
                                           "<stdlib.h>", "<ctype.h>",  "<errno.h>",  "<float.h>",  "<strings.h>",
                                           "<limits.h>", "<stdatomic.h>", "<stdarg.h>",
                                           /* the compiler's intrinsics, for the vector paths */
                                           "<immintrin.h>" };
    DIR *d = opendir("noise");
    CHECKF(d != NULL, "run from the repository root");
    if (!d)
        return;
    int files = 0, bad = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 3 || (strcmp(e->d_name + len - 2, ".c") && strcmp(e->d_name + len - 2, ".h")))
            continue;
        char path[512], line[512];
        snprintf(path, sizeof path, "noise/%s", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        files++;
        while (fgets(line, sizeof line, f)) {
            char inc[256];
            if (sscanf(line, " # include %255s", inc) != 1)
                continue;
            int ok = inc[0] == '"' && (strncmp(inc, "\"noise", 6) == 0 || strncmp(inc, "\"graph_", 7) == 0);
            for (size_t i = 0; !ok && i < sizeof allowed / sizeof allowed[0]; i++)
                ok = strcmp(inc, allowed[i]) == 0;
            if (!ok) {
                bad++;
                fprintf(stderr, "  %s includes %s\n", path, inc);
            }
        }
        fclose(f);
    }
    closedir(d);
    CHECK(files >= 4);
    CHECK(bad == 0);
}

int main(void)
{
    RUN(test_parse_table);
    RUN(test_canonical_round_trip);
    RUN(test_format_double);
    RUN(test_kinds_and_params);
    RUN(test_noise_includes_only_libc);
    return t_done();
}
