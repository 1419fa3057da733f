// webp.test.mjs: `.webp` picture tiles and colour ramps by URL through the
// daemon. WebP tiles are decoded by two decoders that are not the daemon's
// encoder: Pillow (python3-pil) and libwebp's dwebp command. Unshaded tiles
// are lossless, pixel for pixel the PNG tile; shaded ones lossy, close to
// the PNG and a fraction of its bytes; quality changes the bytes and the
// ETag; the Content-Type stays image/webp on a repeated request (the memo
// of targets) and a 304. Ramps: a named ramp and a JSON list of stops draw
// tiles, each bad ramp is a 400 naming the problem, the ramp is in the
// ETag and in TileJSON's template. TileJSON says tileSize and its centre.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { startDaemon, get } from './daemon.mjs';
import { pngRgb } from './readers.mjs';

const PYTHON = '/usr/bin/python3'; // Debian's, with python3-pil
let d, dir;
before(async () => {
  d = await startDaemon({ args: ['--cache-mb', '64'] });
  dir = mkdtempSync(path.join(os.tmpdir(), 'noisetile-webp-'));
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

// RGB bytes of an image file, decoded by Pillow.
function pillowRgb(file) {
  const py = spawnSync(PYTHON, ['-c', 'import sys\nfrom PIL import Image\nim = Image.open(sys.argv[1])\nprint(im.format, im.size[0], im.size[1], im.mode, file=sys.stderr)\nsys.stdout.buffer.write(im.convert("RGB").tobytes())', file], { maxBuffer: 1 << 26 });
  assert.equal(py.status, 0, py.stderr.toString());
  const [format, w, h] = py.stderr.toString().trim().split(' ');
  return { format, w: Number(w), h: Number(h), rgb: py.stdout };
}

// RGB bytes of a WebP file, decoded by dwebp (to PPM: a header, then RGB).
function dwebpRgb(file) {
  const out = `${file}.ppm`;
  const r = spawnSync('dwebp', [file, '-ppm', '-o', out]);
  assert.equal(r.status, 0, r.stderr.toString());
  const ppm = readFileSync(out);
  const m = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 40).toString('latin1'));
  assert.ok(m, 'a PPM header');
  return { w: Number(m[1]), h: Number(m[2]), rgb: ppm.subarray(m[0].length) };
}

function psnr(a, b) {
  assert.equal(a.length, b.length);
  let se = 0;
  for (let i = 0; i < a.length; i++) se += (a[i] - b[i]) ** 2;
  return 10 * Math.log10((255 * 255) / (se / a.length));
}

let n = 0;
function save(buf) {
  const f = path.join(dir, `t${n++}.webp`);
  writeFileSync(f, buf);
  return f;
}

test('unshaded .webp tiles are lossless: Pillow and dwebp decode them to the PNG tile\'s pixels', async () => {
  for (const q of ['palette=terrain', 'palette=viridis&zero=1', '', 'ramp=heat']) {
    for (const t of ['2/-1/1', '3/5/-7@2x']) {
      const png = await ok(`/perlin/7/${t}.png?octaves=4&${q}`);
      const webp = await ok(`/perlin/7/${t}.webp?octaves=4&${q}`);
      assert.equal(webp.headers.get('content-type'), 'image/webp');
      assert.equal(webp.body.subarray(0, 4).toString(), 'RIFF');
      assert.equal(webp.body.subarray(8, 16).toString(), 'WEBPVP8L', `${t} ${q}: lossless (VP8L)`);
      const want = pngRgb(png.body).rgb;
      const f = save(webp.body);
      const pil = pillowRgb(f);
      assert.equal(pil.format, 'WEBP');
      assert.equal(pil.w, t.endsWith('@2x') ? 512 : 256);
      assert.ok(pil.rgb.equals(want), `${t} ${q}: Pillow's pixels differ from the PNG's`);
      assert.ok(dwebpRgb(f).rgb.equals(want), `${t} ${q}: dwebp's pixels differ from the PNG's`);
    }
  }
});

