/* config.c: flags and NOISETILE_* variables -> validated daemon settings. */
#include "service/config.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/daemon_limits.h"
#include "service/route.h"

const char *config_usage(void)
{
    return "usage: noisetile [--bind ADDR] [--port N] [--threads N] [--workers N] [--cache-mb N]\n"
           "                 [--static DIR] [--public-url URL] [--access-log off|FILE]\n"
           "                 [--graphs FILE]\n"
           "\n"
           "Serves an infinite plane of procedural noise: PNG tiles, JSON values and\n"
           "gradients, and its viewer at /.\n"
           "\n"
           "  --bind ADDR     numeric IPv4/IPv6 address to listen on (default 127.0.0.1)\n"
           "  --port N        TCP port, 0..65535; 0 picks a free one (default 8080)\n"
           "  --threads N     worker threads, 1..256, 120 connections each\n"
           "                  (default: number of cores, at least 16)\n"
           "  --workers N     render threads, 1..256: tiles, points and batches are\n"
           "                  computed on these, at a lower priority than the\n"
           "                  connection threads (default: number of cores)\n"
           "  --cache-mb N    tile cache budget in MiB, 0..65536 (default 256)\n"
           "  --static DIR    serve the viewer's files from DIR, the built-in copy for\n"
           "                  files DIR lacks (for working on static/)\n"
           "  --public-url URL  the http(s)://host[:port][/prefix] the daemon is reached\n"
           "                  at, for the URLs it writes (tile.json); default: taken\n"
           "                  from Forwarded, X-Forwarded-Proto/-Host or Host\n"
           "  --graphs FILE   named field graphs served at /{name}/{seed}/...: a JSON\n"
           "                  object {name: {\"description\": ..., \"graph\": ...}}\n"
           "                  (docs/graphs.md); a bad file stops the start\n"
           "  --access-log X  off, or a file the access log is appended to\n"
           "                  (default: standard error)\n"
           "  --help          this text\n"
           "\n"
           "Each flag can also be set by NOISETILE_BIND, NOISETILE_PORT, NOISETILE_THREADS,\n"
           "NOISETILE_WORKERS, NOISETILE_CACHE_MB, NOISETILE_STATIC, NOISETILE_PUBLIC_URL,\n"
           "NOISETILE_ACCESS_LOG, NOISETILE_GRAPHS; flags override the environment. SIGHUP reopens the\n"
           "access log file (for log rotation; nothing to do for standard error).\n"
           "\n"
           "noisetile export ... renders a field's tiles into MBTiles, PMTiles or a\n"
           "directory; noisetile merge ... joins shard exports (--help for each).\n";
}

/* A whole-number flag in lo..hi, written without a minus sign ("-0" is
 * refused), into *n; or -1 with
 * msg "NAME must be an integer in LO..HI, got 'V'". */
static int parse_count(const char *name, const char *v, int64_t lo, int64_t hi, int64_t *n,
                       char *msg, size_t msg_size)
{
    if (route_parse_int(v, strlen(v), lo, hi, n) != 0 || v[0] == '-') {
        snprintf(msg, msg_size, "%s must be an integer in %lld..%lld, got '%s'", name,
                 (long long)lo, (long long)hi, v);
        return -1;
    }
    return 0;
}

