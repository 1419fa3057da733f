// export.test.mjs: `noisetile export` and `noisetile merge` with independent
// readers: every tile of the MBTiles file (sqlite3), the PMTiles archive (the
// `pmtiles` npm package) and the directory is the daemon's answer for the
// same URL; gdalinfo opens the MBTiles file; an export killed halfway and
// run again ends as an uninterrupted one; three shards plus merge are
// byte-identical to one run; the progress bar on a pseudo-terminal and the
// plain lines otherwise; bad arguments are refused with a message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PMTiles, tileIdToZxy } from 'pmtiles';
import { BIN, startDaemon, runOnce, get } from './daemon.mjs';
import { FileSource, killAtProgress } from './exporttest.mjs';

// A region across the plane's origin (negative tiles), so the archive needs
// a zoom offset and an origin: plane zoom 0-3 are archive zoom 1-4.
const FIELD = 'perlin/7?octaves=3&palette=viridis';
const REGION = ['--zoom', '0-3', '--bbox', '-10,-3,5,9'];
const EXPECTED_TILES = 4 + 9 + 20 + 56;

let dir, d;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'noisetile-export-'));
  d = await startDaemon({ staticDir: null });
});
after(async () => {
  await d.stop();
  rmSync(dir, { recursive: true, force: true });
});

// Runs the exporter (or merge) to completion; returns { code, stdout, stderr }.
function run(args, opts = {}) {
  return runOnce(args, {}, opts.timeoutMs || 120000);
}

async function exportTo(name, extra = []) {
  const out = path.join(dir, name);
  const r = await run(['export', FIELD, ...REGION, '-o', out, ...extra]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /Sanitizer|runtime error/);
  return out;
}

function sqlite(file, sql) {
  return execFileSync('sqlite3', ['-separator', '|', file, sql], { encoding: 'utf8', maxBuffer: 256 << 20 });
}

// Every file of a directory export, as { 'z/x/y.png': Buffer }.
function dirTiles(root) {
  const out = {};
  for (const z of readdirSync(root).filter((n) => /^\d+$/.test(n)))
    for (const x of readdirSync(path.join(root, z)))
      for (const y of readdirSync(path.join(root, z, x))) out[`${z}/${x}/${y}`] = readFileSync(path.join(root, z, x, y));
  return out;
}

let outputs;
async function allOutputs() {
  if (!outputs) {
    outputs = {
      pm: await exportTo('a.pmtiles'),
      mb: await exportTo('a.mbtiles'),
      dir: await exportTo('a-dir'),
    };
  }
  return outputs;
}

test('every exported tile (directory, MBTiles via sqlite3, PMTiles via the pmtiles package) is the daemon\'s answer for the same URL', async () => {
  const { pm, mb, dir: tilesDir } = await allOutputs();
  const meta = JSON.parse(readFileSync(path.join(tilesDir, 'metadata.json'), 'utf8'));
  const nt = meta.noisetile;
  assert.deepEqual(meta.tiles, ['{z}/{x}/{y}.png']);
  assert.equal(nt.zoom_offset, 1);
  assert.deepEqual(nt.origin_tile, [-1, -1]);
  assert.equal(meta.minzoom, 1);
  assert.equal(meta.maxzoom, 4);
  assert.match(nt.field, /^\/perlin\/7\/\{z\}\/\{x\}\/\{y\}\.png\?frequency=1&octaves=3&.*&palette=viridis&shade=0&zero=0$/);

  const files = dirTiles(tilesDir);
  assert.equal(Object.keys(files).length, EXPECTED_TILES);

  const rows = {};
  for (const line of sqlite(mb, 'SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles').trim().split('\n')) {
    const [z, x, row, hex] = line.split('|');
    rows[`${z}/${x}/${2 ** Number(z) - 1 - Number(row)}.png`] = Buffer.from(hex, 'hex'); // TMS row -> XYZ y
  }
  assert.equal(Object.keys(rows).length, EXPECTED_TILES);

  const src = new FileSource(pm);
  const archive = new PMTiles(src);
  const header = await archive.getHeader();
  assert.equal(header.numAddressedTiles, EXPECTED_TILES);
  assert.equal(header.tileType, 2);
  assert.equal(header.clustered, true);
  assert.deepEqual([header.minZoom, header.maxZoom], [1, 4]);
  assert.deepEqual((await archive.getMetadata()).noisetile, nt);

  for (const [key, bytes] of Object.entries(files)) {
    const [az, ax, ay] = key.replace('.png', '').split('/').map(Number);
    const pz = az - nt.zoom_offset;
    const px = ax + nt.origin_tile[0] * 2 ** pz, py = ay + nt.origin_tile[1] * 2 ** pz;
    const url = d.url + nt.field.replace('{z}', pz).replace('{x}', px).replace('{y}', py);
    const r = await get(url);
    assert.equal(r.status, 200, url);
    assert.ok(r.body.equals(bytes), `directory ${key} differs from ${url}`);
    assert.ok(rows[key] && rows[key].equals(bytes), `MBTiles ${key} differs from ${url}`);
    const t = await archive.getZxy(az, ax, ay);
    assert.ok(t && Buffer.from(t.data).equals(bytes), `PMTiles ${key} differs from ${url}`);
  }
  // Outside the region: nothing.
  assert.equal(await archive.getZxy(4, 15, 15), undefined);
  src.close();
});

