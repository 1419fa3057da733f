/* test_ramp.c: colour ramps by URL (server/tiles/ramp.c) and their tiles:
 * named and JSON ramps parse; every bad ramp (unsorted stops, bad colours,
 * too many or too few stops, values out of range or not finite, not JSON)
 * is refused with a message naming the problem; the canonical text reads
 * back as the same ramp; a ramp tile shows the ramp's colour at each
 * pixel's level, and a ramp equal to a palette's stops gives that
 * palette's bytes. */
#include "tiles/ramp.h"
#include "tiles/render.h"
#include "test.h"
#include "test_png.h"

#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

static void test_named_and_json(void)
{
    render_ramp r;
    char err[256] = "";
    for (const char *const *n = ramp_names(); *n; n++) {
        CHECKF(ramp_parse(*n, &r, err, sizeof err) == 0 && r.n >= 2, "%s: %s", *n, err);
        char canon[512];
        CHECK(ramp_canonical(&r, canon, sizeof canon) > 0 && strcmp(canon, *n) == 0);
    }
    CHECKF(ramp_parse("[[-1,\"#000000\"],[0,\"FF8000\"],[0,[1,2,3]],[1,\"#ffffff\"]]", &r, err, sizeof err) == 0, "%s", err);
    CHECK(r.n == 4 && r.stops[1].at == 0.0 && r.stops[1].rgb[0] == 255 && r.stops[1].rgb[1] == 128 &&
          r.stops[2].rgb[2] == 3 && r.stops[3].rgb[1] == 255);
    char canon[512];
    CHECK(ramp_canonical(&r, canon, sizeof canon) > 0);
    CHECKF(strcmp(canon, "[[-1,\"000000\"],[0,\"ff8000\"],[0,\"010203\"],[1,\"ffffff\"]]") == 0, "%s", canon);
    render_ramp back;
    CHECK(ramp_parse(canon, &back, err, sizeof err) == 0 && back.n == r.n);
    for (int k = 0; k < r.n; k++)
        CHECK(back.stops[k].at == r.stops[k].at && memcmp(back.stops[k].rgb, r.stops[k].rgb, 3) == 0);
    /* 0.1 keeps its shortest form */
    CHECK(ramp_parse("[[-0.1,\"000000\"],[0.30000000000000004,\"ffffff\"]]", &r, err, sizeof err) == 0);
    CHECK(ramp_canonical(&r, canon, sizeof canon) > 0 && strcmp(canon, "[[-0.1,\"000000\"],[0.30000000000000004,\"ffffff\"]]") == 0);
}

