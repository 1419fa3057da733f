/* test_batch.c: POST /points bodies parsed straight into arrays
 * (server/heights/batch.c): what JSON allows (whitespace, escapes in the member
 * name, exponents), what it does not, the messages, the count limit, and
 * the answer's text. */
#include "heights/batch.h"
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

static int parse(const char *body, batch *b, char *err)
{
    return batch_parse(body, strlen(body), 10, b, err, 200);
}

static void test_accepts_json_forms(void)
{
    batch b;
    char err[200];
    CHECK(parse(" {\n\t\"points\" : [ [ 1 , -2.5e1 ] ,[0.125,3E-2]]\r\n} ", &b, err) == 0);
    CHECK(b.n == 2 && b.dims == 2);
    CHECK(b.coords[0] == 1 && b.coords[1] == -25 && b.coords[2] == 0.125 && b.coords[3] == 0.03);
    batch_free(&b);
    /* An escaped member name is the same name. */
    CHECK(parse("{\"po\\u0069nts\":[[1,2,3]]}", &b, err) == 0 && b.n == 1 && b.dims == 3);
    CHECK(b.coords[2] == 3);
    batch_free(&b);
    CHECK(parse("{\"points\":[]}", &b, err) == 0 && b.n == 0);
    batch_free(&b);
    /* Integers of any length are numbers (strtod rounds them). */
    CHECK(parse("{\"points\":[[123456789012345678901234567890,0]]}", &b, err) == 0);
    CHECK(b.coords[0] == 123456789012345678901234567890.0);
    batch_free(&b);
}

