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
# The release daemon, for what the sanitizer's allocator would hide (memory
# given back after a burst: tests/http/strain.test.mjs).
export NOISETILE_REL_BIN="${NOISETILE_REL_BIN:-$PWD/$BUILD/noisetile}"

# The C tests and the installed-library check are separate processes that
# share nothing (ephemeral ports, mktemp files), so they run TEST_JOBS at a
# time (default: the number of cores); each one's report is printed in the
# order of the list when all are done.
start_c() {  # start_c BINARY: runs it in the background, its log and status in log_dir
  local name
  name=$(basename "$1")
  ( "$1" >"$log_dir/$name.log" 2>&1; echo $? >"$log_dir/$name.rc" ) &
}

report_c() {  # report_c BINARY: counts and prints what start_c left
  local bin=$1 name out rc p f
  name=$(basename "$bin")
  out="$log_dir/$name.log"
  rc=$(cat "$log_dir/$name.rc" 2>/dev/null || echo 255)
  echo "== $name"
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

export BUILD
c_tests=()
for bin in $BUILD/asan/bin/test_* $BUILD/tsan/bin/test_* tests/setup/test_*.sh; do
  [ -x "$bin" ] && c_tests+=("$bin")
done
jobs_max=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
c_pids=()
for bin in "${c_tests[@]}"; do
  rm -f "$log_dir/$(basename "$bin").rc"
  while :; do  # at most jobs_max C tests at once
    live=0
    for pid in "${c_pids[@]}"; do kill -0 "$pid" 2>/dev/null && live=$((live + 1)); done
    [ "$live" -lt "$jobs_max" ] && break
    sleep 0.2
  done
  start_c "$bin"
  c_pids+=($!)
done
for pid in "${c_pids[@]}"; do wait "$pid"; done
for bin in "${c_tests[@]}"; do
  report_c "$bin"
done

# The node tests one file at a time (they start daemons and time them),
# after the C tests: beside them they took longer.
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
