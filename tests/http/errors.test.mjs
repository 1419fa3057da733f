// errors.test.mjs: a table of bad requests; each gets the right 4xx status
// and a JSON error whose message names what was wrong, and the daemon keeps
// serving afterwards.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, raw, makeStaticFixture } from './daemon.mjs';

let d;
let fixture;
before(async () => {
  fixture = makeStaticFixture();
  d = await startDaemon({ staticDir: fixture.dir });
});
after(async () => { await d.stop(); });

const P = '/perlin/7/point?x=0.5&y=0.5';
const json = { 'Content-Type': 'application/json' };
const body = (o) => JSON.stringify(o);

// [method, path, options, status, message pattern]
const cases = [
  // tile path numbers
  ['GET', '/perlin/7/31/0/0.png', {}, 400, /z .*-2\.\.30.*'31'/],
  ['GET', '/perlin/7/-3/0/0.png', {}, 400, /z .*-2\.\.30.*'-3'/],
  ['GET', '/perlin/7/99999999999999999999/0/0.png', {}, 400, /\bz\b/],
  ['GET', '/perlin/7/3/2147483648/0.png', {}, 400, /x .*-2147483648\.\.2147483647.*'2147483648'/],
  ['GET', '/perlin/7/3/0/-2147483649.png', {}, 400, /y .*'-2147483649'/],
  ['GET', '/perlin/7/3/0/-2147483649@2x.png', {}, 400, /y .*'-2147483649'/],
  ['GET', '/perlin/7/3/+1/0.png', {}, 400, /x .*'\+1'/],
  ['GET', '/perlin/7/3//0.png', {}, 400, /x .*''/],
  ['GET', '/perlin/7/3/1.5/0.png', {}, 400, /x .*'1\.5'/],
  ['GET', '/perlin/7/3/0x10/0.png', {}, 400, /x .*'0x10'/],
  ['GET', '/perlin/7/3/0/%201.png', {}, 400, /y .*' 1'/],
  ['GET', '/perlin/7/3/0/1@3x.png', {}, 400, /tile scale '@3x' does not exist: a tile is \{y\}\.png \(256 px\) or \{y\}@2x\.png/],
  ['GET', '/perlin/4294967296/0/0/0.png', {}, 400, /seed .*0\.\.4294967295.*'4294967296'/],
  ['GET', '/perlin/-1/point?x=0&y=0', {}, 400, /seed .*'-1'/],
  ['GET', '/perlin/abc/tile.json', {}, 400, /seed .*'abc'/],
  // kinds and paths
  ['GET', '/worley/7/0/0/0.png', {}, 404, /unknown kind 'worley'.*perlin/],
  ['GET', '/Perlin/7/point?x=0&y=0', {}, 404, /unknown kind 'Perlin'/],
  ['POST', '/nope/1/points', { body: body({ points: [] }), headers: json }, 404, /unknown kind 'nope'/],
  ['GET', '/no/such/path', {}, 404, /no file/],
  ['GET', '/api/kinds/extra', {}, 404, /no file/],
  // field parameters
  ['GET', `${P}&octaves=17`, {}, 400, /octaves.*1\.\.16.*'17'/],
  ['GET', `${P}&octaves=0`, {}, 400, /octaves.*'0'/],
  ['GET', `${P}&octaves=2.5`, {}, 400, /octaves.*'2\.5'/],
  ['GET', `${P}&frequency=0`, {}, 400, /frequency.*'0'/],
  ['GET', `${P}&frequency=-1`, {}, 400, /frequency.*'-1'/],
  ['GET', `${P}&frequency=NaN`, {}, 400, /frequency.*'NaN'/],
  ['GET', `${P}&frequency=inf`, {}, 400, /frequency.*'inf'/],
  ['GET', `${P}&frequency=1e400`, {}, 400, /frequency.*'1e400'/],
  ['GET', `${P}&frequency=`, {}, 400, /frequency/],
  ['GET', `${P}&gain=1.5`, {}, 400, /gain.*'1\.5'/],
  ['GET', `${P}&lacunarity=0.5`, {}, 400, /lacunarity.*'0\.5'/],
  ['GET', `${P}&warp=-0.1`, {}, 400, /warp.*'-0\.1'/],
  ['GET', `${P}&fractal=plasma`, {}, 400, /fractal.*'plasma'/],
  ['GET', `${P}&t=Infinity`, {}, 400, /\bt\b.*'Infinity'/],
  ['GET', '/simplex/1/point?x=0&y=0&lattice=triangle', {}, 400, /lattice/],
  ['GET', `${P}&colour=red`, {}, 400, /unknown parameter 'colour'/],
  ['GET', `${P}&octaves=2&octaves=2`, {}, 400, /octaves.*twice|twice.*octaves|duplicate.*octaves|octaves.*duplicate/],
  ['GET', `${P}&octaves`, {}, 400, /octaves.*no value|octaves/],
  ['GET', `${P}&=3`, {}, 400, /empty name/],
  ['GET', `${P}&frequency=1%00`, {}, 400, /frequency.*NUL|NUL.*frequency/],
  // point parameters
  ['GET', '/perlin/7/point?y=1', {}, 400, /missing parameter 'x'/],
  ['GET', '/perlin/7/point?x=1', {}, 400, /missing parameter 'y'/],
  ['GET', '/perlin/7/point?x=nan&y=1', {}, 400, /\bx\b.*'nan'/],
  ['GET', '/perlin/7/point?x=1&y=1e999', {}, 400, /\by\b.*'1e999'/],
  ['GET', '/perlin/7/point?x=0x1p3&y=1', {}, 400, /\bx\b.*'0x1p3'/],
  ['GET', '/perlin/7/point?x=1&x=2&y=1', {}, 400, /'x' given twice/],
  ['GET', '/perlin/7/point?x=1&y=1&palette=gray', {}, 400, /unknown parameter 'palette'/],
  // render parameters
  ['GET', '/perlin/7/0/0/0.png?palette=rainbow', {}, 400, /palette.*gray.*'rainbow'/],
  ['GET', '/perlin/7/0/0/0.png?shade=2', {}, 400, /shade.*0 or 1.*'2'/],
  ['GET', '/perlin/7/0/0/0.png?zero=yes', {}, 400, /zero.*'yes'/],
  ['GET', '/perlin/7/0/0/0.png?palette=gray&palette=terrain', {}, 400, /palette.*twice/],
  ['GET', '/perlin/7/0/0/0.png?x=1', {}, 400, /unknown parameter 'x'/],
  ['GET', `/perlin/7/0/0/0.png?${Array.from({ length: 40 }, (_, i) => `p${i}=1`).join('&')}`, {}, 400, /too many query parameters/],
  // bodies
  ['POST', '/perlin/7/points', { body: '{"points":[[1,2]', headers: json }, 400, /not valid JSON/],
  ['POST', '/perlin/7/points', { body: '', headers: json }, 400, /not valid JSON/],
  ['POST', '/perlin/7/points', { body: body([[1, 2]]), headers: json }, 400, /"points"/],
  ['POST', '/perlin/7/points', { body: body({ pts: [[1, 2]] }), headers: json }, 400, /points/],
  ['POST', '/perlin/7/points', { body: body({ points: [[1, 2]], extra: 1 }), headers: json }, 400, /unknown member 'extra'/],
  ['POST', '/perlin/7/points', { body: body({ points: [[1]] }), headers: json }, 400, /points\[0\]/],
  ['POST', '/perlin/7/points', { body: body({ points: [[1, 2], [1, 2, 3]] }), headers: json }, 400, /points\[1\]/],
  ['POST', '/perlin/7/points', { body: body({ points: [[1, 2], [1, '2']] }), headers: json }, 400, /points\[1\].*numbers/],
  ['POST', '/perlin/7/points', { body: '{"points":[[1,2],[1e999,0]]}', headers: json }, 400, /JSON/],
  ['POST', '/perlin/7/points', { body: '{"points":[[1,2]],"points":[[3,4]]}', headers: json }, 400, /duplicate/],
  ['POST', '/perlin/7/points?octaves=99', { body: body({ points: [[1, 2]] }), headers: json }, 400, /octaves/],
  ['POST', '/perlin/7/points', { body: body({ points: Array.from({ length: 10001 }, () => [0, 0]) }), headers: json }, 413, /too many points.*10001.*10000/],
  ['POST', '/perlin/7/points', { body: body({ points: [[0, 0]], pad: 'x'.repeat(1100000) }), headers: json }, 413, /larger than 1048576 bytes/],
  // methods
  ['DELETE', '/perlin/7/0/0/0.png', {}, 405, /DELETE.*GET, HEAD/],
  ['POST', '/perlin/7/0/0/0.png', { body: 'x' }, 405, /POST not allowed/],
  ['GET', '/perlin/7/points', {}, 405, /GET not allowed.*POST/],
  ['PUT', '/perlin/7/point?x=0&y=0', { body: 'x' }, 405, /PUT/],
  ['POST', '/healthz', { body: '{}' }, 405, /POST/],
  ['PATCH', '/metrics', { body: '{}' }, 405, /PATCH/],
  ['DELETE', '/index.html', {}, 405, /DELETE/],
  // static files: no way out of the folder
  ['GET', '/../secret.txt', {}, 400, /'\.\.'/],
  ['GET', '/sub/../../secret.txt', {}, 400, /'\.\.'/],
  ['GET', '/%2e%2e/secret.txt', {}, 400, /'\.\.'/],
  ['GET', '/%2E%2E%2Fsecret.txt', {}, 400, /encoded slash/],
  ['GET', '/sub%2f..%2f..%2fsecret.txt', {}, 400, /encoded slash/],
  ['GET', '/..%5csecret.txt', {}, 400, /encoded slash|backslash/],
  ['GET', '/sub\\..\\..\\secret.txt', {}, 400, /backslash/],
  ['GET', '/index.html%00.png', {}, 400, /NUL/],
  ['GET', '/%zz', {}, 400, /percent/],
  ['GET', '/.hidden', {}, 400, /hidden/],
  ['GET', '/./index.html', {}, 400, /'\.'/],
  ['GET', '//etc/passwd', {}, 400, /empty path segment/],
  ['GET', '/escape.txt', {}, 404, /no file/],
  ['GET', '/up/secret.txt', {}, 404, /no file/],
  ['GET', '/missing.html', {}, 404, /no file/],
];

