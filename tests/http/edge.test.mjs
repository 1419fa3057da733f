// edge.test.mjs: the HTTP edge tried with raw sockets, as a scanner or a
// proxy would: framing ambiguities, many query parameters, oversized
// bodies, Expect: 100-continue, HTTP/1.0, absolute-form and asterisk-form
// targets, obs-fold (refused), NUL and bare CR in headers, request heads that fill
// the connection's memory, SIGHUP; and that the daemon runs our build of
// libmicrohttpd (deps/libmicrohttpd/). Each case checks
// the exact status line(s), whether the connection stays open (a request
// pipelined behind a good one is served) or closes, and that a request
// smuggled behind a bad one is never served (no answer to it, no access-log
// line for it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDaemon, waitFor, SLOW, BIN } from './daemon.mjs';
import { exchange as rawExchange, responses } from './rawhttp.mjs';

let d;

// rawhttp.mjs's exchange, on this file's daemon unless port is given.
const exchange = (payload, { port = d.port, ...options } = {}) => rawExchange(port, payload, options);

// The access-log lines (the daemon's standard error) matching re, once
// there are at least n of them (the log is written after the response,
// batched every 50 ms).
const logLines = (re, n = 1, e = d) => waitFor(() => {
  const ls = e.stderr().split('\n').filter((l) => re.test(l));
  return ls.length >= n && ls;
}, `${n} access-log line(s) matching ${re}`);

const SMUGGLED = (tag) => `GET /smuggled-${tag} HTTP/1.1\r\nHost: x\r\n\r\n`;
const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

// One bad request with a smuggled one behind it: exactly the status line
// given, the connection closed, the smuggled one neither answered nor logged.
async function refusedAndClosed(name, request, statusLine, messageRe) {
  const r = await exchange(Buffer.concat([Buffer.from(request, 'latin1'), Buffer.from(SMUGGLED(name))]));
  const rs = responses(r.data);
  assert.equal(rs.length, 1, `${name}: ${rs.length} responses: ${r.data.toString('latin1').slice(0, 600)}`);
  assert.equal(rs[0].statusLine, statusLine, name);
  assert.ok(r.closed, `${name}: connection left open`);
  if (messageRe) assert.match(rs[0].json.error.message, messageRe, name);
  assert.equal(rs[0].headers.connection, 'close', `${name}: Connection: close`);
  return rs[0];
}

// A request the daemon answers and keeps the connection for: the status
// line given, then the pipelined /healthz answered 200 on the same
// connection.
async function answeredThenPipelined(name, request, statusLine) {
  const r = await exchange(Buffer.concat([Buffer.from(request, 'latin1'), Buffer.from(HEALTH)]));
  const rs = responses(r.data);
  assert.equal(rs.length, 2, `${name}: ${rs.length} responses: ${r.data.toString('latin1').slice(0, 600)}`);
  assert.equal(rs[0].statusLine, statusLine, name);
  assert.equal(rs[1].statusLine, 'HTTP/1.1 200 OK', `${name}: pipelined request`);
  assert.deepEqual(rs[1].json, { status: 'ok' });
  assert.ok(!r.closed, `${name}: connection closed`);
  return rs[0];
}

test('start', async () => {
  d = await startDaemon({ args: ['--threads', '2', '--cache-mb', '8'] });
});

test('the daemon runs our libmicrohttpd build: named at start-up with every patch of deps/libmicrohttpd/, linked in statically', () => {
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'deps', 'libmicrohttpd');
  const patches = readdirSync(dir).filter((f) => f.endsWith('.patch')).sort().map((f) => f.replace(/\.patch$/, ''));
  assert.ok(patches.length >= 2, `${patches}`);
  const line = d.stdout().split('\n').find((l) => l.startsWith('noisetile: HTTP by '));
  assert.equal(line, `noisetile: HTTP by libmicrohttpd 0.9.75 (Debian 0.9.75-6 source, Debian's patches and ${patches.join(', ')}; static)`);
  // no shared libmicrohttpd (Debian's libmicrohttpd12) in the process
  // (under make valgrind BIN is tests/valgrind-daemon.sh; the daemon it runs is NOISETILE_VG_DAEMON)
  const libs = execFileSync('ldd', [process.env.NOISETILE_VG_DAEMON || BIN], { encoding: 'utf8' });
  assert.match(libs, /libc\.so/);
  assert.doesNotMatch(libs, /microhttpd/);
});

