// bench_noise_libnoise.cpp: a C-callable shim over libnoise's Perlin module
// (Debian libnoise-dev, C++), so bench_noise.c can fill the same tile with it.
#include <libnoise/noise.h>

extern "C" void bench_libnoise_perlin_fill(double x0, double y0, double step, int width, int height,
                                           float *out_values)
{
    noise::module::Perlin perlin;
    perlin.SetOctaveCount(1);
    perlin.SetFrequency(1.0);
    for (int j = 0; j < height; j++) {
        double y = y0 + j * step;
        for (int i = 0; i < width; i++)
            out_values[j * width + i] = (float)perlin.GetValue(x0 + i * step, y, 0.0);
    }
}
