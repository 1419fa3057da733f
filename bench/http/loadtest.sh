#!/usr/bin/env bash
# loadtest.sh: 256 connections for 60 s against the release daemon on
# loopback (make loadtest): cached tiles, new tiles (each a cache miss),
# points and POST batches (bench/http/mix.lua). Passes when there are no
# socket errors, no response outside 2xx/304, and the daemon's peak RSS
# (VmHWM) stays under its cache budget plus 64 MiB; the budget is small
# (--cache-mb 64) so that it fills and eviction happens during the run.
#
# Latency: wrk's own figures (corrected by wrk for coordinated omission:
# made-up samples, see bench/http/mix.lua) and the figures as measured, per
# request; and, from the daemon's access log, each kind of request's time
# in the daemon (request line read to response sent).
#
# Environment: BUILD (default build), DURATION (60), CONNS (256),
# CACHE_MB (64), OUT (report file). Nothing waits without a bound (curl -m,
# timeout(1) around wrk, a daemon not gone 30 s after SIGTERM is killed).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$PWD/$BUILD/noisetile
DURATION=${DURATION:-60}
CONNS=${CONNS:-256}
CACHE_MB=${CACHE_MB:-64}
OUT=${OUT:-$PWD/$BUILD/loadtest.txt}

command -v wrk >/dev/null || { echo "loadtest: wrk missing (scripts/deps.sh bench)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "loadtest: $BIN missing" >&2; exit 1; }

tmp=$(mktemp -d /tmp/noisetile-loadtest.XXXXXX)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

"$BIN" --port 0 --cache-mb "$CACHE_MB" >"$tmp/out" 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do grep -q listening "$tmp/out" && break; sleep 0.05; done
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/out")
[ -n "$port" ] || { echo "loadtest: daemon did not start" >&2; cat "$tmp/log" >&2; exit 1; }
base=http://127.0.0.1:$port

# 200 cached tiles (fetched once now), 3 fields.
: >"$tmp/cached.txt"
for x in $(seq 0 9); do
  for y in $(seq 0 6); do
    echo "/perlin/7/4/$x/$y.png" >>"$tmp/cached.txt"
    echo "/simplex/42/4/$x/$y.png?palette=viridis" >>"$tmp/cached.txt"
    echo "/value/9/3/$x/$y.png?octaves=5&palette=terrain&shade=1" >>"$tmp/cached.txt"
  done
done
head -200 "$tmp/cached.txt" >"$tmp/c" && mv "$tmp/c" "$tmp/cached.txt"
while read -r p; do
  curl -sf -m 30 -o /dev/null "$base$p" || { echo "loadtest: GET $p failed" >&2; exit 1; }
done <"$tmp/cached.txt"

machine="$(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -r)"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
sleep 0.2 # the access log's lines so far (the fetches above) are written
skip=$(wc -l <"$tmp/log")
timeout $((DURATION + 60)) wrk -t2 -c"$CONNS" -d"${DURATION}s" --timeout 10s -s bench/http/mix.lua \
  "$base" -- "$tmp/cached.txt" "$CONNS" >"$tmp/wrk.txt" 2>&1 || true
hwm_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
threads=$(awk '/^Threads/ {print $2}' "/proc/$pid/status")
metrics=$(curl -sf -m 30 "$base/metrics")
kill "$pid"
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
  echo "loadtest: the daemon did not exit within 30 s of SIGTERM (killed)" >&2
  kill -9 "$pid" 2>/dev/null || true
fi
code=0
wait "$pid" || code=$?
pid=""

get() { awk -v k="$1" '$1 == "loadtest:" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$tmp/wrk.txt" | head -1; }
metric() { echo "$metrics" | awk -v k="$1" '$1 == k {print $2}'; }
requests=$(get requests); rps=$(get rps)
ok=$(get status_2xx); n304=$(get status_304); other=$(get status_other)
sock=$(awk '$1 == "loadtest:" && $2 == "socket_errors" {print $4 + $6 + $8 + $10}' "$tmp/wrk.txt")
p50=$(get p50); p90=$(get p90); p99=$(get p99); pmax=$(get max)
measured=$(awk '$1 == "loadtest:" && $2 == "measured_ms" { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' "$tmp/wrk.txt")
# The daemon's time per request kind, from its access log (a line ends with
# the time, "<ms>ms", or with "(aborted)": those are left out): p50 / p99 /
# max in ms and the count.
kinds=$(awk '
  / \(aborted\)$/ { next }
  {
    m = 0  # the method field: the third, or the second in older logs without a time
    for (i = 1; i < NF && m == 0; i++) if ($i == "\"GET" || $i == "\"POST") m = i
    if (m == 0) next
    t = $NF; sub(/ms$/, "", t)
    p = $(m + 1)
    k = $m == "\"POST" ? "batch" : p ~ /\/point\?/ ? "point" : p ~ /^\/perlin\/7\/2\// ? "new_tile" : "cached_tile"
    print k, t
  }' <(tail -n +"$((skip + 1))" "$tmp/log") | sort -k1,1 -k2,2g | awk '
  function flush(  i50, i99) {
    if (c == 0) return
    i50 = int(c * 0.5) + 1; i99 = int(c * 0.99) + 1
    if (i99 > c) i99 = c
    printf "%s p50 %.2f p99 %.2f max %.2f (%d); ", k, a[i50], a[i99], a[c], c
  }
  $1 != k { flush(); k = $1; c = 0 }
  { a[++c] = $2 }
  END { flush() }')
limit_kb=$(((CACHE_MB + 64) * 1024))
logged=$(grep -c '"GET \|"POST ' "$tmp/log" || true)

report=$(cat <<EOF
loadtest $(date -u '+%Y-%m-%d %H:%M UTC'), release build ($BIN)
machine: $machine, load before $load_before
daemon: --cache-mb $CACHE_MB, default threads ($threads threads in the process at the end)
wrk -t2 -c$CONNS -d${DURATION}s -s bench/http/mix.lua: 70% cached tiles (200), 10% new tiles
  (unique coordinates, octaves=6, terrain), 12% GET points, 8% POST batches of 100 points
requests: $requests ($rps/s); 2xx $ok, 304 $n304, other $other; socket errors $sock
latency, wrk (coordinated-omission corrected): p50 ${p50} ms, p90 ${p90} ms, p99 ${p99} ms, max ${pmax} ms
latency, as measured (ms): ${measured:-not reported}
in the daemon (access log, ms): ${kinds%; }
daemon peak RSS (VmHWM): $((hwm_kb / 1024)) MiB (limit $((limit_kb / 1024)) MiB = cache budget + 64); RSS at the end $((rss_kb / 1024)) MiB
cache: $(metric noisetile_cache_entries) entries, $(( $(metric noisetile_cache_bytes) / 1048576 )) MiB of $(( $(metric noisetile_cache_budget_bytes) / 1048576 )) MiB, hits $(metric noisetile_cache_hits_total), misses $(metric noisetile_cache_misses_total), evictions $(metric noisetile_cache_evictions_total)
access-log lines: $logged; daemon exit status after SIGTERM: $code
EOF
)
echo "$report" | tee "$OUT"
grep '^loadtest: first bad' "$tmp/wrk.txt" | tee -a "$OUT" || true

fail=0
[ "${sock:-1}" -eq 0 ] || { echo "FAIL: $sock socket errors"; fail=1; }
[ "${other:-1}" -eq 0 ] || { echo "FAIL: $other responses outside 2xx/304"; fail=1; }
[ "${requests:-0}" -gt 0 ] || { echo "FAIL: no requests"; cat "$tmp/wrk.txt"; fail=1; }
[ "$hwm_kb" -lt "$limit_kb" ] || { echo "FAIL: peak RSS over the budget"; fail=1; }
[ "$(metric noisetile_cache_evictions_total)" -gt 0 ] || { echo "FAIL: the cache never evicted (budget not filled)"; fail=1; }
[ "$code" -eq 0 ] || { echo "FAIL: daemon exit status $code"; fail=1; }
[ "$fail" -eq 0 ] && echo "loadtest: PASS" | tee -a "$OUT"
exit "$fail"