test('a few hundred query parameters (3.5 KB, 2000 in 13 KB too): 400 saying why, connection kept', async () => {
  for (const n of [600, 2000]) {
    const q = Array.from({ length: n }, (_, i) => `a=${i}`).join('&');
    const r = await answeredThenPipelined(`${n} params`, `GET /perlin/1/point?x=1&y=2&${q} HTTP/1.1\r\nHost: x\r\n\r\n`, 'HTTP/1.1 400 Bad Request');
    assert.equal(r.json.error.message, 'too many query parameters (at most 32)');
  }
});

test('a request target over the 16 KiB request memory: 414', async () => {
  const r = await exchange(`GET /perlin/1/point?x=${'1'.repeat(40000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  const rs = responses(r.data);
  assert.equal(rs.length, 1);
  assert.equal(rs[0].statusLine, 'HTTP/1.1 414 URI Too Long');
  assert.ok(r.closed);
});

test('Content-Length with Transfer-Encoding: 400, closed, nothing smuggled', async () => {
  await refusedAndClosed('clte', 'POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    'HTTP/1.1 400 Bad Request', /Content-Length together with Transfer-Encoding/);
  await refusedAndClosed('tecl', 'POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n0\r\n\r\n',
    'HTTP/1.1 400 Bad Request', /Content-Length together with Transfer-Encoding/);
});

test('two Content-Length headers, differing or equal: 400, closed, nothing smuggled', async () => {
  await refusedAndClosed('cl2', 'POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}',
    'HTTP/1.1 400 Bad Request', /different values/);
  await refusedAndClosed('cl2same', 'POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: 18\r\nContent-Length: 18\r\n\r\n{"points":[[0,0]]}',
    'HTTP/1.1 400 Bad Request', /more than once/);
});

test('list-valued, malformed or too large Content-Length: 400 (413) once, closed, nothing smuggled', async () => {
  // libmicrohttpd refuses these in its header parsing, before the daemon
  // sees the request. 0.9.75 as released then sent its status line and
  // headers a second time; our patch 01 (deps/libmicrohttpd/) ends that
  // step once the parser queued its reply, as 1.0.1 does.
  for (const [tag, cl, line] of [['list', '18, 18', 'HTTP/1.1 400 Bad Request'], ['alpha', 'abc', 'HTTP/1.1 400 Bad Request'],
    ['plus', '+18', 'HTTP/1.1 400 Bad Request'], ['huge', '99999999999999999999', 'HTTP/1.1 413 Content Too Large']]) {
    const r = await refusedAndClosed(`cl-${tag}`, `POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: ${cl}\r\n\r\n{"points":[[0,0]]}`, line);
    // libmicrohttpd's own answer, which names the header: the daemon's
    // JSON error (our patch 07)
    assert.equal(r.headers['content-type'], 'application/json', cl);
    assert.match(r.json.error.message, /^Content-Length (must be one decimal number|is too large)$/, cl);
    assert.equal(r.body.length, Number(r.headers['content-length']), `${cl}: one whole body`);
  }
  // Logged with libmicrohttpd's status (the daemon never saw the method),
  // its bytes unknown; the smuggled requests not at all.
  const ls = await logLines(/ "- \/perlin\/1\/points" /, 4);
  assert.deepEqual(ls.slice(-4).map((l) => / "- \/perlin\/1\/points" (\d+) - [\d.]+ms \(aborted\)$/.exec(l)?.[1]), ['400', '400', '400', '413']);
});

// A header block (or a request target) of `size` bytes, a /healthz request
// with Connection: close pipelined behind it; returns the statuses in the
// order answered, whether the connection closed, and the first answer.
// kind: 'header' (an X-Pad header), 'target' (a long query), or
// 'revalidate' (an X-Pad header on a tile request whose If-None-Match
// matches: the answer is a 304, which has no body).
async function bigHead(kind, size, tag, etag) {
  const after = `GET /healthz?after=${tag} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
  const frame = {
    header: (pad) => `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${pad}\r\n\r\n`,
    target: (pad) => `GET /healthz?pad=${pad} HTTP/1.1\r\nHost: x\r\n\r\n`,
    revalidate: (pad) => `GET /perlin/1/0/0/0.png HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${etag}\r\nX-Pad: ${pad}\r\n\r\n`,
  }[kind];
  const req = frame('p'.repeat(size - frame('').length));
  assert.equal(req.length, size);
  const r = await exchange(req + after);
  const rs = responses(r.data);
  return { rs, closed: r.closed, text: r.data.toString('latin1') };
}

test('request heads of 15.5-16.4 KB against the 16 KiB connection memory: one status line each (200 or 304, then 431 or 414), nothing smuggled', async () => {
  // The request line and headers stay in the connection's 16 KiB memory
  // until the answer's head is written there too. Heads that fit but left
  // less room than that head needs (about 16.04-16.25 KB) got no answer at
  // all from libmicrohttpd 0.9.75; our patch 02 (deps/libmicrohttpd/)
  // answers them as it answers a head that does not fit: 431, or 414 when
  // the request target is most of it, and the connection closes.
  // A reply without a body (304) went out as the error's head without
  // the error's body (and the connection hung) in a first version of it.
  const tile = await fetch(`${d.url}/perlin/1/0/0/0.png`);
  const etag = tile.headers.get('etag');
  await tile.arrayBuffer();
  assert.match(etag, /^"[0-9a-f]+"$/);
  const refused = [];
  for (const kind of ['header', 'target', 'revalidate']) {
    const served = kind === 'revalidate' ? 304 : 200;
    const seen = [];
    for (let size = 15500; size <= 16400; size += 25) {
      const tag = `${kind}-${size}`;
      const { rs, closed, text } = await bigHead(kind, size, tag, etag);
      const what = `${tag}: ${rs.map((x) => x.statusLine).join(' | ')}; ${JSON.stringify(text.slice(0, 300))}`;
      assert.ok(rs.length >= 1 && !rs[0].partial, what);
      const st = rs[0].status;
      seen.push(st);
      if (st === served) {
        // answered, then the pipelined request on the same connection
        if (served === 200) assert.deepEqual(rs[0].json, { status: 'ok' }, what);
        else assert.equal(rs[0].headers.etag, etag, what);
        assert.equal(rs.length, 2, what);
        assert.equal(rs[1].statusLine, 'HTTP/1.1 200 OK', what);
        assert.deepEqual(rs[1].json, { status: 'ok' }, what);
      } else {
        assert.ok(kind === 'target' ? st === 414 || st === 431 : st === 431, what);
        assert.equal(rs.length, 1, `exactly one status line: ${what}`);
        assert.ok(closed, `left open: ${what}`);
        assert.equal(rs[0].headers.connection, 'close', what);
        assert.match(rs[0].body.toString('latin1'), /"the request line or header section is too large for this server"/, what);
        refused.push(tag);
      }
    }
    // Every size got its answer: served up to a size, refused from there on.
    const first = seen.findIndex((st) => st !== served);
    assert.ok(first > 0, `${kind}: some served, some refused: ${seen}`);
    assert.ok(seen.slice(first).every((st) => st !== served), `${kind}: served again after a refusal: ${seen}`);
  }
  // Nothing pipelined behind a refused head was served.
  await exchange('GET /healthz?marker=bighead HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await logLines(/"GET \/healthz\?marker=bighead" 200 /);
  const log = d.stderr();
  for (const tag of refused) assert.doesNotMatch(log, new RegExp(`after=${tag}"`), tag);
  // Each refusal is logged with its status. "GET": heads the daemon had
  // answered, whose answer's head found no room (the sizes that got nothing
  // before patch 02); "-": heads libmicrohttpd refused while reading them.
  assert.match(log, /"GET \/healthz" 431 - [\d.]+ms \(aborted\)\n/);
  assert.match(log, /"GET \/healthz\?pad=p+" 414 - [\d.]+ms \(aborted\)\n/);
  assert.match(log, /"GET \/perlin\/1\/0\/0\/0\.png" 431 - [\d.]+ms \(aborted\)\n/);
  assert.match(log, /"- \/healthz" 431 - [\d.]+ms \(aborted\)\n/);
});

test('Transfer-Encoding other than one chunked: 501, closed; in HTTP/1.0: 400', async () => {
  for (const te of ['gzip, chunked', 'chunked, gzip', 'identity', 'chunked\r\nTransfer-Encoding: chunked'])
    await refusedAndClosed(`te-${te.length}`, `POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: ${te}\r\n\r\n12\r\n{"points":[[0,0]]}\r\n0\r\n\r\n`,
      'HTTP/1.1 501 Not Implemented', /Transfer-Encoding other than one 'chunked'/);
  await refusedAndClosed('te10', 'POST /perlin/1/points HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n12\r\n{"points":[[0,0]]}\r\n0\r\n\r\n',
    'HTTP/1.1 400 Bad Request', /HTTP\/1\.0/);
});

test('a chunked body is read as one: 200, then the pipelined request', async () => {
  const r = await answeredThenPipelined('chunked', 'POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"poi\r\nd\r\nnts":[[0,0]]}\r\n0\r\n\r\n',
    'HTTP/1.1 200 OK');
  assert.equal(r.json.values.length, 1);
});

test('NUL, bare CR, bare LF inside a header value: 400, closed, nothing smuggled', async () => {
  for (const [tag, v] of [['nul', 'a\x00b'], ['cr', 'a\rb'], ['nulhost', 'x\x00y']]) {
    const req = tag === 'nulhost' ? `GET /healthz HTTP/1.1\r\nHost: ${v}\r\n\r\n` : `GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: ${v}\r\n\r\n`;
    await refusedAndClosed(tag, req, 'HTTP/1.1 400 Bad Request', /NUL byte, a bare CR/);
  }
});

test('HTTP/1.1 without Host, or with two: 400, closed, nothing smuggled', async () => {
  await refusedAndClosed('nohost', 'GET /healthz HTTP/1.1\r\n\r\n', 'HTTP/1.1 400 Bad Request', /exactly one Host header .*got 0/);
  await refusedAndClosed('twohosts', 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 'HTTP/1.1 400 Bad Request', /exactly one Host header .*got 2/);
});

test('obs-fold: refused with 400 (RFC 9112 5.2 allows it; a proxy in front may read the fold otherwise), closed, nothing smuggled', async () => {
  await refusedAndClosed('obsfold', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n', 'HTTP/1.1 400 Bad Request', /malformed request line or header field/);
  await refusedAndClosed('obsfold-te', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n Transfer-Encoding: chunked\r\n\r\n', 'HTTP/1.1 400 Bad Request', /malformed/);
});

test('HTTP/1.0: answered, then the connection closes; the next request is not read', async () => {
  const r = await exchange(`GET /healthz HTTP/1.0\r\n\r\n${SMUGGLED('http10')}`);
  const rs = responses(r.data);
  assert.equal(rs.length, 1);
  assert.equal(rs[0].statusLine, 'HTTP/1.1 200 OK');
  assert.deepEqual(rs[0].json, { status: 'ok' });
  assert.ok(r.closed);
});

test('absolute-form target: served as its path, its authority standing for Host; asterisk-form for OPTIONS', async () => {
  const r = await answeredThenPipelined('absolute', 'GET http://tiles.example:8443/value/3/tile.json?octaves=2 HTTP/1.1\r\nHost: ignored.example\r\n\r\n', 'HTTP/1.1 200 OK');
  assert.match(r.json.tiles[0], /^http:\/\/tiles\.example:8443\/value\/3\/\{z\}\/\{x\}\/\{y\}\.png\?frequency=1&octaves=2&/);
  const star = await answeredThenPipelined('asterisk', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n', 'HTTP/1.1 204 No Content');
  assert.equal(star.headers.allow, 'GET, HEAD, POST, OPTIONS');
  const bad = await answeredThenPipelined('asterisk-get', 'GET * HTTP/1.1\r\nHost: x\r\n\r\n', 'HTTP/1.1 400 Bad Request');
  assert.match(bad.json.error.message, /'\*' is for OPTIONS only/);
});

test('oversized body without Expect (2 MiB): read and dropped, 413 with its message, connection kept', async () => {
  const body = 'x'.repeat(2 * 1024 * 1024);
  const r = await answeredThenPipelined('big', `POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 'HTTP/1.1 413 Content Too Large');
  assert.equal(r.json.error.message, 'request body larger than 1048576 bytes');
});

test('a body announced far beyond the limit (9 MiB) is read and dropped too: 413 at its end, connection kept', async () => {
  const body = Buffer.alloc(9 * 1024 * 1024, 'x');
  const r = await exchange(Buffer.concat([Buffer.from(`POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`), body, Buffer.from(HEALTH)]), { until: 2 });
  const rs = responses(r.data);
  assert.deepEqual(rs.map((x) => x.statusLine), ['HTTP/1.1 413 Content Too Large', 'HTTP/1.1 200 OK']);
  assert.equal(rs[0].json.error.message, 'request body larger than 1048576 bytes');
  assert.ok(!r.closed);
});

test('Expect: 100-continue under the limit: 100 Continue, then the answer, then the pipelined request', async () => {
  const body = '{"points":[[0,0]]}';
  const r = await exchange([`POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`, body + HEALTH]);
  const rs = responses(r.data);
  assert.deepEqual(rs.map((x) => x.statusLine), ['HTTP/1.1 100 Continue', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
  assert.equal(rs[1].json.values.length, 1);
  assert.ok(!r.closed);
});

test('Expect: 100-continue over the limit: 413 without 100 Continue, closed, nothing smuggled', async () => {
  const r = await refusedAndClosed('expect-big', `POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: ${2 * 1024 * 1024}\r\nExpect: 100-continue\r\n\r\n`,
    'HTTP/1.1 413 Content Too Large', /larger than 1048576 bytes/);
  assert.equal(r.status, 413);
});

test('Expect other than 100-continue: 417, closed', async () => {
  await refusedAndClosed('expect-other', 'POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 200-ok\r\n\r\n{}',
    'HTTP/1.1 417 Expectation Failed', /only 100-continue/);
});

test('tile.json derived from request headers carries Vary; the daemon never served a smuggled request', async () => {
  const r = await answeredThenPipelined('vary', 'GET /value/3/tile.json HTTP/1.1\r\nHost: h.example\r\nX-Forwarded-Proto: https\r\n\r\n', 'HTTP/1.1 200 OK');
  // every JSON answer may come gzip'd, and this one's URLs depend on the host headers
  assert.equal(r.headers.vary, 'Accept-Encoding, Forwarded, X-Forwarded-Proto, X-Forwarded-Host, Host');
  assert.match(r.json.tiles[0], /^https:\/\/h\.example\/value\/3\//);
  // Log lines are written in the order requests end: once this test's
  // lines are there, any for a smuggled request of an earlier test are too.
  await logLines(/"GET \/value\/3\/tile\.json" 200 /);
  assert.doesNotMatch(d.stderr(), /smuggled/);
});

test('access log: ISO 8601 UTC time, status and the body bytes sent (0 for HEAD and 304)', async () => {
  await exchange('HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  const r = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  const body = responses(r.data)[0].body.length;
  const head = (await logLines(/"HEAD \/healthz" 200 /)).pop();
  const get = (await logLines(/"GET \/healthz" 200 /)).pop();
  assert.match(get, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z 127\.0\.0\.1 "GET \/healthz" 200 (\d+) \d+\.\d{3}ms$/);
  assert.equal(Number(/ 200 (\d+) /.exec(get)[1]), body);
  assert.match(head, / 200 0 /);
});

test('SIGHUP never stops the daemon; with --access-log FILE it reopens the file (log rotation)', async () => {
  d.child.kill('SIGHUP');
  await new Promise((res) => setTimeout(res, 300));
  assert.equal(d.child.exitCode, null);
  await answeredThenPipelined('after-hup', HEALTH, 'HTTP/1.1 200 OK');
  const dir = mkdtempSync(path.join(tmpdir(), 'noisetile-log-'));
  const log = path.join(dir, 'access.log');
  const e = await startDaemon({ args: ['--threads', '1', '--cache-mb', '4', '--access-log', log] });
  const read = (f) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
  try {
    await exchange('GET /healthz?before HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { port: e.port });
    await waitFor(() => /"GET \/healthz\?before" 200 /.test(read(log)), 'the first line in the log');
    renameSync(log, `${log}.1`); // what logrotate does
    e.child.kill('SIGHUP');
    await waitFor(() => existsSync(log), 'the log reopened (created again) after SIGHUP');
    await exchange('GET /healthz?after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { port: e.port });
    await waitFor(() => /"GET \/healthz\?after" 200 /.test(read(log)), 'the later line in the new log');
    assert.match(readFileSync(`${log}.1`, 'utf8'), /"GET \/healthz\?before" 200 /);
    const fresh = readFileSync(log, 'utf8');
    assert.match(fresh, /"GET \/healthz\?after" 200 /);
    assert.doesNotMatch(fresh, /before/);
    assert.equal(e.child.exitCode, null);
  } finally {
    await e.stop();
  }
});

test('--public-url fixes the base of written URLs and drops the host headers from Vary', async () => {
  const e = await startDaemon({ args: ['--threads', '1', '--cache-mb', '4', '--public-url', 'https://maps.example/noise/'] });
  try {
    const r = await exchange('GET /value/3/tile.json HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n', { port: e.port });
    const rs = responses(r.data);
    assert.match(rs[0].json.tiles[0], /^https:\/\/maps\.example\/noise\/value\/3\//);
    assert.equal(rs[0].headers.vary, 'Accept-Encoding'); // gzip or not, never the host
  } finally {
    await e.stop();
  }
  const f = await startDaemon({ args: ['--threads', '1', '--cache-mb', '4'], env: { NOISETILE_PUBLIC_URL: 'http://env.example:8080' } });
  try {
    const r = await exchange('GET /value/3/tile.json HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n', { port: f.port });
    assert.match(responses(r.data)[0].json.tiles[0], /^http:\/\/env\.example:8080\/value\/3\//);
  } finally {
    await f.stop();
  }
});

test('a client that half-closes after a complete request still gets its answer: cached, rendered on the pool, a POST, a stream', async () => {
  const png = 'GET /perlin/77/3/1/2.png?octaves=9 HTTP/1.1\r\nHost: x\r\n\r\n';
  const body = '{"points":[[0.5,0.25]]}';
  const cases = [
    ['healthz', HEALTH],
    ['render', png], // a render waits for the pool with its client's end closed
    ['cached', png],
    ['post', `POST /value/5/points HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`],
    ['stream', 'GET /value/6/grid.r16?x=0&y=0&width=700&height=700&step=0.01 HTTP/1.1\r\nHost: x\r\n\r\n'],
  ];
  const got = {};
  for (const [name, req] of cases) {
    const r = await exchange(req, { halfClose: true, until: 1 });
    const rs = responses(r.data);
    assert.equal(rs.length, 1, `${name}: ${rs.length} responses: ${r.data.toString('latin1').slice(0, 300)}`);
    assert.equal(rs[0].statusLine, 'HTTP/1.1 200 OK', name);
    assert.ok(!rs[0].partial, `${name}: cut short at ${r.data.length} bytes`);
    // (The connection then closes when libmicrohttpd reads the end of
    // stream, at the latest at the request deadline: not asserted, a client
    // that has its answer does not wait for it.)
    got[name] = rs[0];
  }
  assert.deepEqual(got.healthz.json, { status: 'ok' });
  assert.equal(got.render.headers['content-type'], 'image/png');
  assert.equal(got.render.body.length, Number(got.render.headers['content-length']));
  assert.deepEqual(got.render.body, got.cached.body, 'the cached copy is the rendered one');
  assert.equal(got.post.json.values.length, 1);
  assert.equal(got.stream.body.length, 2 * 700 * 700);
  // Same bytes as a client that keeps its end open.
  const again = responses((await exchange(['GET /value/6/grid.r16?x=0&y=0&width=700&height=700&step=0.01 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], { until: 1 })).data)[0];
  assert.ok(!again.partial);
  assert.deepEqual(got.stream.body, again.body);
  const lines = await logLines(/"GET \/perlin\/77\/3\/1\/2\.png\?octaves=9" /, 2);
  for (const l of lines) assert.match(l, / 200 \d+ [\d.]+ms$/, 'logged as answered, not 499 or aborted');
});

test('a half-closed request that waited for the render pool is answered even with an older connection on its thread', async () => {
  // libmicrohttpd 0.9.75 resumes a connection marked readable and, unless
  // it happens to be the connection its thread has heard from least
  // recently, reads the socket before calling the daemon back: the end of
  // stream of a half-closed client then closed the connection with the
  // answer ready (logged status 0, aborted). An idle keep-alive connection
  // opened first on the only connection thread makes that order certain;
  // the daemon suspends one pass after the request completes, when the
  // library no longer reads (docs/http.md, "Half-closed clients").
  const e = await startDaemon({ args: ['--threads', '1', '--workers', '1', '--cache-mb', '4'] });
  const idle = net.connect({ port: e.port, host: '127.0.0.1' });
  try {
    await new Promise((resolve, reject) => {
      idle.on('error', reject);
      idle.on('connect', () => idle.write(HEALTH));
      let got = '';
      idle.on('data', (c) => { got += c.toString('latin1'); if (got.includes('{"status":"ok"}')) resolve(); });
    });
    // Jobs long enough (10000 points; a 9-octave tile) that the client's
    // end of stream is there before the worker resumes the connection.
    const pts = JSON.stringify({ points: Array.from({ length: 10000 }, (_, i) => [i * 0.37, i * 0.11]) });
    const cases = [
      ['post', `POST /perlin/9/points?octaves=8 HTTP/1.1\r\nHost: x\r\nContent-Length: ${pts.length}\r\n\r\n${pts}`, 10000],
      ['chunked', `POST /value/6/points?octaves=8 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${pts.length.toString(16)}\r\n${pts}\r\n0\r\n\r\n`, 10000],
      ['render', 'GET /perlin/78/3/1/2.png?octaves=9 HTTP/1.1\r\nHost: x\r\n\r\n', 0],
      ['small', 'POST /value/5/points HTTP/1.1\r\nHost: x\r\nContent-Length: 23\r\n\r\n{"points":[[0.5,0.25]]}', 1],
    ];
    const got = [];
    for (const [name, req, n] of cases) {
      const rs = responses((await exchange(req, { halfClose: true, port: e.port, until: 1 })).data);
      const r = rs[0];
      const whole = r && !r.partial && (n > 0 ? r.json?.values?.length === n : r.body.length === Number(r.headers['content-length']));
      got.push(`${name}: ${rs.length} x ${r?.statusLine}${whole ? '' : ' (incomplete)'}`);
    }
    assert.deepEqual(got, cases.map(([name]) => `${name}: 1 x HTTP/1.1 200 OK`));
    const lines = await logLines(/"(POST \/(value|perlin)\/\d\/points(\?octaves=8)?|GET \/perlin\/78\/3\/1\/2\.png\?octaves=9)" /, 4, e);
    assert.equal(lines.length, 4);
    for (const l of lines) assert.match(l, / 200 \d+ [\d.]+ms$/, `answered, not status 0 and aborted: ${l}`);
    const m = await (await fetch(`${e.url}/metrics`)).text();
    assert.match(m, /^noisetile_http_requests_total\{route="points",status="200"\} 3$/m);
    assert.doesNotMatch(m, /^noisetile_http_requests_total\{route="(points|tile)",status="0"\}/m);
  } finally {
    idle.destroy();
    await e.stop();
  }
});

test('a file answer cut off mid-send is logged with "-" bytes and (aborted), not 0 and not its size', async () => {
  // A file (sent with sendfile) or a buffer: libmicrohttpd does not say how
  // far it got. 32 MiB: more than the kernel's loopback socket buffers
  // hold, so the daemon is still sending when the client resets.
  const dir = mkdtempSync(path.join(tmpdir(), 'noisetile-big-'));
  writeFileSync(path.join(dir, 'big.bin'), Buffer.alloc(32 * 1024 * 1024, 7));
  const e = await startDaemon({ args: ['--threads', '1', '--cache-mb', '4'], staticDir: dir });
  try {
    const received = await new Promise((resolve, reject) => {
      const sock = net.connect(e.port, '127.0.0.1');
      let n = 0;
      sock.on('connect', () => sock.write('GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n'));
      sock.on('data', (c) => {
        n += c.length;
        if (n < 100000) return;
        sock.pause(); // stop reading; the windows fill; then reset
        setTimeout(() => { sock.resetAndDestroy(); resolve(n); }, 300 * SLOW);
      });
      sock.on('error', reject);
    });
    const line = (await logLines(/"GET \/big\.bin" /, 1, e))[0];
    assert.match(line, / "GET \/big\.bin" 200 - [\d.]+ms \(aborted\)$/, `after ${received} bytes read: ${line}`);
    // A complete answer still logs its exact size.
    const whole = await fetch(`${e.url}/big.bin`).then((r) => r.arrayBuffer());
    assert.equal(whole.byteLength, 32 * 1024 * 1024);
    const done = (await logLines(/"GET \/big\.bin" /, 2, e))[1];
    assert.match(done, / 200 33554432 [\d.]+ms$/);
  } finally {
    await e.stop();
  }
});

test('stop', async () => { await d.stop(); });
