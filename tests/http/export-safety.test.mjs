// export-safety.test.mjs: `noisetile export` and `noisetile merge` never
// destroy or half-write (issue 27): an existing output of something else is
// left byte-identical unless --force; a failed merge leaves nothing; shards
// record K/N, the field and their tile count, and merge refuses a set that is
// incomplete, duplicated, mixed or holds a shard stopped half way, naming
// what is wrong; an empty shard is valid and merges; --dry-run answers for
// any size without listing the tiles; a large export asks for --yes; a second
// export into an output being written stops with a clear message; --name
// must be UTF-8. Read back with independent readers: sqlite3 for MBTiles,
// the `pmtiles` npm package for PMTiles.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync, readdirSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PMTiles } from 'pmtiles';
import { BIN, runOnce } from './daemon.mjs';
import { FileSource, killAtProgress } from './exporttest.mjs';

const FIELD = 'perlin/7?octaves=3&palette=viridis';
const REGION = ['--zoom', '0-3', '--bbox', '-10,-3,5,9'];
const N_TILES = 89;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

let dir;
before(() => { dir = mkdtempSync(path.join(tmpdir(), 'noisetile-export-safety-')); });
after(() => { rmSync(dir, { recursive: true, force: true }); });

const p = (name) => path.join(dir, name);
const run = (args) => runOnce(args, {}, 120000);

async function ok(args) {
  const r = await run(args);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, /Sanitizer|runtime error/);
  return r;
}

// Refused: exit status code, stderr matching re, and nothing written.
async function refused(args, code, re) {
  const r = await run(args);
  assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
  assert.match(r.stderr, re);
  assert.doesNotMatch(r.stderr, /Sanitizer|runtime error/);
  return r;
}

// Header and metadata of a PMTiles archive, read by the pmtiles package.
async function pmtilesInfo(file) {
  const src = new FileSource(file);
  try {
    const a = new PMTiles(src);
    return { header: await a.getHeader(), meta: await a.getMetadata(), tile: (z, x, y) => a.getZxy(z, x, y) };
  } finally {
    // getZxy after close is not used by the tests below.
  }
}

const sqlite = (file, sql) => execFileSync('sqlite3', ['-separator', '|', file, sql], { encoding: 'utf8', maxBuffer: 256 << 20 }).trim();
const mbShard = (file) => JSON.parse(sqlite(file, "SELECT value FROM metadata WHERE name = 'noisetile_shard'"));
const dirMeta = (d) => JSON.parse(readFileSync(path.join(d, 'metadata.json'), 'utf8'));

// Every file under a directory, as { relative path: Buffer }.
function tree(root) {
  const out = {};
  const walk = (rel) => {
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else out[r] = readFileSync(path.join(root, r));
    }
  };
  walk('');
  return out;
}

// Nothing a merge of OUT may leave: OUT's temporary siblings.
function leftovers(out) {
  const base = path.basename(out);
  return readdirSync(path.dirname(out)).filter((n) => n.startsWith(`${base}.`) && n !== base);
}

// The shards K/N of the test export, as OUT-K.EXT (or OUT-K for a directory).
async function shards(stem, ext, n, field = FIELD, region = REGION) {
  const files = [];
  for (let k = 0; k < n; k++) {
    const out = p(`${stem}-${k}${ext}`);
    await ok(['export', field, ...region, '--shard', `${k}/${n}`, '-o', out]);
    files.push(out);
  }
  return files;
}

