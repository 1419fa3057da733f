// sigterm-queue.test.mjs: SIGTERM with the render queue full. 60 clients
// ask at once for distinct expensive tiles (16 octaves, warp, shade: 6.3M
// work units each), more than the queue takes from one address (3/4 of
// 2 workers x 200M): the excess is refused 503 + Retry-After at once, two
// render and the rest wait. Then SIGTERM: every client gets a complete
// response, 200 (rendered in time) or 503 (refused, or still waiting when
// the drain could not fit it); the daemon exits 0 within its drain time;
// the access log has exactly one line per client request with the status
// the client saw, none "(aborted)", and the log's own counts agree.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDaemon } from './daemon.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function get(port, p) {
  return new Promise((resolve) => {
    const rec = { path: p, status: 0, bytes: 0, length: -1, complete: false, error: null, retryAfter: null };
    const req = http.request({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
      rec.status = res.statusCode;
      rec.length = Number(res.headers['content-length'] ?? -1);
      rec.retryAfter = res.headers['retry-after'] ?? null;
      res.on('data', (c) => { rec.bytes += c.length; });
      res.on('end', () => { rec.complete = res.complete; resolve(rec); });
      res.on('error', (e) => { rec.error = e.code || e.message; resolve(rec); });
    });
    req.on('error', (e) => { rec.error = e.code || e.message; resolve(rec); });
    req.setTimeout(60000, () => req.destroy(new Error('client timeout')));
    req.end();
  });
}

test('SIGTERM with a full queue and renders in flight: every client gets 200 or 503, the log agrees line for line', { timeout: 120000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'noisetile-sigq-'));
  const logFile = path.join(dir, 'access.log');
  const d = await startDaemon({ staticDir: null, args: ['--workers', '2', '--access-log', logFile] });
  const paths = Array.from({ length: 60 }, (_, i) =>
    `/simplex/${i}/3/1/2.png?octaves=16&warp=0.5&shade=1`);
  const pending = paths.map((p) => get(d.port, p));
  // Let every request reach the daemon (queued, running or refused), then
  // stop it.
  for (let i = 0; i < 100; i++) {
    const m = await fetch(`${d.url}/metrics`).then((r) => r.text()).catch(() => '');
    const queued = Number((/^noisetile_pool_queued_jobs (\d+)/m.exec(m) || [0, 0])[1]);
    const refused = Number((/outcome="refused_full"\} (\d+)/m.exec(m) || [0, 0])[1]);
    const running = Number((/^noisetile_pool_running_jobs (\d+)/m.exec(m) || [0, 0])[1]);
    if (queued + refused + running >= 60) break;
    await sleep(50);
  }
  const t0 = performance.now();
  await d.stop(); // SIGTERM; exit 0, no sanitizer report
  const exitMs = performance.now() - t0;
  const recs = await Promise.all(pending);

  // Every client got a complete response: 200 or 503.
  for (const r of recs) {
    assert.ok(r.error === null && [200, 503].includes(r.status), `no answer: ${JSON.stringify(r)}`);
    assert.ok(r.complete && r.bytes === r.length && r.bytes > 0, `incomplete: ${JSON.stringify(r)}`);
    if (r.status === 503) assert.match(String(r.retryAfter), /^\d+$/, 'a 503 says when to retry');
  }
  const ok = recs.filter((r) => r.status === 200).length;
  const busy = recs.filter((r) => r.status === 503).length;
  assert.ok(ok >= 2, `the renders in flight finished: ${ok} x 200`);
  assert.ok(busy >= 1, 'the full queue refused some');
  // Within the drain time (10 s) plus one render still running at its end.
  assert.ok(exitMs < 20000, `exit took ${exitMs.toFixed(0)} ms`);

  // The access log: one line per client request, same status, none aborted.
  const lines = readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes('"GET /simplex/'));
  assert.equal(lines.length, 60, lines.join('\n'));
  assert.deepEqual(lines.filter((l) => l.includes('(aborted)')), []);
  const logged = new Map();
  for (const l of lines) {
    const m = /"GET (\S+)" (\d+) (\d+) /.exec(l);
    assert.ok(m, l);
    assert.ok(!logged.has(m[1]), `logged twice: ${m[1]}`);
    logged.set(m[1], { status: Number(m[2]), bytes: Number(m[3]) });
  }
  for (const r of recs) {
    const l = logged.get(r.path);
    assert.ok(l, `not logged: ${r.path}`);
    assert.equal(l.status, r.status, `${r.path}: log ${l.status}, client ${r.status}`);
    assert.equal(l.bytes, r.bytes, `${r.path}: log ${l.bytes} bytes, client ${r.bytes}`);
  }
});