test(`${cases.length} bad requests: right 4xx, JSON message naming the problem`, async () => {
  assert.ok(cases.length >= 40);
  for (const [method, path, opts, status, re] of cases) {
    const r = await raw(d.port, method, path, opts);
    const label = `${method} ${path.slice(0, 80)} -> ${r.status} ${r.text.slice(0, 200)}`;
    assert.equal(r.status, status, label);
    assert.match(r.headers['content-type'] || '', /^application\/json/, label);
    assert.equal(r.headers['access-control-allow-origin'], '*', label);
    assert.ok(r.json && r.json.error, label);
    assert.equal(r.json.error.status, status, label);
    assert.match(r.json.error.message, re, label);
    assert.doesNotMatch(r.text, /TOP SECRET/, label);
    if (status === 405) assert.match(r.headers['allow'] || '', /^(GET, HEAD, OPTIONS|POST, OPTIONS)$/, label);
  }
  // Still serving, and no 5xx was counted.
  const ok = await raw(d.port, 'GET', '/perlin/7/0/0/0.png');
  assert.equal(ok.status, 200);
  const m = await raw(d.port, 'GET', '/metrics');
  assert.doesNotMatch(m.text, /status="5\d\d"/);
});

test('a body far over the limit (50 MB) is read and dropped, then answered 413', async () => {
  // Not refused before it is read: a client that sends its whole body
  // before reading would meet a reset instead of the 413. What bounds the
  // reading is the request deadline (tests/http/lingering.test.mjs: a body
  // still arriving then is answered 413 at the deadline).
  const r = await raw(d.port, 'POST', '/perlin/7/points', {
    headers: { ...json, 'Content-Length': String(50 * 1024 * 1024) }, body: Buffer.alloc(50 * 1024 * 1024, ' '),
  });
  assert.equal(r.status, 413);
  assert.match(r.json.error.message, /larger than 1048576 bytes/);
  const ok = await raw(d.port, 'GET', '/healthz');
  assert.equal(ok.status, 200);
});

test('an over-long request line gets 414 and over-long headers 431; the daemon still serves', async () => {
  const long = await raw(d.port, 'GET', `/perlin/7/point?x=1&y=2&pad=${'a'.repeat(40000)}`);
  assert.equal(long.status, 414);
  const big = await raw(d.port, 'GET', '/healthz', { headers: { 'X-Big': 'b'.repeat(40000) } });
  assert.equal(big.status, 431);
  // Long but within the 16 KiB request memory (LIMIT_CONNECTION_MEMORY:
  // about 16200 bytes of request line): parsed, and the unknown parameter
  // is named.
  const ok = await raw(d.port, 'GET', `/perlin/7/point?x=1&y=2&pad=${'a'.repeat(15000)}`);
  assert.equal(ok.status, 400);
  assert.match(ok.json.error.message, /unknown parameter 'pad'/);
  assert.equal((await raw(d.port, 'GET', '/healthz')).status, 200);
});
