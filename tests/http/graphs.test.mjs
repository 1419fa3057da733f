// graphs.test.mjs: field graphs through the daemon (issue 28). A graph that
// is one source node answers every route with the kind URL's bytes, keys and
// ETags; a graph written any way is one canonical URL, one ETag, one cache
// entry, and different graphs differ; two daemons that never saw a graph
// answer its URL alike; every bad graph is a 400 naming what is wrong with a
// JSON pointer; work over the limit is a 422 naming the node; --graphs FILE
// serves named graphs and a bad file stops the start; the presets are listed
// and render.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, get, runOnce } from './daemon.mjs';

let d, dir;
const HILLS = { node: 'add', inputs: [{ node: 'perlin', frequency: 0.5, octaves: 2 }, { node: 'mul', inputs: [0.25, { node: 'simplex', frequency: 2 }] }] };
before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'noisetile-graphs-'));
  writeFileSync(path.join(dir, 'graphs.json'), JSON.stringify({
    'my-hills': { description: 'two octaves of perlin plus a little simplex', graph: HILLS },
    plain: { description: 'a kind by name', graph: { node: 'perlin', octaves: 3 } },
  }));
  d = await startDaemon({ args: ['--cache-mb', '64', '--graphs', path.join(dir, 'graphs.json')] });
});
after(async () => {
  await d.stop();
  rmSync(dir, { recursive: true, force: true });
});