test('shaded .webp tiles are lossy at quality 80 by default: close to the PNG, a fraction of its bytes; quality changes bytes and ETag', async () => {
  const url = '/perlin/7/2/-1/1.%s?octaves=2&palette=terrain&shade=1';
  const png = await ok(url.replace('%s', 'png'));
  const webp = await ok(url.replace('%s', 'webp'));
  const q80 = await ok(`${url.replace('%s', 'webp')}&quality=80`);
  const q95 = await ok(`${url.replace('%s', 'webp')}&quality=95`);
  assert.equal(webp.body.subarray(8, 16).toString(), 'WEBPVP8 ', 'lossy (VP8)');
  assert.ok(webp.body.equals(q80.body), 'the default quality is 80');
  assert.equal(webp.headers.get('etag'), q80.headers.get('etag'));
  assert.notEqual(q95.headers.get('etag'), q80.headers.get('etag'));
  assert.notEqual(png.headers.get('etag'), webp.headers.get('etag'));
  assert.ok(webp.body.length * 5 < png.body.length, `WebP ${webp.body.length} bytes, PNG ${png.body.length}`);
  const want = pngRgb(png.body).rgb;
  const f80 = save(webp.body), f95 = save(q95.body);
  const pil = pillowRgb(f80), dw = dwebpRgb(f80);
  assert.ok(pil.rgb.equals(dw.rgb), 'Pillow and dwebp decode the same pixels');
  const p80 = psnr(pil.rgb, want), p95 = psnr(pillowRgb(f95).rgb, want);
  assert.ok(p80 > 30, `PSNR at quality 80: ${p80.toFixed(1)} dB`);
  assert.ok(p95 > p80 && q95.body.length > webp.body.length, `quality 95: ${p95.toFixed(1)} dB, ${q95.body.length} bytes`);
  // same request, same bytes
  const again = await ok(`${url.replace('%s', 'webp')}&quality=95`);
  assert.ok(again.body.equals(q95.body));
});

test('a repeated .webp request (the memo of targets) and a 304 keep Content-Type image/webp', async () => {
  const url = '/simplex/3/4/-3/2.webp?octaves=3&palette=viridis&shade=1&quality=60';
  const a = await ok(url);
  const b = await ok(url);
  assert.equal(b.headers.get('content-type'), 'image/webp');
  assert.ok(a.body.equals(b.body));
  const c = await get(d.url + url, { headers: { 'If-None-Match': a.headers.get('etag') } });
  assert.equal(c.status, 304);
  assert.equal(c.headers.get('content-type'), 'image/webp');
  // the PNG of the same picture, asked for by the same words but .png, is a PNG
  const p = await ok(url.replace('.webp', '.png').replace('&quality=60', ''));
  assert.equal(p.headers.get('content-type'), 'image/png');
});

test('bad .webp and quality requests: 400 naming the problem', async () => {
  const cases = [
    ['/perlin/7/1/0/0.png?quality=80', /quality applies only to \.webp tiles, not \.png/],
    ['/perlin/7/1/0/0.webp?quality=0', /quality must be an integer in 1\.\.100, got '0'/],
    ['/perlin/7/1/0/0.webp?quality=101', /quality must be an integer in 1\.\.100/],
    ['/perlin/7/1/0/0.webp?quality=8.5', /quality must be an integer/],
    ['/perlin/7/grid.png?x=0&y=0&step=1&width=2&height=2&quality=5', /quality applies only to \.webp tiles/],
    ['/perlin/7/1/0/0.npy?quality=5', /quality applies only to \.webp tiles, not \.npy/],
  ];
  for (const [url, want] of cases) {
    const r = await get(d.url + url);
    assert.equal(r.status, 400, url);
    assert.match(r.json.error.message, want, url);
  }
  const g = await get(`${d.url}/perlin/7/grid.webp?x=0&y=0&step=1&width=2&height=2`);
  assert.equal(g.status, 404);
});

test('colour ramps by URL: a named ramp, a JSON list of stops; the ramp is in the ETag', async () => {
  const stops = encodeURIComponent('[[-1,"#000000"],[1,[255,255,255]]]');
  const heat = await ok('/perlin/7/2/0/0.png?octaves=3&ramp=heat');
  const bw = await ok(`/perlin/7/2/0/0.png?octaves=3&ramp=${stops}`);
  const gray = await ok('/perlin/7/2/0/0.png?octaves=3');
  const etags = new Set([heat, bw, gray].map((r) => r.headers.get('etag')));
  assert.equal(etags.size, 3, 'each ramp its own ETag');
  // black -> white over [-1, 1] is a grey picture of the field, like the
  // gray palette up to the ramp's 255 levels (at most 1 grey level apart)
  const a = PNG.sync.read(bw.body), b = PNG.sync.read(gray.body);
  let worst = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    assert.equal(a.data[i], a.data[i + 1]);
    worst = Math.max(worst, Math.abs(a.data[i] - b.data[i]));
  }
  assert.ok(worst <= 1, `ramp black->white vs gray: ${worst} levels apart`);
  // the same ramp written otherwise (#-less, upper case) is the same tile
  const same = await ok(`/perlin/7/2/0/0.png?octaves=3&ramp=${encodeURIComponent('[[-1,"000000"],[1,"FFFFFF"]]')}`);
  assert.equal(same.headers.get('etag'), bw.headers.get('etag'));
  assert.ok(same.body.equals(bw.body));
});

