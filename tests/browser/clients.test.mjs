// clients.test.mjs: each client page in docs/clients/ (Leaflet, OpenLayers,
// MapLibre raster, MapLibre raster-dem with hillshade and 3D terrain) runs
// as written. The test takes the page's one ```html block, serves it, serves
// the libraries its CDN URLs name from node_modules (the version in the URL
// must be the one installed, so the docs name what was tested), and sends
// what the page asks of http://localhost:8080 to a daemon on a free port.
// It asserts that the daemon is asked for the origin's tiles and for
// negative tiles, and that the screenshot's pixels across each tile join
// are the daemon's tile pixels (no seam). Screenshots go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdirSync, mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { chromium } from 'playwright-core';
import { startDaemon } from '../http/daemon.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = path.join(ROOT, 'docs/clients');
const ARTIFACTS = path.join(ROOT, 'tests/artifacts');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// SwiftShader's WebGL (MapLibre) needs the explicit opt-in since Chromium 130
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--enable-unsafe-swiftshader',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
  '--disable-quic', '--force-color-profile=srgb'];
const VIEW = { width: 768, height: 512 };
const VIEW_W = VIEW.width, VIEW_H = VIEW.height;
const PAGE_ORIGIN = 'http://clients.test';
const DAEMON_IN_DOCS = 'http://localhost:8080';
const CDNS = [['https://unpkg.com/', ''], ['https://cdn.jsdelivr.net/npm/', '']];
const TILE_RE = /^\/([a-z0-9]+)\/(\d+)\/(\d+)\/(-?\d+)\/(-?\d+)(@2x)?\.png$/;
// The Web-Mercator route: world width W = 16 * 2^k, tile (Z, X, Y) is plane
// tile (Z - k, X - 2^(Z-1), Y - 2^(Z-1)) (docs/clients/maplibre.md).
const MERCATOR_RE = /^\/([a-z0-9]+)\/(\d+)\/mercator\/(\d+)\/(\d+)\/(\d+)\/(\d+)(@2x)?\.png$/;
function planeOf(pathname) {
  const m = TILE_RE.exec(pathname);
  if (m) return { z: +m[3], x: +m[4], y: +m[5], mercator: false };
  const w = MERCATOR_RE.exec(pathname);
  if (!w) return null;
  const k = Math.log2(+w[3] / 16), Z = +w[4], h = 2 ** (Z - 1);
  return { z: Z - k, x: +w[5] - h, y: +w[6] - h, mercator: true, Z, X: +w[5], Y: +w[6] };
}

let daemon = null, ctx = null;

// The one ```html block of a docs page.
function snippet(name) {
  const md = readFileSync(path.join(DOCS, name), 'utf8');
  const blocks = [...md.matchAll(/```html\n([\s\S]*?)```/g)];
  assert.equal(blocks.length, 1, `${name} has one html block`);
  return blocks[0][1];
}

// node_modules/<pkg>/<rest> for a CDN URL <cdn><pkg>@<version>/<rest>,
// checking the version is the installed one.
function cdnFile(url) {
  for (const [prefix] of CDNS) {
    if (!url.startsWith(prefix)) continue;
    const m = /^((?:@[^/]+\/)?[^@/]+)@([^/]+)\/(.*)$/.exec(url.slice(prefix.length).split('?')[0]);
    assert.ok(m, `CDN URL without a pinned version: ${url}`);
    const [, pkg, version, rest] = m;
    const installed = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
    assert.equal(version, installed, `${url} names ${pkg} ${version}, node_modules has ${installed}`);
    return path.join(ROOT, 'node_modules', pkg, rest);
  }
  return null;
}

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

before(async () => {
  daemon = await startDaemon();
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = mkdtempSync(path.join(os.tmpdir(), 'noisetile-clients-'));
  ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: VIEW, deviceScaleFactor: 1 });
});
after(async () => {
  if (ctx) await ctx.close();
  if (daemon) await daemon.stop();
});

const withoutHost = (h) => Object.fromEntries(Object.entries(h).filter(([k]) => k.toLowerCase() !== 'host'));