// The synthetic archive of tests/unit/test_pmtiles.c (same functions).
const mix = (k) => {
  let h = Math.imul(k >>> 0, 0x9E3779B1) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x85EBCA77) >>> 0;
  return (h ^ (h >>> 13)) >>> 0;
};
const synthHas = (id) => (id >= 1000 && id < 1300) || mix(id) % 4 !== 0;
function synth(id) {
  let key = id;
  if (id % 10 === 0) key = 7777777;
  else if (id >= 1000 && id < 1300) key = 1000000 + Math.floor(id / 3);
  const len = 1 + (mix(key) % 50);
  return Buffer.from(Array.from({ length: len }, (_, j) => (key * 31 + j * 17) & 255));
}

test('the pmtiles package reads every tile of a 45000-tile archive with leaf directories, runs and repeats', async () => {
  const file = path.join(dir, 'leaves.pmtiles');
  // The unit test binary of the build under test (sanitizers, or valgrind's).
  const bins = UNDER_VALGRIND ? path.dirname(process.env.NOISETILE_VG_DAEMON) : path.dirname(BIN);
  execFileSync(path.join(bins, 'bin', 'test_pmtiles'), ['write', file, '60000']);
  const src = new FileSource(file);
  const archive = new PMTiles(src);
  const h = await archive.getHeader();
  assert.ok(h.leafDirectoryLength > 0, 'no leaf directories');
  assert.ok(h.rootDirectoryOffset + h.rootDirectoryLength <= 16384);
  let n = 0;
  for (let id = 0; id < 60000; id++) {
    const [z, x, y] = tileIdToZxy(id);
    const t = await archive.getZxy(z, x, y);
    if (!synthHas(id)) {
      assert.equal(t, undefined, `id ${id} should be absent`);
      continue;
    }
    n++;
    assert.ok(t && Buffer.from(t.data).equals(synth(id)), `tile id ${id} (${z}/${x}/${y})`);
  }
  assert.equal(h.numAddressedTiles, n);
  assert.ok(h.numTileEntries < n && h.numTileContents < h.numTileEntries);
  src.close();
});