async function post(doc, seed = 7) {
  const r = await get(`${d.url}/api/graphs?seed=${seed}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: typeof doc === 'string' ? doc : JSON.stringify(doc),
  });
  return r;
}

async function canonical(doc) {
  const r = await post(doc);
  assert.equal(r.status, 200, `POST ${JSON.stringify(doc)}: ${r.text}`);
  return r.json.graph;
}

async function metric(name) {
  const m = (await get(`${d.url}/metrics`)).text;
  const line = m.split('\n').find((l) => l.startsWith(`${name} `));
  assert.ok(line, `metric ${name}`);
  return Number(line.split(' ')[1]);
}

// A kind's query parameters as a one-source-node graph: numbers as numbers.
function sourceNode(kind, params) {
  const node = { node: kind };
  for (const [k, v] of new URLSearchParams(params)) node[k] = /^-?[0-9.]+(e-?[0-9]+)?$/.test(v) ? Number(v) : v;
  return node;
}

// Field parameter sets of the goldens and the sweep, per kind (t only where
// the kind is 3D).
const FIELDS = {
  value: ['', 'octaves=6', 'octaves=3&fractal=ridged&warp=0.5', 't=0.75'],
  perlin: ['', 'octaves=5&lacunarity=2.5&gain=0.6&fractal=turbulence', 'frequency=3', 'period=4&octaves=3', 't=0.75&octaves=2', 'lattice=triangle&octaves=2'],
  simplex: ['', 'octaves=4&warp=1', 't=0.25', 'falloff=quartic&gradients=angle'],
  improved: ['', 'octaves=3&fractal=ridged', 't=1.5'],
  cellular: ['', 'return=f2-f1&distance=manhattan&jitter=0.8', 'return=cell&octaves=2'],
  classic: ['', 'octaves=4', 'fade=quintic'],
};
// The golden fields of the noise core (tests/unit/test_noise_golden.c):
// every base (kind and variant) in every mode, frequency 0.75.
const GOLDEN_BASES = [['value', ''], ['value', 'lattice=triangle'], ['perlin', ''], ['perlin', 'lattice=triangle'],
  ['simplex', ''], ['improved', ''], ['cellular', ''], ['classic', 'fade=linear'], ['classic', 'fade=cubic'],
  ['classic', 'fade=quintic'], ['perlin', 'gradients=angle'], ['simplex', 'gradients=angle'], ['simplex', 'falloff=quartic'],
  ['simplex', 'gradients=angle&falloff=quartic']];
const GOLDEN_MODES = ['octaves=1', 'octaves=5', 'fractal=turbulence&octaves=4', 'fractal=ridged&octaves=4',
  'octaves=3&warp=1.5', 'octaves=2&t=-2.75'];
const GOLDEN_FORMS = [
  (k, s) => `/${k}/${s}/3/-2/5.png?palette=terrain&shade=1&`,
  (k, s) => `/${k}/${s}/3/-2/5.webp?zero=1&`,
  (k, s) => `/${k}/${s}/4/2/-3.npy?gradient=1&`,
  (k, s) => `/${k}/${s}/4/2/-3@2x.r16?`,
  (k, s) => `/${k}/${s}/5/3/4.png?encoding=mapbox&`,
  (k, s) => `/${k}/${s}/point?x=-37.3&y=12.6&`,
];

// Render and height options each URL form takes.
const FORMS = [
  (k, s) => `/${k}/${s}/3/-2/5.png?`,
  (k, s) => `/${k}/${s}/3/-2/5.png?palette=terrain&shade=1&`,
  (k, s) => `/${k}/${s}/-2/0/-1.png?palette=terrain&shade=1&`,
  (k, s) => `/${k}/${s}/mercator/32/2/1/2.png?`,
  (k, s) => `/${k}/${s}/2/1/-1.png?palette=viridis&zero=1&`,
  (k, s) => `/${k}/${s}/2/1/-1@2x.png?ramp=heat&`,
  (k, s) => `/${k}/${s}/3/-2/5.webp?shade=1&quality=60&`,
  (k, s) => `/${k}/${s}/3/-2/5.webp?palette=terrain&`,
  (k, s) => `/${k}/${s}/4/2/-3.npy?gradient=1&`,
  (k, s) => `/${k}/${s}/4/2/-3.r16?`,
  (k, s) => `/${k}/${s}/5/3/4.png?encoding=terrarium&height_scale=500&height_offset=10&`,
  (k, s) => `/${k}/${s}/5/3/4.png?encoding=gray16&`,
  (k, s) => `/${k}/${s}/5/3/4.png?encoding=mapbox&`,
  (k, s) => `/${k}/${s}/grid.npy?x=-3.5&y=2.25&step=0.05&width=67&height=45&gradient=1&`,
  (k, s) => `/${k}/${s}/grid.png?x=-3.5&y=2.25&step=0.05&width=67&height=45&palette=terrain&shade=1&`,
  (k, s) => `/${k}/${s}/grid.r16?x=-3.5&y=2.25&step=0.05&width=67&height=45&`,
  (k, s) => `/${k}/${s}/point?x=1.25&y=-3.5&`,
  (k, s) => `/${k}/${s}/stats?x=0&y=0&step=0.1&width=64&height=48&bins=16&`,
  (k, s) => `/${k}/${s}/tile.json?palette=terrain&`,
];

test('a one-source graph is its kind: the same bytes and ETag on every route, one cache entry', async () => {
  let checked = 0;
  for (const [kind, sets] of Object.entries(FIELDS)) {
    for (const params of sets) {
      const g = await canonical(sourceNode(kind, params));
      for (const form of FORMS) {
        const kindUrl = form(kind, 9) + params;
        const graphUrl = form('graph', 9) + 'g=' + g;
        const a = await get(d.url + kindUrl);
        assert.equal(a.status, 200, `${kindUrl}: ${a.text}`);
        const entries = await metric('noisetile_cache_entries');
        const b = await get(d.url + graphUrl);
        assert.equal(b.status, 200, `${graphUrl}: ${b.text}`);
        assert.ok(a.body.equals(b.body), `${graphUrl} differs from ${kindUrl}`);
        assert.equal(b.headers.get('etag'), a.headers.get('etag'), graphUrl);
        assert.equal(b.headers.get('content-type'), a.headers.get('content-type'), graphUrl);
        assert.equal(await metric('noisetile_cache_entries'), entries, `${graphUrl}: no second cache entry`);
        checked++;
      }
      // batches, 2D and (for 3D fields) 3D
      const pts2 = { points: Array.from({ length: 20 }, (_, i) => [i * 0.37 - 5, i * -0.21 + 2]) };
      const pts3 = { points: Array.from({ length: 20 }, (_, i) => [i * 0.37 - 5, i * -0.21 + 2, i * 0.1]) };
      const bodies = [pts2];
      if (kind !== 'classic' && !params.includes('t=') && !params.includes('falloff') && !params.includes('gradients=angle')) bodies.push(pts3);
      for (const body of bodies) {
        const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
        const a = await get(`${d.url}/${kind}/9/points?${params}`, init);
        const b = await get(`${d.url}/graph/9/points?g=${g}`, init);
        assert.equal(a.status, 200, a.text);
        assert.equal(b.status, 200, b.text);
        assert.ok(a.body.equals(b.body), `points ${kind}?${params} (${body.points[0].length}D)`);
        checked++;
      }
    }
  }
  assert.ok(checked > 400);
});

// The same graph written many ways: key order, whitespace, defaults spelled
// or left out, number spellings, sub-graphs named or inline.
function spellings() {
  const out = [];
  const perlins = [
    { node: 'perlin', frequency: 0.5, octaves: 2 },
    { octaves: 2, frequency: 0.5, node: 'perlin' },
    { node: 'perlin', frequency: 5e-1, octaves: 2.0 },
    { node: 'perlin', frequency: 0.50, octaves: 2, gain: 0.5 },
    { node: 'perlin', frequency: 0.5, octaves: 2, seed: 0 },
  ];
  const simplexes = [
    { node: 'simplex', frequency: 2 },
    { frequency: 2.0, node: 'simplex' },
    { node: 'simplex', frequency: 20e-1, octaves: 1 },
  ];
  const muls = [
    (s) => ({ node: 'mul', inputs: [0.25, s] }),
    (s) => ({ inputs: [25e-2, s], node: 'mul' }),
    (s) => ({ node: 'mul', inputs: [{ node: 'constant', value: 0.25 }, s] }),
  ];
  for (const p of perlins) for (const s of simplexes) for (const m of muls) {
    out.push({ node: 'add', inputs: [p, m(s)] });
    out.push({ inputs: [p, m(s)], node: 'add' });
  }
  // named sub-graphs, and text with odd whitespace
  out.push({ nodes: { hills: perlins[0], bumps: simplexes[1] }, output: { node: 'add', inputs: ['hills', { node: 'mul', inputs: [0.25, 'bumps'] }] } });
  out.push({ nodes: { p: perlins[2] }, output: { node: 'add', inputs: ['p', muls[1](simplexes[2])] } });
  out.push('  {"node" : "add" ,\n "inputs":[ {"node":"perlin","frequency":0.5,"octaves":2} , {"node":"mul","inputs":[0.25,{"node":"simplex","frequency":2}]}]}\n');
  return out.slice(0, 50);
}

test('the golden fields as one-source graphs: the kind\'s bytes and ETags (tiles, numbers, points, batches)', async () => {
  let checked = 0;
  const pts2 = JSON.stringify({ points: Array.from({ length: 12 }, (_, i) => [i * 0.173 - 37.3, 12.6 - i * 0.31]) });
  const pts3 = JSON.stringify({ points: Array.from({ length: 12 }, (_, i) => [i * 0.173 - 37.3, 12.6 - i * 0.31, i * 0.2 - 1]) });
  const post = { method: 'POST', headers: { 'Content-Type': 'application/json' } };
  for (const [kind, variant] of GOLDEN_BASES) {
    for (const mode of GOLDEN_MODES) {
      const params = [variant, 'frequency=0.75', mode].filter(Boolean).join('&');
      const probe = await get(`${d.url}/${kind}/2024/point?x=0&y=0&${params}`);
      if (probe.status === 400) continue; // t on a 2D variant: no such field
      const g = await canonical(sourceNode(kind, params));
      for (const form of GOLDEN_FORMS) {
        const a = await get(d.url + form(kind, 2024) + params);
        const b = await get(d.url + form('graph', 2024) + 'g=' + g);
        assert.equal(a.status, 200, a.text);
        assert.ok(a.body.equals(b.body), `${form('graph', 2024)}g=${g} differs from the kind URL`);
        assert.equal(a.headers.get('etag'), b.headers.get('etag'));
        checked++;
      }
      const bodies = [pts2];
      if ((await get(`${d.url}/${kind}/2024/points?${params}`, { ...post, body: pts3 })).status === 200) bodies.push(pts3);
      for (const body of bodies) {
        const a = await get(`${d.url}/${kind}/2024/points?${params}`, { ...post, body });
        const b = await get(`${d.url}/graph/2024/points?g=${g}`, { ...post, body });
        assert.ok(a.body.equals(b.body), `points ${kind}?${params}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 500, `${checked} checks`);
});

