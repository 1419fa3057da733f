/* test_export_plan.c: unit tests of the export's plan (server/export/plan.c):
 * the streamed order (plan_iter) is, for regions across the plane's origin
 * and zoom ranges, exactly the ids of every zoom's tiles sorted (the order
 * the PMTiles tile id gives), from any start position; shards split it into
 * consecutive stretches; the counts are the rectangle's. */
#include "export/plan.h"
#include "export/pmtiles.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The plan of perlin/1 over the region at plane zooms zmin..zmax. */
static void make_plan(plan *p, double x0, double y0, double x1, double y1, int zmin, int zmax)
{
    char err[256];
    memset(p, 0, sizeof *p);
    p->scale = 1;
    CHECK(plan_parse_field("perlin/1", p, err, sizeof err) == 0);
    p->x0 = x0;
    p->y0 = y0;
    p->x1 = x1;
    p->y1 = y1;
    p->zmin = zmin;
    p->zmax = zmax;
    CHECK(plan_mapping(p, err, sizeof err) == 0);
    plan_set_shard(p, 0, 1);
}

/* Every id of the plan by brute force: each zoom's rectangle, sorted. */
static uint64_t *reference(const plan *p, uint64_t *n)
{
    uint64_t total = plan_count(p), m = 0;
    uint64_t *ids = malloc(total * sizeof *ids);
    for (int pz = p->zmin; pz <= p->zmax; pz++) {
        double t = RENDER_WORLD_SIZE / ldexp(1.0, pz);
        int64_t ax = (int64_t)floor(p->x0 / t), bx = (int64_t)ceil(p->x1 / t) - 1;
        int64_t ay = (int64_t)floor(p->y0 / t), by = (int64_t)ceil(p->y1 / t) - 1;
        int64_t offx = p->ox * ((int64_t)1 << pz), offy = p->oy * ((int64_t)1 << pz);
        uint64_t first = m;
        for (int64_t y = ay; y <= by; y++)
            for (int64_t x = ax; x <= bx; x++)
                ids[m++] = pmtiles_tile_id(pz + p->k, (uint32_t)(x - offx), (uint32_t)(y - offy));
        qsort(ids + first, m - first, sizeof *ids, cmp);
    }
    CHECK(m == total);
    *n = m;
    return ids;
}

static void test_order_is_sorted_ids_per_zoom(void)
{
    srand(7);
    for (int round = 0; round < 60; round++) {
        double x0 = (rand() % 400 - 200) / 7.0, y0 = (rand() % 400 - 200) / 7.0;
        double x1 = x0 + 0.1 + (rand() % 300) / 9.0, y1 = y0 + 0.1 + (rand() % 300) / 9.0;
        int zmin = rand() % 4, zmax = zmin + rand() % 4;
        plan p;
        make_plan(&p, x0, y0, x1, y1, zmin, zmax);
        uint64_t n, *want = reference(&p, &n), got_n = 0, id;
        plan_iter it;
        plan_iter_start(&it, &p, 0, n);
        while (plan_iter_next(&it, &id)) {
            CHECKF(got_n < n && id == want[got_n], "round %d: position %llu: %llu, want %llu", round,
                   (unsigned long long)got_n, (unsigned long long)id,
                   (unsigned long long)(got_n < n ? want[got_n] : 0));
            got_n++;
        }
        CHECKF(got_n == n, "round %d: %llu ids, want %llu", round, (unsigned long long)got_n,
               (unsigned long long)n);
        /* From any start position, to any end. */
        for (int s = 0; s < 20 && n > 0; s++) {
            uint64_t from = (uint64_t)rand() % n, to = from + (uint64_t)rand() % (n - from + 1), k = from;
            plan_iter_start(&it, &p, from, to);
            while (plan_iter_next(&it, &id)) {
                CHECK(k < to && id == want[k]);
                k++;
            }
            CHECK(k == to);
        }
        free(want);
    }
}

static void test_shards_are_consecutive_stretches(void)
{
    plan p;
    make_plan(&p, -10, -3, 5, 9, 0, 3);
    CHECK(plan_count(&p) == 89);
    uint64_t n, *want = reference(&p, &n), k = 0, id;
    for (int s = 0; s < 3; s++) {
        plan_set_shard(&p, s, 3);
        CHECK(p.from == k);
        plan_iter it;
        plan_iter_start(&it, &p, p.from, p.to);
        while (plan_iter_next(&it, &id))
            CHECK(id == want[k++]);
    }
    CHECK(k == 89);
    /* More shards than tiles: some are empty. */
    plan_set_shard(&p, 0, 100);
    CHECK(p.from == 0 && p.to == 0);
    free(want);
}

static void test_counts_of_huge_pyramids_are_arithmetic(void)
{
    plan p;
    make_plan(&p, 0, 0, RENDER_WORLD_SIZE, RENDER_WORLD_SIZE, 0, 16);
    CHECK(plan_count(&p) == 5726623061ULL); /* (4^17 - 1) / 3 */
    plan_iter it;
    uint64_t id;
    /* The last tile of zoom 16, reached without listing the others. */
    plan_iter_start(&it, &p, plan_count(&p) - 1, plan_count(&p));
    CHECK(plan_iter_next(&it, &id) && id == pmtiles_tile_id(17, 0, 0) - 1);
    CHECK(!plan_iter_next(&it, &id));
}

int main(void)
{
    RUN(test_order_is_sorted_ids_per_zoom);
    RUN(test_shards_are_consecutive_stretches);
    RUN(test_counts_of_huge_pyramids_are_arithmetic);
    return t_done();
}
