// seeds.test.mjs: the seed documents' variants through the daemon: kind
// `classic` (Wikipedia's C perlin(x, y)) on every route (/api/kinds,
// OpenAPI, /point, /points, tiles, .npy, TileJSON), against a JavaScript
// transcription of the article's C code in float arithmetic (Math.fround
// after every float operation, as C does them); perlin and simplex with the
// GLSL article's gradients=angle and falloff=quartic, perlin's against a
// transcription of its gradientNoise(); and their bad inputs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, get } from './daemon.mjs';
import { numpyRead } from './readers.mjs';

let d;
before(async () => { d = await startDaemon(); });
after(async () => { await d.stop(); });

const post = (p, body) => get(`${d.url}${p}`, {
  method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
});

// ---- the article's C code, transcribed: float operations through Math.fround ----
const f32 = Math.fround;
function randomGradient(ix, iy) {
  let a = ix >>> 0, b = iy >>> 0;
  a = Math.imul(a, 3284157443) >>> 0;
  b = (b ^ ((a << 16) | (a >>> 16))) >>> 0;
  b = Math.imul(b, 1911520717) >>> 0;
  a = (a ^ ((b << 16) | (b >>> 16))) >>> 0;
  a = Math.imul(a, 2048419325) >>> 0;
  const random = f32(a * (3.14159265 / 2147483648));
  return [f32(Math.cos(random)), f32(Math.sin(random))];
}
function dotGridGradient(ix, iy, x, y) {
  const g = randomGradient(ix, iy);
  const dx = f32(x - f32(ix)), dy = f32(y - f32(iy));
  return f32(f32(dx * g[0]) + f32(dy * g[1]));
}
const interpolate = {
  linear: (a0, a1, w) => f32(f32(f32(a1 - a0) * w) + a0),
  cubic: (a0, a1, w) => f32(f32(a1 - a0) * (3.0 - w * 2.0) * w * w + a0),
  quintic: (a0, a1, w) => f32(f32(a1 - a0) * ((w * (w * 6.0 - 15.0) + 10.0) * w * w * w) + a0),
};
function perlin(fade, x, y) {
  x = f32(x); y = f32(y);
  const x0 = Math.floor(x), x1 = x0 + 1, y0 = Math.floor(y), y1 = y0 + 1;
  const sx = f32(x - f32(x0)), sy = f32(y - f32(y0));
  const interp = interpolate[fade];
  const ix0 = interp(dotGridGradient(x0, y0, x, y), dotGridGradient(x1, y0, x, y), sx);
  const ix1 = interp(dotGridGradient(x0, y1, x, y), dotGridGradient(x1, y1, x, y), sx);
  return interp(ix0, ix1, sy);
}

test('/api/kinds and OpenAPI know classic, its fade and that t is not for it', async () => {
  const k = (await get(`${d.url}/api/kinds`)).json;
  assert.ok(k.kinds.includes('classic'));
  const fade = k.parameters.find((p) => p.name === 'fade');
  assert.deepEqual(fade.choices, ['linear', 'cubic', 'quintic']);
  assert.equal(fade.default, 'linear');
  assert.deepEqual(fade.kinds, ['classic']);
  const t = k.parameters.find((p) => p.name === 't');
  assert.ok(!t.kinds.includes('classic') && t.kinds.includes('perlin'));
  const o = (await get(`${d.url}/openapi.json`)).json;
  assert.ok(o.components.parameters.kind.schema.enum.includes('classic'));
  const op = o.paths['/{kind}/{seed}/point'].get.parameters.find((q) => q.name === 'fade');
  assert.match(op.description, /\(classic only\)$/);
});

