// params.test.mjs: the parameter table is written once (server/service/params.c and
// the noise core's noise_params()); /api/kinds shows it, OpenAPI is built
// from it, and the README's parameter tables must say the same: a change on
// either side without the other fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, get } from './daemon.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// The pages the tables may stand in: the README (field and tile
// parameters), docs/api.md (point, window, statistics), docs/heights.md
// (.npy, encoding).
const PAGES = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

// The rows of the markdown table under the heading that starts with title,
// in the one page that has that heading: [{name, def, range, meaning}],
// backticks removed.
function readmeTable(title) {
  const found = PAGES.map((f) => [f, readFileSync(path.join(root, f), 'utf8')]).filter(([, md]) => md.includes(`### ${title}`));
  assert.equal(found.length, 1, `"### ${title}" stands in ${found.length} of README.md and docs/*.md: ${found.map(([f]) => f).join(', ')}`);
  const md = found[0][1];
  const at = md.indexOf(`### ${title}`);
  const rows = [];
  for (const line of md.slice(at).split('\n').slice(1)) {
    if (rows.length && !line.startsWith('|')) break;
    if (!line.startsWith('|') || /^\|\s*(name|---)/.test(line)) continue;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim().replace(/`/g, ''));
    rows.push({ name: cells[0], def: cells[1], range: cells[2], meaning: cells[3] });
  }
  return rows;
}

// A number as the tables write it: 1e6, 0.5, 16.
const num = (v) => (Math.abs(v) >= 1e5 ? v.toExponential().replace('e+', 'e') : String(v));

function rangeText(p) {
  if (p.type === 'flag') return '0, 1';
  if (p.type === 'enum') return p.choices.join(', ');
  if (!(Math.abs(p.minimum) < 1e308) && !(Math.abs(p.maximum) < 1e308)) return 'any finite number';
  if (p.type === 'integer' && !p.exclusiveMinimum && !p.exclusiveMaximum) return `${p.minimum}..${p.maximum}`;
  return `${p.exclusiveMinimum ? '(' : '['}${num(p.minimum)}, ${num(p.maximum)}${p.exclusiveMaximum ? ')' : ']'}`;
}

function defaultText(p) {
  if (!p.optional) return 'required';
  return p.default === undefined ? 'absent' : String(p.default);
}

let d, kinds, openapi;
test('start', async () => {
  d = await startDaemon({ args: ['--threads', '2', '--cache-mb', '4'] });
  kinds = (await get(`${d.url}/api/kinds`)).json;
  openapi = (await get(`${d.url}/openapi.json`)).json;
  assert.ok(kinds && openapi);
});

for (const [section, title] of [['parameters', 'Field parameters'], ['render', 'Tile parameters'], ['point', 'Point parameters'],
  ['window', 'Window parameters'], ['stats', 'Statistics parameters'], ['npy', '.npy parameters'],
  ['encoding', 'Encoding parameters']]) {
  test(`docs table "${title}" and /api/kinds "${section}" list the same rows`, () => {
    const table = kinds[section];
    const readme = readmeTable(title);
    assert.deepEqual(readme.map((r) => r.name), table.map((p) => p.name), 'names and order');
    for (const p of table) {
      const r = readme.find((x) => x.name === p.name);
      assert.equal(r.def, defaultText(p), `${p.name}: default`);
      assert.equal(r.range, rangeText(p), `${p.name}: range`);
      assert.ok(r.meaning.startsWith(p.description), `${p.name}: the docs' "${r.meaning}" does not start with the table's "${p.description}"`);
    }
  });
}

test('/api/kinds: defaulted parameters are optional, x and y are not; kinds say where a parameter applies', () => {
  for (const p of [...kinds.parameters, ...kinds.render]) assert.equal(p.optional, true, p.name);
  for (const p of [...kinds.point, ...kinds.window]) assert.equal(p.optional, false, p.name);
  for (const p of [...kinds.npy, ...kinds.encoding]) assert.equal(p.optional, true, p.name);
  const lattice = kinds.parameters.find((p) => p.name === 'lattice');
  assert.deepEqual(lattice.kinds, ['value', 'perlin']);
  assert.deepEqual(kinds.parameters.find((p) => p.name === 'octaves').kinds, kinds.kinds);
  assert.deepEqual(kinds.render.find((p) => p.name === 'palette').choices, kinds.palettes);
});

test('OpenAPI parameters are the table: names, descriptions, ranges, defaults, required', () => {
  const ops = {
    getTile: ['parameters', 'render', 'encoding'], getPoint: ['parameters', 'point'], postPoints: ['parameters'],
    getTileJSON: ['parameters', 'render', 'encoding'], getStats: ['parameters', 'window', 'stats'],
    getNumericTile: ['parameters', 'npy'], getGrid: ['parameters', 'render', 'window', 'npy', 'encoding'],
  };
  const byId = {};
  for (const item of Object.values(openapi.paths)) for (const op of Object.values(item)) if (op && op.operationId) byId[op.operationId] = op;
  for (const [id, sections] of Object.entries(ops)) {
    const params = byId[id].parameters.filter((q) => q.in === 'query');
    // rows in table order (x and y are point and window rows: listed once)
    const rows = [...new Map(sections.flatMap((s) => kinds[s]).map((p) => [p.name, p])).values()];
    assert.deepEqual(params.map((q) => q.name), rows.map((p) => p.name), `${id}: names`);
    for (const p of rows) {
      const q = params.find((x) => x.name === p.name);
      assert.ok(q.description.startsWith(p.description), `${id} ${p.name}: description`);
      assert.equal(q.required, !p.optional, `${id} ${p.name}: required`);
      if (p.default !== undefined) assert.equal(q.schema.default, p.default, `${id} ${p.name}: default`);
      if (p.type === 'enum') assert.deepEqual(q.schema.enum, p.choices, `${id} ${p.name}: choices`);
      if ((p.type === 'number' || p.type === 'integer') && Math.abs(p.minimum) < 1e308) {
        const key = p.exclusiveMinimum ? 'exclusiveMinimum' : 'minimum';
        assert.equal(q.schema[key], p.minimum, `${id} ${p.name}: ${key}`);
      }
    }
  }
  const lattice = byId.getTile.parameters.find((q) => q.name === 'lattice');
  assert.match(lattice.description, /\(value and perlin only\)$/);
});

test('one rule for switches: 0 or 1, nothing else', async () => {
  for (const v of ['true', 'false', 'yes', '2', '01', '']) {
    const r = await get(`${d.url}/perlin/1/0/0/0.png?shade=${v}`);
    assert.equal(r.status, 400, `shade=${v}`);
    assert.equal(r.json.error.message, `shade must be 0 or 1, got '${v}'`);
  }
  for (const v of ['0', '1']) assert.equal((await get(`${d.url}/perlin/1/0/0/0.png?zero=${v}`)).status, 200);
});

test('stop', async () => { await d.stop(); });
