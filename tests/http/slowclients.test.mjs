// slowclients.test.mjs: 1000 idle and 100 slow-loris connections do not keep
// a normal client from its tiles (each fetch under 1 s), are all held while
// they last (no refusal below the connection limits), and are all closed by
// the daemon's request deadline (about 10 s). See slowclients.mjs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon } from './daemon.mjs';
import { slowClients, checkSlowClients } from './slowclients.mjs';

test('1000 idle + 100 slow-loris connections: a normal client still gets tiles in under 1 s, and the daemon closes them all', { timeout: 60000 }, async () => {
  const d = await startDaemon({ staticDir: null });
  try {
    const r = await slowClients(d.port);
    assert.deepEqual(checkSlowClients(r), [], JSON.stringify(r));
    // The deadline, not something quicker, closed them.
    assert.ok(r.idleLifetimeS.min >= 9.5, `idle connection closed after ${r.idleLifetimeS.min} s`);
    assert.ok(r.slowLifetimeS.min >= 9.5, `slow connection closed after ${r.slowLifetimeS.min} s`);
  } finally {
    await d.stop();
  }
});
