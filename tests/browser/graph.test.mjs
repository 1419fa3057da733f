// graph.test.mjs: the viewer's graph panel (static/graph.js) in headless
// Chromium against the real daemon: every preset of /api/graphs picked in
// the panel shows its own tiles (/graph/{seed}/...?g=<its canonical text>),
// an edited parameter asks for new tiles and a history entry, a bad graph
// shows the daemon's message and pointer, the share link restores the graph
// in a fresh browser, the point inspector shows /point's numbers; and each
// preset renders without seams (two adjacent tiles against one grid over
// both, as numbers and as pictures). Screenshots at 1280 x 800, 1920 x 1080
// and a phone go to tests/artifacts/graph-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import { startDaemon } from '../http/daemon.mjs';
import { numpyRead } from '../http/readers.mjs';
import { clippedChoices, emptyGroups } from './panel-checks.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(ROOT, 'tests/artifacts');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const C = createRequire(import.meta.url)('../../static/viewer-core.js');
const SEED = 7;
const START = `#z=1&x=2&y=2&kind=perlin&seed=${SEED}&octaves=5&palette=terrain&shade=1`;

let daemon = null;
let base = '';
let presets = [];
const dirs = [];
const problems = [];   // console errors, page errors, failed requests, unexpected HTTP errors
const requests = [];