test('/point and /points of classic seed 0 are the article\'s perlin(x, y) within 2e-6, each interpolation', async () => {
  let s = 7;
  const rnd = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 4294967296; };
  const pts = [];
  for (let i = 0; i < 300; i++) pts.push([f32((rnd() - 0.5) * 400), f32((rnd() - 0.5) * 400)]);
  pts.push([3, -5], [0, 0], [-1e6, 2.5]);
  for (const fade of ['linear', 'cubic', 'quintic']) {
    const q = fade === 'linear' ? '' : `?fade=${fade}`;
    const r = await post(`/classic/0/points${q}`, { points: pts });
    assert.equal(r.status, 200, r.text);
    let worst = 0;
    pts.forEach(([x, y], i) => { worst = Math.max(worst, Math.abs(r.json.values[i] - perlin(fade, x, y))); });
    assert.ok(worst <= 2e-6, `fade=${fade}: worst difference ${worst}`);
    assert.equal(r.json.values[300], 0, 'a node is 0');
    const p = await get(`${d.url}/classic/0/point?x=${pts[5][0]}&y=${pts[5][1]}${q.replace('?', '&')}`);
    assert.equal(p.status, 200, p.text);
    assert.equal(p.json.value, r.json.values[5]);
    assert.deepEqual(p.json.gradient, r.json.gradients[5]);
    assert.equal(p.json.gradient.length, 2);
    assert.equal(p.json.params.fade, fade);
  }
});

test('classic tiles: PNG and .npy equal /points at pixel centres; fade spelled out is the same tile; TileJSON keeps it', async () => {
  const a = await get(`${d.url}/classic/3/2/1/-1.png`);
  const b = await get(`${d.url}/classic/3/2/1/-1.png?fade=linear`);
  const c = await get(`${d.url}/classic/3/2/1/-1.png?fade=quintic`);
  assert.equal(a.status, 200);
  assert.equal(a.headers.get('content-type'), 'image/png');
  assert.equal(a.headers.get('etag'), b.headers.get('etag'));
  assert.notEqual(a.headers.get('etag'), c.headers.get('etag'));
  const n = await get(`${d.url}/classic/3/2/1/-1.npy?fade=cubic&octaves=3`);
  assert.equal(n.status, 200, n.text);
  const arr = numpyRead(n.body);
  assert.deepEqual(arr.shape, [256, 256]);
  const side = 16 / 4, step = side / 256, x0 = (1 + 0.5 / 256) * side, y0 = (-1 + 0.5 / 256) * side;
  const pts = [], idx = [];
  for (let k = 0; k < 256 * 256; k += 997) { idx.push(k); pts.push([x0 + (k % 256) * step, y0 + Math.floor(k / 256) * step]); }
  const r = await post('/classic/3/points?fade=cubic&octaves=3', { points: pts });
  assert.equal(r.status, 200, r.text);
  idx.forEach((k, i) => assert.equal(arr.data[k], f32(r.json.values[i]), `pixel ${k}`));
  const tj = (await get(`${d.url}/classic/3/tile.json?fade=quintic`)).json;
  assert.match(tj.tiles[0], /\/classic\/3\/\{z\}\/\{x\}\/\{y\}\.png\?.*fade=quintic/);
});

test('classic bad input: t, [x, y, t] points, a bad fade; fade on another kind', async () => {
  const cases = [
    ['/classic/1/point?x=0&y=0&t=1', /parameter 't' applies only to value, perlin, simplex, improved and cellular, not to classic \(a 2D field: it has no third coordinate\); got '1'/],
    ['/classic/1/0/0/0.png?t=0', /'t' applies only to .*not to classic/],
    ['/classic/1/point?x=0&y=0&fade=smooth', /fade must be one of linear, cubic, quintic, got 'smooth'/],
    ['/perlin/1/point?x=0&y=0&fade=cubic', /parameter 'fade' applies only to classic, not to perlin/],
    ['/classic/1/grid.npy?x=0&y=0&step=1&width=2&height=2&fade=linear&fade=cubic', /parameter 'fade' given twice/],
  ];
  for (const [url, msg] of cases) {
    const r = await get(`${d.url}${url}`);
    assert.equal(r.status, 400, url);
    assert.match(r.json.error.message, msg, url);
  }
  const r = await post('/classic/1/points', { points: [[0, 0, 1]] });
  assert.equal(r.status, 400);
  assert.equal(r.json.error.message, 'classic is a 2D field (no third coordinate): send [x, y] points, not [x, y, t]');
  // the daemon still serves
  assert.equal((await post('/classic/1/points', { points: [[0.5, 0.5]] })).status, 200);
});

