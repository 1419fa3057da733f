// framing.test.mjs: request framing a proxy in front might read differently
// (issue 27), sent on raw sockets: whitespace before a field's colon, an
// obs-fold line, an empty field name, a NUL byte in the request target,
// "%00" in a kind, a 20,000-byte chunk extension. Each is answered exactly
// once, with the daemon's JSON error and its Content-Type, and the
// connection closes; the request sent behind it is never served (no answer,
// no access-log line). Also: HEAD never carries a body (a chunked HEAD reply
// used to end with the "0" chunk, which put the next reply on the
// connection out of step); the answers libmicrohttpd sends on its own (505,
// 400, 413, 414, 431) are JSON too; a browser's 150 cookies get the normal
// answer, not 431.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, waitFor } from './daemon.mjs';
import { exchange, responses } from './rawhttp.mjs';

let d;
const SMUGGLED = (tag) => `GET /smuggled-${tag} HTTP/1.1\r\nHost: x\r\n\r\n`;
const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

// One error: exactly one response, the status given, JSON naming it with
// Content-Type application/json, the connection closed.
function assertOneJsonError(name, r, status, messageRe) {
  const rs = responses(r.data);
  assert.equal(rs.length, 1, `${name}: ${rs.length} responses: ${JSON.stringify(r.data.toString('latin1').slice(0, 700))}`);
  assert.equal(rs[0].status, status, `${name}: ${rs[0].statusLine}`);
  assert.ok(!rs[0].partial, `${name}: partial response`);
  assert.equal(rs[0].headers['content-type'], 'application/json', `${name}: Content-Type`);
  assert.equal(rs[0].json?.error?.status, status, `${name}: body ${rs[0].body}`);
  if (messageRe) assert.match(rs[0].json.error.message, messageRe, name);
  assert.ok(r.closed, `${name}: connection left open`);
  return rs[0];
}

async function refused(name, request, status, messageRe) {
  const r = await exchange(d.port, Buffer.concat([Buffer.from(request, 'latin1'), Buffer.from(SMUGGLED(name))]));
  return assertOneJsonError(name, r, status, messageRe);
}

test('start', async () => {
  d = await startDaemon({ args: ['--threads', '2', '--cache-mb', '8'] });
});

test('whitespace between a field name and its colon: 400, closed, the body behind it not served', async () => {
  const body = SMUGGLED('ws-body');
  for (const [tag, field] of [['space', `Content-Length : ${body.length}`], ['tab', `Content-Length\t: ${body.length}`],
    ['te', 'Transfer-Encoding : chunked'], ['host', 'Host : x']]) {
    const req = tag === 'host' ? `GET /healthz HTTP/1.1\r\n${field}\r\n\r\n`
      : `POST /perlin/1/points HTTP/1.1\r\nHost: x\r\n${field}\r\n\r\n${tag === 'te' ? `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n` : body}`;
    await refused(`ws-${tag}`, req, 400, /malformed request line or header field/);
  }
});

