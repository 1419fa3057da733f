// field-window.test.mjs: the viewer's pure helpers in static/field-window.js
// without a browser: the .npy reader against files NumPy writes, the window
// of a map (pixel centres, coarser sampling beyond a side limit) and the
// URLs of the grid and stats endpoints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// a browser module (export syntax in a .js file): imported from its text
const src = readFileSync(path.join(ROOT, 'static/field-window.js'), 'utf8');
const fw = await import('data:text/javascript;base64,' + Buffer.from(src).toString('base64'));

// NumPy from Debian's python3 (python3-numpy), not a python a version
// manager may have put first in PATH.
function npyFromNumpy(expr) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'noisetile-npy-'));
  try {
    const f = path.join(dir, 'a.npy');
    execFileSync('/usr/bin/python3', ['-c', `import numpy as np; np.save(${JSON.stringify(f)}, ${expr})`]);
    const b = readFileSync(f);
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('parseNpy reads what NumPy writes: <f4, C order, shape and values', () => {
  const a = fw.parseNpy(npyFromNumpy("(np.arange(12, dtype='<f4').reshape(3, 4) / 7 - 0.5)"));
  assert.deepEqual(a.shape, [3, 4]);
  assert.equal(a.data.length, 12);
  // float32 arithmetic, as NumPy does it on a float32 array
  for (let i = 0; i < 12; i++) assert.equal(a.data[i], Math.fround(Math.fround(i / 7) - 0.5), `element ${i}`);
  const one = fw.parseNpy(npyFromNumpy("np.full((1, 1), -1, dtype='<f4')"));
  assert.deepEqual([one.shape, [...one.data]], [[1, 1], [-1]]);
  assert.throws(() => fw.parseNpy(npyFromNumpy("np.zeros((2, 2), dtype='<f8')")), /<f4/);
  assert.throws(() => fw.parseNpy(npyFromNumpy("np.asfortranarray(np.zeros((2, 3), dtype='<f4'))")), /C-order/);
  assert.throws(() => fw.parseNpy(new ArrayBuffer(16)), /not a \.npy/);
});

// A stand-in for a Leaflet map: 800 x 500 CSS px, top-left at plane (2, -1),
// 64 px per plane unit.
globalThis.window = {
  noisetile: {
    pxPerUnit: () => 64,
    state: { kind: 'perlin', seed: 7 },
    fieldQuery: (kind) => (kind === 'value' ? ['octaves=3'] : ['octaves=3', 'lattice=triangle']),
  },
};
const map = {
  getSize: () => ({ x: 800, y: 500 }),
  getZoom: () => 2,
  containerPointToLatLng: () => ({ lng: 2, lat: -1 }),
};

test('visibleWindow: one sample at each pixel centre, coarser beyond a side limit with the same extent', () => {
  const w = fw.visibleWindow(map, 1);
  assert.deepEqual(w, { x: 2 + 0.5 / 64, y: -1 + 0.5 / 64, step: 1 / 64, width: 800, height: 500, zoom: 2 });
  const c = fw.visibleWindow(map, 1, 200);
  assert.equal(c.width, 200);
  assert.equal(c.height, 125);
  assert.equal(c.step, 4 / 64);
  // the coarse samples span the map as the fine ones do, within a sample
  assert.ok(Math.abs(c.step * c.width - w.step * w.width) < 1e-12);
});

test('grid and stats URLs: the window, the field query of the kind asked, extras', () => {
  const w = { x: 0.5, y: -2, step: 0.25, width: 9, height: 4 };
  assert.equal(fw.gridUrl('npy', w), '/perlin/7/grid.npy?x=0.5&y=-2&step=0.25&width=9&height=4&octaves=3&lattice=triangle');
  assert.equal(fw.gridUrl('png', w, 'value', ['encoding=gray16']), '/value/7/grid.png?x=0.5&y=-2&step=0.25&width=9&height=4&octaves=3&encoding=gray16');
  assert.equal(fw.statsUrl({ ...w, x: 1e-7 }, 'value', 32), '/value/7/stats?x=1e-7&y=-2&step=0.25&width=9&height=4&octaves=3&bins=32');
});
