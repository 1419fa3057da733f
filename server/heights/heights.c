/* heights.c: values -> .npy, .r16, 16-bit gray, Terrarium and Mapbox bytes,
 * one row at a time (see heights.h for the mappings). */
#include "heights/heights.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const encoding_names[] = {"gray16", "terrarium", "mapbox", NULL};

const char *const *heights_encoding_names(void) { return encoding_names; }

int heights_encoding_from_name(const char *name, heights_format *out)
{
    static const heights_format formats[] = {HEIGHTS_GRAY16, HEIGHTS_TERRARIUM, HEIGHTS_MAPBOX};
    for (int k = 0; name != NULL && encoding_names[k] != NULL; k++)
        if (strcmp(name, encoding_names[k]) == 0) {
            *out = formats[k];
            return 0;
        }
    return -1;
}

const char *heights_format_name(heights_format f)
{
    switch (f) {
    case HEIGHTS_NPY: return "npy";
    case HEIGHTS_R16: return "r16";
    case HEIGHTS_GRAY16: return "gray16";
    case HEIGHTS_TERRARIUM: return "terrarium";
    case HEIGHTS_MAPBOX: return "mapbox";
    default: return "?";
    }
}

const char *heights_content_type(heights_format f)
{
    switch (f) {
    case HEIGHTS_NPY: return "application/x-npy";
    case HEIGHTS_R16: return "application/octet-stream";
    default: return "image/png";
    }
}

uint16_t heights_u16(double v)
{
    double t = (v + 1.0) * 32767.5 + 0.5;
    if (!(t >= 1.0)) /* below 1, and NaN */
        return 0;
    if (t >= 65535.0)
        return 65535;
    return (uint16_t)t; /* floor for t >= 0 */
}

/* floor(x + 0.5) clamped to 0..2^24-1. */
static uint32_t q24(double x)
{
    double t = x + 0.5;
    if (!(t >= 1.0))
        return 0;
    if (t >= 16777215.0)
        return 16777215;
    return (uint32_t)t;
}

static void rgb24(uint32_t q, unsigned char rgb[3])
{
    rgb[0] = (unsigned char)(q >> 16);
    rgb[1] = (unsigned char)(q >> 8);
    rgb[2] = (unsigned char)q;
}

void heights_terrarium(double h, unsigned char rgb[3]) { rgb24(q24((h + 32768.0) * 256.0), rgb); }

void heights_mapbox(double h, unsigned char rgb[3]) { rgb24(q24((h + 10000.0) * 10.0), rgb); }

int heights_channels(const heights_opts *o, int n_grad)
{
    return o->format == HEIGHTS_NPY && o->gradient ? 1 + n_grad : 1;
}

size_t heights_row_bytes(const heights_opts *o, int n_grad, int width)
{
    size_t w = (size_t)width;
    switch (o->format) {
    case HEIGHTS_NPY: return 4 * w * (size_t)heights_channels(o, n_grad);
    case HEIGHTS_R16:
    case HEIGHTS_GRAY16: return 2 * w;
    default: return 3 * w;
    }
}

/* A float's bytes in little-endian order (the host's own on x86-64) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HEIGHTS_HOST_LE 1
#else
#define HEIGHTS_HOST_LE 0
#endif

static unsigned char *put_f32le(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    p[0] = (unsigned char)u;
    p[1] = (unsigned char)(u >> 8);
    p[2] = (unsigned char)(u >> 16);
    p[3] = (unsigned char)(u >> 24);
    return p + 4;
}

void heights_encode_row(const heights_opts *o, int width, const float *values,
                        const float *grads, int n_grad, unsigned char *out)
{
    assert(width >= 0 && (o->format != HEIGHTS_NPY || !o->gradient || grads != NULL));
    switch (o->format) {
    case HEIGHTS_NPY:
        if (!o->gradient && HEIGHTS_HOST_LE) {
            memcpy(out, values, (size_t)width * sizeof(float));
        } else if (!o->gradient) {
            for (int i = 0; i < width; i++)
                out = put_f32le(out, values[i]);
        } else {
            for (int i = 0; i < width; i++) {
                out = put_f32le(out, values[i]);
                for (int c = 0; c < n_grad; c++)
                    out = put_f32le(out, grads[(size_t)i * (size_t)n_grad + (size_t)c]);
            }
        }
        break;
    case HEIGHTS_R16:
        for (int i = 0; i < width; i++) {
            uint16_t u = heights_u16(values[i]);
            *out++ = (unsigned char)u;
            *out++ = (unsigned char)(u >> 8);
        }
        break;
    case HEIGHTS_GRAY16:
        for (int i = 0; i < width; i++) {
            uint16_t u = heights_u16(values[i]);
            *out++ = (unsigned char)(u >> 8);
            *out++ = (unsigned char)u;
        }
        break;
    case HEIGHTS_TERRARIUM:
    case HEIGHTS_MAPBOX: {
        void (*pixel)(double, unsigned char *) =
            o->format == HEIGHTS_TERRARIUM ? heights_terrarium : heights_mapbox;
        for (int i = 0; i < width; i++, out += 3)
            pixel((double)values[i] * o->height_scale + o->height_offset, out);
        break;
    }
    default:
        assert(0 && "unknown heights format");
    }
}

size_t heights_npy_header(int height, int width, int channels, unsigned char *buf)
{
    char dict[96];
    int n;
    if (channels == 1)
        n = snprintf(dict, sizeof dict,
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", height,
                     width);
    else
        n = snprintf(dict, sizeof dict,
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d, %d), }", height,
                     width, channels);
    assert(n > 0 && (size_t)n < sizeof dict);
    /* magic (6), version (2), header length (2), dict, spaces, '\n' */
    size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64;
    assert(total <= HEIGHTS_NPY_HEADER_MAX);
    size_t hlen = total - 10;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)hlen;
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)n);
    memset(buf + 10 + n, ' ', total - 10 - (size_t)n - 1);
    buf[total - 1] = '\n';
    return total;
}
