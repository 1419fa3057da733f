// messages.test.mjs: what a newcomer reads when a URL is wrong: the forms
// that exist, the path decoded like the query, t given twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, get, raw } from './daemon.mjs';

let d;
test('start', async () => { d = await startDaemon({ args: ['--threads', '2', '--cache-mb', '4'] }); });

test('a field URL of no known shape: 404 naming the URL forms', async () => {
  for (const p of ['/perlin/7/3/1/1', '/perlin/7', '/simplex/1/points.json', '/value/0/0/0/0.jpg']) {
    const r = await get(`${d.url}${p}`);
    assert.equal(r.status, 404, p);
    assert.match(r.json.error.message, /^no route .*: the URLs of a field are \/\{kind\}\/\{seed\}\/\{z\}\/\{x\}\/\{y\}\.png, .*\/\{kind\}\/\{seed\}\/stats$/, p);
  }
});

test('a tile scale other than @2x: 400 naming the two forms', async () => {
  const r = await get(`${d.url}/perlin/7/3/1/1@3x.png`);
  assert.equal(r.status, 400);
  assert.equal(r.json.error.message, "tile scale '@3x' does not exist: a tile is {y}.png (256 px) or {y}@2x.png (512 px)");
});

test('the path is percent-decoded like the query', async () => {
  const r = await raw(d.port, 'GET', '/per%6Cin/%37/point?x=1&y=2');
  assert.equal(r.status, 200);
  assert.equal(r.json.kind, 'perlin');
  assert.equal(r.json.seed, 7);
  const t = await raw(d.port, 'GET', '/value/1/0/0/0%40%32x.png');
  assert.equal(t.status, 200);
  assert.equal(t.body.readUInt32BE(16), 512); // IHDR width
});

test('t in the query and in the points: 400 naming both', async () => {
  const r = await get(`${d.url}/simplex/1/points?t=5`, { method: 'POST', body: '{"points":[[0,0,1]]}' });
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /^t is given twice: in the query \(t=\.\.\.\) and as the third number of each point/);
  const ok = await get(`${d.url}/simplex/1/points?t=5`, { method: 'POST', body: '{"points":[[0,0]]}' });
  assert.equal(ok.status, 200);
  assert.equal(ok.json.gradients[0].length, 3);
});

test('stop', async () => { await d.stop(); });
