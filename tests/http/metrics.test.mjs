// metrics.test.mjs: /metrics in the Prometheus text format: every line
// parses, histograms are cumulative and end in +Inf, counters grow with
// requests, cache statistics follow hits, misses and evictions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, get, waitFor } from './daemon.mjs';

let d;
// A 1 MiB cache: a few hundred small tiles fit, @2x shaded ones force evictions.
before(async () => { d = await startDaemon({ args: ['--cache-mb', '1'] }); });
after(async () => { await d.stop(); });

// Parses the exposition text; throws on a line that is not valid.
function parse(text) {
  const help = new Map(), type = new Map(), samples = [];
  const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/;
  const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"$/;
  assert.ok(text.endsWith('\n'), 'ends with a newline');
  for (const line of text.split('\n').slice(0, -1)) {
    let m;
    if ((m = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line))) { help.set(m[1], m[2]); continue; }
    if ((m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line))) {
      assert.ok(!type.has(m[1]), `TYPE ${m[1]} twice`);
      type.set(m[1], m[2]);
      continue;
    }
    m = sample.exec(line);
    assert.ok(m, `not a Prometheus line: ${JSON.stringify(line)}`);
    const labels = {};
    if (m[3]) for (const part of m[3].split(',')) {
      const l = label.exec(part);
      assert.ok(l, `bad label ${part}`);
      labels[l[1]] = l[2];
    }
    samples.push({ name: m[1], labels, value: Number(m[4]) });
  }
  // Every sample belongs to a declared family with HELP.
  for (const s of samples) {
    const family = s.name.replace(/_(bucket|sum|count)$/, '');
    const fam = type.has(s.name) ? s.name : family;
    assert.ok(type.has(fam), `no TYPE for ${s.name}`);
    assert.ok(help.has(fam), `no HELP for ${s.name}`);
    if (type.get(fam) === 'counter') assert.ok(s.name.endsWith('_total'), `counter ${s.name}`);
  }
  return { help, type, samples };
}

const value = (m, name, labels = {}) => {
  const s = m.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s ? s.value : 0;
};

