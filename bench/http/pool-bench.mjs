// pool-bench.mjs: the render pool's benchmarks (make bench-http runs them;
// BENCHMARKS.md, "Render pool"). Each run starts the daemon BIN on a free
// loopback port and drives it with keep-alive clients from this process:
//
//   isolation  64 connections keep the renderers busy with distinct
//              expensive tiles (@2x, 8 octaves, shaded) while 16 more fetch
//              cached tiles and /healthz: latency of those, render tiles/s.
//   fairness   127.0.0.3 fetches distinct cheap uncached tiles over 8
//              connections, alone and then while 127.0.0.2 floods expensive
//              renders over 64: its p99 and its throughput with / alone.
//   overload   160 connections ask for tiles of 25M work units each (10x the
//              queue's bound of 2 x 200M); a 503 is retried after 100 ms:
//              time to the 503s, requests without a status line, peak RSS,
//              and every request in flight at the end completes.
//   batches    16 concurrent POST /points of 1 MiB, three rounds: RSS before,
//              at peak, and 1 s and 3 s after.
//
// Usage: node pool-bench.mjs BIN [RUN,...] (default: all runs). Prints one
// JSON object per run on stdout, a readable line per figure on stderr.
// Timing figures only mean something as ratios between binaries measured in
// the same minute on the same machine.
import { spawn, execFileSync } from 'node:child_process';
import http from 'node:http';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const BIN = process.argv[2];
const RUNS = (process.argv[3] || 'isolation,fairness,overload,batches').split(',');
const SECONDS = Number(process.env.POOL_BENCH_SECONDS || 15);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error(...a);

const help = execFileSync(BIN, ['--help']).toString();
const hasAccessLog = help.includes('--access-log');

async function startDaemon(extra = []) {
  const dir = mkdtempSync(path.join(tmpdir(), 'noisetile-poolbench-'));
  // The access log goes to a file, as it would in production.
  const args = ['--port', '0', '--cache-mb', '256', ...(hasAccessLog ? ['--access-log', path.join(dir, 'access.log')] : []), ...extra];
  const child = spawn(BIN, args, { stdio: ['ignore', 'pipe', hasAccessLog ? 'ignore' : 'pipe'] });
  if (!hasAccessLog) child.stderr.resume(); // its log lines, read and dropped
  let out = '';
  const port = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('daemon did not start')), 10000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) { clearTimeout(t); resolve(Number(m[1])); }
    });
  });
  const exited = new Promise((r) => child.on('close', (code, signal) => r({ code, signal })));
  // A daemon that does not exit within 30 s of SIGTERM is killed, and the
  // run fails: the benchmark never waits without a bound.
  async function stop() {
    child.kill('SIGTERM');
    let timer;
    const late = new Promise((r) => { timer = setTimeout(() => r(null), 30000); });
    const res = await Promise.race([exited, late]);
    clearTimeout(timer);
    if (res === null) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`${BIN} did not exit within 30 s of SIGTERM`);
    }
    return res;
  }
  return { child, port, exited, stop };
}

// CPU seconds (user + system) the process has used so far.
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (100/s)
}

function rssKb(pid, field = 'VmRSS') {
  const m = new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

// One request; resolves { status, ms, bytes, error }.
function request(agent, port, method, p, body) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const rec = { status: 0, ms: 0, bytes: 0, error: null };
    const req = http.request({ host: '127.0.0.1', port, method, path: p, agent,
      headers: body ? { 'Content-Type': 'application/json', 'Content-Length': body.length } : {} }, (res) => {
      rec.status = res.statusCode;
      res.on('data', (c) => { rec.bytes += c.length; });
      res.on('end', () => { rec.ms = performance.now() - t0; if (!res.complete) rec.error = 'incomplete'; resolve(rec); });
      res.on('error', (e) => { rec.error = e.code || e.message; rec.ms = performance.now() - t0; resolve(rec); });
    });
    req.on('error', (e) => { rec.error = e.code || e.message; rec.ms = performance.now() - t0; resolve(rec); });
    req.setTimeout(120000, () => req.destroy(new Error('client timeout')));
    req.end(body);
  });
}

// conns loops, each sending nextPath() until stopAt; a record per response
// (those that end after windowStart) goes to sink. on503: ms to wait.
function drive({ port, conns, localAddress, nextPath, stopAt, sink, windowStart = 0, on503 = 0 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: conns, localAddress });
  const loops = Array.from({ length: conns }, async () => {
    while (performance.now() < stopAt) {
      const p = nextPath();
      const r = await request(agent, port, 'GET', p);
      r.path = p;
      r.end = performance.now();
      r.inWindow = r.end >= windowStart && r.end <= stopAt;
      if (r.end >= windowStart) sink.push(r);
      if (r.status === 503 && on503 > 0) await sleep(on503);
    }
  });
  return Promise.all(loops).then(() => agent.destroy());
}