test('bad ramps: 400 naming the problem', async () => {
  const cases = [
    ['[[0.5,"#000000"],[-0.5,"#ffffff"]]', /not sorted: stop 2 at -0.5 comes after stop 1 at 0.5/],
    ['[[-1,"#00000"],[1,"#ffffff"]]', /stop 1: the colour must be/],
    ['[[-1,"#000000"],[1,"white"]]', /stop 2: the colour must be/],
    ['[[-1,[0,0,300]],[1,"#ffffff"]]', /stop 1: the colour must be/],
    [`[${Array.from({ length: 33 }, () => '[0,"000000"]').join(',')}]`, /too many stops: 33, at most 32/],
    ['[[-1,"#000000"],[1e999,"#ffffff"]]', /not a finite number/],
    ['[[-1,"#000000"],["NaN","#ffffff"]]', /stop 2: the value must be a finite number/],
    ['[[-1,"#000000"],[2,"#ffffff"]]', /stop 2: the value 2 is outside \[-1, 1\]/],
    ['[[-1,"#000000"]]', /needs at least 2/],
    ['[[-1,"#000000"],', /not valid JSON/],
    ['rainbow', /'rainbow' is not a named ramp \(heat, ice, diverging, bands\)/],
  ];
  for (const [ramp, want] of cases) {
    for (const ext of ['png', 'webp']) {
      const r = await get(`${d.url}/perlin/7/1/0/0.${ext}?ramp=${encodeURIComponent(ramp)}`);
      assert.equal(r.status, 400, `${ramp}: ${r.text}`);
      assert.match(r.json.error.message, want, ramp);
    }
  }
  const both = await get(`${d.url}/perlin/7/1/0/0.png?ramp=heat&palette=terrain`);
  assert.equal(both.status, 400);
  assert.match(both.json.error.message, /palette or ramp, not both/);
  const enc = await get(`${d.url}/perlin/7/1/0/0.png?ramp=heat&encoding=terrarium`);
  assert.equal(enc.status, 400);
  assert.match(enc.json.error.message, /excludes ramp/);
});

test('TileJSON: tileSize 256, the centre on the plane\'s origin, a ramp and WebP in its template', async () => {
  const stops = '[[-1,"102030"],[0.25,"ffeedd"],[1,"ffffff"]]';
  const tj = (await ok(`/perlin/7/tile.json?octaves=3&shade=1&ramp=${encodeURIComponent(stops)}&quality=70`)).json;
  assert.equal(tj.tileSize, 256);
  assert.deepEqual(tj.center, [-180, 85.05112877980659, 2]);
  assert.deepEqual(tj.bounds, [-180, -85.05112877980659, 180, 85.05112877980659]);
  assert.deepEqual(tj.noisetile.plane_bounds, [0, 0, 16, 16]);
  assert.equal(tj.format, 'webp');
  const tmpl = tj.tiles[0];
  assert.match(tmpl, /\{z\}\/\{x\}\/\{y\}\.webp\?.*ramp=%5B%5B-1%2C%22102030%22%5D.*&quality=70$/);
  const fromTemplate = await get(tmpl.replace('{z}', '2').replace('{x}', '-1').replace('{y}', '3'));
  const direct = await ok(`/perlin/7/2/-1/3.webp?octaves=3&shade=1&quality=70&ramp=${encodeURIComponent(stops)}`);
  assert.equal(fromTemplate.status, 200, fromTemplate.text);
  assert.ok(fromTemplate.body.equals(direct.body), 'the template names the same tile');
  assert.equal(fromTemplate.headers.get('etag'), direct.headers.get('etag'));
  const plain = (await ok('/perlin/7/tile.json')).json;
  assert.match(plain.tiles[0], /\.png\?/);
  assert.equal(plain.format, 'png');
});
