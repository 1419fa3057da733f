// bench-grid.mjs: a 1025 x 1025 window of a 6-octave Perlin fBm fetched as
// one grid.npy against the same 1,050,625 samples through POST /points
// (JSON, batches of 10000), from the release daemon on loopback, in one run
// (make bench-grid-http). Also the daemon's CPU time per grid request
// against the bare noise_eval_grid fill of the same window (bench_grid's
// figure, thread CPU time, measured in the same run).
//
// Acceptance (issue 11): the grid at least 20x faster per sample end to
// end; its server time within 1.5x of the bare fill.
//
// Environment: BUILD (build dir, default build), REPS (grid fetches, 10).
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.BUILD || 'build';
const BIN = path.join(root, BUILD, 'noisetile');
const BENCH_GRID = path.join(root, BUILD, 'bench', 'bench_grid');
const REPS = Number(process.env.REPS || 10);
const SIDE = 1025, X0 = -8, STEP = 16 / 1024; // bench_grid's window
const FIELD = 'octaves=6';

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const cpuS = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function request(port, method, p, body) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request({ host: '127.0.0.1', port, method, path: p, agent,
      headers: body ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } : {} }, (res) => {
      let n = 0;
      const chunks = [];
      res.on('data', (c) => { n += c.length; if (method === 'POST') chunks.push(c); });
      res.on('end', () => resolve({ status: res.statusCode, bytes: n, ms: performance.now() - t0, body: method === 'POST' ? Buffer.concat(chunks) : null }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const child = spawn(BIN, ['--port', '0', '--threads', '2'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out); if (m) resolve(Number(m[1])); });
    child.on('exit', () => reject(new Error('daemon exited')));
  });
  try {
    const grid = `/perlin/1/grid.npy?x=${X0}&y=${X0}&step=${STEP}&width=${SIDE}&height=${SIDE}&${FIELD}`;
    // the grid: wall time per fetch, and the daemon's CPU time over all fetches
    await request(port, 'GET', grid); // warm
    const wall = [];
    const c0 = cpuS(child.pid);
    for (let k = 0; k < REPS; k++) {
      const r = await request(port, 'GET', grid);
      if (r.status !== 200 || r.bytes !== 128 + 4 * SIDE * SIDE) throw new Error(`grid: ${r.status} ${r.bytes}`);
      wall.push(r.ms);
    }
    const gridCpuMs = (cpuS(child.pid) - c0) * 1000 / REPS;
    const gridMs = median(wall);

    // the same samples through POST /points, 10000 a batch
    const pts = [];
    for (let j = 0; j < SIDE; j++) for (let i = 0; i < SIDE; i++) pts.push([X0 + i * STEP, X0 + j * STEP]);
    const bodies = [];
    for (let k = 0; k < pts.length; k += 10000) bodies.push(JSON.stringify({ points: pts.slice(k, k + 10000) }));
    const t0 = performance.now();
    let jsonBytes = 0, n = 0;
    for (const b of bodies) {
      const r = await request(port, 'POST', `/perlin/1/points?${FIELD}`, b);
      if (r.status !== 200) throw new Error(`points: ${r.status}`);
      jsonBytes += r.bytes;
      n += JSON.parse(r.body).values.length; // a client parses what it fetched
    }
    const pointsMs = performance.now() - t0;
    if (n !== SIDE * SIDE) throw new Error(`points: ${n} values`);

    // the bare fill of the same window (bench_grid, thread CPU time)
    const fillOut = execFileSync(BENCH_GRID, ['--side', String(SIDE), '--reps', '5'], { encoding: 'utf8' });
    const fillMs = Number(/noise_eval_grid fill\s+([\d.]+)/.exec(fillOut)[1]);

    const perSample = (ms) => (ms * 1e6 / (SIDE * SIDE)).toFixed(1);
    const lines = [
      `grid ${SIDE} x ${SIDE}, perlin fbm 6 octaves, release daemon --threads 2, loopback, one connection`,
      `grid.npy: ${gridMs.toFixed(1)} ms wall (median of ${REPS}), ${perSample(gridMs)} ns/sample, ${(4 * SIDE * SIDE / 1e6).toFixed(1)} MB`,
      `POST /points: ${pointsMs.toFixed(0)} ms wall for ${bodies.length} batches (sending, answering, JSON.parse), ${perSample(pointsMs)} ns/sample, ${(jsonBytes / 1e6).toFixed(1)} MB of JSON`,
      `end to end per sample: grid ${(pointsMs / gridMs).toFixed(1)}x faster than /points (acceptance: >= 20x)`,
      `daemon CPU per grid request ${gridCpuMs.toFixed(1)} ms; bare noise_eval_grid fill ${fillMs.toFixed(1)} ms (thread CPU); ratio ${(gridCpuMs / fillMs).toFixed(2)} (acceptance: <= 1.5)`,
    ];
    console.log(lines.join('\n'));
    const ok = pointsMs / gridMs >= 20 && gridCpuMs / fillMs <= 1.5;
    console.log(ok ? 'bench-grid-http: both acceptance ratios hold' : 'bench-grid-http: an acceptance ratio does NOT hold');
  } finally {
    child.kill('SIGTERM');
    agent.destroy();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
