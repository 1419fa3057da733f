// bodymemory.test.mjs: the bound on the memory of request bodies in flight
// (daemon_limits.h, LIMIT_BODY_MEMORY). 32 clients each start a 1 MiB
// POST /points batch (headers and the first bytes of the body) and hold it
// until all have started: the bodies that fit the bound are answered 200
// (at least sixteen), the others 503 with Retry-After and a message naming
// the bound; every client gets a status line.
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startDaemon } from './daemon.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A body of exactly `bytes` bytes: 10000 points padded with spaces.
function batchBody(bytes) {
  const pts = Array.from({ length: 10000 }, (_, i) => `[${(i * 0.37).toFixed(3)},${(-i * 0.11).toFixed(3)}]`);
  const json = `{"points":[${pts.join(',')}]}`;
  assert.ok(json.length < bytes);
  return Buffer.from(json + ' '.repeat(bytes - json.length));
}

function startPost(port, body) {
  const sock = net.connect(port, '127.0.0.1');
  const rec = { sock, data: '', closed: false };
  sock.on('data', (d) => { rec.data += d.toString('latin1'); });
  sock.on('close', () => { rec.closed = true; });
  sock.on('error', () => {});
  rec.ready = new Promise((resolve) => sock.on('connect', () => {
    sock.write(`POST /perlin/7/points HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    sock.write(body.subarray(0, 4096));
    resolve();
  }));
  rec.finish = () => sock.write(body.subarray(4096));
  return rec;
}

async function waitAnswer(rec, ms) {
  for (let t = 0; t < ms; t += 20) {
    const m = /^HTTP\/1\.1 (\d+)[^]*?\r\n\r\n/.exec(rec.data);
    if (m) {
      const len = Number((/content-length: (\d+)/i.exec(m[0]) || [0, -1])[1]);
      if (rec.data.length >= m[0].length + len) return { status: Number(m[1]), head: m[0], body: rec.data.slice(m[0].length) };
    }
    if (rec.closed) break;
    await sleep(20);
  }
  return { status: 0, head: '', body: rec.data };
}

test('bodies in flight beyond the memory bound get 503 + Retry-After; the rest are served', { timeout: 120000 }, async () => {
  const d = await startDaemon({ staticDir: null, args: ['--access-log', 'off'] });
  const body = batchBody(1024 * 1024);
  const recs = Array.from({ length: 32 }, () => startPost(d.port, body));
  await Promise.all(recs.map((r) => r.ready));
  await sleep(500); // every first chunk has reached the daemon
  for (const r of recs) r.finish();
  const answers = await Promise.all(recs.map((r) => waitAnswer(r, 90000)));
  for (const r of recs) r.sock.destroy();
  const ok = answers.filter((a) => a.status === 200);
  const busy = answers.filter((a) => a.status === 503);
  assert.equal(ok.length + busy.length, 32, `statuses: ${answers.map((a) => a.status).join(',')}`);
  assert.ok(ok.length >= 16, `only ${ok.length} of 32 served`);
  assert.ok(busy.length >= 1, 'the bound never refused a body');
  for (const a of ok) assert.equal(JSON.parse(a.body).values.length, 10000);
  for (const a of busy) {
    assert.match(a.head, /\r\nRetry-After: \d+\r\n/i);
    assert.match(JSON.parse(a.body).error.message, /64 MiB/);
  }
  // Once they are done, a batch is served again.
  const again = startPost(d.port, body);
  await again.ready;
  again.finish();
  assert.equal((await waitAnswer(again, 30000)).status, 200);
  again.sock.destroy();
  await d.stop();
});