test('numeric tiles (.npy, .r16 directory exports; encoding=terrarium PNG in PMTiles) are the daemon\'s answers for the same URLs', async () => {
  for (const [field, ext, out] of [['perlin/7?octaves=3', 'npy', 'n-npy'], ['perlin/7?octaves=3', 'r16', 'n-r16'],
    ['perlin/7?octaves=3&encoding=terrarium&height_scale=500', 'png', 'n-terrarium']]) {
    const target = path.join(dir, out);
    const r = await run(['export', field, '--ext', ext, '--zoom', '0-1', '--bbox', '-4,-4,4,4', '-o', target]);
    assert.equal(r.code, 0, r.stderr);
    const meta = JSON.parse(readFileSync(path.join(target, 'metadata.json'), 'utf8'));
    const nt = meta.noisetile;
    assert.equal(meta.format, ext);
    assert.deepEqual(meta.tiles, [`{z}/{x}/{y}.${ext}`]);
    let n = 0;
    for (const z of readdirSync(target).filter((f) => /^\d+$/.test(f)))
      for (const x of readdirSync(path.join(target, z)))
        for (const f of readdirSync(path.join(target, z, x))) {
          const [az, ax, ay] = [Number(z), Number(x), Number(f.split('.')[0])];
          const pz = az - nt.zoom_offset, px = ax + nt.origin_tile[0] * 2 ** pz, py = ay + nt.origin_tile[1] * 2 ** pz;
          const url = d.url + nt.field.replace('{z}', pz).replace('{x}', px).replace('{y}', py);
          const res = await get(url); // fetch undoes the daemon's gzip of .npy/.r16
          assert.equal(res.status, 200, url);
          assert.ok(res.body.equals(readFileSync(path.join(target, z, x, f))), `${out}/${z}/${x}/${f} differs from ${url}`);
          n++;
        }
    assert.equal(n, 8, out);
  }
  const pm = path.join(dir, 'n-terrarium.pmtiles');
  const r = await run(['export', 'perlin/7?octaves=3&encoding=terrarium&height_scale=500', '--zoom', '0-1', '--bbox', '-4,-4,4,4', '-o', pm]);
  assert.equal(r.code, 0, r.stderr);
  const src = new FileSource(pm);
  const archive = new PMTiles(src);
  const t = await archive.getZxy(2, 1, 1);
  assert.ok(t && Buffer.from(t.data).equals(readFileSync(path.join(dir, 'n-terrarium', '2', '1', '1.png'))));
  src.close();
  const bad = await run(['export', 'perlin/7', '--ext', 'npy', '--zoom', '0', '--bbox', '0,0,1,1', '-o', path.join(dir, 'x.pmtiles')]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--ext npy tiles go to a directory export only/);
});

test('sqlite3 reads the MBTiles 1.3 metadata and gdalinfo opens the file', async () => {
  const { mb } = await allOutputs();
  const meta = Object.fromEntries(sqlite(mb, 'SELECT name, value FROM metadata').trim().split('\n').map((l) => l.split('|')));
  assert.equal(meta.format, 'png');
  assert.equal(meta.minzoom, '1');
  assert.equal(meta.maxzoom, '4');
  assert.ok(meta.name);
  const bounds = meta.bounds.split(',').map(Number);
  assert.equal(bounds.length, 4);
  assert.ok(bounds[0] < bounds[2] && bounds[1] < bounds[3] && bounds[0] >= -180 && bounds[3] <= 85.06, meta.bounds);
  assert.equal(meta.center.split(',').length, 3);
  assert.match(meta.noisetile_field, /^\/perlin\/7\/\{z\}/);
  assert.equal(JSON.parse(meta.noisetile_origin).zoom_offset, 1);
  assert.equal(sqlite(mb, 'PRAGMA integrity_check').trim(), 'ok');

  const info = JSON.parse(execFileSync('gdalinfo', ['-json', mb], { encoding: 'utf8' }));
  assert.equal(info.driverShortName, 'MBTiles');
  // Region -10..5 x -3..9 of a 32-unit world at archive zoom 4 (4096 px).
  assert.deepEqual(info.size, [Math.round(15 / 32 * 4096), Math.round(12 / 32 * 4096)]);
  assert.equal(info.bands.length, 4);
});

// Starts an export and kills it with signal once its progress passes half.
// (exporttest.mjs)
const killHalfway = (args, signal) => killAtProgress(args, signal, 2);

// Under valgrind (make valgrind) the exporter is 50 times slower: the
// interrupted runs then cover zoom 0-3.
const UNDER_VALGRIND = Boolean(process.env.NOISETILE_VG_DAEMON);
const BIG_Z = UNDER_VALGRIND ? 3 : 4;
const BIG = ['--zoom', `0-${BIG_Z}`, '--bbox', '0,0,16,16'];
const BIG_N = (4 ** (BIG_Z + 1) - 1) / 3; // 341 (85 under valgrind)

test('PMTiles: an export killed halfway (SIGKILL) and run again is byte-identical to an uninterrupted one', async () => {
  const whole = path.join(dir, 'whole.pmtiles'), resumed = path.join(dir, 'resumed.pmtiles');
  const ok = await run(['export', FIELD, ...BIG, '-o', whole]);
  assert.equal(ok.code, 0, ok.stderr);
  const k = await killHalfway(['export', FIELD, ...BIG, '-o', resumed], 'SIGKILL');
  assert.ok(k.sent, `never saw half the tiles: ${k.stderr}`);
  assert.equal(k.signal, 'SIGKILL');
  assert.ok(!existsSync(resumed) && existsSync(resumed + '.part'));
  const again = await run(['export', FIELD, ...BIG, '-o', resumed]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, new RegExp(`resuming: \\d+ of ${BIG_N} tiles already`));
  assert.ok(readFileSync(resumed).equals(readFileSync(whole)));
  assert.ok(!existsSync(resumed + '.part'));
  // Once more: the archive is complete, nothing is rendered or rewritten.
  const mtime = statSync(resumed).mtimeMs;
  const done = await run(['export', FIELD, ...BIG, '-o', resumed]);
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stderr, new RegExp(`is complete \\(${BIG_N} tiles\\): nothing to do`));
  assert.equal(statSync(resumed).mtimeMs, mtime);
});

