// cellular.test.mjs: the cellular (Worley) kind through the daemon: /point
// against a brute-force transcription of docs/field.md in JavaScript (bit
// for bit), POST /points, a PNG tile (gray16, read by pngjs, and a colour
// tile), a .npy tile (read by numpy), tile.json, /api/kinds and OpenAPI, and
// every bad value with its 400 message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { startDaemon, get } from './daemon.mjs';
import { numpyRead } from './readers.mjs';

let d;
before(async () => { d = await startDaemon(); });
after(async () => { await d.stop(); });

// ---- docs/field.md, "cellular", in JavaScript (indices inside int32) ----
const imul = Math.imul;
const rotl = (v, r) => ((v << r) | (v >>> (32 - r))) >>> 0;
const eat = (acc, x) => imul(rotl((acc + imul(x, 0xC2B2AE3D)) >>> 0, 17), 0x27D4EB2F) >>> 0;
function avalanche(a) {
  a = (a ^ (a >>> 15)) >>> 0;
  a = imul(a, 0x85EBCA77) >>> 0;
  a = (a ^ (a >>> 13)) >>> 0;
  a = imul(a, 0xC2B2AE3D) >>> 0;
  return (a ^ (a >>> 16)) >>> 0;
}
const offset = (bits, j) => 0.5 + j * (bits / 65536 - 0.5);
const DIST = {
  euclidean: (d) => (d.length === 3 ? d[0] * d[0] + (d[1] * d[1] + d[2] * d[2]) : d[0] * d[0] + d[1] * d[1]),
  manhattan: (d) => (d.length === 3 ? Math.abs(d[0]) + (Math.abs(d[1]) + Math.abs(d[2])) : Math.abs(d[0]) + Math.abs(d[1])),
  chebyshev: (d) => {
    const m = (a, b) => (a > b ? a : b);
    return d.length === 3 ? m(Math.abs(d[0]), m(Math.abs(d[1]), Math.abs(d[2]))) : m(Math.abs(d[0]), Math.abs(d[1]));
  },
};
function bounds(dist, d3, j) {
  const h = 0.5 + 0.5 * j;
  if (dist === 'euclidean')
    return [h * Math.sqrt(d3 ? 3 : 2), d3 ? Math.sqrt(3 * h * h + (h < 0.75 ? 0.75 - h : 0)) : Math.sqrt(2 * h * h + 0.5)];
  if (dist === 'manhattan') return [h * (d3 ? 3 : 2), h * (d3 ? 3 : 2)];
  return [h, h + 0.5];
}
function gradF(dist, d, F) {
  const g = d.map(() => 0);
  if (dist === 'euclidean') return d.map((c) => (F > 0 ? -(c / F) : 0));
  if (dist === 'manhattan') return d.map((c) => (c < 0 ? 1 : -1));
  let m = 0;
  for (let a = 1; a < d.length; a++) if (Math.abs(d[a]) > Math.abs(d[m])) m = a;
  g[m] = d[m] < 0 ? 1 : -1;
  return g;
}
// The field at p ([x, y] or [x, y, t]), one octave, frequency 1.
function cellular(seed, p, dist = 'euclidean', ret = 'f1', j = 1) {
  const d3 = p.length === 3, R = 3;
  const c = p.map(Math.floor), f = p.map((x, a) => x - c[a]);
  let b1 = { D: Infinity }, b2 = { D: Infinity };
  for (let ez = d3 ? -R : 0; ez <= (d3 ? R : 0); ez++)
    for (let ey = -R; ey <= R; ey++)
      for (let ex = -R; ex <= R; ex++) {
        let acc = eat(eat((seed + 0x165667B1) >>> 0, (c[0] + ex) >>> 0), (c[1] + ey) >>> 0);
        if (d3) acc = eat(acc, (c[2] + ez) >>> 0);
        const h = avalanche(acc), h2 = avalanche((h + 0x9E3779B1) >>> 0);
        const d = [ex + offset(h & 0xffff, j) - f[0], ey + offset(h >>> 16, j) - f[1]];
        if (d3) d.push(ez + offset(h2 & 0xffff, j) - f[2]);
        const q = { D: DIST[dist](d), d, h2 };
        if (q.D < b1.D) [b2, b1] = [b1, q];
        else if (q.D < b2.D) b2 = q;
      }
  const eu = dist === 'euclidean';
  const F1 = eu ? Math.sqrt(b1.D) : b1.D, F2 = eu ? Math.sqrt(b2.D) : b2.D;
  const [B1, B2] = bounds(dist, d3, j), s1 = 2 / B1, s2 = 2 / B2;
  const g1 = gradF(dist, b1.d, F1), g2 = gradF(dist, b2.d, F2);
  const clamp = (v) => Math.min(1, Math.max(-1, v));
  if (ret === 'f1') return { value: clamp(F1 * s1 - 1), gradient: g1.map((x) => x * s1) };
  if (ret === 'f2') return { value: clamp(F2 * s2 - 1), gradient: g2.map((x) => x * s2) };
  if (ret === 'f2-f1') return { value: clamp((F2 - F1) * s2 - 1), gradient: g2.map((x, a) => (x - g1[a]) * s2) };
  return { value: (b1.h2 >>> 16) / 65535 * 2 - 1, gradient: g1.map(() => 0) };
}

