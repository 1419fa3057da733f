/* test.h: the tiny unit-test harness every tests/unit/test_*.c uses.
 *
 * Each test is a void function run by RUN(fn); CHECK and CHECKF record a
 * failure (with file, line and the message) and let the test go on, so one run
 * shows every broken assertion. Output is one line per test, "ok - name" or
 * "not ok - name", which tests/run.sh counts; t_done() returns the exit code.
 */
#ifndef TEST_H
#define TEST_H

#include <stdio.h>

static int t_current_failed;
static int t_n_passed, t_n_failed;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
            t_current_failed = 1;                                            \
        }                                                                    \
    } while (0)

#define CHECKF(cond, ...)                                                    \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "  %s:%d: CHECK failed: %s: ", __FILE__, __LINE__, \
                    #cond);                                                  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
            t_current_failed = 1;                                            \
        }                                                                    \
    } while (0)

#define RUN(fn) t_run(#fn, fn)

static void t_run(const char *name, void (*fn)(void))
{
    t_current_failed = 0;
    fn();
    fflush(stderr);
    if (t_current_failed) {
        t_n_failed++;
        printf("not ok - %s\n", name);
    } else {
        t_n_passed++;
        printf("ok - %s\n", name);
    }
    fflush(stdout);
}

static int t_done(void)
{
    printf("# %d passed, %d failed\n", t_n_passed, t_n_failed);
    return t_n_failed ? 1 : 0;
}

#endif
