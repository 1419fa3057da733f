// readme-screenshot.mjs: makes docs/viewer.png, the README's picture of the
// viewer: starts the daemon on a free port, opens the viewer in headless
// Chromium on a fixed view (Perlin fBm, terrain palette, hillshading, a
// selected point), waits until every tile has loaded, and saves the page.
// Usage: node scripts/readme-screenshot.mjs   (after `make`; NOISETILE_BIN,
// NOISETILE_STATIC (a --static folder) and CHROMIUM override the defaults).
import path from 'node:path';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.env.NOISETILE_BIN ||= path.join(ROOT, 'build', 'noisetile');
const { startDaemon } = await import('../tests/http/daemon.mjs');
const OUT = path.join(ROOT, 'docs', 'viewer.png');
const HASH = '#z=3&x=-5.1&y=2.9&kind=perlin&seed=7&octaves=5&palette=terrain&shade=1&px=-4.3&py=3.35';

const daemon = await startDaemon();
const profile = mkdtempSync(path.join(os.tmpdir(), 'noisetile-shot-'));
let ctx;
try {
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    viewport: { width: 1200, height: 720 }, timeout: 30000,
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  await page.goto(`${daemon.url}/${HASH}`, { timeout: 30000 });
  await page.waitForFunction(() => {
    const imgs = [...document.querySelectorAll('.noise-tiles img')];
    return document.body.dataset.ready === '1' && document.body.dataset.tiles === 'loaded' &&
      imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0);
  }, null, { timeout: 30000 });
  await page.mouse.move(760, 300); // the cursor read-out shows plane coordinates
  await page.waitForTimeout(800); // the point panel's /point answer and fades
  mkdirSync(path.dirname(OUT), { recursive: true });
  await page.screenshot({ path: OUT });
  console.log(`wrote ${path.relative(ROOT, OUT)}`);
} finally {
  if (ctx) await ctx.close();
  rmSync(profile, { recursive: true, force: true });
  await daemon.stop();
}
