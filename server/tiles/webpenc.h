/* webpenc.h: WebP encoding of 8-bit RGB images into a memory buffer, for
 * the `.webp` tiles: lossy (VP8) at a quality, or lossless (VP8L), through
 * libwebp's encoder with fixed settings (one thread, no timing-dependent
 * choice), so the same pixels and settings always give the same bytes with
 * the same libwebp. webpenc_version() names that libwebp: the tile cache key
 * and the ETag carry it, so an upgraded encoder never serves stale bytes
 * under an old tag.
 */
#ifndef WEBPENC_H
#define WEBPENC_H

#include <stddef.h>

#include "base/errors.h"

/* The quality of lossy tiles when the request names none. */
#define WEBPENC_DEFAULT_QUALITY 80
/* The quality range a request may name (1 = smallest, 100 = best lossy). */
#define WEBPENC_MIN_QUALITY 1
#define WEBPENC_MAX_QUALITY 100
/* quality WEBPENC_LOSSLESS: exact pixels (VP8L). */
#define WEBPENC_LOSSLESS 0

/* Encodes a width x height RGB image (1..16383 each; row j at
 * rgb + j*stride_bytes, 3 bytes per pixel) as WebP: lossless when quality
 * is WEBPENC_LOSSLESS, else lossy at quality 1..100. On success returns 0
 * and sets *out to a malloc()ed buffer (failalloc.h's allocator) of
 * *out_size bytes that the caller frees. On failure returns ERR_INVALID
 * (bad arguments), ERR_NOMEM, or ERR_INTERNAL (libwebp refused), with *out
 * NULL and *out_size 0. Thread-safe. */
int webpenc_encode(const unsigned char *rgb, int width, int height, size_t stride_bytes, int quality,
                   unsigned char **out, size_t *out_size);

/* libwebp's encoder version as 0xMMmmrr (1.2.4 is 0x010204). */
int webpenc_version(void);

#endif
