/* test_cost.c: the work estimate of a request and the per-request limit
 * (server/service/cost.c): the documented product of factors, and a refusal that
 * names the cost, the limit and what to lower. */
#include "service/cost.h"
#include "test.h"

#include <string.h>

static noise_spec spec_with(int octaves, double warp, int has_t)
{
    noise_spec s;
    noise_spec_default(&s, NOISE_SIMPLEX, 7);
    s.octaves = octaves;
    s.warp = warp;
    s.has_t = has_t;
    return s;
}

static void test_estimate_is_the_documented_product(void)
{
    noise_spec s = spec_with(1, 0, 0);
    CHECK(cost_estimate(&s, 256 * 256, 0) == 65536);
    s = spec_with(5, 0, 0);
    CHECK(cost_estimate(&s, 256 * 256, 0) == 5 * 65536);
    CHECK(cost_estimate(&s, 256 * 256, 1) == 2 * 5 * 65536);
    s = spec_with(5, 0.5, 0);
    CHECK(cost_estimate(&s, 256 * 256, 1) == 3 * 2 * 5 * 65536);
    s = spec_with(16, 1e6, 1);
    CHECK(cost_estimate(&s, 512 * 512, 1) == 4ULL * 3 * 2 * 16 * 512 * 512);
    CHECK(cost_estimate(&s, 0, 0) == 1); /* never 0 */
}

static void test_limit_names_cost_limit_and_what_to_lower(void)
{
    char err[512] = "";
    noise_spec s = spec_with(16, 0.5, 1);
    /* The costliest tile: 512^2 x 16 x 3 x 2 x 4 = 100.7M, refused. */
    CHECK(cost_check(&s, 512 * 512, 1, COST_REQUEST_LIMIT, "ask for @1x", err, sizeof err) == -1);
    CHECKF(strstr(err, "100.7M") != NULL, "%s", err);
    CHECKF(strstr(err, "50.0M") != NULL, "%s", err);
    CHECKF(strstr(err, "octaves (now 16)") && strstr(err, "warp") && strstr(err, "leave out t") &&
               strstr(err, "ask for @1x"),
           "%s", err);
    /* The same tile at @1x, or without t, fits. */
    CHECK(cost_check(&s, 256 * 256, 1, COST_REQUEST_LIMIT, NULL, err, sizeof err) == 0);
    s.has_t = 0;
    CHECK(cost_check(&s, 512 * 512, 1, COST_REQUEST_LIMIT, NULL, err, sizeof err) == 0);
    /* Only what is above its minimum is suggested. */
    s = spec_with(1, 0, 0);
    CHECK(cost_check(&s, 60000000, 0, COST_REQUEST_LIMIT, "send fewer points", err, sizeof err) == -1);
    CHECKF(strstr(err, "octaves (now") == NULL && strstr(err, "warp (") == NULL &&
               strstr(err, "send fewer points") != NULL,
           "%s", err);
    /* The limit itself passes. */
    CHECK(cost_check(&s, COST_REQUEST_LIMIT, 0, COST_REQUEST_LIMIT, NULL, err, sizeof err) == 0);
    CHECK(cost_check(&s, COST_REQUEST_LIMIT + 1, 0, COST_REQUEST_LIMIT, NULL, err, sizeof err) == -1);
}

int main(void)
{
    RUN(test_estimate_is_the_documented_product);
    RUN(test_limit_names_cost_limit_and_what_to_lower);
    return t_done();
}
