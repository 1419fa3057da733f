/* point.c: the noise core without the daemon: the field the README asks
 * GET /perlin/7/point?x=1.5&y=-2.25&octaves=4 for, evaluated by the
 * installed library, printed as the daemon prints numbers (shortest form
 * that parses back to the same double), so the two answers compare
 * character for character.
 *
 * Build against an installed copy (make install):
 *   cc point.c $(pkg-config --cflags --libs noisetile) -o point
 */
#include <noisetile/noise.h>

#include <stdio.h>

static void print_number(const char *before, double v)
{
    char buf[32];
    noise_format_double(v, buf, sizeof buf);
    printf("%s%s", before, buf);
}

int main(void)
{
    /* perlin, seed 7, octaves=4, the other parameters at their defaults,
     * through the same validating parser the daemon uses */
    const char *names[] = { "octaves" }, *values[] = { "4" };
    noise_spec spec;
    char err[160];
    if (noise_spec_parse(&spec, NOISE_PERLIN, 7, 1, names, values, err, sizeof err) != 0) {
        fprintf(stderr, "point: %s\n", err);
        return 1;
    }
    /* prepared once, evaluated as often as wanted (and by any thread) */
    noise_field *field = noise_field_create(&spec);
    if (field == NULL) {
        fprintf(stderr, "point: out of memory\n");
        return 1;
    }
    double p[2] = { 1.5, -2.25 }, grad[3];
    int n_grad = 0;
    double value = noise_field_point(field, p, 2, grad, &n_grad);
    printf("perlin 7 octaves=4 at (1.5, -2.25):");
    print_number(" value ", value);
    print_number(" gradient ", grad[0]);
    for (int c = 1; c < n_grad; c++)
        print_number(" ", grad[c]);
    printf("\nNOISE_VERSION %d, %s path\n", NOISE_VERSION, noise_simd_name(noise_simd_active()));
    noise_field_destroy(field);
    return 0;
}
