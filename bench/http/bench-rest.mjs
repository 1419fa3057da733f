// bench-rest.mjs: a 10,000-point POST /perlin/1/points (values and
// gradients) against two daemons in one run, alternating: the daemon's CPU
// per POST (/proc/PID/stat utime+stime over all requests of a daemon), the
// wall time per POST on loopback, and Node's JSON.parse of the request plus
// JSON.stringify of the answer, timed between the same rounds
// (make bench-rest; BENCHMARKS.md, "REST at the speed of JSON").
//
// Acceptance (issue 29, point 3): the new daemon's CPU per POST at most a
// third of the old one's; the whole POST no slower than Node's parse +
// stringify of the same texts.
//
// Environment: BUILD (build dir, default build); OLD (a daemon to compare
// with, e.g. a release build of an earlier commit; without it only the new
// one is measured); ROUNDS (default 20), PER (POSTs per daemon per round,
// default 5), POINTS (default 10000).
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.BUILD || 'build';
const NEW = path.join(root, BUILD, 'noisetile');
const OLD = process.env.OLD || '';
const ROUNDS = Number(process.env.ROUNDS || 20);
const PER = Number(process.env.PER || 5);
const POINTS = Number(process.env.POINTS || 10000);

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const cpuS = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

function request(agent, port, p, body) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: p, agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function start(bin) {
  const child = spawn(bin, ['--port', '0', '--threads', '1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => { out += d; const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out); if (m) resolve(Number(m[1])); });
    child.on('exit', () => reject(new Error(`${bin} exited`)));
  });
  return { bin, child, port, agent: new http.Agent({ keepAlive: true, maxSockets: 1 }), cpu: 0, n: 0, wall: [] };
}

async function main() {
  if (!existsSync(NEW)) throw new Error(`${NEW}: build it first (make ${BUILD}/noisetile)`);
  // points like a client's: full-precision coordinates over a wide window
  let s = 12345;
  const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const pts = [];
  for (let i = 0; i < POINTS; i++) pts.push([rnd() * 200 - 100, rnd() * 200 - 100]);
  const body = JSON.stringify({ points: pts });
  const url = '/perlin/1/points';
  const daemons = [];
  if (OLD) daemons.push(await start(OLD));
  daemons.push(await start(NEW));
  try {
    let answer = null;
    for (const d of daemons) {
      for (let k = 0; k < 3; k++) {
        const r = await request(d.agent, d.port, url, body);
        if (r.status !== 200) throw new Error(`${d.bin}: status ${r.status}`);
        if (answer && !answer.equals(r.body)) throw new Error('the two daemons answer different bytes');
        answer = r.body;
      }
    }
    // the answer as a Node server would hold it before JSON.stringify
    const ans = JSON.parse(answer.toString());
    const nodeOnly = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const d of daemons) {
        const c0 = cpuS(d.child.pid);
        for (let k = 0; k < PER; k++) {
          const r = await request(d.agent, d.port, url, body);
          if (r.status !== 200) throw new Error(`${d.bin}: status ${r.status}`);
          d.wall.push(r.ms);
        }
        d.cpu += cpuS(d.child.pid) - c0;
        d.n += PER;
      }
      // Node: what a JSON server in Node does with the same texts, between
      // the same rounds
      for (let k = 0; k < PER; k++) {
        const t0 = performance.now();
        const req = JSON.parse(body);
        const out = JSON.stringify(ans);
        nodeOnly.push(performance.now() - t0);
        if (req.points.length !== POINTS || out.length < answer.length / 2) throw new Error('node');
      }
    }
    console.log(`POST ${url}: ${POINTS} points, request ${body.length} B, answer ${answer.length} B; ${ROUNDS} rounds x ${PER} POSTs per daemon, alternating`);
    const rows = daemons.map((d) => ({ name: d === daemons[daemons.length - 1] ? 'new' : 'old', cpu: d.cpu * 1000 / d.n, wall: median(d.wall) }));
    for (const r of rows) console.log(`  ${r.name.padEnd(4)} daemon CPU ${r.cpu.toFixed(2)} ms/POST, wall ${r.wall.toFixed(2)} ms/POST (median)`);
    const nodeMs = median(nodeOnly);
    console.log(`  Node JSON.parse(request) + JSON.stringify(answer): ${nodeMs.toFixed(2)} ms (median)`);
    const nw = rows[rows.length - 1];
    if (rows.length === 2)
      console.log(`  new/old daemon CPU: ${(nw.cpu / rows[0].cpu).toFixed(3)} (target <= 0.333)`);
    else
      console.log('  (set OLD=path/to/an/earlier/noisetile for the same-run ratio)');
    console.log(`  new whole POST (wall) / Node parse+stringify: ${(nw.wall / nodeMs).toFixed(2)}; daemon CPU / Node: ${(nw.cpu / nodeMs).toFixed(2)} (target <= 1)`);
  } finally {
    for (const d of daemons) { d.agent.destroy(); d.child.kill(); }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
