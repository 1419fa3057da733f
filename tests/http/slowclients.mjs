// slowclients.mjs: idle and slow-loris clients against the daemon, and a
// normal client fetching tiles in the middle of them (make slowtest, and
// slowclients.test.mjs in make test).
//
// Opens IDLE connections that never send a byte and SLOW connections that
// send a request line and then one header byte every SLOW_INTERVAL_MS,
// never finishing. While they are open, a normal client fetches a cached
// and a fresh tile on new connections every 500 ms and records each
// latency. Then it waits until the daemon has closed every idle and slow
// connection (its request deadline), up to waitCloseMs.
//
// Run directly: node tests/http/slowclients.mjs (NOISETILE_BIN picks the
// binary, default the sanitizer build); prints the figures as JSON and exits
// 1 if a check fails.
import net from 'node:net';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { startDaemon } from './daemon.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// One GET on a fresh connection; resolves { status, bytes, ms }.
function fetchOnce(port, path, timeoutMs) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (c) => { bytes += c.length; });
      res.on('end', () => resolve({ path, status: res.statusCode, bytes, ms: performance.now() - t0 }));
      res.on('error', (e) => resolve({ path, status: 0, error: e.message, ms: performance.now() - t0 }));
    });
    req.on('error', (e) => resolve({ path, status: 0, error: e.message, ms: performance.now() - t0 }));
    req.setTimeout(timeoutMs, () => req.destroy(new Error('client timeout')));
  });
}

// Opens one connection; resolves the record once connected (or failed).
function open(port, kind) {
  return new Promise((resolve) => {
    const rec = { kind, opened: 0, closedAt: null, error: null, sock: null };
    const s = net.connect({ host: '127.0.0.1', port });
    rec.sock = s;
    s.on('connect', () => { rec.opened = performance.now(); resolve(rec); });
    s.on('data', () => {});
    s.on('error', (e) => { rec.error = rec.error || e.code || e.message; });
    s.on('close', () => {
      if (rec.closedAt === null) rec.closedAt = performance.now();
      resolve(rec);
    });
  });
}

async function openMany(port, kind, n, batch = 100) {
  const out = [];
  for (let i = 0; i < n; i += batch) {
    const part = await Promise.all(Array.from({ length: Math.min(batch, n - i) }, () => open(port, kind)));
    out.push(...part);
  }
  return out;
}

export async function slowClients(port, {
  idle = 1000, slow = 100, slowIntervalMs = 2000, attackMs = 6000, waitCloseMs = 20000,
} = {}) {
  const t0 = performance.now();
  const idleConns = await openMany(port, 'idle', idle);
  const slowConns = await openMany(port, 'slow', slow);
  const openedMs = performance.now() - t0;
  // Slow-loris: a request line, then a header byte now and then, never the
  // blank line that ends the headers.
  for (const c of slowConns) if (c.closedAt === null) c.sock.write('GET /perlin/7/3/1/2.png HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  const drip = setInterval(() => {
    for (const c of slowConns) if (c.closedAt === null && !c.sock.destroyed) c.sock.write('a');
  }, slowIntervalMs);

  // The normal client, while the attack holds its connections.
  const fetches = [];
  let fresh = 0;
  const tAttack = performance.now();
  while (performance.now() - tAttack < attackMs) {
    fetches.push(await fetchOnce(port, '/perlin/7/3/1/2.png', 5000));
    fetches.push(await fetchOnce(port, `/perlin/7/6/${1000 + fresh++}/3.png`, 5000));
    await sleep(500);
  }
  const all = [...idleConns, ...slowConns];
  const openAtEnd = all.filter((c) => c.closedAt === null).length;
  const tWait = performance.now();
  while (all.some((c) => c.closedAt === null) && performance.now() - tWait < waitCloseMs) await sleep(100);
  clearInterval(drip);
  const stillOpen = all.filter((c) => c.closedAt === null).length;
  for (const c of all) c.sock.destroy();

  const lifetimes = (list) => list.filter((c) => c.closedAt !== null).map((c) => (c.closedAt - c.opened) / 1000);
  const stats = (xs) => xs.length === 0 ? null : {
    min: Math.min(...xs), max: Math.max(...xs),
  };
  // After the attack: the daemon still serves.
  const after = await fetchOnce(port, '/perlin/7/3/1/2.png', 5000);
  return {
    idle, slow, openedMs: Math.round(openedMs),
    refusedAtOnce: all.filter((c) => c.closedAt !== null && c.closedAt - c.opened < 1000).length,
    openAfterAttack: openAtEnd,
    stillOpenAfterWait: stillOpen,
    idleLifetimeS: stats(lifetimes(idleConns)),
    slowLifetimeS: stats(lifetimes(slowConns)),
    fetches: fetches.length,
    fetchStatuses: [...new Set(fetches.map((f) => f.status))],
    fetchMaxMs: Math.max(...fetches.map((f) => f.ms)),
    fetchMedianMs: fetches.map((f) => f.ms).sort((a, b) => a - b)[Math.floor(fetches.length / 2)],
    afterStatus: after.status,
  };
}

// The checks shared by make slowtest and the node test; returns a list of
// failures (empty when all hold).
export function checkSlowClients(r) {
  const fails = [];
  if (r.fetchStatuses.length !== 1 || r.fetchStatuses[0] !== 200) fails.push(`normal client statuses ${r.fetchStatuses}`);
  if (!(r.fetchMaxMs < 1000)) fails.push(`slowest normal fetch ${r.fetchMaxMs.toFixed(0)} ms (limit 1000)`);
  if (r.refusedAtOnce !== 0) fails.push(`${r.refusedAtOnce} idle/slow connections refused at once (limits too low)`);
  if (r.openAfterAttack !== r.idle + r.slow) fails.push(`only ${r.openAfterAttack} of ${r.idle + r.slow} attack connections were held during the attack`);
  if (r.stillOpenAfterWait !== 0) fails.push(`${r.stillOpenAfterWait} idle/slow connections never closed by the daemon`);
  if (r.afterStatus !== 200) fails.push(`status ${r.afterStatus} after the attack`);
  return fails;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const extra = (process.env.SLOWTEST_ARGS || '').split(' ').filter(Boolean);
  const d = await startDaemon({ staticDir: null, args: extra });
  let fails;
  try {
    const t0 = performance.now();
    const r = await slowClients(d.port);
    r.totalS = Number(((performance.now() - t0) / 1000).toFixed(1));
    r.binary = process.env.NOISETILE_BIN || 'build/asan/noisetile';
    console.log(JSON.stringify(r, (k, v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(2)) : v), 2));
    fails = checkSlowClients(r);
  } finally {
    await d.stop();
  }
  for (const f of fails) console.log(`FAIL: ${f}`);
  console.log(fails.length === 0 ? 'slowtest: PASS' : 'slowtest: FAIL');
  process.exit(fails.length === 0 ? 0 : 1);
}
