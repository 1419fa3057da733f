/* downloads.js: links that download the window on screen from the grid
 * endpoint at a size the user picks (samples across; rows in proportion):
 * a PNG in the map's palette, float32 .npy, 16-bit .r16 and 16-bit PNG.
 * The files carry where they came from: the PNGs a tEXt chunk with the
 * grid URL (keyword "Source") and one describing the field and window
 * ("Description"); .npy and .r16, which have no place for it, a sidecar
 * JSON (the "JSON" link) with the URL of each form, the field and window. */
import { nt, whenReady, onFieldOrView, visibleWindow, gridUrl } from './field-window.js';

const $ = (id) => document.getElementById(id);
const MIN_SIDE = 2, MAX_SIDE = 4097;
let chosen = null;   /* samples across the user typed; null: one per pixel */

/* The window's extent with `across` samples along x. */
function sizedWindow() {
  const map = nt().map();
  const px = visibleWindow(map, 1);
  const across = chosen || px.width;
  const f = (across - 1) / Math.max(1, px.width - 1);
  const step = px.step / (f || 1);
  const height = Math.max(1, Math.round((px.height - 1) * f) + 1);
  return { x: px.x, y: px.y, step, width: across, height };
}

/* The render options of the map, the palette always named: grid.png
 * without it would be 16-bit heights, not a picture. */
function picture() {
  const q = nt().renderQuery();
  const pal = nt().api().render.find((p) => p.name === 'palette');
  if (!q.some((p) => p.startsWith('palette=')) && pal) q.unshift('palette=' + encodeURIComponent(pal.def));
  return q;
}

/* ---- provenance ---- */
let CRC_TABLE = null;
function crc32(bytes) {
  if (!CRC_TABLE) {
    CRC_TABLE = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
/* A PNG tEXt chunk: keyword, NUL, text, Latin-1 (our texts are ASCII). */
function textChunk(keyword, text) {
  const data = new TextEncoder().encode(keyword + '\0' + text);
  const out = new Uint8Array(12 + data.length), v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  out.set([116, 69, 88, 116], 4); /* "tEXt" */
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}
/* The PNG with the chunks inserted before its IEND (its last 12 bytes). */
function withText(png, pairs) {
  const chunks = pairs.map(([k, t]) => textChunk(k, t));
  const n = chunks.reduce((s, c) => s + c.length, 0);
  const out = new Uint8Array(png.length + n);
  out.set(png.subarray(0, png.length - 12), 0);
  let at = png.length - 12;
  chunks.forEach((c) => { out.set(c, at); at += c.length; });
  out.set(png.subarray(png.length - 12), at);
  return out;
}
function absolute(href) { return new URL(href, location.href).href; }
function describe(win) {
  const s = nt().state;
  const field = s.graph ? 'graph ' + s.graph.text : s.kind;
  return 'noisetile ' + field + ' seed ' + s.seed + ': window x=' + win.x + ' y=' + win.y + ' step=' + win.step +
    ', ' + win.width + ' x ' + win.height + ' samples (sample (i, j) at (x + i*step, y + j*step))';
}
let current = null;   /* the window and links update() made */
function sidecar() {
  const s = nt().state, win = current.win;
  return JSON.stringify({
    noisetile: Object.assign(s.graph ? { graph: s.graph.text } : { kind: s.kind }, { seed: s.seed, query: nt().fieldQuery().join('&') }),
    window: { x: win.x, y: win.y, step: win.step, width: win.width, height: win.height,
      sample: 'sample (i, j) is the field at (x + i*step, y + j*step)' },
    files: Object.fromEntries(Object.entries(current.links).map(([id, [href, file]]) => [file, absolute(href)])),
    page: location.href
  }, null, 2) + '\n';
}
function save(blob, file) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = file;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
/* A click on a PNG link: the file with its provenance chunks. */
async function downloadPng(e) {
  e.preventDefault();
  const a = e.currentTarget;
  try {
    const r = await fetch(a.href);
    if (!r.ok) throw new Error((await r.json()).error.message);
    const png = new Uint8Array(await r.arrayBuffer());
    save(new Blob([withText(png, [['Source', absolute(a.href)], ['Description', describe(current.win)]])], { type: 'image/png' }), a.download);
  } catch (err) {
    nt().status('Download failed: ' + err.message, 'warn');
  }
}

function update() {
  const win = sizedWindow();
  const s = nt().state;
  const name = 'noisetile-' + nt().fieldLabel() + '-' + s.seed + '-' + win.width + 'x' + win.height;
  const links = {
    'dl-png': [gridUrl('png', win, undefined, picture()), name + '.png'],
    'dl-npy': [gridUrl('npy', win), name + '.npy'],
    'dl-r16': [gridUrl('r16', win), name + '.r16'],
    'dl-png16': [gridUrl('png', win, undefined, ['encoding=gray16']), name + '-16bit.png']
  };
  Object.entries(links).forEach(([id, [href, file]]) => {
    const a = $(id);
    a.href = href;
    a.download = file;
  });
  current = { win, links, name };
  $('dl-json').download = name + '.json';
  if (document.activeElement !== $('dl-width')) $('dl-width').value = String(win.width);
  $('dl-height').textContent = '\u00d7 ' + win.height;
  const big = win.width * win.height > MAX_SIDE * MAX_SIDE;
  $('dl-err').textContent = big ? win.width + ' \u00d7 ' + win.height + ' samples: at most ' + MAX_SIDE + '\u00b2 in one grid' : '';
}

whenReady(() => {
  const box = $('dl-width');
  box.addEventListener('change', () => {
    const v = Number(box.value.trim());
    if (box.value.trim() === '') chosen = null;
    else if (Number.isInteger(v) && v >= MIN_SIDE && v <= MAX_SIDE) chosen = v;
    else { $('dl-err').textContent = 'samples across must be an integer in ' + MIN_SIDE + '..' + MAX_SIDE + ', got \u201c' + box.value + '\u201d'; return; }
    update();
  });
  $('dl-pixels').addEventListener('click', () => { chosen = null; update(); });
  $('dl-png').addEventListener('click', downloadPng);
  $('dl-png16').addEventListener('click', downloadPng);
  $('dl-json').addEventListener('click', (e) => {
    e.preventDefault();
    save(new Blob([sidecar()], { type: 'application/json' }), e.currentTarget.download);
  });
  onFieldOrView(update, 100);
  update();
});
