// coarse.test.mjs: picture tiles below zoom 0 are band-limited. A zoom -k
// tile is, pixel for pixel, the rounded mean of the zoom-0 @1x tile pixels
// it covers ((sum + n/2) / n per channel: what a browser showed when it
// shrank the zoom-0 tiles, without the speckle of point-sampling octaves
// finer than a pixel), at @1x and @2x, shaded or not, with the zero line,
// at negative tile indices; its ETag is not the point-sampled tile's of
// before (a client holding that one gets the new bytes); WebP tiles below
// zoom 0 are lossy and close to the PNG; a field whose supersampled work
// would pass the per-request limit is still drawn (fewer sub-pixels)
// wherever its zoom-0 tile is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, get } from './daemon.mjs';
import { pngRgb } from './readers.mjs';

let d, dir;
before(async () => {
  d = await startDaemon({ args: ['--cache-mb', '64'] });
  dir = mkdtempSync(path.join(os.tmpdir(), 'noisetile-coarse-'));
});
after(async () => {
  await d.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function ok(url, init) {
  const r = await get(d.url + url, init);
  assert.equal(r.status, 200, `${url}: ${r.text}`);
  return r;
}

// The zoom-0 @1x tiles under tile (z, x, y) @scale, averaged down to that
// tile's pixels: the picture it must be.
async function boxMean(base, z, x, y, scale, query) {
  const k = 2 ** -z, px = 256 * scale, ss = k / scale, n = ss * ss;
  const sums = new Uint32Array(px * px * 3);
  for (let ty = 0; ty < k; ty++) {
    for (let tx = 0; tx < k; tx++) {
      const t = pngRgb((await ok(`${base}/0/${x * k + tx}/${y * k + ty}.png?${query}`)).body);
      for (let j = 0; j < 256; j++) {
        for (let i = 0; i < 256; i++) {
          const X = Math.floor((tx * 256 + i) / ss), Y = Math.floor((ty * 256 + j) / ss);
          for (let c = 0; c < 3; c++) sums[(Y * px + X) * 3 + c] += t.rgb[(j * 256 + i) * 3 + c];
        }
      }
    }
  }
  return Buffer.from(sums.map((s) => Math.floor((s + n / 2) / n)));
}

function firstDifference(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

const CASES = [
  // [route base, z, x, y, scale, query]
  ['/perlin/7', -2, 0, 0, 1, 'octaves=6&palette=terrain&shade=1'],
  ['/perlin/7', -1, -1, 0, 1, 'octaves=6&palette=terrain&shade=1'],
  ['/simplex/3', -1, 0, -1, 1, 'octaves=4&palette=viridis&zero=1'],
  ['/perlin/7', -2, -1, -1, 1, 'octaves=5'],
  ['/perlin/7', -2, 0, -1, 2, 'octaves=6&palette=terrain&shade=1'],
];

for (const [base, z, x, y, scale, query] of CASES) {
  test(`${base}/${z}/${x}/${y}@${scale}x.png?${query} is the mean of the zoom-0 tiles it covers`, async () => {
    const r = await ok(`${base}/${z}/${x}/${y}${scale === 2 ? '@2x' : ''}.png?${query}`);
    assert.equal(r.headers.get('content-type'), 'image/png');
    const got = pngRgb(r.body);
    assert.equal(got.w, 256 * scale);
    assert.equal(got.h, 256 * scale);
    const want = await boxMean(base, z, x, y, scale, query);
    const at = firstDifference(got.rgb, want);
    assert.equal(at, -1, `first different byte ${at} (pixel ${Math.floor(at / 3) % got.w}, ${Math.floor(at / 3 / got.w)}): ${got.rgb[at]} != ${want[at]}`);
  });
}

test('a zoom -2 tile has a new ETag: a client holding the point-sampled tile gets the new bytes', async () => {
  const url = '/perlin/7/-2/0/0.png?octaves=6&palette=terrain&shade=1';
  // this tile's ETag when it was point-sampled (RENDER_VERSION 1)
  const old = '"21b8a52bacada44a"';
  const r = await ok(url, { headers: { 'If-None-Match': old } });
  assert.notEqual(r.headers.get('etag'), old);
  assert.ok(r.body.length > 0);
  const again = await get(d.url + url, { headers: { 'If-None-Match': r.headers.get('etag') } });
  assert.equal(again.status, 304);
  // a zoom-0 tile keeps its ETag (its bytes are unchanged: the goldens)
  const z0 = await ok('/perlin/7/0/0/0.png?octaves=6&palette=terrain&shade=1');
  assert.equal(z0.headers.get('etag'), '"6440359003c24b8f"');
});

test('WebP tiles below zoom 0 are lossy, unshaded too, close to the PNG; quality is in the ETag', async () => {
  for (const q of ['octaves=6&palette=terrain', 'octaves=6&palette=terrain&shade=1']) {
    const png = pngRgb((await ok(`/perlin/7/-2/0/0.png?${q}`)).body).rgb;
    const w80 = await ok(`/perlin/7/-2/0/0.webp?${q}`);
    const w50 = await ok(`/perlin/7/-2/0/0.webp?${q}&quality=50`);
    assert.equal(w80.headers.get('content-type'), 'image/webp');
    assert.notEqual(w80.headers.get('etag'), w50.headers.get('etag'));
    assert.ok(w50.body.length < w80.body.length, `${q}: q50 ${w50.body.length} B, q80 ${w80.body.length} B`);
    // decoded by libwebp's dwebp, not by the daemon's encoder
    const f = path.join(dir, 'c.webp');
    writeFileSync(f, w80.body);
    const r = spawnSync('dwebp', [f, '-ppm', '-o', `${f}.ppm`]);
    assert.equal(r.status, 0, r.stderr.toString());
    const ppm = readFileSync(`${f}.ppm`);
    const m = /^P6\s+256\s+256\s+255\s/.exec(ppm.subarray(0, 40).toString('latin1'));
    assert.ok(m, 'a 256 x 256 PPM');
    const rgb = ppm.subarray(m[0].length);
    let se = 0;
    for (let i = 0; i < rgb.length; i++) se += (rgb[i] - png[i]) ** 2;
    const psnr = 10 * Math.log10((255 * 255) / (se / rgb.length));
    // busy pictures lose most in WebP's 4:2:0 colour: measured 22.3 dB
    // unshaded, 23.0 shaded, as a shaded zoom-0 tile of this field (23.7)
    assert.ok(psnr > 20, `${q}: PSNR ${psnr.toFixed(1)} dB against the PNG`);
    assert.ok(w80.body.length < 60000, `${q}: ${w80.body.length} B`);
  }
});

test('a field too costly to supersample 4x4 below zoom 0 is drawn with fewer sub-pixels, not refused', async () => {
  // zoom 0: 65536 samples x 8 octaves x warp 3 x gradients 2 x t 4 = 12.6M
  // units, under the 50M limit; 16 sub-pixels a pixel would be 201M
  const q = 'octaves=8&warp=0.5&t=1.5&palette=terrain&shade=1';
  await ok(`/perlin/7/0/0/0.png?${q}`);
  const r = await ok(`/perlin/7/-2/0/0.png?${q}`);
  assert.equal(pngRgb(r.body).w, 256);
  // and one refused at zoom 0 is refused below it, naming the limit:
  // @2x, 262144 samples x 16 octaves x 3 x 2 x 4 = 100.7M units
  const heavy = 'octaves=16&warp=0.5&t=1.5&shade=1';
  const z0 = await get(`${d.url}/perlin/7/0/0/0@2x.png?${heavy}`);
  const zm2 = await get(`${d.url}/perlin/7/-2/0/0@2x.png?${heavy}`);
  assert.equal(z0.status, 422, z0.text);
  assert.equal(zm2.status, 422, zm2.text);
  assert.match(zm2.json.error.message, /over the limit/);
});
