// rawhttp.mjs: a raw-socket HTTP/1.1 client for the framing, lingering and
// strain tests: send bytes exactly as given, collect what comes back, and
// split it into responses with a parser of our own (node's HTTP client
// would normalise or refuse exactly what these tests look at).
import net from 'node:net';
import { SLOW } from './daemon.mjs';

export const IDLE_MS = 700 * SLOW;
export const FIRST_MS = 20000 * SLOW;

// Sends payload (a Buffer or string, or an array of them sent in turn, each
// after the previous answer began) on a new connection and collects
// everything until the server closes, or until idleMs pass without data once
// the first bytes came (firstMs before that: a daemon under valgrind renders
// its first tile.json or tile in seconds). halfClose: shutdown(SHUT_WR)
// after the last part, as a client that sends nothing more but still reads.
// until: a number of responses; idleMs then defaults to FIRST_MS (a stream
// produced on the render pool may pause that long on a loaded machine), and
// once that many complete responses are in, the exchange ends IDLE_MS
// after the last byte. Resolves { data, closed }: closed is true when the
// server ended the connection (FIN or reset).
export function exchange(port, payload, { idleMs, firstMs = FIRST_MS, halfClose = false, until = 0 } = {}) {
  idleMs ??= until > 0 ? FIRST_MS : IDLE_MS;
  const parts = Array.isArray(payload) ? payload : [payload];
  return new Promise((resolve, reject) => {
    const sock = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const chunks = [];
    let timer, next = 0;
    const finish = (closed) => { clearTimeout(timer); sock.destroy(); resolve({ data: Buffer.concat(chunks), closed }); };
    const arm = (ms) => { clearTimeout(timer); timer = setTimeout(() => finish(false), ms); };
    const send = () => {
      const p = parts[next++];
      sock.write(Buffer.isBuffer(p) ? p : Buffer.from(p, 'latin1'));
      if (halfClose && next === parts.length) sock.end();
    };
    sock.on('connect', () => { send(); arm(firstMs); });
    sock.on('data', (c) => {
      chunks.push(c);
      if (until > 0) {
        const rs = responses(Buffer.concat(chunks));
        if (rs.length >= until && !rs.some((r) => r.partial)) return arm(IDLE_MS);
      }
      if (next < parts.length) send();
      arm(idleMs);
    });
    sock.on('end', () => finish(true));
    sock.on('error', (e) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? finish(true) : reject(e)));
  });
}

// Splits a byte stream into responses [{ statusLine, status, headers, body,
// json, partial }]. methods: the request method of each response in order
// (a HEAD response has no body whatever its headers say); missing ones are
// GET. Bodies by Content-Length or chunked; 1xx, 204 and 304 have none.
// Anything left that is not a whole response is one more, marked partial.
export function responses(data, methods = []) {
  const out = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end < 0) { out.push({ statusLine: data.subarray(at).toString('latin1').split('\r\n')[0], partial: true, rest: data.subarray(at) }); break; }
    const head = data.subarray(at, end).toString('latin1').split('\r\n');
    const headers = {};
    for (const l of head.slice(1)) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const status = Number(head[0].split(' ')[1]);
    const isHead = methods[out.filter((r) => r.status >= 200).length] === 'HEAD';
    at = end + 4;
    let body = Buffer.alloc(0);
    if (isHead || status < 200 || status === 204 || status === 304) {
      // no body
    } else if (headers['transfer-encoding'] === 'chunked') {
      const parts = [];
      let partial = true;
      for (;;) {
        const le = data.indexOf('\r\n', at);
        if (le < 0) break;
        const n = parseInt(data.subarray(at, le).toString('latin1'), 16);
        at = le + 2;
        if (!(n > 0)) { partial = at + 2 > data.length; at += 2; break; }
        parts.push(data.subarray(at, at + n));
        at += n + 2;
      }
      body = Buffer.concat(parts);
      if (partial) { out.push({ statusLine: head[0], status, headers, body, partial: true }); break; }
    } else {
      const n = Number(headers['content-length'] || 0);
      body = data.subarray(at, at + n);
      at += n;
      if (at > data.length) { out.push({ statusLine: head[0], status, headers, body, partial: true }); break; }
    }
    let json;
    try { json = JSON.parse(body.toString('utf8')); } catch { json = undefined; }
    out.push({ statusLine: head[0], status, headers, body, json });
  }
  return out;
}
