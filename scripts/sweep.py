#!/usr/bin/env python3
"""sweep.py: the same few hundred requests to two noisetile binaries, and
every difference in status, headers (but Date) and body.

For a change that must not change behaviour (a refactor, a new build of a
dependency): run it with the binary of main before the change and the one
after. Tiles, numeric tiles, grids (plain and gzip), points, batches, stats,
TileJSON, documents, HEAD, If-None-Match and bad requests, over every kind.

Usage: scripts/sweep.py OLD_BINARY NEW_BINARY [--list] [--ignore PATH_PREFIX ...]
Prints one line per differing request and a summary; exits 1 if any differ.
"""
import hashlib
import http.client
import itertools
import json
import os
import socket
import subprocess
import sys
import time

KINDS = ["value", "perlin", "simplex", "improved", "cellular", "classic"]


def requests():
    """(method, target, body, headers) tuples, deterministic."""
    out = []
    add = lambda m, t, b=None, h=None: out.append((m, t, b, h or {}))
    tile_params = [
        "",
        "?octaves=6&palette=terrain&shade=1",
        "?palette=viridis&zero=1",
        "?octaves=3&fractal=ridged&warp=0.5",
        "?fractal=turbulence&octaves=4&gain=0.6&lacunarity=2.5",
        "?t=0.75&palette=terrain",
        "?frequency=3&palette=gray&shade=1",
    ]
    for kind, (z, x, y), p in itertools.product(KINDS, [(0, 0, 0), (3, -2, 5), (7, 100, -33)], tile_params):
        if kind == "classic" and "t=" in p:
            p = "?palette=terrain"
        add("GET", f"/{kind}/7/{z}/{x}/{y}.png{p}")
    for kind in KINDS:
        add("GET", f"/{kind}/1/2/1/1@2x.png?shade=1&palette=terrain")
        add("GET", f"/{kind}/3/4/-1/-1.npy")
        add("GET", f"/{kind}/3/4/-1/-1.npy?gradient=1&octaves=2")
        add("GET", f"/{kind}/3/4/2/-3.r16?octaves=5")
        add("GET", f"/{kind}/3/4/2/-3@2x.r16")
        for enc in ["gray16", "terrarium", "mapbox"]:
            add("GET", f"/{kind}/9/5/3/4.png?encoding={enc}&height_scale=500&height_offset=10")
        add("GET", f"/{kind}/9/5/3/4.npy", h={"Accept-Encoding": "gzip"})
        w = "x=-3.5&y=2.25&step=0.05&width=67&height=45"
        add("GET", f"/{kind}/2/grid.npy?{w}")
        add("GET", f"/{kind}/2/grid.npy?{w}&gradient=1&octaves=4")
        add("GET", f"/{kind}/2/grid.r16?{w}&octaves=3")
        add("GET", f"/{kind}/2/grid.png?{w}&palette=terrain&shade=1")
        add("GET", f"/{kind}/2/grid.png?{w}&encoding=terrarium")
        add("GET", f"/{kind}/2/grid.npy?{w}", h={"Accept-Encoding": "gzip"})
        add("HEAD", f"/{kind}/2/grid.r16?{w}")
        add("GET", f"/{kind}/5/point?x=1.25&y=-3.5")
        add("GET", f"/{kind}/5/point?x=1e6&y=-0.001&octaves=6&warp=1")
        add("GET", f"/{kind}/5/stats?x=0&y=0&step=0.1&width=64&height=48&bins=16")
        add("GET", f"/{kind}/5/tile.json?octaves=4&palette=terrain")
        pts = [[i * 0.37 - 5, i * -0.21 + 2] for i in range(40)]
        add("POST", f"/{kind}/5/points?octaves=3", json.dumps({"points": pts}).encode(),
            {"Content-Type": "application/json"})
        add("POST", f"/{kind}/5/points", json.dumps({"points": pts[:5]}).encode(),
            {"Content-Type": "application/json", "Accept-Encoding": "gzip"})
        add("HEAD", f"/{kind}/7/3/-2/5.png")
    # cellular and period variants
    for ret, dist in itertools.product(["f1", "f2", "f2-f1", "cell"], ["euclidean", "manhattan", "chebyshev"]):
        add("GET", f"/cellular/4/3/1/2.png?return={ret}&distance={dist}&jitter=0.8&palette=terrain")
    for kind in ["value", "perlin", "improved", "cellular", "classic"]:
        add("GET", f"/{kind}/8/2/0/0.png?period=4&octaves=3")
        add("GET", f"/{kind}/8/2/3/3.npy?period=4")
    add("GET", "/value/1/3/0/0.png?lattice=triangle")
    add("GET", "/perlin/1/3/0/0.png?lattice=triangle&octaves=2")
    add("GET", "/perlin/1/3/0/0.png?gradients=angle")
    add("GET", "/simplex/1/3/0/0.png?falloff=quartic&gradients=angle")
    add("GET", "/classic/1/3/0/0.png?fade=quintic")
    # same field spelled differently
    add("GET", "/perlin/7/3/1/1.png?octaves=2.0&palette=gray")
    add("GET", "/perlin/7/3/1/1.png?palette=gray&octaves=2")
    add("GET", "/per%6Cin/7/point?x=1&y=2")
    # conditional
    add("GET", "/perlin/7/3/-2/5.png", h={"If-None-Match": '"0000000000000000", *'})
    # documents
    for t in ["/api/kinds", "/openapi.json", "/healthz", "/", "/index.html", "/viewer.js", "/nope.js"]:
        add("GET", t)
    # bad requests
    for t in [
        "/perlin/7/3/1/1.png?octaves=17", "/perlin/7/3/1/1.png?octaves=2&octaves=3",
        "/perlin/7/3/1/1.png?bogus=1", "/perlin/7/31/1/1.png", "/perlin/x/3/1/1.png",
        "/nokind/7/3/1/1.png", "/perlin/7/3/1/1@3x.png", "/perlin/7/3/1/1.jpg",
        "/perlin/7/point?x=1", "/perlin/7/point?x=nan&y=1", "/perlin/7/grid.npy?x=0&y=0&step=1&width=9000&height=2",
        "/perlin/7/grid.npy?x=0&y=0&step=1&width=4097&height=4097&octaves=16&warp=1&t=1",
        "/perlin/7/stats?x=0&y=0&step=1&width=4097&height=4097&octaves=16&warp=1&t=1",
        "/classic/7/point?x=1&y=2&t=1", "/cellular/7/point?x=1&y=2&lattice=triangle",
        "/perlin/7/3/1/1.npy?palette=terrain", "/perlin/7/3/1/1.png?encoding=gray16&shade=1",
        "/perlin/7/3/1/1.png?shade=2", "/perlin/7/tile.json?octaves=0", "/perlin/7/foo",
    ]:
        add("GET", t)
    add("POST", "/perlin/7/points", b"{not json", {"Content-Type": "application/json"})
    add("POST", "/perlin/7/points", b'{"points":[[1]]}', {"Content-Type": "application/json"})
    add("PUT", "/perlin/7/3/1/1.png")
    add("DELETE", "/api/kinds")
    add("OPTIONS", "/perlin/7/3/1/1.png")
    return out


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(binary):
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--access-log", "off"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/healthz")
            c.getresponse().read()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"sweep: {binary} did not start")


