/* files.c: the viewer's files: embedded in the binary (embedded.h), or from
 * the --static directory, and nothing outside it. */
#include "service/files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/daemon_limits.h"
#include "service/embedded.h"
#include "base/errors.h"
#include "base/etag.h"
#include "service/tile.h"

const char *files_content_type(const char *name)
{
    static const struct { const char *ext, *type; } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".htm", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".map", "application/json"},
        {".png", "image/png"},
        {".svg", "image/svg+xml"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
        {".webmanifest", "application/manifest+json"},
    };
    const char *dot = strrchr(name, '.');
    const char *slash = strrchr(name, '/');
    if (dot == NULL || (slash != NULL && dot < slash))
        return "application/octet-stream";
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcasecmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int reject(char *err, size_t err_size, const char *why)
{
    snprintf(err, err_size, "bad file path: %s", why);
    return ERR_BAD_REQUEST;
}

/* Decodes raw_path into out, segment by segment, refusing anything that could
 * name a place outside the root or a hidden file. */
static int decode_path(const char *raw, char *out, size_t out_size, char *err, size_t err_size)
{
    if (raw[0] != '/')
        return reject(err, err_size, "must start with '/'");
    size_t n = 0;
    for (const char *p = raw; *p != '\0'; p++) {
        char c = *p;
        if (c == '%') {
            int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
            if (hi < 0 || lo < 0)
                return reject(err, err_size, "malformed percent escape");
            c = (char)(hi * 16 + lo);
            p += 2;
            if (c == '/' || c == '\\')
                return reject(err, err_size, "encoded slash");
            if (c == '\0')
                return reject(err, err_size, "NUL byte");
        } else if (c == '\\') {
            return reject(err, err_size, "backslash");
        }
        if ((unsigned char)c < 0x20 || c == 0x7f)
            return reject(err, err_size, "control character");
        if (n + 1 >= out_size)
            return reject(err, err_size, "too long");
        out[n++] = c;
    }
    out[n] = '\0';
    /* Segments: no "", ".", "..", or names starting with '.' (hidden). An
     * empty segment is allowed only as the trailing one ("/dir/"). */
    const char *seg = out + 1;
    for (;;) {
        const char *slash = strchr(seg, '/');
        size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
        if (len == 0 && slash != NULL)
            return reject(err, err_size, "empty path segment");
        if (len > 0 && seg[0] == '.')
            return reject(err, err_size,
                          (len == 2 && seg[1] == '.') ? "'..' segment" : "'.' or hidden segment");
        if (slash == NULL)
            break;
        seg = slash + 1;
    }
    return 0;
}

static int not_found(char *err, size_t err_size, const char *path)
{
    snprintf(err, err_size, "no file %.200s", path);
    return ERR_NOT_FOUND;
}

int files_serve(const char *root, const char *raw_path, reply *out, char *err,
                size_t err_size)
{
    char rel[LIMIT_STATIC_PATH];
    int rc = decode_path(raw_path, rel, sizeof rel, err, err_size);
    if (rc != 0)
        return rc;

    char full[PATH_MAX + LIMIT_STATIC_PATH + 16];
    size_t rlen = strlen(rel);
    snprintf(full, sizeof full, "%s%s%s", root, rel,
             rel[rlen - 1] == '/' ? "index.html" : "");
    char real[PATH_MAX];
    if (realpath(full, real) == NULL)
        return not_found(err, err_size, rel);
    size_t root_len = strlen(root);
    /* The resolved file must lie inside root: symlinks may not lead out. */
    if (strncmp(real, root, root_len) != 0 || real[root_len] != '/')
        return not_found(err, err_size, rel);

    struct stat st;
    if (stat(real, &st) != 0)
        return not_found(err, err_size, rel);
    if (S_ISDIR(st.st_mode)) {
        /* "/dir" -> its index.html, checked the same way. */
        size_t l = strlen(real);
        if (l + sizeof "/index.html" > sizeof real)
            return not_found(err, err_size, rel);
        memcpy(real + l, "/index.html", sizeof "/index.html");
        char again[PATH_MAX];
        if (realpath(real, again) == NULL || strncmp(again, root, root_len) != 0 ||
            again[root_len] != '/')
            return not_found(err, err_size, rel);
        memcpy(real, again, sizeof again);
        if (stat(real, &st) != 0)
            return not_found(err, err_size, rel);
    }
    if (!S_ISREG(st.st_mode) || st.st_size > LIMIT_STATIC_FILE_BYTES)
        return not_found(err, err_size, rel);

    int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return not_found(err, err_size, rel);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return not_found(err, err_size, rel);
    }
    out->status = 200;
    out->content_type = files_content_type(real);
    /* The viewer changes between versions: revalidate, never serve stale. */
    out->cache_control = "no-cache";
    out->body_kind = REPLY_FILE;
    out->fd = fd;
    out->size = (uint64_t)st.st_size;
    if (reply_header(out, "X-Content-Type-Options", "nosniff") != 0) {
        reply_release(out);
        return ERR_INTERNAL;
    }
    return 0;
}

static int by_path(const void *key, const void *elem)
{
    return strcmp(key, ((const embedded_file *)elem)->path);
}

static const embedded_file *embedded_find(const char *path)
{
    return bsearch(path, embedded_files, embedded_count, sizeof embedded_files[0], by_path);
}

int files_serve_embedded(const char *raw_path, const char *if_none_match, reply *out,
                         char *err, size_t err_size)
{
    char rel[LIMIT_STATIC_PATH];
    int rc = decode_path(raw_path, rel, sizeof rel, err, err_size);
    if (rc != 0)
        return rc;
    /* "/dir/" and "/dir" name the directory's index.html, as under --static. */
    char name[LIMIT_STATIC_PATH + sizeof "/index.html"];
    size_t rlen = strlen(rel);
    const embedded_file *f = NULL;
    if (rel[rlen - 1] != '/')
        f = embedded_find(rel);
    if (f == NULL) {
        snprintf(name, sizeof name, "%s%sindex.html", rel, rel[rlen - 1] == '/' ? "" : "/");
        f = embedded_find(name);
    }
    if (f == NULL)
        return not_found(err, err_size, rel);

    /* With 304 the connection layer sends the headers only, as for tiles. */
    reply_borrowed(out, etag_matches(if_none_match, f->etag) ? 304 : 200,
                   files_content_type(f->path), f->data, f->size);
    /* Revalidated on every load (the viewer changes between versions); the
     * ETag makes that a 304 without a body. */
    out->cache_control = "no-cache";
    if (reply_header(out, "ETag", f->etag) != 0 ||
        reply_header(out, "X-Content-Type-Options", "nosniff") != 0) {
        reply_release(out);
        return ERR_INTERNAL;
    }
    return 0;
}
