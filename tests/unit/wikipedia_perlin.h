/* wikipedia_perlin.h: the article's perlin(x, y), one per interpolation
 * (tests/unit/wikipedia_perlin.c). */
#ifndef WIKIPEDIA_PERLIN_H
#define WIKIPEDIA_PERLIN_H

float wikipedia_perlin_linear(float x, float y);
float wikipedia_perlin_cubic(float x, float y);
float wikipedia_perlin_quintic(float x, float y);

#endif
