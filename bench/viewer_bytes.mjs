// viewer_bytes.mjs: the tile requests and bytes of the viewer's first view
// (and of a zoomed-out view) in headless Chromium: what the page fetched
// (WebP where the browser has it) and what the same tiles weigh as PNG
// (the page before WebP). BENCHMARKS.md, "Viewer: tile bytes".
// Usage: NOISETILE_BIN=build/noisetile node bench/viewer_bytes.mjs
import { chromium } from 'playwright-core';
import { startDaemon } from '../tests/http/daemon.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const d = await startDaemon();
const b = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
const views = [
  ['desktop 1280 x 800, 1x', { width: 1280, height: 800 }, 1, ''],
  ['desktop 1280 x 800, 2x', { width: 1280, height: 800 }, 2, ''],
  ['phone 390 x 844, 3x', { width: 390, height: 844 }, 3, ''],
  ['zoomed out (z = -2), 1280 x 800, 1x', { width: 1280, height: 800 }, 1, '#z=-2&x=0&y=0'],
];
try {
  for (const [name, viewport, deviceScaleFactor, hash] of views) {
    const ctx = await b.newContext({ viewport, deviceScaleFactor });
    const p = await ctx.newPage();
    const tiles = [];
    p.on('response', async (r) => {
      if (!/\/-?\d+\/-?\d+\/-?\d+(@2x)?\.(webp|png)(\?|$)/.test(r.url())) return;
      try { tiles.push({ url: r.url(), n: (await r.body()).length }); } catch { /* dropped by Leaflet */ }
    });
    await p.goto(`${d.url}/${hash}`, { timeout: 120000 });
    await p.waitForFunction(() => document.body.dataset.tiles === 'loaded', null, { timeout: 120000 });
    await p.waitForTimeout(2000);
    let got = 0, png = 0;
    for (const t of tiles) {
      got += t.n;
      png += (await (await fetch(t.url.replace('.webp', '.png'))).arrayBuffer()).byteLength;
    }
    const fmt = tiles.length && tiles[0].url.includes('.webp') ? 'WebP' : 'PNG';
    console.log(`${name}: ${tiles.length} tile requests, ${(got / 1e6).toFixed(2)} MB as fetched (${fmt}), ${(png / 1e6).toFixed(2)} MB as PNG`);
    await ctx.close();
  }
} finally {
  await b.close();
  await d.stop();
}
