/* viewer.js: the noisetile viewer. Leaflet on the infinite noise plane, a
 * control panel built from /api/kinds, point values and gradients from
 * /point, a lattice overlay, and the whole state in the URL hash. The pure
 * logic (the API's description, values, URLs, the hash) is in
 * viewer-core.js; this file is the page around it.
 *
 * Ranges and defaults of parameters live only in the daemon (/api/kinds);
 * this file knows the tile geometry of docs/field.md ("Tiles") and nothing
 * else about the field. */
(function () {
  'use strict';

  /* ---- tile geometry (docs/field.md, "Tiles") ----
   * Tile (z, x, y) covers the plane square with top-left corner
   * (x*S/2^z, y*S/2^z) and side S/2^z (S = world_size of /api/kinds, 16),
   * y downwards. Plane (x, y) is Leaflet LatLng(lat = y, lng = x). At Leaflet
   * zoom z one plane unit is TILE_PX/S * 2^z CSS pixels, so the CRS scales by
   * TILE_PX/S and does not flip y: Leaflet's tile (z, x, y) is exactly the
   * daemon's tile (z, x, y), negative indices included. */
  var WORLD = 0, TILE_PX = 0, CRS = null;   /* set from /api/kinds */
  var ZOOM_OUT = 2;      /* Leaflet zooms below native zoom by scaling tiles */
  var ARROW_PX = 72;     /* drawn length of the gradient arrow */
  var GRID_MIN_PX = 6;   /* lattice lines closer than this are hidden */

  function makeCrs() {
    return L.extend({}, L.CRS.Simple, {
      transformation: new L.Transformation(TILE_PX / WORLD, 0, TILE_PX / WORLD, 0)
    });
  }
  function pxPerUnit(zoom) { return TILE_PX / WORLD * Math.pow(2, zoom); }
  function toLatLng(x, y) { return L.latLng(y, x); }

  /* ---- small helpers ---- */
  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (attrs[k] === undefined || attrs[k] === null || attrs[k] === false) return;
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'className') e.className = attrs[k];
      else e.setAttribute(k, attrs[k] === true ? '' : attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  /* the pure logic: viewer-core.js */
  var C = window.NoiseCore;
  var fmtNum = C.fmtNum, roundTo = C.roundTo, fmtSigned = C.fmtSigned, fmtSci = C.fmtSci,
    appliesTo = C.appliesTo, rangeText = C.rangeText, rangeChip = C.rangeChip, parseParam = C.parseParam;
  function coordDigits(zoom) { return C.coordDigits(pxPerUnit(zoom)); }
  function findKind(name) { return C.findKind(api, name); }

  /* ---- state (its shape: viewer-core.js, "a field's URLs") ---- */
  var api = null;
  var state = {
    kind: null, graph: null, seed: null, field: {}, render: {},
    view: { x: 0, y: 0, z: 2 }, point: null, grid: false
  };

  function fieldParam(name) { return C.findParam(api.params, name); }
  function fieldValue(name) {
    var p = fieldParam(name);
    if (!p) return undefined;
    var v = state.field[name];
    return v === undefined ? p.def : v;
  }
  function tileTemplate() { return C.tileTemplate(api, state); }
  function pointUrl(x, y) { return C.pointUrl(api, state, x, y); }
  /* The field's query text for this kind (default: the map's). */
  function fieldQuery(kind) { return C.fieldQuery(api, kind ? { kind: kind, field: state.field } : state); }
  function renderQuery() { return C.renderQuery(api, state); }

  /* The other modules of the page (stats.js, compare.js, ...): they add
   * their state to the hash and hear of every change of field or view. */
  var hashParts = [];
  function notify(what) { document.dispatchEvent(new CustomEvent('noisetile:' + what)); }

  /* ---- the URL hash: view, field, rendering, overlay, selected point ---- */
  /* A change of what is shown (field, picture, views: all but the view's
   * place and the selected point) is a new history entry, so Back undoes
   * it; moving the map, the point, t while it plays, and the page's own
   * rewrites (replace) replace the entry. */
  function settingsOf(h) {
    return h.replace(/^#/, '').split('&').filter(function (p) { return !/^(z|x|y|px|py)=/.test(p); }).join('&');
  }
  function writeHash(replace) {
    var h = C.encodeHash(api, state);
    hashParts.forEach(function (f) { f().forEach(function (part) { h += (h.length > 1 ? '&' : '') + part; }); });
    if (location.hash === h) return;
    if (!replace && !playing && location.hash && settingsOf(location.hash) !== settingsOf(h)) history.pushState(null, '', h);
    else history.replaceState(null, '', h);
  }
  var hashTimer = null;
  function scheduleHash() {
    if (hashTimer) return;
    hashTimer = setTimeout(function () { hashTimer = null; writeHash(); }, 200);
  }
  /* Reads the hash into state (no hash: the first view); returns the
   * messages for what it ignored. */
  function readHash() {
    var r = C.decodeHash(api, location.hash, minZoom());
    Object.keys(r.state).forEach(function (k) { state[k] = r.state[k]; });
    return r.msgs;
  }

  /* ---- status line ---- */
  var statusTimer = null;
  function status(msg, kind) {
    var s = $('status');
    /* a message still on screen stays, the new one goes below it */
    if (msg && s.classList.contains('show') && s.textContent.split('\n').indexOf(msg) < 0) msg = s.textContent + '\n' + msg;
    s.textContent = msg;
    s.className = msg ? 'show ' + (kind || '') : '';
    clearTimeout(statusTimer);
    if (msg && kind !== 'sticky') statusTimer = setTimeout(function () { s.className = ''; }, 5000);
  }

  /* ---- the control panel, built from the API ---- */
  var GROUPS = [
    { title: 'Field', names: ['kind', 'seed', 'lattice', 'fade', 'gradients', 'falloff', 'distance', 'return', 'jitter'] },
    { title: 'Render', names: ['palette', 'shade', 'zero', 'grid'] },
    { title: 'Domain', names: ['frequency', 'period', 'warp', 't'] },
    { title: 'Fractal', names: ['octaves', 'fractal', 'lacunarity', 'gain'] }
  ];
  var inputs = {};    /* name -> {set(value), ...} */

  function sliderStep(p) {
    if (p.type === 'integer') return 1;
    return Math.pow(10, Math.floor(Math.log10((p.max - p.min) / 100)));
  }
  function hasSlider(p) {
    return (p.type === 'number' || p.type === 'integer') && p.min !== undefined && p.max !== undefined &&
      p.max - p.min <= 100;
  }

  function segmented(id, name, choices, onPick) {
    var wrap = el('div', { className: segClass(choices.length), role: 'radiogroup', id: id, 'aria-labelledby': id + '-label' });
    choices.forEach(function (c) {
      var rid = id + '-' + c;
      var inp = el('input', { type: 'radio', name: name, id: rid, value: c });
      inp.addEventListener('change', function () { if (inp.checked) onPick(c); });
      wrap.appendChild(inp);
      wrap.appendChild(el('label', { 'for': rid, text: c }));
    });
    return {
      node: wrap,
      set: function (v) { wrap.querySelectorAll('input').forEach(function (i) { i.checked = i.value === v; }); }
    };
  }

  /* More than four choices do not fit the panel's width in one row: rows of
   * three (compare.js's kind choice too). */
  function segClass(n) { return n > 4 ? 'seg rows' : 'seg'; }

  function errorLine(id) { return el('p', { className: 'err', id: id + '-err', role: 'alert' }); }

  /* A number or integer parameter: text box, slider for short ranges,
   * halve/double buttons for long ones, an on/off switch when it may be
   * absent (optional, no default: period, t). A parameter with a default
   * always has a value (the default when the URL omits it), so a switch
   * would have no off to show. */
  function numberControl(p, store, id) {
    var row = el('div', { className: 'row', 'data-param': p.name });
    var label = el('label', { 'for': id, text: p.name, title: p.description });
    var box = el('input', {
      type: 'text', inputmode: p.type === 'integer' ? 'numeric' : 'decimal', id: id, spellcheck: 'false',
      'aria-describedby': id + '-hint ' + id + '-err', className: 'num'
    });
    /* the description for screen readers and as a tooltip; the range shows */
    var hint = el('p', { className: 'sr', id: id + '-hint', text: (p.description ? p.description + '; ' : '') + rangeText(p) });
    var err = errorLine(id);
    var head = el('div', { className: 'row-head', title: p.description }, [label, el('span', { className: 'range', 'aria-hidden': 'true', text: rangeChip(p) })]);
    var line = el('div', { className: 'ctl' });
    var slider = null, enable = null, play = null, halve = null, dbl = null;
    if (p.optional && p.def === undefined) {
      enable = el('input', { type: 'checkbox', id: id + '-on', className: 'switch', 'aria-label': 'use ' + p.name });
      head.insertBefore(enable, label);
      label.setAttribute('for', id + '-on');
      box.setAttribute('aria-label', p.name);
    }
    line.appendChild(box);
    if (hasSlider(p)) {
      var st = sliderStep(p);
      slider = el('input', {
        type: 'range', id: id + '-range', min: p.minExclusive ? p.min + st : p.min, max: p.maxExclusive ? p.max - st : p.max,
        step: st, 'aria-label': p.name + ' slider'
      });
      line.appendChild(slider);
    } else if (p.min !== undefined && p.min >= 0) {
      halve = el('button', { type: 'button', className: 'mini', title: 'halve ' + p.name, 'aria-label': 'halve ' + p.name, text: '\u00f72' });
      dbl = el('button', { type: 'button', className: 'mini', title: 'double ' + p.name, 'aria-label': 'double ' + p.name, text: '\u00d72' });
      line.appendChild(halve);
      line.appendChild(dbl);
    }
    if (p.name === 't') {
      play = el('button', { type: 'button', className: 'mini play', id: 'play', title: 'Animate t (T)', 'aria-pressed': 'false' },
        [el('span', { className: 'play-icon', 'aria-hidden': 'true' }), el('span', { className: 'sr', text: 'Play t' })]);
      line.appendChild(play);
    }
    row.appendChild(head);
    row.appendChild(line);
    row.appendChild(hint);
    row.appendChild(err);

    function current() { var v = store()[p.name]; return v === undefined ? p.def : v; }
    function commit(v) {
      var s = store();
      if (v === undefined) delete s[p.name]; else s[p.name] = v;
      changed();
    }
    function showErr(msg) {
      err.textContent = msg || '';
      if (msg) box.setAttribute('aria-invalid', 'true'); else box.removeAttribute('aria-invalid');
    }
    var typing = null;
    box.addEventListener('input', function () {
      var r = parseParam(p, box.value);
      clearTimeout(typing);
      if (r.ok) {
        showErr('');
        if (slider) slider.value = r.value;
        typing = setTimeout(function () { if (enable) enable.checked = true; commit(r.value); }, 350);
      }
    });
    box.addEventListener('change', function () {
      clearTimeout(typing);
      var r = parseParam(p, box.value);
      if (!r.ok) { showErr(r.msg); return; }
      showErr('');
      if (enable) enable.checked = true;
      commit(r.value);
    });
    box.addEventListener('keydown', function (e) {
      if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
      var v = current();
      if (v === undefined) v = 0;
      var step = slider ? Number(slider.step) : p.type === 'integer' ? 1 : Math.pow(10, Math.floor(Math.log10(Math.abs(v) || 1)) - 1);
      var nv = Number((v + (e.key === 'ArrowUp' ? step : -step)).toPrecision(12));
      var r = parseParam(p, String(nv));
      if (r.ok) { e.preventDefault(); box.value = fmtNum(r.value); if (enable) enable.checked = true; commit(r.value); }
    });
    if (slider) slider.addEventListener('input', function () {
      var r = parseParam(p, slider.value);
      if (!r.ok) return;
      box.value = fmtNum(r.value);
      showErr('');
      clearTimeout(typing);
      typing = setTimeout(function () { commit(r.value); }, 120);
    });
    function scale(f) {
      var r = parseParam(p, String(current() * f));
      if (r.ok) commit(r.value); else status(r.msg, 'warn');
    }
    if (halve) halve.addEventListener('click', function () { scale(0.5); });
    if (dbl) dbl.addEventListener('click', function () {
      if (current() === 0) { var r = parseParam(p, '1'); if (r.ok) commit(1); return; }
      scale(2);
    });
    if (enable) enable.addEventListener('change', function () {
      if (enable.checked) {
        /* the box's number, else 0, else one zoom-0 tile (period: a texture per tile) */
        var r = parseParam(p, box.value || '0');
        if (!r.ok) r = parseParam(p, String(api.worldSize));
        commit(r.ok ? r.value : 0);
      } else { stopPlay(); commit(undefined); }
    });
    if (play) play.addEventListener('click', togglePlay);
    return {
      row: row,
      set: function (v) {
        if (document.activeElement !== box) box.value = v === undefined ? '' : fmtNum(v);
        if (slider && v !== undefined) slider.value = v;
        if (enable) { enable.checked = v !== undefined; row.classList.toggle('off', v === undefined); }
        if (halve) halve.disabled = !(v > 0) || !parseParam(p, String(v / 2)).ok;
        if (dbl) dbl.disabled = !parseParam(p, String(v === 0 ? 1 : v * 2)).ok;
        showErr('');
      }
    };
  }

  function enumControl(p, store, id) {
    var row = el('div', { className: 'row', 'data-param': p.name });
    row.appendChild(el('div', { className: 'row-head', title: p.description }, [el('span', { className: 'label', id: id + '-label', text: p.name })]));
    var seg = segmented(id, id, p.choices, function (c) { store()[p.name] = c; changed(); });
    if (p.description) seg.node.setAttribute('aria-description', p.description);
    row.appendChild(seg.node);
    return { row: row, set: function (v) { seg.set(v); } };
  }

  function boolControl(p, store, id) {
    /* flag descriptions say "1: what it does"; the switch says the 1 */
    var desc = (p.description || '').replace(/^1:\s*/, '');
    var row = el('div', { className: 'row flag', 'data-param': p.name, title: desc });
    var box = el('input', { type: 'checkbox', id: id, className: 'switch', 'aria-describedby': id + '-hint' });
    var label = el('label', { 'for': id, text: p.name });
    box.addEventListener('change', function () { store()[p.name] = box.checked; changed(); });
    row.appendChild(box);
    row.appendChild(label);
    row.appendChild(el('span', { className: 'sr', id: id + '-hint', text: desc }));
    return { row: row, set: function (v) { box.checked = !!v; } };
  }

  function seedControl() {
    var p = api.seed;
    var id = 'p-seed';
    var row = el('div', { className: 'row', 'data-param': 'seed' });
    var box = el('input', { type: 'text', inputmode: 'numeric', id: id, className: 'num', 'aria-describedby': id + '-err', spellcheck: 'false' });
    var btn = el('button', { type: 'button', className: 'mini wide', id: 'new-seed', title: 'A random seed (N)', text: 'new seed' });
    var err = errorLine(id);
    row.appendChild(el('div', { className: 'row-head' }, [el('label', { 'for': id, text: 'seed', title: rangeText(p) })]));
    row.appendChild(el('div', { className: 'ctl' }, [box, btn]));
    row.appendChild(err);
    function apply() {
      var r = parseParam(p, box.value);
      if (!r.ok) { err.textContent = r.msg; box.setAttribute('aria-invalid', 'true'); return; }
      err.textContent = ''; box.removeAttribute('aria-invalid');
      state.seed = r.value; changed();
    }
    box.addEventListener('change', apply);
    box.addEventListener('keydown', function (e) {
      if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
      var r = parseParam(p, String(state.seed + (e.key === 'ArrowUp' ? 1 : -1)));
      if (r.ok) { e.preventDefault(); state.seed = r.value; changed(); }
    });
    btn.addEventListener('click', newSeed);
    return { row: row, set: function () {
      if (document.activeElement === box && parseParam(p, box.value).value === state.seed) return;
      box.value = String(state.seed); err.textContent = ''; box.removeAttribute('aria-invalid');
    } };
  }
  function newSeed() {
    var p = api.seed;
    var lo = p.min + (p.minExclusive ? 1 : 0);
    var hi = p.max - (p.maxExclusive ? 1 : 0);
    var buf = new Uint32Array(2);
    crypto.getRandomValues(buf);
    var r = (buf[0] * 4294967296 + buf[1]) % (hi - lo + 1);
    state.seed = lo + r;
    changed();
  }

  function buildControls() {
    var form = $('controls');
    form.textContent = '';
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    var byName = {};
    var kindSeg = segmented('p-kind', 'kind', api.kinds.map(function (k) { return k.name; }), function (c) { state.kind = c; changed(); });
    var kindRow = el('div', { className: 'row', 'data-param': 'kind' }, [
      el('div', { className: 'row-head' }, [el('span', { className: 'label', id: 'p-kind-label', text: 'kind' })]), kindSeg.node,
      el('p', { className: 'hint', id: 'kind-desc' })]);
    byName.kind = { row: kindRow, set: function () {
      kindSeg.set(state.kind);
      var k = findKind(state.kind);
      $('kind-desc').textContent = k ? k.description : '';
    } };
    byName.seed = seedControl();
    function fieldStore() { return state.field; }
    function renderStore() { return state.render; }
    api.params.forEach(function (p) {
      var id = 'p-' + p.name;
      byName[p.name] = p.type === 'enum' ? enumControl(p, fieldStore, id) :
        p.type === 'boolean' ? boolControl(p, fieldStore, id) : numberControl(p, fieldStore, id);
      byName[p.name].param = p;
    });
    api.render.forEach(function (p) {
      var id = 'r-' + p.name;
      byName[p.name] = p.type === 'enum' ? enumControl(p, renderStore, id) :
        p.type === 'boolean' ? boolControl(p, renderStore, id) : numberControl(p, renderStore, id);
      byName[p.name].render = true;
      byName[p.name].param = p;
    });
    /* the lattice overlay switch of the page joins the rendering options */
    byName.grid = { row: $('grid-row'), set: function () {} };
    var placed = {};
    GROUPS.concat([{ title: 'More', names: Object.keys(byName) }]).forEach(function (g) {
      var fs = el('fieldset', { className: 'group' }, [el('legend', { text: g.title })]);
      g.names.forEach(function (n) {
        if (!byName[n] || placed[n]) return;
        placed[n] = true;
        fs.appendChild(byName[n].row);
        if (n === 'grid') fs.appendChild($('grid-note'));
      });
      if (fs.children.length > 1) form.appendChild(fs);
    });
    inputs = byName;
  }

  function syncControls() {
    Object.keys(inputs).forEach(function (n) {
      var c = inputs[n];
      if (n === 'kind' || n === 'seed' || n === 'grid') { c.set(); return; }
      var v = c.render ? state.render[n] : state.field[n];
      c.set(v === undefined ? c.param.def : v);
      if (!c.render) {
        var on = appliesTo(c.param, state.kind);
        c.row.hidden = !on || !!state.graph;
      }
    });
    /* a graph (graph.js) has its own panel: of the kind's controls only the
     * seed stays, and the lattice grid has no lattice to draw */
    inputs.kind.row.hidden = !!state.graph;
    $('grid-row').hidden = !!state.graph;
    /* a group none of whose controls apply to this kind: no heading either */
    $('controls').querySelectorAll('fieldset.group').forEach(function (fs) {
      fs.hidden = ![].some.call(fs.children, function (c) { return c.tagName !== 'LEGEND' && !c.hidden; });
    });
    $('graph-group').hidden = !state.graph;
    document.body.classList.toggle('graph', !!state.graph);
  }

  /* ---- the map ---- */
  var map = null;
  var shownLayer = null, pendingLayer = null;
  /* the lowest zoom is -ZOOM_OUT: native tiles where the daemon has them
   * (its tiles go below zoom 0), zoom-0 tiles scaled where it has not */
  function minZoom() { return Math.min(api.minZoom, -ZOOM_OUT); }
  function maxZoom() { return api.maxZoom; }

  /* Tile indices are bounded (limits.tile_index_max of /api/kinds): far
   * from the origin at deep zoom there are no tiles to ask for. */
  function tileInRange(c) {
    var m = api.tileIndexMax;
    return m === undefined || (c.x >= -m - 1 && c.x <= m && c.y >= -m - 1 && c.y <= m);
  }
  /* Every tile layer of the page (this one, compare's) walks the tile range
   * of the screen one index at a time; far out at deep zoom the indices pass
   * 2^53, where adding one changes nothing and the walk never ends. The
   * range is clamped to the indices the daemon serves (one past each end),
   * so the walk is never longer than the screen. */
  var pxBoundsToTileRange = L.GridLayer.prototype._pxBoundsToTileRange;
  L.GridLayer.include({
    _pxBoundsToTileRange: function (b) {
      var r = pxBoundsToTileRange.call(this, b), m = api.tileIndexMax;
      if (m === undefined) return r;
      var c = function (v) { return isFinite(v) ? Math.max(-m - 2, Math.min(m + 1, v)) : 0; };
      r.min.x = c(r.min.x); r.min.y = c(r.min.y); r.max.x = c(r.max.x); r.max.y = c(r.max.y);
      return r;
    }
  });
  var NoiseLayer = L.TileLayer.extend({
    _isValidTile: function (c) { return tileInRange(c) && L.TileLayer.prototype._isValidTile.call(this, c); }
  });
  function checkRange() {
    if (api.tileIndexMax === undefined) return;
    var z = Math.max(map.getZoom(), api.minZoom);
    var b = map.getPixelBounds(), s = map.getZoomScale(map.getZoom(), z) * TILE_PX;
    var ok = [b.min, b.max].every(function (p) { return tileInRange({ x: Math.floor(p.x / s), y: Math.floor(p.y / s) }); });
    if (!ok) status('No tiles this far from the origin at zoom ' + z + ' (tile indices stop at \u00b1' + api.tileIndexMax + '): zoom out.', 'warn');
  }

  function makeLayer(url) {
    var layer = new NoiseLayer(url, {
      tileSize: TILE_PX, noWrap: true, bounds: null,
      minZoom: minZoom(), maxZoom: maxZoom(),
      minNativeZoom: api.minZoom, maxNativeZoom: maxZoom(),
      keepBuffer: 1, updateWhenIdle: false, className: 'noise-tiles'
    });
    var reported = false;
    layer.on('tileerror', function (e) {
      if (reported || !e.tile || !e.tile.src) return;
      reported = true;
      fetch(e.tile.src).then(function (r) { return r.json(); }).then(function (j) {
        status('Tile request failed: ' + (j.error && j.error.message || 'error'), 'warn');
      }).catch(function () { status('Tile request failed', 'warn'); });
    });
    return layer;
  }
  /* New parameters: load the new tiles on top of the old ones and drop the
   * old layer once the new one is complete (no flash, smooth animation). */
  function setTiles() {
    var url = tileTemplate();
    if (shownLayer && shownLayer._url === url) {
      if (pendingLayer) { map.removeLayer(pendingLayer); pendingLayer = null; }
      hideFrame();
      return;
    }
    if (pendingLayer && pendingLayer._url === url) return;
    if (pendingLayer) map.removeLayer(pendingLayer);
    var layer = makeLayer(url);
    pendingLayer = layer;
    function done() {
      if (pendingLayer !== layer) return;
      if (shownLayer) map.removeLayer(shownLayer);
      shownLayer = layer;
      pendingLayer = null;
      document.body.dataset.tiles = 'loaded';
      hideFrame();
      if (playing) playNext();
    }
    layer.on('load', done);
    layer.on('loading', function () { if (shownLayer === layer) document.body.dataset.tiles = 'loading'; });
    layer.on('load', function () { if (shownLayer === layer) document.body.dataset.tiles = 'loaded'; });
    document.body.dataset.tiles = 'loading';
    layer.addTo(map);
    if (!layer.isLoading()) done(); /* nothing to load here (beyond the tile range) */
  }

  /* ---- point value and gradient arrow ---- */
  var pointLayer = null, pointSeq = 0, lastPoint = null;
  function clearPoint() {
    state.point = null;
    lastPoint = null;
    pointSeq++;
    $('info').hidden = true;
    drawArrow();
    scheduleHash();
  }
  function selectPoint(x, y) {
    var d = coordDigits(map.getZoom());
    state.point = { x: roundTo(x, d), y: roundTo(y, d) };
    refreshPoint();
    scheduleHash();
  }
  function refreshPoint() {
    if (!state.point) return;
    var seq = ++pointSeq;
    var url = pointUrl(state.point.x, state.point.y);
    $('info').hidden = false;
    $('info').classList.add('busy');
    /* stale answers are dropped by sequence number, not aborted: a point
     * answer is small and cached, and aborts would read as failures */
    fetch(url).then(function (r) {
      return r.json().then(function (j) { if (!r.ok) throw new Error(j.error && j.error.message || r.statusText); return j; });
    }).then(function (j) {
      if (seq !== pointSeq) return;
      lastPoint = j;
      showPoint(j);
    }).catch(function (e) {
      if (seq === pointSeq) status('Point request failed: ' + e.message, 'warn');
    });
  }
  function showPoint(j) {
    var info = $('info');
    info.classList.remove('busy');
    info.hidden = false;
    $('info-x').textContent = fmtNum(j.x);
    $('info-y').textContent = fmtNum(j.y);
    /* the answer's t, or the panel's where t applies (classic and the
     * GLSL variants are 2D: their answers have 2 gradient components) */
    var t = j.params && j.params.t !== undefined ? j.params.t
      : !state.graph && appliesTo(fieldParam('t'), state.kind) && j.gradient.length > 2 ? fieldValue('t') : undefined;
    var has3 = j.gradient.length > 2;
    $('info-t').textContent = t === undefined ? '' : fmtNum(t);
    $('info-t').hidden = $('info-t-label').hidden = t === undefined;
    $('info-value').textContent = fmtSigned(j.value, 6);
    $('info-value').dataset.value = String(j.value);
    $('info-bar').style.width = (Math.abs(j.value) * 50) + '%';
    $('info-bar').style.left = (j.value < 0 ? 50 - Math.abs(j.value) * 50 : 50) + '%';
    $('info-bar').className = j.value < 0 ? 'neg' : 'pos';
    $('info-grad').textContent = fmtSci(j.gradient[0]) + ', ' + fmtSci(j.gradient[1]);
    $('info-gt').textContent = has3 ? fmtSci(j.gradient[2]) : '';
    $('info-gt').hidden = $('info-gt-label').hidden = !has3;
    $('info-mag').textContent = fmtSci(Math.hypot(j.gradient[0], j.gradient[1]));
    drawArrow();
  }
  function drawArrow() {
    if (!pointLayer) return;
    pointLayer.clearLayers();
    if (!state.point) return;
    var P = state.point, k = pxPerUnit(map.getZoom());
    var c = toLatLng(P.x, P.y);
    var g = lastPoint && lastPoint.x === P.x && lastPoint.y === P.y ? lastPoint.gradient : null;
    var lines = [];
    if (g && (g[0] !== 0 || g[1] !== 0)) {
      var m = Math.hypot(g[0], g[1]), ux = g[0] / m, uy = g[1] / m;
      var L1 = ARROW_PX / k, H = 13 / k;
      var tx = P.x + ux * L1, ty = P.y + uy * L1;
      var a = Math.PI * 0.85;
      function rot(ang) { return toLatLng(tx + (ux * Math.cos(ang) - uy * Math.sin(ang)) * H, ty + (ux * Math.sin(ang) + uy * Math.cos(ang)) * H); }
      lines.push([c, toLatLng(tx, ty)], [rot(a), toLatLng(tx, ty), rot(-a)]);
    }
    lines.forEach(function (ll) {
      pointLayer.addLayer(L.polyline(ll, { color: '#0b0d12', weight: 6, opacity: 0.75, lineCap: 'round', lineJoin: 'round', interactive: false, className: 'arrow-halo' }));
    });
    lines.forEach(function (ll) {
      pointLayer.addLayer(L.polyline(ll, { color: '#ffffff', weight: 2.5, opacity: 1, lineCap: 'round', lineJoin: 'round', interactive: false, className: 'arrow' }));
    });
    pointLayer.addLayer(L.circleMarker(c, { radius: 4.5, color: '#0b0d12', weight: 2, fillColor: '#ffd24a', fillOpacity: 1, interactive: false, className: 'point-dot' }));
  }

  /* ---- lattice overlay ----
   * Each family of cell borders is the set of lines a.p + b = n (n integer)
   * in plane coordinates p. Square lattice: x*f and y*f integer. Triangle
   * lattice (docs/field.md, "simplex"): p*f/sqrt(3), skewed by (x+y)(sqrt(3)-1)/2;
   * borders where a skewed coordinate or their difference is an integer.
   * 3D (with t): the slice z = t of the skewed cubic grid (scale 0.6, skew 1/3). */
  function latticeFamilies() {
    var f = fieldValue('frequency');
    if (!(f > 0)) return [];
    var t = fieldValue('t');
    var lat = fieldValue('lattice');
    var tri = state.kind === 'simplex' || (lat === 'triangle' && appliesTo(fieldParam('lattice'), state.kind));
    if (!tri) return [{ a: [f, 0], b: 0 }, { a: [0, f], b: 0 }];
    if (t === undefined) {
      var c = f / Math.sqrt(3), F = (Math.sqrt(3) - 1) / 2;
      return [{ a: [c * (1 + F), c * F], b: 0 }, { a: [c * F, c * (1 + F)], b: 0 }, { a: [c, -c], b: 0 }];
    }
    var g = 0.6 * f, gt = g * t;
    return [
      { a: [4 * g / 3, g / 3], b: gt / 3 }, { a: [g / 3, 4 * g / 3], b: gt / 3 }, { a: [g / 3, g / 3], b: 4 * gt / 3 },
      { a: [g, -g], b: 0 }, { a: [0, g], b: -gt }, { a: [g, 0], b: -gt }
    ];
  }
  var GridLayer = L.Layer.extend({
    onAdd: function (m) {
      this._canvas = L.DomUtil.create('canvas', 'grid-canvas');
      m.getPane('gridPane').appendChild(this._canvas);
      m.on('move resize zoomend viewreset', this.redraw, this);
      m.on('zoomstart', this._hide, this);
      this.redraw();
    },
    onRemove: function (m) {
      L.DomUtil.remove(this._canvas);
      m.off('move resize zoomend viewreset', this.redraw, this);
      m.off('zoomstart', this._hide, this);
      $('grid-note').hidden = true;
    },
    _hide: function () { this._canvas.style.visibility = 'hidden'; },
    redraw: function () {
      var m = this._map, cv = this._canvas;
      if (!m) return;
      var size = m.getSize(), dpr = window.devicePixelRatio || 1;
      L.DomUtil.setPosition(cv, m.containerPointToLayerPoint([0, 0]));
      cv.width = Math.round(size.x * dpr); cv.height = Math.round(size.y * dpr);
      cv.style.width = size.x + 'px'; cv.style.height = size.y + 'px';
      cv.style.visibility = '';
      var ctx = cv.getContext('2d');
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, size.x, size.y);
      var k = pxPerUnit(m.getZoom());
      var o = m.containerPointToLatLng([0, 0]), x0 = o.lng, y0 = o.lat;
      var fams = latticeFamilies(), note = $('grid-note');
      var minGap = Infinity;
      fams.forEach(function (fm) { minGap = Math.min(minGap, k / Math.hypot(fm.a[0], fm.a[1])); });
      if (minGap < GRID_MIN_PX) {
        note.hidden = false;
        note.textContent = 'Lattice lines are ' + minGap.toPrecision(2) + ' px apart: zoom in to see them.';
        cv.dataset.lines = '0';
        return;
      }
      note.hidden = fieldValue('warp') === 0 || fieldValue('warp') === undefined;
      note.textContent = note.hidden ? '' : 'The grid shows the unwarped lattice.';
      var alpha = Math.min(0.55, 0.15 + (minGap - GRID_MIN_PX) / 60);
      var count = 0;
      ctx.lineWidth = 1;
      ctx.strokeStyle = 'rgba(255,255,255,' + alpha.toFixed(3) + ')';
      ctx.beginPath();
      fams.forEach(function (fm) {
        /* in container pixels s: (a/k).s = n - (a.p0 + b) */
        var ax = fm.a[0] / k, ay = fm.a[1] / k, c = fm.a[0] * x0 + fm.a[1] * y0 + fm.b;
        var vals = [0, ax * size.x, ay * size.y, ax * size.x + ay * size.y];
        var lo = Math.ceil(c + Math.min.apply(null, vals)), hi = Math.floor(c + Math.max.apply(null, vals));
        if (!(hi - lo < 100000) || lo + 1 === lo) return; /* past 2^53: no line to tell apart */
        for (var n = lo; n <= hi; n++) {
          var r = n - c;
          if (Math.abs(ax) >= Math.abs(ay)) {
            ctx.moveTo(r / ax, 0); ctx.lineTo((r - ay * size.y) / ax, size.y);
          } else {
            ctx.moveTo(0, r / ay); ctx.lineTo(size.x, (r - ax * size.x) / ay);
          }
          count++;
        }
      });
      ctx.stroke();
      cv.dataset.lines = String(count);
    }
  });
  var grid = null;
  function syncGrid() {
    $('grid-toggle').checked = state.grid;
    var show = state.grid && !state.graph;
    if (show && !grid) { grid = new GridLayer(); map.addLayer(grid); }
    else if (!show && grid) { map.removeLayer(grid); grid = null; }
    else if (grid) grid.redraw();
  }

  /* ---- t animation ----
   * With animate.js (window.noisetile.animator) each step of t is one
   * low-resolution picture of the window (grid.png, a sample per 4 x 4
   * pixels) over the map, the next asked for when it is shown, at most
   * 25 a second; the tiles load for the t where playing stops. Without
   * it, the next step is requested when the new tiles are in. */
  var playing = false, playTimer = null, lastStep = 0;
  function animator() { return window.noisetile && window.noisetile.animator; }
  function playNext() {
    clearTimeout(playTimer);
    var wait = Math.max(0, (animator() ? 40 : 80) - (Date.now() - lastStep));
    playTimer = setTimeout(function () {
      if (!playing) return;
      lastStep = Date.now();
      var p = fieldParam('t');
      var f = fieldValue('frequency') || 1;
      var nt = Number(((fieldValue('t') || 0) + 0.04 / f).toPrecision(10));
      var r = parseParam(p, String(nt));
      if (!r.ok) { stopPlay(); return; }
      state.field.t = r.value;
      var a = animator();
      if (a) { syncControls(); scheduleHash(); a.show(playNext); } else changed();
    }, wait);
  }
  function togglePlay() { if (playing) stopPlay(); else if (!state.graph) startPlay(); }
  function startPlay() {
    var p = fieldParam('t');
    if (!p) return;
    playing = true;
    if (state.field.t === undefined) { var r = parseParam(p, '0'); if (!r.ok) { playing = false; return; } state.field.t = 0; changed(); }
    syncPlay();
    playNext();
  }
  function stopPlay() {
    playing = false; clearTimeout(playTimer); syncPlay();
    /* the tiles of the last t; the picture goes when they are in */
    if (animator()) changed();
  }
  function hideFrame() { var a = animator(); if (a && !playing) a.hide(); }
  function syncPlay() {
    var b = $('play');
    if (!b) return;
    b.setAttribute('aria-pressed', playing ? 'true' : 'false');
    b.classList.toggle('on', playing);
    b.title = playing ? 'Pause t (T)' : 'Animate t (T)';
    b.querySelector('.sr').textContent = playing ? 'Pause t' : 'Play t';
  }

  /* ---- one place that applies the state to everything ---- */
  function changed() {
    if (!findKind(state.kind)) state.kind = api.kindDefault;
    syncControls();
    setTiles();
    refreshPoint();
    syncGrid();
    scheduleHash();
    notify('change');
  }

  /* ---- cursor readout ---- */
  function showCursor(ll) {
    var d = coordDigits(map.getZoom());
    $('cursor-x').textContent = ll ? 'x ' + fmtSigned(roundTo(ll.lng, d), d) : 'x \u2014';
    $('cursor-y').textContent = ll ? 'y ' + fmtSigned(roundTo(ll.lat, d), d) : 'y \u2014';
  }
  /* zoom and a scale bar of a round number of plane units (1, 2 or 5 x 10^n) */
  function showZoom() {
    $('cursor-z').textContent = 'z ' + map.getZoom();
    var k = pxPerUnit(map.getZoom()), units = 100 / k;
    var e = Math.pow(10, Math.floor(Math.log10(units))), m = units / e;
    var nice = (m >= 5 ? 5 : m >= 2 ? 2 : 1) * e;
    $('scale-bar').style.width = Math.round(nice * k) + 'px';
    $('scale-text').textContent = Number(nice.toPrecision(1)) + (nice === 1 ? ' unit' : ' units');
  }

  /* ---- panel, keyboard ---- */
  function setPanel(open) {
    document.body.classList.toggle('collapsed', !open);
    var b = $('panel-toggle');
    b.setAttribute('aria-expanded', open ? 'true' : 'false');
    b.title = open ? 'Hide the panel (P)' : 'Show the panel (P)';
    /* in compare mode the maps' widths follow the panel */
    if (map) map.invalidateSize({ animate: false });
    document.dispatchEvent(new CustomEvent('noisetile:layout'));
  }
  function copyLink() {
    writeHash();
    var url = location.href;
    var ok = function () { status('Link copied: it reopens this view.'); };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(url).then(ok, function () { status(url, 'sticky'); });
    } else {
      status(url, 'sticky');
    }
  }
  function typingIn(t) {
    return t && (t.tagName === 'INPUT' && /^(text|number|search)$/.test(t.type) || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
  }
  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
    var k = e.key.toLowerCase();
    if (k === 'p') setPanel(document.body.classList.contains('collapsed'));
    else if (k === 'n') newSeed();
    else if (k === 't') togglePlay();
    else if (k === 'g') { if (state.graph) return; state.grid = !state.grid; syncGrid(); scheduleHash(); }
    else if (k === 'l') copyLink();
    else if (k === 'escape') { if (state.point) clearPoint(); else return; }
    else return;
    e.preventDefault();
  }

  /* ---- start ---- */
  function start(j) {
    api = C.parseKinds(j);
    api.tileExt = webpSupported() ? 'webp' : 'png';
    WORLD = api.worldSize;
    TILE_PX = api.tileSize;
    CRS = makeCrs();
    buildControls();
    var msgs = readHash();
    if (msgs.length) status('Ignored from the link: ' + msgs.join('; '), 'warn');

    map = L.map('map', {
      crs: CRS, center: toLatLng(state.view.x, state.view.y), zoom: state.view.z,
      minZoom: minZoom(), maxZoom: maxZoom(), zoomControl: false, keyboard: true, worldCopyJump: false
    });
    map.attributionControl.setPrefix('<a href="https://leafletjs.com" title="A JavaScript library for interactive maps">Leaflet</a>');
    map.attributionControl.addAttribution('noisetile');
    L.control.zoom({ position: 'topright' }).addTo(map);
    map.createPane('gridPane').style.zIndex = 350;
    map.getPane('gridPane').style.pointerEvents = 'none';
    pointLayer = L.layerGroup().addTo(map);

    map.on('moveend', function () {
      var c = map.getCenter();
      state.view = { x: c.lng, y: c.lat, z: map.getZoom() };
      showZoom();
      checkRange();
      scheduleHash();
      notify('move');
    });
    /* the map's box can change size without a window resize (the panel's
     * width, compare mode's layout): Leaflet learns it here, and what
     * describes the window on screen (statistics, 3D, downloads) follows */
    if (window.ResizeObserver) {
      new ResizeObserver(function () {
        var s = map.getSize(), el = map.getContainer();
        if (s.x === el.clientWidth && s.y === el.clientHeight) return;
        map.invalidateSize({ animate: false });
        notify('move');
      }).observe(map.getContainer());
    }
    map.on('zoomend', drawArrow);
    map.on('click', function (e) { selectPoint(e.latlng.lng, e.latlng.lat); });
    map.on('mousemove', function (e) { showCursor(e.latlng); });
    map.on('mouseout', function () { showCursor(null); });
    map.getContainer().addEventListener('keydown', function (e) {
      if ((e.key === 'Enter' || e.key === ' ') && e.target === map.getContainer()) {
        var c = map.getCenter();
        selectPoint(c.lng, c.lat);
        e.preventDefault();
      }
    });
    window.addEventListener('hashchange', function () {
      var h = location.hash;
      var m = readHash();
      if (m.length) status('Ignored from the link: ' + m.join('; '), 'warn');
      map.setView(toLatLng(state.view.x, state.view.y), state.view.z, { animate: false });
      lastPoint = null;
      if (!state.point) { $('info').hidden = true; drawArrow(); }
      changed();
      if (location.hash !== h) writeHash(true);
    });
    $('grid-toggle').addEventListener('change', function () { state.grid = this.checked; syncGrid(); scheduleHash(); });
    $('info-close').addEventListener('click', clearPoint);
    document.addEventListener('keydown', onKey);

    showZoom();
    changed();
    checkRange();
    writeHash(true);
    document.body.dataset.ready = '1';
    notify('ready');
  }

  $('panel-toggle').addEventListener('click', function () { setPanel(document.body.classList.contains('collapsed')); });
  $('copy-link').addEventListener('click', function () { if (api) copyLink(); });
  setPanel(!window.matchMedia('(max-width: 640px)').matches);

  fetch('/api/kinds').then(function (r) {
    if (!r.ok) throw new Error('/api/kinds: HTTP ' + r.status);
    return r.json();
  }).then(start).catch(function (e) {
    $('controls').textContent = 'Could not load the parameters: ' + e.message;
    status('Could not load /api/kinds: ' + e.message, 'sticky');
  });

  /* WebP tiles where the browser has WebP: a shaded tile is a tenth of
   * its PNG (docs/api.md, "WebP tiles"). A canvas that can write WebP can
   * read it; a browser that reads but cannot write it (older Safari) gets
   * PNG, which is never wrong. */
  function webpSupported() {
    try {
      return document.createElement('canvas').toDataURL('image/webp').indexOf('data:image/webp') === 0;
    } catch (e) { return false; }
  }

  /* A graph's canonical text (graph.js has it from the daemon), or null for
   * the kind of the panel: a new history entry unless `replace`. */
  function setGraph(text, name, replace) {
    var was = state.graph ? state.graph.text : null;
    state.graph = text ? { text: text, name: name || null } : null;
    if (was === text) { syncControls(); notify('change'); return; }
    if (playing) stopPlay();
    changed();
    if (replace) { clearTimeout(hashTimer); hashTimer = null; writeHash(true); }
  }
  /* What the field is called in labels and file names: its kind, or the
   * graph's preset name, or "graph". */
  function fieldLabel() { return state.graph ? state.graph.name || 'graph' : state.kind; }

  /* for the browser test and the console */
  window.noisetile = {
    setGraph: setGraph, fieldLabel: fieldLabel,
    tileExt: function () { return api ? api.tileExt : 'png'; },
    state: state, pxPerUnit: pxPerUnit, tileTemplate: function () { return tileTemplate(); },
    map: function () { return map; }, api: function () { return api; },
    fieldQuery: fieldQuery, renderQuery: renderQuery, status: status, scheduleHash: scheduleHash,
    addHashPart: function (f) { hashParts.push(f); },
    segClass: segClass,
    /* the hash as the page opened, before start() rewrote it */
    initialHash: location.hash
  };
})();
