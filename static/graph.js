/* graph.js: the graph panel. The map shows either a kind with the panel's
 * parameters or a field graph (docs/graphs.md): a preset from GET
 * /api/graphs or a graph written as JSON in the editor. The daemon checks
 * every graph (POST /api/graphs) and gives its canonical text, which the
 * map's URLs (/graph/{seed}/...?g=<text>) and the page's hash carry, so a
 * link restores the graph and Back/Forward step through edits as through
 * other settings. viewer.js owns the state (state.graph, setGraph); this
 * file owns the editor. */
import { nt, whenReady, fetchJson } from './field-window.js';

const C = window.NoiseCore;
const $ = (id) => document.getElementById(id);
const TYPING_MS = 700;

let presets = [];              /* [{name, description, graph, json}] from /api/graphs */
const jsonOf = new Map();      /* canonical text -> canonical JSON (from the daemon) */
let editorFor = null;          /* canonical text the editor's content was made from or applied as */
let lastGraph = null;          /* the graph shown before switching to a kind */
let seq = 0;                   /* requests for the editor; stale answers are dropped */
let typing = null;
let sourceSeg = null, presetInputs = [];

function presetOf(text) { return presets.find((p) => p.graph === text) || null; }

/* ---- messages under the editor ---- */
function showError(msg, pointer, span) {
  const box = $('g-err');
  box.textContent = '';
  $('g-json').setAttribute('aria-invalid', msg ? 'true' : 'false');
  if (!msg) { $('g-json').removeAttribute('aria-invalid'); return; }
  box.appendChild(document.createTextNode(msg));
  if (pointer !== undefined && pointer !== null) {
    box.appendChild(document.createTextNode(' '));
    box.appendChild(Object.assign(document.createElement('code'), { className: 'ptr', textContent: pointer || '/' }));
  }
  if (span) {
    const b = Object.assign(document.createElement('button'), { type: 'button', className: 'mini', textContent: 'show', title: 'Select the place in the editor' });
    b.addEventListener('click', () => select(span));
    box.appendChild(document.createTextNode(' '));
    box.appendChild(b);
  }
}
function select(span) {
  const ta = $('g-json');
  ta.focus();
  ta.setSelectionRange(span[0], span[1]);
  /* scroll the selection into view: the line's share of the text */
  const line = ta.value.slice(0, span[0]).split('\n').length - 1;
  const lh = parseFloat(getComputedStyle(ta).lineHeight) || 16;
  ta.scrollTop = Math.max(0, line * lh - ta.clientHeight / 3);
}
/* The editor's text for a JSON pointer of the daemon's message: the node
 * or parameter it names, else the nearest enclosing one written. */
function spanOf(text, pointer) {
  const r = C.scanJson(text);
  if (!r.ok || typeof pointer !== 'string') return null;
  for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
    if (r.spans[p]) return r.spans[p];
    if (p === '') return null;
  }
}

/* ---- the panel's parts from the state ---- */
function showInfo(text) {
  const s = nt().state;
  $('g-text').textContent = text || '';
  $('g-canon-len').textContent = text ? '(' + text.length + ' characters)' : '';
  const a = $('g-tilejson');
  if (text) a.href = '/graph/' + s.seed + '/tile.json?g=' + C.graphParam(text) + (nt().renderQuery().length ? '&' + nt().renderQuery().join('&') : '');
  else a.removeAttribute('href');
  const p = presetOf(text);
  presetInputs.forEach((i) => { i.checked = !!p && i.value === p.name; });
  $('g-desc').textContent = p ? p.description : text ? 'Your own graph: pick a preset to start again from one.' : '';
}
/* The JSON to edit: the daemon's canonical JSON spells every parameter;
 * a source's parameters at their default (/api/kinds) and a seed offset
 * of 0 are left out, as the user would write them (the same graph). */
