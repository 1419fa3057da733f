#!/usr/bin/env bash
# bench-http.sh: cached tiles from the daemon against nginx serving the same
# bytes from disk, in one run, on loopback (make bench-http).
#
# The release daemon renders a set of tiles once (warming its cache); the
# same bytes go to a temporary directory served by nginx (2 workers, access
# log off, the same tile headers). wrk (2 threads) then runs against each
# server in turn, alternating which goes first, at 64 and 256 connections,
# over the whole tile set (a Lua script rotating over the URLs) and on a
# single hot tile. Figures: requests/s and the ratio daemon/nginx (median
# over the rounds). Then the threading modes of libmicrohttpd on the hot
# tile (BENCHMARKS.md, "HTTP"): epoll pools of other shapes only, as
# thread-per-connection cannot resume the render pool's suspended requests
# (the daemon refuses NOISETILE_BENCH_MHD=perconn at start).
#
# Then the render pool's runs (bench/http/pool-bench.mjs: latency isolation,
# fairness between addresses, overload at 10x the queue's bound, 1 MiB
# batches and RSS), for this build and, when BASELINE_BIN names one, for
# that binary too (the previous commit's build), one after the other.
#
# Environment: BUILD (build dir, default build), SECONDS_PER_RUN (10),
# ROUNDS (2), MODES (1: also compare threading modes), POOL (1: the render
# pool's runs), POOL_BENCH_SECONDS (15), BASELINE_BIN, OUT (report file).
#
# Nothing here waits without a bound: every curl has -m, wrk runs under
# timeout(1) besides its own -d, the pool runs under timeout(1), and a
# daemon that does not exit within 30 s of SIGTERM is killed and reported.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$PWD/$BUILD/noisetile
DUR=${SECONDS_PER_RUN:-10}
ROUNDS=${ROUNDS:-2}
MODES=${MODES:-1}
POOL=${POOL:-1}
OUT=${OUT:-$PWD/$BUILD/bench-http.txt}
LUA=$PWD/bench/http/paths.lua

for tool in wrk nginx curl; do
  command -v "$tool" >/dev/null || { echo "bench-http: $tool missing (scripts/deps.sh bench)" >&2; exit 1; }
