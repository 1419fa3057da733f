// deploytest.mjs: `make deploytest`. Two daemons (release build, no tile
// cache of their own, so every request that reaches one renders) behind
// Debian's nginx running deploy/nginx/noisetile.conf, all on loopback:
//   1. 64 clients fetch the same 256 tiles in shuffled orders: every answer
//      200 with the right bytes, and each tile rendered once across the two
//      replicas (the sum of their noisetile_render_seconds_count);
//   2. the same again: every answer a proxy cache HIT, no render;
//   3. 64 clients on 256 new tiles; one replica SIGKILLed when a quarter of
//      the requests are answered: 0 failed requests;
//   4. the Compose file and the manifests parse and agree with the
//      Dockerfile (tests/deploy/check_manifests.py).
// Bounded: the whole run is killed after 180 s. Prints TAP-style lines and
// a final "N passed, N failed".
import { spawn, execFileSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = process.env.NOISETILE_BIN || path.join(root, 'build', 'noisetile');
const NGINX = process.env.NGINX || '/usr/sbin/nginx';
const CLIENTS = 64;
let passed = 0, failed = 0;
const children = [];

function check(cond, what) {
  console.log(`${cond ? 'ok' : 'not ok'} - ${what}`);
  if (cond) passed++; else failed++;
}

const guard = setTimeout(() => {
  console.log('not ok - deploytest did not finish within 180 s');
  for (const c of children) c.kill('SIGKILL');
  process.exit(1);
}, 180000);

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

function startDaemon() {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, ['--port', '0', '--cache-mb', '0', '--threads', '4'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`daemon exited ${code}`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
function get(port, p) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, agent, timeout: 30000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, cache: res.headers['x-cache-status'], body: Buffer.concat(chunks) }));
      res.on('error', (e) => resolve({ status: 0, error: e.message }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 0, error: e.message }));
  });
}

async function renders(port) {
  const r = await get(port, '/metrics');
  const m = /^noisetile_render_seconds_count (\d+)$/m.exec(r.body.toString());
  return m ? Number(m[1]) : NaN;
}

function shuffled(a, seed) {
  const b = a.slice();
  let s = seed >>> 0;
  for (let i = b.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [b[i], b[j]] = [b[j], b[i]];
  }
  return b;
}

// CLIENTS clients each fetch every path (shuffled), or with perClient the
// c-th client its own share; onAnswer(count) after each answer.
async function load(port, paths, onAnswer = () => {}, perClient = false) {
  const results = [];
  let answered = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
    const mine = perClient ? paths.filter((_, i) => i % CLIENTS === c) : shuffled(paths, c + 1);
    for (const p of mine) {
      const r = await get(port, p);
      results.push({ path: p, ...r });
      onAnswer(++answered);
    }
  }));
  return results;
}

const tiles = (seed) => {
  const out = [];
  for (let x = 0; x < 16; x++) for (let y = 0; y < 16; y++) out.push(`/perlin/${seed}/4/${x - 8}/${y - 8}.png?octaves=4&palette=terrain`);
  return out;
};