function concise(json) {
  const api = nt().api();
  const kinds = new Set(api.kinds.map((k) => k.name));
  const node = (n) => {
    if (!n || typeof n !== 'object' || Array.isArray(n)) return n;
    const out = {};
    Object.keys(n).forEach((k) => {
      const v = n[k];
      if (kinds.has(n.node) && k !== 'node' && k !== 'inputs') {
        const p = C.findParam(api.params, k);
        if (k === 'seed' ? v === 0 : p && C.appliesTo(p, n.node) && p.def !== undefined && v === p.def) return;
      }
      out[k] = k === 'inputs' ? v.map(node) : v;
    });
    return out;
  };
  if (json && json.nodes && json.output !== undefined) {
    const named = {};
    Object.keys(json.nodes).forEach((k) => { named[k] = node(json.nodes[k]); });
    return { nodes: named, output: node(json.output) };
  }
  return node(json);
}
function setEditor(text, json) {
  $('g-json').value = C.formatJson(concise(json), 46);
  editorFor = text;
  showError('');
  sizeNote();
}
function sizeNote() {
  const n = $('g-json').value.split('\n').length;
  $('g-size').textContent = n + (n === 1 ? ' line' : ' lines');
}

/* The JSON of a canonical text the page has not seen (a shared link): the
 * text read back into JSON here, checked and laid out by the daemon. */
async function restore(text) {
  const my = ++seq;
  let json = null;
  try {
    json = C.decodeGraphText(text);
    const j = await post(JSON.stringify(json));
    if (j.graph !== text) throw new Error('the link\u2019s graph is not in canonical form; the daemon writes it ' + j.graph);
    jsonOf.set(j.graph, j.json);
    json = j.json;
  } catch (e) {
    if (my !== seq) return;
    /* what the daemon says of the text itself (non-canonical, unknown node, ...) */
    const msg = await fetchJson('/graph/' + nt().state.seed + '/point?x=0&y=0&g=' + C.graphParam(text)).then(() => e.message, (e2) => e2.message);
    if (json) setEditor(text, json); else { $('g-json').value = ''; editorFor = text; }
    showError('The graph of the link: ' + msg);
    return;
  }
  if (my !== seq) return;
  setEditor(text, json);
}

/* Brings the panel in line with the state (a hash change, Back, a preset). */
function sync() {
  const s = nt().state;
  const on = !!s.graph;
  if (sourceSeg) sourceSeg.querySelectorAll('input').forEach((i) => { i.checked = i.value === (on ? 'graph' : 'kind'); });
  $('graph-group').hidden = !on;
  if (!on) return;
  const text = s.graph.text;
  if (!s.graph.name && presetOf(text)) {
    /* a link to a preset's graph: its name in labels and file names (the
     * views hear of it as of any change) */
    s.graph.name = presetOf(text).name;
    setTimeout(() => document.dispatchEvent(new CustomEvent('noisetile:change')), 0);
  }
  showInfo(text);
  if (text === editorFor) return;
  clearTimeout(typing);
  if (jsonOf.has(text)) { ++seq; setEditor(text, jsonOf.get(text)); } else restore(text);
}

