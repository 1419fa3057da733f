#!/usr/bin/env bash
# deps.sh: installs what building, testing and benchmarking noisetile need.
# Debian packages via apt-get when run as root (otherwise it names what is
# missing and stops), then the pinned npm packages via `npm ci`.
# Usage: scripts/deps.sh [build|test|bench|image]   (each includes the ones before it)
set -euo pipefail
cd "$(dirname "$0")/.."
level=${1:-test}

pkgs_build="gcc make pkg-config libc6-dev libmicrohttpd-dev libpng-dev zlib1g-dev libjansson-dev libsqlite3-dev"
pkgs_test="nodejs npm chromium clang libclang-rt-14-dev valgrind curl sqlite3 gdal-bin python3"
pkgs_bench="g++ libstb-dev libnoise-dev wrk nginx-light"
pkgs_image="buildah debootstrap"

want="$pkgs_build"
case "$level" in
  build) ;;
  test) want="$want $pkgs_test" ;;
  bench) want="$want $pkgs_test $pkgs_bench" ;;
  image) want="$want $pkgs_image" ;;
  *) echo "deps.sh: unknown level '$level' (build, test, bench, image)" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
  # node may come from outside Debian (a newer build in /usr/bin or /usr/local/bin)
  if [ "$p" = nodejs ] && command -v node >/dev/null 2>&1; then continue; fi
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "deps.sh: installing Debian packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $missing >/dev/null
  else
    echo "deps.sh: missing Debian packages:$missing" >&2
    echo "deps.sh: run as root, or: sudo apt-get install$missing" >&2
    exit 1
  fi
fi

if [ "$level" != build ] && [ "$level" != image ]; then
  # npm ci only when node_modules is older than the lockfile; packages already
  # in npm's cache are taken from it (the lockfile's integrity hashes still
  # check them), which halves a fresh clone's wait
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "deps.sh: npm ci"
    npm ci --no-audit --no-fund --loglevel=error --prefer-offline
  fi
fi
