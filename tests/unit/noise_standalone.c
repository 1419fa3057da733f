/* noise_standalone.c: proof that noise/ stands alone (acceptance 8 of issue
 * 2): the Makefile compiles this with every noise/ source, -Inoise only, and
 * links it with -lm only. It evaluates one field and exits 0 if the value
 * is the expected reference one.
 */
#include "noise.h"

#include <stdio.h>

int main(void)
{
    noise_spec s;
    char err[128];
    const char *names[] = { "t" }, *values[] = { "7" };
    if (noise_spec_parse(&s, NOISE_IMPROVED, 0, 1, names, values, err, sizeof err) != 0) {
        fprintf(stderr, "noise_standalone: %s\n", err);
        return 1;
    }
    double p[2] = { 3.14, 42 };
    double v = noise_eval_point(&s, p, 2, NULL, NULL);
    printf("noise_standalone: improved noise(3.14, 42, 7) = %.17g\n", v);
    return v == 0.13691995878400012 ? 0 : 1;
}
