// heights.test.mjs: the field as numbers for programs: .npy and .r16 tiles,
// 16-bit, Terrarium and Mapbox PNG tiles, grids at any origin and spacing,
// read by readers nobody here wrote (Debian's numpy and Pillow, GDAL, pngjs)
// and compared with /points at the same coordinates; headers, ETags, 304,
// HEAD, gzip; /api/kinds, TileJSON, OpenAPI; every bad parameter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { PNG } from 'pngjs';
import { startDaemon, get, raw } from './daemon.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3'; // Debian's, with python3-numpy and python3-pil
let d, tmp;
before(async () => {
  d = await startDaemon({ args: ['--cache-mb', '64'] });
  tmp = mkdtempSync(path.join(tmpdir(), 'noisetile-heights-'));
});
after(async () => {
  await d.stop();
  rmSync(tmp, { recursive: true, force: true });
});

let nfile = 0;
function save(buf, ext) {
  const f = path.join(tmp, `f${nfile++}.${ext}`);
  writeFileSync(f, buf);
  return f;
}

// Runs readers.py (numpy or Pillow) on the bytes.
function pyread(kind, buf, ext) {
  const r = spawnSync(PYTHON, [path.join(here, 'readers.py'), kind, save(buf, ext)], {
    encoding: 'utf8', maxBuffer: 1 << 28,
  });
  assert.equal(r.status, 0, `readers.py ${kind}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// Values and gradients of the field at points, from POST /points (batches of
// at most 10000).
async function points(kind, seed, query, pts) {
  const values = [], gradients = [];
  for (let k = 0; k < pts.length; k += 10000) {
    const r = await get(`${d.url}/${kind}/${seed}/points${query ? '?' + query : ''}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ points: pts.slice(k, k + 10000) }),
    });
    assert.equal(r.status, 200, r.text);
    values.push(...r.json.values);
    gradients.push(...r.json.gradients);
  }
  return { values, gradients };
}

// The coordinates of a window's samples, row-major: (x + i*step, y + j*step).
function windowPoints(x, y, step, w, h) {
  const pts = [];
  for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) pts.push([x + i * step, y + j * step]);
  return pts;
}

// Tile (z, x, y) of W pixels as a window: pixel centres, as the daemon computes them.
function tileWindow(z, x, y, W) {
  const side = 16 / 2 ** z;
  return { x: (x + 0.5 / W) * side, y: (y + 0.5 / W) * side, step: side / W };
}

// The documented 16-bit mapping of a float32 value.
const u16 = (v) => Math.min(65535, Math.max(0, Math.floor((v + 1) * 32767.5 + 0.5)));
const f32 = Math.fround;

test('.npy tile: numpy reads (256, 256) float32 C order; each pixel is /points at its centre (float32)', async () => {
  const r = await get(`${d.url}/perlin/7/3/-2/1.npy?octaves=5`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('content-type'), 'application/x-npy');
  const a = pyread('npy', r.body, 'npy');
  assert.deepEqual(a.shape, [256, 256]);
  assert.equal(a.dtype, 'float32');
  assert.equal(a.fortran, false);
  const w = tileWindow(3, -2, 1, 256);
  const want = await points('perlin', 7, 'octaves=5', windowPoints(w.x, w.y, w.step, 256, 256));
  let bad = 0;
  for (let k = 0; k < a.data.length; k++) if (a.data[k] !== f32(want.values[k])) bad++;
  assert.equal(bad, 0, `${bad} of ${a.data.length} pixels differ from /points`);
  // @2x: 512 x 512
  const r2 = await get(`${d.url}/perlin/7/3/-2/1@2x.npy?octaves=5`);
  assert.deepEqual(pyread('npy', r2.body, 'npy').shape, [512, 512]);
});

