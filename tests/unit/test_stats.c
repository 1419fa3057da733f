/* test_stats.c: unit tests of server/heights/stats.c: hand-made rows with known
 * answers (peaks, plateaus, borders, histogram bin edges), agreement with a
 * plain whole-grid computation, and the Islands page's table (seeds 0-3,
 * 641 x 641 samples at k/16: 40 x 40 cells, 16 samples per cell). */
#include "base/failalloc.h"
#include "heights/stats.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static stats_summary summarise(const float *v, int width, int height, int n_bins)
{
    stats_summary s;
    stats_acc *acc = stats_create(width, n_bins);
    CHECK(acc != NULL);
    for (int j = 0; j < height; j++)
        stats_add_row(acc, v + (size_t)j * (size_t)width);
    stats_finish(acc, &s);
    stats_destroy(acc);
    return s;
}

/* Peaks are strict maxima over all 8 neighbours, never on the border. */
static void test_peaks_by_hand(void)
{
    /* 5 x 4: one clear peak at (1,1); (3,2) ties with (3,1): no peak; the
     * border's 0.9 at (4,0) has no 8 neighbours */
    const float v[] = {
        0.0f, 0.1f, 0.0f, 0.0f, 0.9f,
        0.1f, 0.8f, 0.2f, 0.5f, 0.0f,
        0.0f, 0.3f, 0.1f, 0.5f, 0.0f,
        0.0f, 0.0f, 0.0f, 0.0f, 0.0f,
    };
    stats_summary s = summarise(v, 5, 4, 8);
    CHECKF(s.peaks == 1, "peaks %llu, want 1", (unsigned long long)s.peaks);
    CHECK(s.count == 20);
    CHECK(s.min == 0.0 && s.max == (double)0.9f);
    CHECKF(s.beyond_half == 2, "beyond %llu, want 2 (0.8, 0.9; 0.5 is not beyond)", (unsigned long long)s.beyond_half);

    /* a constant window: no peaks, sd 0 */
    float flat[9 * 9];
    for (int i = 0; i < 81; i++)
        flat[i] = 0.25f;
    s = summarise(flat, 9, 9, 4);
    CHECK(s.peaks == 0 && s.sd == 0 && s.mean == 0.25 && s.min == 0.25 && s.max == 0.25);

    /* a checkerboard of 1 and -1 on 6 x 6: a 1 has 4 neighbours of -1 and
     * 4 diagonal neighbours of 1: ties, so no peak */
    float cb[36];
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 6; i++)
            cb[j * 6 + i] = (i + j) % 2 ? -1.0f : 1.0f;
    s = summarise(cb, 6, 6, 2);
    CHECK(s.peaks == 0);
    CHECK(s.mean == 0 && s.sd == 1);
    CHECK(s.hist[0] == 18 && s.hist[1] == 18);

    /* one row or two: no sample has 8 neighbours */
    const float line[] = {0, 1, 0, 1, 0, 1};
    CHECK(summarise(line, 6, 1, 4).peaks == 0);
    CHECK(summarise(line, 3, 2, 4).peaks == 0);
    /* 3 x 3 with the maximum in the centre: exactly one */
    const float c3[] = {0, 0, 0, 0, 0.5f, 0, 0, 0, 0};
    CHECK(summarise(c3, 3, 3, 4).peaks == 1);
}

