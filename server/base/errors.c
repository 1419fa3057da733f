/* errors.c: the views of the error table (errors.h). */
#include "base/errors.h"

#include <stdio.h>
#include <string.h>

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

void errors_pointer_message(char *err, size_t err_size, const char *pointer, const char *message)
{
    if (pointer == NULL)
        snprintf(err, err_size, "%s", message);
    else
        snprintf(err, err_size, "%c%s%c%s", ERRORS_POINTER_MARK, pointer, ERRORS_POINTER_MARK,
                 message);
}

const char *errors_split_pointer(const char *err, char *pointer, size_t pointer_size)
{
    if (pointer_size > 0)
        pointer[0] = '\0';
    if (err == NULL || err[0] != ERRORS_POINTER_MARK)
        return err;
    const char *end = strchr(err + 1, ERRORS_POINTER_MARK);
    if (end == NULL)
        return err + 1;
    size_t n = (size_t)(end - err - 1);
    if (n >= pointer_size)
        n = pointer_size > 0 ? pointer_size - 1 : 0;
    if (pointer_size > 0) {
        memcpy(pointer, err + 1, n);
        pointer[n] = '\0';
    }
    return end + 1;
}
