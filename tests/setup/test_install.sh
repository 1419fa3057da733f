#!/usr/bin/env bash
# test_install.sh: the noise core as an installed library. `make install`
# into a temporary prefix, then examples/point.c built against that copy
# with pkg-config (shared, and static with --static) must print the
# README's /point answer for perlin/7 (x=1.5, y=-2.25, octaves=4) number for
# number; DESTDIR stages the same tree under another root; only noise_*
# symbols are exported, and it needs nothing but libm (no libmicrohttpd).
# One "ok"/"not ok" line per check (tests/run.sh).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n_fail=0
check() {  # check NAME COMMAND...
  local name=$1
  shift
  if "$@" >"$tmp/out.log" 2>&1; then
    echo "ok - $name"
  else
    echo "not ok - $name"
    sed 's/^/  /' "$tmp/out.log" | tail -20
    n_fail=$((n_fail + 1))
  fi
}

prefix=$tmp/prefix
check "make install PREFIX=<temporary>" make --no-print-directory install BUILD="$BUILD" PREFIX="$prefix"
check "installed files" test -f "$prefix/include/noisetile/noise.h" -a -f "$prefix/include/noisetile/noise_graph.h" -a -f "$prefix/lib/libnoisetile.a" \
  -a -L "$prefix/lib/libnoisetile.so" -a -L "$prefix/lib/libnoisetile.so.2" -a -f "$prefix/lib/pkgconfig/noisetile.pc"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# the README's answer: the numbers of its /point JSON for perlin 7
want=$(grep -m1 '"kind":"perlin","seed":7,' README.md |
  sed -E 's/.*"value":([^,]*),"gradient":\[([^,]*),([^]]*)\].*/value \1 gradient \2 \3/')
check "README shows the perlin/7 point answer" test -n "$want"

build_and_compare() {  # build_and_compare NAME PKG_CONFIG_FLAGS...
  local name=$1
  shift
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Werror examples/point.c $(pkg-config --cflags noisetile) \
    -o "$tmp/point-$name" $(pkg-config "$@" --libs noisetile) || return 1
  LD_LIBRARY_PATH=$prefix/lib "$tmp/point-$name" >"$tmp/point-$name.out" || return 1
  local got
  got=$(sed -n 's/^perlin 7 octaves=4 at (1.5, -2.25): //p' "$tmp/point-$name.out")
  echo "want: $want"
  echo "got:  $got"
  [ "$got" = "$want" ]
}
check "example, shared library, prints the README's numbers" build_and_compare shared
check "example, static library (pkg-config --static), prints the README's numbers" \
  build_and_compare static --static
# the graph interface: a one-node graph is its kind, bit for bit
graph_example() {
  cc -std=c11 -Wall -Wextra -Werror examples/graph.c $(pkg-config --cflags noisetile) \
    -o "$tmp/graph" $(pkg-config --libs noisetile) || return 1
  LD_LIBRARY_PATH=$prefix/lib "$tmp/graph" >"$tmp/graph.out" || return 1
  cat "$tmp/graph.out"
  local got
  got=$(sed -n 's/^one node perlin(octaves:4) seed 7 at (1.5, -2.25): //p' "$tmp/graph.out")
  [ "$got" = "$want" ] && grep -q '^composed add(curve(perlin(' "$tmp/graph.out"
}
check "graph example: perlin(octaves:4) as a graph prints the README's numbers; a composed graph evaluates" graph_example
check "example binary uses libnoisetile.so.2" bash -c "LD_LIBRARY_PATH='$prefix/lib' ldd '$tmp/point-shared' | grep -q 'libnoisetile.so.2 => $prefix/lib/'"
# the same answer on every path the CPU has
paths_agree() {
  local p ref=""
  for p in scalar avx2 avx512; do
    out=$(NOISE_SIMD=$p LD_LIBRARY_PATH=$prefix/lib "$tmp/point-shared" | head -1) || return 1
    out="$out / $(NOISE_SIMD=$p LD_LIBRARY_PATH=$prefix/lib "$tmp/graph")" || return 1
    echo "$p: $out"
    [ -z "$ref" ] && ref=$out
    [ "$out" = "$ref" ] || return 1
  done
}
check "examples (point, graph): the same numbers with NOISE_SIMD=scalar, avx2, avx512" paths_agree
exported() {
  local bad
  bad=$(nm -D --defined-only "$prefix/lib/libnoisetile.so" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -v '^noise_')
  [ -z "$bad" ] || { echo "exported beyond noise_*: $bad"; return 1; }
}
check "shared library exports only noise_* symbols" exported
# The core stands alone: the daemon's libraries (libmicrohttpd, libpng,
# jansson) are no part of it, in the shared library or in noisetile.pc.
alone() {
  local needed
  needed=$(readelf -d "$prefix/lib/libnoisetile.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' | sort | tr '\n' ' ')
  echo "NEEDED: $needed"
  [ "$needed" = "libc.so.6 libm.so.6 " ] || return 1
  ! grep -Ei 'requires|microhttpd|png|jansson' "$prefix/lib/pkgconfig/noisetile.pc"
}
check "the installed library needs only libm and libc (no libmicrohttpd), its .pc no other package" alone

check "make install DESTDIR=<root> PREFIX=/usr/local stages under the root" \
  make --no-print-directory install BUILD="$BUILD" DESTDIR="$tmp/root" PREFIX=/usr/local
check "staged pkg-config file names /usr/local" grep -qx 'prefix=/usr/local' "$tmp/root/usr/local/lib/pkgconfig/noisetile.pc"
check "make uninstall removes the files" bash -c "make --no-print-directory uninstall BUILD='$BUILD' PREFIX='$prefix' &&
  ! ls '$prefix/lib'/libnoisetile* '$prefix/include/noisetile/noise.h' '$prefix/include/noisetile/noise_graph.h' 2>/dev/null"
[ "$n_fail" -eq 0 ]
