/* progress.c: progress bar and plain progress lines (see progress.h). */
#include "export/progress.h"

#include "base/monotime.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BAR_WIDTH 30
#define BAR_INTERVAL 0.1

struct progress {
    FILE *out;
    int bar;
    double plain_seconds;
    uint64_t total, first_done;
    int started;
    double t0, last;
    char label[64];
};

progress *progress_create(FILE *out, int bar, double plain_seconds, uint64_t total,
                          const char *label)
{
    progress *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->out = out;
    p->bar = bar;
    p->plain_seconds = plain_seconds > 0 ? plain_seconds : 5;
    p->total = total;
    p->t0 = p->last = monotime_s();
    snprintf(p->label, sizeof p->label, "%s", label ? label : "progress");
    return p;
}

void progress_destroy(progress *p) { free(p); }

void progress_format_bytes(double b, char *buf, size_t n)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    snprintf(buf, n, u == 0 ? "%.0f %s" : "%.1f %s", b, unit[u]);
}

void progress_format_seconds(double s, char *buf, size_t n)
{
    if (s < 0 || s != s)
        snprintf(buf, n, "?");
    else if (s < 60)
        snprintf(buf, n, "%.0f s", s);
    else if (s < 3600)
        snprintf(buf, n, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, n, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
}

static void report(progress *p, uint64_t done, uint64_t bytes, int final)
{
    double t = monotime_s(), elapsed = t - p->t0;
    double rate = elapsed > 0 ? (double)(done - p->first_done) / elapsed : 0;
    double pct = p->total ? 100.0 * (double)done / (double)p->total : 100.0;
    char size[32], eta[32];
    progress_format_bytes((double)bytes, size, sizeof size);
    progress_format_seconds(rate > 0 ? (double)(p->total - done) / rate : -1, eta, sizeof eta);
    if (final)
        progress_format_seconds(elapsed, eta, sizeof eta);
    if (p->bar) {
        char bar[BAR_WIDTH + 1];
        int fill = p->total ? (int)((double)BAR_WIDTH * (double)done / (double)p->total) : BAR_WIDTH;
        for (int i = 0; i < BAR_WIDTH; i++)
            bar[i] = i < fill ? '#' : '-';
        bar[BAR_WIDTH] = '\0';
        fprintf(p->out, "\r\033[K[%s] %5.1f%% %llu/%llu tiles %.0f tiles/s %s %s %s%s", bar, pct,
                (unsigned long long)done, (unsigned long long)p->total, rate, size,
                final ? "in" : "ETA", eta, final ? "\n" : "");
    } else {
        fprintf(p->out, "%s: %llu/%llu tiles (%.1f%%), %.0f tiles/s, %s written, %s %s\n",
                p->label, (unsigned long long)done, (unsigned long long)p->total, pct, rate, size,
                final ? "done in" : "ETA", eta);
    }
    fflush(p->out);
    p->last = t;
}

void progress_update(progress *p, uint64_t done, uint64_t bytes)
{
    if (!p->started) {
        p->started = 1;
        p->first_done = done;
        p->t0 = p->last = monotime_s();
        if (p->bar)
            report(p, done, bytes, 0);
        return;
    }
    double since = monotime_s() - p->last;
    if (since >= (p->bar ? BAR_INTERVAL : p->plain_seconds))
        report(p, done, bytes, 0);
}

void progress_finish(progress *p, uint64_t done, uint64_t bytes)
{
    if (!p->started) {
        p->started = 1;
        p->first_done = done;
    }
    report(p, done, bytes, 1);
}
