#!/usr/bin/env bash
# fresh-test.sh: what the README promises a new user, checked in a clean
# Debian 12 container (`make fresh-test`): the debootstrapped base that
# `make image-test` makes, a clean copy of HEAD (git archive), root, the
# container's default limits (buildah's: 1024 open files), and only `make`
# installed first. Then, in order:
#   1. plain `make` stops and names the command that installs what is missing;
#   2. `make run` installs only what building and running need (no test tool:
#      checked with dpkg and in node_modules) and serves the viewer and
#      Leaflet from the binary;
#   3. `make test` installs the test tools and passes ("N passed, 0 failed");
#   4. the build is complete: a second `make test` would compile nothing;
#   5. the core as a library: `make install PREFIX=/usr/local`, then
#      examples/point.c built with `pkg-config --cflags --libs noisetile` and
#      run as is (no LD_LIBRARY_PATH) prints the README's /point numbers.
# Prints each step, the summary line and the times. Needs root (buildah) and
# minutes of CPU; not part of `make test`.
#
# Behind a TLS-intercepting proxy npm needs the host's CA bundle: it goes in
# at a path of its own, /usr/local/share/noisetile-host-ca.pem, named by
# NODE_EXTRA_CA_CERTS (Debian's ca-certificates, which the test tools pull
# in, rewrites /etc/ssl/certs/ca-certificates.crt).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/buildah-lib.sh

BASE=docker.io/library/debian:bookworm
ISO=(--isolation chroot)
say() { printf 'fresh-test: %s\n' "$*"; }
die() { printf 'fresh-test: FAIL: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (buildah with chroot isolation needs it)"
scripts/image-test.sh base-only

t_start=$(date +%s)
src=$(mktemp -d /var/tmp/noisetile-fresh.XXXXXX)
ctr=""; daemon=""
cleanup() {
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null || true
  [ -n "$ctr" ] && buildah rm "$ctr" >/dev/null 2>&1 || true
  rm -rf "$src"
}
trap cleanup EXIT

head=$(git rev-parse --short HEAD)
git archive --format=tar HEAD | tar -x -C "$src"
[ -z "$(git status --porcelain --untracked-files=no)" ] || say "note: uncommitted changes are not tested (a copy of HEAD $head)"
ctr=$(buildah from --pull=never "$BASE")
buildah copy --quiet "$ctr" "$src" /src >/dev/null
ca=()
if [ -s /etc/ssl/certs/ca-certificates.crt ]; then
  buildah copy --quiet "$ctr" /etc/ssl/certs/ca-certificates.crt /usr/local/share/noisetile-host-ca.pem >/dev/null
  ca=(--env NODE_EXTRA_CA_CERTS=/usr/local/share/noisetile-host-ca.pem)
fi
# crun: runs a shell command in /src in the container, as root, default limits.
crun() { buildah run "${ISO[@]}" "${ca[@]}" --workingdir /src "$ctr" -- bash -c "$1"; }

say "container from $BASE, HEAD $head in /src; limits: $(crun 'echo "open files $(ulimit -n) soft, $(ulimit -Hn) hard"')"
crun 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq make >/dev/null' \
  || die "could not install make"

# 1. plain make, libraries missing
out=$(crun 'make 2>&1' 2>/dev/null || true)
printf '%s\n' "$out" | tail -n 3 | sed 's/^/    /'
case $out in *"'make deps'"*) ;; *) die "plain make did not name the command that installs the libraries" ;; esac
say "1. plain make names the command that installs what is missing"

# 2. make run: build level only, then the binary serves the viewer
t0=$(date +%s)
crun 'make deps' >"$src/deps.log" 2>&1 || { tail -n 30 "$src/deps.log" >&2; die "make deps failed"; }
asked=$(sed -n 's/^deps.sh: installing Debian packages://p' "$src/deps.log")
npm_pkgs=$(crun 'cd node_modules && for f in */package.json @*/*/package.json; do [ -e "$f" ] && dirname "$f"; done | tr "\n" " "')
say "2. make run installs:$asked; npm: $npm_pkgs"
# Nothing of the test level: its Debian packages and npm devDependencies.
installed=$(crun 'dpkg-query -W -f="\${Package} \${Status}\n" 2>/dev/null | sed -n "s/ install ok installed\$//p"')
build_level=" $(scripts/deps.sh --list build | tr '\n' ' ') "
for p in $(scripts/deps.sh --list test); do
  case $build_level in *" $p "*) continue ;; esac
  case $p in
    npm:*) case " $npm_pkgs " in *" ${p#npm:} "*) die "make run installed the npm test package ${p#npm:}" ;; esac ;;
    *) case " $(echo $installed) " in *" $p "*) die "make run installed the test tool $p" ;; esac ;;
  esac
