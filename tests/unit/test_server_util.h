/* test_server_util.h: helpers the server unit tests share. */
#ifndef TEST_SERVER_UTIL_H
#define TEST_SERVER_UTIL_H

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "service/query.h"

/* Query arguments from n name/value pairs kv[2i], kv[2i+1], as
 * query_collect() would hand them over. */
static inline query_args test_query_args(const char *const *kv, size_t n)
{
    query_args a;
    memset(&a, 0, sizeof a);
    for (size_t i = 0; i < n; i++) {
        a.names[i] = kv[2 * i];
        a.values[i] = kv[2 * i + 1];
    }
    a.n = n;
    return a;
}

/* A TCP connection to 127.0.0.1:port with send and receive timeouts of
 * timeout_s seconds (0: none); returns the socket, or -1. */
static inline int test_connect_loopback(unsigned int port, int timeout_s)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {timeout_s, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

#endif
