#!/usr/bin/env python3
"""Cold tiles through the daemon: CPU time per tile of noisetile itself.

Each binary given (default: build/noisetile) is started fresh on a loopback
port with one render worker and no access log, serves one warm-up tile, then
N distinct cold tiles (/perlin/1/8/x/y.png, x = base + i) on one keep-alive
connection; the figure is the process's CPU time (utime + stime from
/proc/PID/stat) over those N, per tile. Binaries alternate, round by round,
on the same tiles, so a before/after pair sees the same load; the bytes are
printed so a pair can be checked to send the same tiles.

With --grids, the same for 1025 x 1025 grid windows (grid.npy, grid.r16;
the daemon caches no grid, so each of the N fetches of a window computes
it): CPU time per grid, and the bytes of one.

  bench/http/cold-tiles.py [--grids] [--tiles N] [--rounds R] [BINARY ...]
"""
import argparse
import http.client
import os
import socket
import subprocess
import time

QUERIES = ["?octaves=6", "?octaves=6&palette=terrain", "?octaves=6&palette=terrain&shade=1"]
WINDOW = "x=-8&y=-8&step=0.015625&width=1025&height=1025"
GRIDS = [f"/perlin/7/grid.npy?{WINDOW}", f"/cellular/7/grid.npy?{WINDOW}", f"/perlin/7/grid.npy?{WINDOW}&gradient=1",
         f"/value/7/grid.r16?{WINDOW}", f"/perlin/7/grid.npy?{WINDOW}&octaves=6"]


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(binary, warm, paths):
    """CPU us per fetch of paths (after one of warm), and the bytes of them all"""
    port = free_port()
    proc = subprocess.Popen([binary, "--bind", "127.0.0.1", "--port", str(port), "--workers", "1",
                             "--access-log", "off"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("GET", warm)
                conn.getresponse().read()
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        before, nbytes = cpu_seconds(proc.pid), 0
        for path in paths:
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read()
            if resp.status != 200:
                raise SystemExit(f"{binary}: status {resp.status} for {path}")
            nbytes += len(body)
        return (cpu_seconds(proc.pid) - before) / len(paths) * 1e6, nbytes
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tiles", type=int, default=200, help="tiles (or grids) per run")
    ap.add_argument("--grids", action="store_true", help="grid windows instead of tiles")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("binaries", nargs="*", default=[os.path.join(os.environ.get("BUILD", "build"), "noisetile")])
    a = ap.parse_args()
    if a.grids:
        print(f"# {a.tiles} fetches of each 1025 x 1025 window per run, daemon CPU per grid (us), one render worker")
        print("| grid | binary | round | CPU us/grid | bytes of one |\n|---|---|---:|---:|---:|")
        for g in GRIDS:
            for r in range(a.rounds):
                for b in a.binaries:
                    us, nbytes = run(b, g, [g] * a.tiles)
                    print(f"| `{g}` | {b} | {r} | {us:.0f} | {nbytes // a.tiles} |", flush=True)
        return
    print(f"# {a.tiles} cold zoom-8 tiles per run, daemon CPU per tile (us), one render worker")
    print("| query | binary | round | CPU us/tile | bytes |\n|---|---|---:|---:|---:|")
    for q in QUERIES:
        for r in range(a.rounds):
            for b in a.binaries:
                tiles = [f"/perlin/1/8/{1000 * r + i}/{i % 37}.png{q}" for i in range(a.tiles)]
                us, nbytes = run(b, f"/perlin/1/5/0/0.png{q}", tiles)
                print(f"| `{q}` | {b} | {r} | {us:.0f} | {nbytes} |", flush=True)


if __name__ == "__main__":
    main()
