// bench-export.mjs: `make bench-export`. Export throughput of the release
// build on JOBS render threads (default 2) for plane zoom 0-8 of a 6-octave
// terrain field over BBOX (default 0,0,8,8: 21847 tiles), to PMTiles,
// MBTiles and a directory, against the peer a user would otherwise use:
// seeding the same tiles through the daemon over HTTP (its tile cache off,
// JOBS worker threads, JOBS keep-alive connections), as mapproxy-seed or
// render_list do. Prints tiles/s, bytes per tile and each ratio to the HTTP
// seeding run of the same session.
// Environment: BUILD, JOBS, BBOX, ZOOM (0-8), FIELD.
import { spawn, execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, statSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(root, process.env.BUILD || 'build', 'noisetile');
const JOBS = Number(process.env.JOBS || 2);
const BBOX = process.env.BBOX || '0,0,8,8';
const ZOOM = process.env.ZOOM || '0-8';
const FIELD = process.env.FIELD || 'perlin/7?octaves=6&palette=terrain';
const dir = mkdtempSync(path.join(tmpdir(), 'noisetile-bench-export-'));

function run(args) {
  const t0 = process.hrtime.bigint();
  const r = execFileSync(BIN, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, stdout: r };
}

function dirBytes(p) {
  let n = 0;
  for (const e of readdirSync(p, { withFileTypes: true })) n += e.isDirectory() ? dirBytes(path.join(p, e.name)) : statSync(path.join(p, e.name)).size;
  return n;
}

// The plane tiles of the export, as the exporter covers the region.
function planeTiles() {
  const [x0, y0, x1, y1] = BBOX.split(',').map(Number);
  const [za, zb] = ZOOM.split('-').map(Number);
  const out = [];
  for (let z = za; z <= (zb ?? za); z++) {
    const n = 2 ** z / 16;
    const xa = Math.floor(x0 * n), xb = Math.max(xa, Math.ceil(x1 * n) - 1);
    const ya = Math.floor(y0 * n), yb = Math.max(ya, Math.ceil(y1 * n) - 1);
    for (let y = ya; y <= yb; y++) for (let x = xa; x <= xb; x++) out.push([z, x, y]);
  }
  return out;
}

async function httpSeed(tiles) {
  const child = spawn(BIN, ['--port', '0', '--cache-mb', '0', '--threads', String(JOBS)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = /:(\d+)\/\n/.exec(out); if (m) resolve(Number(m[1])); });
  });
  const [kindSeed, query] = FIELD.split('?');
  const agent = new http.Agent({ keepAlive: true, maxSockets: JOBS });
  let next = 0, bytes = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: JOBS }, async () => {
    while (next < tiles.length) {
      const [z, x, y] = tiles[next++];
      const got = await new Promise((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, agent, path: `/${kindSeed}/${z}/${x}/${y}.png${query ? '?' + query : ''}` }, (res) => {
          let n = 0;
          res.on('data', (c) => { n += c.length; });
          res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`status ${res.statusCode}`))));
        }).on('error', reject);
      });
      bytes += got;
    }
  }));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  agent.destroy();
  child.kill('SIGTERM');
  return { seconds, bytes };
}

try {
  const tiles = planeTiles();
  const n = tiles.length;
  console.log(`bench-export: ${FIELD}, plane zoom ${ZOOM}, bbox ${BBOX}: ${n} tiles, ${JOBS} threads; load average ${execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).trim()}`);
  const rows = [];
  const seed = await httpSeed(tiles);
  rows.push(['HTTP seeding (peer)', seed.seconds, seed.bytes]);
  for (const [name, out] of [['PMTiles', 'a.pmtiles'], ['MBTiles', 'a.mbtiles'], ['directory', 'a-dir']]) {
    const target = path.join(dir, out);
    const r = run(['export', FIELD, '--zoom', ZOOM, '--bbox', BBOX, '--jobs', String(JOBS), '-o', target]);
    rows.push([`export to ${name}`, r.seconds, name === 'directory' ? dirBytes(target) : statSync(target).size]);
    rmSync(target, { recursive: true, force: true });
  }
  console.log('| run | seconds | tiles/s | bytes/tile | tiles/s vs HTTP seeding |');
  console.log('|---|---|---|---|---|');
  for (const [name, s, bytes] of rows)
    console.log(`| ${name} | ${s.toFixed(1)} | ${(n / s).toFixed(0)} | ${(bytes / n).toFixed(0)} | ${(seed.seconds / s).toFixed(2)} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