test('PMTiles: SIGTERM keeps the partial work and says how to resume', async () => {
  const out = path.join(dir, 'term.pmtiles');
  const k = await killHalfway(['export', FIELD, ...BIG, '-o', out], 'SIGTERM');
  assert.ok(k.sent);
  assert.equal(k.code, 128 + 15, k.stderr);
  assert.match(k.stderr, new RegExp(`SIGTERM: stopped after \\d+ of ${BIG_N} tiles.*written at the end.*run the same command again to resume`, 's'));
  const again = await run(['export', FIELD, ...BIG, '-o', out]);
  assert.equal(again.code, 0, again.stderr);
  assert.ok(readFileSync(out).equals(readFileSync(path.join(dir, 'whole.pmtiles'))));
});

test('MBTiles: Ctrl-C halfway leaves a valid file; run again it holds the same tiles as an uninterrupted export', async () => {
  const whole = path.join(dir, 'whole.mbtiles'), resumed = path.join(dir, 'resumed.mbtiles');
  const ok = await run(['export', FIELD, ...BIG, '-o', whole]);
  assert.equal(ok.code, 0, ok.stderr);
  const k = await killHalfway(['export', FIELD, ...BIG, '-o', resumed], 'SIGINT');
  assert.ok(k.sent);
  assert.equal(k.code, 128 + 2, k.stderr);
  assert.match(k.stderr, new RegExp(`SIGINT: stopped after \\d+ of ${BIG_N} tiles; .* is valid`));
  assert.equal(sqlite(resumed, 'PRAGMA integrity_check').trim(), 'ok');
  const partial = Number(sqlite(resumed, 'SELECT count(*) FROM tiles'));
  assert.ok(partial > 0 && partial < BIG_N, `partial count ${partial}`);
  const again = await run(['export', FIELD, ...BIG, '-o', resumed]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, new RegExp(`resuming: ${partial} of ${BIG_N} tiles already`));
  const dump = (f) => sqlite(f, 'SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles ORDER BY 1, 2, 3');
  assert.equal(dump(resumed), dump(whole));
  assert.equal(sqlite(resumed, 'SELECT name, value FROM metadata ORDER BY name'), sqlite(whole, 'SELECT name, value FROM metadata ORDER BY name'));
});

test('--shard K/3 runs plus noisetile merge are byte-identical to one run (PMTiles, MBTiles, directory)', async () => {
  const { pm, mb, dir: tilesDir } = await allOutputs();
  for (const [one, ext] of [[pm, '.pmtiles'], [mb, '.mbtiles'], [tilesDir, '-dir']]) {
    const shards = [];
    let sum = 0;
    for (let k = 0; k < 3; k++) {
      const out = path.join(dir, `shard${k}${ext}`);
      const r = await run(['export', FIELD, ...REGION, '--shard', `${k}/3`, '-o', out]);
      assert.equal(r.code, 0, r.stderr);
      const n = Number(/wrote (\d+) tiles; shard/.exec(r.stderr)[1]);
      assert.ok(n >= 29 && n <= 30, `shard ${k}: ${n} tiles`);
      sum += n;
      shards.push(out);
    }
    assert.equal(sum, EXPECTED_TILES);
    const merged = path.join(dir, `merged${ext}`);
    const r = await run(['merge', '-o', merged, ...shards]);
    assert.equal(r.code, 0, r.stderr);
    if (ext === '-dir') {
      const a = dirTiles(one), b = dirTiles(merged);
      assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
      for (const key of Object.keys(a)) assert.ok(a[key].equals(b[key]), key);
      assert.ok(readFileSync(path.join(merged, 'metadata.json')).equals(readFileSync(path.join(one, 'metadata.json'))));
    } else {
      assert.ok(readFileSync(merged).equals(readFileSync(one)), `merged ${ext} differs from one run`);
    }
  }
});

