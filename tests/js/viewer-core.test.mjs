// viewer-core.test.mjs: the viewer's pure logic (static/viewer-core.js) in
// node, no browser: /api/kinds as the daemon sends it, values checked and
// refused with their range, numbers formatted, a field's URLs, and the URL
// hash (the first view, round trips, what a bad link keeps).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startDaemon, get } from '../http/daemon.mjs';

const C = createRequire(import.meta.url)('../../static/viewer-core.js');
let d, kinds, api;

before(async () => {
  d = await startDaemon({ staticDir: null });
  kinds = (await get(`${d.url}/api/kinds`)).json;
  api = C.parseKinds(kinds);
});
after(async () => { await d.stop(); });

const param = (name) => C.findParam(api.params, name) || C.findParam(api.render, name);

test('parseKinds reads /api/kinds as the daemon sends it, and refuses one the page cannot use', () => {
  assert.deepEqual(api.kinds.map((k) => k.name), kinds.kinds.map((k) => (typeof k === 'string' ? k : k.name)));
  assert.equal(api.worldSize, kinds.tiles.world_size);
  assert.equal(api.tileSize, kinds.tiles.tile_size);
  assert.equal(api.minZoom, kinds.tiles.minzoom);
  assert.equal(api.maxZoom, kinds.tiles.maxzoom);
  assert.deepEqual([api.seed.min, api.seed.max], [0, kinds.limits.seed_max]);
  const oct = param('octaves');
  assert.deepEqual([oct.type, oct.min, oct.max, oct.def], ['integer', 1, 16, 1]);
  const f = param('frequency');
  assert.equal(f.type, 'number');
  assert.ok(f.minExclusive && f.min === 0, 'frequency > 0');
  assert.equal(param('t').optional, true, 't is optional');
  assert.equal(param('shade').type, 'boolean');
  assert.equal(param('shade').def, false);
  assert.deepEqual(param('lattice').kinds, ['value', 'perlin']);
  assert.equal(api.kindDefault, 'perlin');
  for (const bad of [{}, { ...kinds, kinds: [] }, { ...kinds, tiles: undefined }, { ...kinds, limits: {} }]) {
    assert.throws(() => C.parseKinds(bad), /\/api\/kinds has no/);
  }
});

test('parseParam accepts the range /api/kinds gives and refuses the rest with a message naming it', () => {
  const ok = (p, s, v) => assert.deepEqual(C.parseParam(param(p), s), { ok: true, value: v }, `${p}=${s}`);
  const no = (p, s, re) => {
    const r = C.parseParam(param(p), s);
    assert.equal(r.ok, false, `${p}=${s} accepted`);
    assert.match(r.msg, re, r.msg);
  };
  ok('octaves', '1', 1); ok('octaves', ' 16 ', 16);
  no('octaves', '17', /^octaves must be an integer in \[1, 16\], got “17”$/);
  no('octaves', '2.5', /integer/); no('octaves', '', /octaves/); no('octaves', '0x10', /octaves/);
  ok('frequency', '1e6', 1e6); ok('frequency', '.5', 0.5);
  no('frequency', '0', /^frequency must be a number in \(0, 1000000\]/);
  no('frequency', '1e400', /frequency/); no('frequency', 'NaN', /frequency/); no('frequency', '1,5', /frequency/);
  ok('palette', 'terrain', 'terrain'); no('palette', 'Terrain', /one of gray, terrain, viridis/);
  ok('shade', '1', true); ok('shade', 'off', false); no('shade', '2', /on or off/);
  ok('t', '-1e300', -1e300);
  assert.equal(C.rangeText(param('t')), 'any finite number');
  assert.equal(C.rangeChip(param('octaves')), '1–16');
  assert.equal(C.rangeChip(param('frequency')), '(0, 1e6]');
  assert.equal(C.rangeChip(param('palette')), '');
  assert.deepEqual(C.parseParam(api.seed, '4294967295'), { ok: true, value: 4294967295 });
  assert.equal(C.parseParam(api.seed, '4294967296').ok, false);
});

