// exporttest.mjs: what export.test.mjs and export-safety.test.mjs share:
// reading a PMTiles file with the pmtiles package, and interrupting an
// export part way.
import { spawn } from 'node:child_process';
import { openSync, readSync, closeSync } from 'node:fs';
import { BIN } from './daemon.mjs';

// The pmtiles package reading a local file through its Source interface.
export class FileSource {
  constructor(file) { this.file = file; this.fd = openSync(file, 'r'); }
  getKey() { return this.file; }
  async getBytes(offset, length) {
    const buf = Buffer.alloc(length);
    const n = readSync(this.fd, buf, 0, length, offset);
    return { data: buf.buffer.slice(buf.byteOffset, buf.byteOffset + n) };
  }
  close() { closeSync(this.fd); }
}

// Starts `noisetile args` (an export, one job, progress every 0.05 s) and
// sends it signal once its progress reaches 1/part of the tiles (but not
// all of them). Resolves { code, signal, stderr, sent } when it has ended.
export function killAtProgress(args, signal, part) {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, [...args, '--progress-seconds', '0.05', '--jobs', '1'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '', sent = false;
    child.stderr.on('data', (b) => {
      stderr += b;
      const m = [...stderr.matchAll(/(\d+)\/(\d+) tiles \(/g)].pop();
      if (!sent && m && Number(m[1]) >= Number(m[2]) / part && Number(m[1]) < Number(m[2])) {
        sent = true;
        child.kill(signal);
      }
    });
    child.on('error', reject);
    child.on('close', (code, sig) => resolve({ code, signal: sig, stderr, sent }));
  });
}
