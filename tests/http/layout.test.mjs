// layout.test.mjs: the shape of server/. Its folders are layers, each
// including only from the layers below it (FOLDER_MAY_USE); only the
// connection layer speaks libmicrohttpd; every include of a server header
// names its folder; no module includes, directly or through others, a module
// that includes it back (no include cycles); noise/ includes nothing of
// server/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const server = path.join(root, 'server');

// Which folders each folder may include from ('' is server/ itself: main.c).
// The order is the layering, lowest first (docs/architecture.md, "Layers").
const FOLDER_MAY_USE = {
  base: [],
  tiles: ['base'],
  heights: ['base', 'tiles'],
  service: ['base', 'tiles', 'heights'],
  net: ['base', 'tiles', 'heights', 'service'],
  export: ['base', 'tiles', 'heights', 'service'],
  '': ['base', 'tiles', 'heights', 'service', 'net', 'export'],
};

// Every .c/.h under server/, as "folder/name.ext" ("name.ext" at the top).
const files = [];
for (const entry of readdirSync(server)) {
  const p = path.join(server, entry);
  if (statSync(p).isDirectory()) {
    for (const f of readdirSync(p)) if (/\.[ch]$/.test(f)) files.push(`${entry}/${f}`);
  } else if (/\.[ch]$/.test(entry)) files.push(entry);
}
const folderOf = (f) => (f.includes('/') ? f.split('/')[0] : '');
const mod = (f) => f.replace(/\.[ch]$/, '');
const source = (f) => readFileSync(path.join(server, f), 'utf8');
const includes = (f) => [...source(f).matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)].map((m) => m[1]);
const headers = new Set(files.filter((f) => f.endsWith('.h')));

test('server/ is the folders of the layer table and main.c', () => {
  const folders = new Set(files.map(folderOf));
  assert.deepEqual([...folders].sort(), Object.keys(FOLDER_MAY_USE).sort());
  assert.deepEqual(files.filter((f) => folderOf(f) === ''), ['main.c']);
});

test('only the connection layer names libmicrohttpd', () => {
  const speaking = files.filter((f) => /microhttpd/.test(source(f)));
  assert.ok(speaking.length > 0);
  assert.deepEqual(speaking.filter((f) => folderOf(f) !== 'net'), []);
});

// The folder rules over a map of file -> its includes: the broken ones.
function folderViolations(includesOf) {
  const hdrs = new Set([...includesOf.keys()].filter((f) => f.endsWith('.h')));
  const bad = [];
  for (const [f, incs] of includesOf) {
    for (const inc of incs) {
      if (hdrs.has(inc)) {
        const from = folderOf(f);
        const to = folderOf(inc);
        if (to !== from && !FOLDER_MAY_USE[from].includes(to))
          bad.push(`${f} includes ${inc}: ${from || 'server/'} may not use ${to}/`);
      } else if ([...hdrs].some((h) => h.endsWith(`/${inc}`))) {
        bad.push(`${f} includes "${inc}" without its folder`);
      }
    }
  }
  return bad;
}

test('every include of a server header names its folder, and the folder rules hold', () => {
  const real = new Map(files.map((f) => [f, includes(f)]));
  assert.deepEqual(folderViolations(real), []);
  // The same check on the tree with two includes broken on purpose reports
  // both (so it cannot pass by reading nothing).
  const broken = new Map(real);
  broken.set('base/errors.c', [...real.get('base/errors.c'), 'service/service.h']);
  broken.set('tiles/render.c', [...real.get('tiles/render.c'), 'pngenc.h']);
  assert.deepEqual(folderViolations(broken), [
    'base/errors.c includes service/service.h: base may not use service/',
    'tiles/render.c includes "pngenc.h" without its folder',
  ]);
});

test('noise/ includes nothing of server/', () => {
  const noise = path.join(root, 'noise');
  const bad = [];
  for (const f of readdirSync(noise).filter((n) => /\.[ch]$/.test(n)))
    for (const [, inc] of readFileSync(path.join(noise, f), 'utf8').matchAll(/#\s*include\s+"([^"]+)"/g))
      if (headers.has(inc) || inc.includes('/')) bad.push(`noise/${f} includes ${inc}`);
  assert.deepEqual(bad, []);
});

test('no include cycles between the modules of server/', () => {
  // Module = path without extension; X depends on Y when X.c or X.h
  // includes Y.h (Y another module of server/).
  const deps = new Map();
  for (const f of files) {
    const m = mod(f);
    if (!deps.has(m)) deps.set(m, new Set());
    for (const inc of includes(f)) if (headers.has(inc) && mod(inc) !== m) deps.get(m).add(mod(inc));
  }
  const state = new Map(); // 1: on the stack, 2: done
  const stack = [];
  const visit = (m) => {
    state.set(m, 1);
    stack.push(m);
    for (const d of deps.get(m) || []) {
      if (state.get(d) === 1) assert.fail(`include cycle: ${[...stack.slice(stack.indexOf(d)), d].join(' -> ')}`);
      if (!state.get(d)) visit(d);
    }
    stack.pop();
    state.set(m, 2);
  };
  for (const m of deps.keys()) if (!state.get(m)) visit(m);
  // The check sees real edges: the connection layer depends on the service.
  assert.ok(deps.get('net/http').has('service/service') && deps.get('service/service').has('service/api'));
});