test('number formatting: shortest round trip, signed columns, four digits, no -0', () => {
  for (const v of [0.1, 1 / 3, -2.5e-7, 1e21, 123456789.125]) assert.equal(Number(C.fmtNum(v)), v);
  assert.equal(C.fmtSigned(0.25, 3), '+0.250');
  assert.equal(C.fmtSigned(-0.25, 3), '\u22120.250');
  assert.equal(C.fmtSigned(-0.0001, 3), '\u20070.000', 'a value that rounds to 0 has no sign');
  assert.equal(C.fmtSci(0), '0');
  assert.equal(C.fmtSci(-0.0123456), '\u22120.01235');
  assert.equal(C.fmtSci(123456), '1.235e+5');
  assert.equal(C.fmtSci(0.0001), '1.000e-4');
  assert.ok(Object.is(C.roundTo(-0.0001, 2), 0));
  assert.equal(C.roundTo(1.23456, 2), 1.23);
  // a tenth of a pixel: 16 px per unit -> 3 digits (1/160 unit), 1 px per unit -> 1
  assert.equal(C.coordDigits(16), 3);
  assert.equal(C.coordDigits(1), 1);
  assert.equal(C.coordDigits(1e-3), 0);
});

test('the first view (no hash): Perlin fBm, terrain colours, hillshading, all named in its hash; its tile is a PNG', async () => {
  const { state, msgs } = C.decodeHash(api, '', api.minZoom - 2);
  assert.deepEqual(msgs, []);
  assert.equal(state.kind, 'perlin');
  assert.ok(state.field.octaves > 1, 'several octaves (fBm)');
  assert.equal(state.render.palette, 'terrain');
  assert.equal(state.render.shade, true);
  const h = C.encodeHash(api, state);
  assert.equal(h, '#z=3&x=-5.1&y=2.9&kind=perlin&seed=7&octaves=5&palette=terrain&shade=1');
  // The hash alone reopens it.
  assert.deepEqual(C.decodeHash(api, h, api.minZoom - 2).state, state);
  const url = C.tileTemplate(api, state).replace('{z}/{x}/{y}{r}', '3/-2/1');
  assert.equal(url, '/perlin/7/3/-2/1.png?octaves=5&palette=terrain&shade=1');
  const r = await get(`${d.url}${url}`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'image/png');
  // where the browser has WebP the page sets api.tileExt: the same tile as WebP
  const webp = C.tileTemplate({ ...api, tileExt: 'webp' }, state).replace('{z}/{x}/{y}{r}', '3/-2/1');
  assert.equal(webp, '/perlin/7/3/-2/1.webp?octaves=5&palette=terrain&shade=1');
  const w = await get(`${d.url}${webp}`);
  assert.equal(w.status, 200);
  assert.equal(w.headers.get('content-type'), 'image/webp');
  // the page offers no quality or ramp control: quality belongs to the
  // format it picks, ramps to URLs
  assert.deepEqual(api.render.map((p) => p.name), ['palette', 'shade', 'zero']);
});

test('hash round trips, defaults left out, kind-specific parameters only for their kinds', () => {
  const states = [
    { kind: 'simplex', graph: null, seed: 0, field: { frequency: 0.25, warp: 2, t: -1.5 }, render: { zero: true }, view: { x: 1.5, y: -2.25, z: 5 }, point: { x: 1.1, y: -0.9 }, grid: true },
    { kind: 'value', graph: null, seed: 4294967295, field: { lattice: 'triangle', octaves: 16, fractal: 'ridged', lacunarity: 3, gain: 1 }, render: { palette: 'viridis' }, view: { x: 0, y: 0, z: -2 }, point: null, grid: false },
  ];
  for (const s of states) {
    const h = C.encodeHash(api, s);
    const back = C.decodeHash(api, h, -2);
    assert.deepEqual(back.msgs, [], h);
    assert.deepEqual(back.state, s, h);
  }
  const s = { kind: 'simplex', seed: 3, field: { octaves: 1, lattice: 'triangle' }, render: { shade: false }, view: { x: 0.123456789, y: 0, z: 0 }, point: null, grid: false };
  const h = C.encodeHash(api, s);
  assert.equal(h, '#z=0&x=0.123&y=0&kind=simplex&seed=3', 'defaults and parameters of other kinds left out, centre to a tenth of a pixel');
  assert.equal(C.pointUrl(api, { ...s, field: { octaves: 4 } }, 1.5, -2.25), '/simplex/3/point?x=1.5&y=-2.25&octaves=4');
});