test('50 spellings of a graph give one URL, one ETag, one cache entry; other graphs differ', async () => {
  const docs = spellings();
  assert.equal(docs.length, 50);
  const texts = new Set(), urls = new Set(), etags = new Set();
  let firstTile;
  const entries0 = await metric('noisetile_cache_entries');
  for (const doc of docs) {
    const r = await post(doc, 11);
    assert.equal(r.status, 200, `${JSON.stringify(doc)}: ${r.text}`);
    texts.add(r.json.graph);
    urls.add(r.json.tiles);
    const tile = r.json.tiles.replace('{z}', '3').replace('{x}', '1').replace('{y}', '-2');
    const t = await get(tile);
    assert.equal(t.status, 200, t.text);
    etags.add(t.headers.get('etag'));
    if (!firstTile) firstTile = t.body;
    else assert.ok(t.body.equals(firstTile));
  }
  assert.equal(texts.size, 1, [...texts].join('\n'));
  assert.equal(urls.size, 1);
  assert.equal(etags.size, 1);
  assert.equal(await metric('noisetile_cache_entries'), entries0 + 1, 'one cache entry for 50 spellings');
  // the same graph by name (--graphs) is the same entry and ETag
  const named = await get(`${d.url}/my-hills/11/3/1/-2.png`);
  assert.equal(named.status, 200, named.text);
  assert.equal(named.headers.get('etag'), [...etags][0]);
  assert.ok(named.body.equals(firstTile));
  assert.equal(await metric('noisetile_cache_entries'), entries0 + 1);

  // different graphs: different text, ETag (and bytes)
  const others = [
    { node: 'add', inputs: [{ node: 'perlin', frequency: 0.5, octaves: 3 }, { node: 'mul', inputs: [0.25, { node: 'simplex', frequency: 2 }] }] },
    { node: 'add', inputs: [{ node: 'perlin', frequency: 0.5, octaves: 2 }, { node: 'mul', inputs: [0.26, { node: 'simplex', frequency: 2 }] }] },
    { node: 'add', inputs: [{ node: 'perlin', frequency: 0.5, octaves: 2, seed: 1 }, { node: 'mul', inputs: [0.25, { node: 'simplex', frequency: 2 }] }] },
    { node: 'sub', inputs: [{ node: 'perlin', frequency: 0.5, octaves: 2 }, { node: 'mul', inputs: [0.25, { node: 'simplex', frequency: 2 }] }] },
    { node: 'max', inputs: [{ node: 'perlin', frequency: 0.5, octaves: 2 }, { node: 'mul', inputs: [0.25, { node: 'simplex', frequency: 2 }] }] },
  ];
  for (const doc of others) {
    const g = await canonical(doc);
    assert.ok(!texts.has(g), g);
    texts.add(g);
    const t = await get(`${d.url}/graph/11/3/1/-2.png?g=${g}`);
    assert.equal(t.status, 200, t.text);
    assert.ok(!etags.has(t.headers.get('etag')), `${g}: its own ETag`);
    etags.add(t.headers.get('etag'));
  }
});

