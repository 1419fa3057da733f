/* cli.c: option values and usage errors of the export commands (see
 * cli.h). */
#include "export/cli.h"

#include <stdint.h>
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

int cli_valid_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t c = *p;
        int more = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
        if (more < 0)
            return 0;
        c = more == 0 ? c : more == 1 ? c & 0x1F : more == 2 ? c & 0x0F : c & 0x07;
        p++;
        for (int i = 0; i < more; i++, p++) {
            if ((*p & 0xC0) != 0x80)
                return 0;
            c = c << 6 | (*p & 0x3F);
        }
        /* Overlong forms, UTF-16 surrogates, past U+10FFFF. */
        if ((more == 1 && c < 0x80) || (more == 2 && c < 0x800) || (more == 3 && c < 0x10000) ||
            (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
            return 0;
    }
    return 1;
}
