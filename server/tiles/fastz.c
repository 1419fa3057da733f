/* fastz.c: a fast zlib-format compressor for PNG image data: byte runs and
 * one dynamic-Huffman block (see fastz.h).
 *
 * Pass 1 turns the input into tokens (a literal byte, or a run of the
 * previous byte: a match at distance 1, 3..258 long) and counts them;
 * the Huffman code lengths come from those counts (Moffat and Katajainen's
 * in-place algorithm, then limited to 15 bits by moving leaves up, as JPEG's
 * Annex K does); pass 2 writes the tokens. The exact output size is known
 * before writing, so data that does not shrink goes out as stored blocks.
 */
#include "tiles/fastz.h"

#include <stdint.h>
#include <stdlib.h>
#include <libdeflate.h>
#include <string.h>

#include "base/failalloc.h"
#include "base/scratch.h"

#define N_LITLEN 286
#define N_DIST 30
#define N_CLEN 19
#define MIN_RUN 3
#define MAX_RUN 258
#define STORED_MAX 65535

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint8_t clen_order[N_CLEN] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                           11, 4,  12, 3, 13, 2, 14, 1, 15};

size_t fastz_bound(size_t n)
{
    return 2 + 4 + n + 5 * (n / STORED_MAX + 1);
}

/* ---- Huffman code lengths ---- */

typedef struct {
    uint32_t freq;
    uint16_t sym;
} leaf;

