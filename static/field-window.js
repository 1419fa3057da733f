/* field-window.js: what the 3D view, the statistics panel, compare mode and
 * the downloads share: the window of the plane on screen, the URLs of the
 * grid and statistics endpoints for it, a .npy reader, and the hand-off
 * from viewer.js (window.noisetile, the noisetile:* events). */

export const nt = () => window.noisetile;

/* Runs fn once the viewer has read /api/kinds and made its map. */
export function whenReady(fn) {
  if (document.body.dataset.ready === '1') fn();
  else document.addEventListener('noisetile:ready', fn, { once: true });
}

/* fn after a change of field or of view, at most once per `ms`. */
export function onFieldOrView(fn, ms) {
  let timer = null;
  const later = () => { clearTimeout(timer); timer = setTimeout(fn, ms); };
  document.addEventListener('noisetile:change', later);
  document.addEventListener('noisetile:move', later);
  window.addEventListener('resize', later);
}

/* The value of name in the URL hash (or in the hash given), or null. */
export function hashGet(name, hash) {
  return new URLSearchParams((hash === undefined ? location.hash : hash).replace(/^#/, '')).get(name);
}

/* Calls fromHash(hash) with the hash the page opened with, then on every
 * change of the hash (viewer.js rewrites it at start, before the modules
 * have said what they keep in it). */
export function followHash(fromHash) {
  window.addEventListener('hashchange', () => fromHash(location.hash));
  fromHash(nt().initialHash || '');
}

/* The plane window a map shows: samples at the centres of its CSS pixels,
 * `per` samples per pixel along each axis (sample (i, j) at
 * (x + i*step, y + j*step), as the grid and stats endpoints take it). A
 * window larger than maxSide on its longer side is sampled more coarsely,
 * with the same extent. */
export function visibleWindow(map, per, maxSide) {
  const size = map.getSize();
  const tl = map.containerPointToLatLng([0, 0]);
  const k = nt().pxPerUnit(map.getZoom());
  let step = 1 / (k * (per || 1));
  let width = Math.max(1, Math.round(size.x * (per || 1)));
  let height = Math.max(1, Math.round(size.y * (per || 1)));
  if (maxSide && Math.max(width, height) > maxSide) {
    const f = maxSide / Math.max(width, height);
    step /= f;
    width = Math.max(2, Math.round(width * f));
    height = Math.max(2, Math.round(height * f));
  }
  /* extent: from the first pixel's centre to the last one's */
  return { x: tl.lng + step / 2, y: tl.lat + step / 2, step, width, height, zoom: map.getZoom() };
}

/* The same extent with `width` samples across (height in proportion, or
 * as given): for the 3D mesh and for downloads of a chosen size. */
export function resampled(win, width, height) {
  const spanX = win.step * (win.width - 1), spanY = win.step * (win.height - 1);
  const step = spanX > 0 ? spanX / Math.max(1, width - 1) : win.step;
  const h = height || Math.max(1, Math.round(spanY / step) + 1);
  return { x: win.x, y: win.y, step, width, height: h, zoom: win.zoom };
}

/* The path of the map's field (a graph's: /graph/{seed}, its g= in
 * fieldQuery), or of the kind given with the panel's parameters. */
export function fieldPath(kind, seed) {
  const s = nt().state;
  const head = kind || !s.graph ? encodeURIComponent(kind || s.kind) : 'graph';
  return '/' + head + '/' + (seed === undefined ? s.seed : seed);
}

export function windowQuery(win) {
  return ['x=' + encodeURIComponent(String(win.x)), 'y=' + encodeURIComponent(String(win.y)),
    'step=' + encodeURIComponent(String(win.step)), 'width=' + win.width, 'height=' + win.height];
}

/* GET /{kind}/{seed}/grid.{ext}?<window>&<field>[&extra] (the heights
 * issue's grid endpoint); kind defaults to the map's. */
export function gridUrl(ext, win, kind, extra) {
  const q = windowQuery(win).concat(nt().fieldQuery(kind), extra || []);
  return fieldPath(kind) + '/grid.' + ext + '?' + q.join('&');
}

/* GET /{kind}/{seed}/stats?<window>&<field>&bins=n */
export function statsUrl(win, kind, bins) {
  const q = windowQuery(win).concat(nt().fieldQuery(kind), bins ? ['bins=' + bins] : []);
  return fieldPath(kind) + '/stats?' + q.join('&');
}

/* JSON of a response, or an Error with the daemon's message. */
export async function fetchJson(url, opts) {
  const r = await fetch(url, opts);
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error((j.error && j.error.message) || 'HTTP ' + r.status), { status: r.status });
  return j;
}

/* A NumPy 1.0/2.0 file of little-endian float32 (<f4), C order:
 * {shape, data: Float32Array}. */
export function parseNpy(buf) {
  const u8 = new Uint8Array(buf);
  const magic = String.fromCharCode(...u8.subarray(0, 6));
  if (magic !== '\x93NUMPY') throw new Error('not a .npy file');
  const major = u8[6];
  const dv = new DataView(buf);
  const hlen = major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  const header = new TextDecoder('latin1').decode(u8.subarray(start, start + hlen));
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header))
    throw new Error('.npy is not C-order <f4: ' + header.trim());
  const shape = (header.match(/'shape':\s*\(([^)]*)\)/) || [, ''])[1].split(',')
    .map((t) => t.trim()).filter(Boolean).map(Number);
  const off = start + hlen;
  const n = shape.reduce((a, b) => a * b, 1);
  /* the header pads the data to 64 bytes, so it is aligned for a view */
  const data = off % 4 === 0 ? new Float32Array(buf, off, n) : new Float32Array(buf.slice(off, off + 4 * n));
  return { shape, data };
}