async function openBrowser(viewport, deviceScaleFactor = 1) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'noisetile-chromium-'));
  dirs.push(dir);
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport, deviceScaleFactor,
    hasTouch: deviceScaleFactor > 1, timeout: 30000,
  });
  ctx.on('request', (r) => requests.push(r.url()));
  ctx.on('requestfailed', (r) => {
    const f = r.failure() && r.failure().errorText;
    if (f === 'net::ERR_ABORTED') return; // Leaflet drops tiles it no longer needs
    problems.push(`request failed: ${r.url()} ${f}`);
  });
  ctx.on('response', (r) => {
    // a bad graph's 400 from POST /api/graphs is what the editor shows
    if (r.status() >= 400 && !(r.status() === 400 && new URL(r.url()).pathname === '/api/graphs')) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  page.on('console', (m) => {
    // the browser logs the editor's expected 400 as a failed resource
    if (m.type() === 'error' && /status of 400/.test(m.text())) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return { ctx, page };
}

// The graph the map shows, from the URLs of its tiles on screen: every tile
// image of the current layer is /graph/{seed}/z/x/y.webp?g=<text>&...
function tileGraphs(page) {
  return page.evaluate(() => [...document.querySelectorAll('.noise-tiles img')].map((i) => {
    const u = new URL(i.src);
    return { path: u.pathname, g: u.searchParams.get('g'), done: i.complete && i.naturalWidth > 0 };
  }));
}
// Waits until every tile of the map is loaded and shows the graph `text`.
async function waitGraphTiles(page, text) {
  await page.waitForFunction((t) => {
    const imgs = [...document.querySelectorAll('.noise-tiles img')];
    return document.body.dataset.tiles === 'loaded' && imgs.length > 0 && imgs.every((i) => {
      const u = new URL(i.src);
      return u.searchParams.get('g') === t && /^\/graph\/\d+\//.test(u.pathname) && i.complete && i.naturalWidth > 0;
    });
  }, text, { timeout: 90000 }).catch(async (e) => {
    // what the map shows instead, for the message
    const seen = await page.evaluate(() => [document.body.dataset.tiles, ...[...document.querySelectorAll('.noise-tiles img')]
      .map((i) => `${i.complete && i.naturalWidth > 0 ? 'loaded' : 'pending'} ${decodeURIComponent(i.src).slice(0, 160)}`)]);
    throw new Error(`${e.message}: waiting for g=${text}; the map: ${seen.slice(0, 6).join('\n')}; problems: ${problems.join('; ')}`);
  });
}
// Leaflet fades a tile in over 200 ms: a screenshot waits until every tile
// of the map is drawn at full opacity (else a fading tile shows as a dark square).
async function settled(page) {
  await page.waitForFunction(() => [...document.querySelectorAll('.noise-tiles img')]
    .every((i) => getComputedStyle(i).opacity === '1'), null, { timeout: 10000 });
}
const hashOf = (page) => new URLSearchParams(new URL(page.url()).hash.slice(1));
// The page writes its hash a moment after a change: waits for g= to be text
// (null: no graph in the hash).
async function waitHashGraph(page, text) {
  await page.waitForFunction((t) => new URLSearchParams(location.hash.slice(1)).get('g') === t, text, { timeout: 10000 });
}
async function post(body) {
  const r = await fetch(`${base}/api/graphs?seed=${SEED}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  return { status: r.status, json: await r.json() };
}
// Types into the editor as a user would (an input event) and applies it at
// once (Ctrl+Enter), then waits until the daemon's answer has been shown.
async function edit(page, text) {
  await page.fill('#g-json', text);
  await page.press('#g-json', 'Control+Enter');
  await page.waitForFunction(() => !document.getElementById('g-json').classList.contains('busy'), null, { timeout: 30000 });
}
async function tidy(page) {
  await page.evaluate(() => {
    if (document.activeElement) document.activeElement.blur();
    document.getElementById('panel-body').scrollTop = 0;
  });
}

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  daemon = await startDaemon();
  base = daemon.url.replace(/\/$/, '');
  presets = (await (await fetch(`${base}/api/graphs`)).json()).graphs;
});

after(async () => {
  if (wide) await wide.ctx.close(); // an open browser would keep node (and make test) running
  if (daemon) await daemon.stop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

let wide = null;

test('the panel offers every preset of /api/graphs; picking one shows its tiles, its description and its JSON', { timeout: 600000 }, async () => {
  assert.ok(presets.length >= 5, `presets: ${presets.map((p) => p.name).join(', ')}`);
  for (const want of ['continents', 'eroded-ridges', 'islands', 'canyons', 'voxel-terrain']) {
    assert.ok(presets.some((p) => p.name === want), `preset ${want}`);
  }
  wide = await openBrowser({ width: 1280, height: 800 });
  const { page } = wide;
  await page.goto(`${base}/${START}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1' && document.querySelector('#p-source'), null, { timeout: 30000 });
  assert.equal(await page.isChecked('#p-source-kind'), true, 'a kind first');
  assert.equal(await page.isVisible('#graph-group'), false, 'no graph panel for a kind');
  await page.click('label[for=p-source-graph]');
  await waitGraphTiles(page, (presets.find((p) => p.name === 'continents') || presets[0]).graph);
  assert.equal(await page.isVisible('#graph-group'), true);
  assert.equal(await page.isVisible('[data-param=octaves]'), false, 'the kind\'s parameters hide');
  assert.equal(await page.isVisible('[data-param=seed]'), true, 'the seed stays');
  for (const p of presets) {
    await page.click(`label[for="g-preset-${p.name}"]`);
    await waitGraphTiles(page, p.graph);
    assert.equal(await page.isChecked(`#g-preset-${p.name}`), true);
    assert.equal(await page.textContent('#g-desc'), p.description);
    await waitHashGraph(page, p.graph); // the hash carries the canonical text
    const tiles = await tileGraphs(page);
    assert.ok(tiles.length >= 6 && tiles.every((t) => t.path.startsWith(`/graph/${SEED}/`)), JSON.stringify(tiles[0]));
    // the editor holds a graph the daemon reads as this preset
    const again = await post(await page.inputValue('#g-json'));
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.equal(again.json.graph, p.graph, `${p.name}: the editor's JSON is the preset`);
    assert.equal(await page.textContent('#g-text'), p.graph);
    await tidy(page);
    await settled(page);
    await page.screenshot({ path: path.join(ARTIFACTS, `graph-${p.name}-1280.png`) });
  }
  assert.deepEqual(await clippedChoices(page, '#graph-group'), []);
  assert.deepEqual(await emptyGroups(page), []);
  // back to the kind: its controls and tiles again
  await page.click('label[for=p-source-kind]');
  await page.waitForFunction(() => document.body.dataset.tiles === 'loaded' &&
    [...document.querySelectorAll('.noise-tiles img')].every((i) => new URL(i.src).pathname.startsWith('/perlin/')), null, { timeout: 60000 });
  await waitHashGraph(page, null);
  assert.equal(hashOf(page).get('kind'), 'perlin');
  assert.deepEqual(problems, []);
});

test('an edited parameter shows new tiles and is a history entry: Back and Forward step through edits', { timeout: 300000 }, async () => {
  const { page } = wide;
  const p = presets.find((x) => x.name === 'islands') || presets[0];
  await page.click('label[for=p-source-graph]');
  await page.click(`label[for="g-preset-${p.name}"]`);
  await waitGraphTiles(page, p.graph);
  // the page writes its hash 200 ms after a change (two changes within that
  // time are one history entry): the preset's entry first
  await waitHashGraph(page, p.graph);
  const before = await page.inputValue('#g-json');
  const m = /"frequency": ([\d.e-]+)/.exec(before);
  assert.ok(m, before);
  const f2 = String(Number(m[1]) * 2);
  await edit(page, before.replace(m[0], `"frequency": ${f2}`));
  const edited = (await post(await page.inputValue('#g-json'))).json.graph;
  assert.notEqual(edited, p.graph);
  assert.ok(edited.includes(`frequency:${f2}`), edited);
  await waitGraphTiles(page, edited);
  await waitHashGraph(page, edited);
  assert.equal(await page.isChecked(`#g-preset-${p.name}`), false, 'an edited graph is no preset');
  await page.goBack();
  await waitGraphTiles(page, p.graph);
  assert.equal(await page.isChecked(`#g-preset-${p.name}`), true);
  assert.equal((await post(await page.inputValue('#g-json'))).json.graph, p.graph, 'Back restores the editor too');
  await page.goForward();
  await waitGraphTiles(page, edited);
  assert.equal((await post(await page.inputValue('#g-json'))).json.graph, edited);
  assert.deepEqual(problems, []);
});

test('a bad graph shows the daemon\'s message and pointer beside the editor, and the map keeps the last good graph', { timeout: 120000 }, async () => {
  const { page } = wide;
  const shown = hashOf(page).get('g');
  const bad = '{\n  "node": "add",\n  "inputs": [\n    {"node": "perlin", "frequency": 0.1},\n    {"node": "perlin", "octaves": 20}\n  ]\n}';
  const want = await post(bad);
  assert.equal(want.status, 400);
  assert.equal(want.json.error.pointer, '/inputs/1/octaves');
  await edit(page, bad);
  await page.waitForFunction(() => document.getElementById('g-err').textContent !== '', null, { timeout: 30000 });
  const err = await page.textContent('#g-err');
  assert.ok(err.includes(want.json.error.message), `${err} / ${want.json.error.message}`);
  assert.equal(await page.textContent('#g-err code.ptr'), want.json.error.pointer);
  assert.equal(await page.getAttribute('#g-json', 'aria-invalid'), 'true');
  // "show" selects what the pointer names in the editor
  await page.click('#g-err button');
  const sel = await page.evaluate(() => { const t = document.getElementById('g-json'); return t.value.slice(t.selectionStart, t.selectionEnd); });
  assert.equal(sel, '20');
  assert.equal(hashOf(page).get('g'), shown, 'the map keeps its graph');
  await tidy(page);
  await page.evaluate(() => document.getElementById('g-json').scrollIntoView());
  await page.screenshot({ path: path.join(ARTIFACTS, 'graph-error-1280.png') });
  // not JSON at all: line and column, before any request
  await edit(page, '{"node": "add", "inputs": [1, 2],}');
  await page.waitForFunction(() => /Not JSON: line 1, column 34/.test(document.getElementById('g-err').textContent), null, { timeout: 30000 });
  assert.deepEqual(problems, []);
});

test('the share link restores the graph in a fresh browser; the point inspector shows the graph\'s /point', { timeout: 300000 }, async () => {
  const { page } = wide;
  const p = presets.find((x) => x.name === 'continents') || presets[0];
  await page.click(`label[for="g-preset-${p.name}"]`);
  const text = (await page.inputValue('#g-json')).replace(/"octaves": 6/, '"octaves": 5');
  await edit(page, text);
  const edited = (await post(text)).json.graph;
  assert.notEqual(edited, p.graph);
  await waitGraphTiles(page, edited);
  await waitHashGraph(page, edited);
  const link = page.url();
  const other = await openBrowser({ width: 1280, height: 800 });
  try {
    await other.page.goto(link);
    await waitGraphTiles(other.page, edited);
    assert.equal(await other.page.isChecked('#p-source-graph'), true);
    await other.page.waitForFunction(() => document.getElementById('g-json').value !== '', null, { timeout: 30000 });
    assert.equal((await post(await other.page.inputValue('#g-json'))).json.graph, edited, 'the editor holds the linked graph');
    assert.equal(await other.page.textContent('#g-err'), '');
    // a click on the map: value and gradient of the whole graph, as /point says
    const box = await other.page.locator('#map').boundingBox();
    await other.page.mouse.click(box.x + box.width * 0.7, box.y + box.height * 0.55);
    await other.page.waitForFunction(() => !document.getElementById('info').hidden && !document.getElementById('info').classList.contains('busy'), null, { timeout: 30000 });
    await other.page.waitForFunction(() => /px=/.test(location.hash), null, { timeout: 10000 });
    const h = hashOf(other.page);
    const url = `${base}/graph/${SEED}/point?x=${h.get('px')}&y=${h.get('py')}&g=${encodeURIComponent(edited)}`;
    const j = await (await fetch(url)).json();
    assert.equal(typeof j.value, 'number', JSON.stringify(j));
    const shown = await other.page.evaluate(() => ({
      value: document.getElementById('info-value').dataset.value,
      grad: document.getElementById('info-grad').textContent,
      x: document.getElementById('info-x').textContent,
    }));
    assert.equal(shown.value, String(j.value));
    const fmt = C.fmtSci;
    assert.equal(shown.grad, fmt(j.gradient[0]) + ', ' + fmt(j.gradient[1]));
    assert.equal(Number(shown.x), Number(h.get('px')));
    await tidy(other.page);
    await other.page.screenshot({ path: path.join(ARTIFACTS, 'graph-link-point-1280.png') });
  } finally {
    await other.ctx.close();
  }
  assert.deepEqual(problems, []);
});

test('the graph panel at 1920 x 1080 and on a phone: nothing cut off, the editor usable', { timeout: 300000 }, async () => {
  const p = presets.find((x) => x.name === 'voxel-terrain') || presets[0];
  const link = `${base}/#z=0&x=4&y=6&g=${encodeURIComponent(p.graph)}&seed=${SEED}&palette=terrain&shade=1`;
  for (const [name, viewport, dpr] of [['1920', { width: 1920, height: 1080 }, 1], ['phone', { width: 390, height: 844 }, 2]]) {
    const b = await openBrowser(viewport, dpr);
    try {
      await b.page.goto(link);
      await waitGraphTiles(b.page, p.graph);
      if (name === 'phone') await b.page.click('#panel-toggle'); // a phone starts with the panel hidden
      await b.page.waitForFunction(() => document.getElementById('g-json').value !== '', null, { timeout: 30000 });
      assert.equal(await b.page.isChecked(`#g-preset-${p.name}`), true);
      assert.deepEqual(await clippedChoices(b.page, '#panel'), []);
      const lay = await b.page.evaluate(() => {
        const panel = document.getElementById('panel').getBoundingClientRect();
        const ta = document.getElementById('g-json').getBoundingClientRect();
        const body = document.getElementById('panel-body');
        return { panel, ta, vw: innerWidth, over: body.scrollWidth - body.clientWidth };
      });
      assert.ok(lay.panel.right <= lay.vw && lay.panel.left >= 0, `panel ${lay.panel.left}..${lay.panel.right} in ${lay.vw}`);
      assert.ok(lay.ta.left >= lay.panel.left && lay.ta.right <= lay.panel.right, 'the editor inside the panel');
      assert.ok(lay.ta.width >= 300 && lay.ta.height >= 150, `editor ${lay.ta.width} x ${lay.ta.height}`);
      assert.equal(lay.over, 0, 'no sideways scrolling in the panel');
      await tidy(b.page);
      await b.page.evaluate(() => document.getElementById('g-preset').scrollIntoView());
      await settled(b.page);
      await b.page.screenshot({ path: path.join(ARTIFACTS, `graph-${p.name}-${name}.png`) });
    } finally {
      await b.ctx.close();
    }
  }
  assert.deepEqual(problems, []);
});

// ---- seams: what tiles show at their shared edge is what one grid over both shows ----

function pilRead(buf) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'noisetile-png-'));
  try {
    const f = path.join(dir, 'a.png');
    writeFileSync(f, buf);
    const r = spawnSync('/usr/bin/python3', [path.join(ROOT, 'tests/http/readers.py'), 'pil', f], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
async function bytes(url) {
  const r = await fetch(url);
  assert.equal(r.status, 200, `${url}: ${r.status} ${r.status === 200 ? '' : await r.text()}`);
  return Buffer.from(await r.arrayBuffer());
}

test('every preset renders without seams: two adjacent tiles are one grid over both, in numbers and in pictures', { timeout: 600000 }, async () => {
  // tiles (2, 0, 0) and (2, 1, 0) side by side; their pixel centres are the
  // samples of one 512 x 256 grid (docs/field.md, "Tile geometry")
  const z = 2, side = 16 / 2 ** z, step = side / 256;
  for (const p of presets) {
    const g = `g=${encodeURIComponent(p.graph)}`;
    const win = `x=${step / 2}&y=${step / 2}&step=${step}&width=512&height=256`;
    const left = numpyRead(await bytes(`${base}/graph/${SEED}/${z}/0/0.npy?${g}`));
    const right = numpyRead(await bytes(`${base}/graph/${SEED}/${z}/1/0.npy?${g}`));
    const grid = numpyRead(await bytes(`${base}/graph/${SEED}/grid.npy?${g}&${win}`));
    assert.deepEqual([left.shape, right.shape, grid.shape], [[256, 256], [256, 256], [256, 512]]);
    let worst = 0, edgeJump = 0, inner = 0;
    for (let j = 0; j < 256; j++) {
      for (let i = 0; i < 256; i++) {
        worst = Math.max(worst, Math.abs(left.data[j * 256 + i] - grid.data[j * 512 + i]),
          Math.abs(right.data[j * 256 + i] - grid.data[j * 512 + 256 + i]));
      }
      edgeJump = Math.max(edgeJump, Math.abs(right.data[j * 256] - left.data[j * 256 + 255]));
      inner = Math.max(inner, Math.abs(left.data[j * 256 + 255] - left.data[j * 256 + 254]), Math.abs(right.data[j * 256 + 1] - right.data[j * 256]));
    }
    // the same samples up to the float32 rounding of where they are
    assert.ok(worst <= 1e-5, `${p.name}: tiles and grid differ by ${worst}`);
    // and the step across the join is like a step inside a tile
    assert.ok(edgeJump <= 2 * inner + 1e-3, `${p.name}: jump ${edgeJump} across the join, ${inner} inside`);
    // the pictures: terrain colours and hillshading from the same values
    const q = 'palette=terrain&shade=1';
    const a = pilRead(await bytes(`${base}/graph/${SEED}/${z}/0/0.png?${g}&${q}`));
    const b = pilRead(await bytes(`${base}/graph/${SEED}/${z}/1/0.png?${g}&${q}`));
    const c = pilRead(await bytes(`${base}/graph/${SEED}/grid.png?${g}&${win}&${q}`));
    assert.deepEqual([a.size, b.size, c.size], [[256, 256], [256, 256], [512, 256]]);
    let off = 0;
    for (let j = 0; j < 256; j++) {
      for (let i = 0; i < 256; i++) {
        for (const [t, ci] of [[a, i], [b, 256 + i]]) {
          const u = t.data[j * 256 + i], v = c.data[j * 512 + ci];
          if (Math.max(...u.map((x, k) => Math.abs(x - v[k]))) > 1) off++;
        }
      }
    }
    assert.equal(off, 0, `${p.name}: ${off} pixels of the two tiles differ from the grid's picture`);
  }
});