/* Each bad ramp and a word its message must contain. */
static void test_bad_ramps(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"[[0.5,\"#000000\"],[-0.5,\"#ffffff\"]]", "not sorted: stop 2 at -0.5 comes after stop 1 at 0.5"},
        {"[[-1,\"#00000\"],[1,\"#ffffff\"]]", "stop 1: the colour"},
        {"[[-1,\"#gg0000\"],[1,\"#ffffff\"]]", "stop 1: the colour"},
        {"[[-1,[0,0,256]],[1,\"#ffffff\"]]", "stop 1: the colour"},
        {"[[-1,[0,0]],[1,\"#ffffff\"]]", "stop 1: the colour"},
        {"[[-1,\"#000000\"],[1,\"red\"]]", "stop 2: the colour"},
        {"[[-1,\"#000000\"],[1e999,\"#ffffff\"]]", "not a finite number"},
        {"[[-1,\"#000000\"],[\"nan\",\"#ffffff\"]]", "stop 2: the value must be a finite number"},
        {"[[-1,\"#000000\"],[1.5,\"#ffffff\"]]", "stop 2: the value 1.5 is outside [-1, 1]"},
        {"[[-1,\"#000000\"]]", "1 stop: it needs at least 2"},
        {"[]", "0 stops"},
        {"[[-1,\"#000000\"],[1,\"#ffffff\"]", "not valid JSON"},
        {"[[-1,\"#000000\",1],[1,\"#ffffff\"]]", "stop 1 must be [value, colour]"},
        {"rainbow", "'rainbow' is not a named ramp"},
        {"", "empty"},
    };
    render_ramp r;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char err[256] = "";
        CHECKF(ramp_parse(bad[k].text, &r, err, sizeof err) == -1 && r.n == 0, "%s was accepted", bad[k].text);
        CHECKF(strstr(err, bad[k].want) != NULL, "%s: message '%s' lacks '%s'", bad[k].text, err, bad[k].want);
    }
    /* too many stops: 33 */
    char text[2048] = "[";
    for (int k = 0; k <= RENDER_RAMP_MAX_STOPS; k++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s[0,\"000000\"]", k ? "," : "");
    strcat(text, "]");
    char err[256] = "";
    CHECK(ramp_parse(text, &r, err, sizeof err) == -1);
    CHECKF(strstr(err, "too many stops: 33, at most 32") != NULL, "%s", err);
    /* 32 are fine */
    strcpy(text, "[");
    for (int k = 0; k < RENDER_RAMP_MAX_STOPS; k++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s[0,\"000000\"]", k ? "," : "");
    strcat(text, "]");
    CHECKF(ramp_parse(text, &r, err, sizeof err) == 0 && r.n == 32, "%s", err);
}

/* A two-stop ramp black -> white: each pixel's grey is the level centre's
 * position on the ramp, (level + 0.5) / 127 - 1 mapped to 0..255, so the
 * tile is a (quantised) picture of the field's values; the ramp picture
 * is an indexed PNG like the palettes'. */
static void test_ramp_tile(void)
{
    noise_spec spec;
    noise_spec_default(&spec, NOISE_PERLIN, 7);
    spec.octaves = 3;
    render_opts o = {.palette = RENDER_GRAY};
    char err[256];
    CHECK(ramp_parse("[[-1,\"000000\"],[1,\"ffffff\"]]", &o.ramp, err, sizeof err) == 0);
    unsigned char *png = NULL;
    size_t n = 0;
    CHECK(render_tile_png(&spec, 1, -1, 0, 256, &o, &png, &n) == 0);
    CHECK(png && n > 33 && png[25] == 3); /* IHDR colour type 3: indexed */
    unsigned char *rgb = png ? test_png_decode(png, n, PNG_FORMAT_RGB, NULL, NULL) : NULL;
    CHECK(rgb != NULL);
    float *values = malloc(256 * 256 * sizeof *values);
    noise_field *f = noise_field_init(malloc(noise_field_size()), &spec);
    double x0, y0;
    render_pixel_center(1, -1, 0, 256, 0, 0, &x0, &y0);
    noise_field_grid(f, x0, y0, 16.0 / 2 / 256, 256, 256, values, NULL);
    int worst = 0;
    for (int p = 0; rgb && p < 256 * 256; p++) {
        double t = (values[p] + 1.0) * 127.0;
        int level = t <= 0 ? 0 : t >= 254 ? 254 : (int)t;
        double want = ((level + 0.5) / 127.0) * 127.5;
        int d = abs((int)lround(want) - rgb[3 * p]);
        if (d > worst)
            worst = d;
        CHECK(rgb[3 * p] == rgb[3 * p + 1] && rgb[3 * p] == rgb[3 * p + 2]);
    }
    CHECKF(worst <= 1, "worst grey difference %d", worst);
    free(f);
    free(values);
    free(rgb);
    free(png);
}

/* The terrain palette's own stops as a ramp: the terrain tile's bytes. */
static void test_palette_as_ramp(void)
{
    noise_spec spec;
    noise_spec_default(&spec, NOISE_SIMPLEX, 3);
    const char *terrain = "[[-1,\"0a1a4c\"],[-0.55,\"163e86\"],[-0.2,\"3070b6\"],[-0.04,\"70acdc\"],[0,\"a0ceec\"],"
                          "[0,\"e4d69e\"],[0.05,\"d6c68c\"],[0.06,\"96be64\"],[0.25,\"589c40\"],[0.3,\"347630\"],"
                          "[0.48,\"245626\"],[0.52,\"766854\"],[0.66,\"968c82\"],[0.72,\"ececf0\"],[1,\"ffffff\"]]";
    render_opts pal = {.palette = RENDER_TERRAIN, .shade = 1, .zero = 1}, ramp = pal;
    char err[256];
    CHECKF(ramp_parse(terrain, &ramp.ramp, err, sizeof err) == 0, "%s", err);
    ramp.palette = RENDER_GRAY;
    unsigned char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    CHECK(render_tile_png(&spec, 2, -3, -1, 256, &pal, &a, &na) == 0);
    CHECK(render_tile_png(&spec, 2, -3, -1, 256, &ramp, &b, &nb) == 0);
    CHECK(a && b && na == nb && memcmp(a, b, na) == 0);
    free(a);
    free(b);
}

int main(void)
{
    RUN(test_named_and_json);
    RUN(test_bad_ramps);
    RUN(test_ramp_tile);
    RUN(test_palette_as_ramp);
    return t_done();
}