done
[ -x "$BIN" ] || { echo "bench-http: $BIN missing (make $BUILD/noisetile)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/noisetile-bench-http.XXXXXX)
chmod 755 "$tmp"
daemon_pid=""
nginx_pid=""
cleanup() {
  if [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null; then
    for _ in $(seq 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null
  sleep 0.2
  rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# start_daemon [ENV=VALUE...] -- [FLAGS...]: sets daemon_pid and dport.
start_daemon() {
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  : >"$tmp/daemon.out"
  env "${envs[@]}" "$BIN" --port 0 --cache-mb 256 "$@" >"$tmp/daemon.out" 2>"$tmp/daemon.log" &
  daemon_pid=$!
  for _ in $(seq 100); do
    grep -q listening "$tmp/daemon.out" && break
    sleep 0.05
  done
  dport=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/daemon.out")
  [ -n "$dport" ] || { echo "bench-http: daemon did not start" >&2; cat "$tmp/daemon.log" >&2; exit 1; }
}
stop_daemon() {
  kill "$daemon_pid"
  local i
  for i in $(seq 300); do
    kill -0 "$daemon_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$daemon_pid" 2>/dev/null; then
    kill -9 "$daemon_pid"
    wait "$daemon_pid" 2>/dev/null || true
    daemon_pid=""
    echo "bench-http: the daemon did not exit within 30 s of SIGTERM (killed)" >&2
    exit 1
  fi
  wait "$daemon_pid" || { echo "bench-http: daemon exited with $?" >&2; exit 1; }
  daemon_pid=""
}
warm() {  # fetch every path once (fills the cache) and keep the bytes
  while read -r p; do
    mkdir -p "$tmp/www$(dirname "$p")"
    curl -sf -m 30 -o "$tmp/www$p" "http://127.0.0.1:$dport$p" || { echo "bench-http: GET $p failed" >&2; exit 1; }
  done <"$1"
}

# The tile set: 64 tiles of two fields and two palettes at zoom 5, plus one
# hot tile. Paths only (no query string), so nginx maps them to files.
: >"$tmp/tiles.txt"
for x in 0 1 2 3 4 5 6 7; do
  for y in 0 1 2 3; do
    echo "/perlin/7/5/$x/$y.png" >>"$tmp/tiles.txt"
    echo "/simplex/42/5/$x/$y@2x.png" >>"$tmp/tiles.txt"
  done
done
echo "/perlin/7/3/1/2.png" >"$tmp/hot.txt"

start_daemon -- 
warm "$tmp/tiles.txt"
warm "$tmp/hot.txt"
tile_bytes=$(cat "$tmp/tiles.txt" | while read -r p; do stat -c %s "$tmp/www$p"; done | awk '{s+=$1} END {printf "%d", s/NR}')
hot_bytes=$(stat -c %s "$tmp/www/perlin/7/3/1/2.png")

nport=$(free_port)
mkdir -p "$tmp/nginx"
cat >"$tmp/nginx/nginx.conf" <<EOF
worker_processes 2;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log;
daemon off;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_timeout 65;
  keepalive_requests 100000000;
  client_body_temp_path $tmp/nginx/body;
  types { image/png png; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$nport;
    root $tmp/www;
    etag on;
    add_header Cache-Control "public, max-age=31536000, immutable";
    add_header Access-Control-Allow-Origin "*";
  }
}
EOF
nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log" &
nginx_pid=$!
for _ in $(seq 100); do
  curl -sf -m 2 -o /dev/null "http://127.0.0.1:$nport/perlin/7/3/1/2.png" && break
  sleep 0.05
done
cmp <(curl -sf -m 10 "http://127.0.0.1:$nport/perlin/7/3/1/2.png") <(curl -sf -m 10 "http://127.0.0.1:$dport/perlin/7/3/1/2.png") ||
  { echo "bench-http: nginx and the daemon serve different bytes" >&2; exit 1; }

# cpu_ticks PID...: user+system clock ticks used so far by these processes
# (all their threads).
cpu_ticks() {
  local t=0 p
  for p in "$@"; do
    t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo "$t"
}
server_pids() {  # the processes serving PORT's requests
  if [ "$1" = "$nport" ]; then echo "$nginx_pid $(pgrep -P "$nginx_pid" | tr '\n' ' ')"; else echo "$daemon_pid"; fi
}

# run_wrk NAME PORT CONNS PATHFILE: one wrk run; appends a result line
# "NAME CONNS SET req/s p50 p99 errors req/cpu-s" to $tmp/results. The last
# figure is requests per CPU-second of the server: unlike req/s it does not
# depend on the share of the two cores the server wins from everything else
# running on the machine.
run_wrk() {
  local name=$1 port=$2 conns=$3 set=$4 out pids t0 t1
  pids=$(server_pids "$port")
  # shellcheck disable=SC2086
  t0=$(cpu_ticks $pids)
  out=$(timeout $((DUR + 30)) wrk -t2 -c"$conns" -d"${DUR}s" --timeout 5s --latency -s "$LUA" \
    "http://127.0.0.1:$port" -- "$tmp/$set.txt" 2>&1) || { echo "bench-http: wrk failed or timed out: $out" >&2; exit 1; }
  # shellcheck disable=SC2086
  t1=$(cpu_ticks $pids)
  echo "$out" >>"$tmp/wrk.log"
  echo "$out" | awk -v n="$name" -v c="$conns" -v s="$set" -v ticks=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" '
    /Requests\/sec/ { rps = $2 }
    /requests in/ { total = $1 }
    /^ +50%/ { p50 = $2 } /^ +99%/ { p99 = $2 }
    /Socket errors/ { err += $4 + $6 + $8 + $10 }
    /Non-2xx/ { err += $5 }
    END { printf "%s %s %s %s %s %s %d %.0f\n", n, c, s, rps, p50, p99, err, (ticks > 0 ? total / (ticks / hz) : 0) }' | tee -a "$tmp/results"
}

machine="$(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
{
  echo "bench-http $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $machine"
  echo "wrk -t2 -d${DUR}s, $ROUNDS rounds; tiles: 64 paths, mean $tile_bytes bytes; hot tile: $hot_bytes bytes"
  echo "daemon: $BIN --cache-mb 256 (default threads); nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), 2 workers"
} | tee "$tmp/header"

: >"$tmp/results"
echo "server conns set req/s p50 p99 errors req/cpu-s"
for r in $(seq "$ROUNDS"); do
  for conns in 64 256; do
    for set in tiles hot; do
      if [ $(((r + conns / 64) % 2)) -eq 0 ]; then
        run_wrk daemon "$dport" "$conns" "$set"
        run_wrk nginx "$nport" "$conns" "$set"
      else
        run_wrk nginx "$nport" "$conns" "$set"
        run_wrk daemon "$dport" "$conns" "$set"
      fi
    done
  done
done
grep -c '"GET ' "$tmp/daemon.log" >"$tmp/logged" || true
stop_daemon

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
{
  echo
  echo "medians over $ROUNDS rounds: requests/s, and requests per CPU-second of the server"
  printf '%-6s %-5s %10s %10s %7s   %10s %10s %7s\n' set conns daemon nginx ratio daemon/cpu nginx/cpu ratio
  for set in tiles hot; do
    for conns in 64 256; do
      d=$(awk -v s="$set" -v c="$conns" '$1=="daemon" && $2==c && $3==s {print $4}' "$tmp/results" | median)
      n=$(awk -v s="$set" -v c="$conns" '$1=="nginx" && $2==c && $3==s {print $4}' "$tmp/results" | median)
      dc=$(awk -v s="$set" -v c="$conns" '$1=="daemon" && $2==c && $3==s {print $8}' "$tmp/results" | median)
      nc=$(awk -v s="$set" -v c="$conns" '$1=="nginx" && $2==c && $3==s {print $8}' "$tmp/results" | median)
      printf '%-6s %-5s %10.0f %10.0f %6.1f%%   %10.0f %10.0f %6.1f%%\n' "$set" "$conns" "$d" "$n" \
        "$(echo "$d $n" | awk '{print 100*$1/$2}')" "$dc" "$nc" "$(echo "$dc $nc" | awk '{print 100*$1/$2}')"
    done
  done
  echo "errors (socket errors + non-2xx/3xx) over all runs: $(awk '{s+=$7} END {print s}' "$tmp/results")"
  echo "access-log lines written by the daemon: $(cat "$tmp/logged")"
} | tee "$tmp/summary"

# Threading modes of libmicrohttpd, hot tile, one run each (same machine,
# same minute). NOISETILE_BENCH_MHD is a benchmark-only switch (http.c).
if [ "$MODES" = 1 ]; then
  : >"$tmp/modes"
  mode_run() {  # LABEL CONNS ENV -- FLAGS
    local label=$1 conns=$2
    shift 2
    start_daemon "$@"
    curl -sf -m 30 -o /dev/null "http://127.0.0.1:$dport/perlin/7/3/1/2.png" ||
      { echo "bench-http: $label: no answer to the first tile within 30 s" >&2; exit 1; }
    local line
    line=$(run_wrk "$label" "$dport" "$conns" hot)
    stop_daemon
    echo "$line" >>"$tmp/modes"
    echo "$line"
  }
  echo
  echo "threading modes (hot tile, ${DUR}s each): mode conns set req/s p50 p99 errors req/cpu-s"
  for conns in 64 256; do
    run_wrk nginx-2-workers "$nport" "$conns" hot >>"$tmp/modes"; tail -1 "$tmp/modes"
    mode_run epoll-pool-16x120 "$conns" -- --threads 16
    mode_run epoll-pool-2x2000 "$conns" NOISETILE_BENCH_MHD=pool:2000 -- --threads 2
    mode_run epoll-single-4000 "$conns" NOISETILE_BENCH_MHD=pool:4000 -- --threads 1
  done
  { echo; echo "threading modes: label conns set req/s p50 p99 errors req/cpu-s"; cat "$tmp/modes"; } >>"$tmp/summary"
fi

# The render pool: this build, then the baseline if given.
: >"$tmp/pool.jsonl"
if [ "$POOL" = 1 ]; then
  echo
  echo "render pool runs (bench/http/pool-bench.mjs; machine load $(cut -d' ' -f1-3 /proc/loadavg)):"
  for b in "$BIN" ${BASELINE_BIN:+"$BASELINE_BIN"}; do
    timeout 900 node bench/http/pool-bench.mjs "$b" >>"$tmp/pool.jsonl" ||
      { echo "bench-http: pool-bench failed or timed out (900 s) for $b" >&2; exit 1; }
  done
fi

{ cat "$tmp/header"; echo; echo "all runs: server conns set req/s p50 p99 errors req/cpu-s"; cat "$tmp/results"; cat "$tmp/summary";
  if [ -s "$tmp/pool.jsonl" ]; then echo; echo "render pool runs (JSON, one per run and binary):"; cat "$tmp/pool.jsonl"; fi; } >"$OUT"
echo
echo "report: $OUT"
