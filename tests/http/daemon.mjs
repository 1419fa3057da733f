// daemon.mjs: starts the real noisetile daemon (the sanitizer build) on a free
// port for the black-box HTTP tests, and stops it checking that it exits 0
// with no sanitizer report, so leaks and undefined behaviour fail the tests.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, writeFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = process.env.NOISETILE_BIN || path.join(root, 'build', 'asan', 'noisetile');
// The repository's static/ folder (the viewer without its libraries).
export const STATIC = path.join(root, 'static');

const SANITIZER_REPORT = /Sanitizer|runtime error|LeakSanitizer/;

// Under make valgrind (NOISETILE_VALGRIND_OPTS set) a daemon starts and
// answers several times slower: the start-up deadlines below stretch.
export const SLOW = process.env.NOISETILE_VALGRIND_OPTS ? 4 : 1;

// Waits until check() (sync or async) returns a truthy value and resolves
// it; fails naming what it waited for after timeoutMs (stretched under
// valgrind). For what the daemon does after the client has its answer (the
// access log, counters of completed requests): wait for it, never sleep and
// hope.
export async function waitFor(check, what, { timeoutMs = 10000, intervalMs = 25 } = {}) {
  const deadline = Date.now() + timeoutMs * SLOW;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(`waited ${timeoutMs * SLOW} ms for ${what}`);
    await new Promise((res) => setTimeout(res, intervalMs));
  }
}

// Runs the binary to completion (for --help and bad flags).
export function runOnce(args, env = {}, timeoutMs = 20000 * SLOW) {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`timeout: ${args.join(' ')}`)); }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
  });
}

// Starts the daemon. Returns { url, port, child, stderr(), stop() }.
// With no staticDir the daemon serves the viewer built into it (no flag),
// unless NOISETILE_STATIC names a folder.
// nofile: run it under `prlimit --nofile=N:N` (that soft and hard descriptor
// limit).
// bin: another build of the daemon (default BIN).
export function startDaemon({ args = [], env = {}, staticDir = process.env.NOISETILE_STATIC || null, timeoutMs = 30000 * SLOW, nofile, bin = BIN } = {}) {
  const argv = ['--port', '0', ...(staticDir ? ['--static', staticDir] : []), ...args];
  // A variable given as undefined in env is removed from the daemon's
  // environment (e.g. NOISETILE_STATIC).
  const childEnv = { ...process.env, ASAN_OPTIONS: process.env.ASAN_OPTIONS || 'detect_leaks=1', ...env };
  for (const k of Object.keys(childEnv)) if (childEnv[k] === undefined) delete childEnv[k];
  // prlimit sets the limit and execs the daemon: the child is the daemon.
  const child = nofile
    ? spawn('prlimit', [`--nofile=${nofile}:${nofile}`, bin, ...argv], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(bin, argv, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '', stderr = '';
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`daemon did not print its URL within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited early (code ${code}, signal ${signal}); stderr:\n${stderr}`));
    });
    child.stdout.on('data', (d) => {
      stdout += d;
      const m = /noisetile listening on (http:\/\/[^\s]+?)\/?\n/.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      const url = m[1];
      resolve({
        url,
        port: Number(new URL(url).port),
        child,
        stdout: () => stdout,
        stderr: () => stderr,
        exited,
        // SIGTERM (or SIGINT); the daemon must exit 0 and its stderr hold no
        // sanitizer report.
        async stop(stopSignal = 'SIGTERM') {
          child.kill(stopSignal);
          const { code, signal } = await exited;
          assert.doesNotMatch(stderr, SANITIZER_REPORT, `sanitizer report in daemon stderr:\n${stderr.slice(-4000)}`);
          assert.equal(signal, null, `daemon died of ${signal}`);
          assert.equal(code, 0, `daemon exit code ${code}; stderr tail:\n${stderr.slice(-2000)}`);
        },
      });
    });
  });
}

// A temporary --static directory with one file of each content type, a
// subdirectory, a hidden file, a secret next to (outside) the root and
// symlinks that lead out of it.
export function makeStaticFixture() {
  const base = mkdtempSync(path.join(tmpdir(), 'noisetile-static-'));
  const dir = path.join(base, 'www');
  mkdirSync(dir);
  mkdirSync(path.join(dir, 'sub'));
  writeFileSync(path.join(base, 'secret.txt'), 'TOP SECRET outside the root\n');
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>fixture</title><p>fixture index</p>\n');
  writeFileSync(path.join(dir, 'app.js'), 'console.log("fixture");\n');
  writeFileSync(path.join(dir, 'style.css'), 'body { color: black; }\n');
  writeFileSync(path.join(dir, 'data.json'), '{"fixture":true}\n');
  writeFileSync(path.join(dir, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
  writeFileSync(path.join(dir, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  writeFileSync(path.join(dir, 'a b.txt'), 'space in name\n');
  writeFileSync(path.join(dir, '.hidden'), 'hidden\n');
  writeFileSync(path.join(dir, 'sub', 'index.html'), '<!doctype html><p>sub index</p>\n');
  writeFileSync(path.join(dir, 'sub', 'page.html'), '<!doctype html><p>sub page</p>\n');
  symlinkSync(path.join(base, 'secret.txt'), path.join(dir, 'escape.txt'));
  symlinkSync(base, path.join(dir, 'up'));
  symlinkSync('sub/page.html', path.join(dir, 'inside.html'));
  return { base, dir };
}

// fetch with a body read as text, JSON when it parses.
export async function get(url, init = {}) {
  const res = await fetch(url, init);
  const buf = Buffer.from(await res.arrayBuffer());
  let json;
  try { json = JSON.parse(buf.toString('utf8')); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, body: buf, text: buf.toString('utf8'), json };
}

// One HTTP request with the path sent exactly as given (no URL
// normalisation, so "/../" and "%2e%2e" reach the daemon), on a fresh
// connection. Resolves { status, headers, body, text, json }.
export function raw(port, method, rawPath, { headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: rawPath, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        let json;
        try { json = JSON.parse(buf.toString('utf8')); } catch { json = undefined; }
        resolve({ status: res.statusCode, headers: res.headers, body: buf, text: buf.toString('utf8'), json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(20000, () => req.destroy(new Error(`timeout ${method} ${rawPath}`)));
    if (body !== undefined) req.end(body); else req.end();
  });
}
