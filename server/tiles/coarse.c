/* coarse.c: supersampled tiles below zoom 0 (see coarse.h).
 *
 * The sub-pixel grid of the whole tile is (px*ss + extra)^2 samples (extra:
 * the zero line's one more row and column); it is computed a band of
 * ss + extra sub-pixel rows at a time (noise_field_grid_rows gives each row
 * bit for bit as the whole grid would), so the memory is a few sub-pixel
 * rows, not the 16-fold tile. Each band's rows are coloured with
 * render_color_row and summed into the output row's pixels. */
#include "tiles/coarse.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/failalloc.h"
#include "tiles/pngenc.h"
#include "tiles/webpenc.h"

int coarse_render_tile(const noise_spec *spec, int z, int64_t x, int64_t y, int px, int ss,
                       const render_opts *opts, render_format format, int quality,
                       unsigned char **out, size_t *out_size)
{
    return coarse_render_tile_src(spec, NULL, z, x, y, px, ss, opts, format, quality, out,
                                  out_size);
}

int coarse_render_tile_src(const noise_spec *spec, const fieldsrc_graph *graph, int z, int64_t x,
                           int64_t y, int px, int ss, const render_opts *opts,
                           render_format format, int quality, unsigned char **out,
                           size_t *out_size)
{
    static const render_opts defaults = {.palette = RENDER_GRAY};
    assert((spec || graph) && out && out_size);
    assert(px >= 1 && px <= 4096 && z < 0 && ss >= 2 && ss <= COARSE_MAX_SS);
    *out = NULL;
    *out_size = 0;
    if (!opts)
        opts = &defaults;
    int extra = opts->zero ? 1 : 0;
    int gray = opts->palette == RENDER_GRAY && opts->ramp.n == 0 && !opts->shade && !extra;
    int sw = px * ss;              /* sub-pixels per row */
    int gw = sw + extra;           /* grid width */
    int band = ss + extra;         /* grid rows per output row */
    size_t n_band = (size_t)gw * (size_t)band;
    float *values = failalloc_malloc(n_band * sizeof *values);
    float *grads = opts->shade ? failalloc_malloc(2 * n_band * sizeof *grads) : NULL;
    unsigned char *sub = failalloc_malloc((size_t)sw * 3);
    unsigned *sums = failalloc_malloc((size_t)px * 3 * sizeof *sums);
    unsigned char *pixels = failalloc_malloc((size_t)px * (size_t)px * 3);
    fieldsrc field;
    int have_field = fieldsrc_init(&field, spec, graph) == 0;
    int rc = RENDER_ENOMEM;
    if (!values || (opts->shade && !grads) || !sub || !sums || !pixels || !have_field)
        goto done;

    render_colors colors;
    render_colors_init(&colors, opts, fieldsrc_shade_frequency(&field));
    double side = ldexp(RENDER_WORLD_SIZE, -z);
    double step = side / sw;
    /* the first sub-pixel's centre: half a sub-pixel in from the corner */
    double x0 = ((double)x + 0.5 / sw) * side, y0 = ((double)y + 0.5 / sw) * side;
    unsigned n = (unsigned)(ss * ss);
    for (int j = 0; j < px; j++) {
        if (fieldsrc_grid_rows(&field, x0, y0, step, gw, j * ss, band, values, grads) != 0)
            goto done;
        memset(sums, 0, (size_t)px * 3 * sizeof *sums);
        for (int r = 0; r < ss; r++) {
            const float *row = values + (size_t)r * gw;
            render_color_row(&colors, sw, row, extra ? row + gw : NULL,
                             grads ? grads + 2 * (size_t)r * gw : NULL, sub);
            for (int i = 0; i < px; i++)
                for (int s = 0; s < ss; s++) {
                    const unsigned char *p = sub + 3 * ((size_t)i * ss + s);
                    sums[3 * i] += p[0];
                    sums[3 * i + 1] += p[1];
                    sums[3 * i + 2] += p[2];
                }
        }
        unsigned char *o = pixels + (size_t)j * px * (gray ? 1 : 3);
        if (gray)
            for (int i = 0; i < px; i++)
                o[i] = (unsigned char)((sums[3 * i] + n / 2) / n);
        else
            for (int k = 0; k < 3 * px; k++)
                o[k] = (unsigned char)((sums[k] + n / 2) / n);
    }

    /* WebP always lossy: means of sub-pixels are not the few colours that
     * make lossless WebP exact and small (an unshaded zoom -2 tile: 150 KB
     * lossless, see BENCHMARKS.md) */
    rc = render_encode(pixels, px, gray ? PNGENC_GRAY : PNGENC_RGB, NULL,
                       format == RENDER_PNG ? -1 : quality == 0 ? WEBPENC_DEFAULT_QUALITY : quality, out,
                       out_size);

done:
    if (have_field)
        fieldsrc_free(&field);
    free(pixels);
    free(sums);
    free(sub);
    free(grads);
    free(values);
    return rc;
}
