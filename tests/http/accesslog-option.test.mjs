// accesslog-option.test.mjs: --access-log FILE appends one line per request
// to the file (and none to standard error); --access-log off writes none;
// a file that cannot be opened stops the start with a message naming it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDaemon, runOnce, get } from './daemon.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('--access-log FILE appends the lines to the file, not to stderr', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'noisetile-log-'));
  const file = path.join(dir, 'access.log');
  writeFileSync(file, 'earlier line\n');
  const d = await startDaemon({ args: ['--access-log', file], staticDir: null });
  assert.equal((await get(`${d.url}/healthz`)).status, 200);
  assert.equal((await get(`${d.url}/perlin/7/0/0/0.png`)).status, 200);
  assert.equal((await get(`${d.url}/nope`)).status, 404);
  await d.stop();
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  assert.equal(lines[0], 'earlier line', 'appended, not truncated');
  assert.equal(lines.length, 4, lines.join('\n'));
  // one line per request; a line is written when its response is done,
  // which for requests on different connections need not be in the order
  // the client saw the answers
  for (const re of [/"GET \/healthz" 200 /, /"GET \/perlin\/7\/0\/0\/0.png" 200 /, /"GET \/nope" 404 /])
    assert.equal(lines.slice(1).filter((l) => re.test(l)).length, 1, `${re}: ${lines.join('\n')}`);
  assert.doesNotMatch(d.stderr(), /"GET /);
});

test('--access-log off writes no access lines; NOISETILE_ACCESS_LOG does the same', async () => {
  for (const opts of [{ args: ['--access-log', 'off'] }, { env: { NOISETILE_ACCESS_LOG: 'off' } }]) {
    const d = await startDaemon({ ...opts, staticDir: null });
    assert.equal((await get(`${d.url}/healthz`)).status, 200);
    await sleep(100);
    await d.stop();
    assert.doesNotMatch(d.stderr(), /"GET /);
  }
});

test('an access log that cannot be opened stops the start, naming the file', async () => {
  const r = await runOnce(['--port', '0', '--access-log', '/nonexistent-dir/access.log']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /access log '\/nonexistent-dir\/access.log'/);
});
