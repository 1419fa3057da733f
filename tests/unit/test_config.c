/* test_config.c: flags and NOISETILE_* variables -> settings; bad values. */
#include <string.h>
#include <unistd.h>

#include "service/config.h"
#include "test.h"

static const char *fake_env[][2] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
static const char *env_get(const char *name)
{
    for (size_t i = 0; i < 3; i++)
        if (fake_env[i][0] != NULL && strcmp(fake_env[i][0], name) == 0)
            return fake_env[i][1];
    return NULL;
}

static int run(char **argv, int argc, config *c, char *msg)
{
    return config_parse(c, argc, argv, env_get, msg, 512);
}

static void test_defaults_env_flags(void)
{
    config c;
    char msg[512];
    char *none[] = {"noisetile"};
    CHECK(run(none, 1, &c, msg) == 0);
    CHECK(strcmp(c.bind, "127.0.0.1") == 0 && c.port == 8080 && c.cache_mb == 256 &&
          c.threads >= 1 && c.static_dir[0] == '\0' && c.access_log[0] == '\0');
    CHECK(c.workers == (int)sysconf(_SC_NPROCESSORS_ONLN));
    fake_env[0][0] = "NOISETILE_PORT";
    fake_env[0][1] = "9000";
    fake_env[1][0] = "NOISETILE_CACHE_MB";
    fake_env[1][1] = "12";
    CHECK(run(none, 1, &c, msg) == 0 && c.port == 9000 && c.cache_mb == 12);
    char *flags[] = {"noisetile", "--port", "0", "--threads=3", "--static", "/tmp", "--bind", "::1"};
    CHECK(run(flags, 8, &c, msg) == 0);
    CHECK(c.port == 0 && c.cache_mb == 12 && c.threads == 3 && strcmp(c.bind, "::1") == 0);
    CHECK(c.static_dir[0] == '/');
    fake_env[0][0] = "NOISETILE_WORKERS";
    fake_env[0][1] = "5";
    fake_env[1][0] = "NOISETILE_ACCESS_LOG";
    fake_env[1][1] = "off";
    CHECK(run(none, 1, &c, msg) == 0 && c.workers == 5 && strcmp(c.access_log, "off") == 0);
    char *wflags[] = {"noisetile", "--workers", "3", "--access-log", "/tmp/a.log"};
    CHECK(run(wflags, 5, &c, msg) == 0 && c.workers == 3 &&
          strcmp(c.access_log, "/tmp/a.log") == 0);
    fake_env[0][0] = fake_env[1][0] = NULL;
}

static void test_bad_values(void)
{
    static const char *const bad[][2] = {
        {"--port", "65536"}, {"--port", "-1"}, {"--port", ""}, {"--threads", "0"},
        {"--threads", "257"}, {"--cache-mb", "1.5"}, {"--cache-mb", "-1"},
        {"--workers", "0"}, {"--workers", "257"}, {"--workers", "two"}, {"--access-log", ""},
        {"--bind", "localhost"}, {"--static", "/nonexistent-dir"}, {"--what", "1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        config c;
        char msg[512] = "";
        char *argv[] = {"noisetile", (char *)bad[i][0], (char *)bad[i][1]};
        CHECKF(run(argv, 3, &c, msg) == -1, "%s %s", bad[i][0], bad[i][1]);
        CHECKF(strstr(msg, bad[i][0] + 2) != NULL, "%s: %s", bad[i][0], msg);
    }
    config c;
    char msg[512];
    char *missing[] = {"noisetile", "--port"};
    CHECK(run(missing, 2, &c, msg) == -1);
    fake_env[0][0] = "NOISETILE_THREADS";
    fake_env[0][1] = "many";
    char *none[] = {"noisetile"};
    CHECK(run(none, 1, &c, msg) == -1 && strstr(msg, "NOISETILE_THREADS") != NULL);
    fake_env[0][0] = NULL;
    char *help[] = {"noisetile", "--help"};
    CHECK(run(help, 2, &c, msg) == 1 && strstr(msg, "--cache-mb") != NULL);
}

int main(void)
{
    RUN(test_defaults_env_flags);
    RUN(test_bad_values);
    return t_done();
}
