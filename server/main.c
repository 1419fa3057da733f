/* main.c: the noisetile daemon: settings, start, the listening line, a
 * graceful stop on SIGINT/SIGTERM, and SIGHUP for the access log. */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/config.h"
#include "base/daemon_limits.h"
#include "export/export.h"
#include "net/http.h"

static const char *env_get(const char *name) { return getenv(name); }

int main(int argc, char **argv)
{
    /* Subcommands: pre-rendered tile sets (export.h). */
    if (argc > 1 && strcmp(argv[1], "export") == 0)
        return export_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return export_merge_main(argc - 1, argv + 1);

    config cfg;
    char msg[2048];
    int rc = config_parse(&cfg, argc, argv, env_get, msg, sizeof msg);
    if (rc == 1) {
        fputs(msg, stdout);
        return 0;
    }
    if (rc != 0) {
        fprintf(stderr, "noisetile: %s\n", msg);
        return 2;
    }

    /* Blocks of 64 KiB and more (request bodies, batch arrays and answers)
     * come straight from mmap and go back to the system when freed: a burst
     * of large batches leaves no heap behind (BENCHMARKS.md, "Render pool").
     * Fixing the threshold also stops glibc from raising it after the first
     * such free, which would send later blocks to the heap. A tile's working
     * arrays are the exception: each render thread keeps its own between
     * tiles (scratch.h), since fresh pages per tile cost more than the
     * noise. */
    mallopt(M_MMAP_THRESHOLD, 64 * 1024);

    /* Block the stop signals and SIGHUP before any thread starts, so every
     * worker inherits the mask and only sigwait() below receives them.
     * SIGPIPE is ignored: a client closing mid-response is not a reason to
     * die. SIGHUP (log rotation's signal) reopens the --access-log file
     * (nothing to do for standard error), and never stops the daemon. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    http_global_init();
    http_server *srv = http_start(&cfg, msg, sizeof msg);
    if (srv == NULL) {
        fprintf(stderr, "noisetile: %s\n", msg);
        return 1;
    }
    /* The limits first: whoever waits for the listening line has them. */
    char limits[256];
    fdlimits_describe(http_limits(srv), limits, sizeof limits);
    printf("noisetile: %s\n", limits);
    printf("noisetile: HTTP by %s\n", http_library());
    if (strchr(cfg.bind, ':') != NULL)
        printf("noisetile listening on http://[%s]:%u/\n", cfg.bind, http_port(srv));
    else
        printf("noisetile listening on http://%s:%u/\n", cfg.bind, http_port(srv));
    fflush(stdout);

    int sig = 0;
    while (sigwait(&stop, &sig) == 0 && sig == SIGHUP)
        http_reopen_log(srv);
    fprintf(stderr, "noisetile: %s, finishing requests in flight\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM");
    http_stop(srv, LIMIT_DRAIN_MS);
    http_global_shutdown();
    fprintf(stderr, "noisetile: stopped\n");
    return 0;
}
