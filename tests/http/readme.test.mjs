// readme.test.mjs: runs every curl example of README.md and of the pages in
// docs/ with the real curl against a test daemon and checks each answer as a
// reader would: status, content type, PNG signature and size, JSON keys;
// where the page shows the answer (a ```json block right after the
// example's ```sh block), the answer must be that JSON (numbers within
// 1e-12). So the documentation cannot drift from the daemon.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon } from './daemon.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const README_HOST = 'http://127.0.0.1:8080';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// Splits one shell command line into words: '...' and "..." quoting and
// backslash escapes. Shell features a plain exec cannot honour (pipes,
// redirection, variables, command lists) are refused, so every example is
// runnable exactly as written.
export function shellWords(line) {
  const words = [];
  let cur = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      if (cur !== null) { words.push(cur); cur = null; }
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed ' in: ${line}`);
      cur = (cur ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let s = '';
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '\\' && '"\\$`'.includes(line[i + 1])) s += line[++i];
        else if (line[i] === '$' || line[i] === '`') throw new Error(`expansion in: ${line}`);
        else s += line[i];
      }
      if (i >= line.length) throw new Error(`unclosed " in: ${line}`);
      cur = (cur ?? '') + s;
    } else if (c === '\\') {
      cur = (cur ?? '') + (line[i + 1] ?? '');
      i++;
    } else if (c === '#' && cur === null) {
      break; // a comment
    } else if ('|&;<>$`()'.includes(c)) {
      throw new Error(`shell syntax '${c}' in example: ${line}`);
    } else {
      cur = (cur ?? '') + c;
    }
  }
  if (cur !== null) words.push(cur);
  return words;
}

