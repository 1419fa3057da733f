// basics.test.mjs: the daemon's command line, environment, listening line,
// /healthz, CORS, OPTIONS, the access log and the graceful stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runOnce, get, raw, waitFor } from './daemon.mjs';

test('--help prints usage and exits 0', async () => {
  const r = await runOnce(['--help']);
  assert.equal(r.code, 0);
  for (const flag of ['--bind', '--port', '--threads', '--cache-mb', '--static', 'NOISETILE_PORT'])
    assert.match(r.stdout, new RegExp(flag));
});

test('bad flags and variables: a message naming them and exit code 2', async () => {
  const cases = [
    [['--port', '65536'], {}, /port/],
    [['--port', '-1'], {}, /port/],
    [['--port', 'abc'], {}, /port/],
    [['--threads', '0'], {}, /threads/],
    [['--threads', '1x'], {}, /threads/],
    [['--cache-mb', '-5'], {}, /cache-mb/],
    [['--bind', 'not-an-address'], {}, /bind/],
    [['--static', '/nonexistent/dir'], {}, /static/],
    [['--frobnicate', '1'], {}, /frobnicate/],
    [['--port'], {}, /port/],
    [[], { NOISETILE_PORT: 'eighty' }, /NOISETILE_PORT/],
    [[], { NOISETILE_THREADS: '999999' }, /NOISETILE_THREADS/],
    [[], { NOISETILE_CACHE_MB: '1.5' }, /NOISETILE_CACHE_MB/],
  ];
  for (const [args, env, re] of cases) {
    const r = await runOnce(args, env);
    assert.equal(r.code, 2, `${args.join(' ')} ${JSON.stringify(env)} -> ${r.code}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.doesNotMatch(r.stderr, /Sanitizer|runtime error/);
  }
});

test('NOISETILE_BENCH_MHD: perconn and malformed values refused at start with a message', async () => {
  // Thread-per-connection never resumes a request handed to the render
  // pool (libmicrohttpd 0.9.75): a daemon started that way would hang its
  // first uncached tile's client, so it must not start at all.
  const cases = [
    ['perconn', /NOISETILE_BENCH_MHD=perconn is not supported.*never resumed/],
    ['pool:', /NOISETILE_BENCH_MHD must be pool:N.*got 'pool:'/],
    ['pool:0', /NOISETILE_BENCH_MHD must be pool:N/],
    ['pool:12x', /NOISETILE_BENCH_MHD must be pool:N/],
    ['epoll', /NOISETILE_BENCH_MHD must be pool:N.*got 'epoll'/],
  ];
  for (const [value, re] of cases) {
    const r = await runOnce(['--port', '0'], { NOISETILE_BENCH_MHD: value });
    assert.equal(r.code, 1, `${value} -> ${r.code}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.doesNotMatch(r.stdout, /listening/);
    assert.doesNotMatch(r.stderr, /Sanitizer|runtime error/);
  }
  // pool:N still starts (the benchmark's other mode) and serves a render.
  const d = await startDaemon({ args: ['--threads', '2'], env: { NOISETILE_BENCH_MHD: 'pool:200' } });
  try {
    const r = await get(`${d.url}/perlin/7/2/1/1.png`);
    assert.equal(r.status, 200);
  } finally {
    await d.stop();
  }
});

test('listening line, /healthz, CORS, access log, graceful stop', async () => {
  const d = await startDaemon({ args: ['--threads', '2', '--cache-mb', '8'] });
  try {
    assert.match(d.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(d.port > 0);
    const r = await get(`${d.url}/healthz`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(r.json, { status: 'ok' });
    const h = await raw(d.port, 'HEAD', '/healthz');
    assert.equal(h.status, 200);
    assert.equal(h.body.length, 0);
    assert.equal(h.headers['content-length'], String(r.body.length));
    // One access-log line per request, naming method, path and status
    // (written after the answer: waited for).
    await waitFor(() => /"HEAD \/healthz" 200 /.test(d.stderr()), 'the HEAD request in the access log');
    assert.match(d.stderr(), /"GET \/healthz" 200 /);
  } finally {
    await d.stop();
  }
});

test('environment sets what flags do not, flags override the environment', async () => {
  const d = await startDaemon({ env: { NOISETILE_PORT: '1', NOISETILE_CACHE_MB: '3', NOISETILE_BIND: '127.0.0.1' } });
  try {
    // --port 0 (from startDaemon) won over NOISETILE_PORT=1.
    assert.notEqual(d.port, 1);
    const m = await get(`${d.url}/metrics`);
    assert.match(m.text, /^noisetile_cache_budget_bytes 3145728$/m);
  } finally {
    await d.stop();
  }
});

test('OPTIONS preflight answers 204 with the methods and CORS headers', async () => {
  const d = await startDaemon();
  try {
    const r = await raw(d.port, 'OPTIONS', '/perlin/7/points', {
      headers: { Origin: 'http://example.com', 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(r.status, 204);
    assert.equal(r.headers['access-control-allow-origin'], '*');
    assert.match(r.headers['access-control-allow-methods'], /POST/);
    assert.match(r.headers['allow'], /POST/);
    const t = await raw(d.port, 'OPTIONS', '/perlin/7/0/0/0.png');
    assert.equal(t.status, 204);
    assert.match(t.headers['allow'], /GET/);
    assert.match(t.headers['allow'], /HEAD/);
  } finally {
    await d.stop();
  }
});

test('SIGTERM lets requests in flight finish, then exits 0', async () => {
  const http = await import('node:http');
  const d = await startDaemon({ args: ['--threads', '2'] });
  let stopped = false;
  try {
    // A batch whose body arrives in two halves, with SIGTERM in between:
    // the request is in flight when the signal comes, whatever the speed.
    const body = JSON.stringify({ points: [[0.5, 0.25], [1.5, -2.25], [3, 4]] });
    const half = Math.floor(body.length / 2);
    const answer = new Promise((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1', port: d.port, method: 'POST', path: '/perlin/7/points', agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      }, (res) => {
        let text = '';
        res.on('data', (c) => { text += c; });
        res.on('end', () => resolve({ status: res.statusCode, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, half));
      setTimeout(() => {
        d.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(half)), 300);
      }, 200);
    });
    const r = await answer;
    assert.equal(r.status, 200, r.text);
    assert.equal(JSON.parse(r.text).values.length, 3);
    const { code, signal } = await d.exited;
    assert.equal(signal, null);
    assert.equal(code, 0);
    stopped = true;
    const log = d.stderr();
    assert.doesNotMatch(log, /Sanitizer|runtime error/);
    // The signal came first, the request was logged after it.
    const sig = log.indexOf('SIGTERM');
    const done = log.indexOf('"POST /perlin/7/points" 200');
    assert.ok(sig >= 0 && done > sig, `signal at ${sig}, request logged at ${done}`);
    // Nothing listens any more.
    await assert.rejects(fetch(`${d.url}/healthz`));
  } finally {
    if (!stopped) await d.stop();
  }
});

test('connection limits: one address holds at most 3/4 of the 120 slots per thread', async () => {
  const net = await import('node:net');
  const d = await startDaemon({ args: ['--threads', '1'] });
  const socks = [];
  try {
    let closed = 0;
    for (let i = 0; i < 110; i++) {
      const s = net.connect(d.port, '127.0.0.1');
      s.on('error', () => {});
      s.on('close', () => { closed++; });
      socks.push(s);
      await new Promise((res) => s.on('connect', res));
    }
    await waitFor(() => closed >= 110 - 90, 'the daemon closing the connections beyond 90');
    await new Promise((res) => setTimeout(res, 300)); // and no more than those
    assert.equal(closed, 110 - 90, 'idle connections beyond 90 are closed by the daemon');
  } finally {
    for (const s of socks) s.destroy();
    await new Promise((res) => setTimeout(res, 200));
    await d.stop();
  }
});

test('SIGINT stops the daemon cleanly too', async () => {
  const d = await startDaemon();
  assert.equal((await get(`${d.url}/perlin/2/0/0/0.png`)).status, 200);
  await d.stop('SIGINT');
  assert.match(d.stderr(), /SIGINT/);
});

test('HEAD works wherever GET does: same status and headers, no body', async () => {
  const d = await startDaemon();
  try {
    for (const path of ['/healthz', '/api/kinds', '/openapi.json', '/perlin/3/point?x=1&y=2',
      '/perlin/3/tile.json?octaves=2', '/value/3/2/1/-1.png', '/value/3/2/1/-1@2x.png?shade=1', '/',
      '/perlin/3/point?x=1', '/nokind/3/point?x=1&y=2']) {
      const g = await raw(d.port, 'GET', path);
      const h = await raw(d.port, 'HEAD', path);
      assert.equal(h.status, g.status, path);
      assert.equal(h.body.length, 0, path);
      for (const k of ['content-type', 'content-length', 'cache-control', 'etag', 'access-control-allow-origin'])
        assert.equal(h.headers[k], g.headers[k], `${path} ${k}`);
    }
    const m = await raw(d.port, 'HEAD', '/metrics');
    assert.equal(m.status, 200);
    assert.equal(m.body.length, 0);
    assert.match(m.headers['content-type'], /^text\/plain/);
  } finally {
    await d.stop();
  }
});
