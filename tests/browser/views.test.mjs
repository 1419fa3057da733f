// views.test.mjs: the viewer's 3D view, statistics panel, compare mode and
// downloads in headless Chromium (WebGL through SwiftShader) against the
// real daemon (the viewer built into it, no flag): the 3D view draws a mesh
// of the grid endpoint's heights for the window on screen and follows a
// change of field; the statistics panel shows what /stats answers for the
// window (computed here from the hash and the tile geometry alone); compare
// mode's two maps pan together and show both tables; each download link
// answers its type at the chosen size. Screenshots go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { PNG } from 'pngjs';
import { readFileSync } from 'node:fs';
import { startDaemon } from '../http/daemon.mjs';
import { clippedChoices } from './panel-checks.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(ROOT, 'tests/artifacts');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// SwiftShader's WebGL needs the explicit opt-in since Chromium 130
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--enable-unsafe-swiftshader',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const WORLD = 16, TILE = 256;          // tile geometry (README, "The plane and its URLs")
const VIEW = { width: 1024, height: 640 };

let daemon = null, base = '', dir = null, ctx = null, page = null;
const problems = [], requests = [];

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  daemon = await startDaemon({ staticDir: null, env: { NOISETILE_STATIC: undefined } });
  base = daemon.url.replace(/\/$/, '');
  dir = await mkdtemp(path.join(os.tmpdir(), 'noisetile-chromium-'));
  ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: VIEW, deviceScaleFactor: 1, timeout: 30000,
  });
  ctx.on('request', (r) => requests.push(r.url()));
  ctx.on('requestfailed', (r) => {
    const f = r.failure() && r.failure().errorText;
    if (f === 'net::ERR_ABORTED' && /\.(png|webp)(\?|$)/.test(r.url())) return; // tiles Leaflet dropped
    problems.push(`request failed: ${r.url()} ${f}`);
  });
  ctx.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('console', (m) => {
    // SwiftShader's performance notes (a screenshot reads pixels back)
    if (/GL Driver Message/.test(m.text())) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
});

