/* downloads.js: links that download the window on screen from the grid
 * endpoint at a size the user picks (samples across; rows in proportion):
 * a PNG in the map's palette, float32 .npy, 16-bit .r16 and 16-bit PNG. */
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

function update() {
  const win = sizedWindow();
  const s = nt().state;
  const name = 'noisetile-' + s.kind + '-' + s.seed + '-' + win.width + 'x' + win.height;
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
  onFieldOrView(update, 100);
  update();
});