test('a bad link: each bad entry is named and left at its default, the rest is kept', () => {
  const { state, msgs } = C.decodeHash(api, '#z=99&x=1&y=abc&kind=worley&seed=-1&octaves=40&gain=0.25&palette=plaid&shade=1&px=1', api.minZoom - 2);
  assert.equal(msgs.length, 4, msgs.join('; '));
  assert.match(msgs.join('; '), /unknown kind “worley”.*seed must be.*octaves must be an integer in \[1, 16\], got “40”.*palette must be one of/);
  assert.equal(state.kind, 'perlin');
  assert.equal(state.seed, 7);
  assert.deepEqual(state.field, { gain: 0.25 }, 'octaves back to the API default (1)');
  assert.deepEqual(state.render, { shade: true });
  assert.equal(state.view.z, api.maxZoom, 'zoom clamped');
  assert.equal(state.view.x, 1);
  assert.equal(state.view.y, 2.9, 'a bad y keeps the first view\'s');
  assert.equal(state.point, null, 'px without py is no point');
});

test('a link whose centre the daemon has no tiles for is clamped to the edge, and says so', () => {
  const m = api.tileIndexMax;
  assert.ok(m > 0, 'the daemon states its tile index limit');
  for (const [hash, z] of [['#z=30&x=2147483648&y=0', 30], ['#z=3&x=1e20&y=-1e20', 3], ['#z=3&x=1e308&y=0', 3]]) {
    const { state, msgs } = C.decodeHash(api, hash, api.minZoom - 2);
    const lim = C.viewLimit(api, z);
    assert.equal(state.view.z, z);
    // every tile of a screen around the centre has an index the daemon takes
    for (const c of [state.view.x, state.view.y]) {
      assert.ok(Math.abs(c) <= lim, `${hash}: ${c} within ${lim}`);
      const idx = Math.floor(c / (api.worldSize / 2 ** z));
      assert.ok(idx + 64 <= m + 1 && idx - 64 >= -m - 1, `${hash}: tile index ${idx} +- 64 within +-${m}`);
    }
    assert.ok(msgs.some((s) => /beyond the tiles the daemon serves at zoom/.test(s)), `${hash}: ${msgs.join('; ')}`);
  }
  // at the limit itself nothing is moved or reported
  const lim = C.viewLimit(api, 30);
  const { state, msgs } = C.decodeHash(api, `#z=30&x=${lim}&y=-${lim}`, api.minZoom - 2);
  assert.deepEqual([state.view.x, state.view.y, msgs], [lim, -lim, []]);
});

// ---- field graphs (the graph panel, static/graph.js) ----

const GRAPH = 'add(curve(perlin(frequency:0.04,octaves:6),points:(-1,-0.85,0,0,1,0.3)),mul(curve($2,points:(0,0,0.25,1)),scale_bias(perlin(frequency:0.25,fractal:ridged,seed:1),scale:0.3,bias:0.3)))';

test('a graph goes into the hash and the URLs as its canonical text, kind and field parameters left out', () => {
  const s = C.firstState(api);
  s.field = { octaves: 5 };
  s.graph = { text: GRAPH };
  const h = C.encodeHash(api, s);
  assert.ok(h.includes('&g=' + GRAPH + '&'), h);
  assert.doesNotMatch(h, /kind=|octaves=/);
  const back = C.decodeHash(api, h, api.minZoom - 2).state;
  assert.deepEqual(back.graph, { text: GRAPH });
  assert.deepEqual([back.seed, back.render, back.view], [s.seed, s.render, s.view]);
  assert.equal(C.tileTemplate(api, back), '/graph/7/{z}/{x}/{y}{r}.png?g=' + GRAPH + '&palette=terrain&shade=1');
  assert.equal(C.pointUrl(api, back, 1.5, -2), '/graph/7/point?x=1.5&y=-2&g=' + GRAPH);
  // a kind's hash has no graph; an empty g= is reported and ignored
  assert.equal(C.decodeHash(api, '#kind=perlin&octaves=3', 0).state.graph, null);
  const e = C.decodeHash(api, '#g=&seed=3', 0);
  assert.equal(e.state.graph, null);
  assert.deepEqual(e.msgs, ['an empty graph (g=)']);
  // characters no canonical text has are percent-encoded, so a query stays one query
  assert.equal(C.graphParam('a(1,$0,k:-1.5e-7)'), 'a(1,$0,k:-1.5e-7)');
  assert.equal(C.graphParam('a b&c#d%e+f'), 'a%20b%26c%23d%25e%2Bf');
  assert.equal(C.decodeHash(api, '#g=' + C.graphParam('x&y=1 +'), 0).state.graph.text, 'x&y=1 +');
});

