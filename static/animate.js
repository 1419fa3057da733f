/* animate.js: the frames of the t animation (viewer.js, "t animation"):
 * each frame is one grid.png of the window on screen, a sample per 4 x 4
 * CSS pixels, drawn over the map's tiles, instead of a screenful of tiles
 * per step of t. */
import { nt, whenReady, visibleWindow, gridUrl } from './field-window.js';

const PER = 0.25;   /* samples per CSS pixel along each axis */

/* The map's picture options, the palette always named (grid.png without
 * one would be 16-bit heights). */
function picture() {
  const q = nt().renderQuery();
  const pal = nt().api().render.find((p) => p.name === 'palette');
  if (!q.some((p) => p.startsWith('palette=')) && pal) q.unshift('palette=' + encodeURIComponent(pal.def));
  return q;
}

whenReady(() => {
  const img = document.createElement('img');
  img.id = 'anim-frame';
  img.alt = '';
  img.hidden = true;
  nt().map().getContainer().appendChild(img);
  let frames = 0;
  nt().animator = {
    /* shows the frame of the current state, then calls done (also when the
     * frame failed: the animation goes on or stops by itself) */
    show(done) {
      const win = visibleWindow(nt().map(), PER);
      const next = new Image();
      next.onload = () => {
        img.src = next.src;
        img.hidden = false;
        img.dataset.frames = String(++frames);
        done();
      };
      next.onerror = () => done();
      next.src = gridUrl('png', win, undefined, picture());
    },
    hide() { img.hidden = true; }
  };
});
