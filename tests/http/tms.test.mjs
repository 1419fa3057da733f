// tms.test.mjs: GET /api/tilematrixset.json, the plane's tile grid as an OGC
// Two Dimensional Tile Matrix Set (JSON): one matrix per zoom 0..30 whose
// geometry is the daemon's tiles (tile (z, x, y) is TileCol x + 2^31, TileRow
// y + 2^31, its corner at pointOfOrigin + (TileCol, TileRow) * 256 * cellSize,
// which is (x, y) * 16/2^z), listed in OpenAPI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, get } from './daemon.mjs';

let d;
before(async () => { d = await startDaemon(); });
after(async () => { await d.stop(); });

test('the tile matrix set is the daemon\'s tile grid', async () => {
  const r = await get(`${d.url}/api/tilematrixset.json`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /application\/json/);
  const tms = r.json;
  assert.equal(tms.id, 'NoisetilePlane');
  assert.match(tms.crs.wkt, /^ENGCRS\[/);
  assert.deepEqual(tms.orderedAxes, ['x', 'y']);
  assert.equal(tms.tileMatrices.length, 31);
  const kinds = (await get(`${d.url}/api/kinds`)).json;
  const world = kinds.tiles.world_size, size = kinds.tiles.tile_size;
  tms.tileMatrices.forEach((m, z) => {
    assert.equal(m.id, String(z));
    assert.equal(m.tileWidth, size);
    assert.equal(m.cornerOfOrigin, 'topLeft');
    assert.equal(m.cellSize * size, world / 2 ** z, `zoom ${z}: a tile's side`);
    assert.equal(m.scaleDenominator, m.cellSize / 0.00028);
    assert.equal(m.matrixWidth, 2 ** 32);
    for (const [x, y] of [[0, 0], [-1, -1], [5, -3], [-(2 ** 31), 2 ** 31 - 1]]) {
      const col = x + 2 ** 31, row = y + 2 ** 31;
      assert.ok(col >= 0 && col < m.matrixWidth && row >= 0 && row < m.matrixHeight);
      assert.equal(m.pointOfOrigin[0] + col * size * m.cellSize, x * world / 2 ** z);
      assert.equal(m.pointOfOrigin[1] + row * size * m.cellSize, y * world / 2 ** z);
    }
  });
  const openapi = (await get(`${d.url}/openapi.json`)).json;
  assert.equal(openapi.paths['/api/tilematrixset.json'].get.operationId, 'getTileMatrixSet');
  const bad = await get(`${d.url}/api/tilematrixset.json`, { method: 'POST' });
  assert.equal(bad.status, 405);
});
