// viewer.test.mjs: the viewer at / in headless Chromium against the real
// daemon: tiles come only from the daemon and sit where docs/field.md's tile
// geometry puts them, controls change tile URLs, a click shows what /point
// says for the clicked spot, the hash restores the state, @2x tiles on
// high-DPI screens, no console errors or failed requests. Screenshots go to
// tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startDaemon } from '../http/daemon.mjs';
import { clippedChoices, emptyGroups } from './panel-checks.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(ROOT, 'tests/artifacts');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const WORLD = 16;   // plane units covered by tile z = 0 (docs/field.md, "Tile geometry")
const TILE = 256;   // CSS pixels per tile
// the viewer asks for .webp tiles where Chromium has WebP, else .png
const TILE_RE = /^\/([a-z]+)\/(\d+)\/(-?\d+)\/(-?\d+)\/(-?\d+)(@2x)?\.(?:png|webp)(\?.*)?$/;

let daemon = null;
let base = '';
const dirs = [];
const problems = [];   // console errors, page errors, failed requests, HTTP errors
const requests = [];   // every URL any page asked for
const tileResponses = [];

// A browser with a fresh profile; every request and problem is recorded.
async function openBrowser(viewport, deviceScaleFactor) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'noisetile-chromium-'));
  dirs.push(dir);
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport, deviceScaleFactor,
    hasTouch: deviceScaleFactor > 1, timeout: 30000,
  });
  ctx.on('request', (r) => requests.push(r.url()));
  ctx.on('requestfailed', (r) => {
    // Leaflet cancels tiles it no longer needs (zoom, parameter change): that
    // is the page's choice, not a failure.
    const f = r.failure() && r.failure().errorText;
    if (f === 'net::ERR_ABORTED' && TILE_RE.test(new URL(r.url()).pathname)) return;
    problems.push(`request failed: ${r.url()} ${f}`);
  });
  ctx.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    if (TILE_RE.test(new URL(r.url()).pathname)) tileResponses.push({ url: r.url(), status: r.status(), type: r.headers()['content-type'] });
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return { ctx, page };
}

async function waitTiles(page, needle) {
  await page.waitForFunction((n) => {
    const imgs = [...document.querySelectorAll('.noise-tiles img')];
    const want = imgs.filter((i) => !n || i.src.includes(n));
    return document.body.dataset.ready === '1' && document.body.dataset.tiles === 'loaded' && want.length > 0 &&
      want.every((i) => i.complete && i.naturalWidth > 0);
  }, needle || '', { timeout: 60000 });
}

function hashState(url) {
  return new URLSearchParams(new URL(url).hash.slice(1));
}

// The plane point under CSS pixel (px, py) of the map, from the view in the
// hash and docs/field.md's geometry alone (no help from the page's code).
function planeAt(view, size, px, py) {
  const k = TILE / WORLD * 2 ** view.z;
  return { x: view.x + (px - size.width / 2) / k, y: view.y + (py - size.height / 2) / k, k };
}

function viewOf(url) {
  const h = hashState(url);
  return { x: Number(h.get('x')), y: Number(h.get('y')), z: Number(h.get('z')) };
}

// Each loaded tile image must sit on screen where the plane square of its
// (z, x, y) is: top-left (x*S/2^z, y*S/2^z), side S/2^z.
async function checkTilePlacement(page) {
  const view = viewOf(page.url());
  const size = page.viewportSize();
  const tiles = await page.evaluate(() => [...document.querySelectorAll('.noise-tiles img.leaflet-tile-loaded')].map((i) => {
    const r = i.getBoundingClientRect();
    return { src: i.src, left: r.left, top: r.top, width: r.width, opacity: getComputedStyle(i.parentNode.parentNode).opacity };
  }));
  let checked = 0;
  for (const t of tiles) {
    const m = new URL(t.src).pathname.match(TILE_RE);
    assert.ok(m, `tile URL ${t.src}`);
    const [z, x, y] = [Number(m[3]), Number(m[4]), Number(m[5])];
    if (z !== view.z) continue; // a scaled tile from another level, still fading
    const k = TILE / WORLD * 2 ** view.z;
    const side = WORLD / 2 ** z;
    const left = size.width / 2 + (x * side - view.x) * k;
    const top = size.height / 2 + (y * side - view.y) * k;
    assert.ok(Math.abs(t.left - left) <= 1 && Math.abs(t.top - top) <= 1,
      `tile ${z}/${x}/${y} at (${t.left}, ${t.top}), expected (${left}, ${top})`);
    assert.ok(Math.abs(t.width - TILE) <= 0.5, `tile width ${t.width}`);
    checked++;
  }
  return checked;
}

