// static.test.mjs: the viewer at /: built into the binary, or the files of
// --static: index.html, content types, and nothing outside the folder (the
// traversal table is in errors.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, get, raw, makeStaticFixture, STATIC } from './daemon.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('files of --static: index.html at /, content types by extension, subfolders', async () => {
  const fx = makeStaticFixture();
  const d = await startDaemon({ staticDir: fx.dir });
  try {
    const cases = [
      ['/', 'text/html; charset=utf-8', /fixture index/],
      ['/index.html', 'text/html; charset=utf-8', /fixture index/],
      ['/app.js', 'text/javascript; charset=utf-8', /console\.log/],
      ['/style.css', 'text/css; charset=utf-8', /color: black/],
      ['/data.json', 'application/json', /"fixture":true/],
      ['/icon.svg', 'image/svg+xml', /<svg/],
      ['/img.png', 'image/png', /PNG/],
      ['/sub/', 'text/html; charset=utf-8', /sub index/],
      ['/sub', 'text/html; charset=utf-8', /sub index/],
      ['/sub/page.html', 'text/html; charset=utf-8', /sub page/],
      ['/a%20b.txt', 'text/plain; charset=utf-8', /space in name/],
      ['/inside.html', 'text/html; charset=utf-8', /sub page/], // a symlink that stays inside
    ];
    for (const [path, type, re] of cases) {
      const r = await raw(d.port, 'GET', path);
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      assert.equal(r.headers['content-type'], type, path);
      assert.equal(r.headers['access-control-allow-origin'], '*', path);
      assert.match(r.text, re, path);
      const h = await raw(d.port, 'HEAD', path);
      assert.equal(h.status, 200);
      assert.equal(h.body.length, 0);
      assert.equal(h.headers['content-length'], String(r.body.length));
    }
  } finally {
    await d.stop();
  }
});

test('--static static: the viewer from the working tree, Leaflet (not in static/) from the copy built in', async () => {
  const d = await startDaemon({ staticDir: STATIC });
  try {
    const r = await get(`${d.url}/`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /^text\/html/);
    assert.match(r.text, /<html|<!doctype html/i);
    assert.equal(r.headers.get('etag'), null, 'a --static file has no built-in ETag');
    const l = await raw(d.port, 'GET', '/vendor/leaflet/leaflet.js');
    assert.equal(l.status, 200);
    assert.ok(l.body.equals(readFileSync(path.join(ROOT, 'node_modules/leaflet/dist/leaflet.js'))));
    assert.equal((await raw(d.port, 'GET', '/nope.js')).status, 404);
  } finally {
    await d.stop();
  }
});

test('without --static the binary serves the viewer built into it: the bytes of static/ and the pinned Leaflet, ETag and 304, 404 for the rest', async () => {
  const d = await startDaemon({ staticDir: null, env: { NOISETILE_STATIC: undefined } });
  try {
    const files = [
      ['/', path.join(STATIC, 'index.html'), 'text/html; charset=utf-8'],
      ['/index.html', path.join(STATIC, 'index.html'), 'text/html; charset=utf-8'],
      ['/viewer.js', path.join(STATIC, 'viewer.js'), 'text/javascript; charset=utf-8'],
      ['/viewer.css', path.join(STATIC, 'viewer.css'), 'text/css; charset=utf-8'],
      ['/vendor/leaflet/leaflet.js', path.join(ROOT, 'node_modules/leaflet/dist/leaflet.js'), 'text/javascript; charset=utf-8'],
      ['/vendor/leaflet/leaflet.css', path.join(ROOT, 'node_modules/leaflet/dist/leaflet.css'), 'text/css; charset=utf-8'],
      ['/vendor/leaflet/images/layers.png', path.join(ROOT, 'node_modules/leaflet/dist/images/layers.png'), 'image/png'],
    ];
    for (const [p, file, type] of files) {
      const r = await raw(d.port, 'GET', p);
      assert.equal(r.status, 200, `${p}: ${r.text}`);
      assert.equal(r.headers['content-type'], type, p);
      assert.ok(r.body.equals(readFileSync(file)), `${p} is not the bytes of ${file}`);
      assert.equal(r.headers['content-length'], String(r.body.length), p);
      assert.match(r.headers.etag, /^"[0-9a-f]{16}"$/, p);
      assert.equal(r.headers['cache-control'], 'no-cache', p);
      const again = await raw(d.port, 'GET', p, { headers: { 'If-None-Match': r.headers.etag } });
      assert.equal(again.status, 304, p);
      assert.equal(again.body.length, 0, p);
      const h = await raw(d.port, 'HEAD', p);
      assert.equal(h.status, 200, p);
      assert.equal(h.body.length, 0, p);
    }
    // Every file of the staged viewer (static/ and each WWW_VENDOR library:
    // Leaflet, pmtiles, three.js, ...) is served, byte for byte.
    const www = path.join(ROOT, process.env.BUILD || 'build', 'www');
    const staged = readdirSync(www, { recursive: true }).filter((f) => statSync(path.join(www, f)).isFile());
    assert.ok(staged.length >= files.length, `${staged.length} staged files`);
    for (const f of staged) {
      const r = await raw(d.port, 'GET', '/' + f.split(path.sep).map(encodeURIComponent).join('/'));
      assert.equal(r.status, 200, f);
      assert.ok(r.body.equals(readFileSync(path.join(www, f))), `${f}: not the staged bytes`);
    }
    // Another file's ETag is not this one's.
    const other = await raw(d.port, 'GET', '/viewer.js', { headers: { 'If-None-Match': (await raw(d.port, 'GET', '/')).headers.etag } });
    assert.equal(other.status, 200);
    for (const p of ['/nope.js', '/vendor/', '/vendor/leaflet/leaflet.js.map', '/index.htm']) {
      const r = await raw(d.port, 'GET', p);
      assert.equal(r.status, 404, p);
      assert.equal(r.json.error.status, 404, p);
    }
    for (const p of ['/../etc/passwd', '/vendor/../index.html', '/%2e%2e/x', '/.hidden']) {
      const r = await raw(d.port, 'GET', p);
      assert.equal(r.status, 400, p);
      assert.match(r.json.error.message, /bad file path/, p);
    }
  } finally {
    await d.stop();
  }
});
