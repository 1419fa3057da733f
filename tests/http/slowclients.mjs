// slowclients.mjs: idle and slow-loris clients against the daemon, and a
// normal client fetching tiles in the middle of them (make slowtest, and
// slowclients.test.mjs in make test).
//
// The attack is sized from the limits the daemon prints at start-up
// (fdlimits.h): more connections than it allows (at least 1100), spread over
// enough loopback addresses that the per-address limit never refuses one, so
// that every slot the daemon has is held by an idle or slow client whatever
// its descriptor limit (1024 or 20000). IDLE connections never send a byte;
// SLOW ones send a request line and then one header byte every
// SLOW_INTERVAL_MS, never finishing; they are held by child processes of
// 500 connections each (slowclients-worker.mjs), as one process may have a
// limit of 1024 descriptors itself. While they are open, a normal client
// from another address fetches a cached and a fresh tile on new connections
// every 500 ms and records each latency. Then it waits until the daemon has
// closed every idle and slow connection (shed for newer ones, or at its
// request deadline), up to waitCloseMs.
//
// Run directly: node tests/http/slowclients.mjs (NOISETILE_BIN picks the
// binary, default the sanitizer build; SLOWTEST_NOFILE=1024 runs it under
// that descriptor limit); prints the figures as JSON and exits 1 if a check
// fails.
import http from 'node:http';
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon } from './daemon.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const NORMAL_ADDRESS = '127.0.0.2';
const ATTACK_NET = '127.0.1.';   // 127.0.1.1, .2, ...: the attack's addresses
const DEADLINE_S = 10;           // LIMIT_REQUEST_DEADLINE_S

// The line the daemon prints before it listens, e.g. "noisetile: open-file
// limit 1024 (hard 1024): 912 connections (...), 684 per address; beyond 896
// open the oldest idle one is closed for each new one".
export function parseLimits(stdout) {
  const m = /open-file limit (\d+) \(hard (\w+)\): (\d+) connections .*?, (\d+) per address; beyond (\d+) open/.exec(stdout);
  if (!m) throw new Error(`no limits line in the daemon's output:\n${stdout}`);
  return { nofile: Number(m[1]), hard: m[2], connections: Number(m[3]), perAddress: Number(m[4]), shedAbove: Number(m[5]) };
}

// The attack for these limits: every slot, and an eighth more, at least 1100.
export function attackSize(limits) {
  const total = Math.max(1100, limits.connections + Math.ceil(limits.connections / 8));
  const slow = Math.round(total / 11);
  const addresses = Math.ceil(total / Math.floor(limits.perAddress * 0.9)) + 1;
  return { idle: total - slow, slow, addresses };
}

// One GET on a fresh connection from the normal client's address; resolves
// { status, bytes, ms }.
function fetchOnce(port, path, timeoutMs) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = http.get({ host: '127.0.0.1', port, path, agent: false, localAddress: NORMAL_ADDRESS }, (res) => {
      let bytes = 0;
      res.on('data', (c) => { bytes += c.length; });
      res.on('end', () => resolve({ path, status: res.statusCode, bytes, ms: performance.now() - t0 }));
      res.on('error', (e) => resolve({ path, status: 0, error: e.message, ms: performance.now() - t0 }));
    });
    req.on('error', (e) => resolve({ path, status: 0, error: e.message, ms: performance.now() - t0 }));
    req.setTimeout(timeoutMs, () => req.destroy(new Error('client timeout')));
  });
}

// One attack process (slowclients-worker.mjs) and a way to ask it things.
function worker() {
  const child = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'slowclients-worker.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = [];
  child.on('message', (m) => { const w = waiting.shift(); if (w) w(m); });
  child.on('exit', () => { for (const w of waiting.splice(0)) w({ cmd: 'exited' }); });
  return { child, ask: (m) => new Promise((resolve) => { waiting.push(resolve); child.send(m); }) };
}
const PER_WORKER = 500;   // connections per attack process: well below a limit of 1024

