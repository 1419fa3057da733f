// setup.test.mjs: what a new user meets before the daemon runs: `make run`
// installs only what building and running need (the list scripts/deps.sh
// would install), a missing library is named with the command that installs
// it, the build prints one short line per step (V=1: every command), a
// second `make test` rebuilds nothing, `make help` fits one screen, and a
// failed download of libmicrohttpd's source says so and what to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.BUILD || 'build';
// A make of our own, not a job of the make that runs the tests.
const ENV = { ...process.env };
for (const k of ['MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES']) delete ENV[k];
const make = (args) => spawnSync('make', ['--no-print-directory', ...args], { cwd: ROOT, env: ENV, encoding: 'utf8', timeout: 120000 });
const TEST_TOOLS = ['chromium', 'clang', 'libclang-rt-14-dev', 'valgrind', 'python3-numpy', 'python3-pil', 'gdal-bin'];

test('make run asks only for build and run needs: the compiler, the libraries, node/npm and the npm dependencies (no test tool)', () => {
  const list = (level) => execFileSync(path.join(ROOT, 'scripts/deps.sh'), ['--list', level], { encoding: 'utf8' }).trim().split('\n');
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const runtime = Object.keys(pkg.dependencies).map((n) => `npm:${n}`);
  const dev = Object.keys(pkg.devDependencies).map((n) => `npm:${n}`);
  const build = list('build');
  // curl, xz-utils and patch: what builds our libmicrohttpd (scripts/libmicrohttpd.sh)
  for (const p of ['gcc', 'make', 'pkg-config', 'curl', 'xz-utils', 'patch', 'libpng-dev', 'libjansson-dev', 'nodejs', 'npm', ...runtime]) {
    assert.ok(build.includes(p), `make run does not install ${p}: ${build}`);
  }
  for (const p of [...TEST_TOOLS, ...dev]) assert.ok(!build.includes(p), `make run would install the test tool ${p}`);
  assert.ok(dev.includes('npm:playwright-core'), 'Playwright is a devDependency');
  const full = list('test');
  for (const p of [...build, ...TEST_TOOLS, ...dev]) assert.ok(full.includes(p), `make test does not install ${p}`);
  // make run's recipe uses the build level.
  const n = make(['-n', 'run', `BUILD=${BUILD}`]).stdout;
  assert.doesNotMatch(n, /deps\.sh test|deps-test/, n);
});

test('a missing library: make names it and the command that installs it, and runs no compiler', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'noisetile-make-'));
  try {
    const r = make([`BUILD=${tmp}`, 'PKGS=libpng jansson noisetile-missing-lib']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /missing: noisetile-missing-lib/, r.stderr);
    assert.match(r.stderr, /'make deps'/, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /^\s+CC\s|No such file/m, r.stdout + r.stderr);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('quiet build: one line per object; V=1 prints the compiler command', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'noisetile-make-'));
  try {
    const obj = `${tmp}/rel/noise/noise_spec.o`;
    const q = make([`BUILD=${tmp}`, obj]);
    assert.equal(q.status, 0, q.stderr);
    assert.equal(q.stdout.trim(), `CC     ${obj}`);
    rmSync(obj);
    const v = make([`BUILD=${tmp}`, 'V=1', obj]);
    assert.equal(v.status, 0, v.stderr);
    assert.match(v.stdout, /-Wall -Wextra -Werror.* -c noise\/noise_spec\.c -o /, v.stdout);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('after make test built everything, a second make test compiles and links nothing', () => {
  const r = make(['-n', 'test-build', `BUILD=${BUILD}`]);
  assert.equal(r.status, 0, r.stderr);
  const cmds = r.stdout.split('\n').filter((l) => l.trim() !== '' && l.trim() !== ':');
  assert.deepEqual(cmds, [], `make test would run:\n${cmds.slice(0, 10).join('\n')}`);
});

test('make help lists the targets in one screen', () => {
  const r = make(['help']);
  assert.equal(r.status, 0);
  const lines = r.stdout.trimEnd().split('\n');
  assert.ok(lines.length <= 24, `${lines.length} lines`);
  assert.ok(lines.every((l) => l.length <= 100), 'a line wider than 100 columns');
  for (const t of ['run', 'test', 'valgrind', 'fuzz', 'bench', 'image-test', 'fresh-test', 'clean']) {
    assert.match(r.stdout, new RegExp(`^  ${t}\\s`, 'm'), t);
  }
  // every target a user may type (the .PHONY ones) is named
  const makefile = readFileSync(path.join(ROOT, 'Makefile'), 'utf8');
  const phony = [...makefile.matchAll(/^\.PHONY:(.*)$/gm)].flatMap((m) => m[1].trim().split(/\s+/));
  const internal = new Set(['all', 'help', 'test-build']);
  const missing = phony.filter((t) => !internal.has(t) && !new RegExp(`(^|[\\s;:,])${t}([\\s;:,]|$)`, 'm').test(r.stdout));
  assert.deepEqual(missing, [], 'targets missing from make help');
});

test('our libmicrohttpd build: a download that fails or has another sha256 stops with a message naming the file and what to do', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'noisetile-mhd-'));
  const run = (mirror) => spawnSync(path.join(ROOT, 'scripts/libmicrohttpd.sh'), [path.join(tmp, 'prefix')], {
    env: { ...ENV, MHD_MIRROR: mirror, MHD_DOWNLOADS: path.join(tmp, 'dl') }, encoding: 'utf8', timeout: 60000,
  });
  try {
    // nothing listens on port 9 of loopback
    const refused = run('http://127.0.0.1:9/debian');
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /could not download http:\/\/127\.0\.0\.1:9\/debian\/pool\/main\/libm\/libmicrohttpd\/libmicrohttpd_0\.9\.75\.orig\.tar\.xz/, refused.stderr);
    assert.match(refused.stderr, /MHD_MIRROR/, refused.stderr);
    // a mirror whose file is not the pinned one
    const pool = path.join(tmp, 'mirror', 'pool', 'main', 'libm', 'libmicrohttpd');
    mkdirSync(pool, { recursive: true });
    writeFileSync(path.join(pool, 'libmicrohttpd_0.9.75.orig.tar.xz'), 'not the tarball');
    const wrong = run(`file://${path.join(tmp, 'mirror')}`);
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.stderr, /libmicrohttpd_0\.9\.75\.orig\.tar\.xz does not have the pinned sha256 796e7e21/, wrong.stderr);
    assert.ok(!existsSync(path.join(tmp, 'dl', 'libmicrohttpd_0.9.75.orig.tar.xz')), 'the wrong file was kept');
    assert.ok(!existsSync(path.join(tmp, 'prefix')), 'something was built');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