after(async () => {
  if (ctx) await ctx.close();
  if (daemon && daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

function hashState() { return new URLSearchParams(new URL(page.url()).hash.slice(1)); }

// The window of a map of size (w, h) CSS px centred on the hash's view, one
// sample per pixel centre: what the statistics panel must ask for.
function expectedWindow(w, h) {
  const q = hashState();
  const z = Number(q.get('z')), cx = Number(q.get('x')), cy = Number(q.get('y'));
  const k = TILE / WORLD * 2 ** z;
  return { x: cx - w / 2 / k + 0.5 / k, y: cy - h / 2 / k + 0.5 / k, step: 1 / k, width: w, height: h };
}

// The hash keeps the centre to a tenth of a pixel: the origin may differ by
// that much; the spacing must be exact.
function sameWindow(url, win, what) {
  const q = new URL(url, base).searchParams;
  for (const k of ['x', 'y']) {
    assert.ok(Math.abs(Number(q.get(k)) - win[k]) <= 0.11 * win.step, `${what}: ${k}=${q.get(k)}, expected ${win[k]}`);
  }
  assert.ok(Math.abs(Number(q.get('step')) / win.step - 1) < 1e-12, `${what}: step=${q.get('step')}, expected ${win.step}`);
  assert.equal(Number(q.get('width')), win.width, `${what}: width`);
  assert.equal(Number(q.get('height')), win.height, `${what}: height`);
}

function colours(png) {
  const img = PNG.sync.read(png), set = new Set();
  for (let i = 0; i < img.data.length; i += 4) set.add((img.data[i] << 16) | (img.data[i + 1] << 8) | img.data[i + 2]);
  return { n: set.size, img };
}

async function waitTiles(sel, needle) {
  await page.waitForFunction(([s, n]) => {
    const imgs = [...document.querySelectorAll(s + ' img')].filter((i) => i.src.includes(n));
    return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0);
  }, [sel, needle], { timeout: 60000 });
}

test('the 3D view draws the window as a lit mesh from the grid endpoint and follows a change of field', { timeout: 180000 }, async () => {
  // first another map without it, then a link to the 3D view: the page
  // follows the new hash (field, view and 3d=1 at once) while three.js
  // still loads, and must not build a mesh before it has
  await page.goto(`${base}/#z=2&x=4&y=4&kind=simplex&seed=1`);
  await page.waitForFunction(() => document.body.dataset.ready === '1' && document.body.dataset.tiles === 'loaded', null, { timeout: 60000 });
  await page.goto(`${base}/#z=3&x=-1.5&y=2&kind=perlin&seed=7&octaves=5&palette=terrain&3d=1`);
  await page.waitForFunction(() => document.getElementById('view3d').dataset.state === 'ready', null, { timeout: 90000 });
  assert.deepEqual(problems, []);
  const first = await page.evaluate(() => ({ ...document.getElementById('view3d').dataset }));
  // heights from the grid endpoint, over the map's window (the mesh's 256
  // samples along the longer side span the same plane extent)
  assert.match(first.grid, /^\/perlin\/7\/grid\.npy\?/);
  const g = new URL(first.grid, base).searchParams;
  assert.equal(g.get('octaves'), '5');
  const win = expectedWindow(VIEW.width, VIEW.height);
  const spanX = Number(g.get('step')) * (Number(g.get('width')) - 1);
  assert.equal(Number(g.get('width')), 256);
  assert.ok(Math.abs(spanX / ((win.width - 1) * win.step) - 1) < 0.01, `mesh spans ${spanX} plane units`);
  assert.ok(Math.abs(Number(g.get('x')) - win.x) < 2 * win.step && Math.abs(Number(g.get('y')) - win.y) < 2 * win.step, 'mesh starts at the window');
  assert.equal(Number(first.vertices), Number(g.get('width')) * Number(g.get('height')));
  assert.ok(requests.some((u) => u.startsWith(base + first.grid.slice(0, 30))), 'grid requested');
  // three.js came from the daemon; nothing came from anywhere else
  assert.ok(requests.includes(`${base}/vendor/three/three.module.js`) && requests.includes(`${base}/vendor/three/OrbitControls.js`));
  for (const u of requests) assert.ok(u.startsWith(base + '/'), `request outside the daemon: ${u}`);
  const shot1 = await page.locator('#view3d').screenshot({ path: path.join(ARTIFACTS, 'view3d.png') });
  const c1 = colours(shot1);
  assert.ok(c1.n > 200, `3D view has ${c1.n} colours`);

  // a change of field in the panel: new heights, a new picture
  await page.click('label[for="p-kind-value"]');
  await page.waitForFunction(() => {
    const d = document.getElementById('view3d').dataset;
    return d.state === 'ready' && d.grid.startsWith('/value/7/');
  }, null, { timeout: 90000 });
  await page.waitForTimeout(200);
  const shot2 = await page.locator('#view3d').screenshot({ path: path.join(ARTIFACTS, 'view3d-value.png') });
  const c2 = colours(shot2);
  assert.ok(c2.n > 200, `3D view after the change has ${c2.n} colours`);
  let differ = 0;
  for (let i = 0; i < c1.img.data.length; i += 4) if (c1.img.data[i] !== c2.img.data[i] || c1.img.data[i + 1] !== c2.img.data[i + 1]) differ++;
  assert.ok(differ > c1.img.data.length / 4 / 10, `only ${differ} pixels changed with the field`);
  // exaggeration 0: a flat mesh, still drawn
  await page.fill('#exag', '0');
  await page.dispatchEvent('#exag', 'input');
  await page.waitForFunction(() => document.getElementById('view3d').dataset.state === 'ready' && location.hash.includes('exag=0'));
  await page.click('#t-3d');
  assert.equal(await page.isVisible('#view3d'), false);
  await page.waitForFunction(() => !location.hash.includes('3d=1'));
  // the 3 key opens and closes the 3D view from any control but a field
  // being typed in: a palette choice, a switch
  for (const sel of ['#r-palette-viridis', '#t-stats']) {
    await page.focus(sel);
    await page.keyboard.press('3');
    await page.waitForFunction(() => location.hash.includes('3d=1'), null, { timeout: 10000 });
    await page.focus(sel);
    await page.keyboard.press('3');
    await page.waitForFunction(() => !location.hash.includes('3d=1'), null, { timeout: 10000 });
  }
  // in a number field the 3 is typed, not a shortcut
  await page.focus('#p-frequency');
  await page.keyboard.press('3');
  assert.equal(await page.evaluate(() => window.noisetile.view3d.isOpen()), false);
  await page.keyboard.press('Backspace');
});

// Each cell of the panel against the daemon's /stats for the same window.
async function checkStats(kinds) {
  await page.waitForFunction((n) => {
    const s = document.getElementById('stats');
    return !s.hidden && !s.classList.contains('busy') && (s.dataset.urls || '').split(' ').length === n;
  }, kinds.length, { timeout: 60000 });
  const urls = (await page.getAttribute('#stats', 'data-urls')).split(' ');
  const w = await page.evaluate(() => document.getElementById('map').clientWidth);
  for (let f = 0; f < kinds.length; f++) {
    assert.match(urls[f], new RegExp(`^/${kinds[f]}/\\d+/stats\\?`));
    sameWindow(urls[f], expectedWindow(w, VIEW.height), `stats of ${kinds[f]}`);
    const j = await (await fetch(base + urls[f])).json();
    const cells = await page.evaluate((id) => [...document.querySelectorAll(`#stats-table td[data-field="${id}"]`)]
      .map((td) => ({ key: td.dataset.key, value: td.dataset.value, text: td.textContent })), f ? 'b' : 'a');
    assert.deepEqual(cells.map((c) => c.key), ['min', 'max', 'mean', 'sd', 'share_beyond_half', 'peaks', 'count']);
    for (const c of cells) {
      assert.equal(c.value, String(j[c.key]), `${kinds[f]} ${c.key}`);
      const shown = Number(c.text.replace('\u2212', '-').replace(' %', ''));
      const want = c.key === 'share_beyond_half' ? 100 * j[c.key] : j[c.key];
      const tol = c.key === 'share_beyond_half' ? 0.05 : c.key === 'peaks' || c.key === 'count' ? 0 : 5e-5;
      assert.ok(Math.abs(shown - want) <= tol, `${kinds[f]} ${c.key}: shows ${c.text}, /stats says ${j[c.key]}`);
    }
    assert.equal(j.count, w * VIEW.height);
  }
  const bars = await page.$$eval('#stats-hist path', (ps) => ps.length);
  assert.equal(bars, kinds.length, 'one histogram per field');
}

test('the statistics panel shows what /stats answers for the window on screen', { timeout: 120000 }, async () => {
  await page.goto(`${base}/#z=4&x=1&y=2&kind=perlin&seed=3&octaves=3&palette=terrain&stats=1`);
  await checkStats(['perlin']);
  // after a pan the panel follows the new window
  await page.mouse.move(600, 300);
  await page.mouse.down();
  await page.mouse.move(500, 260, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(() => Number(new URLSearchParams(location.hash.slice(1)).get('x')) > 1.2);
  await page.waitForTimeout(700);
  await checkStats(['perlin']);
});

// On a phone the panel spans the width: the two maps go one above the
// other, below the open panel, and share the screen when it is closed.
test('compare mode on a phone: neither map under the panel, open or closed', { timeout: 120000 }, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto(`${base}/#z=2&x=4&y=4&kind=perlin&seed=0&palette=terrain&cmp=value`);
    await waitTiles('#map .noise-tiles', '/perlin/0/');
    await waitTiles('#map2 .noise-tiles-b', '/value/0/');
    const boxes = () => page.evaluate(() => ['#panel', '#map', '#map2', '#map-label-a', '#map-label-b'].map((s) => {
      const r = document.querySelector(s).getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    }));
    const inside = (l, m) => l.top >= m.top && l.bottom <= m.bottom && l.left >= m.left && l.right <= m.right;
    for (const open of [true, false]) {
      if (open !== !(await page.evaluate(() => document.body.classList.contains('collapsed')))) await page.click('#panel-toggle');
      await page.waitForFunction((o) => document.body.classList.contains('collapsed') === !o, open);
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(ARTIFACTS, `compare-phone-${open ? 'open' : 'closed'}.png`) });
      const [panel, a, b, la, lb] = await boxes();
      const what = `panel open ${open}: ${JSON.stringify({ panel, a, b })}`;
      if (open) assert.ok(a.top >= panel.bottom, `the first map starts under the panel: ${what}`);
      assert.ok(b.top >= a.bottom - 2, `the second map is below the first: ${what}`);
      for (const m of [a, b]) assert.ok(m.left <= 0 && m.right >= 390 && m.bottom - m.top >= 200, `each map the full width, 200 px high: ${what}`);
      assert.ok(Math.abs((a.bottom - a.top) - (b.bottom - b.top)) <= 2, `the maps are as high: ${what}`);
      assert.ok(inside(la, a) && inside(lb, b), `each label on its map: ${JSON.stringify({ la, lb })}, ${what}`);
      if (!open) assert.ok(la.left >= panel.right || la.top >= panel.bottom, `the first label clear of the closed panel: ${JSON.stringify({ la, panel })}`);
    }
  } finally {
    // the next tests find the panel open, as a page load leaves it
    if (await page.evaluate(() => document.body.classList.contains('collapsed'))) await page.click('#panel-toggle');
    await page.setViewportSize(VIEW);
  }
});

