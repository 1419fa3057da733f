// strain.test.mjs: the daemon under strain (issue 27, point 7).
// - Stopped (SIGSTOP) longer than its idle timeout and request deadline and
//   continued, it answers every request that was complete, and one that was
//   half sent before the stop and finished after it: deadlines are measured
//   in the time the process ran, and bytes waiting unread are not idleness
//   (libmicrohttpd patch 08). Shortened timeouts (NOISETILE_TEST_TIMEOUTS)
//   keep the test short; the mechanism is the same at 10 s and 30 s.
// - SIGTERM refuses new connections at once (the listening socket is
//   closed at the drain's start) and lets a grid being streamed to a slow
//   reader finish within the drain time (10 s); it was cut after 4-6 s.
// - After a burst of 600 grid clients that do not read, the resident
//   memory returns near its level before (measured from /proc; release
//   build, since the sanitizer's allocator keeps freed memory on purpose).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDaemon, waitFor, BIN } from './daemon.mjs';
import { responses } from './rawhttp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

// A keep-alive connection that collects what it receives.
function open(port) {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ port, host: '127.0.0.1' });
    const c = { sock, data: Buffer.alloc(0), closed: false };
    sock.on('data', (b) => { c.data = Buffer.concat([c.data, b]); });
    sock.on('close', () => { c.closed = true; });
    sock.on('error', () => {});
    sock.on('connect', () => resolve(c));
    sock.on('error', reject);
  });
}

