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

} // namespace

extern "C" void *bench_fn2_new(int shape, int avx512)
{
    FastSIMD::FeatureSet fs = avx512 ? FastSIMD::FeatureSet::AVX512 : FastSIMD::FeatureSet::AVX2;
    FastNoise::SmartNode<> n;
    if (shape == BENCH_FN2_FBM_PERLIN || shape == BENCH_FN2_FBM_SIMPLEX)
        n = fbm(base(shape, fs), 6, fs);
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