test('shards record K/N, the field and their tile count (sqlite3, pmtiles package, metadata.json); a one-process export is shard 0/1', async () => {
  const [mb0, mb1] = await shards('rec', '.mbtiles', 2);
  const [pm0, pm1] = await shards('rec', '.pmtiles', 2);
  const [d0, d1] = await shards('rec', '-dir', 2);
  assert.deepEqual(mbShard(mb0), { index: 0, count: 2, tiles: 44 });
  assert.deepEqual(mbShard(mb1), { index: 1, count: 2, tiles: 45 });
  assert.match(sqlite(mb1, "SELECT value FROM metadata WHERE name = 'noisetile_field'"), /^\/perlin\/7\/\{z\}/);
  assert.equal(Number(sqlite(mb1, 'SELECT count(*) FROM tiles')), 45);
  const pm = await pmtilesInfo(pm1);
  assert.deepEqual(pm.meta.noisetile.shard, { index: 1, count: 2, tiles: 45 });
  assert.match(pm.meta.noisetile.field, /^\/perlin\/7\/\{z\}/);
  assert.equal(pm.header.numAddressedTiles, 45);
  assert.deepEqual(dirMeta(d0).noisetile.shard, { index: 0, count: 2, tiles: 44 });
  assert.deepEqual(dirMeta(d1).noisetile.shard, { index: 1, count: 2, tiles: 45 });

  const one = p('one.pmtiles');
  await ok(['export', FIELD, ...REGION, '-o', one]);
  assert.deepEqual((await pmtilesInfo(one)).meta.noisetile.shard, { index: 0, count: 1, tiles: N_TILES });
  // The merge of the two is the one-process export, byte for byte.
  const merged = p('rec-merged.pmtiles');
  await ok(['merge', '-o', merged, pm0, pm1]);
  assert.ok(readFileSync(merged).equals(readFileSync(one)));
});