async function scrape() {
  const r = await get(`${d.url}/metrics`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  return parse(r.text);
}

test('every line parses; families are declared; histogram buckets are cumulative up to +Inf', async () => {
  await get(`${d.url}/perlin/1/0/0/0.png`);
  const m = await scrape();
  for (const fam of ['noisetile_http_requests_total', 'noisetile_render_seconds', 'noisetile_cache_hits_total',
    'noisetile_cache_misses_total', 'noisetile_cache_evictions_total', 'noisetile_cache_bytes', 'noisetile_cache_entries'])
    assert.ok(m.type.has(fam), fam);
  assert.equal(m.type.get('noisetile_render_seconds'), 'histogram');
  const buckets = m.samples.filter((s) => s.name === 'noisetile_render_seconds_bucket');
  assert.ok(buckets.length >= 5);
  assert.equal(buckets.at(-1).labels.le, '+Inf');
  for (let i = 1; i < buckets.length; i++) {
    assert.ok(Number(buckets[i].labels.le) > Number(buckets[i - 1].labels.le) || buckets[i].labels.le === '+Inf');
    assert.ok(buckets[i].value >= buckets[i - 1].value, 'cumulative');
  }
  assert.equal(value(m, 'noisetile_render_seconds_count'), buckets.at(-1).value);
  assert.ok(value(m, 'noisetile_render_seconds_count') >= 1);
  assert.ok(value(m, 'noisetile_render_seconds_sum') > 0);
});

test('counters grow with requests, by route and status', async () => {
  const before = await scrape();
  await get(`${d.url}/healthz`);
  await get(`${d.url}/healthz`);
  await get(`${d.url}/perlin/1/point?x=1&y=2`);
  await get(`${d.url}/perlin/1/point?x=1`);
  await get(`${d.url}/simplex/2/1/0/0.png`);
  await get(`${d.url}/nokind/2/1/0/0.png`);
  // A request is counted when it ends, just after its client has the last
  // byte: scrape until the last of them is in (a daemon under valgrind may
  // not be there yet), then every count is exact.
  let after;
  const delta = (labels) => value(after, 'noisetile_http_requests_total', labels) - value(before, 'noisetile_http_requests_total', labels);
  await waitFor(async () => {
    after = await scrape();
    return delta({ route: 'tile', status: '404' }) >= 1;
  }, 'the last request counted');
  assert.equal(delta({ route: 'healthz', status: '200' }), 2);
  assert.equal(delta({ route: 'point', status: '200' }), 1);
  assert.equal(delta({ route: 'point', status: '400' }), 1);
  assert.equal(delta({ route: 'tile', status: '200' }), 1);
  assert.equal(delta({ route: 'tile', status: '404' }), 1);
  // The scrape itself is counted by the next scrape.
  assert.ok(delta({ route: 'metrics', status: '200' }) >= 1);
  assert.equal(value(after, 'noisetile_render_seconds_count') - value(before, 'noisetile_render_seconds_count'), 1);
});

test('cache hits, misses, entries, bytes and evictions follow the requests', async () => {
  const m0 = await scrape();
  const url = `${d.url}/value/5/3/2/1.png?octaves=2`;
  const first = await get(url);
  await get(url);
  await get(url);
  const m1 = await scrape();
  assert.equal(value(m1, 'noisetile_cache_misses_total') - value(m0, 'noisetile_cache_misses_total'), 1);
  assert.equal(value(m1, 'noisetile_cache_hits_total') - value(m0, 'noisetile_cache_hits_total'), 2);
  assert.equal(value(m1, 'noisetile_cache_entries') - value(m0, 'noisetile_cache_entries'), 1);
  assert.equal(value(m1, 'noisetile_cache_bytes') - value(m0, 'noisetile_cache_bytes'), first.body.length);
  // Fill well past the 1 MiB budget with distinct shaded @2x tiles.
  let total = 0;
  let firstBig;
  for (let i = 0; total < 3 * 1024 * 1024; i++) {
    const r = await get(`${d.url}/perlin/9/4/${i}/0@2x.png?shade=1&palette=viridis`);
    assert.equal(r.status, 200);
    if (i === 0) firstBig = r;
    total += r.body.length;
  }
  const m2 = await scrape();
  assert.ok(value(m2, 'noisetile_cache_evictions_total') > value(m1, 'noisetile_cache_evictions_total'));
  assert.ok(value(m2, 'noisetile_cache_bytes') <= 1024 * 1024);
  assert.equal(value(m2, 'noisetile_cache_budget_bytes'), 1024 * 1024);
  // An evicted tile is rendered again with the same bytes.
  const misses = value(m2, 'noisetile_cache_misses_total');
  const again = await get(`${d.url}/perlin/9/4/0/0@2x.png?shade=1&palette=viridis`);
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, firstBig.body);
  assert.equal(again.headers.get('etag'), firstBig.headers.get('etag'));
  assert.equal(value(await scrape(), 'noisetile_cache_misses_total'), misses + 1);
});

test('concurrent requests for one uncached tile render it once and get the same bytes', async () => {
  const m0 = await scrape();
  const url = `${d.url}/simplex/31/2/-1/1@2x.png?octaves=12&warp=0.25`;
  const rs = await Promise.all(Array.from({ length: 8 }, () => get(url)));
  const m1 = await scrape();
  for (const r of rs) {
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, rs[0].body);
    assert.equal(r.headers.get('etag'), rs[0].headers.get('etag'));
  }
  assert.equal(value(m1, 'noisetile_render_seconds_count') - value(m0, 'noisetile_render_seconds_count'), 1);
  assert.equal((value(m1, 'noisetile_cache_hits_total') + value(m1, 'noisetile_cache_misses_total'))
    - (value(m0, 'noisetile_cache_hits_total') + value(m0, 'noisetile_cache_misses_total')), 8);
});
