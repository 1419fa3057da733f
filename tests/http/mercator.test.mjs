// mercator.test.mjs: the plane as a Web-Mercator world for clients that
// know no other grid (docs/clients/maplibre.md). /{kind}/{seed}/mercator/W/
// {Z}/{X}/{Y} is plane tile (Z - k, X - 2^(Z-1), Y - 2^(Z-1)), W = 16 * 2^k,
// byte for byte and with the plane tile's ETag (PNG, @2x, WebP, DEM tiles);
// with period = W the world's east edge joins its west edge without a
// seam; tile.json?mapping=mercator&scale=W gives that template, minzoom 1,
// the centre on the origin and period=W when the field takes it; bad
// widths, zooms and indices are 400s that say what was wrong.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { startDaemon, get } from './daemon.mjs';

let d;
before(async () => { d = await startDaemon(); });
after(async () => { await d.stop(); });

async function ok(url) {
  const r = await get(d.url + url);
  assert.equal(r.status, 200, `${url}: ${r.text}`);
  return r;
}

test('a Web-Mercator tile is the plane tile the mapping names, byte for byte, with its ETag', async () => {
  const q = '?octaves=6&palette=terrain&shade=1';
  for (const [merc, plane] of [
    ['/perlin/7/mercator/32/1/0/0.png', '/perlin/7/0/-1/-1.png'],       // north-west of the origin
    ['/perlin/7/mercator/32/1/1/1.png', '/perlin/7/0/0/0.png'],         // the origin's tile
    ['/perlin/7/mercator/32/3/5/2.png', '/perlin/7/2/1/-2.png'],
    ['/perlin/7/mercator/16/3/5/2@2x.png', '/perlin/7/3/1/-2@2x.png'],  // W 16: Web-Mercator zoom = plane zoom
    ['/perlin/7/mercator/128/4/3/12.webp', '/perlin/7/1/-5/4.webp'],    // W 128: k 3
  ]) {
    const a = await ok(merc + q), b = await ok(plane + q);
    assert.ok(a.body.equals(b.body), `${merc} is ${plane}`);
    assert.equal(a.headers.get('etag'), b.headers.get('etag'));
    assert.equal(a.headers.get('content-type'), b.headers.get('content-type'));
  }
  // a world 1024 units wide seen whole is plane zoom -4, below the plane
  // route's -2: drawn all the same (supersampled), 256 px
  const far = await ok(`/perlin/7/mercator/1024/2/1/2.png${q}`);
  assert.equal(PNG.sync.read(far.body).width, 256);
  // numeric (DEM) tiles too
  const dem = '?octaves=6&period=32&encoding=terrarium&height_scale=150000';
  const a = await ok(`/perlin/7/mercator/32/2/1/3.png${dem}`), b = await ok(`/perlin/7/1/-1/1.png${dem}`);
  assert.ok(a.body.equals(b.body));
});

test('with period = the world width, the tile east of the world\'s east edge is the world\'s west edge tile: no seam at the antimeridian', async () => {
  const q = '?octaves=6&period=32&palette=terrain&shade=1';
  for (const Z of [1, 3]) {
    const h = 2 ** (Z - 1);
    for (const Y of [0, h]) {
      // the plane tile just east of the world (plane x = 16) and the
      // world's first column (x = -16) show the same pixels
      const west = await ok(`/perlin/7/mercator/32/${Z}/0/${Y}.png${q}`);
      const east = await ok(`/perlin/7/${Z - 1}/${h}/${Y - h}.png${q}`);
      assert.ok(west.body.equals(east.body), `Z ${Z}, Y ${Y}`);
    }
  }
});

