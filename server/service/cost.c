/* cost.c: the estimated work of a request and the per-request limit (see
 * cost.h). */
#include "service/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

uint64_t cost_estimate(const noise_spec *spec, uint64_t samples, int gradients)
{
    uint64_t c = samples * (uint64_t)(spec->octaves > 0 ? spec->octaves : 1);
    if (spec->warp > 0)
        c *= COST_WARP_FACTOR;
    if (gradients)
        c *= COST_GRADIENT_FACTOR;
    if (spec->has_t)
        c *= COST_3D_FACTOR;
    return c > 0 ? c : 1;
}

/* "100.7M" */
static void millions(uint64_t v, char *buf, size_t buf_size)
{
    snprintf(buf, buf_size, "%.1fM", (double)v / 1e6);
}

int cost_check(const noise_spec *spec, uint64_t samples, int gradients, uint64_t limit,
               const char *lower_hint, char *err, size_t err_size)
{
    uint64_t c = cost_estimate(spec, samples, gradients);
    if (c <= limit)
        return 0;
    char cost[32], limit_text[32], lower[200] = "";
    millions(c, cost, sizeof cost);
    millions(limit, limit_text, sizeof limit_text);
    size_t n = 0;
#define ADD(...) \
    n += (size_t)snprintf(lower + n, n < sizeof lower ? sizeof lower - n : 0, __VA_ARGS__)
    if (spec->octaves > 1)
        ADD("%soctaves (now %d)", n ? ", " : "", spec->octaves);
    if (spec->warp > 0)
        ADD("%swarp (0 is 3x cheaper)", n ? ", " : "");
    if (spec->has_t)
        ADD("%sleave out t (2D is 4x cheaper)", n ? ", " : "");
    if (lower_hint != NULL && n < sizeof lower)
        ADD("%s%s", n ? ", " : "", lower_hint);
#undef ADD
    snprintf(err, err_size,
             "estimated work %s units (%llu samples x %d octaves x warp %d x gradients %d x t %d) "
             "is over the limit of %s units per request; lower: %s",
             cost, (unsigned long long)samples, spec->octaves,
             spec->warp > 0 ? COST_WARP_FACTOR : 1, gradients ? COST_GRADIENT_FACTOR : 1,
             spec->has_t ? COST_3D_FACTOR : 1, limit_text, n ? lower : "the request's size");
    return -1;
}

double cost_source(const noise_spec *spec, int gradients, void *ctx)
{
    (void)ctx;
    return (double)cost_estimate(spec, 1, gradients);
}

uint64_t cost_graph(double per_sample, uint64_t samples)
{
    double c = ceil(per_sample * (double)samples);
    if (!(c >= 1))
        return 1;
    return c >= 1.8e19 ? UINT64_MAX : (uint64_t)c;
}

int cost_check_graph(double per_sample, uint64_t samples, int gradients, uint64_t limit,
                     const char *dominant, const char *lower_hint, char *err, size_t err_size)
{
    uint64_t c = cost_graph(per_sample, samples);
    if (c <= limit)
        return 0;
    char cost[32], limit_text[32];
    millions(c, cost, sizeof cost);
    millions(limit, limit_text, sizeof limit_text);
    snprintf(err, err_size,
             "estimated work %s units (%llu samples x %.6g units per sample%s) is over the limit "
             "of %s units per request; the node at %s costs most; lower: its octaves or "
             "sub-graphs%s%s",
             cost, (unsigned long long)samples, per_sample, gradients ? " with gradients" : "",
             limit_text, dominant != NULL && dominant[0] != '\0' ? dominant : "/ (the root)",
             lower_hint != NULL ? ", " : ", or the request's size",
             lower_hint != NULL ? lower_hint : "");
    return -1;
}
