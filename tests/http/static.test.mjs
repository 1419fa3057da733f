// static.test.mjs: files of --static at /: index.html, content types, and
// nothing outside the folder (the traversal table is in errors.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, get, raw, makeStaticFixture, STATIC } from './daemon.mjs';

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

test('the project viewer is served at / when --static is the static folder', async () => {
  const d = await startDaemon({ staticDir: STATIC });
  try {
    const r = await get(`${d.url}/`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type'), /^text\/html/);
    assert.match(r.text, /<html|<!doctype html/i);
  } finally {
    await d.stop();
  }
});

test('without --static every non-API path is a JSON 404', async () => {
  const d = await startDaemon({ staticDir: null, env: { NOISETILE_STATIC: undefined } });
  try {
    for (const path of ['/', '/index.html', '/../etc/passwd']) {
      const r = await raw(d.port, 'GET', path);
      assert.equal(r.status, 404, path);
      assert.equal(r.json.error.status, 404);
      assert.match(r.json.error.message, /no route/);
    }
  } finally {
    await d.stop();
  }
});
