// bench_fastnoise2.cpp: a C-callable shim over FastNoise2 (C++17), so
// bench_noise.c can fill the same grids with it in the same process. Built
// only when `make bench-noise FASTNOISE2_DIR=...` names a FastNoise2 1.1.1
// source tree (the Makefile builds the library under build/fastnoise2).
//
// Each shape is the node tree closest to one of our fields: frequency 1 (a
// feature scale of 1), simplex at frequency 1/sqrt(3) (FastNoise2's simplex
// lattice is sqrt(3) times finer than ours), fBm with gain 0.5 and
// lacunarity 2, cellular as euclidean F1 (a different algorithm from ours:
// a fixed 3x3 search of jittered points).
#include <FastNoise/FastNoise.h>

#include <cmath>
#include <new>

#include "bench_fastnoise2.h"

namespace {

struct fn2_gen {
    FastNoise::SmartNode<> node;
};

FastNoise::SmartNode<> base(int shape, FastSIMD::FeatureSet fs)
{
    switch (shape) {
    case BENCH_FN2_PERLIN:
    case BENCH_FN2_FBM_PERLIN: {
        auto n = FastNoise::New<FastNoise::Perlin>(fs);
        if (n)
            n->SetScale(1.0f);
        return n;
    }
    case BENCH_FN2_VALUE: {
        auto n = FastNoise::New<FastNoise::Value>(fs);
        if (n)
            n->SetScale(1.0f);
        return n;
    }
    case BENCH_FN2_SIMPLEX:
    case BENCH_FN2_FBM_SIMPLEX: {
        auto n = FastNoise::New<FastNoise::Simplex>(fs);
        if (n)
            n->SetScale(std::sqrt(3.0f));
        return n;
    }
    case BENCH_FN2_CELLULAR: {
        auto n = FastNoise::New<FastNoise::CellularDistance>(fs);
        if (n) {
            n->SetScale(1.0f);
            n->SetDistanceFunction(FastNoise::DistanceFunction::Euclidean);
            n->SetReturnType(FastNoise::CellularDistance::ReturnType::Index0);
        }
        return n;
    }
    default:
        return {};
    }
}

FastNoise::SmartNode<> fbm(FastNoise::SmartNode<> src, int octaves, FastSIMD::FeatureSet fs)
{
    auto f = FastNoise::New<FastNoise::FractalFBm>(fs);
    if (!f || !src)
        return {};
    f->SetSource(src);
    f->SetOctaveCount(octaves);
    f->SetGain(0.5f);
    f->SetLacunarity(2.0f);
    return f;
}

// simplex at our frequency f: FastNoise2's feature scale sqrt(3) / f
FastNoise::SmartNode<> simplex_at(float f, FastSIMD::FeatureSet fs)
{
    auto n = FastNoise::New<FastNoise::Simplex>(fs);
    if (n)
        n->SetScale(std::sqrt(3.0f) / f);
    return n;
}

// v * k
FastNoise::SmartNode<> times(FastNoise::SmartNode<> v, float k, FastSIMD::FeatureSet fs)
{
    auto m = FastNoise::New<FastNoise::Multiply>(fs);
    if (!m || !v)
        return {};
    m->SetLHS(v);
    m->SetRHS(k);
    return m;
}

// the graphs of bench_graph_cases.h
FastNoise::SmartNode<> graph(int shape, FastSIMD::FeatureSet fs)
{
    if (shape == BENCH_FN2_G_FBM6)
        return fbm(base(BENCH_FN2_PERLIN, fs), 6, fs);
    if (shape == BENCH_FN2_G_CONTINENTS) {
        auto remap = FastNoise::New<FastNoise::Remap>(fs);
        auto ridged = FastNoise::New<FastNoise::FractalRidged>(fs);
        auto mul = FastNoise::New<FastNoise::Multiply>(fs);
        auto continents = fbm(simplex_at(0.25f, fs), 5, fs), perlin = base(BENCH_FN2_PERLIN, fs);
        if (!remap || !ridged || !mul || !continents || !perlin)
            return {};
        remap->SetSource(continents);
        remap->SetFromMin(-1.0f);
        remap->SetFromMax(1.0f);
        remap->SetToMin(0.0f);
        remap->SetToMax(1.0f);
        ridged->SetSource(perlin);
        ridged->SetOctaveCount(4);
        ridged->SetGain(0.5f);
        ridged->SetLacunarity(2.0f);
        mul->SetLHS(remap);
        mul->SetRHS(ridged);
        return mul;
    }
    if (shape == BENCH_FN2_G_WARP) {
        auto off = FastNoise::New<FastNoise::DomainOffset>(fs);
        auto seed1 = FastNoise::New<FastNoise::SeedOffset>(fs);
        auto wx = times(simplex_at(0.5f, fs), 0.5f, fs), perlin = base(BENCH_FN2_PERLIN, fs);
        auto sy = simplex_at(0.5f, fs);
        if (!off || !seed1 || !wx || !perlin || !sy)
            return {};
        seed1->SetSource(sy);
        seed1->SetOffset(1);
        auto wy = times(seed1, 0.5f, fs);
        if (!wy)
            return {};
        off->SetSource(perlin);
        off->SetOffset<FastNoise::Dim::X>(wx);
        off->SetOffset<FastNoise::Dim::Y>(wy);
        return off;
    }
    return {};
}

} // namespace

extern "C" void *bench_fn2_new(int shape, int avx512)
{
    FastSIMD::FeatureSet fs = avx512 ? FastSIMD::FeatureSet::AVX512 : FastSIMD::FeatureSet::AVX2;
    FastNoise::SmartNode<> n;
    if (shape == BENCH_FN2_FBM_PERLIN || shape == BENCH_FN2_FBM_SIMPLEX)
        n = fbm(base(shape, fs), 6, fs);
    else if (shape >= BENCH_FN2_G_FBM6)
        n = graph(shape, fs);
    else
        n = base(shape, fs);
    if (!n || n->GetActiveFeatureSet() != fs)
        return nullptr; // this CPU cannot run that path
    return new (std::nothrow) fn2_gen{ n };
}

extern "C" void bench_fn2_fill(void *g, double x0, double y0, double step, int width, int height, float *out)
{
    // one seed for every shape; positions are x0 + i * step, as ours
    static_cast<fn2_gen *>(g)->node->GenUniformGrid2D(out, (float)x0, (float)y0, width, height, (float)step,
                                                      (float)step, 1);
}

extern "C" void bench_fn2_free(void *g)
{
    delete static_cast<fn2_gen *>(g);
}
