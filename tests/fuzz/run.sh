#!/usr/bin/env bash
# run.sh: runs every fuzz target for FUZZ_SECONDS (default 60) on a working
# corpus $BUILD/fuzz/corpus/<target> seeded from tests/fuzz/corpus/<target>,
# then prints one line per target: executions, exec/s, coverage (cov: edges,
# ft: features), corpus size, and whether it crashed. Crash inputs are kept
# in $BUILD/fuzz/artifacts/<target>/. Exits 1 if any target found a crash.
# FUZZ_TARGETS="fuzz_spec fuzz_route" narrows the run; FUZZ_JOBS=2 runs two
# targets at a time (each under nice -n 10).
set -u
BUILD=${BUILD:-build}
SECONDS_EACH=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
cd "$(dirname "$0")/../.."
targets=${FUZZ_TARGETS:-$(ls tests/fuzz/fuzz_*.c | xargs -n1 basename | sed 's/\.c$//')}
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

run_one() {  # run_one TARGET
  local t=$1 work=$BUILD/fuzz/corpus/$1 art=$BUILD/fuzz/artifacts/$1/ log=$BUILD/fuzz/logs/$1.log
  local -a opts=(-max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048)
  mkdir -p "$work" "$art" "$(dirname "$log")"
  [ -f "tests/fuzz/$t.options" ] && read -r -a extra <"tests/fuzz/$t.options" && opts+=("${extra[@]}")
  nice -n 10 "$BUILD/fuzz/bin/$t" "${opts[@]}" -artifact_prefix="$art" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
  echo $? >"$log.rc"
}

i=0
for t in $targets; do
  run_one "$t" &
  i=$((i + 1))
  if [ $((i % JOBS)) -eq 0 ]; then wait; fi
done
wait

status=0
printf '%-12s %12s %8s %7s %7s %7s  %s\n' target executions exec/s cov ft corpus result
for t in $targets; do
  log=$BUILD/fuzz/logs/$t.log
  rc=$(cat "$log.rc" 2>/dev/null || echo 99)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(ls "$BUILD/fuzz/corpus/$t" | wc -l)
  result=ok
  if [ "$rc" -ne 0 ]; then
    result="CRASH (exit $rc): $(ls "$BUILD/fuzz/artifacts/$t" | head -3 | tr '\n' ' ') log $log"
    status=1
  fi
  printf '%-12s %12s %8s %7s %7s %7s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$corp" "$result"
done
exit $status
