/* openapi.h: the OpenAPI 3.1 description of every route, parameter,
 * response and error of the daemon, built from the parameter table. */
#ifndef OPENAPI_H
#define OPENAPI_H

#include <jansson.h>

/* Returns a new OpenAPI 3.1 document (caller decrefs), or NULL out of memory. */
json_t *openapi_document(void);

#endif