test('obs-fold continuation lines: 400, closed (RFC 9112 5.2), nothing after served', async () => {
  const body = SMUGGLED('fold-body');
  await refused('fold-cl', `POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n ${body.length}\r\n\r\n${body}`, 400, /malformed/);
  await refused('fold-tab', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tb\r\n\r\n`, 400, /malformed/);
  await refused('fold-te', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n Transfer-Encoding: chunked\r\n\r\n', 400, /malformed/);
});

test('an empty field name: 400 for the request, not two answers', async () => {
  await refused('empty-name', 'GET /healthz HTTP/1.1\r\nHost: x\r\n: v\r\n: w\r\n\r\n', 400, /malformed/);
  await refused('empty-name-1', 'GET /healthz HTTP/1.1\r\n: v\r\nHost: x\r\n\r\n', 400, /malformed/);
});

test('a NUL byte in the request target: 400, closed; the target is never cut at it', async () => {
  await refused('nul-index', 'GET /index.html\x00.png HTTP/1.1\r\nHost: x\r\n\r\n', 400, /malformed/);
  await refused('nul-tile', 'GET /perlin/1/0/0/0.png\x00/../x HTTP/1.1\r\nHost: x\r\n\r\n', 400, /malformed/);
  await refused('nul-method', 'GE\x00T /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, /malformed/);
});

test('"%00" inside the kind segment is an unknown kind (404), not the kind before it', async () => {
  const r = await exchange(d.port, `GET /perlin%00evil/1/0/0/0.png HTTP/1.1\r\nHost: x\r\n\r\n${HEALTH}`);
  const rs = responses(r.data);
  assert.equal(rs.length, 2, r.data.toString('latin1').slice(0, 400));
  assert.equal(rs[0].status, 404);
  assert.equal(rs[0].headers['content-type'], 'application/json');
  assert.match(rs[0].json.error.message, /unknown kind/);
  assert.deepEqual(rs[1].json, { status: 'ok' });
});

test('a 20,000-byte chunk extension: 413 JSON naming it, closed (was a 500 with an HTML page)', async () => {
  const req = `POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;${'a'.repeat(20000)}\r\n{"po}\r\n0\r\n\r\n`;
  await refused('chunk-ext', req, 413, /chunk-size line .* too long/);
});

test('answers libmicrohttpd sends on its own are the JSON error with its Content-Type', async () => {
  await refused('v505', 'GET /healthz HTTP/2.5\r\nHost: x\r\n\r\n', 505, /HTTP version not supported/);
  await refused('nocolon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n', 400, /malformed/);
  await refused('nospace', 'NONSENSE\r\n\r\n', 400, /malformed/);
  await refused('badlength', 'POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, /Content-Length/);
  await refused('chunksize', 'POST /perlin/1/points HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n', 413, /chunk size/);
  await refused('uri414', `GET /${'a'.repeat(20000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, /too large/);
  await refused('hdr431', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20000)}\r\n\r\n`, 431, /too large/);
  const r = await exchange(d.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20000)}\r\n\r\n`);
  assert.equal(responses(r.data)[0].headers['cache-control'], 'no-store');
});

test('HEAD never carries a body: the next response on the connection is in step', async () => {
  const heads = [
    ['grid', '/perlin/7/grid.npy?x=0&y=0&step=0.0625&width=257&height=257', ''],
    ['grid-gzip', '/perlin/7/grid.npy?x=0&y=0&step=0.0625&width=257&height=257', 'Accept-Encoding: gzip\r\n'],
    ['grid-png', '/perlin/7/grid.png?x=0&y=0&step=0.0625&width=64&height=64', ''],
    ['grid-png-gzip', '/perlin/7/grid.png?x=0&y=0&step=0.0625&width=64&height=64', 'Accept-Encoding: gzip\r\n'],
    ['grid-r16', '/perlin/7/grid.r16?x=0&y=0&step=0.0625&width=64&height=64', ''],
    ['stats', '/perlin/7/stats?x=0&y=0&step=0.0625&width=64&height=64', 'Accept-Encoding: gzip\r\n'],
    ['openapi-gzip', '/openapi.json', 'Accept-Encoding: gzip\r\n'],
    ['tile', '/perlin/7/0/0/0.png', ''],
  ];
  for (const [tag, target, extra] of heads) {
    const get = await exchange(d.port, `GET ${target} HTTP/1.1\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`);
    const g = responses(get.data)[0];
    const r = await exchange(d.port, `HEAD ${target} HTTP/1.1\r\nHost: x\r\n${extra}\r\n${HEALTH}`);
    const rs = responses(r.data, ['HEAD', 'GET']);
    assert.equal(rs.length, 2, `${tag}: ${JSON.stringify(r.data.toString('latin1').slice(0, 900))}`);
    assert.equal(rs[0].status, g.status, tag);
    assert.equal(rs[0].headers['content-type'], g.headers['content-type'], tag);
    assert.equal(rs[0].headers['transfer-encoding'], g.headers['transfer-encoding'], `${tag}: the GET's framing`);
    assert.equal(rs[1].statusLine, 'HTTP/1.1 200 OK', `${tag}: the next response`);
    assert.deepEqual(rs[1].json, { status: 'ok' }, tag);
    assert.ok(!r.closed, `${tag}: connection closed`);
  }
});

test('a browser\'s cookies (150 pairs, 4.6 KB; and 300) get the normal answer, not 431', async () => {
  for (const n of [150, 300]) {
    const cookie = Array.from({ length: n }, (_, i) => `c${String(i).padStart(3, '0')}=${'v'.repeat(24)}`).join('; ');
    assert.ok(n !== 150 || (cookie.length > 4500 && cookie.length < 4700), `${cookie.length}`);
    const browser = 'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n' +
      'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\nAccept-Language: en-US,en;q=0.5\r\n' +
      'Accept-Encoding: gzip, deflate, br, zstd\r\nSec-Fetch-Dest: document\r\nSec-Fetch-Mode: navigate\r\n';
    const r = await exchange(d.port, `GET /perlin/7/tile.json HTTP/1.1\r\nHost: localhost\r\n${browser}Cookie: ${cookie}\r\n\r\n${HEALTH}`);
    const rs = responses(r.data);
    assert.equal(rs.length, 2, `${n} cookies: ${r.data.toString('latin1').slice(0, 300)}`);
    assert.equal(rs[0].status, 200, `${n} cookies`);
    assert.deepEqual(rs[1].json, { status: 'ok' });
  }
});

test('no request smuggled behind a refused one was ever served; stop', async () => {
  // Log lines are written in the order requests end: once the last test's
  // line is there, any for a smuggled request would be too.
  await waitFor(() => /"GET \/perlin\/7\/tile\.json" 200 /.test(d.stderr()), 'the last access-log line');
  assert.doesNotMatch(d.stderr(), /smuggled/);
  await d.stop();
});