static int set_value(config *cfg, const char *name, const char *v, char *msg, size_t msg_size)
{
    int64_t n;
    if (strcmp(name, "bind") == 0) {
        unsigned char buf[16];
        if (strlen(v) >= sizeof cfg->bind ||
            (inet_pton(AF_INET, v, buf) != 1 && inet_pton(AF_INET6, v, buf) != 1)) {
            snprintf(msg, msg_size, "bind must be a numeric IPv4 or IPv6 address, got '%s'", v);
            return -1;
        }
        snprintf(cfg->bind, sizeof cfg->bind, "%s", v);
    } else if (strcmp(name, "port") == 0) {
        if (parse_count(name, v, 0, 65535, &n, msg, msg_size) != 0)
            return -1;
        cfg->port = (int)n;
    } else if (strcmp(name, "threads") == 0) {
        if (parse_count(name, v, 1, LIMIT_MAX_THREADS, &n, msg, msg_size) != 0)
            return -1;
        cfg->threads = (int)n;
    } else if (strcmp(name, "workers") == 0) {
        if (parse_count(name, v, 1, LIMIT_MAX_THREADS, &n, msg, msg_size) != 0)
            return -1;
        cfg->workers = (int)n;
    } else if (strcmp(name, "access-log") == 0) {
        /* The file itself is opened (and created) at start-up. */
        if (v[0] == '\0' || strlen(v) >= sizeof cfg->access_log) {
            snprintf(msg, msg_size, "access-log must be off or a file name, got '%s'", v);
            return -1;
        }
        snprintf(cfg->access_log, sizeof cfg->access_log, "%s", v);
    } else if (strcmp(name, "cache-mb") == 0) {
        if (parse_count(name, v, 0, LIMIT_MAX_CACHE_MB, &n, msg, msg_size) != 0)
            return -1;
        cfg->cache_mb = (size_t)n;
    } else if (strcmp(name, "static") == 0) {
        char real[PATH_MAX];
        struct stat st;
        if (v[0] == '\0' || realpath(v, real) == NULL || stat(real, &st) != 0 ||
            !S_ISDIR(st.st_mode) || strlen(real) >= sizeof cfg->static_dir) {
            snprintf(msg, msg_size, "static must be an existing directory, got '%s'", v);
            return -1;
        }
        snprintf(cfg->static_dir, sizeof cfg->static_dir, "%s", real);
    } else if (strcmp(name, "graphs") == 0) {
        if (v[0] == '\0' || strlen(v) >= sizeof cfg->graphs_file) {
            snprintf(msg, msg_size, "graphs must be a file name, got '%.200s'", v);
            return -1;
        }
        snprintf(cfg->graphs_file, sizeof cfg->graphs_file, "%s", v);
    } else if (strcmp(name, "public-url") == 0) {
        size_t len = strlen(v);
        int ok = (strncmp(v, "http://", 7) == 0 && len > 7) ||
                 (strncmp(v, "https://", 8) == 0 && len > 8);
        for (size_t i = 0; ok && i < len; i++)
            ok = v[i] > 0x20 && v[i] < 0x7f && strchr("?#\"<>\\^`{|}", v[i]) == NULL;
        while (ok && len > 0 && v[len - 1] == '/')
            len--;
        size_t scheme = strncmp(v, "https", 5) == 0 ? 8 : 7;
        if (!ok || len >= sizeof cfg->public_url || len <= scheme || v[len - 1] == ':' ||
            v[scheme] == '/') {
            snprintf(msg, msg_size,
                     "public-url must be http://host[:port][/prefix] or https://..., without "
                     "query or fragment, got '%.200s'", v);
            return -1;
        }
        snprintf(cfg->public_url, sizeof cfg->public_url, "%.*s", (int)len, v);
    } else {
        snprintf(msg, msg_size, "unknown option '--%s' (see --help)", name);
        return -1;
    }
    return 0;
}

int config_parse(config *cfg, int argc, char **argv, const char *(*env_get)(const char *),
                 char *msg, size_t msg_size)
{
    static const char *const names[] = {"bind",   "port",       "threads",   "workers", "cache-mb",
                                        "static", "public-url", "access-log", "graphs"};
    static const char *const envs[] = {"NOISETILE_BIND",       "NOISETILE_PORT",
                                       "NOISETILE_THREADS",    "NOISETILE_WORKERS",
                                       "NOISETILE_CACHE_MB",   "NOISETILE_STATIC",
                                       "NOISETILE_PUBLIC_URL", "NOISETILE_ACCESS_LOG",
                                       "NOISETILE_GRAPHS"};
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->bind, sizeof cfg->bind, "127.0.0.1");
    cfg->port = 8080;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cfg->threads = cores < LIMIT_DEFAULT_THREADS_MIN ? LIMIT_DEFAULT_THREADS_MIN
                   : cores > LIMIT_MAX_THREADS       ? LIMIT_MAX_THREADS
                                                     : (int)cores;
    cfg->cache_mb = 256;
    cfg->workers = cores < 1 ? 1 : cores > LIMIT_MAX_THREADS ? LIMIT_MAX_THREADS : (int)cores;

    for (size_t i = 0; env_get != NULL && i < sizeof names / sizeof names[0]; i++) {
        const char *v = env_get(envs[i]);
        if (v == NULL)
            continue;
        if (set_value(cfg, names[i], v, msg, msg_size) != 0) {
            size_t l = strlen(msg);
            snprintf(msg + l, msg_size - l, " (from %s)", envs[i]);
            return -1;
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            snprintf(msg, msg_size, "%s", config_usage());
            return 1;
        }
        if (strncmp(a, "--", 2) != 0) {
            snprintf(msg, msg_size, "unexpected argument '%s' (see --help)", a);
            return -1;
        }
        char name[32];
        const char *eq = strchr(a, '=');
        const char *v;
        size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (nl >= sizeof name) {
            snprintf(msg, msg_size, "unknown option '%s' (see --help)", a);
            return -1;
        }
        memcpy(name, a + 2, nl);
        name[nl] = '\0';
        if (eq) {
            v = eq + 1;
        } else {
            if (i + 1 >= argc) {
                snprintf(msg, msg_size, "option '--%s' needs a value (see --help)", name);
                return -1;
            }
            v = argv[++i];
        }
        if (set_value(cfg, name, v, msg, msg_size) != 0)
            return -1;
    }
    return 0;
}