// ---- the gradient/simplex article's GLSL functions, transcribed in double
// with SmallXXHash (docs/field.md) for hash21 ----
function smallxx(seed, i, j) {
  const rotl = (v, r) => ((v << r) | (v >>> (32 - r))) >>> 0;
  const eat = (acc, d) => Math.imul(rotl((acc + Math.imul(d, 0xC2B2AE3D)) >>> 0, 17), 0x27D4EB2F) >>> 0;
  let a = eat(eat((seed + 0x165667B1) >>> 0, i >>> 0), j >>> 0);
  a = (a ^ (a >>> 15)) >>> 0; a = Math.imul(a, 0x85EBCA77) >>> 0;
  a = (a ^ (a >>> 13)) >>> 0; a = Math.imul(a, 0xC2B2AE3D) >>> 0;
  return (a ^ (a >>> 16)) >>> 0;
}
function gradient(seed, i, j) {
  const angle = (smallxx(seed, i, j) / 4294967296) * (2 * Math.PI);
  return [Math.cos(angle), Math.sin(angle)];
}
const mix = (x, y, a) => x * (1 - a) + y * a;
function gradientNoise(seed, px, py) {
  const ix = Math.floor(px), iy = Math.floor(py), fx = px - ix, fy = py - iy;
  const dot = (g, x, y) => g[0] * x + g[1] * y;
  const a = dot(gradient(seed, ix, iy), fx, fy), b = dot(gradient(seed, ix + 1, iy), fx - 1, fy);
  const c = dot(gradient(seed, ix, iy + 1), fx, fy - 1), d = dot(gradient(seed, ix + 1, iy + 1), fx - 1, fy - 1);
  const ux = fx * fx * fx * (fx * (fx * 6 - 15) + 10), uy = fy * fy * fy * (fy * (fy * 6 - 15) + 10);
  return mix(mix(a, b, ux), mix(c, d, ux), uy);
}

test('/points of perlin with gradients=angle are the GLSL gradientNoise(p) within 1e-12', async () => {
  const pts = [];
  let s = 3;
  const rnd = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 4294967296; };
  for (let i = 0; i < 300; i++) pts.push([(rnd() - 0.5) * 200, (rnd() - 0.5) * 200]);
  for (const seed of [0, 9]) {
    const r = await post(`/perlin/${seed}/points?gradients=angle`, { points: pts });
    assert.equal(r.status, 200, r.text);
    let worst = 0;
    pts.forEach(([x, y], i) => { worst = Math.max(worst, Math.abs(r.json.values[i] - gradientNoise(seed, x, y))); });
    assert.ok(worst <= 1e-12, `seed ${seed}: worst ${worst}`);
  }
});

