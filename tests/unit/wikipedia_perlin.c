/* wikipedia_perlin.c: Wikipedia's C perlin(x, y) (tests/unit/wikipedia_perlin.inc)
 * compiled three times, once per interpolation of the article, as
 * wikipedia_perlin_linear, _cubic and _quintic, for
 * tests/unit/test_noise_classic.c: the independent reference of the classic kind.
 *
 * The Makefile builds this file without UBSan's signed-overflow check: as
 * printed, `a *= 3284157443` multiplies in signed long (the constant does
 * not fit an int), which overflows for a >= 2^32 / 1.53, i.e. for every
 * negative cell index; compilers do the 64-bit multiply and keep its low 32
 * bits, which is the 32-bit unsigned product the article means (and what
 * the noise core computes). */
#include "wikipedia_perlin.h"

#define interpolate wikipedia_interpolate_linear
#define vector2 wikipedia_vector2_linear
#define randomGradient wikipedia_gradient_linear
#define dotGridGradient wikipedia_dot_linear
#define perlin wikipedia_perlin_linear
#define WIKIPEDIA_FADE 0
#include "wikipedia_perlin.inc"
#undef interpolate
#undef vector2
#undef randomGradient
#undef dotGridGradient
#undef perlin
#undef WIKIPEDIA_FADE

#define interpolate wikipedia_interpolate_cubic
#define vector2 wikipedia_vector2_cubic
#define randomGradient wikipedia_gradient_cubic
#define dotGridGradient wikipedia_dot_cubic
#define perlin wikipedia_perlin_cubic
#define WIKIPEDIA_FADE 1
#include "wikipedia_perlin.inc"
#undef interpolate
#undef vector2
#undef randomGradient
#undef dotGridGradient
#undef perlin
#undef WIKIPEDIA_FADE

#define interpolate wikipedia_interpolate_quintic
#define vector2 wikipedia_vector2_quintic
#define randomGradient wikipedia_gradient_quintic
#define dotGridGradient wikipedia_dot_quintic
#define perlin wikipedia_perlin_quintic
#define WIKIPEDIA_FADE 2
#include "wikipedia_perlin.inc"
