// period.test.mjs: tileable fields (`period`) through the daemon: a tile
// pyramid whose zoom-0 tile is one period wraps (tile x + 2^z is tile x, byte
// for byte, and the tiles across the wrap join without a seam, decoded
// pixels); every encoding repeats (/point, /points, .npy, .r16, terrarium,
// grid.npy, stats); one ETag per field; /api/kinds, OpenAPI and TileJSON know
// the parameter; every bad period is a 400 that says why, on every endpoint.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PNG } from 'pngjs';
import { startDaemon, get } from './daemon.mjs';
import { seamCheck } from './seams.mjs';

let d;
before(async () => { d = await startDaemon({ args: ['--cache-mb', '64'] }); });
after(async () => { await d.stop(); });

const decode = (buf) => PNG.sync.read(buf);
const WORLD = 16; // plane units across the zoom-0 tile (docs/field.md, "Tile geometry")

async function ok(url, init) {
  const r = await get(url, init);
  assert.equal(r.status, 200, `${url}: ${r.text}`);
  return r;
}

const FIELDS = [
  // kind, seed, query: the period is the zoom-0 tile, or half of it
  ['perlin', 7, 'period=16&octaves=5&palette=terrain&shade=1'],
  ['value', 3, 'period=16&frequency=0.75&octaves=3&fractal=ridged'],
  ['improved', 0, 'period=8&octaves=4&palette=viridis&shade=1'],
  ['perlin', 11, 'period=16&octaves=3&warp=0.5&t=1.5&shade=1'],
  ['cellular', 4, 'period=16&octaves=2&return=f2-f1&palette=terrain'],
];

test('a tile pyramid of a periodic field wraps: tile (z, x + n, y) and (z, x, y - n) are tile (z, x, y), n tiles a period', async () => {
  for (const [kind, seed, q] of FIELDS) {
    const period = Number(/period=([\d.]+)/.exec(q)[1]);
    const warped = /warp=/.test(q);
    for (const z of [1, 2]) {
      const n = (2 ** z * period) / WORLD; // tiles per period
      for (const [x, y] of [[0, 0], [n - 1, -1]]) {
        const a = await ok(`${d.url}/${kind}/${seed}/${z}/${x}/${y}.png?${q}`);
        for (const [bx, by] of [[x + n, y], [x, y - n], [x - 3 * n, y + 2 * n]]) {
          const b = await ok(`${d.url}/${kind}/${seed}/${z}/${bx}/${by}.png?${q}`);
          if (!warped) {
            // same pixels, so the same bytes; not the same ETag (another URL)
            assert.ok(a.body.equals(b.body), `${kind} ${q}: tile ${z}/${bx}/${by} differs from ${z}/${x}/${y}`);
          } else {
            // the warped point rounds differently (values within 1e-9): pixels within 1 level
            const pa = decode(a.body), pb = decode(b.body);
            let worst = 0;
            for (let i = 0; i < pa.data.length; i++) worst = Math.max(worst, Math.abs(pa.data[i] - pb.data[i]));
            assert.ok(worst <= 1, `${kind} ${q}: tile ${z}/${bx}/${by} differs from ${z}/${x}/${y} by ${worst}`);
          }
        }
      }
    }
  }
});

test('the tiles across the wrap join like any neighbours (decoded pixels); without period the same join has a seam', async () => {
  for (const [kind, seed, q] of FIELDS) {
    const period = Number(/period=([\d.]+)/.exec(q)[1]);
    const z = 2, n = (2 ** z * period) / WORLD;
    const tile = async (query, x, y) => decode((await ok(`${d.url}/${kind}/${seed}/${z}/${x}/${y}.png?${query}`)).body);
    // the last tile of the period, and the first one (its neighbour once wrapped)
    const last = await tile(q, n - 1, n - 1), first = await tile(q, 0, n - 1), top = await tile(q, n - 1, 0);
    for (const channel of [0, 1, 2]) {
      for (const [what, m] of [['columns', seamCheck(last, first, 256, true, channel)],
        ['rows', seamCheck(last, top, 256, false, channel)]]) {
        assert.ok(m.seam <= 1.5 * m.inner + 1,
          `${kind} ${q}: the wrap's ${what}, channel ${channel}: seam ${m.seam.toFixed(2)} vs inner ${m.inner.toFixed(2)}`);
      }
    }
    // control: the measure sees a seam between the same two tiles of the plain field
    const plain = q.replace(/period=[\d.]+&?/, '');
    const pl = await tile(plain, n - 1, n - 1), pf = await tile(plain, 0, n - 1);
    const c = seamCheck(pl, pf, 256, true, 0);
    assert.ok(c.seam > 1.5 * c.inner + 1, `control ${kind} ${plain}: ${c.seam} vs ${c.inner}`);
  }
});