test('compare mode: two synced maps and both tables', { timeout: 150000 }, async () => {
  await page.goto(`${base}/#z=4&x=20&y=20&kind=perlin&seed=0&palette=terrain&stats=1&cmp=value`);
  await waitTiles('#map .noise-tiles', '/perlin/0/');
  await waitTiles('#map2 .noise-tiles-b', '/value/0/');
  await checkStats(['perlin', 'value']);
  const heads = await page.$$eval('#stats-table thead th', (t) => t.map((e) => e.textContent));
  assert.deepEqual(heads.slice(1), ['perlin', 'value']);
  // the second map's kind choice: every kind readable whole
  assert.equal(await page.isVisible('label[for="cmp-kind-classic"]'), true);
  assert.deepEqual(await clippedChoices(page, '#tools'), []);
  await page.screenshot({ path: path.join(ARTIFACTS, 'compare.png') });
  // neither map lies under the panel: the first starts right of it, the
  // two share the rest of the width
  const boxes = await page.evaluate(() => ['#panel', '#map', '#map2'].map((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return { left: r.left, right: r.right };
  }));
  assert.ok(boxes[1].left >= boxes[0].right, `the first map starts at ${boxes[1].left}, the panel ends at ${boxes[0].right}`);
  assert.ok(Math.abs((boxes[1].right - boxes[1].left) - (boxes[2].right - boxes[2].left)) <= 2, 'the maps are as wide');

  // The plane point under each map's centre, from where each map's tiles
  // sit on screen (tile geometry only).
  const centres = async () => page.evaluate(([world, tile]) => ['#map', '#map2'].map((sel) => {
    const box = document.querySelector(sel).getBoundingClientRect();
    const img = [...document.querySelectorAll(sel + ' img.leaflet-tile-loaded')].find((i) => i.style.opacity !== '0');
    const m = new URL(img.src).pathname.match(/\/(-?\d+)\/(-?\d+)\/(-?\d+)\.(?:png|webp)$/);
    const r = img.getBoundingClientRect(), z = Number(m[1]), k = r.width / (world / 2 ** z);
    const cx = box.left + document.querySelector(sel).clientLeft + document.querySelector(sel).clientWidth / 2;
    const cy = box.top + box.height / 2;
    return { x: Number(m[2]) * world / 2 ** z + (cx - r.left) / k, y: Number(m[3]) * world / 2 ** z + (cy - r.top) / k };
  }), [WORLD, TILE]);
  const near = (a, b) => Math.abs(a.x - b.x) < 1e-3 && Math.abs(a.y - b.y) < 1e-3;
  let [a, b] = await centres();
  assert.ok(near(a, b) && near(a, { x: 20, y: 20 }), `centres ${JSON.stringify([a, b])}`);
  // drag the left map: the right one follows; then drag the right one
  for (const [x0, x1] of [[360, 480], [800, 700]]) {
    await page.mouse.move(x0, 150);
    await page.mouse.down();
    await page.mouse.move(x1, 110, { steps: 6 });
    await page.mouse.up();
    // until the drag's inertia has run out: two reads 150 ms apart agree
    let prev = await centres(), a2, b2;
    for (let i = 0; i < 40; i++) {
      await page.waitForTimeout(150);
      [a2, b2] = await centres();
      if (near(a2, prev[0]) && near(b2, prev[1])) break;
      prev = [a2, b2];
    }
    assert.ok(near(a2, b2), `after a drag from x=${x0}: centres ${JSON.stringify([a2, b2])}`);
    assert.ok(!near(a2, a), `the maps moved: ${JSON.stringify([a, a2])}`);
    a = a2;
  }
  await page.waitForTimeout(500);
  await checkStats(['perlin', 'value']);
});