const dir = mkdtempSync(path.join(tmpdir(), 'noisetile-deploy-'));
let nginx;
try {
  const [a, b] = [await startDaemon(), await startDaemon()];
  const proxyPort = await freePort();
  // The shipped configuration, with loopback upstreams, port and cache path.
  const conf = readFileSync(path.join(root, 'deploy', 'nginx', 'noisetile.conf'), 'utf8')
    .replace('server noisetile-1:8080', `server 127.0.0.1:${a.port}`)
    .replace('server noisetile-2:8080', `server 127.0.0.1:${b.port}`)
    .replace('listen 8080;', `listen 127.0.0.1:${proxyPort};`)
    .replace('/var/cache/nginx/noisetile', path.join(dir, 'cache'));
  check(!conf.includes('noisetile-1') && !conf.includes('listen 8080'), 'the shipped nginx config, with loopback upstreams and port');
  writeFileSync(path.join(dir, 'noisetile.conf'), conf);
  for (const t of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, t));
  writeFileSync(path.join(dir, 'nginx.conf'), `
${process.getuid() === 0 ? 'user root;' : ''}
daemon off;
worker_processes 2;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/noisetile.conf;
}
`);
  nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(nginx);
  for (let i = 0; i < 100; i++) {
    const r = await get(proxyPort, '/healthz');
    if (r.status === 200) break;
    await new Promise((res) => setTimeout(res, 50));
  }

  // 1. First pass: each tile rendered once across the replicas.
  const set1 = tiles(7);
  const want = {};
  for (const p of set1.slice(0, 8)) want[p] = (await get(a.port, p)).body; // reference bytes, straight from a replica
  const before = (await renders(a.port)) + (await renders(b.port));
  let t0 = Date.now();
  const pass1 = await load(proxyPort, set1);
  const ms1 = Date.now() - t0;
  const ra = await renders(a.port), rb = await renders(b.port);
  const rendered = ra + rb - before;
  check(pass1.length === CLIENTS * set1.length && pass1.every((r) => r.status === 200),
    `pass 1: ${pass1.length} requests by ${CLIENTS} clients, all 200 (${pass1.filter((r) => r.status !== 200).length} not) in ${ms1} ms`);
  check(pass1.every((r) => !want[r.path] || r.body.equals(want[r.path])), 'pass 1: the proxy answers the replicas\' bytes');
  // The 8 reference fetches were rendered by replica a before the pass; the
  // proxy's own misses render the 256 tiles once more, once each.
  check(rendered === set1.length, `pass 1: ${set1.length} tiles rendered ${rendered} times across the replicas (a ${ra}, b ${rb} in all)`);
  check(ra > 8 && rb > 0, 'pass 1: both replicas rendered');

  // 2. Second pass: all from the proxy cache.
  t0 = Date.now();
  const pass2 = await load(proxyPort, set1);
  const ms2 = Date.now() - t0;
  const after2 = (await renders(a.port)) + (await renders(b.port));
  const hits = pass2.filter((r) => r.status === 200 && r.cache === 'HIT').length;
  check(hits === pass2.length, `pass 2: ${hits} of ${pass2.length} answers are proxy cache HITs (${ms2} ms)`);
  check(after2 === ra + rb, `pass 2: no render on the replicas (${after2 - ra - rb})`);

  // 3. One replica killed under load: 2048 new tiles, 32 per client, all
  // misses, so both replicas have requests in flight when one dies.
  const set3 = [];
  for (let x = 0; x < 64; x++) for (let y = 0; y < 32; y++) set3.push(`/perlin/8/6/${x - 32}/${y - 16}.png?octaves=4&palette=terrain`);
  let killed = false, atKill = 0;
  const bBefore = await renders(b.port);
  t0 = Date.now();
  const pass3 = await load(proxyPort, set3, (n) => {
    if (!killed && n >= set3.length / 4) { killed = true; atKill = n; a.child.kill('SIGKILL'); }
  }, true);
  const bRendered = (await renders(b.port)) - bBefore;
  const bad = pass3.filter((r) => r.status !== 200 || r.body.length < 8 || r.body.readUInt32BE(0) !== 0x89504e47);
  check(killed && pass3.length === set3.length, `pass 3: replica a SIGKILLed after ${atKill} of ${set3.length} answers`);
  check(bRendered >= set3.length - atKill, `pass 3: replica b rendered the rest (${bRendered} renders)`);
  check(bad.length === 0, `pass 3: ${pass3.length} requests, ${bad.length} failed${bad.length ? ` (${JSON.stringify(bad.slice(0, 3).map((r) => [r.path, r.status, r.error]))})` : ''} (${Date.now() - t0} ms)`);
  const last = await get(proxyPort, '/perlin/9/0/0/0.png');
  check(last.status === 200, 'after the kill: a new tile through the proxy (replica b)');

  // 4. Compose and manifests.
  try {
    const out = execFileSync('python3', [path.join(root, 'tests', 'deploy', 'check_manifests.py')], { encoding: 'utf8' });
    for (const line of out.trim().split('\n')) check(line.startsWith('ok'), line.replace(/^(not )?ok - /, 'manifests: '));
  } catch (e) {
    for (const line of String(e.stdout || '').trim().split('\n')) check(line.startsWith('ok'), line.replace(/^(not )?ok - /, 'manifests: '));
    check(false, 'manifests: check_manifests.py exited non-zero');
  }
  b.child.kill('SIGTERM');
} catch (e) {
  check(false, `deploytest: ${e.stack}`);
} finally {
  if (nginx) nginx.kill('SIGQUIT');
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await new Promise((res) => setTimeout(res, 300));
  rmSync(dir, { recursive: true, force: true });
  agent.destroy();
  clearTimeout(guard);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}
