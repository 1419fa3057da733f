#!/usr/bin/env bash
# deps.sh: installs what building, testing and benchmarking noisetile need.
# Debian packages via apt-get when run as root (otherwise it names what is
# missing and stops), then the pinned npm packages via `npm ci`.
#
# Usage: scripts/deps.sh [--check | --list] [build|test|bench|image]
#   build  compiler, libraries, the tools that build our libmicrohttpd from
#          Debian's source package (curl, xz, patch: scripts/libmicrohttpd.sh),
#          and the viewer's pinned libraries from npm (package.json
#          "dependencies": Leaflet): what `make run` needs
#   test   build, and the test tools: Chromium, clang, valgrind, numpy,
#          PIL, GDAL, sqlite3 (independent readers of our formats), and the
#          npm "devDependencies" (Playwright, a PNG decoder, a schema checker)
#   bench  test, and the benchmark peers (and nginx and python3-yaml for
#          make deploytest); image: build, and buildah/debootstrap
# --check installs nothing: it names what is missing and the command that
# installs it, and fails if anything is. --list prints the Debian packages and
# npm packages of the level, one a line ("npm:NAME" for npm), and exits.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=install
case "${1:-}" in --check) mode=check; shift ;; --list) mode=list; shift ;; esac
level=${1:-test}

pkgs_build="gcc make pkg-config libc6-dev curl xz-utils patch libpng-dev zlib1g-dev libdeflate-dev libjansson-dev libsqlite3-dev libwebp-dev nodejs npm"
pkgs_test="chromium clang libclang-rt-14-dev valgrind python3-numpy python3-pil webp gdal-bin sqlite3"
pkgs_bench="g++ cmake libstb-dev libnoise-dev wrk nginx-light python3-yaml"
pkgs_image="buildah debootstrap"

want="$pkgs_build"
npm_level=build
case "$level" in
  build) ;;
  test) want="$want $pkgs_test"; npm_level=test ;;
  bench) want="$want $pkgs_test $pkgs_bench"; npm_level=test ;;
  image) want="$want $pkgs_image" ;;
  *) echo "deps.sh: unknown level '$level' (build, test, bench, image)" >&2; exit 2 ;;
esac

# The npm packages of a level, from package.json (no node needed to read it).
npm_names() { # npm_names SECTION
  sed -n "/\"$1\"[[:space:]]*:[[:space:]]*{/,/}/p" package.json | grep -oE '^[[:space:]]*"[^"]+"[[:space:]]*:' | sed -E 's/^[[:space:]]*"([^"]+)".*/\1/' | grep -vx "$1" || true
}
if [ "$mode" = list ]; then
  printf '%s\n' $want
  for n in $(npm_names dependencies); do echo "npm:$n"; done
  if [ "$npm_level" = test ]; then for n in $(npm_names devDependencies); do echo "npm:$n"; done; fi
  exit 0
fi

missing=""
# The libraries the compiler needs, as pkg-config finds them (PKGS, from the
# Makefile), each with the Debian package that provides it.
if [ "$mode" = check ]; then
  for m in ${PKGS:-libpng jansson sqlite3 libdeflate libwebp}; do
    pkg-config --exists "$m" 2>/dev/null && continue
    case $m in
      libpng*) d=libpng-dev ;; jansson) d=libjansson-dev ;; zlib) d=zlib1g-dev ;;
      sqlite3) d=libsqlite3-dev ;; libdeflate) d=libdeflate-dev ;; libwebp) d=libwebp-dev ;;
      *) d="$m(pkg-config)" ;;
    esac
    command -v pkg-config >/dev/null 2>&1 || d=pkg-config
    case " $missing " in *" $d "*) ;; *) missing="$missing $d" ;; esac
  done
fi
for p in $want; do
  # node may come from outside Debian (a newer build in /usr/bin or /usr/local/bin)
  if [ "$p" = nodejs ] && command -v node >/dev/null 2>&1; then continue; fi
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
  case " $missing " in *" $p "*) continue ;; esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

install_cmd() { # the command that installs this level
  case "$level" in build) echo "make deps" ;; test) echo "make deps-test" ;; *) echo "scripts/deps.sh $level" ;; esac
}

if [ "$mode" = check ]; then
  if [ -n "$missing" ]; then
    echo "noisetile: missing:$missing" >&2
    echo "noisetile: install them with '$(install_cmd)' as root, or: sudo apt-get install$missing" >&2
    exit 1
  fi
  exit 0
fi

if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "deps.sh: installing Debian packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $missing >/dev/null
  else
    echo "deps.sh: missing Debian packages:$missing" >&2
    echo "deps.sh: run '$(install_cmd)' as root, or: sudo apt-get install$missing" >&2
    exit 1
  fi
fi

if [ "$level" != image ]; then
  # npm ci when node_modules is older than the lockfile or lacks the level's
  # packages (node_modules/.noisetile-npm says which level installed it).
  # The build level installs only "dependencies" (--omit=dev) and never
  # removes the test level's packages. Packages already in npm's cache are
  # taken from it (the lockfile's integrity hashes still check them).
  have=$(cat node_modules/.noisetile-npm 2>/dev/null || echo none)
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    have=none
  fi
  if [ "$have" = none ] || { [ "$npm_level" = test ] && [ "$have" = build ]; }; then
    omit=(); [ "$npm_level" = build ] && omit=(--omit=dev)
    echo "deps.sh: npm ci${omit[*]:+ ${omit[*]}}"
    # Behind a TLS-intercepting proxy, NODE_EXTRA_CA_CERTS names its CA bundle.
    npm ci "${omit[@]}" --no-audit --no-fund --loglevel=error --prefer-offline
    echo "$npm_level" >node_modules/.noisetile-npm
  fi
fi
