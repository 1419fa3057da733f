// tiles.test.mjs: PNG tiles: headers, sizes, ETag and 304, HEAD, one cache
// entry per canonical request, pixels equal to /point, seamless neighbours,
// negative and far tile indices.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { startDaemon, get, raw } from './daemon.mjs';
import { seamCheck } from './seams.mjs';

let d;
before(async () => { d = await startDaemon({ args: ['--cache-mb', '64'] }); });
after(async () => { await d.stop(); });

const decode = (buf) => PNG.sync.read(buf);

async function metric(name) {
  const r = await get(`${d.url}/metrics`);
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(r.text);
  assert.ok(m, `metric ${name} missing`);
  return Number(m[1]);
}

// Pixel centre of pixel (i, j) of tile (z, x, y), W px wide (docs/field.md, "Tile geometry").
const centre = (z, x, y, W, i, j) => [(x + (i + 0.5) / W) * (16 / 2 ** z), (y + (j + 0.5) / W) * (16 / 2 ** z)];

async function batch(kind, seed, query, points) {
  const r = await get(`${d.url}/${kind}/${seed}/points${query ? '?' + query : ''}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ points }),
  });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

test('a tile is a 256 x 256 PNG with the caching and CORS headers; @2x is 512', async () => {
  const r = await get(`${d.url}/perlin/7/3/1/2.png`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'image/png');
  assert.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  assert.match(r.headers.get('etag'), /^"[0-9a-f]{16}"$/);
  assert.equal(Number(r.headers.get('content-length')), r.body.length);
  const png = decode(r.body);
  assert.equal(png.width, 256);
  assert.equal(png.height, 256);
  const r2 = await get(`${d.url}/perlin/7/3/1/2@2x.png`);
  assert.equal(r2.status, 200);
  const png2 = decode(r2.body);
  assert.equal(png2.width, 512);
  assert.equal(png2.height, 512);
  assert.notEqual(r2.headers.get('etag'), r.headers.get('etag'));
  for (const q of ['palette=terrain', 'palette=viridis', 'shade=1', 'zero=1', 'palette=terrain&shade=1&zero=1']) {
    const t = await get(`${d.url}/simplex/1/2/0/0.png?${q}`);
    assert.equal(t.status, 200, q);
    assert.equal(decode(t.body).width, 256, q);
  }
});

test('If-None-Match: the ETag, a list holding it, a weak form or * give 304', async () => {
  const url = `${d.url}/value/11/4/-3/5.png?octaves=3`;
  const r = await get(url);
  const etag = r.headers.get('etag');
  for (const inm of [etag, `"0000000000000000", ${etag}`, `W/${etag}`, '*', `  ${etag}  ,"x"`]) {
    const c = await get(url, { headers: { 'If-None-Match': inm } });
    assert.equal(c.status, 304, inm);
    assert.equal(c.body.length, 0);
    // The 304 carries the 200's headers, its length included (not 0).
    assert.equal(c.headers.get('content-length'), String(r.body.length));
    assert.equal(c.headers.get('etag'), etag);
    assert.equal(c.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(c.headers.get('access-control-allow-origin'), '*');
  }
  for (const inm of ['"0000000000000000"', 'W/"abc"', etag.slice(0, -2) + '"']) {
    const c = await get(url, { headers: { 'If-None-Match': inm } });
    assert.equal(c.status, 200, inm);
    assert.deepEqual(c.body, r.body);
  }
});

test('HEAD gives the headers of GET and no body', async () => {
  const path = '/improved/0/5/7/-9.png?palette=viridis';
  const g = await raw(d.port, 'GET', path);
  const h = await raw(d.port, 'HEAD', path);
  assert.equal(h.status, 200);
  assert.equal(h.body.length, 0);
  for (const k of ['content-type', 'etag', 'cache-control', 'access-control-allow-origin', 'content-length'])
    assert.equal(h.headers[k], g.headers[k], k);
  assert.equal(Number(h.headers['content-length']), g.body.length);
});

test('equivalent URLs: same ETag, same bytes, one cache entry', async () => {
  const variants = [
    '/perlin/99/6/10/-20.png?octaves=2&gain=0.25',
    '/perlin/99/6/10/-20.png?gain=0.25&octaves=2',
    '/perlin/99/6/10/-20.png?gain=.25&octaves=2&frequency=1',
    '/perlin/99/6/10/-20.png?octaves=2.0&gain=2.5e-1&lacunarity=2&fractal=fbm&warp=0&lattice=square&palette=gray&shade=0&zero=0',
    '/perlin/99/6/10/-20.png?octaves=2&gain=0.250&frequency=1.0&warp=0.0',
  ];
  const entries0 = await metric('noisetile_cache_entries');
  const misses0 = await metric('noisetile_cache_misses_total');
  const hits0 = await metric('noisetile_cache_hits_total');
  const first = await get(d.url + variants[0]);
  assert.equal(first.status, 200);
  for (const v of variants.slice(1)) {
    const r = await get(d.url + v);
    assert.equal(r.status, 200, v);
    assert.equal(r.headers.get('etag'), first.headers.get('etag'), v);
    assert.deepEqual(r.body, first.body, v);
  }
  assert.equal(await metric('noisetile_cache_entries'), entries0 + 1);
  assert.equal(await metric('noisetile_cache_misses_total'), misses0 + 1);
  assert.equal(await metric('noisetile_cache_hits_total'), hits0 + variants.length - 1);
  // A parameter that changes the field changes the ETag.
  const other = await get(`${d.url}/perlin/99/6/10/-20.png?octaves=3&gain=0.25`);
  assert.notEqual(other.headers.get('etag'), first.headers.get('etag'));
  const seed = await get(`${d.url}/perlin/98/6/10/-20.png?octaves=2&gain=0.25`);
  assert.notEqual(seed.headers.get('etag'), first.headers.get('etag'));
});

// Deterministic pseudo-random pixel picks.
function* picks(n, W, seed = 12345) {
  let s = seed >>> 0;
  const next = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s; };
  for (let k = 0; k < n; k++) yield [next() % W, next() % W];
}

test('a gray pixel equals /points at its centre to one grey level (far and negative tiles too)', async () => {
  const tiles = [
    ['perlin', 7, '', 0, 0, 0, 1],
    ['perlin', 7, 'octaves=4', 3, -1, 2, 1],
    ['simplex', 4294967295, 'frequency=0.7', 5, -17, -3, 2],
    ['value', 0, 'lattice=triangle', 2, 3, -4, 1],
    ['improved', 0, 't=0.5', 1, 0, 1, 1],
    ['perlin', 12, 'fractal=ridged&octaves=3', 0, -2147483648, 2147483647, 1],
    ['simplex', 5, '', 30, 2147483647, -2147483648, 1],
    ['value', 9, 'warp=0.3', 12, -2147483648, -2147483648, 1],
  ];
  for (const [kind, seed, q, z, x, y, scale] of tiles) {
    const W = 256 * scale;
    const url = `${d.url}/${kind}/${seed}/${z}/${x}/${y}${scale === 2 ? '@2x' : ''}.png${q ? '?' + q : ''}`;
    const r = await get(url);
    assert.equal(r.status, 200, url);
    const png = decode(r.body);
    assert.equal(png.width, W);
    const px = [...picks(400, W, seed + z)];
    // Corners and edges too.
    px.push([0, 0], [W - 1, 0], [0, W - 1], [W - 1, W - 1], [W >> 1, 0], [0, W >> 1]);
    const pts = px.map(([i, j]) => centre(z, x, y, W, i, j));
    const { values } = await batch(kind, seed, q, pts);
    let worst = 0;
    px.forEach(([i, j], k) => {
      const o = 4 * (j * W + i);
      assert.equal(png.data[o], png.data[o + 1]);
      assert.equal(png.data[o], png.data[o + 2]);
      const expect = Math.max(0, Math.min(255, Math.round((values[k] + 1) * 127.5)));
      worst = Math.max(worst, Math.abs(png.data[o] - expect));
    });
    assert.ok(worst <= 1, `${url}: pixel differs from the point value by ${worst} grey levels`);
    // The same through GET /point, one pixel at a time.
    for (const [i, j] of px.slice(0, 12)) {
      const [cx, cy] = centre(z, x, y, W, i, j);
      const p = await get(`${d.url}/${kind}/${seed}/point?x=${cx}&y=${cy}${q ? '&' + q : ''}`);
      assert.equal(p.status, 200, p.text);
      const expect = Math.max(0, Math.min(255, Math.round((p.json.value + 1) * 127.5)));
      const got = png.data[4 * (j * W + i)];
      assert.ok(Math.abs(got - expect) <= 1, `${url} pixel (${i},${j}) = ${got}, /point ${p.json.value} -> ${expect}`);
    }
  }
});

test('neighbouring tiles continue each other as smoothly as inner columns and rows', async () => {
  const cases = [
    ['perlin', 3, '', 0, -1, -1],
    ['simplex', 8, 'octaves=2', 1, 5, -7],
    ['perlin', 3, 'shade=1', 0, 0, 0],
    ['value', 21, 'shade=1&palette=terrain', 1, -3, 2],
  ];
  for (const [kind, seed, q, z, x, y] of cases) {
    const tile = async (tx, ty) => {
      const r = await get(`${d.url}/${kind}/${seed}/${z}/${tx}/${ty}.png${q ? '?' + q : ''}`);
      assert.equal(r.status, 200);
      return decode(r.body);
    };
    const a = await tile(x, y), right = await tile(x + 1, y), below = await tile(x, y + 1);
    for (const channel of [0, 1, 2]) {
      const h = seamCheck(a, right, 256, true, channel);
      const v = seamCheck(a, below, 256, false, channel);
      for (const [what, m] of [['columns', h], ['rows', v]]) {
        assert.ok(m.seam <= 1.5 * m.inner + 1,
          `${kind} ${q} z${z} ${what} channel ${channel}: seam ${m.seam.toFixed(2)} vs inner ${m.inner.toFixed(2)}`);
      }
    }
    // The measure does see a seam: a tile next to itself (a repeated
    // column of tiles) is much rougher across the join at this zoom.
    const self = seamCheck(a, a, 256, true, 0);
    assert.ok(self.seam > 1.5 * self.inner + 1, `control: ${self.seam} vs ${self.inner}`);
  }
});
