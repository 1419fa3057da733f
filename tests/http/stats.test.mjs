// stats.test.mjs: GET /{kind}/{seed}/stats: the Islands page's table from
// four answers (seeds 0-3, 641 x 641 samples at k/16), agreement with the
// field's own values (POST /points, rounded to float32 as grids are), the
// histogram, headers, and bad input named in 4xx messages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, get } from './daemon.mjs';

let d;
before(async () => { d = await startDaemon(); });
after(async () => { await d.stop(); });

const ISLANDS = 'x=0&y=0&step=0.0625&width=641&height=641';

// Seeds 0-3 pooled as the page pooled them: counts add, the variance
// from each answer's count, mean and sd.
async function islands(kind) {
  let n = 0, sum = 0, sum2 = 0, beyond = 0, peaks = 0, min = Infinity, max = -Infinity;
  for (let seed = 0; seed < 4; seed++) {
    const r = await get(`${d.url}/${kind}/${seed}/stats?${ISLANDS}`);
    assert.equal(r.status, 200, r.text);
    const j = r.json;
    assert.equal(j.count, 641 * 641);
    assert.deepEqual(j.window, { x: 0, y: 0, step: 0.0625, width: 641, height: 641 });
    assert.equal(j.histogram.counts.reduce((a, b) => a + b, 0), j.count);
    n += j.count;
    sum += j.mean * j.count;
    sum2 += (j.sd * j.sd + j.mean * j.mean) * j.count;
    beyond += j.share_beyond_half * j.count;
    peaks += j.peaks;
    min = Math.min(min, j.min);
    max = Math.max(max, j.max);
  }
  const mean = sum / n;
  return { min, max, sd: Math.sqrt(sum2 / n - mean * mean), beyondPct: 100 * beyond / n, peaks };
}

// The page: Perlin sd 0.33 (value 0.46), 13 % (32 %) beyond +-0.5, 3761
// (1210) peaks, Perlin from -0.97 to 0.96; rounded as the page rounds.
test('/stats over the Islands window reproduces the Islands table for value and Perlin noise', { timeout: 120000 }, async () => {
  const p = await islands('perlin'), v = await islands('value');
  console.log(`# perlin: ${JSON.stringify(p)}\n# value: ${JSON.stringify(v)}`);
  assert.equal(p.peaks, 3761);
  assert.equal(v.peaks, 1210);
  assert.equal(Math.round(p.sd * 100), 33);
  assert.equal(Math.round(v.sd * 100), 46);
  assert.equal(Math.round(p.beyondPct), 13);
  assert.equal(Math.round(v.beyondPct), 32);
  assert.deepEqual([Math.round(p.min * 100), Math.round(p.max * 100)], [-97, 96]);
});