export async function slowClients(port, limits, {
  slowIntervalMs = 2000, attackMs = 6000, waitCloseMs = 25000,
} = {}) {
  const { idle, slow, addresses } = attackSize(limits);
  const plan = Array.from({ length: idle + slow }, (_, i) => ({ kind: i < idle ? 'idle' : 'slow', address: `${ATTACK_NET}${1 + (i % addresses)}` }));
  const workers = Array.from({ length: Math.ceil(plan.length / PER_WORKER) }, worker);
  try {
    const t0 = performance.now();
    const share = (w) => plan.slice(w * PER_WORKER, (w + 1) * PER_WORKER);
    await Promise.all(workers.map((w, i) => w.ask({ cmd: 'open', port, conns: share(i) })));
    const openedMs = performance.now() - t0;
    await Promise.all(workers.map((w) => w.ask({ cmd: 'slow', intervalMs: slowIntervalMs })));
    const count = async () => (await Promise.all(workers.map((w) => w.ask({ cmd: 'count' })))).reduce((n, m) => n + m.open, 0);

    // The normal client, while the attack holds every slot.
    const openAtStart = await count();
    const fetches = [];
    let fresh = 0;
    const tAttack = performance.now();
    while (performance.now() - tAttack < attackMs) {
      fetches.push(await fetchOnce(port, '/perlin/7/3/1/2.png', 5000));
      fetches.push(await fetchOnce(port, `/perlin/7/6/${1000 + fresh++}/3.png`, 5000));
      await sleep(500);
    }
    const openAtEnd = await count();
    const records = (await Promise.all(workers.map((w) => w.ask({ cmd: 'wait', ms: waitCloseMs })))).flatMap((m) => m.records || []);
    const lifetimes = (kind) => records.filter((c) => c.kind === kind && c.lifetimeS !== null).map((c) => c.lifetimeS);
    const stats = (xs) => xs.length === 0 ? null : { min: Math.min(...xs), max: Math.max(...xs) };
    // After the attack: the daemon still serves.
    const after = await fetchOnce(port, '/perlin/7/3/1/2.png', 5000);
    return {
      limits, idle, slow, addresses, processes: workers.length, openedMs: Math.round(openedMs),
      // closed before the request deadline: shed for newer connections, or refused
      closedEarly: records.filter((c) => c.lifetimeS !== null && c.lifetimeS < DEADLINE_S - 0.5).length,
      openAtStart,
      openAfterAttack: openAtEnd,
      stillOpenAfterWait: records.length === plan.length ? records.filter((c) => c.lifetimeS === null).length : plan.length,
      idleLifetimeS: stats(lifetimes('idle')),
      slowLifetimeS: stats(lifetimes('slow')),
      fetches: fetches.length,
      fetchStatuses: [...new Set(fetches.map((f) => f.status))],
      fetchMaxMs: Math.max(...fetches.map((f) => f.ms)),
      fetchMedianMs: fetches.map((f) => f.ms).sort((a, b) => a - b)[Math.floor(fetches.length / 2)],
      afterStatus: after.status,
    };
  } finally {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill();
  }
}

// The checks shared by make slowtest and the node test; returns a list of
// failures (empty when all hold). stderr: the daemon's, for its shedding
// lines.
export function checkSlowClients(r, stderr = '') {
  const fails = [];
  const total = r.idle + r.slow;
  const excess = Math.max(0, total - r.limits.shedAbove);
  if (r.fetchStatuses.length !== 1 || r.fetchStatuses[0] !== 200) fails.push(`normal client statuses ${r.fetchStatuses}`);
  if (!(r.fetchMaxMs < 1000)) fails.push(`slowest normal fetch ${r.fetchMaxMs.toFixed(0)} ms (limit 1000)`);
  if (total <= r.limits.connections) fails.push(`attack of ${total} does not exceed the ${r.limits.connections} connections the daemon allows`);
  // The daemon held every slot it has: it closed early (shed) only the
  // connections beyond shedAbove, one more for each normal connection,
  // none for the per-address limit.
  if (r.closedEarly > excess + r.fetches + 1) fails.push(`${r.closedEarly} idle/slow connections closed before the deadline; only the ${excess} beyond ${r.limits.shedAbove} and one per normal fetch (${r.fetches}) may be`);
  if (r.openAtStart < Math.min(total, r.limits.shedAbove)) fails.push(`only ${r.openAtStart} attack connections open when the normal client started (the daemon holds ${r.limits.shedAbove})`);
  if (excess > 0 && !/closed the \d+ oldest idle one\(s\) to accept new ones/.test(stderr)) fails.push('the daemon did not report shedding');
  if (r.stillOpenAfterWait !== 0) fails.push(`${r.stillOpenAfterWait} idle/slow connections never closed by the daemon`);
  if (r.afterStatus !== 200) fails.push(`status ${r.afterStatus} after the attack`);
  return fails;
}

// Starts a daemon (under `prlimit --nofile=N:N` when nofile is given) and
// runs the attack against it. Returns { r, fails }.
export async function runSlowClients({ nofile, args = [] } = {}) {
  const d = await startDaemon({ staticDir: null, args, nofile });
  let r, stderr;
  try {
    const limits = parseLimits(d.stdout());
    if (nofile) {
      // Under valgrind (make valgrind) the tool keeps a few descriptors of
      // the limit for itself: 1012 of 1024 measured.
      const reserve = process.env.NOISETILE_VALGRIND_OPTS ? 16 : 0;
      if (limits.nofile > nofile || limits.nofile < nofile - reserve)
        throw new Error(`daemon reports open-file limit ${limits.nofile}, not ${nofile}`);
    }
    const t0 = performance.now();
    r = await slowClients(d.port, limits);
    r.totalS = Number(((performance.now() - t0) / 1000).toFixed(1));
  } finally {
    stderr = d.stderr();
    await d.stop();
  }
  return { r, fails: checkSlowClients(r, stderr) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const extra = (process.env.SLOWTEST_ARGS || '').split(' ').filter(Boolean);
  const nofile = process.env.SLOWTEST_NOFILE ? Number(process.env.SLOWTEST_NOFILE) : undefined;
  const { r, fails } = await runSlowClients({ nofile, args: extra });
  r.binary = process.env.NOISETILE_BIN || 'build/asan/noisetile';
  console.log(JSON.stringify(r, (k, v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(2)) : v), 2));
  for (const f of fails) console.log(`FAIL: ${f}`);
  console.log(fails.length === 0 ? 'slowtest: PASS' : 'slowtest: FAIL');
  process.exit(fails.length === 0 ? 0 : 1);
}