test('scanJson reads JSON as JSON.parse does, with where each value is written and where an error is', () => {
  const text = '{\n  "node": "add",\n  "inputs": [1, {"node": "x"}],\n  "k": [-0.5e1, true, null, "a\\"b"]\n}';
  const r = C.scanJson(text);
  assert.equal(r.ok, true);
  assert.deepEqual(r.value, JSON.parse(text));
  const at = (p) => text.slice(...r.spans[p]);
  assert.equal(at('/inputs/1'), '{"node": "x"}');
  assert.equal(at('/inputs/1/node'), '"x"');
  assert.equal(at('/k/0'), '-0.5e1');
  assert.equal(at(''), text);
  const bad = (t, line, column, re) => {
    const b = C.scanJson(t);
    assert.equal(b.ok, false, t);
    assert.deepEqual([b.line, b.column], [line, column], `${t}: ${b.msg}`);
    assert.match(b.msg, re);
    assert.throws(() => JSON.parse(t));
  };
  bad('{"a": 1,\n "b": tru}', 2, 7, /expected a value, found “tru}”/);
  bad('{"a": 1 "b": 2}', 1, 9, /expected "," or "}"/);
  bad('[1, 2', 1, 6, /ends inside an array/);
  bad('{"a": "x\ny"}', 1, 9, /control character/);
  bad('{"a": 01}', 1, 8, /expected "," or "}"/);
  bad('{} x', 1, 4, /more text after the document/);
  // JSON.parse keeps the last of two equal keys; the editor says which
  assert.match(C.scanJson('{"a": 1, "a": 2}').msg, /the key "a" appears twice/);
});

test('formatJson lays a graph out on lines that fit, number lists on one line, and reads back the same', () => {
  const g = { nodes: { land: { node: 'perlin', frequency: 0.04, octaves: 6 } },
    output: { node: 'add', inputs: [{ node: 'curve', inputs: ['land'], points: [[-1, -0.85], [-0.4, -0.5], [-0.05, -0.1], [0, 0], [0.05, 0.07], [0.3, 0.2], [1, 0.3]] }, 0.5] } };
  const t = C.formatJson(g, 72);
  assert.deepEqual(JSON.parse(t), g);
  assert.match(t, /^    "land": \{"node": "perlin", "frequency": 0.04, "octaves": 6\}$/m, 'an object that fits on one line');
  assert.match(t, /"points": \[\[-1, -0.85\], \[-0.4, -0.5\], .*\[1, 0.3\]\]$/m, 'the points on one line');
  assert.ok(t.split('\n').filter((l) => !/"points"/.test(l)).every((l) => l.length <= 72), t);
  assert.equal(C.formatJson({ node: 'x' }), '{"node": "x"}');
});

test('decodeGraphText reads the canonical text back into JSON: inputs, parameters, lists, words, $N', () => {
  assert.deepEqual(C.decodeGraphText('add(fractal(perlin(frequency:0.01),octaves:6),mul(0.5,x))'), {
    node: 'add', inputs: [{ node: 'fractal', inputs: [{ node: 'perlin', frequency: 0.01 }], octaves: 6 }, { node: 'mul', inputs: [0.5, { node: 'x' }] }] });
  // $N: the N-th node written (each NAME counted where it is written, bare names too)
  const perlin = { node: 'perlin', frequency: 0.04, octaves: 6 };
  const g = C.decodeGraphText(GRAPH);
  assert.deepEqual(g.inputs[0].inputs[0], perlin);
  assert.deepEqual(g.inputs[1].inputs[0], { node: 'curve', inputs: [perlin], points: [0, 0, 0.25, 1] });
  assert.deepEqual(g.inputs[1].inputs[1].inputs[0], { node: 'perlin', frequency: 0.25, fractal: 'ridged', seed: 1 });
  assert.deepEqual(C.decodeGraphText('mul(x,y,sub(x,-1e-7),$3)').inputs[3], { node: 'sub', inputs: [{ node: 'x' }, -1e-7] });
  assert.deepEqual(C.decodeGraphText('terrace(x,points:(0,1),invert:true)'), { node: 'terrace', inputs: [{ node: 'x' }], points: [0, 1], invert: true });
  for (const [t, re] of [['add(1,', /expected a node at character 7/], ['add(x,$5)', /"\$5" names no node written before it/],
    ['add(x))', /unexpected text at character 7/], ['curve(x,points:(1,2)', /expected "," or "\)" at character 21/], ['', /expected a node/]]) {
    assert.throws(() => C.decodeGraphText(t), re, t);
  }
});
