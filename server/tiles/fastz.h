/* fastz.h: a fast compressor to the zlib format (RFC 1950/1951) for PNG
 * image data: one dynamic-Huffman deflate block whose only matches are runs
 * of a repeated byte (distance 1), like zlib's Z_RLE strategy, with the
 * Huffman codes built from the data's own histogram. It does in two linear
 * passes what zlib does with a hash chain or per-block trees, which is what
 * makes RGB tiles cheap (BENCHMARKS.md, "Tiles: render and encode").
 *
 * Output depends only on the input bytes. Data the code cannot shrink is
 * written as stored blocks, so the output never exceeds the input by more
 * than 5 bytes per 65535 plus 6.
 */
#ifndef FASTZ_H
#define FASTZ_H

#include <stddef.h>

/* An upper bound of fastz_compress()'s output size for n input bytes. */
size_t fastz_bound(size_t n);

/* Compresses data[0..n) into out (at least fastz_bound(n) bytes) as one
 * zlib stream. Returns the number of bytes written, or 0 when out of memory
 * (it allocates scratch through failalloc.h). */
size_t fastz_compress(const unsigned char *data, size_t n, unsigned char *out);

#endif