function pngHeader(buf) {
  assert.equal(buf.subarray(1, 4).toString('latin1'), 'PNG');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20), depth: buf[24], colour: buf[25] };
}

test('each download link answers its type at the chosen size', { timeout: 120000 }, async () => {
  await page.goto(`${base}/#z=3&x=0&y=0&kind=simplex&seed=5&octaves=2&palette=viridis&shade=1`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  await page.fill('#dl-width', '300');
  await page.press('#dl-width', 'Enter');
  await page.waitForFunction(() => document.getElementById('dl-npy').href.includes('width=300'));
  const links = await page.evaluate(() => Object.fromEntries(['dl-png', 'dl-npy', 'dl-r16', 'dl-png16']
    .map((id) => [id, { href: document.getElementById(id).href, file: document.getElementById(id).download }])));
  const W = VIEW.width, H = VIEW.height, height = Math.round((H - 1) * 299 / (W - 1)) + 1;
  const win = expectedWindow(W, H);
  const want = { ...win, width: 300, height, step: win.step * (W - 1) / 299 };
  for (const [id, l] of Object.entries(links)) {
    assert.match(new URL(l.href).pathname, /^\/simplex\/5\/grid\.(png|npy|r16)$/, id);
    sameWindow(l.href, want, id);
    assert.equal(new URL(l.href).searchParams.get('octaves'), '2', id);
    assert.ok(l.file.startsWith('noisetile-simplex-5-300x' + height), `${id}: file name ${l.file}`);
    const r = await fetch(l.href);
    const body = Buffer.from(await r.arrayBuffer());
    assert.equal(r.status, 200, `${id}: ${body.toString().slice(0, 200)}`);
    const type = r.headers.get('content-type');
    if (id === 'dl-npy') {
      assert.equal(type, 'application/x-npy');
      const hlen = body.readUInt16LE(8);
      const header = body.subarray(10, 10 + hlen).toString('latin1');
      assert.match(header, /'descr': '<f4'/);
      assert.match(header, new RegExp(`'shape': \\(${height}, 300\\)`));
      assert.equal(body.length, 10 + hlen + 4 * 300 * height);
    } else if (id === 'dl-r16') {
      assert.equal(type, 'application/octet-stream');
      assert.equal(body.length, 2 * 300 * height);
    } else {
      assert.equal(type, 'image/png');
      const h = pngHeader(body);
      assert.deepEqual([h.width, h.height], [300, height], id);
      if (id === 'dl-png16') assert.deepEqual([h.depth, h.colour], [16, 0], '16-bit gray');
      else assert.equal(h.depth, 8, 'the picture is 8-bit');
      const img = PNG.sync.read(body);
      assert.equal(img.width, 300);
    }
  }
  // what a click saves carries its provenance: the PNGs a tEXt chunk with
  // the grid URL and a description, the same pixels as the grid answer
  const textChunks = (buf) => {
    const out = {};
    for (let at = 8; at + 12 <= buf.length;) {
      const n = buf.readUInt32BE(at), type = buf.subarray(at + 4, at + 8).toString('latin1');
      if (type === 'tEXt') {
        const data = buf.subarray(at + 8, at + 8 + n).toString('latin1');
        out[data.slice(0, data.indexOf('\0'))] = data.slice(data.indexOf('\0') + 1);
      }
      at += 12 + n;
    }
    return out;
  };
  for (const id of ['dl-png', 'dl-png16']) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#${id}`)]);
    assert.equal(dl.suggestedFilename(), links[id].file);
    const saved = readFileSync(await dl.path());
    const direct = Buffer.from(await (await fetch(links[id].href)).arrayBuffer());
    const t = textChunks(saved);
    assert.equal(t.Source, links[id].href, `${id}: the Source chunk is the grid URL`);
    assert.match(t.Description, /^noisetile simplex seed 5: window x=.* 300 x \d+ samples/);
    const a = PNG.sync.read(saved), b = PNG.sync.read(direct);
    assert.ok(a.data.equals(b.data), `${id}: the saved PNG shows the grid's pixels`);
  }
  // .npy and .r16: a sidecar JSON naming each file's URL, the field, the window
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#dl-json')]);
  assert.match(dl.suggestedFilename(), /^noisetile-simplex-5-300x\d+\.json$/);
  const side = JSON.parse(readFileSync(await dl.path(), 'utf8'));
  assert.equal(side.files[links['dl-npy'].file], links['dl-npy'].href);
  assert.equal(side.files[links['dl-r16'].file], links['dl-r16'].href);
  assert.deepEqual([side.noisetile.kind, side.noisetile.seed, side.window.width], ['simplex', 5, 300]);
  assert.match(side.noisetile.query, /octaves=2/);
});

test('no console errors, page errors or failed requests', () => {
  assert.deepEqual(problems, []);
});

test('the daemon exits cleanly on SIGTERM (status 0, no sanitizer report)', { timeout: 30000 }, async () => {
  await ctx.close();
  ctx = null;
  await daemon.stop();
});
