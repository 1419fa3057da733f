/* pngstream.h: a PNG writer that takes rows as they are computed and emits
 * the file as it goes (signature and IHDR first, IDAT chunks of at most
 * PNGSTREAM_CHUNK bytes, IEND last), for 16-bit gray and 8-bit RGB images
 * of any height: the grid and numeric tiles (heights.h). zlib compresses at
 * level 1 with the Up filter on every row; numbers (16-bit samples,
 * Terrain-RGB) Huffman-only, which for noise is as small as LZ77 matching
 * and 1.6 times faster; pictures with runs (flat palette areas)
 * (BENCHMARKS.md, "Compression").
 * No time or text chunk: the same rows give the same bytes.
 */
#ifndef PNGSTREAM_H
#define PNGSTREAM_H

#include <stddef.h>

#include "base/bytebuf.h"

typedef struct pngstream pngstream;

typedef enum {
    PNGSTREAM_GRAY16 = 0, /* 16-bit gray numbers */
    PNGSTREAM_RGB8,       /* 8-bit RGB numbers (Terrarium, Mapbox) */
    PNGSTREAM_PICTURE     /* 8-bit RGB picture */
} pngstream_format;

#define PNGSTREAM_CHUNK 65536

/* Starts a width x height image (1..2^31-1 each) and appends the signature
 * and IHDR to out. Returns the writer, or NULL out of memory. Free with
 * pngstream_destroy() (NULL: nothing). */
pngstream *pngstream_create(int width, int height, pngstream_format format, bytebuf *out);
void pngstream_destroy(pngstream *ps);

/* Adds the next row (width * 2 bytes big-endian samples for gray16, width
 * * 3 for RGB) and appends any finished IDAT chunks to out; after the last
 * row the rest of the image and IEND follow. Returns 0, or -1 out of memory
 * or too many rows (the writer is then unusable). */
int pngstream_row(pngstream *ps, const unsigned char *row, bytebuf *out);

#endif
