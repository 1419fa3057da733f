// readers.mjs: .npy bytes read by Debian's numpy through readers.py (a
// reader nobody here wrote), for cellular.test.mjs and seeds.test.mjs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
