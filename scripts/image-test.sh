#!/usr/bin/env bash
# image-test.sh: builds the noisetile container image from the Dockerfile with
# buildah (no Docker engine needed), runs it, and checks from the host that it
# serves /healthz and a PNG tile, that the runtime image holds no compiler or
# headers and no shared libmicrohttpd (the binary has our patched build
# linked in, and says so at start-up), and prints its size. Used by
# `make image-test`.
#
# The Debian 12 base (docker.io/library/debian:bookworm) is made on the spot
# with debootstrap when buildah's store lacks it, so the build runs with
# --pull=never and needs only the Debian mirror apt already uses.
# Environment: IMAGE (default noisetile), PORT (default: a free one).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/buildah-lib.sh

IMAGE=${IMAGE:-noisetile}
BASE=docker.io/library/debian:bookworm
ISO=(--isolation chroot)

say() { printf 'image-test: %s\n' "$*"; }
die() { printf 'image-test: FAIL: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (buildah with chroot isolation needs it)"
scripts/deps.sh image

# ---- the base image ----
# The Debian mirror apt is configured with (one-line or deb822 sources).
debian_mirror() {
  local m
  m=$(grep -hsE '^[[:space:]]*(deb[[:space:]]|URIs:)' /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources \
      | grep -oE 'https?://[^[:space:]]+/debian/?([[:space:]]|$)' | head -n1 | tr -d '[:space:]') || true
  printf '%s\n' "${m:-http://deb.debian.org/debian}"
}

make_base() {
  local dir ctr mnt mirror
  mirror=$(debian_mirror)
  dir=$(mktemp -d /var/tmp/noisetile-base.XXXXXX)
  say "making $BASE with debootstrap from $mirror (about 30 s)"
  if ! timeout 600 debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$dir.log" 2>&1; then
    tail -n 20 "$dir.log" >&2; rm -rf "$dir" "$dir.log"; die "debootstrap failed"
  fi
  # Like the official image: no package lists or downloaded .debs.
  rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb
  ctr=$(buildah from scratch)
  mnt=$(buildah mount "$ctr")
  cp -a "$dir"/. "$mnt"/
  buildah umount "$ctr" >/dev/null
  buildah config --cmd /bin/bash --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$ctr"
  buildah commit --quiet --rm "$ctr" "$BASE" >/dev/null
  rm -rf "$dir" "$dir.log"
}

if buildah inspect --type image "$BASE" >/dev/null 2>&1; then
  say "base $BASE present"
else
  make_base
fi
[ "${1:-}" = base-only ] && exit 0

# ---- build ----
# HEALTHCHECK is kept only in the docker image format. The host's CA bundle
# goes in as a build secret so `npm ci` also works behind a TLS-intercepting
# proxy; the Dockerfile ignores it when absent.
secret=()
[ -s /etc/ssl/certs/ca-certificates.crt ] && secret=(--secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt)
say "building $IMAGE (buildah bud --pull=never)"
t0=$(date +%s)
old_image=$(buildah images --quiet --no-trunc "$IMAGE" 2>/dev/null | head -n1) || true
timeout "${IMAGE_BUILD_WAIT:-3600}" buildah bud "${ISO[@]}" --pull=never --format docker --layers --force-rm "${secret[@]}" -t "$IMAGE" . \
  || die "buildah bud failed"
say "built in $(( $(date +%s) - t0 )) s"
# The image this build replaced would linger untagged: drop it.
new_image=$(buildah images --quiet --no-trunc "$IMAGE" | head -n1)
if [ -n "$old_image" ] && [ "$old_image" != "$new_image" ]; then buildah rmi "$old_image" >/dev/null 2>&1 || true; fi

# ---- run and check ----
ctr=""; work=$(mktemp -d /tmp/noisetile-image-test.XXXXXX); runpid=""
cleanup() {
  if [ -n "$runpid" ] && kill -0 "$runpid" 2>/dev/null; then kill -TERM "$runpid" 2>/dev/null || true; sleep 1; kill -KILL "$runpid" 2>/dev/null || true; fi
  [ -n "$ctr" ] && buildah rm "$ctr" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

ctr=$(buildah from --pull=never "$IMAGE")
inrun() { timeout 60 buildah run "${ISO[@]}" "$ctr" -- "$@"; }

# The runtime image: no compiler, no headers, a non-root user, the config.
[ "$(inrun sh -c 'command -v cc gcc clang c99 tcc || echo none')" = none ] || die "a compiler is in the runtime image"
inrun sh -c 'test ! -e /usr/include/microhttpd.h && test ! -e /usr/include/png.h && test ! -e /usr/include/stdio.h' \
  || die "C headers are in the runtime image"
# libmicrohttpd is linked into the binary (scripts/libmicrohttpd.sh): no
# Debian libmicrohttpd12 in the image.
inrun sh -c '! dpkg-query -W libmicrohttpd12 >/dev/null 2>&1 && ! ls /usr/lib/*/libmicrohttpd.so* >/dev/null 2>&1' \
  || die "a shared libmicrohttpd is in the runtime image"
uid=$(inrun id -u); [ "$uid" != 0 ] || die "the image runs as root"
cfg=$(buildah inspect --type image --format '{{.Docker.Config.User}} {{.Docker.Config.ExposedPorts}} {{.Docker.Config.Healthcheck.Test}} {{.Docker.Config.Env}}' "$IMAGE")
for want in noisetile 8080/tcp noisetile-healthcheck NOISETILE_BIND=0.0.0.0 NOISETILE_PORT=8080; do
  case $cfg in *"$want"*) ;; *) die "image config lacks $want: $cfg" ;; esac
