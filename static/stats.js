/* stats.js: the statistics panel: GET /{kind}/{seed}/stats over the window
 * on screen, one sample per CSS pixel: range, mean, standard deviation,
 * share beyond +-0.5, peaks and a histogram; in compare mode both fields
 * side by side, as the Islands page's table. In the hash: stats=1. */
import { nt, whenReady, onFieldOrView, hashGet, followHash, visibleWindow, statsUrl, fetchJson } from './field-window.js';
import { compareKind, onCompareChange } from './compare.js';

const BINS = 32;
/* samples along the longer side at most: beyond, the window is sampled
 * more coarsely (the note under the table says so) */
const MAX_SIDE = 2048;
const ROWS = [
  ['min', 'min', (v) => fix(v, 4)],
  ['max', 'max', (v) => fix(v, 4)],
  ['mean', 'mean', (v) => fix(v, 4)],
  ['sd', 'standard deviation', (v) => fix(v, 4)],
  ['share_beyond_half', '|v| > 0.5', (v) => (100 * v).toFixed(1) + ' %'],
  ['peaks', 'peaks', (v) => String(v)],
  ['count', 'samples', (v) => String(v)]
];
const $ = (id) => document.getElementById(id);
let open = false, seq = 0, lastKey = null;

function fix(v, d) {
  const s = Math.abs(v).toFixed(d);
  return (v < 0 && Number(s) !== 0 ? '\u2212' : '') + s;
}

/* One column per field: the map's (a kind or a graph), the compared kind. */
function fields() {
  const a = { kind: undefined, name: nt().fieldLabel(), id: 'a' };
  const b = compareKind();
  return b ? [a, { kind: b, name: b, id: 'b' }] : [a];
}

function table(results, win) {
  const t = $('stats-table');
  t.textContent = '';
  const head = t.createTHead().insertRow();
  head.appendChild(document.createElement('th'));
  results.forEach((r) => {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = r.field.name;
    th.className = 'col-' + r.field.id;
    head.appendChild(th);
  });
  const body = t.createTBody();
  ROWS.forEach(([key, name, fmt]) => {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = name;
    if (key === 'peaks') th.title = 'samples above all 8 neighbours';
    tr.appendChild(th);
    results.forEach((r) => {
      const td = tr.insertCell();
      td.textContent = fmt(r.json[key]);
      td.dataset.key = key;
      td.dataset.field = r.field.id;
      td.dataset.value = String(r.json[key]);
    });
  });
  $('stats-note').textContent = win.width + ' \u00d7 ' + win.height + ' samples, step ' +
    Number(win.step.toPrecision(3)) + ' (one per ' + (win.per === 1 ? 'pixel' : Number((1 / win.per).toPrecision(3)) + ' pixels') + ')';
}

/* The histograms as bars over [-1, 1], the second field as an outline. */
function histogram(results) {
  const svg = $('stats-hist');
  const W = 240, H = 64;
  svg.setAttribute('viewBox', '0 0 ' + W + ' ' + (H + 12));
  svg.textContent = '';
  const NS = 'http://www.w3.org/2000/svg';
  const peak = Math.max(...results.map((r) => Math.max(...r.json.histogram.counts) / r.json.count));
  results.forEach((r, idx) => {
    const c = r.json.histogram.counts, bw = W / c.length;
    let d = '';
    c.forEach((n, k) => {
      const h = (n / r.json.count) / peak * H;
      d += (idx === 0 ? 'M' + (k * bw + 0.5) + ',' + H + 'v' + (-h) + 'h' + (bw - 1) + 'v' + h + 'z'
        : (k === 0 ? 'M0,' + (H - h) : 'L' + (k * bw) + ',' + (H - h)) + 'h' + bw);
    });
    const p = document.createElementNS(NS, 'path');
    p.setAttribute('d', d);
    p.setAttribute('class', 'hist-' + r.field.id);
    svg.appendChild(p);
  });
  [[-1, 'start'], [-0.5, 'middle'], [0, 'middle'], [0.5, 'middle'], [1, 'end']].forEach(([v, anchor]) => {
    const x = (v + 1) / 2 * W;
    const tick = document.createElementNS(NS, 'line');
    Object.entries({ x1: x, x2: x, y1: H, y2: H + 3, class: 'tick' }).forEach(([k, val]) => tick.setAttribute(k, val));
    svg.appendChild(tick);
    const tx = document.createElementNS(NS, 'text');
    Object.entries({ x, y: H + 11, 'text-anchor': anchor }).forEach(([k, val]) => tx.setAttribute(k, val));
    tx.textContent = v === 0 ? '0' : (v < 0 ? '\u2212' : '') + Math.abs(v);
    svg.appendChild(tx);
  });
  $('stats-legend').hidden = results.length < 2;
  if (results.length > 1) {
    $('stats-legend-a').textContent = results[0].field.name + ' (bars)';
    $('stats-legend-b').textContent = results[1].field.name + ' (line)';
  }
}

/* The statistics of both fields over the window at most maxSide samples
 * on its longer side. A field too costly at that density (422: many
 * octaves, warp, t) is asked again with half the samples per side. */
async function fetchStats(fs, maxSide, my) {
  for (let side = maxSide; ; side = Math.floor(side / 2)) {
    const win = visibleWindow(nt().map(), 1, side);
    win.per = (1 / win.step) / nt().pxPerUnit(win.zoom);
    const urls = fs.map((f) => statsUrl(win, f.kind, BINS));
    if (urls.join(' ') === lastKey || my !== seq) return null;
    try {
      return { win, urls, js: await Promise.all(urls.map((u) => fetchJson(u))) };
    } catch (e) {
      if (e.status !== 422 || side < 64) throw e;
    }
  }
}

async function refresh() {
  if (!open) return;
  const fs = fields();
  const my = ++seq;
  $('stats').classList.add('busy');
  try {
    const got = await fetchStats(fs, MAX_SIDE, my);
    if (got === null || my !== seq) return;
    const { win, urls, js } = got;
    const key = urls.join(' ');
    const results = fs.map((f, i) => ({ field: f, json: js[i], url: urls[i] }));
    table(results, win);
    histogram(results);
    lastKey = key;
    $('stats').dataset.urls = key;
  } catch (e) {
    if (my === seq) nt().status('Statistics: ' + e.message, 'warn');
  } finally {
    if (my === seq) $('stats').classList.remove('busy');
  }
}

function setOpen(on) {
  open = on;
  $('stats').hidden = !on;
  $('t-stats').checked = on;
  nt().scheduleHash();
  lastKey = null;
  refresh();
}

whenReady(() => {
  nt().addHashPart(() => (open ? ['stats=1'] : []));
  $('t-stats').addEventListener('change', (e) => setOpen(e.target.checked));
  $('stats-close').addEventListener('click', () => setOpen(false));
  onFieldOrView(refresh, 250);
  onCompareChange(() => { lastKey = null; refresh(); });
  followHash((h) => { if ((hashGet('stats', h) === '1') !== open) setOpen(!open); });
  window.noisetile.stats = { isOpen: () => open };
});