test('stopped longer than the idle timeout and the deadline, then continued: every complete request is answered', async () => {
  // request deadline 3 s, idle timeout 2 s; the stop lasts 4.5 s
  const d = await startDaemon({ args: ['--threads', '2', '--cache-mb', '8'], env: { NOISETILE_TEST_TIMEOUTS: '3000,2' } });
  try {
    const conns = [];
    for (let i = 0; i < 30; i++) conns.push(await open(d.port));
    // one answered request on each: established keep-alive connections
    for (const c of conns) c.sock.write('GET /healthz?warm HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => conns.every((c) => responses(c.data).length === 1), 'the first answers');
    d.child.kill('SIGSTOP');
    await sleep(200);
    // 20 complete requests, 10 sent half (the rest follows the SIGCONT)
    conns.forEach((c, i) => c.sock.write(i < 20 ? `GET /healthz?n=${i} HTTP/1.1\r\nHost: x\r\n\r\n` : `GET /healthz?n=${i} HTTP/1.1\r\nHo`));
    await sleep(4500);
    d.child.kill('SIGCONT');
    conns.slice(20).forEach((c) => c.sock.write('st: x\r\n\r\n'));
    await waitFor(() => conns.every((c) => c.closed || responses(c.data).length >= 2), 'the answers after SIGCONT');
    const statuses = conns.map((c) => responses(c.data).map((r) => r.status));
    assert.deepEqual(statuses, conns.map(() => [200, 200]), JSON.stringify(statuses));
    assert.ok(conns.every((c) => !c.closed));
    conns.forEach((c) => c.sock.destroy());
  } finally {
    d.child.kill('SIGCONT');
    await d.stop();
  }
});

test('SIGTERM: new connections are refused at once; a grid streamed to a slow reader finishes within the drain time', async () => {
  const d = await startDaemon({ args: ['--threads', '2', '--cache-mb', '8'] });
  const W = 2049;
  const expected = 128 + W * W * 4; // .npy: its 128-byte header, then float32 samples
  const rate = 2.4e6; // bytes/s: about 7 s for the grid, more than the old cut at 4-6 s
  const t0 = Date.now();
  let got = 0, closedAt = 0, head = '';
  const done = new Promise((resolve) => {
    const sock = net.connect({ port: d.port, host: '127.0.0.1' }, () => {
      sock.write(`GET /perlin/7/grid.npy?x=0&y=0&step=0.001&width=${W}&height=${W} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    });
    sock.on('data', (b) => {
      if (head.length < 400) head += b.toString('latin1', 0, Math.min(b.length, 400));
      got += b.length;
      // read no faster than rate
      const ahead = got / rate * 1000 - (Date.now() - t0);
      if (ahead > 0) { sock.pause(); setTimeout(() => sock.resume(), ahead); }
    });
    sock.on('close', () => { closedAt = Date.now(); resolve(); });
    sock.on('error', () => {});
  });
  await waitFor(() => got > 0, 'the first bytes of the grid');
  d.child.kill('SIGTERM');
  await sleep(300);
  // a new client is refused, not left waiting in the listen backlog
  const refused = await new Promise((resolve) => {
    const s = net.connect({ port: d.port, host: '127.0.0.1' });
    const timer = setTimeout(() => { s.destroy(); resolve('no answer within 2 s'); }, 2000);
    s.on('connect', () => { clearTimeout(timer); s.destroy(); resolve('connected'); });
    s.on('error', (e) => { clearTimeout(timer); resolve(e.code); });
  });
  assert.equal(refused, 'ECONNREFUSED');
  await done;
  const headerEnd = head.indexOf('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(head, new RegExp(`\r\nContent-Length: ${expected}\r\n`));
  assert.equal(got - (headerEnd + 4), expected, `grid cut after ${((closedAt - t0) / 1000).toFixed(1)} s`);
  assert.ok(closedAt - t0 > 5000, `the reader took ${closedAt - t0} ms: not slower than the old cut`);
  const { code, signal } = await d.exited;
  assert.equal(signal, null);
  assert.equal(code, 0, d.stderr().slice(-2000));
});

// Resident memory before, at the peak of and after a burst of n grid
// clients that send their request (gzip accepted, as browsers and most
// clients do) and never read (Python: a small receive buffer per socket,
// which node cannot set), each for its own seed. Measured on 2 cores: 5 MB
// before, 330 MB at the peak, 32 MB after without the trim, 17 MB with it.
const BURST_PY = `
import json, socket, sys, time
pid, port, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
def rss():
    for l in open('/proc/%d/status' % pid):
        if l.startswith('VmRSS'): return int(l.split()[1]) // 1024
out = {'before': rss()}
socks = []
for i in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(('127.0.0.1', port))
    s.sendall(b'GET /perlin/%d/grid.npy?x=0&y=0&step=0.01&width=1025&height=1025 HTTP/1.1\\r\\nHost: x\\r\\nAccept-Encoding: gzip\\r\\n\\r\\n' % (i + 1))
    socks.append(s)
time.sleep(4)
out['peak'] = rss()
for s in socks: s.close()
after = []
for i in range(8):
    time.sleep(1)
    after.append(rss())
out['after'] = after
print(json.dumps(out))
`;

test('memory after a burst of 600 non-reading grid clients returns near its level before', async (t) => {
  // make test builds the release binary and names it, so there the case
  // always runs; run by hand without one it is skipped, saying so.
  const rel = process.env.NOISETILE_REL_BIN || path.join(root, 'build', 'noisetile');
  if (process.env.NOISETILE_REL_BIN && !existsSync(rel)) assert.fail(`NOISETILE_REL_BIN=${rel} does not exist`);
  if (BIN.includes('valgrind') || !existsSync(rel)) {
    t.skip(`needs the release build (${rel}: make build/noisetile); the sanitizer's allocator keeps freed memory`);
    return;
  }
  const d = await startDaemon({ args: ['--cache-mb', '8', '--access-log', 'off'], bin: rel });
  try {
    // one grid first: what a warm daemon holds
    const warm = await fetch(`${d.url}/perlin/7/grid.npy?x=0&y=0&step=0.01&width=1025&height=1025`); // gzip, undone by fetch
    assert.equal((await warm.arrayBuffer()).byteLength, 128 + 1025 * 1025 * 4);
    await sleep(1500);
    const m = await new Promise((resolve, reject) => {
      execFile('python3', ['-c', BURST_PY, String(d.child.pid), String(d.port), '600'], { timeout: 40000 }, (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout))));
    });
    t.diagnostic(`RSS MB: before ${m.before}, peak ${m.peak}, after ${m.after.join(' ')}`);
    assert.ok(m.peak > m.before + 50, `the burst took memory: ${JSON.stringify(m)}`);
    // near its level before: at most a tenth of what the burst took stays
    // (allocator pages holding live small blocks; 18 MB of 330 in ccfc1f3,
    // 20 MB of 337 once requests carry a graph's text)
    const kept = Math.min(...m.after) - m.before;
    assert.ok(kept < (m.peak - m.before) / 10, `RSS after the burst: ${JSON.stringify(m)}`);
    const h = await fetch(`${d.url}/healthz`);
    assert.equal(h.status, 200);
  } finally {
    await d.stop();
  }
});