// Opens a docs page; returns { page, tiles: [{path, z, x, y, query}], problems }.
async function open(name, waitReady) {
  const html = snippet(name);
  const page = await ctx.newPage();
  const tiles = [], problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  await page.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(`${PAGE_ORIGIN}/`)) return route.fulfill({ status: 200, contentType: 'text/html', body: html });
    const file = cdnFile(url);
    if (file) {
      if (!existsSync(file)) { problems.push(`no such library file: ${url}`); return route.fulfill({ status: 404 }); }
      return route.fulfill({ status: 200, contentType: TYPES[path.extname(file)] || 'application/octet-stream', body: readFileSync(file) });
    }
    if (url.startsWith(`${DAEMON_IN_DOCS}/`)) {
      const u = new URL(url);
      const t = planeOf(u.pathname);
      if (t) tiles.push({ path: u.pathname, ...t, query: u.search });
      // the daemon's links (TileJSON's tile template) name the host of the docs
      const resp = await route.fetch({ url: daemon.url + u.pathname + u.search, headers: { ...withoutHost(route.request().headers()), 'x-forwarded-host': 'localhost:8080' } });
      if (resp.status() >= 400) problems.push(`HTTP ${resp.status()}: ${u.pathname}${u.search}`);
      return route.fulfill({ response: resp });
    }
    problems.push(`request elsewhere: ${url}`);
    return route.abort();
  });
  await page.goto(`${PAGE_ORIGIN}/${name.replace(/\.md$/, '.html')}`);
  await waitReady(page);
  return { page, tiles, problems };
}

// The daemon's tile as RGBA (pngjs decodes palette and RGB PNGs alike).
const tileCache = new Map();
async function daemonTile(field, z, x, y, query) {
  const key = `${field}/${z}/${x}/${y}${query}`;
  if (!tileCache.has(key)) {
    const r = await fetch(`${daemon.url}/${field}/${z}/${x}/${y}.png${query}`);
    assert.equal(r.status, 200, key);
    tileCache.set(key, PNG.sync.read(Buffer.from(await r.arrayBuffer())));
  }
  return tileCache.get(key);
}

// Compares the screenshot with the daemon's tiles in bands across the tile
// joins: screen pixel (sx, sy) shows plane tile pixel
// (sx - ox + 256 * tx, sy - oy + 256 * ty) of zoom z, where (ox, oy) is the
// screen position of tile (tx0, ty0)'s top-left corner. Pixels in the
// `skip` rectangles (controls, attribution) are not compared. tileAt maps
// a tile index to the tile the daemon should show (identity, or a periodic
// wrap). Returns the number of compared pixels and the worst differences.
async function compareJoins(shot, { field, z, query, ox, oy, skip = [], tolerance = 0, band = 6 }) {
  const img = PNG.sync.read(shot);
  let compared = 0, bad = 0, worst = 0, first = null;
  const inSkip = (sx, sy) => skip.some(([x0, y0, x1, y1]) => sx >= x0 && sx < x1 && sy >= y0 && sy < y1);
  const near = (s, o) => { const d = ((s - o) % 256 + 256) % 256; return d < band || d >= 256 - band; };
  for (let sy = 0; sy < img.height; sy++) {
    for (let sx = 0; sx < img.width; sx++) {
      if (!near(sx, ox) && !near(sy, oy)) continue;
      if (inSkip(sx, sy)) continue;
      const tx = Math.floor((sx - ox) / 256), ty = Math.floor((sy - oy) / 256);
      const t = await daemonTile(field, z, tx, ty, query);
      const i = ((sy - oy - 256 * ty) * 256 + (sx - ox - 256 * tx)) * 4, j = (sy * img.width + sx) * 4;
      let d = 0;
      for (let c = 0; c < 3; c++) d = Math.max(d, Math.abs(t.data[i + c] - img.data[j + c]));
      compared++;
      worst = Math.max(worst, d);
      if (d > tolerance) { bad++; if (!first) first = `screen (${sx}, ${sy}) tile ${z}/${tx}/${ty} differs by ${d}`; }
    }
  }
  return { compared, bad, worst, first };
}

function save(name, buf) { writeFileSync(path.join(ARTIFACTS, name), buf); }

function assertTiles(tiles, what) {
  assert.ok(tiles.some((t) => t.x === 0 && t.y === 0), `${what}: the origin's tile (x 0, y 0) is requested`);
  assert.ok(tiles.some((t) => t.x === -1 && t.y === -1), `${what}: the tile left of and above the origin (-1, -1) is requested`);
  assert.ok(tiles.some((t) => t.x < 0 && t.y >= 0) && tiles.some((t) => t.x >= 0 && t.y < 0), `${what}: negative x and negative y`);
}

const leafletReady = async (page) => page.waitForFunction(() => {
  const imgs = [...document.querySelectorAll('img.leaflet-tile')];
  return imgs.length >= 6 && imgs.every((i) => i.complete && i.naturalWidth > 0 && i.classList.contains('leaflet-tile-loaded'))
    && !document.querySelector('.leaflet-fade-anim .leaflet-tile:not(.leaflet-tile-loaded)');
}, null, { timeout: 30000 }).then(() => page.waitForTimeout(400));   // Leaflet's 200 ms fade-in