const post = (url, body) => get(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

test('/point: cellular equals the brute force of docs/field.md bit for bit, every distance and return, 2D and 3D', async () => {
  const pts = [[0.3, 0.7], [-12.25, 40.5], [100.015625, -3.75], [7, -7], [-0.001, 0.999], [55.5, 55.5]];
  let n = 0;
  for (const dist of ['euclidean', 'manhattan', 'chebyshev'])
    for (const ret of ['f1', 'f2', 'f2-f1', 'cell'])
      for (const [x, y] of pts)
        for (const [t, j] of [[null, 1], [null, 0.5], [2.375, 1], [-1.5, 0]]) {
          const q = `x=${x}&y=${y}&distance=${dist}&return=${ret}` + (j !== 1 ? `&jitter=${j}` : '') + (t !== null ? `&t=${t}` : '');
          const r = await get(`${d.url}/cellular/9/point?${q}`);
          assert.equal(r.status, 200, r.text);
          const want = cellular(9, t !== null ? [x, y, t] : [x, y], dist, ret, j);
          assert.equal(r.json.value, want.value, `value at ${q}`);
          assert.deepEqual(r.json.gradient, want.gradient, `gradient at ${q}`);
          assert.deepEqual(r.json.params, Object.assign({ frequency: 1, octaves: 1, lacunarity: 2, gain: 0.5, fractal: 'fbm', warp: 0,
            distance: dist, return: ret, jitter: j }, t !== null ? { t } : {}));
          n++;
        }
  assert.equal(n, 288);
});

test('POST /points: cellular batches equal /point, 2 and 3 coordinates, fractal modes and warp', async () => {
  const coords = [[0, 0], [1.5, -2.25], [-123.4, 98.7], [1e9 + 0.5, -1e9 - 0.25], [2 / 3, Math.PI], [-5.5, 5.5, 1.25]];
  for (const q of ['', 'return=f2-f1&distance=manhattan', 'octaves=4&fractal=ridged&return=f2', 'warp=0.6&jitter=0.4&distance=chebyshev', 'return=cell&octaves=3']) {
    const two = coords.slice(0, 5), three = coords.slice(5);
    for (const batch of [two, three]) {
      const r = await post(`${d.url}/cellular/3/points${q ? '?' + q : ''}`, { points: batch });
      assert.equal(r.status, 200, r.text);
      for (let i = 0; i < batch.length; i++) {
        const [x, y, t] = batch[i];
        const p = await get(`${d.url}/cellular/3/point?x=${x}&y=${y}${t !== undefined ? '&t=' + t : ''}${q ? '&' + q : ''}`);
        assert.equal(p.status, 200, p.text);
        assert.equal(r.json.values[i], p.json.value, `${q} value at ${batch[i]}`);
        assert.deepEqual(r.json.gradients[i], p.json.gradient, `${q} gradient at ${batch[i]}`);
      }
    }
  }
});

// pixel (i, j) of tile z/x/y: the window of heights.test.mjs
function tileWindow(z, x, y, W) {
  const side = 16 / 2 ** z;
  return { x: (x + 0.5 / W) * side, y: (y + 0.5 / W) * side, step: side / W };
}
async function windowValues(query, w, W) {
  const pts = [];
  for (let j = 0; j < W; j++) for (let i = 0; i < W; i++) pts.push([w.x + i * w.step, w.y + j * w.step]);
  const values = [], gradients = [];
  for (let k = 0; k < pts.length; k += 10000) {
    const r = await post(`${d.url}/cellular/11/points?${query}`, { points: pts.slice(k, k + 10000) });
    assert.equal(r.status, 200, r.text);
    values.push(...r.json.values);
    gradients.push(...r.json.gradients);
  }
  return { values, gradients };
}

test('.npy tile with gradients: numpy reads (256, 256, 3); each pixel is /points at its centre (float32)', async () => {
  const q = 'return=f2-f1&distance=manhattan&frequency=0.5';
  const r = await get(`${d.url}/cellular/11/2/1/-1.npy?${q}&gradient=1`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('content-type'), 'application/x-npy');
  const a = numpyRead(r.body);
  assert.deepEqual(a.shape, [256, 256, 3]);
  const want = await windowValues(q, tileWindow(2, 1, -1, 256), 256);
  let bad = 0;
  for (let k = 0; k < 256 * 256; k++) {
    if (a.data[3 * k] !== Math.fround(want.values[k])) bad++;
    if (a.data[3 * k + 1] !== Math.fround(want.gradients[k][0]) || a.data[3 * k + 2] !== Math.fround(want.gradients[k][1])) bad++;
  }
  assert.equal(bad, 0, `${bad} numbers differ from /points`);
  const lo = Math.min(...a.data.filter((_, i) => i % 3 === 0)), hi = Math.max(...a.data.filter((_, i) => i % 3 === 0));
  // -1 on cell borders; manhattan f2-f1 reaches about 0.44 (noise.h's table)
  assert.ok(lo < -0.99 && hi > -0.3, `f2-f1 spans its range: ${lo}..${hi}`);
});

test('PNG tiles: gray16 samples are the documented mapping of /points; a colour tile renders', async () => {
  const q = 'return=f1&distance=chebyshev&jitter=0.8';
  const r = await get(`${d.url}/cellular/11/3/-2/1.png?${q}&encoding=gray16`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('content-type'), 'image/png');
  const png = PNG.sync.read(r.body, { skipRescale: true });
  assert.equal(png.width, 256);
  assert.equal(png.height, 256);
  const want = await windowValues(q, tileWindow(3, -2, 1, 256), 256);
  const u16 = (v) => Math.min(65535, Math.max(0, Math.floor((v + 1) * 32767.5 + 0.5)));
  let bad = 0;
  for (let k = 0; k < 256 * 256; k++) if (png.data[k * 4] !== u16(Math.fround(want.values[k]))) bad++;
  assert.equal(bad, 0, `${bad} samples differ`);
  for (const extra of ['palette=terrain&shade=1', 'return=cell&palette=viridis', 'return=f2&t=3&zero=1']) {
    const c = await get(`${d.url}/cellular/11/1/0/0.png?${extra}`);
    assert.equal(c.status, 200, c.text);
    const img = PNG.sync.read(c.body);
    const colours = new Set();
    for (let k = 0; k < img.data.length; k += 4 * 97) colours.add(img.data.readUInt32BE(k));
    assert.ok(colours.size > 20, `${extra}: ${colours.size} colours`);
  }
});

test('tile.json, /api/kinds and OpenAPI know cellular and its parameters', async () => {
  const tj = await get(`${d.url}/cellular/5/tile.json?return=f2&jitter=0.5`);
  assert.equal(tj.status, 200, tj.text);
  assert.match(tj.json.tiles[0], /\/cellular\/5\/\{z\}\/\{x\}\/\{y\}\.png\?.*distance=euclidean&return=f2&jitter=0\.5/);
  const k = (await get(`${d.url}/api/kinds`)).json;
  assert.ok(k.kinds.includes('cellular'));
  const by = Object.fromEntries(k.parameters.map((p) => [p.name, p]));
  assert.deepEqual(by.distance.choices, ['euclidean', 'manhattan', 'chebyshev']);
  assert.equal(by.distance.default, 'euclidean');
  assert.deepEqual(by.return.choices, ['f1', 'f2', 'f2-f1', 'cell']);
  assert.equal(by.return.default, 'f1');
  assert.deepEqual([by.jitter.minimum, by.jitter.maximum, by.jitter.default], [0, 1, 1]);
  for (const n of ['distance', 'return', 'jitter']) assert.deepEqual(by[n].kinds, ['cellular'], n);
  assert.ok(!by.lattice.kinds.includes('cellular'));
  const doc = (await get(`${d.url}/openapi.json`)).json;
  assert.ok(doc.components.parameters.kind.schema.enum.includes('cellular'));
  const tile = doc.paths['/{kind}/{seed}/{z}/{x}/{y}.png'].get.parameters.map((p) => p.name || p.$ref.split('/').pop());
  for (const n of ['distance', 'return', 'jitter']) assert.ok(tile.includes(n), `OpenAPI tile parameter ${n}`);
});

test('bad cellular values: 400 naming the parameter, the allowed values and the value sent', async () => {
  const cases = [
    ['/cellular/1/point?x=0&y=0&distance=foo', /distance must be one of euclidean, manhattan, chebyshev, got 'foo'/],
    ['/cellular/1/point?x=0&y=0&jitter=2', /jitter must be a number in \[0, 1\], got '2'/],
    ['/cellular/1/point?x=0&y=0&return=f3', /return must be one of f1, f2, f2-f1, cell, got 'f3'/],
    ['/cellular/1/point?x=0&y=0&lattice=triangle', /'lattice' applies only to value and perlin, not to cellular; got 'triangle'/],
    ['/cellular/1/0/0/0.png?jitter=-1', /jitter must be a number in \[0, 1\], got '-1'/],
    ['/cellular/1/0/0/0.npy?return=', /return must be one of f1, f2, f2-f1, cell, got ''/],
    ['/perlin/1/point?x=0&y=0&distance=manhattan', /'distance' applies only to cellular, not to perlin; got 'manhattan'/],
    ['/value/1/0/0/0.png?return=f2', /'return' applies only to cellular, not to value/],
  ];
  for (const [url, re] of cases) {
    const r = await get(`${d.url}${url}`);
    assert.equal(r.status, 400, `${url}: ${r.status} ${r.text}`);
    assert.match(r.json.error.message, re, url);
  }
  const b = await post(`${d.url}/cellular/1/points?jitter=nan`, { points: [[0, 0]] });
  assert.equal(b.status, 400);
  assert.match(b.json.error.message, /jitter must be a number in \[0, 1\], got 'nan'/);
});