// The same numbers computed here from the field's values at the window's
// sample points (x + i*step, y + j*step), each rounded to float32.
test('/stats equals statistics computed from POST /points over the same window', { timeout: 60000 }, async () => {
  const W = 70, H = 50, x0 = -3.3, y0 = 12.7, step = 0.037, bins = 20;
  const q = 'octaves=4&warp=0.2&frequency=1.3';
  const pts = [];
  for (let j = 0; j < H; j++) for (let i = 0; i < W; i++) pts.push([x0 + i * step, y0 + j * step]);
  const r = await get(`${d.url}/simplex/9/points?${q}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ points: pts }),
  });
  assert.equal(r.status, 200, r.text);
  const v = Float32Array.from(r.json.values);
  let min = Infinity, max = -Infinity, sum = 0, sum2 = 0, beyond = 0, peaks = 0;
  const hist = new Array(bins).fill(0);
  for (const x of v) {
    min = Math.min(min, x); max = Math.max(max, x); sum += x; sum2 += x * x; beyond += Math.abs(x) > 0.5;
    hist[Math.min(bins - 1, Math.floor((x + 1) * bins / 2))]++;
  }
  for (let j = 1; j < H - 1; j++) {
    for (let i = 1; i < W - 1; i++) {
      let peak = true;
      for (let dj = -1; dj <= 1; dj++) for (let di = -1; di <= 1; di++) if ((di || dj) && !(v[j * W + i] > v[(j + dj) * W + i + di])) peak = false;
      peaks += peak;
    }
  }
  const s = await get(`${d.url}/simplex/9/stats?x=${x0}&y=${y0}&step=${step}&width=${W}&height=${H}&bins=${bins}&${q}`);
  assert.equal(s.status, 200, s.text);
  const j = s.json;
  assert.equal(j.kind, 'simplex');
  assert.equal(j.seed, 9);
  assert.equal(j.params.octaves, 4);
  assert.equal(j.params.warp, 0.2);
  assert.equal(j.count, W * H);
  assert.equal(j.min, min);
  assert.equal(j.max, max);
  assert.equal(j.peaks, peaks);
  assert.ok(peaks > 3, `a window with peaks (${peaks})`);
  assert.equal(j.share_beyond_half, beyond / (W * H));
  const mean = sum / (W * H);
  assert.ok(Math.abs(j.mean - mean) < 1e-12, `mean ${j.mean} vs ${mean}`);
  assert.ok(Math.abs(j.sd - Math.sqrt(sum2 / (W * H) - mean * mean)) < 1e-12);
  assert.deepEqual(j.histogram, { min: -1, max: 1, counts: hist });
});

test('/stats: JSON, cacheable, CORS, HEAD; 32 bins by default', async () => {
  const r = await get(`${d.url}/perlin/1/stats?x=0&y=0&step=0.5&width=10&height=10`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/json');
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  assert.match(r.headers.get('cache-control'), /public/);
  assert.equal(r.json.histogram.counts.length, 32);
  const h = await get(`${d.url}/perlin/1/stats?x=0&y=0&step=0.5&width=10&height=10`, { method: 'HEAD' });
  assert.equal(h.status, 200);
  assert.equal(h.body.length, 0);
});

test('/stats: bad input is a 4xx naming the parameter, its range and the value', async () => {
  const base = `${d.url}/perlin/1/stats`;
  const cases = [
    ['x=0&y=0&step=0.5&width=10&height=10&bins=0', 400, /bins.*1\.\.256.*'0'/],
    ['x=0&y=0&step=0.5&width=10&height=10&bins=257', 400, /bins.*1\.\.256.*'257'/],
    ['x=0&y=0&step=0.5&width=10&height=10&bins=2.5', 400, /bins/],
    ['x=0&y=0&width=10&height=10', 400, /step/],
    ['x=0&y=0&step=0&width=10&height=10', 400, /step/],
    ['x=0&y=0&step=0.5&width=0&height=10', 400, /width/],
    ['x=nan&y=0&step=0.5&width=10&height=10', 400, /\bx\b/],
    ['x=0&y=0&step=0.5&width=8193&height=8193', 413, /width|height|samples/],
    ['x=0&y=0&step=0.5&width=10&height=10&octaves=17', 400, /octaves/],
    ['x=0&y=0&step=0.5&width=10&height=10&palette=terrain', 400, /palette/],
    ['x=0&y=0&step=0.5&width=10&height=10&encoding=gray16', 400, /encoding/],
  ];
  for (const [q, status, re] of cases) {
    const r = await get(`${base}?${q}`);
    assert.equal(r.status, status, `${q}: ${r.text}`);
    assert.match(r.json.error.message, re, q);
  }
  // within the window limits but over the per-request work limit: 422
  // naming the cost and what to lower
  const c = await get(`${base}?x=0&y=0&step=0.5&width=4097&height=4097&octaves=16&warp=1`);
  assert.equal(c.status, 422, c.text);
  assert.match(c.json.error.message, /fewer samples/);
  const p = await get(`${base}?x=0&y=0&step=0.5&width=10&height=10`, { method: 'POST' });
  assert.equal(p.status, 405);
});