static int cmp_leaf(const void *a, const void *b)
{
    const leaf *x = a, *y = b;
    if (x->freq != y->freq)
        return x->freq < y->freq ? -1 : 1;
    return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* Optimal code lengths for the sorted weights a[0..n), n >= 2, in place:
 * afterwards a[i] is the length of the i-th lightest symbol (Moffat and
 * Katajainen, "In-place calculation of minimum-redundancy codes", 1995). */
static void minimum_redundancy(uint32_t *a, int n)
{
    int root = 0, leaf_i = 2, next;
    a[0] += a[1];
    for (next = 1; next < n - 1; next++) {
        /* first child */
        if (leaf_i >= n || a[root] < a[leaf_i]) {
            a[next] = a[root];
            a[root++] = (uint32_t)next;
        } else {
            a[next] = a[leaf_i++];
        }
        /* second child */
        if (leaf_i >= n || (root < next && a[root] < a[leaf_i])) {
            a[next] += a[root];
            a[root++] = (uint32_t)next;
        } else {
            a[next] += a[leaf_i++];
        }
    }
    /* parent pointers -> internal node depths */
    a[n - 2] = 0;
    for (next = n - 3; next >= 0; next--)
        a[next] = a[a[next]] + 1;
    /* internal node depths -> leaf depths */
    int avail = 1, used = 0;
    uint32_t depth = 0;
    root = n - 2;
    next = n - 1;
    while (avail > 0) {
        while (root >= 0 && a[root] == depth) {
            used++;
            root--;
        }
        while (avail > used) {
            a[next--] = depth;
            avail--;
        }
        avail = 2 * used;
        depth++;
        used = 0;
    }
}

/* Code lengths (at most limit bits) for n_sym symbols with counts freq[];
 * symbols with count 0 get 0. A lone used symbol gets a partner, so every
 * code is complete. */
static void build_lengths(const uint32_t *freq, int n_sym, int limit, uint8_t *lengths)
{
    leaf leaves[N_LITLEN];
    uint32_t a[N_LITLEN];
    int n = 0;
    memset(lengths, 0, (size_t)n_sym);
    for (int s = 0; s < n_sym; s++)
        if (freq[s])
            leaves[n++] = (leaf){freq[s], (uint16_t)s};
    if (n == 0)
        return;
    if (n == 1) { /* a partner of length 1 too: never sent */
        lengths[leaves[0].sym] = 1;
        lengths[leaves[0].sym == 0 ? 1 : 0] = 1;
        return;
    }
    qsort(leaves, (size_t)n, sizeof leaves[0], cmp_leaf);
    for (int i = 0; i < n; i++)
        a[i] = leaves[i].freq;
    minimum_redundancy(a, n);

    int count[N_LITLEN + 1] = {0};
    int max_len = 0;
    for (int i = 0; i < n; i++) {
        count[a[i]]++;
        if ((int)a[i] > max_len)
            max_len = (int)a[i];
    }
    /* limit: take two leaves from the deepest level, put one there a level
     * up and make a shallower leaf a node over the other two (Kraft sum
     * unchanged) */
    for (int i = max_len; i > limit; i--)
        while (count[i] > 0) {
            int j = i - 2;
            while (count[j] == 0)
                j--;
            count[i] -= 2;
            count[i - 1] += 1;
            count[j + 1] += 2;
            count[j] -= 1;
        }
    /* the lightest symbols take the longest codes */
    int i = 0;
    for (int len = max_len < limit ? max_len : limit; len >= 1; len--)
        for (int k = 0; k < count[len]; k++)
            lengths[leaves[i++].sym] = (uint8_t)len;
}

/* Canonical codes, bit-reversed for the LSB-first bit writer. */
static void build_codes(const uint8_t *lengths, int n_sym, uint16_t *codes)
{
    int count[16] = {0};
    uint16_t next[16];
    for (int s = 0; s < n_sym; s++)
        count[lengths[s]]++;
    count[0] = 0;
    uint16_t code = 0;
    for (int len = 1; len < 16; len++) {
        code = (uint16_t)((code + count[len - 1]) << 1);
        next[len] = code;
    }
    for (int s = 0; s < n_sym; s++) {
        int len = lengths[s];
        if (!len) {
            codes[s] = 0;
            continue;
        }
        uint16_t c = next[len]++, r = 0;
        for (int b = 0; b < len; b++)
            r = (uint16_t)(r << 1 | ((c >> b) & 1));
        codes[s] = r;
    }
}

/* ---- bit writer ---- */

typedef struct {
    uint64_t acc;
    int n_bits;
    unsigned char *p;
} bits;

static inline void put(bits *w, uint32_t value, int n)
{
    w->acc |= (uint64_t)value << w->n_bits;
    w->n_bits += n;
    if (w->n_bits >= 32) {
        w->p[0] = (unsigned char)w->acc;
        w->p[1] = (unsigned char)(w->acc >> 8);
        w->p[2] = (unsigned char)(w->acc >> 16);
        w->p[3] = (unsigned char)(w->acc >> 24);
        w->p += 4;
        w->acc >>= 32;
        w->n_bits -= 32;
    }
}

static void flush_bytes(bits *w)
{
    while (w->n_bits > 0) {
        *w->p++ = (unsigned char)w->acc;
        w->acc >>= 8;
        w->n_bits -= 8;
    }
    w->acc = 0;
    w->n_bits = 0;
}

/* ---- compressor ---- */

/* Token t < 256: literal t; t >= 256: a run of t - 256 copies of the
 * previous byte. */
static size_t tokenize(const unsigned char *data, size_t n, uint16_t *tokens, uint32_t *lit_freq,
                       const uint8_t *len_sym, uint32_t *n_runs)
{
    size_t n_tok = 0, i = 0;
    while (i < n) {
        unsigned char b = data[i++];
        tokens[n_tok++] = b;
        lit_freq[b]++;
        size_t run = 0;
        while (i + run < n && data[i + run] == b && run < MAX_RUN)
            run++;
        if (run >= MIN_RUN) {
            tokens[n_tok++] = (uint16_t)(256 + run);
            lit_freq[257 + len_sym[run]]++;
            (*n_runs)++;
            i += run;
        }
    }
    return n_tok;
}

static unsigned char *write_stored(const unsigned char *data, size_t n, unsigned char *p)
{
    size_t done = 0;
    do {
        size_t k = n - done < STORED_MAX ? n - done : STORED_MAX;
        *p++ = done + k == n ? 1 : 0; /* BFINAL, BTYPE 00, aligned */
        *p++ = (unsigned char)k;
        *p++ = (unsigned char)(k >> 8);
        *p++ = (unsigned char)~k;
        *p++ = (unsigned char)(~k >> 8);
        memcpy(p, data + done, k);
        p += k;
        done += k;
    } while (done < n);
    return p;
}

size_t fastz_compress(const unsigned char *data, size_t n, unsigned char *out)
{
    /* run length -> length symbol index (0..28) */
    uint8_t len_sym[MAX_RUN + 1];
    for (int s = 0, len = MIN_RUN; len <= MAX_RUN; len++) {
        while (s < 28 && len >= len_base[s + 1])
            s++;
        len_sym[len] = (uint8_t)s;
    }

    uint16_t *tokens = scratch_take(SCRATCH_TOKENS, (n ? n : 1) * sizeof *tokens);
    if (!tokens)
        return 0;
    uint32_t lit_freq[N_LITLEN] = {0}, dist_freq[N_DIST] = {0}, n_runs = 0;
    size_t n_tok = tokenize(data, n, tokens, lit_freq, len_sym, &n_runs);
    lit_freq[256] = 1; /* end of block */
    dist_freq[0] = n_runs;

    uint8_t lit_len[N_LITLEN], dist_len[N_DIST];
    build_lengths(lit_freq, N_LITLEN, 15, lit_len);
    if (n_runs)
        build_lengths(dist_freq, N_DIST, 15, dist_len);
    else {
        memset(dist_len, 0, sizeof dist_len);
        dist_len[0] = dist_len[1] = 1; /* complete, unused */
    }
    int hlit = N_LITLEN, hdist = N_DIST;
    while (hlit > 257 && lit_len[hlit - 1] == 0)
        hlit--;
    while (hdist > 1 && dist_len[hdist - 1] == 0)
        hdist--;
    uint8_t lens[N_LITLEN + N_DIST]; /* as sent: hlit, then hdist lengths */
    memcpy(lens, lit_len, (size_t)hlit);
    memcpy(lens + hlit, dist_len, (size_t)hdist);

    /* the code lengths, run-length coded with symbols 16, 17, 18 */
    uint8_t cl_sym[N_LITLEN + N_DIST], cl_extra[N_LITLEN + N_DIST];
    uint32_t cl_freq[N_CLEN] = {0};
    int n_cl = 0, total = hlit + hdist;
    for (int i = 0; i < total;) {
        int l = lens[i], run = 1;
        while (i + run < total && lens[i + run] == l)
            run++;
        i += run;
        if (l == 0) {
            while (run >= 11) {
                int r = run < 138 ? run : 138;
                cl_sym[n_cl] = 18, cl_extra[n_cl++] = (uint8_t)(r - 11);
                run -= r;
            }
            if (run >= 3) {
                cl_sym[n_cl] = 17, cl_extra[n_cl++] = (uint8_t)(run - 3);
                run = 0;
            }
        } else {
            cl_sym[n_cl] = (uint8_t)l, cl_extra[n_cl++] = 0;
            run--;
            while (run >= 3) {
                int r = run < 6 ? run : 6;
                cl_sym[n_cl] = 16, cl_extra[n_cl++] = (uint8_t)(r - 3);
                run -= r;
            }
        }
        while (run-- > 0)
            cl_sym[n_cl] = (uint8_t)l, cl_extra[n_cl++] = 0;
    }
    for (int k = 0; k < n_cl; k++)
        cl_freq[cl_sym[k]]++;
    uint8_t cl_len[N_CLEN];
    build_lengths(cl_freq, N_CLEN, 7, cl_len);
    int hclen = N_CLEN;
    while (hclen > 4 && cl_len[clen_order[hclen - 1]] == 0)
        hclen--;

    /* exact size of the dynamic block, in bits */
    static const uint8_t cl_extra_bits[N_CLEN] = {[16] = 2, [17] = 3, [18] = 7};
    uint64_t n_bits = 3 + 14 + 3 * (uint64_t)hclen;
    for (int k = 0; k < n_cl; k++)
        n_bits += cl_len[cl_sym[k]] + cl_extra_bits[cl_sym[k]];
    for (int s = 0; s < N_LITLEN; s++)
        n_bits += (uint64_t)lit_freq[s] * (lit_len[s] + (s > 256 ? len_extra[s - 257] : 0));
    n_bits += (uint64_t)n_runs * dist_len[0];

    unsigned char *p = out;
    *p++ = 0x78; /* deflate, 32 KB window */
    *p++ = 0x01; /* fastest, check bits */
    if ((n_bits + 7) / 8 >= n + 5 * (n / STORED_MAX + 1)) {
        p = write_stored(data, n, p);
    } else {
        uint16_t lit_code[N_LITLEN], dist_code[N_DIST], cl_code[N_CLEN];
        build_codes(lit_len, N_LITLEN, lit_code);
        build_codes(dist_len, N_DIST, dist_code);
        build_codes(cl_len, N_CLEN, cl_code);
        bits w = {0, 0, p};
        put(&w, 1, 1); /* BFINAL */
        put(&w, 2, 2); /* dynamic Huffman */
        put(&w, (uint32_t)(hlit - 257), 5);
        put(&w, (uint32_t)(hdist - 1), 5);
        put(&w, (uint32_t)(hclen - 4), 4);
        for (int k = 0; k < hclen; k++)
            put(&w, cl_len[clen_order[k]], 3);
        for (int k = 0; k < n_cl; k++) {
            put(&w, cl_code[cl_sym[k]], cl_len[cl_sym[k]]);
            if (cl_extra_bits[cl_sym[k]])
                put(&w, cl_extra[k], cl_extra_bits[cl_sym[k]]);
        }
        for (size_t t = 0; t < n_tok; t++) {
            unsigned tok = tokens[t];
            if (tok < 256) {
                put(&w, lit_code[tok], lit_len[tok]);
            } else {
                unsigned run = tok - 256, s = len_sym[run];
                put(&w, lit_code[257 + s], lit_len[257 + s]);
                if (len_extra[s])
                    put(&w, run - len_base[s], len_extra[s]);
                put(&w, dist_code[0], dist_len[0]);
            }
        }
        put(&w, lit_code[256], lit_len[256]);
        flush_bytes(&w);
        p = w.p;
    }
    /* libdeflate's Adler-32 (vectorised; zlib's is scalar): the same sum */
    uint32_t adler = libdeflate_adler32(1, data, n);
    *p++ = (unsigned char)(adler >> 24);
    *p++ = (unsigned char)(adler >> 16);
    *p++ = (unsigned char)(adler >> 8);
    *p++ = (unsigned char)adler;
    scratch_give(SCRATCH_TOKENS, tokens);
    return (size_t)(p - out);
}