test('the GLSL variants on every route: /api/kinds, canonical URLs and ETags, tiles, .npy; defaults change nothing', async () => {
  const k = (await get(`${d.url}/api/kinds`)).json;
  const g = k.parameters.find((p) => p.name === 'gradients'), f = k.parameters.find((p) => p.name === 'falloff');
  assert.deepEqual([g.choices, g.default, g.kinds], [['table', 'angle'], 'table', ['perlin', 'simplex']]);
  assert.deepEqual([f.choices, f.default, f.kinds], [['classic', 'quartic'], 'classic', ['simplex']]);
  // the defaults spelled out are the same tile (existing URLs and ETags unchanged)
  const a = await get(`${d.url}/simplex/4/3/1/2.png`);
  const b = await get(`${d.url}/simplex/4/3/1/2.png?gradients=table&falloff=classic`);
  const c = await get(`${d.url}/simplex/4/3/1/2.png?falloff=quartic&gradients=angle`);
  assert.equal(a.headers.get('etag'), b.headers.get('etag'));
  assert.notEqual(a.headers.get('etag'), c.headers.get('etag'));
  assert.equal(c.status, 200);
  const tj = (await get(`${d.url}/simplex/4/tile.json?falloff=quartic`)).json;
  assert.match(tj.tiles[0], /falloff=quartic/);
  assert.doesNotMatch((await get(`${d.url}/simplex/4/tile.json`)).json.tiles[0], /falloff|gradients/);
  const n = await get(`${d.url}/perlin/4/3/1/2.npy?gradients=angle`);
  assert.equal(n.status, 200);
  const arr = numpyRead(n.body);
  const side = 2, step = side / 256, x0 = (1 + 0.5 / 256) * side, y0 = (2 + 0.5 / 256) * side;
  const pts = [], idx = [];
  for (let q = 0; q < 256 * 256; q += 1009) { idx.push(q); pts.push([x0 + (q % 256) * step, y0 + Math.floor(q / 256) * step]); }
  const r = await post('/perlin/4/points?gradients=angle', { points: pts });
  idx.forEach((q, i) => assert.equal(arr.data[q], f32(r.json.values[i]), `pixel ${q}`));
  const p = await get(`${d.url}/simplex/4/point?x=0.5&y=0.5&gradients=angle&falloff=quartic`);
  assert.equal(p.json.params.gradients, 'angle');
  assert.equal(p.json.params.falloff, 'quartic');
  assert.equal(p.json.gradient.length, 2);
});

test('GLSL variants bad input: t, [x, y, t] points, unknown choices, where they do not apply', async () => {
  const cases = [
    ['/simplex/1/point?x=0&y=0&gradients=angle&t=1', 400, /parameter 't' does not apply to simplex with gradients=angle: the GLSL article's function is 2D \(no third coordinate\)/],
    ['/simplex/1/0/0/0.png?t=1&falloff=quartic', 400, /'t' does not apply to simplex with falloff=quartic/],
    ['/perlin/1/point?x=0&y=0&t=2&gradients=angle', 400, /does not apply to perlin with gradients=angle/],
    ['/perlin/1/point?x=0&y=0&falloff=quartic', 400, /parameter 'falloff' applies only to simplex, not to perlin/],
    ['/value/1/point?x=0&y=0&gradients=angle', 400, /parameter 'gradients' applies only to perlin and simplex, not to value/],
    ['/simplex/1/point?x=0&y=0&gradients=random', 400, /gradients must be one of table, angle, got 'random'/],
    ['/simplex/1/point?x=0&y=0&falloff=', 400, /falloff must be one of classic, quartic, got ''/],
  ];
  for (const [url, status, msg] of cases) {
    const r = await get(`${d.url}${url}`);
    assert.equal(r.status, status, url);
    assert.match(r.json.error.message, msg, url);
  }
  const r = await post('/perlin/1/points?gradients=angle', { points: [[0, 0, 1]] });
  assert.equal(r.status, 400);
  assert.equal(r.json.error.message,
    'perlin with gradients=angle is a 2D field (no third coordinate): send [x, y] points, not [x, y, t]');
  assert.equal((await post('/perlin/1/points', { points: [[0, 0, 1]] })).status, 200, 'table gradients keep 3D');
});

test('period wraps classic and perlin gradients=angle: /point one period away is the same, value and gradient', async () => {
  for (const [kind, q] of [['classic', 'period=4&fade=quintic&octaves=3'], ['classic', 'period=8'], ['perlin', 'period=4&gradients=angle&octaves=2']]) {
    const at = async (x, y) => {
      const r = await get(`${d.url}/${kind}/5/point?x=${x}&y=${y}&${q}`);
      assert.equal(r.status, 200, r.text);
      return r.json;
    };
    const p0 = await at(0.3125, -1.75);
    for (const [x, y] of [[8.3125, -1.75], [0.3125, 6.25], [-15.6875, 30.25]]) {
      const p = await at(x, y);
      assert.equal(p.value, p0.value, `${kind} ${q} (${x}, ${y})`);
      assert.deepEqual(p.gradient, p0.gradient, `${kind} ${q} (${x}, ${y})`);
    }
  }
});