done
buildah run "${ISO[@]}" --workingdir /src --env NOISETILE_PORT=0 "$ctr" -- make run >"$src/run.out" 2>"$src/run.err" &
daemon=$!
url=""
# A bound against a hang, not a timing: make run compiles the whole daemon
# first, which takes many minutes on a busy 2-core machine.
run_wait=${FRESH_RUN_WAIT:-1800}
for _ in $(seq 1 $((run_wait * 2))); do
  url=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$src/run.out" 2>/dev/null | head -n1) || true
  [ -n "$url" ] && break
  kill -0 "$daemon" 2>/dev/null || { tail -n 30 "$src/run.err" >&2; die "make run exited"; }
  sleep 0.5
done
[ -n "$url" ] || { tail -n 30 "$src/run.err" >&2; die "make run did not serve within $run_wait s (FRESH_RUN_WAIT)"; }
grep -m1 'open-file limit' "$src/run.out" | sed 's/^/    /'
page=$(curl -sS --max-time 20 "$url/") || die "GET / failed"
case $page in *leaflet.js*viewer-core.js*) ;; *) die "/ is not the viewer" ;; esac
code=$(curl -sS --max-time 20 -o /dev/null -w '%{http_code} %{size_download}' "$url/vendor/leaflet/leaflet.js")
[ "${code%% *}" = 200 ] || die "leaflet.js answered $code"
# The daemon is a host process below buildah run and make (chroot isolation
# has no PID namespace): SIGTERM to it, and make run ends.
dpid=$(daemon_pid "$daemon") || die "cannot find the daemon below buildah run ($daemon)"
kill -TERM "$dpid"
wait "$daemon" 2>/dev/null || true; daemon=""
say "2. make run served / (the viewer) and leaflet.js ($code) after $(( $(date +%s) - t0 )) s"

# 3. make test
t0=$(date +%s)
crun 'make test' >"$src/test.log" 2>&1 || true
t_test=$(( $(date +%s) - t0 ))
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$src/test.log" | tail -n1) || true
grep -E '^\s*not ok|^  .*(exited|FAIL)' "$src/test.log" | head -n 40 || true
[ -n "$summary" ] || { tail -n 40 "$src/test.log" >&2; die "make test printed no summary"; }
say "3. make test: $summary in $t_test s"

# 4. nothing left to build
again=$(crun 'make -n test-build 2>&1 | grep -v "^:$" || true')
[ -z "$again" ] || { printf '%s\n' "$again" | head -n 10 >&2; die "a second make test would rebuild"; }
say "4. a second make test compiles nothing"

# 5. make install PREFIX=/usr/local, the example against the installed copy
want=$(grep -m1 '"kind":"perlin","seed":7,' README.md |
  sed -E 's/.*"value":([^,]*),"gradient":\[([^,]*),([^]]*)\].*/value \1 gradient \2 \3/')
[ -n "$want" ] || die "README shows no /point answer for perlin 7"
crun 'make install PREFIX=/usr/local && cd /tmp &&
  cc -std=c11 -Wall -Wextra -Werror /src/examples/point.c $(pkg-config --cflags --libs noisetile) -o point &&
  ldd ./point | grep libnoisetile && ./point' >"$src/install.log" 2>&1 \
  || { tail -n 30 "$src/install.log" >&2; die "make install PREFIX=/usr/local or the example failed"; }
got=$(sed -n 's/^perlin 7 octaves=4 at (1.5, -2.25): //p' "$src/install.log")
[ "$got" = "$want" ] || { cat "$src/install.log" >&2; die "the example printed '$got', the README shows '$want'"; }
say "5. make install PREFIX=/usr/local; examples/point.c built with pkg-config prints the README's numbers: $got ($(sed -n 's/.*\(libnoisetile[^ ]*\) => \([^ ]*\).*/\1 => \2/p' "$src/install.log"))"

say "total $(( $(date +%s) - t_start )) s"
echo "$summary"
case $summary in *" 0 failed") ;; *) exit 1 ;; esac