/* ---- applying the editor ---- */
async function post(body) {
  const r = await fetch('/api/graphs?seed=' + nt().state.seed, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  const j = await r.json().catch(() => ({}));
  if (!r.ok) {
    const e = new Error((j.error && j.error.message) || 'HTTP ' + r.status);
    e.pointer = j.error ? j.error.pointer : undefined;
    e.status = r.status;
    throw e;
  }
  return j;
}
async function apply() {
  clearTimeout(typing);
  const text = $('g-json').value;
  const scan = C.scanJson(text);
  if (!scan.ok) {
    ++seq;
    showError('Not JSON: line ' + scan.line + ', column ' + scan.column + ': ' + scan.msg, null, [scan.offset, Math.min(text.length, scan.offset + 1)]);
    return;
  }
  const my = ++seq;
  $('g-json').classList.add('busy');
  try {
    const j = await post(text);
    if (my !== seq) return;
    jsonOf.set(j.graph, j.json);
    editorFor = j.graph;
    showError('');
    const p = presetOf(j.graph);
    nt().setGraph(j.graph, p ? p.name : null);
    showInfo(j.graph);
  } catch (e) {
    if (my !== seq) return;
    showError(e.message, e.pointer, e.pointer !== undefined ? spanOf(text, e.pointer) : null);
  } finally {
    if (my === seq) $('g-json').classList.remove('busy');
  }
}

function pickPreset(name) {
  const p = presets.find((x) => x.name === name);
  if (!p) return;
  ++seq;
  setEditor(p.graph, p.json);
  nt().setGraph(p.graph, p.name);
}
function setSource(src) {
  const s = nt().state;
  if (src === 'graph' && !s.graph) {
    /* the graph shown last, else the first preset (continents where there is one) */
    const first = presets.find((p) => p.name === 'continents') || presets[0];
    const text = lastGraph || (first && first.graph);
    if (text) nt().setGraph(text, presetOf(text) ? presetOf(text).name : null);
  } else if (src === 'kind' && s.graph) {
    lastGraph = s.graph.text;
    nt().setGraph(null);
  }
}

/* ---- building the panel ---- */
function build() {
  /* the switch between the kind's controls and the graph, at the head of
   * the field's group; the graph's group right after that group */
  const field = document.querySelector('#controls fieldset.group');
  const row = Object.assign(document.createElement('div'), { className: 'row', id: 'source-row' });
  row.dataset.param = 'source';
  const head = Object.assign(document.createElement('div'), { className: 'row-head' });
  head.appendChild(Object.assign(document.createElement('span'), { className: 'label', id: 'p-source-label', textContent: 'field' }));
  row.appendChild(head);
  sourceSeg = Object.assign(document.createElement('div'), { className: 'seg', id: 'p-source', role: 'radiogroup' });
  sourceSeg.setAttribute('aria-labelledby', 'p-source-label');
  [['kind', 'one kind with the parameters below'], ['graph', 'a graph of nodes: presets or your own (JSON)']].forEach(([v, title]) => {
    const inp = Object.assign(document.createElement('input'), { type: 'radio', name: 'source', id: 'p-source-' + v, value: v });
    inp.addEventListener('change', () => { if (inp.checked) setSource(v); });
    const lab = Object.assign(document.createElement('label'), { htmlFor: inp.id, textContent: v, title });
    sourceSeg.append(inp, lab);
  });
  row.appendChild(sourceSeg);
  field.insertBefore(row, field.querySelector('legend').nextSibling);
  field.after($('graph-group'));

  const seg = $('g-preset');
  seg.className = nt().segClass(Math.max(presets.length, 5));
  presets.forEach((p) => {
    const inp = Object.assign(document.createElement('input'), { type: 'radio', name: 'g-preset', id: 'g-preset-' + p.name, value: p.name });
    inp.addEventListener('change', () => { if (inp.checked) pickPreset(p.name); });
    const lab = Object.assign(document.createElement('label'), { htmlFor: inp.id, textContent: p.name, title: p.description });
    seg.append(inp, lab);
    presetInputs.push(inp);
  });

  const ta = $('g-json');
  ta.addEventListener('input', () => {
    sizeNote();
    clearTimeout(typing);
    typing = setTimeout(apply, TYPING_MS);
  });
  ta.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); apply(); }
  });
  $('g-apply').addEventListener('click', apply);
  $('g-format').addEventListener('click', () => {
    const r = C.scanJson(ta.value);
    if (!r.ok) { showError('Not JSON: line ' + r.line + ', column ' + r.column + ': ' + r.msg, null, [r.offset, r.offset + 1]); return; }
    ta.value = C.formatJson(r.value, 46);
    sizeNote();
  });
  $('g-revert').addEventListener('click', () => {
    const s = nt().state;
    if (s.graph && jsonOf.has(s.graph.text)) { ++seq; setEditor(s.graph.text, jsonOf.get(s.graph.text)); }
  });
  document.addEventListener('noisetile:change', sync);
  sync();
}

whenReady(async () => {
  try {
    const j = await fetchJson('/api/graphs');
    presets = (j.graphs || []).filter((g) => g && typeof g.graph === 'string');
    presets.forEach((p) => jsonOf.set(p.graph, p.json));
  } catch (e) {
    nt().status('Graph presets unavailable: ' + e.message, 'warn');
  }
  build();
  window.noisetile.graphs = { presets: () => presets, apply, restore };
});