test('every encoding repeats: /point, /points, .npy, .r16, terrarium, grid.npy, stats', async () => {
  const q = 'period=4&octaves=4&frequency=1.5';
  for (const kind of ['value', 'perlin', 'improved', 'cellular']) {
    // /point: the same JSON numbers one period away (x and y, negative too)
    const p0 = await ok(`${d.url}/${kind}/5/point?x=0.3125&y=-1.75&${q}`);
    assert.equal(p0.json.params.period, 4);
    for (const [x, y] of [[4.3125, -1.75], [0.3125, 2.25], [-11.6875, 38.25]]) {
      const p = await ok(`${d.url}/${kind}/5/point?x=${x}&y=${y}&${q}`);
      assert.equal(p.json.value, p0.json.value, `${kind} (${x}, ${y})`);
      assert.deepEqual(p.json.gradient, p0.json.gradient, `${kind} (${x}, ${y})`);
    }
    // /points, 2D and 3D (t free: its own in each point)
    const post = (points) => ok(`${d.url}/${kind}/5/points?${q}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ points }),
    });
    const pts = await post([[1.125, 2.5], [5.125, 2.5], [1.125, -1.5]]);
    assert.equal(pts.json.values[1], pts.json.values[0]);
    assert.equal(pts.json.values[2], pts.json.values[0]);
    assert.deepEqual(pts.json.gradients[1], pts.json.gradients[0]);
    const p3 = await post([[1.125, 2.5, 0.7], [-2.875, 6.5, 0.7], [1.125, 2.5, 1.7]]);
    assert.equal(p3.json.values[1], p3.json.values[0]);
    assert.deepEqual(p3.json.gradients[1], p3.json.gradients[0]);
    assert.notEqual(p3.json.values[2], p3.json.values[0], 't does not wrap');
    assert.equal(pts.json.values[0], (await ok(`${d.url}/${kind}/5/point?x=1.125&y=2.5&${q}`)).json.value);
    // numeric tiles: zoom 2 tiles are 4 units, one period
    for (const ext of ['.npy', '.r16', '.png?encoding=terrarium', '.npy?gradient=1']) {
      const sep = ext.includes('?') ? '&' : '?';
      const a = await ok(`${d.url}/${kind}/5/2/1/-2${ext}${sep}${q}`);
      const b = await ok(`${d.url}/${kind}/5/2/2/-1${ext}${sep}${q}`);
      assert.ok(a.body.equals(b.body), `${kind} ${ext}`);
    }
    // a grid one period wide: column 64 is column 0, row 64 is row 0
    const g = await ok(`${d.url}/${kind}/5/grid.npy?x=-2&y=3&step=0.0625&width=65&height=65&${q}`);
    const g2 = await ok(`${d.url}/${kind}/5/grid.npy?x=2&y=-1&step=0.0625&width=65&height=65&${q}`);
    assert.ok(g.body.equals(g2.body), `${kind} grid.npy one period away`);
    const f = new Float32Array(g.body.buffer.slice(g.body.byteOffset + g.body.length - 65 * 65 * 4, g.body.byteOffset + g.body.length));
    for (let j = 0; j < 65; j++) assert.equal(f[j * 65 + 64], f[j * 65], `${kind} grid row ${j}: column 64 vs 0`);
    for (let i = 0; i < 65; i++) assert.equal(f[64 * 65 + i], f[i], `${kind} grid column ${i}: row 64 vs 0`);
    // stats of one period, two periods away: the same answer
    const s1 = await ok(`${d.url}/${kind}/5/stats?x=0&y=0&step=0.0625&width=64&height=64&${q}`);
    const s2 = await ok(`${d.url}/${kind}/5/stats?x=8&y=-4&step=0.0625&width=64&height=64&${q}`);
    for (const key of ['min', 'max', 'mean', 'sd', 'peaks']) assert.equal(s2.json[key], s1.json[key], `${kind} stats ${key}`);
    assert.deepEqual(s2.json.histogram, s1.json.histogram);
  }
});

test('one field, one ETag: period=16, 16.0 and 1.6e1 share it; the period is part of it; absent changes nothing', async () => {
  const etag = async (q) => (await ok(`${d.url}/perlin/7/1/0/0.png${q}`)).headers.get('etag');
  const e = await etag('?period=16');
  assert.equal(await etag('?period=16.0'), e);
  assert.equal(await etag('?period=1.6e1&octaves=1'), e);
  assert.notEqual(await etag('?period=8'), e);
  const plain = await etag('');
  assert.notEqual(plain, e);
  assert.equal(await etag('?octaves=1&lattice=square'), plain);
  // the canonical order puts period after lattice, before t
  const p = await ok(`${d.url}/value/7/point?x=1&y=2&t=3&period=16&lattice=square`);
  assert.deepEqual(Object.keys(p.json.params), ['frequency', 'octaves', 'lacunarity', 'gain', 'fractal', 'warp', 'lattice', 'period', 't']);
  const q = await ok(`${d.url}/value/7/point?x=1&y=2`);
  assert.ok(!('period' in q.json.params), 'no period when none was given');
});

test('/api/kinds, OpenAPI and TileJSON know period', async () => {
  const kinds = (await ok(`${d.url}/api/kinds`)).json;
  const p = kinds.parameters.find((x) => x.name === 'period');
  assert.ok(p, 'period in /api/kinds');
  assert.equal(p.type, 'number');
  assert.equal(p.optional, true);
  assert.equal(p.default, undefined);
  assert.deepEqual(p.kinds, ['value', 'perlin', 'improved', 'cellular', 'classic']);
  assert.equal(p.exclusiveMinimum, true);
  assert.match(p.description, /repeats/);
  const openapi = (await ok(`${d.url}/openapi.json`)).json;
  const op = openapi.paths['/{kind}/{seed}/{z}/{x}/{y}.png'].get;
  const q = op.parameters.find((x) => x.name === 'period');
  assert.ok(q, 'period in the tile operation');
  assert.equal(q.required, false);
  assert.equal(q.schema.exclusiveMinimum, 0);
  assert.match(q.description, /\(value, perlin, improved, cellular and classic only\)$/);
  const tj = (await ok(`${d.url}/perlin/7/tile.json?period=16.0&octaves=3`)).json;
  assert.match(tj.tiles[0], /[?&]period=16(&|$)/);
  assert.match(tj.tiles[0], /lattice=square&period=16/);
});

test('a bad period is a 400 that says why, on every endpoint', async () => {
  const cases = [
    ['simplex', 'period=16', "parameter 'period' applies only to value, perlin, improved, cellular and classic, not to simplex: simplex noise's triangular lattice has no square period"],
    ['perlin', 'lattice=triangle&period=16', 'period needs lattice=square: the triangle lattice has no square period'],
    ['value', 'period=16&lattice=triangle', 'period needs lattice=square'],
    ['perlin', 'period=0', "period must be a number in (0, 1e9], got '0'"],
    ['perlin', 'period=-16', "period must be a number in (0, 1e9], got '-16'"],
    ['perlin', 'period=nan', "period must be a number in (0, 1e9], got 'nan'"],
    ['perlin', 'period=inf', "period must be a number in (0, 1e9], got 'inf'"],
    ['perlin', 'period=', 'period must be a number in (0, 1e9], got an empty value'],
    ['perlin', 'period=abc', "period must be a number in (0, 1e9], got 'abc'"],
    ['perlin', 'period=2.5', 'period x frequency must be a whole number of lattice cells (1 or more), got 2.5'],
    ['improved', 'period=16&frequency=0.1', 'period x frequency must be a whole number of lattice cells (1 or more), got 1.6'],
    ['value', 'period=3&octaves=3&lacunarity=2.5', "period x frequency x lacunarity^1 (octave 1's period in lattice cells) must be a whole number, got 7.5: lacunarity must be an integer when period is set"],
    ['perlin', 'period=1e9&frequency=2', "period x frequency (octave 0's period in lattice cells) must be at most 1073741824 (2^30), got 2e9"],
    ['perlin', 'period=4&period=4', "parameter 'period' given twice"],
  ];
  const json = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ points: [[0, 0]] }) };
  for (const [kind, q, msg] of cases) {
    for (const [path, init] of [['1/0/0.png', undefined], ['point?x=1&y=2', undefined], ['points', json], ['2/1/1.npy', undefined],
      ['grid.npy?x=0&y=0&step=1&width=2&height=2', undefined], ['tile.json', undefined], ['stats?x=0&y=0&step=1&width=2&height=2', undefined]]) {
      const url = `${d.url}/${kind}/1/${path}${path.includes('?') ? '&' : '?'}${q}`;
      const r = await get(url, init);
      assert.equal(r.status, 400, `${url}: ${r.status} ${r.text}`);
      assert.ok(r.json.error.message.startsWith(msg), `${url}: '${r.json.error.message}' does not start with '${msg}'`);
    }
  }
});