test('.npy gradient=1: (H, W, 3) value, d/dx, d/dy; with t (H, W, 4) adds d/dt; equal to /points', async () => {
  for (const [q, nc] of [['octaves=3&gradient=1', 3], ['octaves=3&gradient=1&t=1.25', 4]]) {
    const r = await get(`${d.url}/simplex/4/grid.npy?x=-1.5&y=2.25&step=0.03&width=40&height=30&${q}`);
    assert.equal(r.status, 200, r.text);
    const a = pyread('npy', r.body, 'npy');
    assert.deepEqual(a.shape, [30, 40, nc]);
    const fq = q.replace('&gradient=1', '');
    const want = await points('simplex', 4, fq, windowPoints(-1.5, 2.25, 0.03, 40, 30));
    let bad = 0;
    for (let k = 0; k < 1200; k++) {
      if (a.data[k * nc] !== f32(want.values[k])) bad++;
      for (let c = 1; c < nc; c++) if (a.data[k * nc + c] !== f32(want.gradients[k][c - 1])) bad++;
    }
    assert.equal(bad, 0, `${q}: ${bad} numbers differ`);
  }
});

test('grid.npy: sample (i, j) is the field at (x + i*step, y + j*step), any origin and spacing', async () => {
  for (const [kind, q] of [['value', 'octaves=4&fractal=ridged'], ['improved', 'warp=0.5&frequency=3'], ['perlin', 'lattice=triangle&t=-2']]) {
    const x = -123.456, y = 78.9, step = 0.0173, W = 97, H = 61;
    const r = await get(`${d.url}/${kind}/99/grid.npy?x=${x}&y=${y}&step=${step}&width=${W}&height=${H}&${q}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('x-width'), String(W));
    assert.equal(r.headers.get('x-height'), String(H));
    const a = pyread('npy', r.body, 'npy');
    assert.deepEqual(a.shape, [H, W]);
    const want = await points(kind, 99, q, windowPoints(x, y, step, W, H));
    let bad = 0;
    for (let k = 0; k < W * H; k++) if (a.data[k] !== f32(want.values[k])) bad++;
    assert.equal(bad, 0, `${kind}?${q}: ${bad} samples differ from /points`);
  }
});

test('neighbouring .npy tiles continue the field: two tiles side by side are one 512-wide grid', async () => {
  const left = pyread('npy', (await get(`${d.url}/perlin/3/3/0/-1.npy?octaves=6`)).body, 'npy');
  const right = pyread('npy', (await get(`${d.url}/perlin/3/3/1/-1.npy?octaves=6`)).body, 'npy');
  const w = tileWindow(3, 0, -1, 256);
  const g = await get(`${d.url}/perlin/3/grid.npy?x=${w.x}&y=${w.y}&step=${w.step}&width=512&height=256&octaves=6`);
  const grid = pyread('npy', g.body, 'npy');
  let bad = 0;
  for (let j = 0; j < 256; j++)
    for (let i = 0; i < 256; i++) {
      if (grid.data[j * 512 + i] !== left.data[j * 256 + i]) bad++;
      if (grid.data[j * 512 + 256 + i] !== right.data[j * 256 + i]) bad++;
    }
  assert.equal(bad, 0);
});

test('.r16: 2*W*H bytes little-endian, the documented mapping of the float32 value; X-Width/X-Height', async () => {
  const r = await get(`${d.url}/simplex/5/2/1/1.r16?octaves=4`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('content-type'), 'application/octet-stream');
  assert.equal(r.headers.get('x-width'), '256');
  assert.equal(r.headers.get('x-height'), '256');
  assert.equal(r.body.length, 2 * 256 * 256);
  const w = tileWindow(2, 1, 1, 256);
  const want = await points('simplex', 5, 'octaves=4', windowPoints(w.x, w.y, w.step, 256, 256));
  let bad = 0;
  for (let k = 0; k < 65536; k++) if (r.body.readUInt16LE(2 * k) !== u16(f32(want.values[k]))) bad++;
  assert.equal(bad, 0);
  // GDAL reads the same bytes as a raw 16-bit raster (ENVI header beside it)
  const f = save(r.body, 'r16');
  writeFileSync(f.replace(/\.r16$/, '.hdr'), 'ENVI\nsamples = 256\nlines = 256\nbands = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = 12\ninterleave = bsq\nbyte order = 0\n');
  const info = JSON.parse(run('gdalinfo', ['-json', '-stats', f]));
  const band = info.bands[0];
  assert.equal(band.type, 'UInt16');
  let min = 65535, max = 0;
  for (let k = 0; k < 65536; k++) { const u = r.body.readUInt16LE(2 * k); min = Math.min(min, u); max = Math.max(max, u); }
  assert.equal(band.minimum, min);
  assert.equal(band.maximum, max);
});

test('.png?encoding=gray16: 16-bit grayscale read by Pillow and GDAL equals the .r16 samples', async () => {
  const r = await get(`${d.url}/perlin/8/4/3/-2.png?encoding=gray16&octaves=5`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('content-type'), 'image/png');
  const r16 = await get(`${d.url}/perlin/8/4/3/-2.r16?octaves=5`);
  const pil = pyread('pil', r.body, 'png');
  assert.match(pil.mode, /^I/);
  assert.deepEqual(pil.size, [256, 256]);
  let bad = 0;
  for (let k = 0; k < 65536; k++) if (pil.data[k] !== r16.body.readUInt16LE(2 * k)) bad++;
  assert.equal(bad, 0, `Pillow: ${bad} samples differ`);
  // GDAL: a 16-bit band, and gdal_translate to raw ENVI gives the same samples
  const f = save(r.body, 'png');
  const info = JSON.parse(run('gdalinfo', ['-json', '-stats', f]));
  assert.equal(info.bands[0].type, 'UInt16');
  assert.deepEqual(info.size, [256, 256]);
  const out = path.join(tmp, 'gray16.raw');
  run('gdal_translate', ['-q', '-of', 'ENVI', f, out]);
  const back = readFileSync(out);
  assert.equal(back.length, 2 * 65536);
  assert.ok(back.equals(r16.body), 'gdal_translate samples differ from .r16');
});

test('terrarium and mapbox PNGs decode (pngjs) to value * height_scale + height_offset within their step', async () => {
  const w = tileWindow(3, 1, 2, 256);
  const want = await points('perlin', 21, 'octaves=5', windowPoints(w.x, w.y, w.step, 256, 256));
  const want1 = want;
  const cases = [
    ['terrarium', '', (p) => p[0] * 256 + p[1] + p[2] / 256 - 32768, 1000, 0, 1 / 256],
    ['terrarium', '&height_scale=2500&height_offset=-300', (p) => p[0] * 256 + p[1] + p[2] / 256 - 32768, 2500, -300, 1 / 256],
    ['mapbox', '', (p) => -10000 + (p[0] * 65536 + p[1] * 256 + p[2]) * 0.1, 1000, 0, 0.1],
    ['mapbox', '&height_scale=8000&height_offset=100.5', (p) => -10000 + (p[0] * 65536 + p[1] * 256 + p[2]) * 0.1, 8000, 100.5, 0.1],
  ];
  for (const [enc, extra, decode, scale, offset, stepM] of cases) {
    const r = await get(`${d.url}/perlin/21/3/1/2.png?encoding=${enc}&octaves=5${extra}`);
    assert.equal(r.status, 200, r.text);
    const png = PNG.sync.read(r.body);
    assert.equal(png.width, 256);
    let worst = 0;
    for (let k = 0; k < 65536; k++) {
      const h = decode([png.data[4 * k], png.data[4 * k + 1], png.data[4 * k + 2]]);
      worst = Math.max(worst, Math.abs(h - (f32(want.values[k]) * scale + offset)));
    }
    assert.ok(worst <= stepM, `${enc}${extra}: off by ${worst} m (step ${stepM})`);
  }
  // heights beyond the format clamp to its ends
  const r = await get(`${d.url}/perlin/21/3/1/2.png?encoding=terrarium&octaves=5&height_scale=1000000`);
  const png = PNG.sync.read(r.body);
  let off = 0, ends = 0;
  for (let k = 0; k < 65536; k++) {
    const h = png.data[4 * k] * 256 + png.data[4 * k + 1] + png.data[4 * k + 2] / 256 - 32768;
    const want = Math.min(32767.99609375, Math.max(-32768, f32(want1.values[k]) * 1e6));
    if (Math.abs(h - want) > 1 / 512) off++;
    if (h === -32768 || h === 32767.99609375) ends++;
  }
  assert.equal(off, 0, `${off} pixels not the clamped height`);
  assert.ok(ends > 10000, `only ${ends} pixels clamped: the test lost its point`);
});

test('grid.png: gray16, terrarium, mapbox of any window; without encoding the tile picture', async () => {
  const q = 'x=0.5&y=-0.25&step=0.01&width=120&height=90&octaves=3';
  const g = await get(`${d.url}/value/2/grid.png?${q}&encoding=gray16`);
  assert.equal(g.status, 200, g.text);
  const r16 = await get(`${d.url}/value/2/grid.r16?${q}`);
  assert.equal(r16.body.length, 2 * 120 * 90);
  const pil = pyread('pil', g.body, 'png');
  assert.deepEqual(pil.size, [120, 90]);
  let bad = 0;
  for (let k = 0; k < 120 * 90; k++) if (pil.data[k] !== r16.body.readUInt16LE(2 * k)) bad++;
  assert.equal(bad, 0);
  const t = await get(`${d.url}/value/2/grid.png?${q}&encoding=terrarium`);
  assert.equal(PNG.sync.read(t.body).width, 120);
  // the picture over a tile's window is that tile's pixels
  const w = tileWindow(4, -3, 5, 256);
  for (const opts of ['palette=terrain&shade=1&zero=1', 'palette=viridis', '']) {
    const tile = PNG.sync.read((await get(`${d.url}/simplex/9/4/-3/5.png?octaves=2${opts ? '&' + opts : ''}`)).body);
    const pr = await get(`${d.url}/simplex/9/grid.png?x=${w.x}&y=${w.y}&step=${w.step}&width=256&height=256&octaves=2${opts ? '&' + opts : ''}`);
    assert.equal(pr.status, 200, pr.text);
    const pic = PNG.sync.read(pr.body);
    assert.ok(Buffer.compare(pic.data, tile.data) === 0, `picture differs from tile (${opts})`);
  }
});

test('headers: canonical URLs, strong ETags differing per form and encoding, 304, immutable, CORS, HEAD', async () => {
  const base = `${d.url}/perlin/7/3/-2/1`;
  const forms = ['.png', '.npy', '.r16', '.png?encoding=gray16', '.png?encoding=terrarium', '.png?encoding=mapbox',
    '.npy?gradient=1', '@2x.npy'];
  const etags = new Set();
  // raw requests: no Accept-Encoding (fetch would send one)
  const target = (u) => new URL(u).pathname + new URL(u).search;
  for (const f of forms) {
    const r = await raw(d.port, 'GET', target(base + f));
    assert.equal(r.status, 200, `${f}: ${r.text}`);
    assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable', f);
    assert.equal(r.headers['access-control-allow-origin'], '*', f);
    const etag = r.headers.etag;
    assert.match(etag, /^"[0-9a-f]{16}"$/, f);
    etags.add(etag);
    const nm = await raw(d.port, 'GET', target(base + f), { headers: { 'If-None-Match': etag } });
    assert.equal(nm.status, 304, f);
    assert.equal(nm.body.length, 0, f);
    const head = await raw(d.port, 'HEAD', target(base + f));
    assert.equal(head.status, 200, f);
    assert.equal(head.body.length, 0, f);
    assert.equal(head.headers.etag, etag, f);
    assert.equal(head.headers['content-type'], r.headers['content-type'], f);
    assert.equal(head.headers['content-length'], r.headers['content-length'], f);
  }
  assert.equal(etags.size, forms.length, 'every form has its own ETag');
  // the same field spelled differently is the same resource
  const a = await raw(d.port, 'GET', target(`${base}.npy?octaves=2&gain=0.5`));
  const b = await raw(d.port, 'GET', target(`${base}.npy?gain=0.50&octaves=2.0&frequency=1`));
  assert.equal(a.headers.etag, b.headers.etag);
  const g1 = await raw(d.port, 'GET', '/perlin/7/grid.r16?x=1&y=2&step=0.5&width=10&height=10');
  const g2 = await raw(d.port, 'GET', '/perlin/7/grid.r16?height=10&width=10.0&step=5e-1&y=2.0&x=1&octaves=1');
  assert.equal(g1.status, 200, g1.text);
  assert.equal(g1.headers.etag, g2.headers.etag);
  assert.equal(g1.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.equal(g1.headers['x-width'], '10');
  const nm = await raw(d.port, 'GET', '/perlin/7/grid.r16?x=1&y=2&step=0.5&width=10&height=10',
    { headers: { 'If-None-Match': g1.headers.etag } });
  assert.equal(nm.status, 304);
  assert.equal(nm.headers.etag, g1.headers.etag);
  // a grid's HEAD computes nothing and says what GET would send (the
  // largest window, within the work limit)
  const gh = await raw(d.port, 'HEAD', '/perlin/7/grid.npy?x=1&y=2&step=0.5&width=4097&height=4097&octaves=2');
  assert.equal(gh.status, 200, gh.text);
  assert.equal(gh.headers['content-length'], String(128 + 4 * 4097 * 4097));
});

test('grids are held to the work limit of a grid: 422 naming the cost and the limit, as /stats', async () => {
  // 4097^2 samples x 16 octaves x warp 3 x t 4 = 3.2G units (about a minute
  // of CPU): refused before anything is computed, GET and HEAD, every form
  const win = 'x=0&y=0&step=0.5&width=4097&height=4097&octaves=16&warp=1&t=1';
  for (const [method, form] of [['GET', 'npy'], ['GET', 'r16'], ['GET', 'png?encoding=terrarium&'], ['GET', 'png?'], ['HEAD', 'npy']]) {
    const url = form.includes('?') ? `/perlin/1/grid.${form}${win}` : `/perlin/1/grid.${form}?${win}`;
    const r = await raw(d.port, method, url);
    assert.equal(r.status, 422, `${method} ${url}: ${r.text}`);
    assert.match(r.headers['content-type'], /application\/json/);
    if (method === 'GET') {
      assert.equal(r.json.error.status, 422);
      assert.match(r.json.error.message, /estimated work 3222\.8M units \(16785409 samples x 16 octaves x warp 3 x gradients 1 x t 4\) is over the limit of 400\.0M units per request/, url);
      assert.match(r.json.error.message, /octaves \(now 16\).*smaller width or height/, url);
    }
  }
  // the same window over /stats is refused the same way
  const st = await get(`${d.url}/perlin/1/stats?${win}`);
  assert.equal(st.status, 422, st.text);
  // gradients and shading count (x2): a grid just over the limit because of them
  const over = 'x=0&y=0&step=0.5&width=4097&height=4097&octaves=12';
  assert.equal((await raw(d.port, 'HEAD', `/perlin/1/grid.npy?${over}`)).status, 200);
  const g = await raw(d.port, 'GET', `/perlin/1/grid.npy?${over}&gradient=1`);
  assert.equal(g.status, 422, g.text);
  assert.match(g.json.error.message, /16785409 samples x 12 octaves x warp 1 x gradients 2 x t 1/);
  // the largest window with what terrain takes (6 octaves with warp, 302M
  // units; or with gradients, 201M) is within a grid's limit, though over
  // one tile's or stats'
  assert.equal((await raw(d.port, 'HEAD', '/perlin/1/grid.npy?x=0&y=0&step=0.5&width=4097&height=4097&octaves=6&warp=0.5')).status, 200);
  assert.equal((await raw(d.port, 'HEAD', '/perlin/1/grid.npy?x=0&y=0&step=0.5&width=4097&height=4097&octaves=6&gradient=1')).status, 200);
  assert.equal((await get(`${d.url}/perlin/1/stats?x=0&y=0&step=0.5&width=4097&height=4097&octaves=6&warp=0.5`)).status, 422);
  assert.equal((await raw(d.port, 'HEAD', `/perlin/1/grid.png?${over}&shade=1`)).status, 422);
  // normal grids are still answered 200 with their bytes
  for (const url of ['/perlin/7/grid.npy?x=0&y=0&step=0.1&width=300&height=200&octaves=6',
    '/perlin/7/grid.r16?x=-8&y=-8&step=0.0625&width=257&height=257&octaves=6',
    '/simplex/3/grid.png?x=0&y=0&step=0.05&width=64&height=32&octaves=3&warp=0.5&t=1&shade=1']) {
    const r = await raw(d.port, 'GET', url);
    assert.equal(r.status, 200, `${url}: ${r.text}`);
    assert.ok(r.body.length > 0, url);
  }
});

test('gzip: .npy and .r16 bodies (tiles and grids) when asked, Vary and own ETag; PNG never', async () => {
  for (const p of ['/perlin/7/3/-2/1.npy', '/perlin/7/3/-2/1.r16', '/perlin/7/grid.npy?x=0&y=0&step=0.1&width=300&height=200',
    '/perlin/7/grid.r16?x=0&y=0&step=0.1&width=300&height=200']) {
    const plain = await raw(d.port, 'GET', p);
    const gz = await raw(d.port, 'GET', p, { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(plain.status, 200, p);
    assert.equal(plain.headers['content-encoding'], undefined, p);
    assert.equal(gz.headers['content-encoding'], 'gzip', p);
    assert.match(gz.headers.vary || '', /Accept-Encoding/i, p);
    assert.match(plain.headers.vary || '', /Accept-Encoding/i, p);
    assert.ok(gunzipSync(gz.body).equals(plain.body), `${p}: gunzip differs`);
    assert.notEqual(gz.headers.etag, plain.headers.etag, p);
    const nm = await raw(d.port, 'GET', p, { headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': gz.headers.etag } });
    assert.equal(nm.status, 304, p);
  }
  for (const p of ['/perlin/7/3/-2/1.png?encoding=gray16', '/perlin/7/grid.png?x=0&y=0&step=0.1&width=30&height=20&encoding=mapbox']) {
    const gz = await raw(d.port, 'GET', p, { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(gz.status, 200, p);
    assert.equal(gz.headers['content-encoding'], undefined, p);
    assert.equal(gz.body.subarray(1, 4).toString(), 'PNG');
  }
});

test('/api/kinds lists the encodings and grid limits; TileJSON keeps encoding; OpenAPI has the grid', async () => {
  const k = (await get(`${d.url}/api/kinds`)).json;
  const text = JSON.stringify(k);
  for (const word of ['gray16', 'terrarium', 'mapbox', 'npy', 'r16', 'height_scale', 'height_offset', 'gradient'])
    assert.ok(text.includes(word), `/api/kinds lacks ${word}`);
  assert.ok(text.includes('8193') && text.includes('16785409'), '/api/kinds lacks the grid limits');
  const tj = (await get(`${d.url}/perlin/7/tile.json?encoding=terrarium&octaves=3`)).json;
  assert.match(tj.tiles[0], /\.png\?.*encoding=terrarium/);
  assert.equal(tj.encoding, 'terrarium');
  const oa = (await get(`${d.url}/openapi.json`)).json;
  assert.ok(oa.paths['/{kind}/{seed}/grid.{format}'] || Object.keys(oa.paths).some((p) => p.includes('grid')),
    'OpenAPI has no grid path');
});

// Acceptance 3: every new parameter at and beyond its limits, conflicts, and
// the 413s. Each: status, and the parameter, range and value in the message.
const GRID = '/perlin/7/grid';
const WIN = 'x=0&y=0&step=0.5&width=8&height=8';
const BAD = [
  [`${GRID}.npy?${WIN.replace('step=0.5', 'step=0')}`, 400, /step.*\(0, 1e6\].*'0'/],
  [`${GRID}.npy?${WIN.replace('step=0.5', 'step=-1')}`, 400, /step.*'-1'/],
  [`${GRID}.npy?${WIN.replace('step=0.5', 'step=1000001')}`, 400, /step.*1e6.*'1000001'/],
  [`${GRID}.npy?${WIN.replace('step=0.5', 'step=nan')}`, 400, /step.*'nan'/],
  [`${GRID}.npy?${WIN.replace('step=0.5', 'step=inf')}`, 400, /step.*'inf'/],
  [`${GRID}.npy?${WIN.replace('x=0', 'x=1e999')}`, 400, /\bx\b.*'1e999'/],
  [`${GRID}.npy?${WIN.replace('y=0', 'y=abc')}`, 400, /\by\b.*'abc'/],
  [`${GRID}.npy?${WIN.replace('width=8', 'width=0')}`, 400, /width.*1\.\.8193.*'0'/],
  [`${GRID}.npy?${WIN.replace('height=8', 'height=-3')}`, 400, /height.*1\.\.8193.*'-3'/],
  [`${GRID}.npy?${WIN.replace('width=8', 'width=2.5')}`, 400, /width.*integer.*'2.5'/],
  [`${GRID}.npy?${WIN.replace('width=8', 'width=8194')}`, 413, /width.*8193.*'8194'/],
  [`${GRID}.npy?${WIN.replace('height=8', 'height=99999999999')}`, 413, /height.*8193/],
  [`${GRID}.r16?${WIN.replace('width=8', 'width=8193').replace('height=8', 'height=2049')}`, 413, /16787457.*16785409/],
  [`${GRID}.npy?x=0&y=0&step=0.5&width=8`, 400, /missing.*height/],
  [`${GRID}.npy?y=0&step=0.5&width=8&height=8`, 400, /missing.*\bx\b/],
  [`${GRID}.npy?${WIN}&step=1`, 400, /step.*twice/],
  [`${GRID}.r16?${WIN}&gradient=1`, 400, /gradient.*\.npy/],
  [`${GRID}.png?${WIN}&encoding=gray16&gradient=1`, 400, /gradient.*\.npy/],
  [`${GRID}.npy?${WIN}&gradient=2`, 400, /gradient.*0 or 1.*'2'/],
  [`${GRID}.npy?${WIN}&encoding=gray16`, 400, /encoding.*\.png/],
  [`${GRID}.png?${WIN}&encoding=gray8`, 400, /encoding.*gray16, terrarium, mapbox.*'gray8'/],
  [`${GRID}.png?${WIN}&encoding=terrarium&palette=terrain`, 400, /encoding.*palette/],
  [`${GRID}.png?${WIN}&encoding=gray16&height_scale=2`, 400, /height_scale.*terrarium.*mapbox/],
  [`${GRID}.png?${WIN}&encoding=mapbox&height_scale=0`, 400, /height_scale.*\(0, 1e6\].*'0'/],
  [`${GRID}.png?${WIN}&encoding=mapbox&height_scale=1e7`, 400, /height_scale.*'1e7'/],
  [`${GRID}.png?${WIN}&encoding=terrarium&height_offset=-1000001`, 400, /height_offset.*\[-1e6, 1e6\].*'-1000001'/],
  [`${GRID}.r16?${WIN}&palette=terrain`, 400, /palette/],
  [`${GRID}.tif?${WIN}`, 404, /grid/],
  ['/perlin/7/3/0/0.png?encoding=terrarium&shade=1', 400, /encoding.*shade/],
  ['/perlin/7/3/0/0.png?encoding=gray16&zero=1', 400, /encoding.*zero/],
  ['/perlin/7/3/0/0.png?encoding=mapbox&palette=gray', 400, /encoding.*palette/],
  ['/perlin/7/3/0/0.r16?gradient=1', 400, /gradient.*\.npy/],
  ['/perlin/7/3/0/0.r16?encoding=gray16', 400, /encoding.*\.png/],
  ['/perlin/7/3/0/0.npy?shade=1', 400, /shade/],
  ['/perlin/7/3/0/0.npy?x=1', 400, /\bx\b/],
  ['/perlin/7/3/0/0.png?height_scale=10', 400, /height_scale/],
  ['/perlin/7/3/0/0.png?encoding=terrarium&height_offset=nan', 400, /height_offset.*'nan'/],
];

test('bad input: every new parameter at and beyond its limits and every conflict is a 4xx naming it', async () => {
  for (const [p, status, re] of BAD) {
    const r = await raw(d.port, 'GET', p);
    assert.equal(r.status, status, `${p}: ${r.text}`);
    assert.equal(r.headers['content-type'], 'application/json', p);
    assert.ok(r.json && r.json.error && r.json.error.status === status, `${p}: ${r.text}`);
    assert.match(r.json.error.message, re, p);
  }
  // and the limits themselves are accepted
  for (const p of [`${GRID}.r16?x=0&y=0&step=1e6&width=8193&height=1`, `${GRID}.npy?x=0&y=0&step=1e-9&width=1&height=1`,
    `${GRID}.png?${WIN}&encoding=terrarium&height_scale=1e6&height_offset=-1e6`]) {
    const r = await raw(d.port, 'GET', p);
    assert.equal(r.status, 200, `${p}: ${r.text}`);
  }
});
