/* cli.h: command-line pieces `noisetile export` and `noisetile merge`
 * share: option values in both spellings, usage errors. */
#ifndef EXPORT_CLI_H
#define EXPORT_CLI_H

/* The value of option name at argv[*i] ("--name=V" or "--name V", moving
 * *i past V), or NULL when argv[*i] is not that option. */
const char *cli_opt_value(int argc, char **argv, int *i, const char *name);

/* Prints "noisetile CMD: " fmt (with what), then usage, to stderr.
 * Returns 2, the exit status of bad usage. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, const char *what);

/* 1 if s is valid UTF-8 (no overlong forms, surrogates or code points
 * past U+10FFFF), else 0. Text an export stores must be. */
int cli_valid_utf8(const char *s);

#endif
