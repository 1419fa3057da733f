/* test_fastz.c: unit tests of the zlib-format compressor (server/tiles/fastz.c):
 * zlib's own inflate gets back every input, whatever its statistics
 * (runs, skewed histograms that need length-limited codes, incompressible
 * data, empty input), within fastz_bound(), deterministically. */
#include "base/failalloc.h"
#include "base/scratch.h"
#include "tiles/fastz.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t rng = 12345;
static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* Compresses, checks the size bound and that zlib inflates it back to the
 * input; returns the compressed size (0 on failure). */
static size_t roundtrip(const unsigned char *data, size_t n, const char *what)
{
    size_t bound = fastz_bound(n);
    unsigned char *z = malloc(bound);
    size_t zn = fastz_compress(data, n, z);
    CHECKF(zn > 0 && zn <= bound, "%s: %zu bytes, bound %zu", what, zn, bound);
    unsigned char *back = malloc(n + 1);
    uLongf back_n = (uLongf)n + 1;
    int rc = uncompress(back, &back_n, z, (uLong)zn);
    CHECKF(rc == Z_OK && back_n == n && memcmp(back, data, n) == 0, "%s: inflate %d, %lu of %zu",
           what, rc, (unsigned long)back_n, n);
    /* the same input gives the same bytes */
    unsigned char *z2 = malloc(bound);
    CHECK(fastz_compress(data, n, z2) == zn && memcmp(z, z2, zn) == 0);
    free(z2);
    free(back);
    free(z);
    return rc == Z_OK ? zn : 0;
}

static void test_empty_and_tiny(void)
{
    unsigned char one = 7, two[2] = {0, 0}, three[3] = {9, 9, 9}, four[4] = {5, 5, 5, 5};
    roundtrip(&one, 0, "empty");
    roundtrip(&one, 1, "one byte");
    roundtrip(two, 2, "two bytes");
    roundtrip(three, 3, "three equal");
    roundtrip(four, 4, "a literal and a run of 3");
}

static void test_runs(void)
{
    size_t n = 300000;
    unsigned char *d = malloc(n);
    memset(d, 0, n); /* one long run: many 258-byte matches */
    size_t zn = roundtrip(d, n, "zeros");
    CHECKF(zn < n / 100, "zeros: %zu bytes", zn);
    /* runs of every length 1..300 of changing bytes */
    size_t pos = 0;
    for (int len = 1; pos < n; len = len % 300 + 1)
        for (int k = 0; k < len && pos < n; k++)
            d[pos++] = (unsigned char)len;
    roundtrip(d, n, "runs of every length");
    /* runs, but not the longest length code (fewer than 286 literal/length
     * codes are sent, so the distance lengths follow sooner) */
    for (size_t i = 0; i < 257 * 256; i++)
        d[i] = i % 257 == 0 ? 0 : 77;
    roundtrip(d, 257 * 256, "constant rows");
    free(d);
}

static void test_incompressible(void)
{
    size_t n = 200000; /* several stored blocks */
    unsigned char *d = malloc(n);
    for (size_t i = 0; i < n; i++)
        d[i] = (unsigned char)next_rand();
    size_t zn = roundtrip(d, n, "random");
    CHECKF(zn <= n + 6 + 5 * (n / 65535 + 1), "random: %zu", zn);
    free(d);
}

/* Fibonacci counts make the optimal code deeper than 15 bits: the length
 * limit must hold and the code stay complete. */
static void test_skewed_histogram_needs_length_limit(void)
{
    size_t counts[26], n = 0;
    counts[0] = counts[1] = 1;
    for (int k = 2; k < 26; k++)
        counts[k] = counts[k - 1] + counts[k - 2];
    for (int k = 0; k < 26; k++)
        n += counts[k];
    unsigned char *d = malloc(n);
    size_t pos = 0;
    for (int k = 0; k < 26; k++)
        for (size_t c = 0; c < counts[k]; c++)
            d[pos++] = (unsigned char)(k * 7);
    /* shuffle, so the data is literals rather than runs */
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = next_rand() % (i + 1);
        unsigned char t = d[i];
        d[i] = d[j];
        d[j] = t;
    }
    size_t zn = roundtrip(d, n, "fibonacci");
    CHECKF(zn < n / 2, "fibonacci: %zu of %zu", zn, n); /* the code did compress */
    free(d);
}

static void test_image_like(void)
{
    /* PNG-like rows: a filter byte, then smooth residues with noise */
    size_t row = 769, n = row * 256;
    unsigned char *d = malloc(n);
    for (size_t i = 0; i < n; i++)
        d[i] = i % row == 0 ? 2 : (unsigned char)((next_rand() % 5) - 2);
    size_t zn = roundtrip(d, n, "residues");
    CHECKF(zn < n / 2, "residues: %zu of %zu", zn, n);
    free(d);
}

/* Many small inputs of every shape (seeded, so the same each run): runs,
 * small and full alphabets, lengths around the block and run limits. */
static void test_many_shapes(void)
{
    int bad = 0;
    unsigned char *d = malloc(70000), *z = malloc(fastz_bound(70000)), *back = malloc(70001);
    for (int k = 0; k < 400; k++) {
        size_t n = k < 300 ? next_rand() % 3000 : 65530 + next_rand() % 12;
        unsigned alphabet = 1 + next_rand() % (k % 3 == 0 ? 4 : 256);
        unsigned run_odds = next_rand() % 100;
        for (size_t i = 0; i < n; i++)
            d[i] = i > 0 && next_rand() % 100 < run_odds ? d[i - 1]
                                                          : (unsigned char)(next_rand() % alphabet);
        size_t zn = fastz_compress(d, n, z);
        uLongf bn = 70001;
        int rc = uncompress(back, &bn, z, (uLong)zn);
        bad += zn == 0 || zn > fastz_bound(n) || rc != Z_OK || bn != n || memcmp(back, d, n) != 0;
    }
    CHECKF(bad == 0, "%d of 400 inputs wrong", bad);
    free(d);
    free(z);
    free(back);
}

static void test_allocation_failure(void)
{
    unsigned char d[1000];
    for (size_t i = 0; i < sizeof d; i++)
        d[i] = (unsigned char)(i / 7);
    unsigned char *z = malloc(fastz_bound(sizeof d));
    scratch_set_keep(0); /* the tokens' block is allocated, not a kept one */
    failalloc_arm(1);
    size_t zn = fastz_compress(d, sizeof d, z);
    int fired = failalloc_fired();
    failalloc_arm(0);
    CHECK(fired && zn == 0);
    CHECK(fastz_compress(d, sizeof d, z) > 0);
    scratch_set_keep(SCRATCH_KEEP);
    free(z);
}

int main(void)
{
    RUN(test_empty_and_tiny);
    RUN(test_runs);
    RUN(test_incompressible);
    RUN(test_skewed_histogram_needs_length_limit);
    RUN(test_image_like);
    RUN(test_many_shapes);
    RUN(test_allocation_failure);
    return t_done();
}