// The examples: every line of a ```sh block that starts with `curl`, or
// with a GDAL tool (`gdalinfo`, `gdal_translate`: run in the same directory,
// after the curl that fetched their file), backslash-continued lines joined;
// every ```python block (run by Debian's python3, its output compared with a
// ```text block right after it); every ```json-maplibre block (a MapLibre
// style fragment whose raster-dem tiles must be served). A ```json block that
// follows an sh block holding exactly one curl is that example's expected
// answer.
export function readmeExamples(md) {
  const lines = md.split('\n');
  const out = [];
  let lastBlock = null; // examples of the sh block just closed
  for (let i = 0; i < lines.length; i++) {
    // a fence's info string may hold a '-' (json-maplibre): read as
    // anything else, it would put every later fence out of step
    const fence = /^```([\w-]*)\s*$/.exec(lines[i]);
    if (!fence) {
      if (lines[i].trim() !== '') lastBlock = null;
      continue;
    }
    const lang = fence[1];
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    if (lang === 'sh') {
      const block = [];
      for (let k = 0; k < body.length; k++) {
        let cmd = body[k];
        const lineNo = start + 2 + k;
        while (/\\$/.test(cmd) && k + 1 < body.length) cmd = cmd.slice(0, -1) + ' ' + body[++k].trim();
        if (/^curl\s/.test(cmd.trim())) block.push({ line: lineNo, cmd: cmd.trim() });
        else if (/^gdal(info|_translate)\s/.test(cmd.trim())) block.push({ line: lineNo, cmd: cmd.trim(), tool: true });
      }
      out.push(...block);
      lastBlock = block.filter((e) => !e.tool);
    } else if (lang === 'json' && lastBlock && lastBlock.length === 1) {
      lastBlock[0].expected = body.join('\n');
      lastBlock = null;
    } else if (lang === 'python') {
      const ex = { line: start + 2, cmd: body[0] ?? '', python: body.join('\n') };
      out.push(ex);
      lastBlock = [ex];
    } else if (lang === 'text' && lastBlock && lastBlock.length === 1 && lastBlock[0].python !== undefined) {
      lastBlock[0].expectedText = body.join('\n');
      lastBlock = null;
    } else if (lang === 'json-maplibre') {
      out.push({ line: start + 2, cmd: 'MapLibre style fragment', maplibre: body.join('\n') });
      lastBlock = null;
    } else {
      lastBlock = null;
    }
  }
  return out;
}

// The page's answer and the daemon's agree: same keys, same strings and
// integers, numbers within 1e-12 (relative above 1; what a reader compares; the
// exact bits are pinned by the golden-vector tests, and a last-ulp change in
// the core must not make the documentation wrong).
export function sameAnswer(a, e) {
  if (typeof e === 'number') {
    return typeof a === 'number' && (a === e || Math.abs(a - e) <= 1e-12 * Math.max(1, Math.abs(e)));
  }
  if (Array.isArray(e)) return Array.isArray(a) && a.length === e.length && e.every((v, i) => sameAnswer(a[i], v));
  if (e !== null && typeof e === 'object') {
    if (a === null || typeof a !== 'object' || Array.isArray(a)) return false;
    const ka = Object.keys(a).sort(), ke = Object.keys(e).sort();
    return ka.length === ke.length && ke.every((k, i) => ka[i] === k && sameAnswer(a[k], e[k]));
  }
  return a === e;
}

function runTool(cmd, args, cwd, input) {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { cwd, encoding: 'utf8', timeout: 60000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? err.signal) : 0, stdout, stderr }));
    if (input !== undefined) child.stdin.end(input);
  });
}

function curl(args, cwd) {
  return new Promise((resolve) => {
    execFile('curl', args, { cwd, encoding: 'buffer', timeout: 30000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? err.signal) : 0, stdout, stderr: stderr.toString() }));
  });
}

// The last response's status line and headers from a curl -D dump.
function parseHeaderDump(text) {
  const blocks = text.split(/\r?\n\r?\n/).filter((b) => /^HTTP\//.test(b));
  const last = blocks[blocks.length - 1] ?? '';
  const [statusLine, ...rest] = last.split(/\r?\n/);
  const headers = {};
  for (const h of rest) {
    const m = /^([^:]+):\s*(.*)$/.exec(h);
    if (m) headers[m[1].toLowerCase()] = m[2];
  }
  return { status: Number(statusLine.split(' ')[1]), headers };
}

function optionValue(words, names) {
  for (let i = 0; i < words.length; i++) {
    if (names.includes(words[i])) return words[i + 1];
    for (const n of names) if (n.startsWith('--') && words[i].startsWith(n + '=')) return words[i].slice(n.length + 1);
  }
  return undefined;
}

// The README and every page of docs/, each example tagged with its file.
const PAGES = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const examplesOf = (file) => readmeExamples(readFileSync(path.join(root, file), 'utf8')).map((e) => ({ ...e, file }));
const readmeOnly = examplesOf('README.md');
const examples = PAGES.flatMap((f) => (f === 'README.md' ? readmeOnly : examplesOf(f)));
let daemon;
let work;

before(async () => {
  daemon = await startDaemon();
  work = mkdtempSync(path.join(tmpdir(), 'noisetile-readme-'));
});

after(async () => {
  if (work) rmSync(work, { recursive: true, force: true });
  if (daemon) await daemon.stop();
});

test('README has curl examples for a tile, a point, a batch, TileJSON, healthz and metrics', () => {
  const urls = readmeOnly.map((e) => e.cmd);
  for (const [what, re] of [
    ['a tile', /\/\d+\/-?\d+\/-?\d+\.png/],
    ['an @2x tile', /@2x\.png/],
    ['a point', /\/point\?/],
    ['a batch (POST /points)', /\/points/],
    ['TileJSON', /\/tile\.json/],
    ['/api/kinds', /\/api\/kinds/],
    ['/healthz', /\/healthz/],
    ['/metrics', /\/metrics/],
  ]) assert.ok(urls.some((u) => re.test(u)), `no README curl example for ${what}`);
  assert.ok(readmeOnly.filter((e) => e.expected !== undefined).length >= 2, 'README shows fewer than 2 answers to check');
});

// Issue 28's example: a voxel-style terrain as a graph (continentalness,
// erosion, peaks and valleys through curves), POSTed, its heights read by
// numpy, its output shown (and so checked below, as every Python example's).
test('README builds the voxel-style terrain as a graph and reads its heights into numpy', () => {
  const ex = readmeOnly.find((e) => e.python !== undefined && /\/api\/graphs/.test(e.python));
  assert.ok(ex, 'no README Python example POSTing a graph');
  for (const re of [/continentalness/, /erosion/, /weirdness/, /"curve"/, /np\.load/, /\['grid'\]/]) assert.match(ex.python, re);
  assert.ok(ex.expectedText !== undefined, 'the example shows its output');
});

// The examples that moved from the README to docs/ are still there (and so
// still run below): a page losing one fails here, not silently.
test('docs/ pages keep their examples: kinds, statistics, periodic grids, heights, MapLibre, GDAL', () => {
  const docs = examples.filter((e) => e.file !== 'README.md');
  for (const [what, re, file] of [
    ['a cellular point', /\/cellular\/\d+\/point\?/, 'docs/api.md'],
    ['a classic point', /\/classic\/\d+\/point\?/, 'docs/api.md'],
    ['a 3D improved point', /\/improved\/0\/point\?.*t=7/, 'docs/field.md'],
    ['/stats', /\/stats\?/, 'docs/api.md'],
    ['a periodic grid in numpy', /grid\.npy\?.*period=/, 'docs/api.md'],
    ['a grid.npy', /\/grid\.npy\?/, 'docs/heights.md'],
    ['a grid.r16', /\/grid\.r16\?/, 'docs/heights.md'],
    ['a gray16 grid.png', /\/grid\.png\?.*encoding=gray16/, 'docs/heights.md'],
    ['Terrarium TileJSON', /tile\.json\?encoding=terrarium/, 'docs/heights.md'],
    ['a MapLibre style fragment', /^MapLibre/, 'docs/heights.md'],
    ['gdalinfo', /^gdalinfo /, 'docs/heights.md'],
    ['gdal_translate', /^gdal_translate /, 'docs/heights.md'],
  ]) assert.ok(docs.some((e) => e.file === file && re.test(e.python ?? e.cmd)), `${file} has no example for ${what}`);
  assert.ok(docs.filter((e) => e.expected !== undefined).length >= 4, 'docs/ show fewer than 4 answers to check');
  assert.ok(docs.filter((e) => e.expectedText !== undefined).length >= 1, 'docs/ show no Python output to check');
});

for (const ex of examples) {
  test(`${ex.file} line ${ex.line}: ${ex.cmd.slice(0, 110)}`, async () => {
    const rewrite = (s) => s.split(README_HOST).join(daemon.url);
    if (ex.python !== undefined) {
      // Debian's python3 (python3-numpy), the program as shown
      const r = await runTool('/usr/bin/python3', ['-'], work, rewrite(ex.python));
      assert.equal(r.code, 0, `python3 exited ${r.code}: ${r.stderr}`);
      if (ex.expectedText !== undefined) assert.equal(r.stdout.trim(), ex.expectedText.trim());
      return;
    }
    if (ex.maplibre !== undefined) {
      const style = JSON.parse(rewrite(ex.maplibre));
      for (const src of Object.values(style.sources)) {
        assert.equal(src.type, 'raster-dem');
        assert.ok(['terrarium', 'mapbox'].includes(src.encoding));
        assert.match(src.tiles[0], new RegExp(`encoding=${src.encoding}`));
        for (const [z, x, y] of [[0, 0, 0], [3, -2, 1]]) {
          const url = src.tiles[0].replace('{z}', z).replace('{x}', x).replace('{y}', y);
          const res = await fetch(url);
          assert.equal(res.status, 200, url);
          assert.equal(res.headers.get('content-type'), 'image/png');
          const png = Buffer.from(await res.arrayBuffer());
          assert.equal(png[25], 2, 'a raster-dem tile is 8-bit RGB'); // IHDR colour type
          assert.equal(png.readUInt32BE(16), src.tileSize);
        }
      }
      assert.ok(style.sources[style.terrain.source], 'terrain names a source of the fragment');
      return;
    }
    if (ex.tool) {
      const words = shellWords(ex.cmd);
      const r = await runTool(words[0], words.slice(1), work);
      assert.equal(r.code, 0, `${words[0]} exited ${r.code}: ${r.stderr}`);
      if (words[0] === 'gdalinfo') {
        assert.match(r.stdout, /Type=UInt16/, 'gdalinfo does not see a 16-bit band');
        assert.match(r.stdout, /STATISTICS_MAXIMUM=\d+/);
      }
      return;
    }
    const words = shellWords(rewrite(ex.cmd));
    assert.equal(words[0], 'curl');
    const urlWord = words.find((w) => w.startsWith(daemon.url));
    assert.ok(urlWord, `example does not use ${README_HOST}: ${ex.cmd}`);
    const url = new URL(urlWord);
    const head = words.some((w) => w === '--head' || /^-[a-zA-Z]*I[a-zA-Z]*$/.test(w));
    const include = words.some((w) => w === '--include' || /^-[a-zA-Z]*i[a-zA-Z]*$/.test(w));
    const outFile = optionValue(words, ['-o', '--output']);
    const dump = path.join(work, `headers-${ex.line}`);
    const r = await curl([...words.slice(1), '--max-time', '20', '-D', dump], work);
    assert.equal(r.code, 0, `curl exited ${r.code}: ${r.stderr}`);
    const { status, headers } = parseHeaderDump(readFileSync(dump, 'latin1'));
    // An example whose shown answer is an error document expects that status.
    const expected = ex.expected === undefined ? undefined : JSON.parse(rewrite(ex.expected));
    const wantStatus = expected?.error?.status ?? 200;
    assert.equal(status, wantStatus, `status ${status}, ${ex.file} expects ${wantStatus}`);
    const type = headers['content-type'] ?? '';
    let body = outFile ? readFileSync(path.join(work, outFile)) : r.stdout;
    if (outFile) assert.ok(existsSync(path.join(work, outFile)));
    if (head) {
      // curl -I prints the headers; a HEAD answer has no body after them.
      const printed = body.toString('latin1');
      assert.match(printed, /^HTTP\/1\.1 200 /);
      assert.ok(/\r\n\r\n$/.test(printed), 'HEAD answer carried a body');
      assert.equal(printed.indexOf('\x89PNG'), -1, 'HEAD answer carried the PNG');
      body = null;
    } else if (include) {
      const sep = body.indexOf('\r\n\r\n');
      body = body.subarray(sep + 4);
    }
    const json = () => {
      assert.match(type, /^application\/json/);
      return JSON.parse(body.toString('utf8'));
    };
    const p = url.pathname;

    if (wantStatus !== 200) {
      const j = json();
      assert.equal(j.error.status, wantStatus);
      assert.equal(typeof j.error.message, 'string');
    } else if (/\.png$/.test(p)) {
      assert.equal(type, 'image/png');
      assert.ok(headers.etag, 'tile without ETag');
      if (body) {
        assert.deepEqual(body.subarray(0, 8), PNG_SIGNATURE, 'not a PNG');
        const grid = /\/grid\.png$/.test(p);
        const side = /@2x\.png$/.test(p) ? 512 : 256;
        assert.equal(body.readUInt32BE(16), grid ? Number(url.searchParams.get('width')) : side, 'PNG width');
        assert.equal(body.readUInt32BE(20), grid ? Number(url.searchParams.get('height')) : side, 'PNG height');
        if (url.searchParams.get('encoding') === 'gray16') assert.equal(body[24], 16, 'PNG bit depth');
      }
    } else if (/\.(npy|r16)$/.test(p)) {
      const grid = /\/grid\.(npy|r16)$/.test(p);
      const w = grid ? Number(url.searchParams.get('width')) : (/@2x\./.test(p) ? 512 : 256);
      const h = grid ? Number(url.searchParams.get('height')) : w;
      assert.equal(headers['x-width'], String(w));
      assert.equal(headers['x-height'], String(h));
      assert.ok(headers.etag, 'no ETag');
      if (body && /\.r16$/.test(p)) {
        assert.equal(type, 'application/octet-stream');
        assert.equal(body.length, 2 * w * h);
      } else if (body) {
        assert.equal(type, 'application/x-npy');
        assert.equal(body.subarray(0, 6).toString('latin1'), '\x93NUMPY');
      }
    } else if (/\/point$/.test(p)) {
      const j = json();
      for (const k of ['kind', 'seed', 'params', 'x', 'y', 'value', 'gradient']) assert.ok(k in j, `point answer lacks ${k}`);
      assert.ok(j.value >= -1 && j.value <= 1, `value ${j.value}`);
      assert.equal(j.x, Number(url.searchParams.get('x')));
      assert.equal(j.y, Number(url.searchParams.get('y')));
      assert.equal(j.gradient.length, url.searchParams.has('t') ? 3 : 2);
    } else if (/\/points$/.test(p)) {
      const data = optionValue(words, ['-d', '--data', '--data-binary', '--data-raw']);
      assert.ok(data, 'batch example without a body');
      const sent = JSON.parse(data).points;
      const j = json();
      assert.equal(j.values.length, sent.length);
      assert.equal(j.gradients.length, sent.length);
      j.gradients.forEach((g, i) => assert.equal(g.length, sent[i].length === 3 || url.searchParams.has('t') ? 3 : 2));
      j.values.forEach((v) => assert.ok(v >= -1 && v <= 1, `value ${v}`));
    } else if (/\/stats$/.test(p)) {
      const j = json();
      const w = ['x', 'y', 'step', 'width', 'height'].map((k) => Number(url.searchParams.get(k)));
      assert.deepEqual([j.window.x, j.window.y, j.window.step, j.window.width, j.window.height], w);
      assert.equal(j.count, w[3] * w[4]);
      assert.equal(j.histogram.counts.reduce((a, b) => a + b, 0), j.count);
    } else if (/\/tile\.json$/.test(p)) {
      const j = json();
      assert.equal(j.tilejson, '3.0.0');
      assert.ok(j.tiles[0].startsWith(daemon.url + '/'), `tiles template ${j.tiles[0]} not on ${daemon.url}`);
      assert.match(j.tiles[0], /\{z\}\/\{x\}\/\{y\}\.png/);
      if (url.searchParams.has('encoding')) assert.equal(j.encoding, url.searchParams.get('encoding'));
      // mapping=mercator&scale=W become the template's /mercator/W/ route
      if (url.searchParams.get('mapping') === 'mercator')
        assert.ok(j.tiles[0].includes(`/mercator/${url.searchParams.get('scale') ?? 32}/{z}/`), `template ${j.tiles[0]}`);
      for (const [k, v] of url.searchParams) {
        if (k === 'mapping' || k === 'scale') continue;
        assert.match(j.tiles[0], new RegExp(`[?&]${k}=`), `template drops ${k}=${v}`);
      }
    } else if (p === '/api/kinds') {
      const j = json();
      assert.deepEqual(j.kinds, ['value', 'perlin', 'simplex', 'improved', 'cellular', 'classic']);
      assert.ok(Array.isArray(j.parameters) && j.parameters.length > 0);
    } else if (p === '/healthz') {
      if (body) assert.ok(body.length > 0);
    } else if (p === '/metrics') {
      assert.match(type, /^text\/plain/);
      if (body) assert.match(body.toString(), /^noisetile_\w+/m);
    } else if (p === '/openapi.json') {
      assert.match(json().openapi, /^3\./);
    } else if (p === '/api/graphs') {
      const j = json();
      if (optionValue(words, ['-d', '--data', '--data-binary', '--data-raw']) !== undefined) {
        // POST: the canonical text and URL templates on this daemon
        assert.equal(typeof j.graph, 'string');
        assert.ok(j.tiles.startsWith(daemon.url + '/graph/'), `tiles template ${j.tiles}`);
        assert.ok(j.tiles.endsWith(j.graph));
      } else {
        assert.ok(Array.isArray(j.graphs) && j.graphs.length > 0, 'no named graphs');
        for (const g of j.graphs) for (const k of ['name', 'description', 'graph', 'json']) assert.ok(k in g, `graph lacks ${k}`);
      }
    } else if (p === '/api/tilematrixset.json') {
      const j = json();
      assert.equal(j.id, 'NoisetilePlane');
      assert.equal(j.tileMatrices.length, 31);
    } else {
      assert.fail(`${ex.file} example for ${p} has no check here; add one`);
    }

    if (ex.expected !== undefined) {
      assert.ok(body, 'an expected answer needs a body');
      const actual = JSON.parse(body.toString('utf8'));
      assert.ok(sameAnswer(actual, expected),
        `answer differs from the one ${ex.file} shows:\n${JSON.stringify(actual)}\n${ex.file}: ${JSON.stringify(expected)}`);
    }
  });
}
