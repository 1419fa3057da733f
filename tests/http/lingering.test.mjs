// lingering.test.mjs: a client that sends an oversized body without
// Expect: 100-continue reads the 413 (issue 27). Python's http.client sends
// the whole body before it reads anything; when the daemon answered early
// and closed after about 8 MB it got a broken pipe, never the 413. The
// daemon now reads and drops such a body, bounded by time (the request
// deadline), and answers at its end. A request cut at its deadline is
// answered 408 (413 when its body was already over the limit) before the
// connection closes, and the client reads that answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { execFile } from 'node:child_process';
import { startDaemon, waitFor } from './daemon.mjs';
import { exchange, responses } from './rawhttp.mjs';

// Posts size bytes with Python's http.client (no Expect header) and prints
// the status, Content-Type and body it reads, or the exception it meets.
const POST_PY = `
import http.client, json, sys
port, size = int(sys.argv[1]), int(sys.argv[2])
c = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
try:
    c.request('POST', '/perlin/1/points', body=b'x' * size, headers={'Content-Type': 'application/json'})
    r = c.getresponse()
    print(json.dumps({'status': r.status, 'type': r.getheader('Content-Type'), 'body': r.read().decode()}))
except Exception as e:
    print(json.dumps({'exception': type(e).__name__ + ': ' + str(e)}))
`;
function pythonPost(port, size) {
  return new Promise((resolve, reject) => {
    execFile('python3', ['-c', POST_PY, String(port), String(size)], { timeout: 60000, maxBuffer: 1 << 20 }, (err, stdout) => {
      if (err) return reject(err);
      resolve(JSON.parse(stdout));
    });
  });
}

// Sends head (and body bytes, if any) and then one byte every 100 ms, as a
// slow upload; collects what comes back until the server closes. Resolves
// { data, closed, ms }.
function slowUpload(port, head, { trickle = true, limitMs = 15000 } = {}) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const sock = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const chunks = [];
    let timer, ticker;
    const finish = (closed) => {
      clearTimeout(timer); clearInterval(ticker); sock.destroy();
      resolve({ data: Buffer.concat(chunks), closed, ms: Date.now() - t0 });
    };
    sock.on('connect', () => {
      sock.write(head);
      if (trickle) ticker = setInterval(() => { if (!sock.destroyed && sock.writable) sock.write('y'); }, 100);
      timer = setTimeout(() => finish(false), limitMs);
    });
    sock.on('data', (c) => chunks.push(c));
    sock.on('end', () => finish(true));
    sock.on('error', () => finish(true));
  });
}

let d, slow;

test('start: one daemon as shipped, one with a 1.5 s request deadline', async () => {
  d = await startDaemon({ args: ['--threads', '2', '--cache-mb', '8'] });
  slow = await startDaemon({ args: ['--threads', '2', '--cache-mb', '8'], env: { NOISETILE_TEST_TIMEOUTS: '1500,30' } });
});

for (const size of [12e6, 100e6]) {
  test(`Python's http.client posting ${size / 1e6} MB without Expect reads the 413 (no broken pipe)`, async () => {
    const r = await pythonPost(d.port, size);
    assert.equal(r.exception, undefined, `http.client: ${r.exception}`);
    assert.equal(r.status, 413);
    assert.equal(r.type, 'application/json');
    assert.deepEqual(JSON.parse(r.body), { error: { status: 413, message: 'request body larger than 1048576 bytes' } });
  });
}

test('the connection stays usable after a drained oversized body: the request behind it is served', async () => {
  const body = Buffer.alloc(3e6, 'x');
  const r = await exchange(d.port, Buffer.concat([
    Buffer.from(`POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`), body,
    Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')]));
  const rs = responses(r.data);
  assert.deepEqual(rs.map((x) => x.status), [413, 200]);
  assert.deepEqual(rs[1].json, { status: 'ok' });
  assert.ok(!r.closed);
});

test('a slow upload cut at the request deadline gets 408 (JSON), then the connection closes', async () => {
  const r = await slowUpload(slow.port, 'POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"poi');
  const rs = responses(r.data);
  assert.equal(rs.length, 1, r.data.toString('latin1'));
  assert.equal(rs[0].status, 408);
  assert.equal(rs[0].headers['content-type'], 'application/json');
  assert.equal(rs[0].headers.connection, 'close');
  assert.equal(rs[0].json.error.status, 408);
  assert.match(rs[0].json.error.message, /not complete within 1\.5 s/);
  assert.ok(r.closed, 'connection left open');
  await waitFor(() => /"POST \/perlin\/1\/points" 408 /.test(slow.stderr()), 'the access-log line with 408');
});

test('a slow upload whose body is already over the limit gets 413 at the deadline', async () => {
  const r = await slowUpload(slow.port, Buffer.concat([
    Buffer.from('POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n'), Buffer.alloc(200000, 'x')]));
  const rs = responses(r.data);
  assert.equal(rs.length, 1, r.data.toString('latin1'));
  assert.equal(rs[0].status, 413);
  assert.equal(rs[0].headers['content-type'], 'application/json');
  assert.match(rs[0].json.error.message, /larger than 1048576 bytes, and not sent to its end within 1\.5 s/);
  assert.ok(r.closed);
});

test('a request head that stops half way gets 408 too; a connection that sent nothing is closed without one', async () => {
  const r = await slowUpload(slow.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', { trickle: false });
  const rs = responses(r.data);
  assert.equal(rs.length, 1);
  assert.equal(rs[0].status, 408);
  assert.ok(r.closed);
  const idle = await slowUpload(slow.port, '', { trickle: false });
  assert.equal(idle.data.length, 0);
  assert.ok(idle.closed);
});

test('a client that goes on sending after the 408 is closed after the lingering time, not kept', async () => {
  // LIMIT_LINGER_MS (5 s) after the deadline (1.5 s): the trickle never ends.
  const r = await slowUpload(slow.port, 'POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{', { limitMs: 12000 });
  assert.equal(responses(r.data)[0].status, 408);
  assert.ok(r.closed, 'still open after 12 s');
});

test('stop', async () => {
  await d.stop();
  await slow.stop();
});
