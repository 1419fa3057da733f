// links.test.mjs: shared links whose view lies beyond what the daemon
// serves (a centre past 2^31 tiles at deep zoom, 1e20, 1e308) open in
// headless Chromium as a working page: the view moved to the edge with a
// message saying so, tiles that the daemon answers 200, a page that still
// answers; and zooming in to the deepest level at the edge does not freeze
// the tab (the tile walk once ran past 2^53, where adding one changes
// nothing). Screenshots go to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startDaemon } from '../http/daemon.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = path.join(ROOT, 'tests/artifacts');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const TILE_RE = /^\/([a-z]+)\/(\d+)\/(-?\d+)\/(-?\d+)\/(-?\d+)(@2x)?\.(?:png|webp)(\?.*)?$/;

let daemon = null;
let ctx = null;
let dir = null;
const tiles = [];      // {z, x, y, status} of every tile response
const problems = [];   // page errors, HTTP errors

before(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  daemon = await startDaemon({ staticDir: null });
  dir = await mkdtemp(path.join(os.tmpdir(), 'noisetile-chromium-'));
  ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 800 }, timeout: 30000,
  });
  ctx.on('response', (r) => {
    const m = new URL(r.url()).pathname.match(TILE_RE);
    if (m) tiles.push({ z: Number(m[3]), x: Number(m[4]), y: Number(m[5]), status: r.status() });
    else if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
});

after(async () => {
  if (ctx) await ctx.close();
  if (daemon) await daemon.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Opens base + hash in a fresh page, waits until the page is ready; returns
// the page and its status line.
async function open(hash) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${daemon.url.replace(/\/$/, '')}/${hash}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
  return page;
}

// The page still runs script: a freeze makes this time out.
async function alive(page) {
  const r = await Promise.race([
    page.evaluate(() => 1 + 1),
    new Promise((resolve) => setTimeout(() => resolve('frozen'), 5000)),
  ]);
  assert.equal(r, 2, 'the page answers');
}

for (const [hash, z, axis] of [['#z=30&x=2147483648&y=0', 30, 'x'], ['#z=3&x=1e20&y=0', 3, 'x'], ['#z=3&x=0&y=1e308', 3, 'y']]) {
  test(`the link ${hash} opens at the edge of what is served and says so`, { timeout: 90000 }, async () => {
    tiles.length = 0;
    problems.length = 0;
    const page = await open(hash);
    await alive(page);
    const msg = await page.textContent('#status');
    assert.match(msg, new RegExp(`Ignored from the link: ${axis} .* is beyond the tiles the daemon serves at zoom ${z}`));
    const h = new URLSearchParams(new URL(page.url()).hash.slice(1));
    const c = Number(h.get(axis));
    assert.ok(Number.isFinite(c) && c !== 0, `the hash's ${axis} is ${h.get(axis)}`);
    await page.waitForFunction(() => document.body.dataset.tiles === 'loaded', null, { timeout: 60000 });
    const here = tiles.filter((t) => t.z === z);
    assert.ok(here.length > 0, 'tiles at the link\'s zoom were asked for');
    for (const t of here) assert.equal(t.status, 200, `tile ${t.z}/${t.x}/${t.y}`);
    assert.deepEqual(problems, []);
    await page.screenshot({ path: path.join(ARTIFACTS, `link-edge-z${z}-${axis}.png`) });
    await page.close();
  });
}

test('zooming in to the deepest level at the edge of zoom 3 keeps the page alive', { timeout: 90000 }, async () => {
  problems.length = 0;
  const page = await open('#z=3&x=1e20&y=0');
  await alive(page);
  // straight to the deepest zoom at the same centre, as a user holding the
  // zoom key would get: tile indices near 2.9e17, past 2^53, none of which
  // the daemon serves
  const idx = await page.evaluate(() => {
    const m = window.noisetile.map();
    m.setZoom(30, { animate: false });
    return m.getCenter().lng * 2 ** 30 / 16;
  });
  assert.ok(Math.abs(idx) > 2 ** 53, `tile index ${idx} past 2^53`);
  await alive(page);
  assert.match(await page.textContent('#status'), /No tiles this far from the origin at zoom 30/);
  assert.deepEqual(problems.filter((p) => /page error/.test(p)), []);
  await page.close();
});