// Before a screenshot: no focus ring from the last control, panel scrolled up.
async function tidy(page) {
  await page.evaluate(() => {
    if (document.activeElement) document.activeElement.blur();
    document.getElementById('panel-body').scrollTop = 0;
  });
}

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  // the binary alone, no flag but --port 0: the viewer and Leaflet are
  // built into it
  daemon = await startDaemon({ staticDir: null, env: { NOISETILE_STATIC: undefined } });
  assert.deepEqual(daemon.child.spawnargs.slice(1), ['--port', '0']);
  base = daemon.url.replace(/\/$/, '');
});

after(async () => {
  if (daemon && daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

let wide = null;

test('the page loads tiles from the daemon, placed by the tile geometry, and nothing from elsewhere', { timeout: 150000 }, async () => {
  wide = await openBrowser({ width: 1280, height: 800 }, 1);
  const { page } = wide;
  // a view with negative tile indices on screen
  await page.goto(`${base}/#z=3&x=-0.5&y=0.25&kind=perlin&seed=7&octaves=4&shade=1`);
  await waitTiles(page);
  const tileReqs = requests.filter((u) => TILE_RE.test(new URL(u).pathname));
  assert.ok(tileReqs.length >= 12, `tile requests: ${tileReqs.length}`);
  for (const u of requests) assert.ok(u.startsWith(base + '/'), `request outside the daemon: ${u}`);
  assert.ok(requests.some((u) => u.endsWith('/vendor/leaflet/leaflet.js')), 'leaflet.js from the daemon');
  assert.ok(tileReqs.some((u) => /\/-\d+\//.test(new URL(u).pathname)), 'negative tile indices requested');
  assert.ok(tileReqs.every((u) => !u.includes('@2x')), 'no @2x tiles at device pixel ratio 1');
  assert.ok(tileResponses.length >= 12);
  // Chromium has WebP: the viewer's tiles are WebP (a tenth of a shaded PNG)
  for (const r of tileResponses) assert.ok((r.status === 200 || r.status === 304) && r.type === 'image/webp' && /\.webp(\?|$)/.test(r.url), `${r.url}: ${r.status} ${r.type}`);
  const n = await checkTilePlacement(page);
  assert.ok(n >= 12, `placed tiles checked: ${n}`);
  // the scale bar: its width is its label's plane units at this zoom
  const bar = await page.evaluate(() => ({ w: document.getElementById('scale-bar').getBoundingClientRect().width, t: document.getElementById('scale-text').textContent }));
  const units = parseFloat(bar.t);
  assert.ok(Math.abs(bar.w - units * TILE / WORLD * 2 ** 3) <= 1, `scale bar ${bar.w} px for ${bar.t} at zoom 3`);
});

test('the first view (no hash): Perlin fBm with terrain colours and hillshading, every setting in the hash', { timeout: 90000 }, async () => {
  const page = await wide.ctx.newPage();
  try {
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`${base}/`);
    await waitTiles(page);
    const h = hashState(page.url());
    assert.equal(h.get('kind'), 'perlin');
    assert.ok(Number(h.get('octaves')) > 1, `octaves ${h.get('octaves')}`);
    assert.equal(h.get('palette'), 'terrain');
    assert.equal(h.get('shade'), '1');
    const srcs = await page.evaluate(() => [...document.querySelectorAll('.noise-tiles img')].map((i) => i.src));
    assert.ok(srcs.length > 0 && srcs.every((u) => /^\/perlin\/7\/.*\?octaves=\d+&palette=terrain&shade=1$/.test(new URL(u).pathname + new URL(u).search)), srcs[0]);
    assert.ok(await page.isChecked('#r-palette-terrain'));
    assert.ok(await checkTilePlacement(page) > 0);
    // the hash alone reopens it, in another tab
    const again = await wide.ctx.newPage();
    await again.goto(page.url());
    await waitTiles(again);
    assert.equal(again.url(), page.url());
    await again.close();
    await tidy(page);
    await page.screenshot({ path: path.join(ARTIFACTS, 'first-view.png') });
  } finally {
    await page.close();
  }
});

test('the controls are the parameters of /api/kinds', { timeout: 30000 }, async () => {
  const { page } = wide;
  const api = await (await fetch(`${base}/api/kinds`)).json();
  const raw = JSON.stringify(api);
  const names = await page.evaluate(() => [...document.querySelectorAll('#controls [data-param]')].map((e) => e.dataset.param));
  for (const want of ['kind', 'seed', 'frequency', 'octaves', 'lacunarity', 'gain', 'fractal', 'warp', 't', 'lattice',
    'distance', 'return', 'jitter', 'period', 'palette', 'shade', 'zero']) {
    assert.ok(names.includes(want), `control for ${want} (have ${names.join(',')})`);
    if (want !== 'kind' && want !== 'seed') assert.ok(raw.includes(`"${want}"`), `/api/kinds names ${want}`);
  }
  // Views come first in the panel and show at 1280 x 800 without scrolling,
  // with the hint that a click reads a value
  const order = await page.evaluate(() => {
    const body = document.querySelector('#panel-body');
    return { views: body.firstElementChild.id, bottom: document.querySelector('#click-hint').getBoundingClientRect().bottom, scroll: body.scrollTop };
  });
  assert.equal(order.views, 'tools');
  assert.ok(order.scroll === 0 && order.bottom < 800, `the Views and the click hint end at ${order.bottom} px`);
  assert.match(await page.textContent('#click-hint'), /Click the map/);
  // the line under the kind buttons is the kind's description from /api/kinds
  const kind = await page.evaluate(() => window.noisetile.state.kind);
  assert.equal(await page.textContent('#kind-desc'), api.kind_descriptions[kind]);
  assert.ok(api.kind_descriptions[kind].length > 20);
  // every choice readable whole (six kinds do not fit one row), no heading
  // without a control under it
  assert.deepEqual(await clippedChoices(page, '#panel'), []);
  assert.deepEqual(await emptyGroups(page), []);
  // an on/off switch only where the parameter may be absent (no default):
  // one with a default always has a value, and its switch could not be off
  const switches = await page.$$eval('#controls input.switch[id$="-on"]', (s) => s.map((e) => e.id).sort());
  const absent = api.parameters.filter((p) => p.default === undefined && p.type !== 'enum').map((p) => `p-${p.name}-on`).sort();
  assert.deepEqual(switches, absent);
  assert.ok(absent.includes('p-period-on') && absent.includes('p-t-on'), absent.join());
});

test('a value outside the range /api/kinds gives is refused with its message', { timeout: 30000 }, async () => {
  const { page } = wide;
  const before = requests.length;
  await page.fill('#p-octaves', '99');
  await page.press('#p-octaves', 'Enter');
  const msg = await page.textContent('#p-octaves-err');
  assert.match(msg, /octaves/);
  assert.match(msg, /99/);
  assert.equal(await page.getAttribute('#p-octaves', 'aria-invalid'), 'true');
  await page.waitForTimeout(600);
  assert.ok(!requests.slice(before).some((u) => u.includes('octaves=99')), 'no request with octaves=99');
  assert.equal(hashState(page.url()).get('octaves'), '4', 'octaves stays as the link set it');
  await page.fill('#p-octaves', '4');
  await page.press('#p-octaves', 'Enter');
  assert.equal(await page.textContent('#p-octaves-err'), '');
});

test('changing two controls requests tiles with the new parameters', { timeout: 120000 }, async () => {
  const { page } = wide;
  const before = requests.length;
  await page.fill('#p-frequency', '2');
  await page.press('#p-frequency', 'Enter');
  await page.click('label[for="r-palette-terrain"]');
  await waitTiles(page, 'palette=terrain');
  const fresh = requests.slice(before).filter((u) => TILE_RE.test(new URL(u).pathname));
  const both = fresh.filter((u) => {
    const q = new URL(u).searchParams;
    return q.get('frequency') === '2' && q.get('palette') === 'terrain';
  });
  assert.ok(both.length >= 12, `tiles with frequency=2 and palette=terrain: ${both.length} of ${fresh.length}`);
  const shown = await page.evaluate(() => [...document.querySelectorAll('.noise-tiles img.leaflet-tile-loaded')].map((i) => i.src));
  assert.ok(shown.length > 0 && shown.every((s) => s.includes('frequency=2') && s.includes('palette=terrain')),
    'only new tiles left on the map');
  const h = hashState(page.url());
  assert.equal(h.get('frequency'), '2');
  assert.equal(h.get('palette'), 'terrain');
  await checkTilePlacement(page);
});

test('a click shows the value and gradient /point gives for the clicked spot, with an arrow', { timeout: 120000 }, async () => {
  const { page } = wide;
  const size = page.viewportSize();
  const [cx, cy] = [930, 540];
  const view = viewOf(page.url());
  const expected = planeAt(view, size, cx, cy);
  await page.mouse.click(cx, cy);
  await page.waitForFunction(() => !document.getElementById('info').hidden &&
    !document.getElementById('info').classList.contains('busy') && document.getElementById('info-value').textContent !== '');
  const shown = await page.evaluate(() => ({
    x: document.getElementById('info-x').textContent, y: document.getElementById('info-y').textContent,
    value: document.getElementById('info-value').textContent, raw: document.getElementById('info-value').dataset.value,
  }));
  const [x, y] = [Number(shown.x), Number(shown.y)];
  assert.ok(Math.abs(x - expected.x) <= 1 / expected.k && Math.abs(y - expected.y) <= 1 / expected.k,
    `panel shows (${x}, ${y}); the clicked pixel is at (${expected.x}, ${expected.y}), a pixel is ${1 / expected.k}`);
  // the field the test set up: perlin, seed 7, octaves 4 (link), frequency 2 (typed)
  const q = new URLSearchParams({ x: shown.x, y: shown.y, frequency: '2', octaves: '4' });
  const r = await fetch(`${base}/perlin/7/point?${q}`);
  assert.equal(r.status, 200);
  const j = await r.json();
  assert.equal(j.x, x);
  assert.equal(j.y, y);
  assert.equal(Number(shown.raw), j.value, 'the exact value');
  const text = shown.value.replace('\u2212', '-').replace('+', '').trim();
  assert.equal(Number(text), Number(j.value.toFixed(6)), `panel text ${shown.value} vs ${j.value}`);
  // the arrow starts at the clicked pixel and points along the gradient
  const arrow = await page.evaluate(() => {
    const p = document.querySelector('path.arrow');
    if (!p) return null;
    const r = p.getBoundingClientRect();
    return { d: p.getAttribute('d'), box: [r.left, r.top, r.right, r.bottom] };
  });
  assert.ok(arrow, 'an arrow is drawn');
  const pts = arrow.d.match(/-?\d+(\.\d+)?/g).map(Number);
  const [dx, dy] = [pts[2] - pts[0], pts[3] - pts[1]];
  const g = j.gradient;
  const cos = (dx * g[0] + dy * g[1]) / Math.hypot(dx, dy) / Math.hypot(g[0], g[1]);
  assert.ok(cos > 0.999, `arrow direction (${dx}, ${dy}) vs gradient (${g})`);
  const near = Math.min(Math.hypot(arrow.box[0] - cx, 0), Math.hypot(arrow.box[2] - cx, 0)) <= 3 ||
    (arrow.box[0] <= cx && cx <= arrow.box[2]);
  assert.ok(near, `arrow box ${arrow.box} near the click ${cx}`);
  await tidy(page);
  await page.screenshot({ path: path.join(ARTIFACTS, 'viewer-wide.png') });
});

test('the keyboard: Enter on the focused map shows the point at its centre, G toggles the grid', { timeout: 30000 }, async () => {
  const { page } = wide;
  const before = await page.textContent('#info-x');
  await page.focus('#map');
  await page.keyboard.press('Enter');
  const view = viewOf(page.url());
  await page.waitForFunction((b) => document.getElementById('info-x').textContent !== b &&
    !document.getElementById('info').classList.contains('busy'), before);
  const k = TILE / WORLD * 2 ** view.z;
  assert.ok(Math.abs(Number(await page.textContent('#info-x')) - view.x) <= 1 / k);
  assert.ok(Math.abs(Number(await page.textContent('#info-y')) - view.y) <= 1 / k);
  await page.keyboard.press('g');
  await page.waitForSelector('.grid-canvas');
  await page.keyboard.press('g');
  await page.waitForSelector('.grid-canvas', { state: 'detached' });
  // back to the clicked point for the screenshots and the reload
  await page.mouse.click(930, 540);
  await page.waitForFunction(() => !document.getElementById('info').classList.contains('busy'));
});

test('the lattice overlay draws lines at multiples of 1/frequency', { timeout: 30000 }, async () => {
  const { page } = wide;
  await page.click('label[for="grid-toggle"]');
  await page.waitForFunction(() => { const c = document.querySelector('.grid-canvas'); return c && c.dataset.lines; });
  const lines = Number(await page.evaluate(() => document.querySelector('.grid-canvas').dataset.lines));
  const view = viewOf(page.url());
  const size = page.viewportSize();
  const a = planeAt(view, size, 0, 0);
  const b = planeAt(view, size, size.width, size.height);
  const f = 2; // set above; perlin on the square lattice
  const want = (Math.floor(b.x * f) - Math.ceil(a.x * f) + 1) + (Math.floor(b.y * f) - Math.ceil(a.y * f) + 1);
  assert.ok(Math.abs(lines - want) <= 2, `lattice lines ${lines}, expected about ${want}`);
  await page.waitForFunction(() => location.hash.includes('grid=1'));
  await tidy(page);
  await page.screenshot({ path: path.join(ARTIFACTS, 'viewer-wide-grid.png') });
});

test('a reload restores the view, the parameters and the point from the hash', { timeout: 120000 }, async () => {
  const { page } = wide;
  const hash = new URL(page.url()).hash;
  const beforeX = await page.textContent('#info-x');
  const start = requests.length;
  await page.reload();
  await waitTiles(page, 'frequency=2');
  await page.waitForFunction(() => document.getElementById('info-value').textContent !== '');
  assert.equal(new URL(page.url()).hash, hash);
  assert.equal(await page.inputValue('#p-frequency'), '2');
  assert.ok(await page.isChecked('#r-palette-terrain'));
  assert.ok(await page.isChecked('#grid-toggle'));
  assert.equal(await page.textContent('#info-x'), beforeX);
  const fresh = requests.slice(start).filter((u) => TILE_RE.test(new URL(u).pathname));
  assert.ok(fresh.length > 0 && fresh.every((u) => u.includes('frequency=2') && u.includes('palette=terrain')));
  assert.ok(await checkTilePlacement(page) > 0);
});

test('kind-specific controls follow the kind, and t animates', { timeout: 120000 }, async () => {
  const { page } = wide;
  // a lighter field for the many tiles of this test: one octave, no shading
  await page.fill('#p-octaves', '1');
  await page.press('#p-octaves', 'Enter');
  await page.click('label[for="r-shade"]');
  await page.waitForFunction(() => !location.hash.includes('shade=') && !location.hash.includes('octaves='));
  await page.click('label[for="p-kind-simplex"]');
  await waitTiles(page, '/simplex/');
  assert.equal(await page.isVisible('[data-param=lattice]'), false, 'no lattice control for simplex');
  for (const n of ['distance', 'return', 'jitter'])
    assert.equal(await page.isVisible(`[data-param=${n}]`), false, `no ${n} control for simplex`);
  // cellular: its own three controls, no lattice; a choice reaches the tiles
  await page.click('label[for="p-kind-cellular"]');
  await waitTiles(page, '/cellular/');
  for (const n of ['distance', 'return', 'jitter'])
    assert.equal(await page.isVisible(`[data-param=${n}]`), true, `${n} control for cellular`);
  assert.equal(await page.isVisible('[data-param=lattice]'), false, 'no lattice control for cellular');
  assert.deepEqual(await emptyGroups(page), [], 'cellular: every heading has controls');
  const startCell = requests.length;
  await page.click('label[for="p-return-f2-f1"]');
  await page.waitForFunction(() => location.hash.includes('return=f2-f1'));
  await waitTiles(page, '/cellular/');
  const cellTiles = requests.slice(startCell).filter((u) => u.includes('/cellular/') && TILE_RE.test(new URL(u).pathname));
  assert.ok(cellTiles.length > 0 && cellTiles.every((u) => u.includes('return=f2-f1')), `cellular tiles ask for f2-f1: ${cellTiles[0]}`);
  await page.click('label[for="p-kind-perlin"]');
  await waitTiles(page, '/perlin/');
  assert.equal(await page.isVisible('[data-param=lattice]'), true, 'lattice control for perlin');
  for (const n of ['distance', 'return', 'jitter'])
    assert.equal(await page.isVisible(`[data-param=${n}]`), false, `no ${n} control for perlin`);
  assert.deepEqual(await emptyGroups(page), [], 'perlin: no heading without controls (cellular\'s are hidden)');
  const start = requests.length;
  await page.click('#play');
  await page.waitForFunction(() => Number(new URLSearchParams(location.hash.slice(1)).get('t')) > 0, null, { timeout: 30000 });
  // each step of t is one low-resolution picture of the window (grid.png,
  // a sample per 4 x 4 pixels) drawn over the map, not a screenful of tiles
  await page.waitForFunction(() => Number((document.getElementById('anim-frame') || {}).dataset?.frames) >= 6, null, { timeout: 30000 });
  await page.click('#play');
  const played = requests.slice(start);
  const ts = new Set(played.map((u) => new URL(u).searchParams.get('t')).filter((t) => t !== null));
  assert.ok(ts.size >= 2, `pictures for several t: ${[...ts].join(', ')}`);
  const frames = played.map((u, i) => ({ u: new URL(u), i })).filter((f) => /^\/perlin\/\d+\/grid\.png$/.test(f.u.pathname));
  assert.ok(frames.length >= 6, `${frames.length} frames`);
  const size = page.viewportSize();
  for (let k = 0; k < frames.length; k++) {
    const q = frames[k].u.searchParams;
    assert.equal(Number(q.get('width')), Math.round(size.width / 4));
    if (k > 0) assert.ok(Number(q.get('t')) > Number(frames[k - 1].u.searchParams.get('t')), 't grows frame by frame');
  }
  const between = played.slice(frames[0].i, frames[frames.length - 1].i).filter((u) => TILE_RE.test(new URL(u).pathname));
  assert.deepEqual(between, [], 'no tiles asked for while t plays');
  // stopped: the tiles of the last t come in and the picture goes
  // (the hash follows 200 ms later: the t of the tiles is the page's own)
  const tStop = await page.evaluate(() => new URLSearchParams(window.noisetile.tileTemplate().split('?')[1]).get('t'));
  await waitTiles(page, `t=${tStop}`);
  await page.waitForFunction(() => document.getElementById('anim-frame').hidden, null, { timeout: 10000 });
});

test('period: its switch asks for a field repeating every zoom-0 tile; simplex has no period control', { timeout: 120000 }, async () => {
  const { page } = wide;
  const start = requests.length;
  await page.click('label[for="p-period-on"]');
  await waitTiles(page, 'period=16');
  assert.equal(hashState(page.url()).get('period'), '16');
  const fresh = requests.slice(start).filter((u) => TILE_RE.test(new URL(u).pathname));
  assert.ok(fresh.length > 0 && fresh.every((u) => new URL(u).searchParams.get('period') === '16'),
    `tiles with period=16: ${fresh.length}`);
  await page.click('label[for="p-kind-simplex"]');
  await waitTiles(page, '/simplex/');
  assert.equal(await page.isVisible('[data-param=period]'), false, 'no period control for simplex');
  const shown = await page.evaluate(() => [...document.querySelectorAll('.noise-tiles img.leaflet-tile-loaded')].map((i) => i.src));
  assert.ok(shown.length > 0 && shown.every((u) => !u.includes('period=')), 'simplex tiles carry no period');
  await page.click('label[for="p-kind-perlin"]');
  await waitTiles(page, 'period=16');
  await page.click('label[for="p-period-on"]');
  await page.waitForFunction(() => !location.hash.includes('period='));
  await waitTiles(page);
});

// Simplex 2D (docs/field.md): the plane scaled by f/sqrt(3), corners of the
// skewed grid at c - (ci+cj)(3-sqrt(3))/6. Its value is 0 at every corner
// (the own gradient is orthogonal to a zero offset, the other corners are
// beyond the kernel's radius), so /point confirms the corners, and the
// overlay must have ink there and none inside the triangles.
test('the triangle-lattice overlay passes through the corners where simplex noise is 0', { timeout: 120000 }, async () => {
  const { page } = wide;
  await page.goto(`${base}/#z=4&x=3.3&y=-1.7&kind=simplex&seed=3&grid=1`);
  await waitTiles(page, '/simplex/3/');
  await page.waitForFunction(() => Number((document.querySelector('.grid-canvas') || {}).dataset?.lines) > 0);
  const view = viewOf(page.url());
  const size = page.viewportSize();
  const k = TILE / WORLD * 2 ** view.z;
  const G = (3 - Math.sqrt(3)) / 6;
  const corners = [];
  for (let i = -40; i <= 40; i++) {
    for (let j = -40; j <= 40; j++) {
      const x = (i - (i + j) * G) * Math.sqrt(3), y = (j - (i + j) * G) * Math.sqrt(3);
      const sx = size.width / 2 + (x - view.x) * k, sy = size.height / 2 + (y - view.y) * k;
      if (sx > 340 && sx < size.width - 20 && sy > 20 && sy < size.height - 20) corners.push({ x, y, sx, sy });
    }
  }
  assert.ok(corners.length >= 4, `corners on screen: ${corners.length}`);
  const probes = [];
  for (const c of corners.slice(0, 6)) {
    const r = await (await fetch(`${base}/simplex/3/point?x=${c.x}&y=${c.y}`)).json();
    assert.ok(Math.abs(r.value) < 1e-9, `simplex at corner (${c.x}, ${c.y}) is ${r.value}`);
    probes.push({ sx: c.sx, sy: c.sy, ink: true });
  }
  // the centroid of the triangle (i,j), (i+1,j), (i+1,j+1) is inside a cell
  const cx = (a, b) => (a - (a + b) * G) * Math.sqrt(3);
  const ctr = { x: (cx(0, 0) + cx(1, 0) + cx(1, 1)) / 3, y: (cx(0, 0) + cx(0, 1) + cx(1, 1)) / 3 };
  for (let n = 0; n < 40 && probes.length < 9; n++) {
    const [i, j] = [Math.round(view.x / 1.7) + (n % 7) - 3, Math.round(view.y / 1.7) + Math.floor(n / 7) - 3];
    const x = (i - (i + j) * G) * Math.sqrt(3) + ctr.x, y = (j - (i + j) * G) * Math.sqrt(3) + ctr.y;
    const sx = size.width / 2 + (x - view.x) * k, sy = size.height / 2 + (y - view.y) * k;
    if (sx > 340 && sx < size.width - 20 && sy > 20 && sy < size.height - 20) probes.push({ sx, sy, ink: false });
  }
  assert.ok(probes.some((p) => !p.ink), 'a triangle centre on screen');
  const alpha = await page.evaluate((ps) => {
    const cv = document.querySelector('.grid-canvas');
    const r = cv.getBoundingClientRect();
    const sc = cv.width / r.width;
    const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
    return ps.map((p) => {  // the most ink in the 3x3 device pixels around the spot
      const [px, py] = [Math.floor((p.sx - r.left) * sc), Math.floor((p.sy - r.top) * sc)];
      let m = 0;
      for (let y = py - 1; y <= py + 1; y++) for (let x = px - 1; x <= px + 1; x++) m = Math.max(m, d[(y * cv.width + x) * 4 + 3]);
      return m;
    });
  }, probes);
  probes.forEach((p, n) => {
    if (p.ink) assert.ok(alpha[n] > 0, `overlay ink at corner (${p.sx}, ${p.sy})`);
    else assert.equal(alpha[n], 0, `no ink inside the triangle at (${p.sx}, ${p.sy})`);
  });
  await tidy(page);
  await page.screenshot({ path: path.join(ARTIFACTS, 'viewer-wide-simplex-grid.png') });
});

test('zoom spans native tiles from z -2 (coarser views, a screenful of requests) to z 30', { timeout: 120000 }, async () => {
  const { page } = wide;
  for (const z of [-1, -2]) {
    const start = requests.length;
    await page.goto(`${base}/#z=${z}&x=0&y=0&kind=perlin&seed=${-z}`);
    await waitTiles(page, `/perlin/${-z}/`);
    const zs = requests.slice(start).filter((u) => u.includes(`/perlin/${-z}/`)).map((u) => new URL(u).pathname.match(TILE_RE)).filter(Boolean).map((m) => Number(m[3]));
    assert.ok(zs.length > 0 && zs.every((t) => t === z), `zoom ${z} uses z ${z} tiles: ${[...new Set(zs)]}`);
    // a screenful of 256-px tiles (before: 16 zoom-0 tiles per 256 px at z -2, about 280)
    assert.ok(zs.length <= 40, `${zs.length} tile requests at zoom ${z}`);
    const w = await page.evaluate(() => document.querySelector('.noise-tiles img.leaflet-tile-loaded').getBoundingClientRect().width);
    assert.ok(Math.abs(w - TILE) < 0.5, `a z ${z} tile drawn ${w} px wide at zoom ${z}`);
    assert.ok(await checkTilePlacement(page) > 0);
  }
  const start = requests.length;
  await page.goto(`${base}/#z=30&x=1.25&y=-3.5&kind=perlin&seed=1`);
  await page.reload();
  await waitTiles(page, '/perlin/1/30/');
  const zs = requests.slice(start).map((u) => new URL(u).pathname.match(TILE_RE)).filter(Boolean);
  assert.ok(zs.length > 0 && zs.every((m) => m[3] === '30'), 'zoom 30 uses z 30 tiles');
  assert.ok(await checkTilePlacement(page) > 0);
});

// The shown layer has loaded and shows tiles whose URL holds needle. Unlike
// waitTiles it does not ask every tile image on the page to be complete:
// after changes in quick succession (Back, Back) a replaced layer's images
// may still be in the page, cancelled.
async function waitShown(page, needle) {
  await page.waitForFunction((n) => document.body.dataset.ready === '1' && document.body.dataset.tiles === 'loaded' &&
    [...document.querySelectorAll('.noise-tiles img')].some((i) => i.src.includes(n) && i.complete && i.naturalWidth > 0),
  needle, { timeout: 60000 });
}

test('Back undoes a change of the picture or the field, one at a time, and stays on the page', { timeout: 120000 }, async () => {
  // a page of its own, so that the history Back walks is this test's alone
  const page = await wide.ctx.newPage();
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${base}/#z=3&x=0&y=0&kind=perlin&seed=7&palette=terrain&shade=1`);
  await waitShown(page, 'palette=terrain');
  await page.click('label[for="r-palette-viridis"]');
  await page.waitForFunction(() => location.hash.includes('palette=viridis'));
  await page.click('label[for="r-palette-gray"]');
  await page.waitForFunction(() => !location.hash.includes('palette='));
  // moving the map is no history entry of its own
  await page.evaluate(() => window.noisetile.map().panBy([40, 0], { animate: false }));
  await page.waitForTimeout(400);
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes('palette=viridis'));
  assert.ok(await page.isChecked('#r-palette-viridis'));
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes('palette=terrain'));
  assert.ok(await page.isChecked('#r-palette-terrain'));
  assert.ok(page.url().startsWith(base), `still the viewer: ${page.url()}`);
  await waitShown(page, 'palette=terrain');
  // Forward redoes
  await page.goForward();
  await page.waitForFunction(() => location.hash.includes('palette=viridis'));
  await page.close();
});

test('no console errors, page errors or failed requests on the wide screen', () => {
  assert.deepEqual(problems, []);
});

test('a phone-sized high-DPI screen: @2x tiles, collapsible panel', { timeout: 150000 }, async () => {
  await wide.ctx.close();
  const narrow = await openBrowser({ width: 390, height: 844 }, 2);
  const { page } = narrow;
  const start = requests.length;
  await page.goto(`${base}/#z=3&x=1&y=-1&kind=perlin&seed=7&palette=viridis&shade=1&px=1.1&py=-0.9`);
  await waitTiles(page);
  const tiles = requests.slice(start).filter((u) => TILE_RE.test(new URL(u).pathname));
  assert.ok(tiles.length > 0 && tiles.every((u) => u.includes('@2x.webp')), 'only @2x tiles at device pixel ratio 2');
  assert.ok(tiles.every((u) => u.includes('/perlin/7/') && u.includes('palette=viridis') && u.includes('shade=1')));
  await page.waitForFunction(() => document.getElementById('info-value').textContent !== '');
  assert.equal(await page.isVisible('#panel-body'), false, 'panel starts collapsed on a narrow screen');
  await page.screenshot({ path: path.join(ARTIFACTS, 'viewer-narrow.png') });
  await page.click('#panel-toggle');
  assert.equal(await page.isVisible('#p-frequency'), true);
  assert.deepEqual(await clippedChoices(page, '#panel'), []);
  await page.screenshot({ path: path.join(ARTIFACTS, 'viewer-narrow-panel.png') });
  await page.keyboard.press('Escape');
  await narrow.ctx.close();
  assert.deepEqual(problems, []);
});

test('the daemon served all this and exits cleanly on SIGTERM (status 0, no sanitizer report)', { timeout: 30000 }, async () => {
  const d = daemon;
  await d.stop();
});
