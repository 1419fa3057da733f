/* cli.c: option values and usage errors of the export commands (see
 * cli.h). */
#include "export/cli.h"

#include <stdio.h>
#include <string.h>

const char *cli_opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (strcmp(argv[*i], name) == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, const char *what)
{
    fprintf(stderr, "noisetile %s: ", cmd);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n%s", usage);
    return 2;
}