static void test_refuses_with_a_message(void)
{
    static const struct {
        const char *body;
        int rc;
        const char *msg;
    } cases[] = {
        {"", ERR_BAD_JSON, "line 1 column 1"},
        {"[]", ERR_BAD_JSON, "must be an object"},
        {"{}", ERR_BAD_JSON, "must be an object"},
        {"{\"points\":{}}", ERR_BAD_JSON, "must be an object"},
        {"{\"points\":[[0]]}", ERR_BAD_JSON, "points[0] must be an array [x, y] or [x, y, t]"},
        {"{\"points\":[[0,0,0,0]]}", ERR_BAD_JSON, "points[0]"},
        {"{\"points\":[[0,0],[0,0,0]]}", ERR_BAD_JSON, "points[1] must be an array of 2 numbers"},
        {"{\"points\":[[0,0],5]}", ERR_BAD_JSON, "points[1] must be an array of 2"},
        {"{\"points\":[[0,null]]}", ERR_BAD_JSON, "points[0] must hold numbers only"},
        {"{\"points\":[[0,\"1\"]]}", ERR_BAD_JSON, "points[0] must hold numbers only"},
        {"{\"points\":[[0,1e999]]}", ERR_BAD_JSON, "points[0] holds a JSON number too large for a double"},
        {"{\"points\":[[0,0]],\"x\":1}", ERR_BAD_JSON, "unknown member 'x'"},
        {"{\"points\":[[0,0]],\"points\":[]}", ERR_BAD_JSON, "duplicate member"},
        {"{\"points\":[[0,0]]} trailing", ERR_BAD_JSON, "end of body expected at line 1 column 20"},
        {"{\"points\":[[0,0]]", ERR_BAD_JSON, "not valid JSON"},
        {"{\"points\":[[01,0]]}", ERR_BAD_JSON, "not valid JSON"},
        {"{\"points\":[[1.,0]]}", ERR_BAD_JSON, "invalid number"},
        {"{\"points\":[[1e,0]]}", ERR_BAD_JSON, "invalid number at line 1 column 15"},
        {"{\"points\":[[1.5E+,0]]}", ERR_BAD_JSON, "invalid number at line 1 column 18"},
        {"{\"points\":[[0,2.]]}", ERR_BAD_JSON, "invalid number at line 1 column 17"},
        {"{\"points\":[[+1,0]]}", ERR_BAD_JSON, "not valid JSON"},
        {"{\"points\":[[0,0],]}", ERR_BAD_JSON, "not valid JSON"},
        {"{\n\"points\":[[0,0]\n,\n[x]]}", ERR_BAD_JSON, "line 4 column 2"},
        {"{\"p\\u00\":[]}", ERR_BAD_JSON, "invalid \\u escape"},
        {"{\"\\ud800\":[]}", ERR_BAD_JSON, "surrogate"},
        {"{\"\xff\":[]}", ERR_BAD_JSON, "UTF-8"},
        {"{\"a\x01\":[]}", ERR_BAD_JSON, "control character"},
        {"{\"points\":[[0,0],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0]]}",
         ERR_TOO_LARGE, "too many points: 11, at most 10 per request"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        batch b;
        char err[200] = "";
        int rc = parse(cases[i].body, &b, err);
        CHECKF(rc == cases[i].rc && strstr(err, cases[i].msg) != NULL, "%s -> %d %s",
               cases[i].body, rc, err);
        CHECK(b.coords == NULL && b.n == 0);
    }
}

/* Every coordinate is the double strtod reads from its text, bit for bit,
 * whether the fast reader or strtod converts it: random doubles at every
 * precision, noise-like coordinates, random digit strings with exponents
 * (subnormal, huge, halfway cases among them), integers, leading zeros. */
static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static void number_text(long i, char *buf, size_t size)
{
    uint64_t r = next();
    double v;
    switch (i % 6) {
    case 0:
        memcpy(&v, &r, sizeof v);
        if (!isfinite(v) || fabs(v) > 1e300) /* rounded it could overflow */
            v = 0.5;
        snprintf(buf, size, "%.*g", (int)(next() % 17) + 1, v);
        break;
    case 1:
        snprintf(buf, size, "%.17g", (double)(r >> 11) / 9007199254740992.0 * 200 - 100);
        break;
    case 2: {
        int nd = (int)(next() % 22) + 1; /* past 19 digits strtod decides */
        char *p = buf;
        if (r & 1)
            *p++ = '-';
        *p++ = (char)('1' + next() % 9);
        if ((r & 2) && nd > 1)
            *p++ = '.';
        for (int k = 1; k < nd; k++)
            *p++ = (char)('0' + next() % 10);
        if (((r & 2) == 0 || nd == 1) && (r & 8))
            p += sprintf(p, ".%d", (int)(next() % 1000));
        if (r & 4)
            p += sprintf(p, "%c%d", (r & 16) ? 'e' : 'E', (int)(next() % 630) - 350);
        *p = '\0';
        break;
    }
    case 3:
        snprintf(buf, size, "%lld", (long long)(r >> (r & 63)));
        break;
    case 4:
        snprintf(buf, size, "%s0.%06llu", (r & 1) ? "-" : "", (unsigned long long)(r % 1000000));
        break;
    default: /* a double exactly half way between two: 17+ digits, strtod's ties */
        v = (double)(r >> 11) / 9007199254740992.0 * 1e6;
        snprintf(buf, size, "%.25g", v + (nextafter(v, INFINITY) - v) / 2);
        break;
    }
}

static void test_numbers_read_as_strtod_reads_them(void)
{
    enum { PER = 1000 };
    char (*texts)[48] = malloc(PER * 2 * sizeof *texts);
    char *body = malloc(PER * 2 * 50 + 64);
    long bad = 0;
    for (int round = 0; round < 300 && texts && body; round++) {
        char *p = body;
        p += sprintf(p, "{\"points\":[");
        for (int i = 0; i < 2 * PER; i++) {
            number_text((long)round * 2 * PER + i, texts[i], sizeof texts[i]);
            p += sprintf(p, "%s%s", i % 2 ? "," : i ? "],[" : "[", texts[i]);
        }
        p += sprintf(p, "]]}");
        batch b;
        char err[200];
        int rc = batch_parse(body, (size_t)(p - body), 100000, &b, err, sizeof err);
        CHECKF(rc == 0 && b.n == PER, "round %d: %s", round, rc ? err : "count");
        if (rc != 0)
            break;
        for (int i = 0; i < 2 * PER; i++) {
            double want = strtod(texts[i], NULL);
            if (memcmp(&want, &b.coords[i], sizeof want) != 0 && bad++ < 10)
                fprintf(stderr, "  %s: read %a, strtod %a\n", texts[i], b.coords[i], want);
        }
        batch_free(&b);
    }
    CHECKF(bad == 0, "%ld numbers read differently from strtod", bad);
    free(texts);
    free(body);
}

static void test_answer_text(void)
{
    double v[3] = {0.1, -1, NAN};
    double g[6] = {0, 2.5e-7, 1, -0.30000000000000004, INFINITY, 3};
    char *text;
    size_t len;
    CHECK(batch_answer_json(v, g, 3, 2, &text, &len) == 0);
    const char *want =
        "{\"values\":[0.1,-1,null],\"gradients\":[[0,2.5e-7],[1,-0.30000000000000004],[null,3]]}";
    CHECKF(strcmp(text, want) == 0 && len == strlen(want), "%s", text);
    free(text);
    CHECK(batch_answer_json(v, g, 0, 3, &text, &len) == 0);
    CHECK(strcmp(text, "{\"values\":[],\"gradients\":[]}") == 0);
    free(text);
    /* The bound covers the body, 10000 points' arrays and the longest
     * answer: sixteen 1 MiB batches fit in 64 MiB. */
    size_t m = batch_memory_bytes((1 << 20) + 1, 10000);
    CHECK(m > (1 << 20) + 10000 * 7 * 8 + 10000 * 100 && m * 16 < 64u * 1024 * 1024);
}

int main(void)
{
    RUN(test_accepts_json_forms);
    RUN(test_refuses_with_a_message);
    RUN(test_numbers_read_as_strtod_reads_them);
    RUN(test_answer_text);
    return t_done();
}
