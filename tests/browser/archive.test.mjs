// archive.test.mjs: the archive page (static/archive.html) in headless
// Chromium with no daemon: a plain static server (range requests, like
// nginx or object storage) serves the viewer's files, a PMTiles export and a
// directory export. The page places every tile at the plane tile the
// export's metadata maps it to, shows the exported bytes, reads the PMTiles
// archive with range requests, and asks for nothing else.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, statSync, cpSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { runOnce } from '../http/daemon.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WWW = process.env.NOISETILE_STATIC || path.join(ROOT, 'build', 'www');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const FIELD = 'simplex/3?octaves=2&palette=terrain';

let dir, server, base, ctx, meta;
const requests = [], problems = [];

// A static file server answering Range requests (206), as a CDN does.
function serve(rootDir) {
  return new Promise((resolve) => {
    const s = http.createServer((req, res) => {
      const p = path.join(rootDir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
      let st;
      try { st = statSync(p); } catch { res.writeHead(404).end(); return; }
      if (!st.isFile() || !p.startsWith(rootDir)) { res.writeHead(404).end(); return; }
      const body = readFileSync(p);
      const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.png': 'image/png' }[path.extname(p)] || 'application/octet-stream';
      const m = /^bytes=(\d+)-(\d+)?$/.exec(req.headers.range || '');
      if (m) {
        const a = Number(m[1]), b = Math.min(m[2] ? Number(m[2]) : body.length - 1, body.length - 1);
        res.writeHead(206, { 'Content-Type': type, 'Content-Range': `bytes ${a}-${b}/${body.length}`, 'Content-Length': b - a + 1 });
        res.end(body.subarray(a, b + 1));
      } else {
        res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length }).end(body);
      }
    });
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'noisetile-archive-'));
  cpSync(WWW, dir, { recursive: true });
  for (const out of ['a.pmtiles', 'a-dir']) {
    const r = await runOnce(['export', FIELD, '--zoom', '1-3', '--bbox', '-6,-5,7,4', '-o', path.join(dir, out)], {}, 120000);
    assert.equal(r.code, 0, r.stderr);
  }
  meta = JSON.parse(readFileSync(path.join(dir, 'a-dir', 'metadata.json'), 'utf8')).noisetile;
  server = await serve(dir);
  base = `http://127.0.0.1:${server.address().port}`;
  const profile = mkdtempSync(path.join(os.tmpdir(), 'noisetile-chromium-'));
  ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1000, height: 700 } });
  ctx.on('request', (r) => requests.push({ url: r.url(), range: r.headers().range }));
  ctx.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure() && r.failure().errorText}`));
  ctx.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
});
after(async () => {
  if (ctx) await ctx.close();
  if (server) server.close();
  rmSync(dir, { recursive: true, force: true });
});

// Opens the page and returns the tiles it shows: plane and archive
// coordinates and the bytes of each image.
async function shown(query) {
  const page = await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${base}/archive.html?${query}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 20000 });
  await page.waitForFunction(() => {
    const imgs = [...document.querySelectorAll('.archive-tiles img[data-archive]')];
    return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth === 256);
  }, null, { timeout: 20000 });
  const tiles = await page.evaluate(async () => Promise.all([...document.querySelectorAll('.archive-tiles img[data-archive]')].map(async (img) => {
    const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
    return { plane: img.dataset.plane, archive: img.dataset.archive, bytes: Array.from(bytes) };
  })));
  // the view reaches beyond the export: those places show nothing (an
  // image with no source would show a broken image's frame)
  const blank = await page.$$eval('.archive-tiles img:not([src])', (imgs) => imgs.map((i) => getComputedStyle(i).visibility));
  assert.ok(blank.length > 0, 'the view reaches beyond the export');
  assert.deepEqual(blank.filter((v) => v !== 'hidden'), []);
  await page.close();
  return tiles;
}

function checkTiles(tiles) {
  assert.ok(tiles.length >= 4, `only ${tiles.length} tiles shown`);
  for (const t of tiles) {
    const [pz, px, py] = t.plane.split('/').map(Number);
    const want = `${pz + meta.zoom_offset}/${px - meta.origin_tile[0] * 2 ** pz}/${py - meta.origin_tile[1] * 2 ** pz}`;
    assert.equal(t.archive, want, `plane tile ${t.plane}`);
    const file = readFileSync(path.join(dir, 'a-dir', `${t.archive}.png`));
    assert.ok(Buffer.from(t.bytes).equals(file), `archive tile ${t.archive} shows other bytes than the export`);
  }
}

test('archive.html shows a PMTiles export through range requests, each tile at its plane position, with no daemon', async () => {
  const n = requests.length;
  checkTiles(await shown('pmtiles=a.pmtiles'));
  const mine = requests.slice(n);
  const archive = mine.filter((r) => r.url.endsWith('/a.pmtiles'));
  assert.ok(archive.length >= 2 && archive.every((r) => /^bytes=\d+-\d+$/.test(r.range || '')), 'the archive is read with range requests');
  assert.deepEqual(mine.filter((r) => !r.url.startsWith(base) && !r.url.startsWith('blob:')), [], 'requests to elsewhere');
  assert.deepEqual(problems, []);
});

test('archive.html shows a directory export (z/x/y.png next to metadata.json)', async () => {
  const n = requests.length;
  checkTiles(await shown('dir=a-dir'));
  const mine = requests.slice(n).map((r) => new URL(r.url).pathname);
  assert.ok(mine.includes('/a-dir/metadata.json'));
  assert.ok(mine.filter((p) => /^\/a-dir\/\d+\/\d+\/\d+\.png$/.test(p)).length >= 4);
  assert.deepEqual(problems, []);
});
