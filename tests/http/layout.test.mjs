// layout.test.mjs: the shape of server/: only the connection layer speaks
// libmicrohttpd, and no module includes, directly or through others, a
// module that includes it back (no include cycles).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const server = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'server');
const files = readdirSync(server).filter((f) => /\.[ch]$/.test(f));

test('only the connection layer names libmicrohttpd', () => {
  const speaking = files.filter((f) => /microhttpd/.test(readFileSync(path.join(server, f), 'utf8')));
  assert.deepEqual(speaking.sort(), ['connguard.c', 'connguard.h', 'http.c', 'http.h']);
});

test('no include cycles between the modules of server/', () => {
  // Module = file name without extension; X depends on Y when X.c or X.h
  // includes "Y.h" (Y another module of server/).
  const mod = (f) => f.replace(/\.[ch]$/, '');
  const deps = new Map();
  for (const f of files) {
    const m = mod(f);
    if (!deps.has(m)) deps.set(m, new Set());
    for (const [, inc] of readFileSync(path.join(server, f), 'utf8').matchAll(/#include "([^"]+)\.h"/g))
      if (inc !== m && files.includes(`${inc}.h`)) deps.get(m).add(inc);
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
  assert.ok(deps.get('http').has('service') && deps.get('service').has('api'));
});
