/* coarse.h: the tiles below zoom 0, band-limited by supersampling.
 *
 * A tile below zoom 0 covers 2^-z times the plane of a zoom-0 tile per
 * axis with the same 256 (or 512) pixels, so sampling the field once per
 * pixel (as render_tile does) point-samples octaves far finer than a pixel
 * and they alias into speckle (the zoomed-out view a browser showed by
 * shrinking zoom-0 tiles had no such speckle: it averaged them). A coarse
 * tile is instead rendered at `ss` sub-pixels per axis per pixel, each
 * sub-pixel coloured exactly as a tile pixel at that place (render_color_row:
 * palette or ramp, hillshade, zero line), and each pixel is the rounded mean
 * of its ss x ss sub-pixels' R, G and B: (sum + n/2) / n with n = ss * ss.
 *
 * With ss = 2^-z / scale (the zoom-0 @1x pixel pitch; scale 1 or 2), the
 * sub-pixels are exactly the pixel centres of the zoom-0 @1x tiles, so a
 * coarse tile is the box average of the zoom-0 tiles it covers: what the
 * browser showed, one request instead of 4^-z. The service lowers ss (to
 * 2, then 1: the plain point-sampled tile) when the supersampled work would
 * pass the per-request limit (fieldreq.c); ss is part of the tile's cache
 * key and so of its ETag.
 */
#ifndef COARSE_H
#define COARSE_H

#include <stddef.h>
#include <stdint.h>

#include "tiles/render.h"

/* The most sub-pixels per axis a coarse tile takes. */
#define COARSE_MAX_SS 4

/* render_tile for z < 0 with ss sub-pixels per axis (2..COARSE_MAX_SS;
 * ss 1 is render_tile itself). The picture is RGB (8-bit gray for gray
 * tiles without shade or zero line: their means are grey), as PNG or as
 * lossy WebP at quality (1..100, 0: WEBPENC_DEFAULT_QUALITY), shaded or not:
 * the means are not the few colours that make lossless WebP pay.
 * Returns 0 or RENDER_ENOMEM / RENDER_EPNG as render_tile does. */
int coarse_render_tile(const noise_spec *spec, int z, int64_t x, int64_t y, int px, int ss,
                       const render_opts *opts, render_format format, int quality,
                       unsigned char **out, size_t *out_size);

/* coarse_render_tile of a prepared graph when graph is not NULL (spec is
 * then not used), as render_tile_src. */
int coarse_render_tile_src(const noise_spec *spec, const fieldsrc_graph *graph, int z, int64_t x,
                           int64_t y, int px, int ss, const render_opts *opts,
                           render_format format, int quality, unsigned char **out,
                           size_t *out_size);

#endif
