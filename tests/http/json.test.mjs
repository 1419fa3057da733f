// json.test.mjs: /point, POST /points, /tile.json, /api/kinds and
// /openapi.json: shapes, agreement between endpoints, numbers that round-trip.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startDaemon, get } from './daemon.mjs';

let d;
before(async () => { d = await startDaemon(); });
after(async () => { await d.stop(); });

const post = (path, body) => get(`${d.url}${path}`, {
  method: 'POST', headers: { 'Content-Type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

test('/point: the documented shape with canonical params, 2 or 3 gradient components', async () => {
  const r = await get(`${d.url}/perlin/7/point?x=1.5&y=-2.25`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/json');
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  const j = r.json;
  assert.deepEqual(Object.keys(j).sort(), ['gradient', 'kind', 'params', 'seed', 'value', 'x', 'y']);
  assert.equal(j.kind, 'perlin');
  assert.equal(j.seed, 7);
  assert.equal(j.x, 1.5);
  assert.equal(j.y, -2.25);
  assert.ok(j.value >= -1 && j.value <= 1);
  assert.equal(j.gradient.length, 2);
  assert.deepEqual(j.params, { frequency: 1, octaves: 1, lacunarity: 2, gain: 0.5, fractal: 'fbm', warp: 0, lattice: 'square' });
  const t = await get(`${d.url}/perlin/7/point?x=1.5&y=-2.25&t=3&octaves=2`);
  assert.equal(t.status, 200);
  assert.equal(t.json.gradient.length, 3);
  assert.equal(t.json.params.t, 3);
  assert.equal(t.json.params.octaves, 2);
  assert.notEqual(t.json.value, j.value);
  // Perlin noise is 0 on lattice points (docs/field.md).
  const z = await get(`${d.url}/perlin/7/point?x=3&y=-5`);
  assert.equal(z.json.value, 0);
});

test('/point gradient agrees with central differences of /point values', async () => {
  const h = 1e-6;
  for (const [kind, q] of [['perlin', ''], ['simplex', '&octaves=3'], ['value', '&frequency=0.3'], ['improved', '&t=1.25']]) {
    const at = async (x, y) => (await get(`${d.url}/${kind}/5/point?x=${x}&y=${y}${q}`)).json;
    const p = await at(0.3, 0.7);
    const dx = ((await at(0.3 + h, 0.7)).value - (await at(0.3 - h, 0.7)).value) / (2 * h);
    const dy = ((await at(0.3, 0.7 + h)).value - (await at(0.3, 0.7 - h)).value) / (2 * h);
    assert.ok(Math.abs(dx - p.gradient[0]) < 1e-4 * (1 + Math.abs(dx)), `${kind} d/dx ${dx} vs ${p.gradient[0]}`);
    assert.ok(Math.abs(dy - p.gradient[1]) < 1e-4 * (1 + Math.abs(dy)), `${kind} d/dy ${dy} vs ${p.gradient[1]}`);
  }
});

test('POST /points: values and gradients in order, identical to /point', async () => {
  const coords = [[0, 0], [1.5, -2.25], [0.1 + 0.2, 1e-9], [-123456.789, 98765.4321], [1e9 + 0.5, -1e9 - 0.25],
    [5e-324, -0], [2 / 3, Math.PI], [-1e-300, 7.000000000000001]];
  for (const [kind, q] of [['perlin', ''], ['simplex', 'octaves=5&fractal=turbulence'], ['value', 'warp=0.4&lattice=triangle'], ['improved', 't=-2.5']]) {
    const r = await post(`/${kind}/42/points${q ? '?' + q : ''}`, { points: coords });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), ['gradients', 'values']);
    assert.equal(r.json.values.length, coords.length);
    assert.equal(r.json.gradients.length, coords.length);
    for (let i = 0; i < coords.length; i++) {
      // x and y printed by JavaScript in shortest round-trip form.
      const p = await get(`${d.url}/${kind}/42/point?x=${coords[i][0]}&y=${coords[i][1]}${q ? '&' + q : ''}`);
      assert.equal(p.status, 200, p.text);
      assert.equal(p.json.x, coords[i][0] === 0 ? 0 : coords[i][0]);
      assert.equal(p.json.y, coords[i][1] === 0 ? 0 : coords[i][1]);
      // Identical doubles: both printed with enough digits to round-trip.
      assert.equal(r.json.values[i], p.json.value, `${kind} value at ${coords[i]}`);
      assert.deepEqual(r.json.gradients[i], p.json.gradient, `${kind} gradient at ${coords[i]}`);
    }
  }
  // Three coordinates: the point's t; equal to /point with t as parameter.
  const r3 = await post('/simplex/9/points', { points: [[0.5, 0.25, 2], [-3, 4, -1.5]] });
  assert.equal(r3.status, 200);
  assert.equal(r3.json.gradients[0].length, 3);
  const p3 = await get(`${d.url}/simplex/9/point?x=-3&y=4&t=-1.5`);
  assert.equal(r3.json.values[1], p3.json.value);
  assert.deepEqual(r3.json.gradients[1], p3.json.gradient);
  // An empty batch is fine.
  const e = await post('/perlin/1/points', { points: [] });
  assert.equal(e.status, 200);
  assert.deepEqual(e.json, { values: [], gradients: [] });
  // The documented maximum is accepted.
  const many = Array.from({ length: 10000 }, (_, i) => [i * 0.01, -i * 0.02]);
  const m = await post('/value/3/points', { points: many });
  assert.equal(m.status, 200);
  assert.equal(m.json.values.length, 10000);
});

test('numbers round-trip: printed doubles parse back to the same doubles', async () => {
  // Doubles that need all 17 significant digits.
  const xs = [0.1 + 0.2, 1 / 3, 2 ** -30 * 3, 123456789.12345678, -9.8765432109876e-7];
  const r = await post('/perlin/77/points?octaves=3', { points: xs.map((x) => [x, x / 7]) });
  assert.equal(r.status, 200);
  for (const [i, x] of xs.entries()) {
    const p = await get(`${d.url}/perlin/77/point?x=${x}&y=${x / 7}&octaves=3`);
    assert.equal(p.json.x, x, 'x echoed exactly');
    assert.equal(p.json.y, x / 7, 'y echoed exactly');
    assert.equal(p.json.value, r.json.values[i]);
    // The value printed again by JavaScript and sent back as a coordinate
    // comes back unchanged: the daemon's text held the exact double.
    const back = await get(`${d.url}/perlin/77/point?x=${p.json.value}&y=0&octaves=3`);
    assert.equal(back.json.x, p.json.value);
  }
  // Spelling does not matter: 2, 2.0, 2e0, 20e-1 are one double.
  const a = await get(`${d.url}/simplex/1/point?x=2&y=0.5`);
  for (const s of ['2.0', '2e0', '20e-1', '2.000000000000000000001']) {
    const b = await get(`${d.url}/simplex/1/point?x=${s}&y=0.5`);
    assert.equal(b.json.value, a.json.value, s);
  }
});

test('/tile.json: TileJSON 3.0.0 whose template keeps the canonical parameters', async () => {
  const r = await get(`${d.url}/simplex/13/tile.json?octaves=3&palette=terrain&shade=1`);
  assert.equal(r.status, 200);
  const j = r.json;
  assert.equal(j.tilejson, '3.0.0');
  assert.equal(j.minzoom, 0);
  assert.equal(j.maxzoom, 30);
  assert.equal(j.scheme, 'xyz');
  assert.equal(j.bounds.length, 4);
  assert.ok(j.bounds[0] < j.bounds[2] && j.bounds[1] < j.bounds[3]);
  assert.equal(j.center.length, 3);
  assert.ok(j.center[2] >= j.minzoom && j.center[2] <= j.maxzoom);
  assert.equal(j.tiles.length, 1);
  const tpl = j.tiles[0];
  assert.ok(tpl.startsWith(`${d.url}/simplex/13/{z}/{x}/{y}.png?`), tpl);
  const q = new URLSearchParams(tpl.split('?')[1]);
  assert.equal(q.get('octaves'), '3');
  assert.equal(q.get('palette'), 'terrain');
  assert.equal(q.get('shade'), '1');
  assert.equal(q.get('frequency'), '1');
  // The template, filled in, is a tile with the same ETag as the original URL.
  const filled = tpl.replace('{z}', '2').replace('{x}', '-1').replace('{y}', '3');
  const t1 = await get(filled);
  const t2 = await get(`${d.url}/simplex/13/2/-1/3.png?shade=1&octaves=3&palette=terrain`);
  assert.equal(t1.status, 200);
  assert.equal(t1.headers.get('etag'), t2.headers.get('etag'));
  // Equivalent queries give the same template.
  const r2 = await get(`${d.url}/simplex/13/tile.json?palette=terrain&shade=1&octaves=3.0&gain=0.5`);
  assert.deepEqual(r2.json.tiles, j.tiles);
});

test('/api/kinds: kinds, parameters with defaults and ranges, palettes, render parameters', async () => {
  const r = await get(`${d.url}/api/kinds`);
  assert.equal(r.status, 200);
  const j = r.json;
  assert.deepEqual(j.kinds, ['value', 'perlin', 'simplex', 'improved', 'cellular', 'classic']);
  const byName = Object.fromEntries(j.parameters.map((p) => [p.name, p]));
  for (const n of ['frequency', 'octaves', 'lacunarity', 'gain', 'fractal', 'warp', 't', 'lattice'])
    assert.ok(byName[n], `parameter ${n}`);
  assert.equal(byName.octaves.default, 1);
  assert.equal(byName.octaves.minimum, 1);
  assert.equal(byName.octaves.maximum, 16);
  assert.equal(byName.frequency.default, 1);
  assert.equal(byName.frequency.exclusiveMinimum, true);
  assert.equal(byName.gain.default, 0.5);
  assert.deepEqual(byName.fractal.choices, ['fbm', 'turbulence', 'ridged']);
  assert.equal(byName.lattice.default, 'square');
  assert.deepEqual(byName.lattice.kinds, ['value', 'perlin']);
  assert.equal(byName.t.optional, true);
  assert.equal(byName.t.default, undefined);
  for (const p of ['gray', 'terrain', 'viridis']) assert.ok(j.palettes.includes(p), p);
  assert.deepEqual(j.render.map((p) => p.name), ['palette', 'shade', 'zero', 'quality', 'ramp']);
  // a one-line description of each kind, for the viewer's kind buttons
  assert.deepEqual(Object.keys(j.kind_descriptions), j.kinds);
  for (const k of j.kinds) assert.match(j.kind_descriptions[k], /^[A-Z][^\n]{20,120}\.$/, k);
  assert.equal(j.limits.max_points, 10000);
  // Every advertised default is accepted, and the range edges are enforced.
  for (const p of j.parameters) {
    if (p.default === undefined || p.name === 'lattice') continue;
    // a kind the parameter applies to (cellular's own parameters: cellular; classic's fade: classic)
    const kind = p.kinds.includes('perlin') ? 'perlin' : p.kinds[0];
    const ok = await get(`${d.url}/${kind}/1/point?x=0.5&y=0.5&${p.name}=${p.default}`);
    assert.equal(ok.status, 200, `${p.name}=${p.default}: ${ok.text}`);
    if (typeof p.maximum === 'number' && !p.exclusiveMaximum) {
      const over = await get(`${d.url}/${kind}/1/point?x=0.5&y=0.5&${p.name}=${p.maximum * 2 + 1}`);
      assert.equal(over.status, 400, `${p.name} over its maximum`);
      assert.match(over.json.error.message, new RegExp(p.name));
    }
  }
});

test('/openapi.json is a valid OpenAPI 3.1 document describing every route', async () => {
  const r = await get(`${d.url}/openapi.json`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/json');
  const doc = r.json;
  assert.match(doc.openapi, /^3\.1\./);
  const v = new Validator();
  const res = await v.validate(structuredClone(doc));
  assert.equal(res.valid, true, JSON.stringify(res.errors, null, 1));
  // Every $ref resolves.
  assert.doesNotThrow(() => v.resolveRefs());
  const paths = Object.keys(doc.paths);
  for (const p of ['/{kind}/{seed}/{z}/{x}/{y}.png', '/{kind}/{seed}/{z}/{x}/{y}@2x.png', '/{kind}/{seed}/point',
    '/{kind}/{seed}/points', '/{kind}/{seed}/stats', '/{kind}/{seed}/tile.json', '/api/kinds', '/healthz', '/metrics', '/openapi.json', '/'])
    assert.ok(paths.includes(p), `path ${p}`);
  assert.ok(doc.paths['/{kind}/{seed}/points'].post);
  assert.ok(doc.paths['/{kind}/{seed}/{z}/{x}/{y}.png'].head);
  const tileGet = doc.paths['/{kind}/{seed}/{z}/{x}/{y}.png'].get;
  for (const s of ['200', '304', '400', '404', '405']) assert.ok(tileGet.responses[s], `tile response ${s}`);
  assert.ok(doc.paths['/{kind}/{seed}/points'].post.responses['413']);
  const names = tileGet.parameters.map((p) => p.name || p.$ref.split('/').pop());
  for (const n of ['frequency', 'octaves', 'lacunarity', 'gain', 'fractal', 'warp', 't', 'lattice', 'palette', 'shade', 'zero'])
    assert.ok(names.includes(n), `tile parameter ${n}`);
  const oct = tileGet.parameters.find((p) => p.name === 'octaves');
  assert.deepEqual([oct.schema.minimum, oct.schema.maximum, oct.schema.default], [1, 16, 1]);
  // Every operation that can answer 422 (work over the per-request limit)
  // says so, and the routes that cannot reach it do not.
  const costly = [
    ['/{kind}/{seed}/{z}/{x}/{y}@2x.png', 'get', '/perlin/1/3/1/1@2x.png?octaves=16&warp=0.5&t=1'],
    ['/{kind}/{seed}/{z}/{x}/{y}@2x.png', 'head', '/perlin/1/3/1/1@2x.png?octaves=16&warp=0.5&t=1'],
    ['/{kind}/{seed}/{z}/{x}/{y}@2x.webp', 'get', '/perlin/1/3/1/1@2x.webp?octaves=16&warp=0.5&t=1'],
    ['/{kind}/{seed}/{z}/{x}/{y}@2x.webp', 'head', '/perlin/1/3/1/1@2x.webp?octaves=16&warp=0.5&t=1'],
    ['/{kind}/{seed}/{z}/{x}/{y}.{format}', 'get', '/perlin/1/3/1/1@2x.npy?octaves=16&warp=0.5&t=1'],
    ['/{kind}/{seed}/{z}/{x}/{y}.{format}', 'head', '/perlin/1/3/1/1@2x.npy?octaves=16&warp=0.5&t=1'],
    ['/{kind}/{seed}/grid.{gridFormat}', 'get', '/perlin/1/grid.npy?x=0&y=0&step=0.5&width=4097&height=4097&octaves=16&warp=1&t=1'],
    ['/{kind}/{seed}/grid.{gridFormat}', 'head', '/perlin/1/grid.r16?x=0&y=0&step=0.5&width=4097&height=4097&octaves=16&warp=1&t=1'],
    ['/{kind}/{seed}/stats', 'get', '/perlin/1/stats?x=0&y=0&step=0.5&width=4097&height=4097&octaves=16&warp=1'],
    ['/{kind}/{seed}/stats', 'head', '/perlin/1/stats?x=0&y=0&step=0.5&width=4097&height=4097&octaves=16&warp=1'],
  ];
  for (const [p, method, url] of costly) {
    const a = await get(`${d.url}${url}`, { method: method.toUpperCase() });
    assert.equal(a.status, 422, `${method} ${url}: ${a.text}`);
    if (method === 'get') assert.match(a.json.error.message, /limit/);
    const listed = doc.paths[p][method].responses['422'];
    assert.ok(listed, `${method} ${p} lists 422`);
    assert.equal(listed.$ref, '#/components/responses/TooCostly');
  }
  assert.match(doc.components.responses.TooCostly.description, /^Request too costly: .*limit of 50000000 units \(a grid's: 400000000 units\)/);
  assert.ok(!tileGet.responses['422']);
  // The kinds the document lists are the ones the daemon serves.
  assert.deepEqual(doc.components.parameters.kind.schema.enum, ['value', 'perlin', 'simplex', 'improved', 'cellular', 'classic']);
});
