/* archive.js: shows a `noisetile export` on the noise plane without the
 * daemon. The map is the viewer's: plane (x, y) is LatLng(y, x), Leaflet's
 * tile (z, x, y) is the plane tile (z, x, y). The export's metadata says
 * where its tiles sit: archive tile (z + k, x - ox*2^z, y - oy*2^z) is plane
 * tile (z, x, y) (k = zoom_offset, (ox, oy) = origin_tile), for plane zooms
 * plane_zoom[0]..plane_zoom[1] and plane tiles meeting bbox. A PMTiles
 * archive is read with range requests through the pmtiles library; a
 * directory export is z/x/y.png files next to its metadata.json. */
(function () {
  'use strict';
  var WORLD = 16, TILE_PX = 256;
  function $(id) { return document.getElementById(id); }
  function status(text, bad) { $('status').textContent = text; $('status').className = bad ? 'bad' : ''; }

  var map = L.map('map', {
    crs: L.extend({}, L.CRS.Simple, { transformation: new L.Transformation(TILE_PX / WORLD, 0, TILE_PX / WORLD, 0) }),
    center: [8, 8], zoom: 0, minZoom: -4, maxZoom: 30, zoomControl: false
  });
  L.control.zoom({ position: 'topright' }).addTo(map);
  map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
  map.on('mousemove', function (e) { $('cursor').textContent = 'x ' + e.latlng.lng.toFixed(4) + '  y ' + e.latlng.lat.toFixed(4); });

  var layer = null;
  var loaded = { tiles: 0, empty: 0 };

  /* The plane tile range of zoom z covering [lo, hi) (as the exporter does). */
  function cover(lo, hi, z) {
    var n = Math.pow(2, z) / WORLD, a = Math.floor(lo * n), b = Math.ceil(hi * n) - 1;
    return [a, Math.max(a, b)];
  }

  /* meta: the export's metadata; fetchTile(az, ax, ay, done(err, blobOrUrl)). */
  function show(meta, fetchTile, label) {
    var nt = meta.noisetile;
    if (!nt || !nt.bbox || !nt.plane_zoom || !nt.origin_tile) throw new Error('no noisetile metadata: not a noisetile export');
    var k = nt.zoom_offset, ox = nt.origin_tile[0], oy = nt.origin_tile[1], bb = nt.bbox;
    var zmin = nt.plane_zoom[0], zmax = nt.plane_zoom[1];
    $('title').textContent = meta.name || 'noisetile archive';
    $('field').textContent = nt.field;
    $('zooms').textContent = 'plane zoom ' + zmin + '-' + zmax + ', region (' + bb.join(', ') + ')';
    var Layer = L.GridLayer.extend({
      createTile: function (c, done) {
        var img = document.createElement('img');
        img.alt = '';
        var xs = cover(bb[0], bb[2], c.z), ys = cover(bb[1], bb[3], c.z);
        if (c.x < xs[0] || c.x > xs[1] || c.y < ys[0] || c.y > ys[1]) {
          loaded.empty++;
          setTimeout(function () { done(null, img); }, 0);
          return img;
        }
        var s = Math.pow(2, c.z);
        fetchTile(c.z + k, c.x - ox * s, c.y - oy * s, function (err, src) {
          if (err || !src) { loaded.empty++; done(err || null, img); return; }
          img.onload = function () { loaded.tiles++; done(null, img); };
          img.onerror = function () { done(new Error('tile decode'), img); };
          img.src = src;
          img.dataset.archive = (c.z + k) + '/' + (c.x - ox * s) + '/' + (c.y - oy * s);
          img.dataset.plane = c.z + '/' + c.x + '/' + c.y;
        });
        return img;
      }
    });
    if (layer) map.removeLayer(layer);
    layer = new Layer({ tileSize: TILE_PX, minNativeZoom: zmin, maxNativeZoom: zmax, className: 'archive-tiles' }).addTo(map);
    map.fitBounds([[bb[1], bb[0]], [bb[3], bb[2]]]);
    status(label);
    document.body.dataset.ready = '1';
  }

  function openPmtiles(source, label) {
    var archive = new pmtiles.PMTiles(source);
    archive.getMetadata().then(function (meta) {
      show(meta, function (z, x, y, done) {
        archive.getZxy(z, x, y).then(function (t) {
          done(null, t ? URL.createObjectURL(new Blob([t.data], { type: 'image/png' })) : null);
        }, done);
      }, label);
    }).catch(function (e) { status('Cannot open ' + label + ': ' + e.message, true); });
  }

  function openDir(base) {
    base = base.replace(/\/+$/, '');
    fetch(base + '/metadata.json').then(function (r) {
      if (!r.ok) throw new Error(base + '/metadata.json: HTTP ' + r.status);
      return r.json();
    }).then(function (meta) {
      show(meta, function (z, x, y, done) { done(null, base + '/' + z + '/' + x + '/' + y + '.png'); }, base + '/');
    }).catch(function (e) { status('Cannot open ' + base + ': ' + e.message, true); });
  }

  $('file').addEventListener('change', function () {
    if (this.files[0]) openPmtiles(new pmtiles.FileSource(this.files[0]), this.files[0].name);
  });
  var q = new URLSearchParams(location.search);
  if (q.get('pmtiles')) openPmtiles(q.get('pmtiles'), q.get('pmtiles'));
  else if (q.get('dir')) openDir(q.get('dir'));

  window.noisetileArchive = { map: map, loaded: loaded };
})();
