// readers.mjs: .npy bytes read by Debian's numpy through readers.py (a
// reader nobody here wrote), for cellular.test.mjs and seeds.test.mjs; a
// PNG's RGB by pngjs, for the picture tests.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3'; // Debian's, with python3-numpy

// What numpy finds in the bytes of a .npy file: { shape, dtype, data }
// (readers.py npy; the file lives in a temporary directory for the call).
export function numpyRead(buf) {
  const dir = mkdtempSync(path.join(tmpdir(), 'noisetile-npy-'));
  try {
    const f = path.join(dir, 'a.npy');
    writeFileSync(f, buf);
    const r = spawnSync(PYTHON, [path.join(here, 'readers.py'), 'npy', f], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// { w, h, rgb } of a PNG's bytes, decoded by pngjs (alpha dropped).
export function pngRgb(buf) {
  const p = PNG.sync.read(buf);
  const rgb = Buffer.alloc(p.width * p.height * 3);
  for (let i = 0, j = 0; i < p.data.length; i += 4, j += 3) { rgb[j] = p.data[i]; rgb[j + 1] = p.data[i + 1]; rgb[j + 2] = p.data[i + 2]; }
  return { w: p.width, h: p.height, rgb };
}