function pct(values, q) {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
const r2 = (v) => (v === null ? null : Math.round(v * 100) / 100);
function lat(recs) {
  const ms = recs.map((r) => r.ms);
  return { n: recs.length, p50: r2(pct(ms, 0.5)), p99: r2(pct(ms, 0.99)), max: r2(pct(ms, 1)) };
}
const errors = (recs) => recs.filter((r) => r.error !== null || r.status === 0).length;

let uniq = 0;
const expensivePath = () => { const k = uniq++; return `/simplex/${k % 100000}/6/${k % 61}/${(k / 61) | 0}@2x.png?octaves=8&shade=1`; };
const cheapPath = () => { const k = uniq++; return `/perlin/${1000 + (k % 100000)}/10/${k % 97}/${(k / 97) | 0}.png`; };
const costlyPath = () => { const k = uniq++; return `/simplex/${k % 100000}/5/${k % 31}/${(k / 31) | 0}@2x.png?octaves=16&warp=0.5&shade=1`; };

async function isolation() {
  const d = await startDaemon();
  const cached = Array.from({ length: 8 }, (_, i) => `/perlin/7/4/${i}/0.png`);
  const warmAgent = new http.Agent({ keepAlive: true });
  for (const p of cached) await request(warmAgent, d.port, 'GET', p);
  warmAgent.destroy();
  const t0 = performance.now();
  const windowStart = t0 + 3000, stopAt = windowStart + SECONDS * 1000;
  const renders = [], hits = [], health = [];
  let k = 0;
  const quick = [];
  let cpu0 = 0, cpu1 = 0;
  setTimeout(() => { cpu0 = cpuSeconds(d.child.pid); }, windowStart - performance.now());
  setTimeout(() => { cpu1 = cpuSeconds(d.child.pid); }, stopAt - performance.now());
  const jobs = [
    drive({ port: d.port, conns: 64, nextPath: expensivePath, stopAt, sink: renders, windowStart }),
    drive({ port: d.port, conns: 16, nextPath: () => { const i = k++; return i % 2 ? '/healthz' : cached[(i >> 1) % 8]; }, stopAt, sink: quick, windowStart }),
  ];
  await Promise.all(jobs);
  await d.stop();
  for (const r of quick) (r.path === '/healthz' ? health : hits).push(r);
  const inWindow = renders.filter((r) => r.status === 200 && r.inWindow).length;
  const res = {
    run: 'isolation', seconds: SECONDS,
    cached: lat(hits.filter((r) => r.inWindow)), healthz: lat(health.filter((r) => r.inWindow)),
    render_tiles_per_s: r2(inWindow / SECONDS), daemon_cpu_s: r2(cpu1 - cpu0),
    render_tiles_per_cpu_s: r2(inWindow / Math.max(cpu1 - cpu0, 0.01)), render_latency: lat(renders.filter((r) => r.inWindow)),
    errors: errors(renders) + errors(quick), non200: [...renders, ...quick].filter((r) => r.status !== 200).length,
  };
  log(`isolation: cached p50 ${res.cached.p50} ms p99 ${res.cached.p99} ms; healthz p99 ${res.healthz.p99} ms; renders ${res.render_tiles_per_s} tiles/s (${res.render_tiles_per_cpu_s} per CPU-second of the daemon, ${res.daemon_cpu_s} CPU-s in ${SECONDS} s); errors ${res.errors}`);
  return res;
}

async function fairness() {
  const d = await startDaemon();
  // 127.0.0.3 alone.
  let stopAt = performance.now() + 10000;
  const alone = [];
  await drive({ port: d.port, conns: 8, localAddress: '127.0.0.3', nextPath: cheapPath, stopAt, sink: alone });
  const aloneRate = alone.filter((r) => r.status === 200).length / 10;
  // With the flood from 127.0.0.2.
  const t0 = performance.now();
  const windowStart = t0 + 3000;
  stopAt = windowStart + SECONDS * 1000;
  const flood = [], cheap = [];
  await Promise.all([
    drive({ port: d.port, conns: 64, localAddress: '127.0.0.2', nextPath: expensivePath, stopAt, sink: flood, windowStart }),
    drive({ port: d.port, conns: 8, localAddress: '127.0.0.3', nextPath: cheapPath, stopAt, sink: cheap, windowStart }),
  ]);
  await d.stop();
  const withRate = cheap.filter((r) => r.status === 200 && r.inWindow).length / SECONDS;
  const res = {
    run: 'fairness', seconds: SECONDS,
    cheap_alone: { ...lat(alone), per_s: r2(aloneRate) },
    cheap_with_flood: { ...lat(cheap.filter((r) => r.inWindow)), per_s: r2(withRate), non200: cheap.filter((r) => r.status !== 200).length },
    throughput_ratio: r2(withRate / aloneRate),
    flood: { ...lat(flood.filter((r) => r.inWindow)), per_s: r2(flood.filter((r) => r.status === 200 && r.inWindow).length / SECONDS), non200: flood.filter((r) => r.status !== 200).length },
    errors: errors(alone) + errors(cheap) + errors(flood),
  };
  log(`fairness: 127.0.0.3 alone ${res.cheap_alone.per_s}/s p99 ${res.cheap_alone.p99} ms; with the flood ${res.cheap_with_flood.per_s}/s p99 ${res.cheap_with_flood.p99} ms (ratio ${res.throughput_ratio}); flood ${res.flood.per_s}/s`);
  return res;
}

async function overload() {
  const d = await startDaemon();
  const rssBefore = rssKb(d.child.pid);
  let peak = rssBefore;
  const sampler = setInterval(() => { try { peak = Math.max(peak, rssKb(d.child.pid)); } catch { /* gone */ } }, 100);
  const stopAt = performance.now() + SECONDS * 1000;
  const recs = [];
  // Stops issuing at stopAt, then waits for everything in flight.
  await drive({ port: d.port, conns: 160, nextPath: costlyPath, stopAt, sink: recs, on503: 100 });
  clearInterval(sampler);
  const hwm = rssKb(d.child.pid, 'VmHWM');
  await d.stop();
  const refused = recs.filter((r) => r.status === 503);
  const ok = recs.filter((r) => r.status === 200);
  const res = {
    run: 'overload', seconds: SECONDS, connections: 160,
    requests: recs.length, ok: lat(ok), refused_503: lat(refused),
    without_status_line: recs.filter((r) => r.status === 0).length,
    other_status: recs.filter((r) => r.status !== 0 && r.status !== 200 && r.status !== 503).length,
    incomplete: recs.filter((r) => r.error !== null).length,
    rss_before_mb: r2(rssBefore / 1024), rss_peak_mb: r2(peak / 1024), vmhwm_mb: r2(hwm / 1024),
  };
  log(`overload: ${res.requests} requests, ${ok.length} x 200 (p50 ${res.ok.p50} ms), ${refused.length} x 503 (p50 ${res.refused_503.p50} ms, p99 ${res.refused_503.p99} ms); without status line ${res.without_status_line}; peak RSS ${res.rss_peak_mb} MiB (VmHWM ${res.vmhwm_mb})`);
  return res;
}

async function batches() {
  const d = await startDaemon();
  const pts = Array.from({ length: 10000 }, (_, i) => `[${(i * 0.37).toFixed(6)},${(-i * 0.11).toFixed(6)}]`);
  let json = `{"points":[${pts.join(',')}]}`;
  json += ' '.repeat(1024 * 1024 - json.length);
  const body = Buffer.from(json);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  await request(agent, d.port, 'GET', '/healthz');
  await sleep(500);
  const before = rssKb(d.child.pid);
  let peak = before;
  const sampler = setInterval(() => { try { peak = Math.max(peak, rssKb(d.child.pid)); } catch { /* gone */ } }, 20);
  const statuses = [];
  for (let round = 0; round < 3; round++) {
    const rs = await Promise.all(Array.from({ length: 16 }, () => request(agent, d.port, 'POST', '/perlin/7/points?octaves=4', body)));
    statuses.push(...rs.map((r) => r.status));
  }
  clearInterval(sampler);
  agent.destroy();
  await sleep(1000);
  const after1 = rssKb(d.child.pid);
  await sleep(2000);
  const after3 = rssKb(d.child.pid);
  await d.stop();
  const res = {
    run: 'batches', statuses: Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length])),
    rss_before_mb: r2(before / 1024), rss_peak_mb: r2(peak / 1024), rss_after_1s_mb: r2(after1 / 1024), rss_after_3s_mb: r2(after3 / 1024),
  };
  log(`batches: statuses ${JSON.stringify(res.statuses)}; RSS ${res.rss_before_mb} -> peak ${res.rss_peak_mb} -> ${res.rss_after_1s_mb} (1 s) -> ${res.rss_after_3s_mb} MiB (3 s)`);
  return res;
}

const all = { isolation, fairness, overload, batches };
log(`pool-bench: ${BIN} (${hasAccessLog ? 'access log to a file' : 'access log to stderr, read and dropped'}), ${SECONDS} s per measured run`);
for (const name of RUNS) {
  const res = await all[name]();
  res.bin = BIN;
  console.log(JSON.stringify(res));
}