/* The field's heights over win as a Float32Array, row by row. */
export async function fetchHeights(win, kind) {
  const r = await fetch(gridUrl('npy', win, kind));
  if (!r.ok) {
    const j = await r.json().catch(() => ({}));
    throw new Error((j.error && j.error.message) || 'HTTP ' + r.status);
  }
  const npy = parseNpy(await r.arrayBuffer());
  if (npy.shape[0] !== win.height || npy.shape[1] !== win.width)
    throw new Error('grid shape ' + npy.shape.join('x') + ', asked ' + win.height + 'x' + win.width);
  return npy.data;
}

/* The map's tiles over the window, drawn into a canvas of the map's size
 * (what the map shows, in its palette and render options; `render` replaces
 * the render query). Tiles are same-origin, so the canvas stays readable. */
export async function tileCanvas(map, kind, render) {
  const api = nt().api();
  const size = map.getSize(), zoom = map.getZoom();
  const tz = Math.max(api.minZoom, Math.min(api.maxZoom, Math.round(zoom)));
  const k = nt().pxPerUnit(zoom);
  const tileUnits = api.worldSize / Math.pow(2, tz), tilePx = tileUnits * k;
  const tl = map.containerPointToLatLng([0, 0]);
  const x0 = tl.lng, y0 = tl.lat, x1 = x0 + size.x / k, y1 = y0 + size.y / k;
  const q = nt().fieldQuery(kind).concat(render === undefined ? nt().renderQuery() : render).join('&');
  const base = fieldPath(kind);
  const canvas = document.createElement('canvas');
  canvas.width = size.x;
  canvas.height = size.y;
  const ctx = canvas.getContext('2d');
  const jobs = [];
  const lim = api.tileIndexMax === undefined ? Infinity : api.tileIndexMax;
  for (let ty = Math.floor(y0 / tileUnits); ty * tileUnits < y1; ty++) {
    for (let tx = Math.floor(x0 / tileUnits); tx * tileUnits < x1; tx++) {
      if (tx < -lim - 1 || tx > lim || ty < -lim - 1 || ty > lim) continue;
      const img = new Image();
      img.src = base + '/' + tz + '/' + tx + '/' + ty + '.png' + (q ? '?' + q : '');
      jobs.push(img.decode().then(() => {
        ctx.drawImage(img, (tx * tileUnits - x0) * k, (ty * tileUnits - y0) * k, tilePx, tilePx);
      }));
    }
  }
  await Promise.all(jobs);
  return canvas;
}
