// heights-stream.test.mjs: a 4097 x 4097 .r16 grid of a 2-octave field
// (33.6 MB; 33.6M units of work, well within a grid's work limit of 400M)
// streams in bands: the daemon's RSS grows by less than
// RSS_BOUND_MIB while it is sent, the first bytes arrive long before the
// last row is computed, and a client that leaves halfway stops the work
// (the daemon's CPU time stops growing). Figures go to the test's output.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { startDaemon, get } from './daemon.mjs';

// The stated bound (docs/heights.md, "Streaming and caching"): a grid's memory is
// one band of output (about 256 KiB), one row of floats, the zlib state, and
// the connection's send buffer (measured: under 1 MiB); 8 MiB leaves room for the allocator's and
// the sanitizer's own bookkeeping.
const RSS_BOUND_MIB = 8;
const SIDE = 4097;
const URL_PATH = (seed) => `/perlin/${seed}/grid.r16?x=-20&y=-20&step=0.01&width=${SIDE}&height=${SIDE}&octaves=2`;

let d;
before(async () => { d = await startDaemon({ args: ['--threads', '2'] }); });
after(async () => { await d.stop(); });

const rssKiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${d.child.pid}/status`, 'utf8'))[1]);
// utime + stime of the daemon, seconds (clock ticks of 1/100 s)
const cpuS = () => {
  const f = readFileSync(`/proc/${d.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// GETs path; calls onData(bytesSoFar, req) per chunk; resolves with figures.
function stream(path, onData = () => {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = -1, bytes = 0, peak = 0, status = 0, headers = {};
    const sampler = setInterval(() => { peak = Math.max(peak, rssKiB()); }, 20);
    const req = http.get({ host: '127.0.0.1', port: d.port, path, agent: false }, (res) => {
      status = res.statusCode;
      headers = res.headers;
      res.on('data', (c) => {
        if (first < 0) first = performance.now() - t0;
        bytes += c.length;
        peak = Math.max(peak, rssKiB());
        onData(bytes, req);
      });
      res.on('end', () => { clearInterval(sampler); resolve({ status, headers, bytes, first, total: performance.now() - t0, peak, aborted: false }); });
      res.on('error', () => {});
      res.on('close', () => { clearInterval(sampler); resolve({ status, headers, bytes, first, total: performance.now() - t0, peak, aborted: true }); });
    });
    req.on('error', (e) => { clearInterval(sampler); if (e.code === 'ECONNRESET' || req.destroyed) resolve({ status, bytes, first, peak, aborted: true }); else reject(e); });
  });
}

test('a 4097 x 4097 .r16 grid streams with bounded RSS growth, first bytes early', async (t) => {
  // warm up: the code paths and allocator pools a grid uses
  assert.equal((await get(`${d.url}/perlin/1/grid.r16?x=0&y=0&step=0.01&width=500&height=500&octaves=6`)).status, 200);
  await sleep(200);
  const base = rssKiB();
  const cpu0 = cpuS();
  const r = await stream(URL_PATH(7));
  const cpu = cpuS() - cpu0;
  assert.equal(r.status, 200);
  assert.equal(r.bytes, 2 * SIDE * SIDE);
  assert.equal(r.headers['content-length'], String(2 * SIDE * SIDE));
  const growMiB = (r.peak - base) / 1024;
  t.diagnostic(`4097^2 .r16 (${r.bytes} bytes): RSS ${(base / 1024).toFixed(1)} MiB before, peak ${(r.peak / 1024).toFixed(1)} MiB, growth ${growMiB.toFixed(1)} MiB (bound ${RSS_BOUND_MIB}); first byte ${r.first.toFixed(0)} ms, last ${r.total.toFixed(0)} ms; daemon CPU ${cpu.toFixed(2)} s`);
  console.log(`# heights-stream: RSS growth ${growMiB.toFixed(1)} MiB of ${r.bytes} bytes sent (bound ${RSS_BOUND_MIB} MiB); first byte at ${(100 * r.first / r.total).toFixed(1)} % of the time`);
  assert.ok(growMiB < RSS_BOUND_MIB, `RSS grew by ${growMiB.toFixed(1)} MiB`);
  assert.ok(r.first < 0.2 * r.total, `first byte at ${r.first} ms of ${r.total} ms`);
  fullCpu = cpu;
});

let fullCpu = 0;

test('a client that leaves halfway stops the work', async (t) => {
  assert.ok(fullCpu > 0, 'the first test measured a whole grid');
  let cpuAtLeave = 0, leftAt = 0;
  const r = await stream(URL_PATH(8), (bytes, req) => {
    if (leftAt === 0 && bytes >= SIDE * SIDE) { // half of 2 * SIDE * SIDE
      leftAt = bytes;
      cpuAtLeave = cpuS();
      req.destroy();
    }
  });
  assert.ok(r.aborted && leftAt > 0);
  await sleep(300); // the band under way ends
  const c1 = cpuS();
  await sleep(1500);
  const c2 = cpuS();
  t.diagnostic(`left after ${leftAt} bytes; daemon CPU ${(c1 - cpuAtLeave).toFixed(2)} s in the 300 ms after, ${(c2 - c1).toFixed(2)} s in the 1.5 s after that; a whole grid took ${fullCpu.toFixed(2)} s`);
  console.log(`# heights-stream: after the client left, daemon CPU ${(c2 - c1).toFixed(2)} s in 1.5 s (a whole grid: ${fullCpu.toFixed(2)} s)`);
  assert.ok(c2 - c1 < 0.05 * fullCpu + 0.05, `the daemon kept computing: ${(c2 - c1).toFixed(2)} s CPU`);
  // and it still serves
  assert.equal((await get(`${d.url}/healthz`)).status, 200);
});
