/* test_heights.c: unit tests of the numeric encodings (server/heights/heights.c):
 * the 16-bit, Terrarium and Mapbox mappings at their ends, rounding points
 * and clamps, decoded by the published formulas; the NumPy header; rows of
 * every format byte by byte. */
#include "heights/heights.h"
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static double terrarium_decode(const unsigned char *p) { return p[0] * 256.0 + p[1] + p[2] / 256.0 - 32768.0; }
static double mapbox_decode(const unsigned char *p) { return -10000.0 + (p[0] * 65536.0 + p[1] * 256.0 + p[2]) * 0.1; }

static void test_u16_mapping(void)
{
    CHECK(heights_u16(-1.0) == 0);
    CHECK(heights_u16(0.0) == 32768);
    CHECK(heights_u16(1.0) == 65535);
    CHECK(heights_u16(-2.0) == 0 && heights_u16(2.0) == 65535 && heights_u16(NAN) == 0);
    /* the rounding point between 0 and 1: (v+1)*32767.5 = 0.5 */
    double half = 0.5 / 32767.5 - 1.0;
    CHECK(heights_u16(nextafter(half, -2)) == 0);
    CHECK(heights_u16(half + 1e-12) == 1);
    /* within half a step of the value everywhere, monotone */
    uint16_t last = 0;
    for (int k = 0; k <= 200000; k++) {
        double v = -1.0 + k / 100000.0;
        uint16_t u = heights_u16(v);
        double back = u / 32767.5 - 1.0;
        CHECKF(fabs(back - v) <= 0.5 / 32767.5 + 1e-15, "v %.17g u %u", v, u);
        CHECK(u >= last);
        last = u;
    }
}

static void test_terrarium(void)
{
    unsigned char p[3];
    heights_terrarium(0.0, p);
    CHECK(p[0] == 128 && p[1] == 0 && p[2] == 0);
    for (double h = -32768.0; h < 32767.99; h += 12.345678) {
        heights_terrarium(h, p);
        CHECKF(fabs(terrarium_decode(p) - h) <= 1.0 / 512 + 1e-9, "h %.9g -> %.9g", h, terrarium_decode(p));
    }
    heights_terrarium(-1e9, p);
    CHECK(p[0] == 0 && p[1] == 0 && p[2] == 0);
    heights_terrarium(1e9, p);
    CHECK(p[0] == 255 && p[1] == 255 && p[2] == 255 && terrarium_decode(p) == 32767.99609375);
    heights_terrarium(-0.5 / 256.0 + 1e-9, p); /* rounds to 0 */
    CHECK(terrarium_decode(p) == 0.0);
}

static void test_mapbox(void)
{
    unsigned char p[3];
    heights_mapbox(-10000.0, p);
    CHECK(p[0] == 0 && p[1] == 0 && p[2] == 0);
    heights_mapbox(0.0, p);
    CHECK(p[0] * 65536 + p[1] * 256 + p[2] == 100000);
    for (double h = -10000.0; h < 1667721.0; h += 777.7777) {
        heights_mapbox(h, p);
        CHECKF(fabs(mapbox_decode(p) - h) <= 0.05 + 1e-6, "h %.9g -> %.9g", h, mapbox_decode(p));
    }
    heights_mapbox(-20000.0, p);
    CHECK(p[0] == 0 && p[1] == 0 && p[2] == 0);
    heights_mapbox(5e6, p);
    CHECK(p[0] == 255 && p[1] == 255 && p[2] == 255);
}

static void test_npy_header(void)
{
    unsigned char h[HEIGHTS_NPY_HEADER_MAX];
    size_t n = heights_npy_header(3, 4, 1, h);
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
    /* the bytes numpy 1.24's np.save writes for this shape: 128 in all */
    CHECK(n == 128);
    CHECK(memcmp(h, "\x93NUMPY\x01\x00", 8) == 0);
    CHECK(h[8] + 256 * h[9] == 118);
    CHECK(memcmp(h + 10, dict, strlen(dict)) == 0);
    CHECK(h[127] == '\n' && h[126] == ' ' && h[10 + strlen(dict)] == ' ');
    n = heights_npy_header(4097, 4097, 4, h);
    h[n - 1] = 0;
    CHECK(n % 64 == 0);
    CHECK(strstr((const char *)h + 10, "(4097, 4097, 4)") != NULL);
}

static void test_rows(void)
{
    float v[3] = {-1.0f, 0.0f, 0.5f};
    float g[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    unsigned char out[64];
    heights_opts o = {HEIGHTS_R16, 0, 1000, 0};
    CHECK(heights_row_bytes(&o, 2, 3) == 6);
    heights_encode_row(&o, 3, v, NULL, 2, out);
    uint16_t u = heights_u16(0.5);
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 0x00 && out[3] == 0x80 && out[4] == (u & 255) && out[5] == (u >> 8));
    o.format = HEIGHTS_GRAY16;
    heights_encode_row(&o, 3, v, NULL, 2, out);
    CHECK(out[2] == 0x80 && out[3] == 0x00 && out[4] == (u >> 8) && out[5] == (u & 255));
    o.format = HEIGHTS_NPY;
    heights_encode_row(&o, 3, v, NULL, 2, out);
    float back[3];
    memcpy(back, out, 12); /* x86-64 is little-endian */
    CHECK(back[0] == -1.0f && back[1] == 0.0f && back[2] == 0.5f);
    o.gradient = 1;
    CHECK(heights_channels(&o, 3) == 4 && heights_row_bytes(&o, 3, 3) == 48);
    heights_encode_row(&o, 3, v, g, 3, out);
    float all[12];
    memcpy(all, out, 48);
    CHECK(all[0] == -1.0f && all[1] == 1 && all[2] == 2 && all[3] == 3 && all[4] == 0.0f && all[5] == 4 && all[11] == 9);
    o = (heights_opts){HEIGHTS_TERRARIUM, 0, 100.0, 50.0};
    heights_encode_row(&o, 3, v, NULL, 2, out);
    CHECK(terrarium_decode(out) == -50.0 && terrarium_decode(out + 3) == 50.0 && terrarium_decode(out + 6) == 100.0);
    o.format = HEIGHTS_MAPBOX;
    heights_encode_row(&o, 3, v, NULL, 2, out);
    CHECK(fabs(mapbox_decode(out) + 50.0) < 1e-9 && fabs(mapbox_decode(out + 6) - 100.0) < 1e-9);
}

static void test_names(void)
{
    heights_format f;
    CHECK(heights_encoding_from_name("terrarium", &f) == 0 && f == HEIGHTS_TERRARIUM);
    CHECK(heights_encoding_from_name("gray16", &f) == 0 && f == HEIGHTS_GRAY16);
    CHECK(heights_encoding_from_name("mapbox", &f) == 0 && f == HEIGHTS_MAPBOX);
    CHECK(heights_encoding_from_name("npy", &f) != 0 && heights_encoding_from_name(NULL, &f) != 0);
    CHECK(strcmp(heights_content_type(HEIGHTS_NPY), "application/x-npy") == 0);
}

int main(void)
{
    RUN(test_u16_mapping);
    RUN(test_terrarium);
    RUN(test_mapbox);
    RUN(test_npy_header);
    RUN(test_rows);
    RUN(test_names);
    return t_done();
}