test('tile.json?mapping=mercator: the route\'s template, minzoom 1, the origin at the centre, period = scale where the field takes it', async () => {
  const j = (await ok('/perlin/7/tile.json?mapping=mercator&octaves=6&palette=terrain&shade=1')).json;
  assert.equal(j.tiles.length, 1);
  const t = new URL(j.tiles[0].replace('{z}/{x}/{y}', '1/1/1'));
  assert.equal(t.pathname, '/perlin/7/mercator/32/1/1/1.png');
  assert.equal(t.searchParams.get('period'), '32');
  assert.equal(t.searchParams.get('octaves'), '6');
  assert.deepEqual([j.minzoom, j.maxzoom, j.tileSize, j.scheme], [1, 30, 256, 'xyz']);
  assert.deepEqual(j.center, [0, 0, 2]);
  assert.deepEqual(j.noisetile.mapping.name, 'mercator');
  assert.equal(j.noisetile.mapping.scale, 32);
  assert.equal(j.noisetile.mapping.period, 32);
  assert.equal(j.noisetile.mapping.seamless, true);
  // the template's tile (1, 1, 1) is the origin's plane tile with period 32
  const viaTemplate = await ok(t.pathname + t.search);
  const plane = await ok('/perlin/7/0/0/0.png?octaves=6&period=32&palette=terrain&shade=1');
  assert.ok(viaTemplate.body.equals(plane.body));

  // another width: zooms shift; a period the query names is kept
  const w = (await ok('/perlin/7/tile.json?mapping=mercator&scale=4&period=2')).json;
  assert.match(w.tiles[0], /\/perlin\/7\/mercator\/4\/\{z\}\/\{x\}\/\{y\}\.png\?.*period=2(&|$)/);
  assert.deepEqual([w.minzoom, w.maxzoom], [1, 28]);
  assert.equal(w.noisetile.mapping.seamless, true);
  // simplex takes no period: none added, not seamless, still served
  const s = (await ok('/simplex/7/tile.json?mapping=mercator&scale=64')).json;
  assert.doesNotMatch(s.tiles[0], /period=/);
  assert.match(s.tiles[0], /\/simplex\/7\/mercator\/64\//);
  assert.equal(s.noisetile.mapping.period, null);
  assert.equal(s.noisetile.mapping.seamless, false);
  // DEM tiles: the encoding in the template and in the TileJSON
  const dem = (await ok('/perlin/7/tile.json?mapping=mercator&encoding=terrarium&octaves=4')).json;
  assert.match(dem.tiles[0], /\/mercator\/32\/\{z\}\/\{x\}\/\{y\}\.png\?.*period=32.*encoding=terrarium/);
  assert.equal(dem.encoding, 'terrarium');
  // without the mapping the TileJSON is the plane's, as before
  const plain = (await ok('/perlin/7/tile.json')).json;
  assert.doesNotMatch(plain.tiles[0], /mercator|period/);
  assert.equal(plain.minzoom, 0);
});

test('bad Web-Mercator requests are 400s naming the problem', async () => {
  for (const [url, re] of [
    ['/perlin/7/mercator/32/0/0/0.png', /zoom 0 is not served/],
    ['/perlin/7/mercator/33/1/0/0.png', /power of two in 1\.\.16777216.*'33'/],
    ['/perlin/7/mercator/0/1/0/0.png', /power of two/],
    ['/perlin/7/mercator/32/2/4/0.png', /x must be .* 0\.\.3, got '4'/],
    ['/perlin/7/mercator/32/2/0/-1.png', /y must be .* 0\.\.3, got '-1'/],
    ['/perlin/7/mercator/1/27/0/0.png', /plane zoom 31: the plane's tiles stop at zoom 30/],
    ['/perlin/7/mercator/32/1/0/0@3x.png', /tile scale '@3x'/],
    ['/perlin/7/tile.json?mapping=mercator&scale=48', /scale .* power of two .* got '48'/],
    ['/perlin/7/tile.json?mapping=lambert', /mapping must be 'mercator'/],
    ['/perlin/7/tile.json?scale=32', /scale applies only with mapping=mercator/],
  ]) {
    const r = await get(d.url + url);
    assert.equal(r.status, 400, `${url}: ${r.status} ${r.text}`);
    assert.match(r.json.error.message, re, url);
  }
});
