// slowclients.test.mjs: idle and slow-loris connections holding every slot
// the daemon allows (sized from the limits it prints) do not keep a normal
// client from another address from its tiles (each fetch under 1 s); the
// daemon sheds only the connections beyond its limit and closes the rest at
// its request deadline (about 10 s). Once with the descriptor limit the
// tests run with, once under a limit of 1024 (podman's, buildah's and many
// CI runners' default). See slowclients.mjs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { runSlowClients } from './slowclients.mjs';

test('idle + slow-loris connections on every slot: a normal client still gets tiles in under 1 s, and the daemon closes them all', { timeout: 90000 }, async () => {
  const { r, fails } = await runSlowClients();
  assert.deepEqual(fails, [], JSON.stringify(r));
});

test('at a 1024 descriptor limit, 1100 idle/slow connections: a normal client gets its tiles in under 1 s', { timeout: 90000 }, async () => {
  const { r, fails } = await runSlowClients({ nofile: 1024 });
  assert.equal(r.limits.nofile, 1024);
  assert.ok(r.limits.connections < 1024, `${r.limits.connections} connections at 1024 descriptors`);
  assert.equal(r.idle + r.slow, 1100);
  assert.deepEqual(fails, [], JSON.stringify(r));
});