test('progress: a bar on a pseudo-terminal, plain lines when not a terminal', async () => {
  const out = path.join(dir, 'progress.pmtiles');
  // python3's pty module gives the exporter a terminal as stderr.
  const py = `import os, pty, sys\nsys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))`;
  const tty = execFileSync('python3', ['-c', py, BIN, 'export', FIELD, ...REGION, '-o', out, '--jobs', '1'], { encoding: 'utf8', env: { ...process.env, NOISETILE_BIN: BIN } });
  assert.match(tty, /\r\x1b\[K\[#*-*\]\s+\d+\.\d% \d+\/89 tiles \d+ tiles\/s [\d.]+ \S+ ETA/);
  assert.match(tty, /\[#{30}\] 100\.0% 89\/89 tiles \d+ tiles\/s [\d.]+ \S+ in /);
  rmSync(out);
  const r = await run(['export', FIELD, ...REGION, '-o', out, '--jobs', '1', '--progress-seconds', '0.01']);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /\r|\x1b/);
  const lines = r.stderr.split('\n').filter((l) => /^noisetile export: \d+\/89 tiles \(\d+\.\d%\), \d+ tiles\/s, [\d.]+ \S+ written, (ETA|done in) /.test(l));
  assert.ok(lines.length >= 2, r.stderr);
  assert.match(lines.at(-1), /89\/89 tiles \(100\.0%\).*done in/);
});

test('--dry-run prints the count and an estimate and writes nothing', async () => {
  const out = path.join(dir, 'dry.mbtiles');
  const r = await run(['export', FIELD, ...REGION, '-o', out, '--dry-run']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /89 tiles \(plane zoom 0-3, archive zoom 1-4\)/);
  assert.match(r.stdout, /estimate from 16 sample tiles: \d+ bytes\/tile/);
  assert.ok(!existsSync(out));
});

test('bad arguments are refused with a message naming what is wrong', async () => {
  const cases = [
    [['export', 'perlin/7?octaves=20', ...REGION, '-o', 'x.pmtiles'], /octaves must be an integer in 1\.\.16, got '20'/],
    [['export', 'foo/7', ...REGION, '-o', 'x.pmtiles'], /unknown kind 'foo'/],
    [['export', FIELD, '--zoom', '0-31', '--bbox', '0,0,1,1', '-o', 'x.pmtiles'], /--zoom must be Z or A-B with 0 <= A <= B <= 30, got '0-31'/],
    [['export', FIELD, '--zoom', '1', '--bbox', '5,0,1,1', '-o', 'x.pmtiles'], /--bbox must be X0,Y0,X1,Y1 with X0<X1/],
    [['export', FIELD, '--zoom', '1', '-o', 'x.pmtiles'], /missing --bbox or --tiles/],
    [['export', FIELD, ...REGION, '-o', 'x.pmtiles', '--shard', '3/3'], /--shard must be K\/N with 0 <= K < N/],
    [['export', FIELD, ...REGION], /missing -o OUTPUT/],
    [['merge', '-o', 'x.pmtiles', 'a.mbtiles'], /a\.mbtiles is not a pmtiles/],
  ];
  for (const [args, re] of cases) {
    const r = await run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
  // An existing MBTiles file of another export is not touched.
  const { mb } = await allOutputs();
  const before = statSync(mb).mtimeMs;
  const r = await run(['export', 'simplex/1', ...REGION, '-o', mb]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /exists and holds another export/);
  assert.equal(statSync(mb).mtimeMs, before);
  // Shards of two different exports are not merged.
  const other = path.join(dir, 'other.mbtiles');
  assert.equal((await run(['export', 'simplex/1', ...REGION, '-o', other, '--shard', '1/3'])).code, 0);
  for (const [a, b, ext] of [[mb, other, 'mbtiles'], [(await allOutputs()).pm, path.join(dir, 'whole.pmtiles'), 'pmtiles']]) {
    const m = await run(['merge', '-o', path.join(dir, `mixed.${ext}`), a, b]);
    assert.equal(m.code, 1, m.stderr);
    assert.match(m.stderr, /input 2 \(.*\) is a shard of another (field|export)/);
    assert.ok(!existsSync(path.join(dir, `mixed.${ext}`)));
  }
});
