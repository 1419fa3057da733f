#!/usr/bin/env bash
# run.sh: runs every test of noisetile and ends with "N passed, N failed".
# C unit tests (sanitizer build, one "ok"/"not ok" line per test), the
# ThreadSanitizer cache test, then the node tests (black-box HTTP against the
# real sanitizer-built daemon, and the browser test), counted from their TAP.
# A binary that dies without reporting (a sanitizer abort) counts as a failure.
set -u
BUILD=${BUILD:-build}
cd "$(dirname "$0")/.."
passed=0
failed=0
log_dir=$BUILD/test-logs
mkdir -p "$log_dir"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export TSAN_OPTIONS="halt_on_error=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export NOISETILE_BIN="${NOISETILE_BIN:-$PWD/$BUILD/asan/noisetile}"

run_c() {  # run_c BINARY
  local bin=$1 name out rc p f
  name=$(basename "$bin")
  out="$log_dir/$name.log"
  echo "== $name"
  "$bin" >"$out" 2>&1
  rc=$?
  p=$(grep -c '^ok ' "$out")
  f=$(grep -c '^not ok ' "$out")
  grep -E '^(not ok|  )' "$out" | head -40
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "  $name exited with status $rc without a failing test (sanitizer?):"
    tail -30 "$out"
    f=1
  fi
  echo "   $p passed, $f failed"
  passed=$((passed + p))
  failed=$((failed + f))
}

for bin in $BUILD/asan/bin/test_*; do
  [ -x "$bin" ] && run_c "$bin"
done
for bin in $BUILD/tsan/bin/test_*; do
  [ -x "$bin" ] && run_c "$bin"
done
# shell tests (the installed library)
for sh in tests/test_*.sh; do
  [ -x "$sh" ] && BUILD=$BUILD run_c "$sh"
done

node_tests=$(ls tests/setup/*.test.mjs tests/js/*.test.mjs tests/http/*.test.mjs tests/browser/*.test.mjs 2>/dev/null)
if [ -n "$node_tests" ]; then
  echo "== node tests"
  out="$log_dir/node.tap"
  # shellcheck disable=SC2086
  node --test --test-concurrency=1 --test-reporter=tap $node_tests >"$out" 2>&1
  rc=$?
  grep -E '^\s*not ok ' "$out" | grep -v '# SKIP' | head -40
  p=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$out" | tail -1)
  f=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$out" | tail -1)
  c=$(sed -n 's/^# cancelled \([0-9]*\)$/\1/p' "$out" | tail -1)
  p=${p:-0}; f=$(( ${f:-0} + ${c:-0} ))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "  node tests exited with status $rc without a failing test:"; tail -30 "$out"; f=1
  fi
  if [ "$f" -ne 0 ]; then
    echo "  (full TAP output: $out)"
    grep -B2 -A30 'not ok' "$out" | grep -v '^ok' | head -150
  fi
  echo "   $p passed, $f failed"
  passed=$((passed + p))
  failed=$((failed + f))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