test('two replicas that never saw a graph answer its URL with the same bytes', async () => {
  const g = await canonical({ node: 'select', inputs: [{ node: 'perlin', frequency: 0.3 }, { node: 'cellular', return: 'f2-f1' }, { node: 'simplex', frequency: 0.1 }], lower: -0.2, upper: 1, falloff: 0.1 });
  const urls = [`/graph/5/2/0/1.png?g=${g}&palette=terrain&shade=1`, `/graph/5/3/1/1.npy?g=${g}&gradient=1`, `/graph/5/point?g=${g}&x=0.5&y=-1.25`,
    `/graph/5/grid.r16?g=${g}&x=0&y=0&step=0.25&width=33&height=17`];
  const a = await startDaemon({ args: ['--cache-mb', '8'] });
  const b = await startDaemon({ args: ['--cache-mb', '8'] });
  try {
    for (const u of urls) {
      const ra = await get(a.url + u), rb = await get(b.url + u);
      assert.equal(ra.status, 200, ra.text);
      assert.ok(ra.body.equals(rb.body), u);
      assert.equal(ra.headers.get('etag'), rb.headers.get('etag'));
    }
  } finally {
    await a.stop();
    await b.stop();
  }
});

// Each bad graph: its status, a message that names the problem, and the
// JSON pointer of the node or parameter.
test('bad graphs are 400 with a message and a JSON pointer; never 500', async () => {
  const bad = [
    [{ node: 'add', inputs: [{ node: 'perlin' }, { node: 'nosuch' }] }, /nosuch/, '/inputs/1'],
    [{ node: 'add', inputs: [{ node: 'perlin' }] }, /input/, ''],
    [{ node: 'neg', inputs: [{ node: 'perlin' }, { node: 'simplex' }] }, /input/, ''],
    [{ nodes: { a: { node: 'add', inputs: ['b', 1] }, b: { node: 'neg', inputs: ['a'] } }, output: 'a' }, /cycle|itself|refers/, '/nodes/'],
    [{ node: 'curve', inputs: [{ node: 'perlin' }], points: [[0, 0], [0.5, 1], [0.4, 0.2]] }, /increas/, '/points'],
    [{ node: 'perlin', octaves: 20 }, /octaves/, '/octaves'],
    [{ node: 'add', inputs: [{ node: 'perlin', octaves: 20 }, 1] }, /octaves/, '/inputs/0/octaves'],
  ];
  for (const [doc, msg, pointer] of bad) {
    const r = await post(doc);
    assert.equal(r.status, 400, `${JSON.stringify(doc)}: ${r.text}`);
    assert.equal(r.json.error.status, 400);
    assert.match(r.json.error.message, msg, JSON.stringify(doc));
    assert.equal(typeof r.json.error.pointer, 'string', `${JSON.stringify(doc)}: a pointer`);
    assert.ok(r.json.error.pointer.startsWith(pointer), `${JSON.stringify(doc)}: pointer ${r.json.error.pointer}, want ${pointer}...`);
  }
  // non-finite constants cannot be written in JSON; in text they do not decode
  for (const body of ['{"node":"add","inputs":[1e999,{"node":"perlin"}]}', '{"node":"constant","value":1e400}']) {
    const r = await post(body);
    assert.equal(r.status, 400, `${body}: ${r.text}`);
    assert.equal(typeof r.json.error.pointer, 'string');
  }
  // beyond the instance limit once fractals are unrolled: refused when POSTed and in a URL
  const deep = { node: 'perlin' };
  let nested = deep;
  for (let i = 0; i < 4; i++) nested = { node: 'fractal', octaves: 16, inputs: [nested] };
  const big = await post(nested);
  assert.equal(big.status, 400, big.text);
  assert.match(big.json.error.message, /4096/);
  assert.equal(typeof big.json.error.pointer, 'string');
  const bigUrl = await get(`${d.url}/graph/7/1/0/0.png?g=fractal(fractal(fractal(fractal(perlin,octaves:16),octaves:16),octaves:16),octaves:16)`);
  assert.equal(bigUrl.status, 400, bigUrl.text);
  assert.match(bigUrl.json.error.message, /4096/);
  const r0 = await post('{"node": "add", "inputs": [');
  assert.equal(r0.status, 400);
  assert.equal(typeof r0.json.error.pointer, 'string');

  // in the URL: the canonical text only
  const g = await canonical(HILLS);
  const cases = [
    [`/graph/7/3/1/1.png?g=nosuch(1)`, 400, /nosuch/],
    [`/graph/7/3/1/1.png?g=${encodeURIComponent(g + ')')}`, 400, /./],
    [`/graph/7/3/1/1.png?g=add(`, 400, /./],
    [`/graph/7/3/1/1.png?g=%FF%FE`, 400, /./],
    [`/graph/7/3/1/1.png?g=${'add(' + '1,'.repeat(2100) + '1)'}`, 400, /long|limit|inputs|bytes/],
    [`/graph/7/3/1/1.png?g=${g}&octaves=3`, 400, /octaves.*source node/],
    [`/graph/7/point?g=${g}&x=1&y=2&frequency=2`, 400, /frequency.*source node/],
    [`/graph/7/3/1/1.png`, 400, /missing parameter 'g'/],
    [`/graph/7/3/1/1.png?g=${g}&g=${g}`, 400, /twice/],
    [`/my-hills/7/3/1/1.png?g=${g}`, 400, /named graph/],
    [`/my-hills/7/3/1/1.png?octaves=2`, 400, /octaves .*named graph my-hills/],
  ];
  for (const [url, status, msg] of cases) {
    const r = await get(d.url + url);
    assert.equal(r.status, status, `${url.slice(0, 80)}: ${r.text}`);
    assert.match(r.json.error.message, msg, url.slice(0, 80));
    if (!url.startsWith('/my-hills')) assert.equal(typeof r.json.error.pointer, 'string', `${url.slice(0, 80)}: a pointer`);
  }
  // the pointer of a bad parameter inside g: the node's parameter in the canonical JSON
  const inner = await get(`${d.url}/graph/7/3/1/1.png?g=add(perlin(octaves:40),1)`);
  assert.equal(inner.status, 400);
  assert.equal(inner.json.error.pointer, '/inputs/0/octaves');
  // a spelling that decodes but is not canonical: 400 quoting the canonical form
  const spaced = g.replace(/\(/, '( ');
  const sp = await get(`${d.url}/graph/7/3/1/1.png?g=${encodeURIComponent(spaced)}`);
  assert.equal(sp.status, 400, sp.text);
  const reordered = await get(`${d.url}/graph/7/3/1/1.png?g=${encodeURIComponent(g.replace('frequency:0.5', 'frequency:5e-1'))}`);
  assert.equal(reordered.status, 400, reordered.text);
  assert.ok(reordered.json.error.message.includes(g), `quotes the canonical form: ${reordered.json.error.message}`);
  assert.equal(typeof reordered.json.error.pointer, 'string');

  // unknown named graph: 404 listing the names
  const nf = await get(`${d.url}/no-such-graph/7/3/1/1.png`);
  assert.equal(nf.status, 404);
  assert.match(nf.json.error.message, /my-hills/);
  assert.match(nf.json.error.message, /perlin/);
});

test('work over the limit is 422 naming the cost, the limit and the node', async () => {
  const heavy = { node: 'add', inputs: [{ node: 'perlin', frequency: 0.5 }, { node: 'fractal', octaves: 16, inputs: [{ node: 'simplex', octaves: 16, warp: 1, t: 0.5 }] }] };
  const g = await canonical(heavy);
  const r = await get(`${d.url}/graph/7/3/1/1@2x.png?g=${g}&shade=1`);
  assert.equal(r.status, 422, r.text);
  assert.match(r.json.error.message, /estimated work .* units/);
  assert.match(r.json.error.message, /limit of 50\.0M/);
  assert.equal(r.json.error.pointer, '/inputs/1/inputs/0'); // the simplex source: 16 octaves x 16 instances
  assert.match(r.json.error.message, /\/inputs\/1\/inputs\/0/);
  const ok = await get(`${d.url}/graph/7/3/1/1.png?g=${await canonical(HILLS)}`);
  assert.equal(ok.status, 200);
});

test('POST /api/graphs gives the canonical text, JSON, counts and URL templates', async () => {
  const r = await post(HILLS, 42);
  assert.equal(r.status, 200, r.text);
  const j = r.json;
  assert.equal(typeof j.graph, 'string');
  assert.equal(j.nodes, 5);
  assert.ok(j.depth >= 3);
  assert.match(j.tiles, new RegExp(`/graph/42/\\{z\\}/\\{x\\}/\\{y\\}\\.png\\?g=`));
  assert.ok(j.tiles.endsWith(j.graph));
  assert.equal(j.tilejson.tiles[0], j.tiles);
  assert.equal(j.tilejson.noisetile.graph, j.graph);
  // the canonical JSON is the same graph
  const again = await post(j.json, 42);
  assert.equal(again.json.graph, j.graph);
  const pt = await get(j.point.replace('{x}', '1.5').replace('{y}', '-2'));
  assert.equal(pt.status, 200, pt.text);
  assert.equal(pt.json.graph, j.graph);
  assert.equal(pt.json.gradient.length, 2);
  const grid = await get(j.grid + '&x=0&y=0&step=0.5&width=8&height=4');
  assert.equal(grid.status, 200, grid.text);
  assert.equal(grid.headers.get('x-width'), '8');
  // the graph's own TileJSON
  const tj = await get(`${d.url}/graph/42/tile.json?g=${j.graph}&palette=terrain`);
  assert.equal(tj.status, 200, tj.text);
  assert.match(tj.json.tiles[0], /palette=terrain/);
  const tm = await get(`${d.url}/graph/42/tile.json?g=${j.graph}&mapping=mercator&scale=64`);
  assert.equal(tm.status, 200, tm.text);
  assert.match(tm.json.tiles[0], /\/graph\/42\/mercator\/64\/\{z\}\/\{x\}\/\{y\}\.png\?g=/);
  assert.equal(tm.json.minzoom, 1);
  assert.equal(tm.json.noisetile.mapping.scale, 64);
  const bad = await get(`${d.url}/api/graphs?seed=-1`, { method: 'POST', body: JSON.stringify(HILLS) });
  assert.equal(bad.status, 400);
});

test('graph points (2D and 3D), stats and numeric grids', async () => {
  const g = await canonical(HILLS);
  const pts = { points: [[0.5, 1], [2, -3], [10.25, 7]] };
  const r = await get(`${d.url}/graph/3/points?g=${g}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(pts) });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.values.length, 3);
  for (let i = 0; i < 3; i++) {
    const p = await get(`${d.url}/graph/3/point?g=${g}&x=${pts.points[i][0]}&y=${pts.points[i][1]}`);
    assert.equal(p.json.value, r.json.values[i]);
    assert.deepEqual(p.json.gradient, r.json.gradients[i]);
  }
  const r3 = await get(`${d.url}/graph/3/points?g=${g}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ points: [[0.5, 1, 0.25]] }) });
  assert.equal(r3.status, 200, r3.text);
  assert.equal(r3.json.gradients[0].length, 3);
  // a planar graph has no third coordinate
  const planar = await canonical({ node: 'add', inputs: [{ node: 'classic' }, 0.5] });
  const p3 = await get(`${d.url}/graph/3/points?g=${planar}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ points: [[0.5, 1, 0.25]] }) });
  assert.equal(p3.status, 400, p3.text);
  assert.match(p3.json.error.message, /2D/);
  // below zoom 0 (supersampled) and on the Web-Mercator route
  const coarse = await get(`${d.url}/graph/3/-2/0/0.png?g=${g}&palette=terrain&shade=1`);
  assert.equal(coarse.status, 200, coarse.text);
  const zero = await get(`${d.url}/graph/3/0/0/0.png?g=${g}&palette=terrain&shade=1`);
  assert.notEqual(coarse.headers.get('etag'), zero.headers.get('etag'));
  const merc = await get(`${d.url}/graph/3/mercator/32/1/0/0.png?g=${g}`);
  const plane = await get(`${d.url}/graph/3/0/-1/-1.png?g=${g}`);
  assert.equal(merc.status, 200, merc.text);
  assert.ok(merc.body.equals(plane.body), 'Web-Mercator tile (1, 0, 0) of a 32-unit world is plane tile (0, -1, -1)');
  const s = await get(`${d.url}/graph/3/stats?g=${g}&x=0&y=0&step=0.1&width=40&height=30`);
  assert.equal(s.status, 200, s.text);
  assert.equal(s.json.count, 1200);
  assert.equal(s.json.graph, g);
});

test('--graphs FILE: named URLs; GET /api/graphs lists presets and loaded graphs, each renders', async () => {
  const list = await get(`${d.url}/api/graphs`);
  assert.equal(list.status, 200);
  const names = list.json.graphs.map((x) => x.name);
  assert.ok(names.includes('my-hills') && names.includes('plain'), names.join());
  assert.ok(names.length >= 4, 'the presets too');
  for (const item of list.json.graphs) {
    assert.equal(typeof item.description, 'string');
    assert.equal(typeof item.graph, 'string');
    assert.equal(typeof item.json, 'object');
    const t = await get(`${d.url}/${item.name}/1/2/1/1.png?palette=terrain&shade=1`);
    assert.equal(t.status, 200, `${item.name}: ${t.text}`);
    const byText = await get(`${d.url}/graph/1/2/1/1.png?g=${item.graph}&palette=terrain&shade=1`);
    assert.ok(byText.body.equals(t.body), item.name);
    const tj = await get(`${d.url}/${item.name}/1/tile.json`);
    assert.equal(tj.status, 200, tj.text);
  }
  // a named graph that is a kind is the kind
  const a = await get(`${d.url}/plain/4/2/1/1.png`), b = await get(`${d.url}/perlin/4/2/1/1.png?octaves=3`);
  assert.ok(a.body.equals(b.body));
  assert.equal(a.headers.get('etag'), b.headers.get('etag'));
  const tj = await get(`${d.url}/my-hills/4/tile.json`);
  assert.match(tj.json.tiles[0], /\/my-hills\/4\/\{z\}/);
  assert.equal(tj.json.noisetile.name, 'my-hills');
});

test('a bad --graphs file stops the start with a message naming the name and pointer', async () => {
  const cases = [
    [{ ok: { graph: { node: 'perlin' } }, broken: { description: 'x', graph: { node: 'add', inputs: [{ node: 'perlin', octaves: 99 }, 1] } } }, /broken.*\/broken\/graph\/inputs\/0\/octaves/],
    [{ 'Bad Name': { graph: { node: 'perlin' } } }, /Bad Name/],
    [{ perlin: { graph: { node: 'perlin' } } }, /perlin/],
    [{ nograph: { description: 'no graph' } }, /nograph/],
  ];
  for (const [doc, msg] of cases) {
    const f = path.join(dir, 'bad.json');
    writeFileSync(f, JSON.stringify(doc));
    const r = await runOnce(['--port', '0', '--graphs', f]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, msg);
  }
  writeFileSync(path.join(dir, 'notjson.json'), '{"a": ');
  const r = await runOnce(['--port', '0', '--graphs', path.join(dir, 'notjson.json')]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /notjson\.json/);
  const missing = await runOnce(['--port', '0', '--graphs', path.join(dir, 'missing.json')]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /missing\.json/);
});

// Every file of a directory export, as { 'z/x/y.png': Buffer }.
function dirTiles(root) {
  const out = {};
  for (const z of readdirSync(root).filter((n) => /^\d+$/.test(n)))
    for (const x of readdirSync(path.join(root, z)))
      for (const y of readdirSync(path.join(root, z, x))) out[`${z}/${x}/${y}`] = readFileSync(path.join(root, z, x, y));
  return out;
}

test('noisetile export of a graph URL and of a preset: the daemon\'s tiles; two shards merged are one run', async () => {
  const g = await canonical(HILLS);
  const region = ['--zoom', '0-2', '--bbox', '-4,-4,12,9'];
  for (const field of [`graph/5?g=${g}&palette=terrain&shade=1`, 'continents/2?palette=terrain', `graph/5?g=${g}&palette=viridis`]) {
    const out = path.join(dir, `export-${Math.random().toString(36).slice(2)}`);
    const r = await runOnce(['export', field, ...region, '-o', out], {}, 120000);
    assert.equal(r.code, 0, r.stderr);
    const meta = JSON.parse(readFileSync(path.join(out, 'metadata.json'), 'utf8'));
    const nt = meta.noisetile;
    assert.match(nt.field, /^\/graph\/\d+\/\{z\}\/\{x\}\/\{y\}\.png\?g=/);
    const files = dirTiles(out);
    assert.ok(Object.keys(files).length > 10);
    for (const [key, bytes] of Object.entries(files)) {
      const [az, ax, ay] = key.replace('.png', '').split('/').map(Number);
      const pz = az - nt.zoom_offset;
      const px = ax + nt.origin_tile[0] * 2 ** pz, py = ay + nt.origin_tile[1] * 2 ** pz;
      const url = d.url + nt.field.replace('{z}', pz).replace('{x}', px).replace('{y}', py);
      const t = await get(url);
      assert.equal(t.status, 200, url);
      assert.ok(t.body.equals(bytes), `${field}: ${key} differs from ${url}`);
    }
  }
  // shards and merge
  const field = `graph/5?g=${g}&palette=terrain`;
  const one = path.join(dir, 'one.pmtiles');
  assert.equal((await runOnce(['export', field, ...region, '-o', one], {}, 120000)).code, 0);
  const shards = [];
  for (let k = 0; k < 2; k++) {
    const out = path.join(dir, `shard${k}.pmtiles`);
    const r = await runOnce(['export', field, ...region, '--shard', `${k}/2`, '-o', out], {}, 120000);
    assert.equal(r.code, 0, r.stderr);
    shards.push(out);
  }
  const merged = path.join(dir, 'merged.pmtiles');
  const m = await runOnce(['merge', '-o', merged, ...shards], {}, 120000);
  assert.equal(m.code, 0, m.stderr);
  assert.ok(readFileSync(merged).equals(readFileSync(one)), 'merged shards are the single run');
  // a bad graph is refused before anything is written
  const bad = await runOnce(['export', 'graph/5?g=add(perlin(octaves:99),1)', ...region, '-o', path.join(dir, 'bad.pmtiles')]);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /octaves/);
  const kindParam = await runOnce(['export', `graph/5?g=${g}&octaves=2`, ...region, '-o', path.join(dir, 'bad2.pmtiles')]);
  assert.notEqual(kindParam.code, 0);
  assert.match(kindParam.stderr, /source node/);
});

test('OpenAPI: the graph schema names every node the parser knows, and its defaults are the parser\'s', async () => {
  const doc = (await get(`${d.url}/openapi.json`)).json;
  const node = doc.components.schemas.GraphNode;
  const names = node.properties.node.enum;
  // the parser lists its node names in the message for an unknown one
  const r = await post({ node: 'nosuch' });
  const listed = /nodes: (.*)$/.exec(r.json.error.message)[1].split(', ');
  assert.deepEqual([...names].sort(), [...listed].sort());
  assert.equal(node.oneOf.length, names.length);
  for (const v of node.oneOf) {
    const name = v.properties.node.const;
    const bare = { node: name }, full = { node: name };
    const inputs = v.properties.inputs ? Array.from({ length: v.properties.inputs.minItems }, (_, i) => 0.25 * (i + 1)) : null;
    if (inputs) { bare.inputs = inputs; full.inputs = inputs; }
    for (const [k, p] of Object.entries(v.properties)) {
      if (k === 'node' || k === 'inputs') continue;
      let value = p.default;
      if ((v.required || []).includes(k)) value = k === 'value' ? 1 : p.items && p.items.type === 'array' ? [[0, 0], [1, 1]] : [0, 1];
      if (value === undefined || /only/.test(p.description || '')) continue; // conditional parameters
      if ((v.required || []).includes(k)) bare[k] = value;
      full[k] = value;
    }
    const a = await post(bare), b = await post(full);
    assert.equal(a.status, 200, `${JSON.stringify(bare)}: ${a.text}`);
    assert.equal(b.status, 200, `${JSON.stringify(full)}: ${b.text}`);
    assert.equal(b.json.graph, a.json.graph, `${name}: the schema's defaults spelled out are the same graph`);
  }
  assert.ok(doc.paths['/graph/{seed}/{z}/{x}/{y}.png'].get.parameters.some((p) => p.$ref === '#/components/parameters/g'));
  assert.ok(doc.paths['/api/graphs'].post);
});