done
say "runtime image: no compiler, no headers, no shared libmicrohttpd, uid $uid; config: $cfg"

# chroot isolation shares the host's network: bind loopback only, and let the
# daemon pick a free port (it prints the URL it listens on).
buildah run "${ISO[@]}" --env NOISETILE_BIND=127.0.0.1 --env NOISETILE_PORT=0 "$ctr" -- \
  /usr/local/bin/noisetile >"$work/out" 2>"$work/err" &
runpid=$!
url=""
for _ in $(seq 1 150); do
  url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$work/out" 2>/dev/null | head -n1) || true
  [ -n "$url" ] && break
  kill -0 "$runpid" 2>/dev/null || { cat "$work/err" >&2; die "the daemon exited at start"; }
  sleep 0.2
done
[ -n "$url" ] || { cat "$work/err" >&2; die "no listening line within 30 s"; }
say "daemon in the container listens on $url"
grep -q '^noisetile: HTTP by libmicrohttpd 0\.9\.75 (Debian 0\.9\.75-6 source, .*; static)$' "$work/out" \
  || { cat "$work/out" >&2; die "the daemon does not name our libmicrohttpd build at start-up"; }
say "$(grep '^noisetile: HTTP by ' "$work/out")"

fetch() { # fetch PATH OUTFILE -> prints "status content-type"
  curl -sS --max-time 20 -o "$2" -w '%{http_code} %{content_type}' "$url$1"
}
r=$(fetch /healthz "$work/healthz"); [ "${r%% *}" = 200 ] || die "/healthz answered $r"
say "GET /healthz -> $r"
r=$(fetch /perlin/7/3/-1/2.png?palette=terrain "$work/tile.png")
[ "$r" = "200 image/png" ] || die "tile answered $r"
[ "$(head -c 8 "$work/tile.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || die "tile is not a PNG"
say "GET /perlin/7/3/-1/2.png?palette=terrain -> $r, $(stat -c %s "$work/tile.png") bytes, PNG signature ok"
r=$(fetch / "$work/index.html"); case $r in "200 text/html"*) ;; *) die "/ answered $r" ;; esac
grep -qi leaflet "$work/index.html" || die "/ is not the viewer"
r2=$(fetch /vendor/leaflet/leaflet.js "$work/leaflet.js"); [ "${r2%% *}" = 200 ] || die "leaflet.js answered $r2"
say "GET / -> $r (the viewer); GET /vendor/leaflet/leaflet.js -> $r2"
# The image's own HEALTHCHECK command, run inside the container.
timeout 30 buildah run "${ISO[@]}" --env NOISETILE_PORT="${url##*:}" "$ctr" -- /usr/local/bin/noisetile-healthcheck \
  || die "the HEALTHCHECK command failed"
say "HEALTHCHECK command (noisetile-healthcheck) -> exit 0"

# Stop: SIGTERM to the daemon itself (buildah run would SIGKILL its child if
# signalled), which must exit 0 within the drain deadline; buildah run then
# ends with the daemon's status. chroot isolation has no PID namespace, so the
# daemon is a host process below buildah's.
dpid=$(daemon_pid "$runpid") || die "cannot find the daemon's process below buildah run ($runpid)"
kill -TERM "$dpid"
for _ in $(seq 1 100); do kill -0 "$runpid" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$runpid" 2>/dev/null; then die "the daemon did not stop within 20 s of SIGTERM"; fi
rc=0; wait "$runpid" || rc=$?; runpid=""
[ "$rc" = 0 ] || { cat "$work/err" >&2; die "the daemon exited $rc after SIGTERM"; }
say "stopped with SIGTERM, exit 0; access log lines: $(grep -c ' /' "$work/err" || true)"
buildah rm "$ctr" >/dev/null; ctr=""
say "image size:"
buildah images --filter reference="$IMAGE" --format '{{.Name}}:{{.Tag}} {{.Size}}'
buildah images --filter reference="$BASE" --format '{{.Name}}:{{.Tag}} {{.Size}} (base)'
say "PASS"
