/* compare.js: compare mode: a second map beside the first showing the same
 * field with another kind (the Islands page's value against Perlin), both
 * maps panned and zoomed together. In the hash: cmp=<kind>. */
import { nt, whenReady, hashGet, followHash } from './field-window.js';

const $ = (id) => document.getElementById(id);
let map2 = null, layer2 = null, kindB = null, syncing = false;
const listeners = [];

export function compareKind() { return kindB; }
export function onCompareChange(fn) { listeners.push(fn); }

function tileUrl() {
  const q = nt().fieldQuery(kindB).concat(nt().renderQuery()).join('&');
  return '/' + encodeURIComponent(kindB) + '/' + nt().state.seed + '/{z}/{x}/{y}{r}.' + nt().tileExt() + (q ? '?' + q : '');
}

function label(id, kind) {
  $(id).textContent = kind + ' \u00b7 seed ' + nt().state.seed;
}

/* One map follows the other's centre and zoom at once (no animation), so
 * the same plane point is under the same pixel of both. */
function follow(from, to) {
  if (syncing) return;
  syncing = true;
  to.setView(from.getCenter(), from.getZoom(), { animate: false });
  syncing = false;
}

function sync() {
  if (!map2) return;
  const url = tileUrl();
  if (!layer2 || layer2._url !== url) {
    const map = nt().map();
    const next = L.tileLayer(url, {
      tileSize: nt().api().tileSize, noWrap: true, minZoom: map.getMinZoom(), maxZoom: map.getMaxZoom(),
      minNativeZoom: nt().api().minZoom, maxNativeZoom: nt().api().maxZoom, keepBuffer: 1, className: 'noise-tiles-b'
    });
    const old = layer2;
    next.once('load', () => { if (old) map2.removeLayer(old); });
    next.addTo(map2);
    layer2 = next;
  }
  label('map-label-a', nt().fieldLabel());
  label('map-label-b', kindB);
  $('cmp-kind').querySelectorAll('input').forEach((i) => { i.checked = i.value === kindB; });
}

function setCompare(kind) {
  const map = nt().map();
  kindB = kind;
  document.body.classList.toggle('compare', !!kind);
  $('t-cmp').checked = !!kind;
  $('cmp-kind').hidden = !kind;
  $('map2').hidden = $('map-label-a').hidden = $('map-label-b').hidden = !kind;
  if (kind && !map2) {
    map2 = L.map('map2', {
      crs: map.options.crs, center: map.getCenter(), zoom: map.getZoom(), minZoom: map.getMinZoom(),
      maxZoom: map.getMaxZoom(), zoomControl: false, attributionControl: false, keyboard: true
    });
    map.on('move zoom', () => follow(map, map2));
    map2.on('move zoom', () => follow(map2, map));
    map2.on('moveend', () => document.dispatchEvent(new CustomEvent('noisetile:move')));
    /* its box resized without a window resize (as the first map's, viewer.js) */
    if (window.ResizeObserver) {
      new ResizeObserver(() => {
        const el = map2.getContainer(), size = map2.getSize();
        if (el.clientWidth === 0 || (size.x === el.clientWidth && size.y === el.clientHeight)) return;
        map2.invalidateSize({ animate: false });
        follow(map, map2);
        document.dispatchEvent(new CustomEvent('noisetile:move'));
      }).observe(map2.getContainer());
    }
  }
  /* the first map keeps its centre as it narrows or widens */
  map.invalidateSize({ animate: false });
  if (kind) {
    map2.invalidateSize({ animate: false });
    follow(map, map2);
    sync();
  }
  nt().scheduleHash();
  listeners.forEach((f) => f());
}

/* the panel opened or closed: the maps' widths changed */
document.addEventListener('noisetile:layout', () => {
  if (!map2 || !kindB) return;
  map2.invalidateSize({ animate: false });
  follow(nt().map(), map2);
});

function defaultB() {
  const a = nt().state.kind;
  const kinds = nt().api().kinds.map((k) => k.name);
  return a === 'perlin' ? 'value' : kinds.indexOf('perlin') >= 0 ? 'perlin' : kinds.find((k) => k !== a);
}

whenReady(() => {
  const seg = $('cmp-kind');
  seg.className = nt().segClass(nt().api().kinds.length);
  nt().api().kinds.forEach((k) => {
    const id = 'cmp-kind-' + k.name;
    const inp = Object.assign(document.createElement('input'), { type: 'radio', name: 'cmp-kind', id, value: k.name });
    inp.addEventListener('change', () => { if (inp.checked) setCompare(k.name); });
    const lab = Object.assign(document.createElement('label'), { htmlFor: id, textContent: k.name });
    seg.append(inp, lab);
  });
  $('t-cmp').addEventListener('change', (e) => setCompare(e.target.checked ? defaultB() : null));
  nt().addHashPart(() => (kindB ? ['cmp=' + encodeURIComponent(kindB)] : []));
  document.addEventListener('noisetile:change', sync);
  followHash((h) => {
    const k = hashGet('cmp', h);
    const known = k !== null && nt().api().kinds.some((x) => x.name === k);
    if ((known ? k : null) !== kindB) setCompare(known ? k : null);
  });
  window.noisetile.compare = { map: () => map2, kind: () => kindB, set: setCompare };
});