/* Bin k holds [-1 + k*w, -1 + (k+1)*w); 1 goes into the last bin. */
static void test_histogram_edges(void)
{
    const float v[] = {-1.0f, -0.5f, -0.25f, 0.0f, 0.49f, 0.5f, 0.999f, 1.0f};
    stats_summary s = summarise(v, 8, 1, 4);
    CHECK(s.n_bins == 4);
    CHECKF(s.hist[0] == 1 && s.hist[1] == 2 && s.hist[2] == 2 && s.hist[3] == 3,
           "bins %llu %llu %llu %llu, want 1 2 2 3", (unsigned long long)s.hist[0],
           (unsigned long long)s.hist[1], (unsigned long long)s.hist[2], (unsigned long long)s.hist[3]);
    s = summarise(v, 8, 1, 1);
    CHECK(s.hist[0] == 8);
    s = summarise(v, 8, 1, STATS_MAX_BINS);
    CHECK(s.hist[0] == 1 && s.hist[STATS_MAX_BINS - 1] == 2 && s.hist[STATS_MAX_BINS / 2] == 1);
    uint64_t total = 0;
    for (int k = 0; k < STATS_MAX_BINS; k++)
        total += s.hist[k];
    CHECK(total == 8);
}

/* The Islands window of one seed: the same samples as the grid endpoint. */
enum { ISL_W = 641 };
static const double ISL_STEP = 1.0 / 16;

/* The plain computation over the whole grid in memory, for comparison. */
static void whole_grid(const noise_spec *spec, stats_summary *out)
{
    float *v = malloc(sizeof(float) * ISL_W * ISL_W);
    noise_eval_grid(spec, 0, 0, ISL_STEP, ISL_W, ISL_W, v, NULL);
    memset(out, 0, sizeof *out);
    out->min = 1e9;
    out->max = -1e9;
    double sum = 0, sum2 = 0;
    for (int k = 0; k < ISL_W * ISL_W; k++) {
        double x = v[k];
        out->min = fmin(out->min, x);
        out->max = fmax(out->max, x);
        sum += x;
        sum2 += x * x;
        out->beyond_half += fabs(x) > 0.5;
    }
    for (int j = 1; j < ISL_W - 1; j++)
        for (int i = 1; i < ISL_W - 1; i++) {
            int peak = 1;
            for (int dj = -1; dj <= 1; dj++)
                for (int di = -1; di <= 1; di++)
                    if ((di || dj) && !(v[j * ISL_W + i] > v[(j + dj) * ISL_W + i + di]))
                        peak = 0;
            out->peaks += (uint64_t)peak;
        }
    out->count = (uint64_t)ISL_W * ISL_W;
    out->mean = sum / (double)out->count;
    out->sd = sqrt(sum2 / (double)out->count - out->mean * out->mean);
    free(v);
}

typedef struct {
    double min, max, sd, beyond_pct;
    uint64_t peaks;
} pooled;

/* Seeds 0-3 pooled: counts add, the variance comes from each seed's count,
 * mean and sd (as a client of /stats would pool four answers). */
static pooled islands(noise_kind kind)
{
    pooled p = {1e9, -1e9, 0, 0, 0};
    double n = 0, sum = 0, sum2 = 0, beyond = 0;
    for (uint32_t seed = 0; seed < 4; seed++) {
        noise_spec spec;
        noise_spec_default(&spec, kind, seed);
        stats_summary s, ref;
        int rc = stats_field(&spec, 0, 0, ISL_STEP, ISL_W, ISL_W, STATS_DEFAULT_BINS, NULL, NULL, &s);
        CHECK(rc == 0);
        whole_grid(&spec, &ref);
        CHECKF(s.count == ref.count && s.min == ref.min && s.max == ref.max && s.peaks == ref.peaks &&
                   s.beyond_half == ref.beyond_half,
               "%s seed %u: streamed and whole-grid figures differ", noise_kind_name(kind), seed);
        CHECKF(fabs(s.mean - ref.mean) < 1e-12 && fabs(s.sd - ref.sd) < 1e-12, "%s seed %u: mean/sd %.17g/%.17g vs %.17g/%.17g",
               noise_kind_name(kind), seed, s.mean, s.sd, ref.mean, ref.sd);
        uint64_t total = 0;
        for (int k = 0; k < s.n_bins; k++)
            total += s.hist[k];
        CHECK(total == s.count);
        p.min = fmin(p.min, s.min);
        p.max = fmax(p.max, s.max);
        p.peaks += s.peaks;
        double c = (double)s.count;
        n += c;
        sum += s.mean * c;
        sum2 += (s.sd * s.sd + s.mean * s.mean) * c;
        beyond += (double)s.beyond_half;
    }
    double mean = sum / n;
    p.sd = sqrt(sum2 / n - mean * mean);
    p.beyond_pct = 100 * beyond / n;
    return p;
}