const olReady = async (page) => page.waitForFunction(() => {
  const c = document.querySelector('#map canvas');
  return c && window.ol && document.querySelector('.ol-layer');
}, null, { timeout: 30000 }).then(async () => {
  // OpenLayers fades tiles in over 250 ms: wait until two screenshots agree
  let prev = null;
  for (let i = 0; i < 40; i++) {
    await page.waitForTimeout(300);
    const s = await page.screenshot();
    if (prev && s.equals(prev)) return;
    prev = s;
  }
});

const maplibreReady = async (page) => {
  await page.waitForFunction(() => window.map && window.map.loaded() && window.map.areTilesLoaded(), null, { timeout: 60000, polling: 200 });
  await page.evaluate(() => new Promise((res) => { if (window.map.loaded()) window.map.once('idle', res); else res(); setTimeout(res, 5000); }));
  await page.waitForTimeout(500);
};

const FIELD = 'perlin/7';
const PICT = '?octaves=6&palette=terrain&shade=1';

test('Leaflet page: a plane CRS asks for negative tiles and the origin, and the joins show the daemon\'s pixels', async () => {
  const { page, tiles, problems } = await open('leaflet.md', leafletReady);
  const shot = await page.screenshot();
  save('client-leaflet.png', shot);
  assertTiles(tiles, 'Leaflet');
  assert.ok(tiles.every((t) => t.z === 2));
  // centre [0, 0] at zoom 2: the origin at the viewport's centre
  const r = await compareJoins(shot, { field: FIELD, z: 2, query: PICT, ox: VIEW.width / 2, oy: VIEW.height / 2,
    skip: [[0, 0, 60, 90], [VIEW.width - 120, VIEW.height - 24, VIEW.width, VIEW.height]] });
  assert.ok(r.compared > 10000, `compared ${r.compared} pixels`);
  assert.equal(r.bad, 0, `${r.bad} of ${r.compared} pixels differ (worst ${r.worst}): ${r.first}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('OpenLayers page: a plane projection and tile grid ask for negative tiles and the origin, and the joins show the daemon\'s pixels', async () => {
  const { page, tiles, problems } = await open('openlayers.md', olReady);
  const shot = await page.screenshot();
  save('client-openlayers.png', shot);
  assertTiles(tiles, 'OpenLayers');
  const r = await compareJoins(shot, { field: FIELD, z: 2, query: PICT, ox: VIEW.width / 2, oy: VIEW.height / 2,
    skip: [[0, 0, 50, 70], [VIEW.width - 40, VIEW.height - 40, VIEW.width, VIEW.height]] });
  assert.ok(r.compared > 10000, `compared ${r.compared} pixels`);
  assert.equal(r.bad, 0, `${r.bad} of ${r.compared} pixels differ (worst ${r.worst}): ${r.first}`);
  assert.deepEqual(problems, []);
  await page.close();
});

// WebGL draws a texture with linear filtering: at 1:1 texel centres the
// pixels are the tile's, up to the GPU's (here SwiftShader's) rounding.
const GL_TOLERANCE = 2;

test('MapLibre raster page: a plain TileJSON (mapping=mercator) asks for negative plane tiles and the origin; the origin at the centre; the joins and the antimeridian show the daemon\'s pixels', async () => {
  const { page, tiles, problems } = await open('maplibre.md', maplibreReady);
  const shot = await page.screenshot();
  save('client-maplibre.png', shot);
  // no transformRequest: every tile asked for is a Web-Mercator route tile
  assert.ok(tiles.length > 0 && tiles.every((t) => t.mercator), 'Web-Mercator route tiles only');
  assert.ok(!snippet('maplibre.md').includes('transformRequest'), 'the page has no transformRequest');
  assertTiles(tiles, 'MapLibre');
  assert.ok(tiles.every((t) => t.query.includes('period=32')), 'the TileJSON adds period=32, the world width');
  // the origin at the map's centre: map.project of lng/lat 0, 0
  const c = await page.evaluate(() => window.map.project([0, 0]));
  assert.ok(Math.abs(c.x - VIEW_W / 2) < 0.5 && Math.abs(c.y - VIEW_H / 2) < 0.5, `origin at ${JSON.stringify(c)}`);
  const q = '?octaves=6&period=32&palette=terrain&shade=1';
  const skip = [[VIEW.width - 170, VIEW.height - 42, VIEW.width, VIEW.height]];   // attribution
  const r = await compareJoins(shot, { field: FIELD, z: 2, query: q, ox: VIEW.width / 2, oy: VIEW.height / 2, skip, tolerance: GL_TOLERANCE });
  assert.ok(r.compared > 10000, `compared ${r.compared} pixels`);
  assert.equal(r.bad, 0, `${r.bad} of ${r.compared} pixels differ (worst ${r.worst}): ${r.first}`);
  // the world's wrap: centre on lng 180 (plane x = 16); left of it the
  // world's last column (plane tiles x = 3), right of it the next world
  // copy, which MapLibre fills with plane tiles x = -4; with period=32 the
  // daemon's tile x = 4 (plane [16, 20)) is the same picture, so no seam.
  await page.evaluate(() => new Promise((res) => { window.map.once('idle', res); window.map.jumpTo({ center: [180, 0], zoom: 2 }); }));
  await page.waitForTimeout(500);
  const wrap = await page.screenshot();
  save('client-maplibre-wrap.png', wrap);
  const w = await compareJoins(wrap, { field: FIELD, z: 2, query: q, ox: VIEW.width / 2 - 4 * 256, oy: VIEW.height / 2, skip, tolerance: GL_TOLERANCE });
  assert.equal(w.bad, 0, `at the wrap ${w.bad} of ${w.compared} pixels differ (worst ${w.worst}): ${w.first}`);
  assert.deepEqual(problems, []);
  await page.close();
});

const deckReady = async (page) => {
  await page.waitForFunction(() => window.deckgl && window.tilesLoaded, null, { timeout: 60000, polling: 200 });
  // deck.gl draws on the next animation frames: until two screenshots agree
  let prev = null;
  for (let i = 0; i < 40; i++) {
    await page.waitForTimeout(300);
    const s = await page.screenshot();
    if (prev && s.equals(prev)) return;
    prev = s;
  }
};

test('deck.gl page: a TileLayer in an OrthographicView asks for negative tiles and the origin, and the joins show the daemon\'s pixels', async () => {
  const { page, tiles, problems } = await open('deckgl.md', deckReady);
  const shot = await page.screenshot();
  save('client-deckgl.png', shot);
  assertTiles(tiles, 'deck.gl');
  assert.ok(tiles.every((t) => !t.mercator && t.z === 2), `zoom 2 plane tiles: ${tiles.map((t) => t.path).join(' ')}`);
  // target [0, 0] at zoom 2: the origin at the viewport's centre
  const r = await compareJoins(shot, { field: FIELD, z: 2, query: PICT, ox: VIEW.width / 2, oy: VIEW.height / 2 });
  assert.ok(r.compared > 10000, `compared ${r.compared} pixels`);
  assert.equal(r.bad, 0, `${r.bad} of ${r.compared} pixels differ (worst ${r.worst}): ${r.first}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('MapLibre terrain page: DEM and colour tiles from plain TileJSON (mapping=mercator), negative plane tiles and the origin, no wall at the joins', async () => {
  const { page, tiles, problems } = await open('maplibre-terrain.md', maplibreReady);
  const shot = await page.screenshot();
  save('client-maplibre-terrain.png', shot);
  // plain TileJSON sources: Web-Mercator route tiles only, period=32 added
  assert.ok(tiles.length > 0 && tiles.every((t) => t.mercator && t.query.includes('period=32')), 'Web-Mercator route tiles with period=32');
  const dem = tiles.filter((t) => t.query.includes('encoding=terrarium'));
  const colour = tiles.filter((t) => t.query.includes('palette=terrain'));
  assertTiles(dem, 'MapLibre raster-dem');
  assertTiles(colour, 'MapLibre raster under the terrain');
  // the terrain is drawn: below the horizon (the top third is the sky at
  // pitch 60) no white hole shows the page's background
  const img = PNG.sync.read(shot);
  let white = 0;
  for (let i = img.width * 4 * Math.floor(img.height / 3); i < img.data.length; i += 4) if (img.data[i] > 250 && img.data[i + 1] > 250 && img.data[i + 2] > 250) white++;
  assert.ok(white < img.width * img.height * 0.02, `${white} white pixels`);
  // no wall: MapLibre's DEM tiles share their edges (it backfills each
  // tile's border from its neighbours); the daemon's neighbouring DEM
  // tiles must agree there, which they do when each pixel is the field at
  // its own place: the last column of tile (x, y) and the first of tile
  // (x + 1, y) differ by no more than neighbouring columns inside a tile.
  const decode = async (x, y) => daemonTile(FIELD, 2, x, y, '?octaves=6&period=32&encoding=terrarium&height_scale=150000');
  const h = (t, i, j) => { const k = (j * 256 + i) * 4; return t.data[k] * 256 + t.data[k + 1] + t.data[k + 2] / 256 - 32768; };
  const a = await decode(-1, 0), b = await decode(0, 0);
  let across = 0, inside = 0;
  for (let j = 0; j < 256; j++) {
    across = Math.max(across, Math.abs(h(a, 255, j) - h(b, 0, j)));
    inside = Math.max(inside, Math.abs(h(a, 254, j) - h(a, 255, j)), Math.abs(h(b, 0, j) - h(b, 1, j)));
  }
  assert.ok(across <= inside * 1.5 + 1, `step across the join ${across} m, inside tiles up to ${inside} m`);
  assert.deepEqual(problems, []);
  await page.close();
});
