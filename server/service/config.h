/* config.h: the daemon's settings from command-line flags and NOISETILE_*
 * environment variables (flags win), validated. */
#ifndef CONFIG_H
#define CONFIG_H

#include <stddef.h>

typedef struct {
    char bind[64];          /* numeric IPv4 or IPv6 address */
    int port;               /* 0..65535; 0 picks a free port */
    int threads;            /* 1..LIMIT_MAX_THREADS */
    size_t cache_mb;        /* 0..LIMIT_MAX_CACHE_MB */
    char static_dir[4096];  /* resolved absolute path, "" when not serving files */
    int workers;            /* render pool threads, 1..LIMIT_MAX_THREADS; default: cores */
    char access_log[4096];  /* "" standard error, "off", or a file appended to */
    char graphs_file[4096]; /* --graphs FILE: named graphs loaded at start-up; "" none */
    char public_url[512];   /* scheme://authority[/prefix] of the URLs the daemon
                               writes, no trailing '/'; "" to derive it from
                               the request's headers */
} config;

/* Fills *cfg from the environment (env_get, usually getenv; NULL means no
 * environment) and then argv[1..argc). Returns 0 on success, 1 if --help was
 * asked (usage is then in msg), or -1 with a message in msg naming the bad
 * flag or variable and its accepted values. */
int config_parse(config *cfg, int argc, char **argv, const char *(*env_get)(const char *),
                 char *msg, size_t msg_size);

/* The --help text. */
const char *config_usage(void);

#endif
