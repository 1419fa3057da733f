/* viewer-core.js: the viewer's pure logic, no DOM and no Leaflet: reading
 * /api/kinds, checking and formatting parameter values, the query of a
 * field, and the URL hash that holds the whole view. viewer.js uses it as
 * window.NoiseCore; node loads it with require() and tests it without a
 * browser (tests/js/viewer-core.test.mjs).
 *
 * Ranges and defaults of parameters live only in the daemon (/api/kinds);
 * this file knows the tile geometry (docs/field.md, "Tiles") and nothing
 * else about the field. */
(function (root, factory) {
  'use strict';
  if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.NoiseCore = factory();
})(typeof self !== 'undefined' ? self : this, function () {
  'use strict';

  /* The view a visitor sees first, when the URL has no hash: Perlin fBm in
   * five octaves, with the terrain palette and hillshading, at a zoom that
   * shows coasts, ranges and valleys at once (the README's picture). Every
   * value is one the API accepts; the hash written from it names each. */
  var FIRST_VIEW = {
    kind: 'perlin', seed: 7,
    field: { octaves: 5 },
    render: { palette: 'terrain', shade: true },
    view: { x: -5.1, y: 2.9, z: 3 }
  };

  /* ---- numbers ---- */
  function num(v) { return typeof v === 'number' && isFinite(v) ? v : undefined; }
  /* Shortest text that parses back to v. */
  function fmtNum(v) { return String(v); }
  /* Decimal digits enough for a tenth of a CSS pixel at pxPerUnit pixels per
   * plane unit. */
  function coordDigits(pxPerUnit) {
    return Math.max(0, Math.min(17, Math.ceil(Math.log10(pxPerUnit * 10))));
  }
  function roundTo(v, digits) {
    var r = Number(v.toFixed(digits));
    return r === 0 ? 0 : r; /* no "-0" */
  }
  /* Fixed digits with a sign column: a true minus, '+', or a figure space
   * for zero, so columns of numbers line up. */
  function fmtSigned(v, digits) {
    var s = Math.abs(v).toFixed(digits);
    return (v < 0 && Number(s) !== 0 ? '\u2212' : v > 0 && Number(s) !== 0 ? '+' : '\u2007') + s;
  }
  /* Four significant digits, scientific outside [1e-3, 1e5). */
  function fmtSci(v) {
    if (v === 0) return '0';
    var a = Math.abs(v);
    var s = a >= 1e-3 && a < 1e5 ? a.toPrecision(4) : a.toExponential(3);
    return (v < 0 ? '\u2212' : '') + s;
  }

  /* ---- /api/kinds (server/service/api.c) -> what the page needs ----
   * {"kinds": ["value", ...] or [{"name", "description"}, ...],
   *  "parameters": [{"name", "type": "number"|"integer"|"enum", "description",
   *     "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
   *     "default", "optional", "choices", "kinds" (only these kinds)}, ...],
   *  "render": [{"name", "type": "enum"|"flag", "choices", "default", ...}],
   *  "tiles": {"world_size", "tile_size", "minzoom", "maxzoom"},
   *  "limits": {"seed_max", "tile_index_max"}}
   * Every range and default the page uses comes from here. */
  var VIEWER_SKIPS = ['quality', 'ramp'];
  function normParam(s) {
    var type = s.type === 'flag' ? 'boolean' : s.type === 'integer' || s.type === 'enum' ? s.type : 'number';
    return {
      name: s.name, type: type, description: s.description || '',
      min: num(s.minimum), max: num(s.maximum),
      minExclusive: !!s.exclusiveMinimum, maxExclusive: !!s.exclusiveMaximum,
      choices: s.choices || null, kinds: s.kinds || null,
      optional: !!s.optional || (s['default'] === undefined && type !== 'boolean'),
      def: type === 'boolean' ? s['default'] === 1 || s['default'] === true : s['default']
    };
  }
  /* The page's view of /api/kinds; throws when it lacks what the page
   * cannot work without (kinds, a seed range, the tile geometry). */
  function parseKinds(j) {
    j = j || {};
    var tiles = j.tiles || {}, limits = j.limits || {};
    var api = {
      kinds: (j.kinds || []).map(function (k) {
        var d = j.kind_descriptions || {};
        return typeof k === 'string' ? { name: k, description: d[k] || '' } : { name: k.name, description: k.description || d[k.name] || '' };
      }),
      params: (j.parameters || []).map(normParam),
      /* the picture options the page offers: quality belongs to the tile
       * format the page picks (api.tileExt), ramps to URLs (docs/api.md) */
      render: (j.render || []).filter(function (p) { return VIEWER_SKIPS.indexOf(p.name) < 0; }).map(normParam),
      /* "webp" where the browser decodes WebP (viewer.js sets it), else "png" */
      tileExt: 'png',
      minZoom: num(tiles.minzoom), maxZoom: num(tiles.maxzoom),
      worldSize: num(tiles.world_size), tileSize: num(tiles.tile_size),
      tileIndexMax: num(limits.tile_index_max),
      /* the seed is the tile path's unsigned integer; its maximum is one of
       * the daemon's limits */
      seed: normParam({ name: 'seed', type: 'integer', minimum: 0, maximum: limits.seed_max })
    };
    if (!api.kinds.length) throw new Error('/api/kinds has no kinds');
    if (api.seed.max === undefined) throw new Error('/api/kinds has no seed range');
    if (!(api.worldSize > 0 && api.tileSize > 0) || api.minZoom === undefined || api.maxZoom === undefined)
      throw new Error('/api/kinds has no tile geometry (world and tile size, zoom range)');
    api.kindDefault = findKind(api, FIRST_VIEW.kind) ? FIRST_VIEW.kind : api.kinds[0].name;
    return api;
  }
  function appliesTo(p, kind) {
    return !p.kinds || p.kinds.indexOf(kind) >= 0;
  }
  function findKind(api, name) {
    for (var i = 0; i < api.kinds.length; i++) if (api.kinds[i].name === name) return api.kinds[i];
    return null;
  }
  function findParam(list, name) {
    for (var i = 0; i < list.length; i++) if (list[i].name === name) return list[i];
    return null;
  }
  /* The accepted values in words: "an integer in [1, 16]". */
  function rangeText(p) {
    if (p.type === 'enum') return 'one of ' + p.choices.join(', ');
    if (p.type === 'boolean') return 'on or off';
    /* [-DBL_MAX, DBL_MAX] reads better in words */
    if (p.type === 'number' && !(Math.abs(p.min) < 1e300) && !(Math.abs(p.max) < 1e300)) return 'any finite number';
    var lo = p.min === undefined ? '(-\u221e' : (p.minExclusive ? '(' : '[') + fmtNum(p.min);
    var hi = p.max === undefined ? '\u221e)' : fmtNum(p.max) + (p.maxExclusive ? ')' : ']');
    return (p.type === 'integer' ? 'an integer in ' : 'a number in ') + lo + ', ' + hi;
  }
  /* The range for a control's corner: "(0, 1e6]", "1–16". */
  function rangeChip(p) {
    if (p.type !== 'number' && p.type !== 'integer') return '';
    if (!(Math.abs(p.min) < 1e300) && !(Math.abs(p.max) < 1e300)) return 'finite';
    function f(v) { return Math.abs(v) >= 1e5 ? v.toExponential().replace('e+', 'e') : String(v); }
    var lo = p.min === undefined ? '(\u2212\u221e' : (p.minExclusive ? '(' : '[') + f(p.min);
    var hi = p.max === undefined ? '\u221e)' : f(p.max) + (p.maxExclusive ? ')' : ']');
    return p.type === 'integer' && !p.minExclusive && !p.maxExclusive ? f(p.min) + '\u2013' + f(p.max) : lo + ', ' + hi;
  }
  /* Parses text for parameter p: {ok, value} or {ok: false, msg}. */
  function parseParam(p, text) {
    var s = String(text).trim();
    var bad = { ok: false, msg: p.name + ' must be ' + rangeText(p) + ', got \u201c' + s + '\u201d' };
    if (p.type === 'enum') return p.choices.indexOf(s) >= 0 ? { ok: true, value: s } : bad;
    if (p.type === 'boolean') {
      if (s === '1' || s === 'true' || s === 'on') return { ok: true, value: true };
      if (s === '0' || s === 'false' || s === 'off') return { ok: true, value: false };
      return bad;
    }
    if (s === '' || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return bad;
    var v = Number(s);
    if (!isFinite(v)) return bad;
    if (p.type === 'integer' && !Number.isInteger(v)) return bad;
    if (p.min !== undefined && (v < p.min || p.minExclusive && v === p.min)) return bad;
    if (p.max !== undefined && (v > p.max || p.maxExclusive && v === p.max)) return bad;
    return { ok: true, value: v };
  }
  function encodeValue(p, v) { return p.type === 'boolean' ? (v ? '1' : '0') : fmtNum(v); }

  /* ---- a field's URLs ----
   * state: {kind, graph: null | {text: canonical text}, seed,
   *         field: {name: value} (the kind's; unused while a graph is shown),
   *         render: {name: value},
   *         view: {x, y, z}, point: {x, y} | null, grid: bool} */
  /* The GLSL article's variants are 2D (docs/field.md): with
   * gradients=angle or falloff=quartic the daemon takes no t. */
  var PLANAR_CHOICES = { gradients: 'angle', falloff: 'quartic' };
  function planarVariant(list, values, kind) {
    return list.some(function (p) {
      return PLANAR_CHOICES[p.name] !== undefined && values[p.name] === PLANAR_CHOICES[p.name] && appliesTo(p, kind);
    });
  }
  function paramsQuery(list, values, kind) {
    var out = [];
    var planar = kind !== undefined && planarVariant(list, values, kind);
    list.forEach(function (p) {
      if (kind !== undefined && !appliesTo(p, kind)) return;
      if (planar && p.name === 't') return;
      var v = values[p.name];
      if (v === undefined || v === p.def) return;
      out.push(p.name + '=' + encodeURIComponent(encodeValue(p, v)));
    });
    return out;
  }
  /* Query parts of the field: only the parameters that differ from their
   * defaults, in the daemon's order, so one view has one URL per tile. */
  function fieldQuery(api, state) {
    return state.graph ? ['g=' + graphParam(state.graph.text)] : paramsQuery(api.params, state.field, state.kind);
  }
  function renderQuery(api, state) { return paramsQuery(api.render, state.render); }
  /* A graph's field (docs/graphs.md) is /graph/{seed}/...?g=<canonical text> */
  function fieldBase(state) { return '/' + (state.graph ? 'graph' : encodeURIComponent(state.kind)) + '/' + state.seed; }
  /* Leaflet's tile URL template ({r}: "@2x" on high-DPI screens). */
  function tileTemplate(api, state) {
    var q = fieldQuery(api, state).concat(renderQuery(api, state)).join('&');
    return fieldBase(state) + '/{z}/{x}/{y}{r}.' + (api.tileExt || 'png') + (q ? '?' + q : '');
  }
  function pointUrl(api, state, x, y) {
    return fieldBase(state) + '/point?' + ['x=' + encodeURIComponent(fmtNum(x)), 'y=' + encodeURIComponent(fmtNum(y))]
      .concat(fieldQuery(api, state)).join('&');
  }

  /* ---- field graphs (docs/graphs.md) ----
   * The page holds a graph as its canonical text (state.graph.text), which
   * only the daemon writes (POST /api/graphs); the text is made of URL-safe
   * characters (letters, digits and ( ) , : $ . - _), so it goes into a
   * query or the hash as it is, anything else percent-encoded. */
  function graphParam(text) {
    return String(text).replace(/[^A-Za-z0-9(),:$._-]/g, function (c) { return encodeURIComponent(c); });
  }
  /* JSON text laid out for reading and editing: an object or array on one
   * line when it fits in `width` columns at its indentation, arrays of
   * numbers (curve points) always on one line. */
  function formatJson(value, width) {
    width = width || 72;
    function one(v) { return JSON.stringify(v, null, 1).replace(/\n\s*/g, ' ').replace(/([[{]) /g, '$1').replace(/ ([\]}])/g, '$1'); }
    /* lead: the columns before v on its line (indentation, "key": ) */
    function fmt(v, ind, lead) {
      if (v === null || typeof v !== 'object') return JSON.stringify(v);
      var flat = one(v);
      var scalars = Array.isArray(v) && v.every(function (x) { return x === null || typeof x !== 'object' || Array.isArray(x) && x.every(function (y) { return typeof y !== 'object'; }); });
      if (flat.length + lead + 1 <= width || scalars) return flat;
      var inner = ind + '  ';
      var items = Array.isArray(v) ? v.map(function (x) { return inner + fmt(x, inner, inner.length); })
        : Object.keys(v).map(function (k) { var key = JSON.stringify(k) + ': '; return inner + key + fmt(v[k], inner, inner.length + key.length); });
      return (Array.isArray(v) ? '[' : '{') + '\n' + items.join(',\n') + '\n' + ind + (Array.isArray(v) ? ']' : '}');
    }
    return fmt(value, '', 0);
  }
  /* A strict JSON reader that keeps where each value is written: the
   * editor's checks (where a syntax error is, which text a JSON pointer
   * names). scanJson(text) -> {ok: true, value, spans} | {ok: false, msg,
   * offset, line, column}; spans maps each JSON pointer to [start, end). */
  function scanJson(text) {
    var i = 0, spans = {};
    function fail(msg, at) { var e = new Error(msg); e.offset = at === undefined ? i : at; throw e; }
    function ws() { while (i < text.length && /[ \t\n\r]/.test(text[i])) i++; }
    function esc(k) { return String(k).replace(/~/g, '~0').replace(/\//g, '~1'); }
    function value(ptr) {
      ws();
      var start = i, c = text[i], v;
      if (c === '{') {
        i++; v = {}; ws();
        if (text[i] === '}') i++;
        else for (;;) {
          ws();
          if (text[i] !== '"') fail(text[i] === undefined ? 'the text ends inside an object' : 'expected a key in double quotes, found ' + show());
          var kAt = i, k = str();
          if (Object.prototype.hasOwnProperty.call(v, k)) fail('the key "' + k + '" appears twice in one object', kAt);
          ws();
          if (text[i] !== ':') fail('expected ":" after the key "' + k + '", found ' + show());
          i++;
          v[k] = value(ptr + '/' + esc(k));
          ws();
          if (text[i] === ',') { i++; continue; }
          if (text[i] === '}') { i++; break; }
          fail(text[i] === undefined ? 'the text ends inside an object' : 'expected "," or "}" after a value, found ' + show());
        }
      } else if (c === '[') {
        i++; v = []; ws();
        if (text[i] === ']') i++;
        else for (;;) {
          v.push(value(ptr + '/' + v.length));
          ws();
          if (text[i] === ',') { i++; continue; }
          if (text[i] === ']') { i++; break; }
          fail(text[i] === undefined ? 'the text ends inside an array' : 'expected "," or "]" after a value, found ' + show());
        }
      } else if (c === '"') v = str();
      else {
        var m = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
        if (!m) fail(c === undefined ? 'the text ends where a value should be' : 'expected a value, found ' + show());
        i += m[0].length;
        v = m[0] === 'true' ? true : m[0] === 'false' ? false : m[0] === 'null' ? null : Number(m[0]);
      }
      spans[ptr] = [start, i];
      return v;
    }
    function show() { var t = text.slice(i, i + 12).split('\n')[0]; return t ? '\u201c' + t + '\u201d' : 'the end of a line'; }
    function str() {
      var j = i + 1, out = '';
      for (;;) {
        if (j >= text.length) fail('a string is not closed', i);
        var ch = text[j];
        if (ch === '"') break;
        if (ch === '\\') {
          var e = text[j + 1];
          if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) { out += String.fromCharCode(parseInt(text.slice(j + 2, j + 6), 16)); j += 6; continue; }
          var map = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
          if (!(e in map)) fail('a bad escape in a string', j);
          out += map[e]; j += 2; continue;
        }
        if (ch < ' ') fail('a control character (a line break?) inside a string', j);
        out += ch; j++;
      }
      i = j + 1;
      return out;
    }
    try {
      var v = value('');
      ws();
      if (i < text.length) fail('more text after the document: ' + show());
      return { ok: true, value: v, spans: spans };
    } catch (e) {
      var before = text.slice(0, e.offset).split('\n');
      return { ok: false, msg: e.message, offset: e.offset, line: before.length, column: before[before.length - 1].length + 1 };
    }
  }

  /* The canonical text (noise/noise_graph.h) read back into a graph JSON
   * document the daemon takes, for the editor of a shared link:
   *   node  := NAME [ "(" item { "," item } ")" ] | NUMBER | "$" INDEX
   *   item  := node | KEY ":" value
   *   value := NUMBER | WORD | "(" NUMBER { "," NUMBER } ")"
   * "$N" (the N-th NAME node written so far) is written out again in full:
   * the daemon merges identical sub-graphs. Throws an Error saying where
   * the text stops making sense; the daemon has the last word on the rest. */
  function decodeGraphText(text) {
    var i = 0, written = [];
    var NUM = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/, NAME = /^[A-Za-z_][A-Za-z0-9_-]*/;
    function fail(msg) { throw new Error(msg + ' at character ' + (i + 1) + ' of the graph text'); }
    function num() {
      var m = NUM.exec(text.slice(i));
      if (!m) fail('expected a number');
      i += m[0].length;
      return Number(m[0]);
    }
    function node() {
      var c = text[i];
      if (c === '$') {
        i++;
        var m = /^\d+/.exec(text.slice(i));
        if (!m) fail('expected a node number after "$"');
        i += m[0].length;
        var k = Number(m[0]);
        if (!(k < written.length) || written[k] === null) fail('"$' + k + '" names no node written before it');
        return JSON.parse(JSON.stringify(written[k]));
      }
      if (c === '-' || c === '.' || (c >= '0' && c <= '9')) return num();
      var n = NAME.exec(text.slice(i));
      if (!n) fail('expected a node');
      i += n[0].length;
      var out = { node: n[0] }, at = written.length;
      written.push(null);
      if (text[i] === '(') {
        i++;
        for (;;) {
          var key = NAME.exec(text.slice(i));
          if (key && text[i + key[0].length] === ':') {
            i += key[0].length + 1;
            if (text[i] === '(') {
              i++;
              var list = [num()];
              while (text[i] === ',') { i++; list.push(num()); }
              if (text[i] !== ')') fail('expected "," or ")" in a list');
              i++;
              out[key[0]] = list;
            } else if (NUM.test(text.slice(i))) out[key[0]] = num();
            else {
              var w = NAME.exec(text.slice(i));
              if (!w) fail('expected a value for ' + key[0]);
              i += w[0].length;
              /* switches (terrace's invert, smooth) are JSON booleans */
              out[key[0]] = w[0] === 'true' ? true : w[0] === 'false' ? false : w[0];
            }
          } else {
            (out.inputs = out.inputs || []).push(node());
          }
          if (text[i] === ',') { i++; continue; }
          if (text[i] === ')') { i++; break; }
          fail('expected "," or ")"');
        }
      }
      written[at] = out;
      return out;
    }
    var root = node();
    if (i !== text.length) fail('unexpected text');
    return root;
  }

  /* ---- the URL hash: view, field, rendering, overlay, selected point ---- */
  /* The state of the first view (no hash). */
  function firstState(api) {
    var s = {
      kind: api.kindDefault, graph: null, seed: FIRST_VIEW.seed, field: {}, render: {},
      view: { x: FIRST_VIEW.view.x, y: FIRST_VIEW.view.y, z: FIRST_VIEW.view.z }, point: null, grid: false
    };
    if (!parseParam(api.seed, String(s.seed)).ok) s.seed = api.seed.min;
    /* only what this daemon accepts */
    [['field', api.params], ['render', api.render]].forEach(function (g) {
      Object.keys(FIRST_VIEW[g[0]]).forEach(function (name) {
        var p = findParam(g[1], name), v = FIRST_VIEW[g[0]][name];
        if (p && appliesTo(p, s.kind) && parseParam(p, encodeValue(p, v)).ok) s[g[0]][name] = v;
      });
    });
    return s;
  }
  /* The hash of a state, '#z=..&x=..&y=..&kind=..&seed=..&<field>&<render>
   * [&grid=1][&px=..&py=..]', with a graph '#z=..&x=..&y=..&g=<canonical
   * text>&seed=..&<render>...'; the centre rounded to a tenth of a pixel. */
  function encodeHash(api, state) {
    var z = state.view.z, d = coordDigits(api.tileSize / api.worldSize * Math.pow(2, z));
    var parts = ['z=' + z, 'x=' + encodeURIComponent(fmtNum(roundTo(state.view.x, d))), 'y=' + encodeURIComponent(fmtNum(roundTo(state.view.y, d))),
      state.graph ? 'g=' + graphParam(state.graph.text) : 'kind=' + encodeURIComponent(state.kind), 'seed=' + state.seed];
    parts = parts.concat(state.graph ? [] : fieldQuery(api, state), renderQuery(api, state));
    if (state.grid) parts.push('grid=1');
    if (state.point) parts.push('px=' + encodeURIComponent(fmtNum(state.point.x)), 'py=' + encodeURIComponent(fmtNum(state.point.y)));
    return '#' + parts.join('&');
  }
  /* The largest |x| or |y| a view centred at zoom z may have: tile indices
   * stop at limits.tile_index_max (/api/kinds), and a screen's worth of tiles
   * (64) must fit inside; below the API's lowest zoom its tiles are scaled.
   * Infinity when the daemon states no limit. */
  function viewLimit(api, z) {
    if (api.tileIndexMax === undefined) return Infinity;
    var zn = Math.max(z, api.minZoom);
    return (api.tileIndexMax - 64) * api.worldSize / Math.pow(2, zn);
  }
  /* Reads a hash: {state, msgs}. An empty hash is the first view. Otherwise
   * each parameter the hash does not name has the API's default (so a link
   * means exactly what it says); kind, seed and the view default to the
   * first view's. msgs: what was ignored and why. minZoom: the lowest zoom
   * the map allows (below the API's, by scaling tiles). */
  function decodeHash(api, hash, minZoom) {
    var text = String(hash || '').replace(/^#/, '');
    var state = firstState(api);
    var msgs = [];
    if (text === '') return { state: state, msgs: msgs };
    var q = new URLSearchParams(text);
    var k = q.get('kind');
    if (k !== null) { if (findKind(api, k)) state.kind = k; else msgs.push('unknown kind \u201c' + k + '\u201d'); }
    var g = q.get('g');
    if (g !== null) {
      if (g === '') msgs.push('an empty graph (g=)');
      else state.graph = { text: g };
    }
    var s = q.get('seed');
    if (s !== null) {
      var r = parseParam(api.seed, s);
      if (r.ok) state.seed = r.value; else msgs.push(r.msg);
    }
    state.field = {};
    state.render = {};
    [['field', api.params], ['render', api.render]].forEach(function (g) {
      g[1].forEach(function (p) {
        var v = q.get(p.name);
        if (v === null) return;
        var r = parseParam(p, v);
        if (r.ok) state[g[0]][p.name] = r.value; else msgs.push(r.msg);
      });
    });
    var lo = minZoom === undefined ? api.minZoom : minZoom;
    var z = Number(q.get('z')), x = Number(q.get('x')), y = Number(q.get('y'));
    if (q.get('z') !== null && Number.isInteger(z)) state.view.z = Math.max(lo, Math.min(api.maxZoom, z));
    if (q.get('x') !== null && isFinite(x)) state.view.x = x;
    if (q.get('y') !== null && isFinite(y)) state.view.y = y;
    /* a centre the daemon has no tiles for at that zoom: moved to the edge */
    var lim = viewLimit(api, state.view.z);
    ['x', 'y'].forEach(function (c) {
      var v = state.view[c];
      if (Math.abs(v) <= lim) return;
      state.view[c] = v < 0 ? -lim : lim;
      msgs.push(c + ' ' + fmtNum(v) + ' is beyond the tiles the daemon serves at zoom ' + state.view.z +
        ' (|' + c + '| \u2264 ' + fmtNum(lim) + '): moved to ' + fmtNum(state.view[c]));
    });
    state.grid = q.get('grid') === '1';
    var px = Number(q.get('px')), py = Number(q.get('py'));
    state.point = q.get('px') !== null && q.get('py') !== null && isFinite(px) && isFinite(py) ? { x: px, y: py } : null;
    return { state: state, msgs: msgs };
  }

  return {
    FIRST_VIEW: FIRST_VIEW,
    num: num, fmtNum: fmtNum, coordDigits: coordDigits, roundTo: roundTo, fmtSigned: fmtSigned, fmtSci: fmtSci,
    normParam: normParam, parseKinds: parseKinds, appliesTo: appliesTo, findKind: findKind, findParam: findParam,
    rangeText: rangeText, rangeChip: rangeChip, parseParam: parseParam, encodeValue: encodeValue,
    graphParam: graphParam, formatJson: formatJson, scanJson: scanJson, decodeGraphText: decodeGraphText,
    fieldQuery: fieldQuery, renderQuery: renderQuery, fieldBase: fieldBase, tileTemplate: tileTemplate, pointUrl: pointUrl,
    firstState: firstState, encodeHash: encodeHash, decodeHash: decodeHash, viewLimit: viewLimit
  };
});