test('a PMTiles export onto an existing file (unrelated, or another export) leaves it byte-identical; --force replaces it', async () => {
  const unrelated = p('notes.pmtiles');
  writeFileSync(unrelated, 'my notes, not an archive\n');
  await refused(['export', FIELD, ...REGION, '-o', unrelated], 1,
    /notes\.pmtiles exists and holds no noisetile export; remove it, choose another name or pass --force/);
  assert.equal(readFileSync(unrelated, 'utf8'), 'my notes, not an archive\n');
  assert.ok(!existsSync(`${unrelated}.part`));

  const other = p('other.pmtiles');
  await ok(['export', 'simplex/1', ...REGION, '-o', other]);
  const before = readFileSync(other);
  await refused(['export', FIELD, ...REGION, '-o', other], 1, /other\.pmtiles exists and holds another export/);
  assert.ok(readFileSync(other).equals(before));

  await ok(['export', FIELD, ...REGION, '-o', unrelated, '--force']);
  const info = await pmtilesInfo(unrelated);
  assert.equal(info.header.numAddressedTiles, N_TILES);
  assert.match(info.meta.noisetile.field, /^\/perlin\/7\//);
  // The same command again: complete, nothing to do (no --force needed).
  const again = await ok(['export', FIELD, ...REGION, '-o', unrelated]);
  assert.match(again.stderr, /is complete \(89 tiles\): nothing to do/);
});

test('MBTiles and directory exports onto something else refuse without --force and replace with it', async () => {
  const mb = p('keep.mbtiles');
  await ok(['export', 'simplex/1', ...REGION, '-o', mb]);
  const dump = sqlite(mb, '.dump');
  await refused(['export', FIELD, ...REGION, '-o', mb], 1, /keep\.mbtiles exists and holds another export; .*--force/);
  assert.equal(sqlite(mb, '.dump'), dump);
  await ok(['export', FIELD, ...REGION, '-o', mb, '--force']);
  assert.equal(Number(sqlite(mb, 'SELECT count(*) FROM tiles')), N_TILES);
  assert.match(sqlite(mb, "SELECT value FROM metadata WHERE name = 'noisetile_field'"), /^\/perlin\/7\//);
  assert.equal(sqlite(mb, 'PRAGMA integrity_check'), 'ok');

  // A shard into another shard's file of the same export is refused too.
  const s0 = p('keep-shard.mbtiles');
  await ok(['export', FIELD, ...REGION, '--shard', '0/2', '-o', s0]);
  await refused(['export', FIELD, ...REGION, '--shard', '1/2', '-o', s0], 1, /holds another shard of this export/);
  assert.deepEqual(mbShard(s0), { index: 0, count: 2, tiles: 44 });

  // A directory with files of its own is never written into.
  const mine = p('mine');
  mkdirSync(mine);
  writeFileSync(path.join(mine, 'photo.png'), 'x');
  for (const extra of [[], ['--force']])
    await refused(['export', FIELD, ...REGION, '-o', mine, ...extra], 1, /mine is not empty and holds no export/);
  assert.deepEqual(Object.keys(tree(mine)), ['photo.png']);
  // Another export's directory: refused, then replaced with --force.
  const d = p('keep-dir');
  await ok(['export', 'simplex/1', ...REGION, '-o', d]);
  const t = tree(d);
  await refused(['export', FIELD, ...REGION, '-o', d], 1, /keep-dir holds another export .*--force/);
  assert.deepEqual(tree(d), t);
  await ok(['export', FIELD, ...REGION, '-o', d, '--force']);
  assert.match(dirMeta(d).noisetile.field, /^\/perlin\/7\//);
  assert.equal(Object.keys(tree(d)).length, N_TILES + 1);
});

test('merge onto an existing output leaves it byte-identical; --force replaces it; a failed merge leaves nothing', async () => {
  const pm = await shards('mo', '.pmtiles', 2);
  const mb = await shards('mo', '.mbtiles', 2);
  const dd = await shards('mo', '-dir', 2);
  const [other] = await shards('mo-simplex', '-dir', 1, 'simplex/1');

  const existing = p('existing.pmtiles');
  writeFileSync(existing, 'precious');
  await refused(['merge', '-o', existing, ...pm], 1, /existing\.pmtiles exists; merge writes a new output: .*--force/);
  assert.equal(readFileSync(existing, 'utf8'), 'precious');
  await ok(['merge', '-o', existing, '--force', ...pm]);
  assert.equal((await pmtilesInfo(existing)).header.numAddressedTiles, N_TILES);

  const existingMb = p('existing.mbtiles');
  writeFileSync(existingMb, 'precious');
  await refused(['merge', '-o', existingMb, ...mb], 1, /exists; merge writes a new output/);
  assert.equal(readFileSync(existingMb, 'utf8'), 'precious');
  await ok(['merge', '-o', existingMb, '--force', ...mb]);
  assert.equal(Number(sqlite(existingMb, 'SELECT count(*) FROM tiles')), N_TILES);

  // A directory merge failing at input 3 (a shard of another field): no
  // output directory, no temporary sibling.
  const out = p('failed-dir');
  await refused(['merge', '-o', out, ...dd, other], 1, /input 3 \(.*mo-simplex-0-dir\) is a shard of another field/);
  assert.ok(!existsSync(out));
  assert.deepEqual(leftovers(out), []);
  // The same failure with --force over an existing export's directory: it stays as it was.
  const kept = p('kept-dir');
  await ok(['merge', '-o', kept, ...dd]);
  const t = tree(kept);
  await refused(['merge', '-o', kept, '--force', ...dd, other], 1, /is a shard of another field/);
  assert.deepEqual(tree(kept), t);
  assert.deepEqual(leftovers(kept), []);
  // --force replaces an export's directory, not a directory of other files.
  const photos = p('photos');
  mkdirSync(photos);
  writeFileSync(path.join(photos, 'a.jpg'), 'x');
  await refused(['merge', '-o', photos, '--force', ...dd], 1, /photos exists and is not an export's directory/);
  assert.deepEqual(Object.keys(tree(photos)), ['a.jpg']);
  await ok(['merge', '-o', kept, '--force', ...dd.slice().reverse()]);
  assert.deepEqual(tree(kept), t);
  assert.deepEqual(leftovers(kept), []);

  // MBTiles and PMTiles merges failing: no output, no temporary file.
  for (const [set, ext] of [[mb, '.mbtiles'], [pm, '.pmtiles']]) {
    const o = p(`failed${ext}`);
    await refused(['merge', '-o', o, set[0]], 1, /shard 1\/2 missing/);
    assert.ok(!existsSync(o));
    assert.deepEqual(leftovers(o), []);
  }
});

test('merge refuses an incomplete, duplicate or mixed set of shards, naming what is wrong', async () => {
  for (const ext of ['.pmtiles', '.mbtiles', '-dir']) {
    const two = await shards(`set2${ext}`, ext, 2);
    const three = await shards(`set3${ext}`, ext, 3);
    const out = p(`set-out${ext}`);
    const cases = [
      [[two[0]], /shard 1\/2 missing/],
      [[two[1]], /shard 0\/2 missing/],
      [[three[1]], /shards 0\/3, 2\/3 missing/],
      [[two[0], two[0]], /shard 0\/2 given twice \(inputs 1 and 2/],
      [[two[0], two[0], two[1]], /shard 0\/2 given twice/],
      [[two[0], three[1]], /shards of 2 and 3: input 1 .* is shard 0\/2, input 2 .* is shard 1\/3/],
    ];
    for (const [inputs, re] of cases) {
      await refused(['merge', '-o', out, ...inputs], 1, re);
      assert.ok(!existsSync(out), `${ext} ${inputs.join(' ')} left ${out}`);
      assert.deepEqual(leftovers(out), []);
    }
    // The complete set, in any order, merges.
    await ok(['merge', '-o', out, two[1], two[0]]);
  }
});

// Starts an export and kills it with signal once it has written some tiles
// (but not all).
// (exporttest.mjs)
const killPartway = (args, signal) => killAtProgress(args, signal, 3);

test('merge refuses an MBTiles or directory shard stopped half way; finished, the set merges', async () => {
  const BIG = ['--zoom', '0-4', '--bbox', '0,0,16,16'];
  for (const ext of ['.mbtiles', '-dir']) {
    const s0 = p(`half-0${ext}`), s1 = p(`half-1${ext}`), out = p(`half-out${ext}`);
    await ok(['export', FIELD, ...BIG, '--shard', '0/2', '-o', s0]);
    const k = await killPartway(['export', FIELD, ...BIG, '--shard', '1/2', '-o', s1], 'SIGINT');
    assert.ok(k.sent, k.stderr);
    assert.equal(k.code, 130, k.stderr);
    await refused(['merge', '-o', out, s0, s1], 1, /input 2 \(.*half-1.*\) is incomplete \(stopped half way: \d+ of its 171 tiles\)/);
    assert.ok(!existsSync(out));
    assert.deepEqual(leftovers(out), []);
    await ok(['export', FIELD, ...BIG, '--shard', '1/2', '-o', s1]);
    await ok(['merge', '-o', out, s0, s1]);
  }
});

test('an empty shard (N over the tile count) is a valid empty output, exit 0, and merges', async () => {
  const ONE = ['--zoom', '0', '--tiles', '0/0-0/0-0']; // one tile: shards 0/3 and 1/3 are empty
  const one = { '.pmtiles': p('single.pmtiles'), '.mbtiles': p('single.mbtiles'), '-dir': p('single-dir') };
  for (const [ext, whole] of Object.entries(one)) {
    await ok(['export', FIELD, ...ONE, '-o', whole]);
    const set = [];
    for (let k = 0; k < 3; k++) {
      const out = p(`empty-${k}${ext}`);
      const r = await ok(['export', FIELD, ...ONE, '--shard', `${k}/3`, '-o', out]);
      assert.match(r.stderr, new RegExp(`wrote ${k === 2 ? 1 : 0} tiles; shard ${k}/3`));
      assert.ok(!existsSync(`${out}.part`));
      set.push(out);
    }
    if (ext === '.pmtiles') {
      const e = await pmtilesInfo(set[0]);
      assert.equal(e.header.numAddressedTiles, 0);
      assert.deepEqual(e.meta.noisetile.shard, { index: 0, count: 3, tiles: 0 });
      assert.equal(await e.tile(0, 0, 0), undefined);
    } else if (ext === '.mbtiles') {
      assert.equal(sqlite(set[0], 'SELECT count(*) FROM tiles'), '0');
      assert.deepEqual(mbShard(set[0]), { index: 0, count: 3, tiles: 0 });
    } else {
      assert.deepEqual(Object.keys(tree(set[0])), ['metadata.json']);
    }
    const merged = p(`empty-merged${ext}`);
    await ok(['merge', '-o', merged, ...set]);
    if (ext === '-dir') assert.deepEqual(tree(merged), tree(whole));
    else assert.ok(readFileSync(merged).equals(readFileSync(whole)), `${ext}: merge of empty shards differs from one run`);
  }
});

test('--dry-run answers for billions of tiles without listing them, and says what the export will need', async () => {
  const r = await ok(['export', FIELD, '--zoom', '0-16', '--tiles', '0/0-0/0-0', '-o', p('huge.pmtiles'), '--dry-run']);
  assert.match(r.stdout, /5726623061 tiles \(plane zoom 0-16, archive zoom 0-16\)/);
  assert.match(r.stdout, /estimate from 16 sample tiles: \d+ bytes\/tile, [\d.]+ TiB/);
  assert.match(r.stdout, /memory: up to \d+ MB at the end, for the PMTiles directory/);
  assert.match(r.stdout, /note: over 10000000 tiles or 10 GB: the export asks for --yes/);
  assert.ok(!existsSync(p('huge.pmtiles')) && !existsSync(p('huge.pmtiles.part')));
  // The README's example: 358 M tiles.
  const readme = await ok(['export', 'perlin/7?octaves=5', '--zoom', '0-12', '--bbox', '0,0,64,64', '-o', p('big.pmtiles'), '--dry-run']);
  assert.match(readme.stdout, /357913936 tiles/);
  const shard = await ok(['export', 'perlin/7?octaves=5', '--zoom', '0-12', '--bbox', '0,0,64,64', '--shard', '7/8', '-o', p('big.pmtiles'), '--dry-run']);
  assert.match(shard.stdout, /44739242 tiles; shard 7\/8/);
  assert.match(shard.stdout, /note: over 10000000 tiles or 10 GB: the export asks for --yes/);
});

test('an export over 10 million tiles or about 10 GB stops without --yes, naming its size and the flag', async () => {
  const out = p('large.pmtiles');
  const r = await refused(['export', 'perlin/7?octaves=5', '--zoom', '0-12', '--bbox', '0,0,64,64', '--shard', '7/8', '-o', out], 2,
    /this run is 44739242 tiles \(shard 7\/8\), about [\d.]+ \S+ \(estimate from 16 sample tiles\), over the 10000000 tiles or 10 GB .*pass --yes to go ahead/);
  assert.equal(r.stdout, '');
  // Fewer tiles, but 512-pixel ones: over 10 GB.
  await refused(['export', 'perlin/7?octaves=5', '--scale', '2', '--zoom', '0-9', '--bbox', '0,0,64,64', '-o', out], 2,
    /this run is 5592400 tiles, about [\d.]+ GiB .*--yes/);
  assert.ok(!existsSync(out) && !existsSync(`${out}.part`));
  // With --yes it starts at once (no list of 44 million ids is made first):
  // stopped at its first progress line, it leaves a valid MBTiles file.
  const mb = p('large.mbtiles');
  const child = spawn(BIN, ['export', 'perlin/7?octaves=5', '--zoom', '0-12', '--bbox', '0,0,64,64', '--shard', '7/8', '--yes',
    '--jobs', '1', '--progress-seconds', '0.05', '-o', mb], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b) => { stderr += b; if (/\/44739242 tiles/.test(stderr)) child.kill('SIGTERM'); });
  const code = await new Promise((resolve) => child.on('close', (c) => resolve(c)));
  assert.equal(code, 128 + 15, stderr);
  assert.match(stderr, /SIGTERM: stopped after \d+ of 44739242 tiles; .* is valid/);
  assert.equal(sqlite(mb, 'PRAGMA integrity_check'), 'ok');
  assert.ok(!existsSync(out) && !existsSync(`${out}.part`));
});

test('a second export into an output being written stops with a clear message; the first finishes whole', async () => {
  // Five octaves: slow enough that the second starts while the first runs.
  const BIG = ['--zoom', '0-4', '--bbox', '0,0,16,16'], SLOW_FIELD = 'perlin/7?octaves=5&palette=viridis';
  for (const name of ['busy.mbtiles', 'busy.pmtiles', 'busy-dir']) {
    const out = p(name);
    const first = spawn(BIN, ['export', SLOW_FIELD, ...BIG, '-o', out, '--jobs', '1', '--progress-seconds', '0.05'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const started = new Promise((resolve) => first.stderr.on('data', (b) => { stderr += b; if (/\d+\/341 tiles/.test(stderr)) resolve(); }));
    const closed = new Promise((resolve) => first.on('close', (code) => resolve(code)));
    await started;
    await refused(['export', SLOW_FIELD, ...BIG, '-o', out], 1, /is being written by another export; wait for it to finish or choose another output/);
    assert.equal(await closed, 0, stderr);
    if (name.endsWith('.mbtiles')) {
      assert.equal(sqlite(out, 'SELECT count(*) FROM tiles'), '341');
      assert.equal(sqlite(out, 'PRAGMA integrity_check'), 'ok');
    } else if (name.endsWith('.pmtiles')) {
      assert.equal((await pmtilesInfo(out)).header.numAddressedTiles, 341);
    } else {
      assert.equal(Object.keys(tree(out)).length, 342);
    }
  }
});

test('--name must be valid UTF-8; valid UTF-8 is stored as given', async () => {
  const out = p('named.mbtiles');
  // Node cannot pass invalid UTF-8 in argv: the shell's printf does.
  const bad = spawnSync('sh', ['-c', `"$0" export 'perlin/7' --zoom 0 --tiles 0/0-0/0-0 --name "$(printf 'caf\\351')" -o "$1"`, BIN, out], { encoding: 'latin1' });
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /--name must be valid UTF-8 text/);
  assert.ok(!existsSync(out));
  await ok(['export', 'perlin/7', '--zoom', '0', '--tiles', '0/0-0/0-0', '--name', 'Café ✓ 地形', '-o', out]);
  assert.equal(sqlite(out, "SELECT value FROM metadata WHERE name = 'name'"), 'Café ✓ 地形');
});

test('the Kubernetes export and merge Jobs fit together: 8 shards, --yes for their size, and a merge that may replace its output', async () => {
  const job = readFileSync(path.join(ROOT, 'deploy/k8s/export-job.yaml'), 'utf8');
  const merge = readFileSync(path.join(ROOT, 'deploy/k8s/export-merge-job.yaml'), 'utf8');
  const completions = Number(/completions: (\d+)/.exec(job)[1]);
  const args = [...job.split('args:')[1].split('resources:')[0].matchAll(/^\s+- (.*)$/gm)].map((m) => m[1]);
  assert.ok(args.includes(`--shard=$(SHARD)/${completions}`), args.join(' '));
  const line = /exec \/usr\/local\/bin\/noisetile (merge .*)$/m.exec(merge)[1].split(' ');
  const inputs = line.filter((a) => /^\/out\/shard-\d+\.pmtiles$/.test(a));
  assert.deepEqual(inputs, Array.from({ length: completions }, (_, k) => `/out/shard-${k}.pmtiles`));
  // Run both command lines on a small region: every shard, then the merge.
  const vol = p('k8s');
  mkdirSync(vol);
  const local = (a) => a.replaceAll('/out/', `${vol}/`);
  const small = args.map((a) => (a.startsWith('--zoom=') ? '--zoom=0-2' : a.startsWith('--bbox=') ? '--bbox=-16,-16,16,16' : a));
  // At full size each shard is over the size that asks: the Job says --yes.
  const full = await run(args.map((a) => local(a.replace('$(SHARD)', '7'))).concat('--dry-run'));
  assert.equal(full.code, 0, full.stderr);
  if (/asks for --yes/.test(full.stdout)) assert.ok(args.includes('--yes'), 'the export Job needs --yes');
  for (let k = 0; k < completions; k++) await ok(small.map((a) => local(a.replaceAll('$(SHARD)', String(k)))));
  const mergeArgs = line.slice(0).map(local);
  await ok(mergeArgs);
  // A retried merge pod (the output already there) succeeds too.
  await ok(mergeArgs);
  const one = p('k8s-one.pmtiles');
  await ok(['export', ...small.filter((a) => !/^--shard|^--output|^export$|^--yes$/.test(a)), '-o', one]);
  assert.ok(readFileSync(local('/out/perlin7.pmtiles')).equals(readFileSync(one)));
});
