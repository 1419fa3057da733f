/* errors.c: the views of the error table (errors.h). */
#include "base/errors.h"

unsigned int errors_status(int err)
{
    switch (err) {
#define ERRORS_STATUS(name, code, status, text) case (code): return (status);
        ERRORS_MAP(ERRORS_STATUS)
#undef ERRORS_STATUS
    default: return 500;
    }
}

const char *errors_strerror(int err)
{
    switch (err) {
#define ERRORS_TEXT(name, code, status, text) case (code): return (text);
        ERRORS_MAP(ERRORS_TEXT)
#undef ERRORS_TEXT
    default: return "internal error";
    }
}

const char *errors_name(int err)
{
    switch (err) {
#define ERRORS_NAME(name, code, status, text) case (code): return #name;
        ERRORS_MAP(ERRORS_NAME)
#undef ERRORS_NAME
    default: return "?";
    }
}