def fetch(port, method, target, body, headers):
    """status, headers but Date, body; the daemon's own port (in TileJSON
    URLs) written as PORT, so that two daemons' answers compare."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request(method, target, body=body, headers=headers)
    r = c.getresponse()
    here = f"127.0.0.1:{port}"
    data = r.read().replace(here.encode(), b"127.0.0.1:PORT")
    hdrs = sorted((k.lower(), v.replace(here, "127.0.0.1:PORT")) for k, v in r.getheaders()
                  if k.lower() != "date")
    c.close()
    return r.status, hdrs, data


def main():
    args = sys.argv[1:]
    if "--list" in args:
        for m, t, _, h in requests():
            print(m, t, h or "")
        return 0
    ignore = []
    while "--ignore" in args:
        i = args.index("--ignore")
        ignore.append(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    old, new = (os.path.abspath(a) for a in args)
    procs = [start(old), start(new)]
    reqs = requests()
    differ = 0
    try:
        for m, t, b, h in reqs:
            a = fetch(procs[0][1], m, t, b, h)
            z = fetch(procs[1][1], m, t, b, h)
            if a == z:
                continue
            if any(t.startswith(p) for p in ignore):
                print(f"ignored  {m} {t}")
                continue
            differ += 1
            what = []
            if a[0] != z[0]:
                what.append(f"status {a[0]} -> {z[0]}")
            if a[1] != z[1]:
                ha, hz = dict(a[1]), dict(z[1])
                for k in sorted(set(ha) | set(hz)):
                    if ha.get(k) != hz.get(k):
                        what.append(f"{k}: {ha.get(k)!r} -> {hz.get(k)!r}")
            if a[2] != z[2]:
                what.append(f"body {hashlib.sha256(a[2]).hexdigest()[:12]} ({len(a[2])} B) -> "
                            f"{hashlib.sha256(z[2]).hexdigest()[:12]} ({len(z[2])} B)")
            print(f"DIFFERS  {m} {t} {h or ''}\n         " + "\n         ".join(what))
    finally:
        for p, _ in procs:
            p.terminate()
            p.wait()
    print(f"sweep: {len(reqs)} requests, {len(reqs) - differ} identical, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
