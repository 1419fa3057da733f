/* view3d.js: the 3D view: the window on screen as a lit height mesh. Heights
 * come from the grid endpoint (.npy), colours from the map's own tiles in
 * its palette (unshaded: the mesh is lit instead), so it shows the field of
 * the map, where the map is. three.js (vendor/three, pinned in
 * package.json) loads on first use. In the hash: 3d=1, exag=<exaggeration>. */
import { nt, whenReady, onFieldOrView, hashGet, followHash, visibleWindow, fetchHeights, tileCanvas, gridUrl } from './field-window.js';

const MESH_SIDE = 256;      /* samples along the window's longer side */
const EXAG_DEFAULT = 1;     /* heights: value * exag * (longer side / 10) */

let THREE = null, OrbitControls = null;
let renderer = null, scene = null, camera = null, controls = null, mesh = null;
let open = false, exag = EXAG_DEFAULT, seq = 0, last = null;
const $ = (id) => document.getElementById(id);

async function loadThree() {
  if (THREE) return;
  THREE = await import('three');
  ({ OrbitControls } = await import('./vendor/three/OrbitControls.js'));
}

function setupScene() {
  const box = $('view3d');
  renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
  renderer.setClearColor(0x0b0d12);
  box.appendChild(renderer.domElement);
  scene = new THREE.Scene();
  camera = new THREE.PerspectiveCamera(40, 1, 0.01, 100);
  camera.position.set(0, 0.95, 1.3);
  controls = new OrbitControls(camera, renderer.domElement);
  controls.target.set(0, 0, 0);
  controls.maxPolarAngle = Math.PI * 0.49;
  controls.minDistance = 0.1;
  controls.maxDistance = 8;
  controls.addEventListener('change', draw);
  /* the light of the tiles' hillshading: from the north-west, 45 degrees up */
  const sun = new THREE.DirectionalLight(0xffffff, 2.4);
  sun.position.set(-1, 1.4, -1);
  scene.add(sun);
  scene.add(new THREE.HemisphereLight(0xdde6ff, 0x202020, 0.9));
  new ResizeObserver(resize).observe(box);
  new ResizeObserver(resize).observe(document.getElementById('panel'));
  resize();
}

function resize() {
  if (!renderer) return;
  const box = $('view3d');
  const w = box.clientWidth, h = box.clientHeight;
  if (!w || !h) return;
  renderer.setSize(w, h, false);
  renderer.domElement.style.width = w + 'px';
  renderer.domElement.style.height = h + 'px';
  camera.aspect = w / h;
  /* the mesh's centre in the middle of what the side panel leaves free */
  const panel = document.getElementById('panel').getBoundingClientRect();
  const covered = panel.right < w / 2 && panel.bottom > h / 2 ? panel.right : 0;
  camera.setViewOffset(w, h, -covered / 2, 0, w, h);
  camera.updateProjectionMatrix();
  draw();
}

function draw() { if (renderer && open) renderer.render(scene, camera); }

/* The render options of the texture: the map's, without hillshading. */
function textureRender() {
  return nt().renderQuery().filter((p) => !/^shade=/.test(p));
}

/* Fetches heights and colours for the map's window and field, then
 * replaces the mesh (the camera stays). Not before three.js has loaded and
 * the scene exists: a change of field or view while it loads (a link that
 * opens the 3D view on another field) waits for setOpen's own rebuild. */
async function rebuild() {
  if (!open || !renderer) return;
  const map = nt().map();
  const win = visibleWindow(map, 1, MESH_SIDE);
  const url = gridUrl('npy', win);
  const key = url + '|' + textureRender().join('&') + '|' + exag;
  if (key === last) return;
  const my = ++seq;
  const box = $('view3d');
  box.dataset.state = 'loading';
  let heights, canvas;
  try {
    [heights, canvas] = await Promise.all([fetchHeights(win), tileCanvas(map, undefined, textureRender())]);
  } catch (e) {
    if (my !== seq) return;
    box.dataset.state = 'error';
    nt().status('3D view: ' + e.message, 'warn');
    return;
  }
  if (my !== seq || !open) return;
  const spanX = win.step * (win.width - 1), spanY = win.step * (win.height - 1);
  const L = Math.max(spanX, spanY);
  const geo = new THREE.PlaneGeometry(spanX / L, spanY / L, win.width - 1, win.height - 1);
  /* PlaneGeometry's vertices run row by row from its top (+y) edge, as the
   * grid's samples do from the window's top; laid flat, the top of the
   * screen is the far side. */
  const pos = geo.attributes.position;
  const zScale = exag / 10;
  for (let i = 0; i < pos.count; i++) pos.setZ(i, heights[i] * zScale);
  geo.rotateX(-Math.PI / 2);
  geo.computeVertexNormals();
  const tex = new THREE.CanvasTexture(canvas);
  tex.colorSpace = THREE.SRGBColorSpace;
  tex.anisotropy = 4;
  const mat = new THREE.MeshLambertMaterial({ map: tex, side: THREE.DoubleSide });
  if (mesh) {
    scene.remove(mesh);
    mesh.geometry.dispose();
    mesh.material.map.dispose();
    mesh.material.dispose();
  }
  mesh = new THREE.Mesh(geo, mat);
  scene.add(mesh);
  last = key;
  draw();
  box.dataset.state = 'ready';
  box.dataset.grid = url;
  box.dataset.vertices = String(pos.count);
}

async function setOpen(on) {
  open = on;
  document.body.classList.toggle('with-3d', on);
  $('view3d').hidden = !on;
  $('t-3d').checked = on;
  $('exag-row').hidden = !on;
  nt().scheduleHash();
  if (!on) return;
  try {
    await loadThree();
  } catch (e) {
    nt().status('3D view: three.js did not load: ' + e.message, 'warn');
    return;
  }
  if (!renderer) setupScene();
  resize();
  last = null;
  rebuild();
}

function setExag(v) {
  exag = v;
  $('exag').value = String(v);
  $('exag-out').textContent = '\u00d7' + v;
  nt().scheduleHash();
  rebuild();
}

whenReady(() => {
  nt().addHashPart(() => (open ? ['3d=1'] : []).concat(exag !== EXAG_DEFAULT ? ['exag=' + exag] : []));
  $('t-3d').addEventListener('change', (e) => setOpen(e.target.checked));
  $('exag').addEventListener('input', (e) => setExag(Number(e.target.value)));
  document.addEventListener('keydown', (e) => {
    /* from any control but one being typed in (a text or number field, a
     * select): switches, choices and sliders pass the key on */
    const t = e.target;
    const typing = t && ((t.tagName === 'INPUT' && /^(text|number|search)$/.test(t.type)) ||
      t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
    if (e.ctrlKey || e.metaKey || e.altKey || typing) return;
    if (e.key === '3') { setOpen(!open); e.preventDefault(); }
  });
  onFieldOrView(rebuild, 150);
  followHash((h) => {
    const x = Number(hashGet('exag', h));
    if (hashGet('exag', h) !== null && x >= 0 && x <= 5 && x !== exag) setExag(x);
    if ((hashGet('3d', h) === '1') !== open) setOpen(!open);
  });
  window.noisetile.view3d = { isOpen: () => open, rebuild: () => { last = null; return rebuild(); } };
});