/* The Islands page's table, as printed there (rounded as it rounds):
 * Perlin sd 0.33 against 0.46 for value noise, 13 % against 32 % beyond
 * +-0.5, 3761 against 1210 peaks, Perlin's range -0.97..0.96. On this
 * window (641 samples a side, both ends of the 40 cells) the peak counts
 * are the page's exactly. */
static void test_islands_table(void)
{
    pooled p = islands(NOISE_PERLIN), v = islands(NOISE_VALUE);
    printf("# perlin: range %.3f..%.3f sd %.4f beyond 0.5 %.2f%% peaks %llu\n", p.min, p.max, p.sd, p.beyond_pct,
           (unsigned long long)p.peaks);
    printf("# value:  range %.3f..%.3f sd %.4f beyond 0.5 %.2f%% peaks %llu\n", v.min, v.max, v.sd, v.beyond_pct,
           (unsigned long long)v.peaks);
    CHECKF(p.peaks == 3761, "perlin peaks %llu (page: 3761)", (unsigned long long)p.peaks);
    CHECKF(v.peaks == 1210, "value peaks %llu (page: 1210)", (unsigned long long)v.peaks);
    CHECKF(round(p.min * 100) == -97 && round(p.max * 100) == 96, "perlin range %f..%f (page: -0.97..0.96)", p.min,
           p.max);
    CHECKF(round(p.sd * 100) == 33, "perlin sd %f (page: 0.33)", p.sd);
    CHECKF(round(v.sd * 100) == 46, "value sd %f (page: 0.46)", v.sd);
    CHECKF(round(p.beyond_pct) == 13, "perlin beyond 0.5: %f%% (page: 13%%)", p.beyond_pct);
    CHECKF(round(v.beyond_pct) == 32, "value beyond 0.5: %f%% (page: 32%%)", v.beyond_pct);
}

static int stop_after(void *ctx)
{
    int *left = ctx;
    return (*left)-- > 0;
}

static void test_cancel(void)
{
    noise_spec spec;
    noise_spec_default(&spec, NOISE_PERLIN, 1);
    stats_summary s;
    int left = 3;
    CHECK(stats_field(&spec, 0, 0, 0.1, 50, 50, 8, stop_after, &left, &s) == STATS_ECANCELED);
    left = 50;
    CHECK(stats_field(&spec, 0, 0, 0.1, 50, 50, 8, stop_after, &left, &s) == 0 && s.count == 2500);
}

/* Each allocation failing once: STATS_ENOMEM, nothing leaked (ASan). */
static void test_out_of_memory(void)
{
    noise_spec spec;
    noise_spec_default(&spec, NOISE_VALUE, 2);
    stats_summary s;
    long nth = 1;
    for (;; nth++) {
        failalloc_arm(nth);
        int rc = stats_field(&spec, 0, 0, 0.5, 7, 5, 4, NULL, NULL, &s);
        int fired = failalloc_fired();
        failalloc_arm(0);
        if (!fired) {
            CHECK(rc == 0 && s.count == 35);
            break;
        }
        CHECKF(rc == STATS_ENOMEM, "allocation %ld failed, rc %d", nth, rc);
    }
    CHECKF(nth == 4, "stats_field made %ld allocations, want 3 (accumulator, rows, the prepared field)", nth - 1);
}

int main(void)
{
    RUN(test_peaks_by_hand);
    RUN(test_histogram_edges);
    RUN(test_islands_table);
    RUN(test_cancel);
    RUN(test_out_of_memory);
    return t_done();
}
