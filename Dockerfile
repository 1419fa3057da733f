# Dockerfile: the noisetile daemon on Debian 12, in two stages: one that
# compiles with the same `make` commands as a checkout, and a runtime image
# with only the shared libraries and the binary (its viewer is built in;
# libmicrohttpd, built from Debian's source with our patches, is linked in
# statically: no libmicrohttpd12 in the runtime image).
#
#   docker build -t noisetile .          (or: buildah bud --format docker -t noisetile .)
#   docker run --rm -p 8080:8080 --ulimit nofile=8192:8192 noisetile
#
# Open files: every connection is a descriptor. At the engine's default limit
# (often 1024) the daemon allows fewer connections (912 with 16 threads) and
# says so in its first line; --ulimit nofile=8192:8192 gives it all 1920.
#
# `make image-test` builds and checks this image with buildah, no Docker
# engine needed (scripts/image-test.sh).

# ---- build stage ----
FROM debian:bookworm AS build
WORKDIR /src
ARG DEBIAN_FRONTEND=noninteractive
# What `make run` installs: the "build" level of scripts/deps.sh, the
# compiler and libraries from Debian, and with npm the pinned libraries of
# the viewer (package-lock.json), which the build compiles into the binary.
# `make` then downloads Debian's libmicrohttpd 0.9.75 source from
# deb.debian.org (pinned by sha256; a copy in deps/downloads/ of the build
# context is used instead) and builds it with our patches
# (scripts/libmicrohttpd.sh).
# Behind a TLS-intercepting proxy, pass its CA bundle as a build secret:
#   --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt
COPY scripts/deps.sh scripts/deps.sh
COPY package.json package-lock.json .npmrc ./
RUN --mount=type=secret,id=ca-certificates,required=false \
    if [ -s /run/secrets/ca-certificates ]; then \
      export NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates; fi \
 && apt-get update -qq \
 && scripts/deps.sh build
COPY . .
RUN make -j"$(nproc)" BUILD=build build/noisetile

# ---- runtime stage ----
FROM debian:bookworm
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      libpng16-16 libjansson4 libsqlite3-0 zlib1g libdeflate0 libwebp7 >/dev/null \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && useradd --uid 10001 --user-group --home-dir /nonexistent \
      --no-create-home --shell /usr/sbin/nologin noisetile
COPY --from=build /src/build/noisetile /usr/local/bin/noisetile
COPY scripts/container-healthcheck.sh /usr/local/bin/noisetile-healthcheck

# Every flag of the daemon has a NOISETILE_* variable; override with -e.
# Threads default to the number of cores the container sees, at least 16.
ENV NOISETILE_BIND=0.0.0.0 \
    NOISETILE_PORT=8080 \
    NOISETILE_CACHE_MB=256
USER noisetile
EXPOSE 8080
# GET /healthz must answer 200 (checked with bash alone; no curl in the image).
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/noisetile-healthcheck"]
ENTRYPOINT ["/usr/local/bin/noisetile"]
