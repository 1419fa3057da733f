// slowclients-worker.mjs: one process of the slow-client attack
// (slowclients.mjs), so that the attack can hold more connections than one
// process's descriptor limit allows (1024 in a default container). Driven by
// messages from its parent:
//   {cmd: 'open', port, conns: [{kind: 'idle'|'slow', address}]} -> {cmd: 'opened'}
//   {cmd: 'slow', intervalMs}  slow ones send a request line, then a header
//                              byte every intervalMs, never finishing -> {cmd: 'slowing'}
//   {cmd: 'count'}             -> {cmd: 'count', open}
//   {cmd: 'wait', ms}          until all are closed or ms passed
//                              -> {cmd: 'records', records: [{kind, lifetimeS | null}]}
import net from 'node:net';

const conns = [];
let drip = null;

function open(port, kind, localAddress) {
  return new Promise((resolve) => {
    const rec = { kind, opened: 0, closedAt: null, sock: null };
    const s = net.connect({ host: '127.0.0.1', port, localAddress });
    rec.sock = s;
    s.on('connect', () => { rec.opened = performance.now(); resolve(rec); });
    s.on('data', () => {});
    s.on('error', () => {});
    s.on('close', () => {
      if (rec.closedAt === null) rec.closedAt = performance.now();
      if (!rec.opened) rec.opened = rec.closedAt;
      resolve(rec);
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const openCount = () => conns.filter((c) => c.closedAt === null).length;

process.on('message', async (m) => {
  if (m.cmd === 'open') {
    for (let i = 0; i < m.conns.length; i += 100) {
      const part = m.conns.slice(i, i + 100);
      conns.push(...await Promise.all(part.map((c) => open(m.port, c.kind, c.address))));
    }
    process.send({ cmd: 'opened' });
  } else if (m.cmd === 'slow') {
    const slow = conns.filter((c) => c.kind === 'slow');
    for (const c of slow) if (c.closedAt === null) c.sock.write('GET /perlin/7/3/1/2.png HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    drip = setInterval(() => {
      for (const c of slow) if (c.closedAt === null && !c.sock.destroyed) c.sock.write('a');
    }, m.intervalMs);
    process.send({ cmd: 'slowing' });
  } else if (m.cmd === 'count') {
    process.send({ cmd: 'count', open: openCount() });
  } else if (m.cmd === 'wait') {
    const t0 = performance.now();
    while (openCount() > 0 && performance.now() - t0 < m.ms) await sleep(100);
    clearInterval(drip);
    const records = conns.map((c) => ({ kind: c.kind, lifetimeS: c.closedAt === null ? null : (c.closedAt - c.opened) / 1000 }));
    for (const c of conns) c.sock.destroy();
    process.send({ cmd: 'records', records }, () => process.exit(0));
  }
});
