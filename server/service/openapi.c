/* openapi.c: the OpenAPI 3.1 document of the daemon. The fixed part is a
 * JSON template (written with ' for " to stay readable in C); the field
 * parameters are generated from the parameter table (params.h), the palettes from
 * render_palette_names(), the limits from daemon_limits.h. */
#include "service/openapi.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/cost.h"
#include "base/daemon_limits.h"
#include "base/errors.h"
#include "noise.h"
#include "noise_graph.h"
#include "service/params.h"
#include "service/query.h"
#include "tiles/render.h"

static const char template_text[] =
"{'openapi':'3.1.0',"
" 'info':{'title':'noisetile','version':'1.0.0',"
"  'description':'An infinite, deterministic plane of procedural noise: PNG map tiles, exact values and analytic gradients as JSON, and a slippy-map viewer. Tile (z, x, y) covers the square with top-left corner (x*16/2^z, y*16/2^z) and side 16/2^z plane units, y downwards; pixel (i, j) of a W-pixel tile shows the field at its centre. Errors are JSON objects with error.status and error.message; every response carries Access-Control-Allow-Origin: *. Every GET path also answers HEAD (the same headers, no body) and OPTIONS (204 with Allow and the CORS preflight headers); other methods get 405 with Allow. Requests whose framing could be read two ways are refused before their body and the connection closed: Content-Length with Transfer-Encoding, two Content-Length headers, a NUL or bare CR in a header field (400); Transfer-Encoding other than one chunked (501); Expect other than 100-continue (417); a body over the limit announced with Expect: 100-continue (413, no 100 Continue). A larger body without Expect is read and dropped, then answered 413 on a connection that stays open. The path is percent-decoded like the query; a path under a kind with no field shape answers 404 listing the URL forms.',"
"  'license':{'name':'MIT','identifier':'MIT'}},"
" 'paths':{"
"  '/{kind}/{seed}/{z}/{x}/{y}.png':{"
"   'summary':'A 256 x 256 PNG tile of the field',"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'},{'$ref':'#/components/parameters/z'},{'$ref':'#/components/parameters/x'},{'$ref':'#/components/parameters/y'}],"
"   'get':{'operationId':'getTile','summary':'Render tile (z, x, y), 256 px','parameters':'@FIELD_RENDER@','responses':'@TILE_RESPONSES@'},"
"   'head':{'operationId':'headTile','summary':'Headers of the tile, no body','parameters':'@FIELD_RENDER@','responses':'@TILE_RESPONSES@'},"
"   'options':{'operationId':'optionsTile','summary':'CORS preflight','responses':{'204':{'$ref':'#/components/responses/Preflight'}}}},"
"  '/{kind}/{seed}/{z}/{x}/{y}@2x.png':{"
"   'summary':'A 512 x 512 PNG tile of the field (the same square at twice the resolution)',"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'},{'$ref':'#/components/parameters/z'},{'$ref':'#/components/parameters/x'},{'$ref':'#/components/parameters/y'}],"
"   'get':{'operationId':'getTile2x','summary':'Render tile (z, x, y), 512 px','parameters':'@FIELD_RENDER@','responses':'@TILE_RESPONSES@'},"
"   'head':{'operationId':'headTile2x','summary':'Headers of the tile, no body','parameters':'@FIELD_RENDER@','responses':'@TILE_RESPONSES@'},"
"   'options':{'operationId':'optionsTile2x','summary':'CORS preflight','responses':{'204':{'$ref':'#/components/responses/Preflight'}}}},"
"  '/{kind}/{seed}/{z}/{x}/{y}.webp':{"
"   'summary':'The tile as WebP, 256 x 256: lossless (the PNG tile pixel for pixel) unless shaded, lossy at quality for shaded tiles',"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'},{'$ref':'#/components/parameters/z'},{'$ref':'#/components/parameters/x'},{'$ref':'#/components/parameters/y'}],"
"   'get':{'operationId':'getTileWebp','summary':'Render tile (z, x, y) as WebP, 256 px','parameters':'@FIELD_RENDER@','responses':'@TILE_RESPONSES@'},"
"   'head':{'operationId':'headTileWebp','summary':'Headers of the tile, no body','parameters':'@FIELD_RENDER@','responses':'@TILE_RESPONSES@'},"
"   'options':{'operationId':'optionsTileWebp','summary':'CORS preflight','responses':{'204':{'$ref':'#/components/responses/Preflight'}}}},"
"  '/{kind}/{seed}/{z}/{x}/{y}@2x.webp':{"
"   'summary':'The 512 x 512 tile as WebP',"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'},{'$ref':'#/components/parameters/z'},{'$ref':'#/components/parameters/x'},{'$ref':'#/components/parameters/y'}],"
"   'get':{'operationId':'getTileWebp2x','summary':'Render tile (z, x, y) as WebP, 512 px','parameters':'@FIELD_RENDER@','responses':'@TILE_RESPONSES@'},"
"   'head':{'operationId':'headTileWebp2x','summary':'Headers of the tile, no body','parameters':'@FIELD_RENDER@','responses':'@TILE_RESPONSES@'},"
"   'options':{'operationId':'optionsTileWebp2x','summary':'CORS preflight','responses':{'204':{'$ref':'#/components/responses/Preflight'}}}},"
"  '/{kind}/{seed}/{z}/{x}/{y}.{format}':{"
"   'summary':'The tile as numbers: .npy (NumPy float32) or .r16 (16-bit raw); @2x too. The PNG tile pixel centres; gzip when asked',"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'},{'$ref':'#/components/parameters/z'},{'$ref':'#/components/parameters/x'},{'$ref':'#/components/parameters/y'},{'$ref':'#/components/parameters/format'}],"
"   'get':{'operationId':'getNumericTile','summary':'Tile (z, x, y) as numbers','parameters':'@FIELD_NUMBERS@','responses':'@NUMBER_RESPONSES@'},"
"   'head':{'operationId':'headNumericTile','summary':'Headers only','parameters':'@FIELD_NUMBERS@','responses':'@NUMBER_RESPONSES@'},"
"   'options':{'operationId':'optionsNumericTile','summary':'CORS preflight','responses':{'204':{'$ref':'#/components/responses/Preflight'}}}},"
"  '/{kind}/{seed}/mercator/{width}/{wz}/{wx}/{wy}.png':{"
"   'summary':'The plane as a Web-Mercator world width plane units wide, the origin at its centre: Web-Mercator tile (wz, wx, wy) is plane tile (wz - log2(width/16), wx - 2^(wz-1), wy - 2^(wz-1)), the same bytes and ETag; @2x, .webp and the numeric forms (.npy, .r16, encoding=) as for plane tiles. For Web-Mercator clients (MapLibre); tile.json?mapping=mercator gives the template',"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'},{'$ref':'#/components/parameters/width'},{'$ref':'#/components/parameters/wz'},{'$ref':'#/components/parameters/wx'},{'$ref':'#/components/parameters/wy'}],"
"   'get':{'operationId':'getMercatorTile','summary':'Web-Mercator tile (wz, wx, wy) of the plane, 256 px','parameters':'@FIELD_RENDER@','responses':'@TILE_RESPONSES@'},"
"   'head':{'operationId':'headMercatorTile','summary':'Headers of the tile, no body','parameters':'@FIELD_RENDER@','responses':'@TILE_RESPONSES@'},"
"   'options':{'operationId':'optionsMercatorTile','summary':'CORS preflight','responses':{'204':{'$ref':'#/components/responses/Preflight'}}}},"
"  '/{kind}/{seed}/grid.{gridFormat}':{"
"   'summary':'Any window of the field: sample (i, j) is the field at (x + i*step, y + j*step); streamed in bands of rows',"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'},{'$ref':'#/components/parameters/gridFormat'}],"
"   'get':{'operationId':'getGrid','summary':'A width x height grid as .npy, .r16 or PNG (with an encoding: numbers; without: a picture in tile colours)','parameters':'@FIELD_GRID@','responses':'@GRID_RESPONSES@'},"
"   'head':{'operationId':'headGrid','summary':'Headers only (nothing computed)','parameters':'@FIELD_GRID@','responses':'@GRID_RESPONSES@'},"
"   'options':{'operationId':'optionsGrid','summary':'CORS preflight','responses':{'204':{'$ref':'#/components/responses/Preflight'}}}},"
"  '/{kind}/{seed}/point':{"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'}],"
"   'get':{'operationId':'getPoint','summary':'Value and analytic gradient at one point','parameters':'@FIELD_POINT@',"
"    'responses':{'200':{'description':'The value and gradient (three components when t is given). Numbers round-trip: parsing them gives the same doubles.','headers':{'Access-Control-Allow-Origin':{'$ref':'#/components/headers/CORS'}},'content':{'application/json':{'schema':{'$ref':'#/components/schemas/Point'}}}},"
"     '400':{'$ref':'#/components/responses/BadRequest'},'404':{'$ref':'#/components/responses/NotFound'},'405':{'$ref':'#/components/responses/MethodNotAllowed'},'503':{'$ref':'#/components/responses/Overloaded'}}},"
"   'head':{'operationId':'headPoint','summary':'Headers of the point answer','parameters':'@FIELD_POINT@','responses':{'200':{'description':'Headers only'},'400':{'$ref':'#/components/responses/BadRequest'},'404':{'$ref':'#/components/responses/NotFound'}}},"
"   'options':{'operationId':'optionsPoint','summary':'CORS preflight','responses':{'204':{'$ref':'#/components/responses/Preflight'}}}},"
"  '/{kind}/{seed}/points':{"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'}],"
"   'post':{'operationId':'postPoints','summary':'Values and gradients at many points, in order','parameters':'@FIELD@',"
"    'requestBody':{'required':true,'description':'At most @MAX_POINTS@ points and @MAX_BODY@ bytes; all points have the same length (2, or 3 with t).','content':{'application/json':{'schema':{'$ref':'#/components/schemas/PointsRequest'}}}},"
"    'responses':{'200':{'description':'values[i] and gradients[i] belong to points[i]','headers':{'Access-Control-Allow-Origin':{'$ref':'#/components/headers/CORS'}},'content':{'application/json':{'schema':{'$ref':'#/components/schemas/PointsResponse'}}}},"
"     '400':{'$ref':'#/components/responses/BadRequest'},'404':{'$ref':'#/components/responses/NotFound'},'405':{'$ref':'#/components/responses/MethodNotAllowed'},'413':{'$ref':'#/components/responses/TooLarge'},'503':{'$ref':'#/components/responses/Overloaded'}}},"
"   'options':{'operationId':'optionsPoints','summary':'CORS preflight','responses':{'204':{'$ref':'#/components/responses/Preflight'}}}},"
"  '/{kind}/{seed}/stats':{"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'}],"
"   'get':{'operationId':'getStats','summary':'Statistics of a window of samples: range, mean, standard deviation, share beyond +-0.5, peaks, histogram','parameters':'@FIELD_STATS@',"
"    'responses':{'200':{'description':'Statistics of the window; sample (i, j) is the field at (x + i*step, y + j*step) as a float32, as the grid endpoint gives it','headers':{'Access-Control-Allow-Origin':{'$ref':'#/components/headers/CORS'}},'content':{'application/json':{'schema':{'$ref':'#/components/schemas/Stats'}}}},"
"     '400':{'$ref':'#/components/responses/BadRequest'},'404':{'$ref':'#/components/responses/NotFound'},'405':{'$ref':'#/components/responses/MethodNotAllowed'},'413':{'$ref':'#/components/responses/WindowTooLarge'},'503':{'$ref':'#/components/responses/Overloaded'}}},"
"   'head':{'operationId':'headStats','summary':'Headers of the statistics','parameters':'@FIELD_STATS@','responses':{'200':{'description':'Headers only'},'400':{'$ref':'#/components/responses/BadRequest'},'404':{'$ref':'#/components/responses/NotFound'}}},"
"   'options':{'operationId':'optionsStats','summary':'CORS preflight','responses':{'204':{'$ref':'#/components/responses/Preflight'}}}},"
"  '/{kind}/{seed}/tile.json':{"
"   'parameters':[{'$ref':'#/components/parameters/kind'},{'$ref':'#/components/parameters/seed'},{'$ref':'#/components/parameters/mapping'},{'$ref':'#/components/parameters/scale'}],"
"   'get':{'operationId':'getTileJSON','summary':'TileJSON 3.0.0 for the field; its tiles template keeps the canonical parameters','parameters':'@FIELD_RENDER@',"
"    'responses':{'200':{'description':'TileJSON','headers':{'Access-Control-Allow-Origin':{'$ref':'#/components/headers/CORS'}},'content':{'application/json':{'schema':{'$ref':'#/components/schemas/TileJSON'}}}},"
"     '400':{'$ref':'#/components/responses/BadRequest'},'404':{'$ref':'#/components/responses/NotFound'},'405':{'$ref':'#/components/responses/MethodNotAllowed'}}}},"
"  '/api/kinds':{'get':{'operationId':'getKinds','summary':'Kinds, field parameters with defaults and ranges, palettes, render parameters, limits',"
"    'responses':{'200':{'description':'The catalogue','content':{'application/json':{'schema':{'$ref':'#/components/schemas/Kinds'}}}},'405':{'$ref':'#/components/responses/MethodNotAllowed'}}}},"
"  '/api/tilematrixset.json':{'get':{'operationId':'getTileMatrixSet','summary':'The plane tile grid as an OGC 2D Tile Matrix Set (JSON): zooms 0..30, TileCol = x + 2^31, TileRow = y + 2^31',"
"    'responses':{'200':{'description':'The tile matrix set','content':{'application/json':{'schema':{'type':'object','required':['id','crs','tileMatrices'],'properties':{'id':{'const':'NoisetilePlane'},'tileMatrices':{'type':'array','minItems':31}}}}}},'405':{'$ref':'#/components/responses/MethodNotAllowed'}}}},"
"  '/healthz':{'get':{'operationId':'getHealth','summary':'Liveness','responses':{'200':{'description':'The daemon serves','content':{'application/json':{'schema':{'type':'object','required':['status'],'properties':{'status':{'const':'ok'}}}}}},'405':{'$ref':'#/components/responses/MethodNotAllowed'}}}},"
"  '/metrics':{'get':{'operationId':'getMetrics','summary':'Prometheus text format: requests by route and status, cache hits/misses/evictions/bytes/entries, render-time histogram',"
"    'responses':{'200':{'description':'Prometheus exposition format 0.0.4','content':{'text/plain':{'schema':{'type':'string'}}}},'405':{'$ref':'#/components/responses/MethodNotAllowed'}}}},"
"  '/openapi.json':{'get':{'operationId':'getOpenAPI','summary':'This document','responses':{'200':{'description':'OpenAPI 3.1','content':{'application/json':{'schema':{'type':'object'}}}}}}},"
"  '/':{'get':{'operationId':'getViewer','summary':'The viewer (files of --static; any other path under / names a file there)',"
"    'responses':{'200':{'description':'index.html','content':{'text/html':{'schema':{'type':'string'}}}},'400':{'$ref':'#/components/responses/BadRequest'},'404':{'$ref':'#/components/responses/NotFound'}}}}"
" },"
" 'components':{"
"  'parameters':{"
"   'kind':{'name':'kind','in':'path','required':true,'description':'Noise kind; unknown kinds get 404','schema':{'type':'string','enum':'@KINDS@'}},"
"   'seed':{'name':'seed','in':'path','required':true,'description':'Decimal seed, no sign','schema':{'type':'integer','minimum':0,'maximum':4294967295}},"
"   'z':{'name':'z','in':'path','required':true,'description':'Zoom level (below 0: coarser views, a zoom -2 tile covering 64 plane units; picture tiles there are the mean of the zoom-0 pixels under each pixel)','schema':{'type':'integer','minimum':-2,'maximum':30}},"
"   'width':{'name':'width','in':'path','required':true,'description':'The Web-Mercator world width in plane units, a power of two (16: one zoom-0 plane tile)','schema':{'type':'integer','minimum':1,'maximum':16777216}},"
"   'wz':{'name':'wz','in':'path','required':true,'description':'Web-Mercator zoom (0 is not served: its one tile is no plane tile); the plane zoom wz - log2(width/16) must not pass 30','schema':{'type':'integer','minimum':1,'maximum':30}},"
"   'wx':{'name':'wx','in':'path','required':true,'description':'Web-Mercator column, 0..2^wz - 1','schema':{'type':'integer','minimum':0,'maximum':1073741823}},"
"   'wy':{'name':'wy','in':'path','required':true,'description':'Web-Mercator row, 0..2^wz - 1, from the north','schema':{'type':'integer','minimum':0,'maximum':1073741823}},"
"   'mapping':{'name':'mapping','in':'query','required':false,'description':'mercator: a TileJSON for Web-Mercator clients, its template the /mercator/ route, the plane origin at the world centre, minzoom 1, and period=scale added when the query names no period and the field takes it (a seamless wrap)','schema':{'const':'mercator'}},"
"   'scale':{'name':'scale','in':'query','required':false,'description':'With mapping=mercator: the world width in plane units, a power of two (default 32)','schema':{'type':'integer','minimum':1,'maximum':16777216}},"
"   'x':{'name':'x','in':'path','required':true,'description':'Tile column; the plane is infinite, negative columns are valid','schema':{'type':'integer','minimum':-2147483648,'maximum':2147483647}},"
"   'y':{'name':'y','in':'path','required':true,'description':'Tile row, growing downwards; negative rows are valid','schema':{'type':'integer','minimum':-2147483648,'maximum':2147483647}},"
"   'ifNoneMatch':{'name':'If-None-Match','in':'header','required':false,'description':'ETags (a list, or *); a match gives 304','schema':{'type':'string'}},"
"   'acceptEncoding':{'name':'Accept-Encoding','in':'header','required':false,'description':'gzip: .npy and .r16 bodies (and JSON answers) come gzip-compressed, with their own ETag','schema':{'type':'string'}},"
"   'format':{'name':'format','in':'path','required':true,'description':'npy: NumPy 1.0 <f4 C order, shape (H, W) (gradient: (H, W, 3), with t (H, W, 4)); r16: little-endian uint16 u = floor((v+1)*32767.5+0.5)','schema':{'type':'string','enum':['npy','r16']}},"
"   'gridFormat':{'name':'gridFormat','in':'path','required':true,'description':'npy, r16, or png (with encoding: numbers; without: a picture)','schema':{'type':'string','enum':['npy','r16','png']}}"
"  },"
"  'headers':{"
"   'CORS':{'description':'Always *','schema':{'type':'string','const':'*'}},"
"   'ETag':{'description':'Strong ETag from the canonical request and the noise and render versions','schema':{'type':'string'}},"
"   'CacheControl':{'description':'public, max-age=31536000, immutable','schema':{'type':'string'}},"
"   'Allow':{'description':'The methods the path answers','schema':{'type':'string'}},"
"   'XWidth':{'description':'Samples per row','schema':{'type':'integer'}},"
"   'XHeight':{'description':'Rows','schema':{'type':'integer'}}"
"  },"
"  'responses':{"
"   'Tile':{'description':'The PNG (indexed unless shaded), or the WebP for .webp','headers':{'ETag':{'$ref':'#/components/headers/ETag'},'Cache-Control':{'$ref':'#/components/headers/CacheControl'},'Access-Control-Allow-Origin':{'$ref':'#/components/headers/CORS'}},'content':{'image/png':{'schema':{'type':'string','contentMediaType':'image/png'}},'image/webp':{'schema':{'type':'string','contentMediaType':'image/webp'}}}},"
"   'Numbers':{'description':'The numbers in the form asked for; Vary: Accept-Encoding and Content-Encoding: gzip for .npy and .r16 when asked','headers':{'ETag':{'$ref':'#/components/headers/ETag'},'Cache-Control':{'$ref':'#/components/headers/CacheControl'},'X-Width':{'$ref':'#/components/headers/XWidth'},'X-Height':{'$ref':'#/components/headers/XHeight'},'Access-Control-Allow-Origin':{'$ref':'#/components/headers/CORS'}},'content':{'application/x-npy':{'schema':{'type':'string','contentMediaType':'application/x-npy'}},'application/octet-stream':{'schema':{'type':'string','contentMediaType':'application/octet-stream'}},'image/png':{'schema':{'type':'string','contentMediaType':'image/png'}}}},"
"   'NotModified':{'description':'If-None-Match matched the ETag; no body','headers':{'ETag':{'$ref':'#/components/headers/ETag'},'Cache-Control':{'$ref':'#/components/headers/CacheControl'}}},"
"   'Preflight':{'description':'CORS preflight: Allow, Access-Control-Allow-Methods, -Headers, -Max-Age','headers':{'Allow':{'$ref':'#/components/headers/Allow'},'Access-Control-Allow-Origin':{'$ref':'#/components/headers/CORS'}}},"
"   'BadRequest':{'description':'A path number out of range, an unknown, duplicated, missing or out-of-range parameter, or a malformed body; the message names it','content':{'application/json':{'schema':{'$ref':'#/components/schemas/Error'}}}},"
"   'NotFound':{'description':'Unknown path, kind or file','content':{'application/json':{'schema':{'$ref':'#/components/schemas/Error'}}}},"
"   'MethodNotAllowed':{'description':'Wrong method; Allow lists the right ones','headers':{'Allow':{'$ref':'#/components/headers/Allow'}},'content':{'application/json':{'schema':{'$ref':'#/components/schemas/Error'}}}},"
"   'TooLarge':{'description':'Body over @MAX_BODY@ bytes or more than @MAX_POINTS@ points','content':{'application/json':{'schema':{'$ref':'#/components/schemas/Error'}}}},"
"   'WindowTooLarge':{'description':'width x height over @MAX_SAMPLES@ samples','content':{'application/json':{'schema':{'$ref':'#/components/schemas/Error'}}}},"
"   'Overloaded':{'description':'Out of memory or capacity; retry','content':{'application/json':{'schema':{'$ref':'#/components/schemas/Error'}}}}"
"  },"
"  'schemas':{"
"   'Error':{'type':'object','required':['error'],'properties':{'error':{'type':'object','required':['status','message'],'properties':{'status':{'type':'integer'},'message':{'type':'string'}}}}},"
"   'Params':{'type':'object','description':'Every field parameter in canonical form, defaults included','properties':'@PARAM_SCHEMAS@'},"
"   'Point':{'type':'object','required':['kind','seed','params','x','y','value','gradient'],'properties':{'kind':{'type':'string'},'seed':{'type':'integer'},'params':{'$ref':'#/components/schemas/Params'},'x':{'type':'number'},'y':{'type':'number'},'value':{'type':'number','minimum':-1,'maximum':1},'gradient':{'type':'array','items':{'type':'number'},'minItems':2,'maxItems':3}}},"
"   'Stats':{'type':'object','required':['kind','seed','params','window','count','min','max','mean','sd','share_beyond_half','peaks','histogram'],'properties':{'kind':{'type':'string'},'seed':{'type':'integer'},'params':{'$ref':'#/components/schemas/Params'},"
"    'window':{'type':'object','required':['x','y','step','width','height'],'properties':{'x':{'type':'number'},'y':{'type':'number'},'step':{'type':'number'},'width':{'type':'integer'},'height':{'type':'integer'}}},"
"    'count':{'type':'integer','description':'samples, width x height'},'min':{'type':'number'},'max':{'type':'number'},'mean':{'type':'number'},'sd':{'type':'number','description':'population standard deviation'},"
"    'share_beyond_half':{'type':'number','minimum':0,'maximum':1,'description':'share of samples with |v| > 0.5'},"
"    'peaks':{'type':'integer','description':'strict local maxima: samples off the border above each of their 8 neighbours'},"
"    'histogram':{'type':'object','required':['min','max','counts'],'description':'counts[k]: samples in [min + k*w, min + (k+1)*w), w = (max - min)/bins; the last bin also holds max','properties':{'min':{'const':-1},'max':{'const':1},'counts':{'type':'array','items':{'type':'integer'}}}}}},"
"   'PointsRequest':{'type':'object','required':['points'],'additionalProperties':false,'properties':{'points':{'type':'array','maxItems':@MAX_POINTS@,'items':{'type':'array','items':{'type':'number'},'minItems':2,'maxItems':3}}}},"
"   'PointsResponse':{'type':'object','required':['values','gradients'],'properties':{'values':{'type':'array','items':{'type':'number'}},'gradients':{'type':'array','items':{'type':'array','items':{'type':'number'},'minItems':2,'maxItems':3}}}},"
"   'TileJSON':{'type':'object','required':['tilejson','tiles'],'properties':{'tilejson':{'const':'3.0.0'},'tileSize':{'const':256},'format':{'enum':['png','webp']},'name':{'type':'string'},'description':{'type':'string'},'version':{'type':'string'},'scheme':{'const':'xyz'},'tiles':{'type':'array','items':{'type':'string'},'minItems':1},'minzoom':{'type':'integer'},'maxzoom':{'type':'integer'},'bounds':{'type':'array','items':{'type':'number'},'minItems':4,'maxItems':4},'center':{'type':'array','items':{'type':'number'},'minItems':3,'maxItems':3},'attribution':{'type':'string'},'noisetile':{'type':'object'}}},"
"   'Kinds':{'type':'object','required':['kinds','parameters','palettes','render'],'properties':{'kinds':{'type':'array','items':{'type':'string'}},'kind_descriptions':{'type':'object','additionalProperties':{'type':'string'}},'parameters':{'type':'array','items':{'type':'object','required':['name','type','description'],'properties':{'name':{'type':'string'},'type':{'enum':['number','integer','enum']},'description':{'type':'string'},'minimum':{'type':'number'},'maximum':{'type':'number'},'exclusiveMinimum':{'type':'boolean'},'exclusiveMaximum':{'type':'boolean'},'default':{},'choices':{'type':'array'},'optional':{'type':'boolean'},'kinds':{'type':'array','items':{'type':'string'}}}}},'palettes':{'type':'array','items':{'type':'string'}},'render':{'type':'array'},'tiles':{'type':'object'},'limits':{'type':'object'}}}"
"  }"
" }"
"}";

/* The schema of one row of the parameter table (params.h). */
static json_t *param_schema(const param_row *r)
{
    const noise_param *p = &r->p;
    json_t *s = json_object();
    if (r->flag) {
        json_object_set_new(s, "type", json_string("integer"));
        json_object_set_new(s, "enum", json_pack("[i,i]", 0, 1));
        json_object_set_new(s, "default", json_integer((json_int_t)p->default_number));
        return s;
    }
    if (p->type == NOISE_PARAM_ENUM) {
        json_t *e = json_array();
        for (size_t i = 0; p->choices != NULL && p->choices[i] != NULL; i++)
            json_array_append_new(e, json_string(p->choices[i]));
        json_object_set_new(s, "type", json_string("string"));
        json_object_set_new(s, "enum", e);
        if (p->default_choice != NULL)
            json_object_set_new(s, "default", json_string(p->default_choice));
        return s;
    }
    int integer = p->type == NOISE_PARAM_INTEGER;
    json_object_set_new(s, "type", json_string(integer ? "integer" : "number"));
    if (isfinite(p->min) && fabs(p->min) < DBL_MAX)
        json_object_set_new(s, p->min_exclusive ? "exclusiveMinimum" : "minimum",
                            integer ? json_integer((json_int_t)p->min) : json_real(p->min));
    if (isfinite(p->max) && fabs(p->max) < DBL_MAX)
        json_object_set_new(s, p->max_exclusive ? "exclusiveMaximum" : "maximum",
                            integer ? json_integer((json_int_t)p->max) : json_real(p->max));
    if (!p->optional)
        json_object_set_new(s, "default", integer ? json_integer((json_int_t)p->default_number)
                                                  : json_real(p->default_number));
    return s;
}

/* The description of a row: the table's, plus the kinds it is limited to. */
static void param_description(const param_row *r, char *buf, size_t size)
{
    char kinds[96] = "";
    size_t used = 0, count = 0, total = 0;
    for (int k = 0; k < NOISE_KIND_COUNT; k++)
        total += noise_param_applies(&r->p, (noise_kind)k);
    for (int k = 0; total < NOISE_KIND_COUNT && k < NOISE_KIND_COUNT; k++) {
        if (!noise_param_applies(&r->p, (noise_kind)k))
            continue;
        count++;
        int w = snprintf(kinds + used, sizeof kinds - used, "%s%s",
                         count == 1 ? "" : count == total ? " and " : ", ",
                         noise_kind_name((noise_kind)k));
        used += w > 0 ? (size_t)w : 0;
    }
    snprintf(buf, size, "%s%s%s%s", r->p.description, kinds[0] ? " (" : "", kinds,
             kinds[0] ? " only)" : "");
}

/* The query parameter objects of the rows routes take (PARAMS_* bits). */
static json_t *param_list(unsigned int routes)
{
    json_t *list = json_array();
    size_t n = params_count();
    for (size_t i = 0; i < n; i++) {
        param_row r = params_row(i);
        if (!(r.routes & routes))
            continue;
        char desc[512];
        param_description(&r, desc, sizeof desc);
        json_array_append_new(list, json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", r.p.name, "in",
                                              "query", "required", r.required, "description",
                                              desc, "schema", param_schema(&r)));
    }
    if (routes & (PARAMS_RENDER | PARAMS_NPY | PARAMS_ENCODING | PARAMS_WINDOW))
        json_array_append_new(list,
                              json_pack("{s:s}", "$ref", "#/components/parameters/ifNoneMatch"));
    if (routes & (PARAMS_NPY | PARAMS_WINDOW))
        json_array_append_new(list,
                              json_pack("{s:s}", "$ref", "#/components/parameters/acceptEncoding"));
    return list;
}

static json_t *number_responses(int grid)
{
    json_t *r = json_pack("{s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s}}",
                          "200", "$ref", "#/components/responses/Numbers",
                          "304", "$ref", "#/components/responses/NotModified",
                          "400", "$ref", "#/components/responses/BadRequest",
                          "404", "$ref", "#/components/responses/NotFound",
                          "405", "$ref", "#/components/responses/MethodNotAllowed",
                          "503", "$ref", "#/components/responses/Overloaded");
    if (r != NULL && grid)
        json_object_set_new(r, "413",
                            json_pack("{s:s}", "$ref", "#/components/responses/WindowTooLarge"));
    return r;
}

static json_t *tile_responses(void)
{
    return json_pack("{s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s}}",
                     "200", "$ref", "#/components/responses/Tile",
                     "304", "$ref", "#/components/responses/NotModified",
                     "400", "$ref", "#/components/responses/BadRequest",
                     "404", "$ref", "#/components/responses/NotFound",
                     "405", "$ref", "#/components/responses/MethodNotAllowed",
                     "503", "$ref", "#/components/responses/Overloaded");
}

/* The operations whose costliest valid request is over the per-request
 * work limit (cost.h), so that they may answer ERR_TOO_COSTLY: @2x tiles
 * (512^2 x 16 octaves x warp x t is 50.3M), numeric tiles at @2x, grids
 * and /stats windows (4097^2 x 16 octaves x warp x t is 3.2G). A 256-px
 * tile (at most 25.2M) and a batch of at most LIMIT_MAX_POINTS points
 * (3.8M) cannot reach it. json.test.mjs gets the answer from each. */
static const char *const costly_operations[] = {
    "getTile2x", "headTile2x", "getTileWebp2x", "headTileWebp2x", "getNumericTile",
    "headNumericTile", "getGrid", "headGrid", "getStats", "headStats",
};
#define N_COSTLY (sizeof costly_operations / sizeof *costly_operations)

/* Adds the error table's ERR_TOO_COSTLY answer (its status and text) to
 * the components and to each operation above. */
static int add_too_costly(json_t *doc)
{
    char status[8], desc[300];
    snprintf(status, sizeof status, "%u", errors_status(ERR_TOO_COSTLY));
    const char *text = errors_strerror(ERR_TOO_COSTLY);
    snprintf(desc, sizeof desc,
             "%c%s: its estimated work is over the per-request limit of %llu units (a "
             "grid's: %llu units); the message names the cost, the limit and what to lower",
             text[0] >= 'a' && text[0] <= 'z' ? text[0] - 'a' + 'A' : text[0], text + 1,
             (unsigned long long)COST_REQUEST_LIMIT, (unsigned long long)COST_GRID_LIMIT);
    json_t *responses = json_object_get(json_object_get(doc, "components"), "responses");
    if (json_object_set_new(responses, "TooCostly",
                            json_pack("{s:s,s:{s:{s:{s:s}}}}", "description", desc, "content",
                                      "application/json", "schema", "$ref",
                                      "#/components/schemas/Error")) != 0)
        return -1;
    size_t found = 0;
    const char *path;
    json_t *item;
    json_object_foreach(json_object_get(doc, "paths"), path, item) {
        const char *method;
        json_t *op;
        json_object_foreach(item, method, op) {
            const char *id = json_string_value(json_object_get(op, "operationId"));
            for (size_t i = 0; id != NULL && i < N_COSTLY; i++) {
                if (strcmp(id, costly_operations[i]) != 0)
                    continue;
                if (json_object_set_new(json_object_get(op, "responses"), status,
                                        json_pack("{s:s}", "$ref",
                                                  "#/components/responses/TooCostly")) != 0)
                    return -1;
                found++;
            }
        }
    }
    return found == N_COSTLY ? 0 : -1;
}

/* Replaces every string "@NAME@" in the tree by a fresh value. */
static int fill(json_t *node)
{
    if (json_is_object(node)) {
        const char *key;
        json_t *val;
        json_object_foreach(node, key, val) {
            if (json_is_string(val) && json_string_value(val)[0] == '@') {
                const char *name = json_string_value(val);
                json_t *repl = NULL;
                if (strcmp(name, "@FIELD@") == 0) repl = param_list(PARAMS_FIELD);
                else if (strcmp(name, "@FIELD_RENDER@") == 0)
                    repl = param_list(PARAMS_FIELD | PARAMS_RENDER | PARAMS_ENCODING);
                else if (strcmp(name, "@FIELD_POINT@") == 0)
                    repl = param_list(PARAMS_FIELD | PARAMS_POINT);
                else if (strcmp(name, "@FIELD_STATS@") == 0)
                    repl = param_list(PARAMS_FIELD | PARAMS_WINDOW | PARAMS_STATS);
                else if (strcmp(name, "@TILE_RESPONSES@") == 0) repl = tile_responses();
                else if (strcmp(name, "@FIELD_NUMBERS@") == 0)
                    repl = param_list(PARAMS_FIELD | PARAMS_NPY);
                else if (strcmp(name, "@FIELD_GRID@") == 0)
                    repl = param_list(PARAMS_FIELD | PARAMS_RENDER | PARAMS_WINDOW | PARAMS_NPY |
                                      PARAMS_ENCODING);
                else if (strcmp(name, "@NUMBER_RESPONSES@") == 0) repl = number_responses(0);
                else if (strcmp(name, "@GRID_RESPONSES@") == 0) repl = number_responses(1);
                else if (strcmp(name, "@KINDS@") == 0) {
                    repl = json_array();
                    for (int k = 0; k < NOISE_KIND_COUNT; k++)
                        json_array_append_new(repl, json_string(noise_kind_name((noise_kind)k)));
                } else if (strcmp(name, "@PALETTES@") == 0) {
                    repl = json_array();
                    const char *const *pal = render_palette_names();
                    for (size_t i = 0; pal[i] != NULL; i++)
                        json_array_append_new(repl, json_string(pal[i]));
                } else if (strcmp(name, "@PALETTE0@") == 0) {
                    repl = json_string(render_palette_names()[0]);
                } else if (strcmp(name, "@PARAM_SCHEMAS@") == 0) {
                    size_t n = params_count();
                    repl = json_object();
                    for (size_t i = 0; i < n; i++) {
                        param_row r = params_row(i);
                        if (r.routes & PARAMS_FIELD)
                            json_object_set_new(repl, r.p.name, param_schema(&r));
                    }
                }
                if (repl == NULL || json_object_set_new(node, key, repl) != 0)
                    return -1;
            } else if (fill(val) != 0) {
                return -1;
            }
        }
    } else if (json_is_array(node)) {
        size_t i;
        json_t *val;
        json_array_foreach(node, i, val)
            if (fill(val) != 0)
                return -1;
    }
    return 0;
}

/* ---- field graphs (noise_graph.h, docs/graphs.md) ----
 *
 * The graph JSON Schema: a node object per node name with its inputs and
 * parameters (the node table of graph_ir.h, as the parser checks it); an
 * input is a node, a number (a constant) or the name of an entry of the
 * document's "nodes". */

typedef struct {
    const char *name;
    const char *type; /* "number", "integer", "bool", "fractal", "seed", "pairs", "points" */
    double def, lo, hi;
    int lo_ex, hi_ex, required;
} graph_param;

typedef struct {
    const char *name;
    int min_in, max_in;
    const char *about;
    graph_param p[5];
} graph_op;

#define GFIN -DBL_MAX, DBL_MAX
static const graph_op graph_ops[] = {
    {"constant", 0, 0, "a constant (a bare number as an input is one)", {{"value", "number", 0, GFIN, 0, 0, 1}}},
    {"x", 0, 0, "the x coordinate", {{0}}},
    {"y", 0, 0, "the y coordinate", {{0}}},
    {"t", 0, 0, "the t coordinate (0 in a 2D evaluation)", {{0}}},
    {"distance", 0, 0, "euclidean distance from (px, py)",
     {{"px", "number", 0, GFIN, 0, 0, 0}, {"py", "number", 0, GFIN, 0, 0, 0}}},
    {"add", 2, 16, "sum, left to right", {{0}}},
    {"sub", 2, 2, "a - b", {{0}}},
    {"mul", 2, 16, "product, left to right", {{0}}},
    {"div", 2, 2, "a / b, |b| held at 1e-9 or more with its sign", {{0}}},
    {"min", 2, 16, "minimum (ties: the earlier input)", {{0}}},
    {"max", 2, 16, "maximum (ties: the earlier input)", {{0}}},
    {"smin", 2, 2, "quadratic smooth minimum", {{"k", "number", 0.1, 0, 1e6, 1, 0, 0}}},
    {"smax", 2, 2, "quadratic smooth maximum", {{"k", "number", 0.1, 0, 1e6, 1, 0, 0}}},
    {"neg", 1, 1, "-a", {{0}}},
    {"abs", 1, 1, "|a|", {{0}}},
    {"pow", 1, 1, "sign(a) |a|^exponent", {{"exponent", "number", 2, 0, 16, 1, 0, 0}}},
    {"powi", 1, 1, "a^n", {{"n", "integer", 2, 0, 16, 0, 0, 0}}},
    {"sqrt", 1, 1, "sqrt(max(a, 0))", {{0}}},
    {"ssqrt", 1, 1, "sign(a) sqrt(|a|)", {{0}}},
    {"clamp", 1, 1, "a held in [min, max]", {{"min", "number", -1, GFIN, 0, 0, 0}, {"max", "number", 1, GFIN, 0, 0, 0}}},
    {"scale_bias", 1, 1, "a * scale + bias", {{"scale", "number", 1, GFIN, 0, 0, 0}, {"bias", "number", 0, GFIN, 0, 0, 0}}},
    {"remap", 1, 1, "[from_min, from_max] mapped linearly onto [to_min, to_max], not clamped",
     {{"from_min", "number", -1, GFIN, 0, 0, 0}, {"from_max", "number", 1, GFIN, 0, 0, 0},
      {"to_min", "number", 0, GFIN, 0, 0, 0}, {"to_max", "number", 1, GFIN, 0, 0, 0}}},
    {"curve", 1, 1, "monotone cubic through control points [x, y] (x increasing), the end values outside",
     {{"points", "pairs", 0, GFIN, 0, 0, 1}}},
    {"terrace", 1, 1, "libnoise's terrace through increasing values",
     {{"points", "points", 0, GFIN, 0, 0, 1}, {"invert", "bool", 0, 0, 1, 0, 0, 0}, {"smooth", "bool", 0, 0, 1, 0, 0, 0}}},
    {"blend", 3, 3, "a + (b - a)(c + 1)/2", {{0}}},
    {"select", 3, 3, "b where lower <= c <= upper, else a, blended over falloff",
     {{"lower", "number", -1, GFIN, 0, 0, 0}, {"upper", "number", 1, GFIN, 0, 0, 0}, {"falloff", "number", 0, 0, DBL_MAX, 0, 0, 0}}},
    {"domain_scale", 1, 1, "the input at p * scale (scale nonzero)", {{"scale", "number", 1, -1e6, 1e6, 0, 0, 0}}},
    {"domain_offset", 1, 1, "the input at p + (x, y, t)",
     {{"x", "number", 0, GFIN, 0, 0, 0}, {"y", "number", 0, GFIN, 0, 0, 0}, {"t", "number", 0, GFIN, 0, 0, 0}}},
    {"domain_rotate", 1, 1, "the input at p rotated by angle degrees", {{"angle", "number", 0, -360, 360, 0, 0, 0}}},
    {"warp", 3, 3, "the first input at p + amplitude (second, third)", {{"amplitude", "number", 1, -1e6, 1e6, 0, 0, 0}}},
    {"fractal", 1, 1, "octaves of the input at lacunarity^k p with per-octave seeds",
     {{"type", "fractal", 0, 0, 0, 0, 0, 0}, {"octaves", "integer", 3, 1, 16, 0, 0, 0},
      {"lacunarity", "number", 2, 1, 16, 0, 0, 0}, {"gain", "number", 0.5, 0, 1, 1, 0, 0},
      {"strength", "number", 2, 0, 16, 1, 0, 0}}},
    {"seed_offset", 1, 1, "the input with the seed in effect shifted", {{"seed", "seed", 0, 0, 0, 0, 0, 0}}},
};

static json_t *graph_param_schema(const graph_param *p)
{
    if (strcmp(p->type, "pairs") == 0)
        return json_pack("{s:s,s:i,s:i,s:{s:s,s:{s:s},s:i,s:i}}", "type", "array", "minItems", 2,
                         "maxItems", NOISE_GRAPH_MAX_POINTS, "items", "type", "array", "items",
                         "type", "number", "minItems", 2, "maxItems", 2);
    if (strcmp(p->type, "points") == 0)
        return json_pack("{s:s,s:i,s:i,s:{s:s}}", "type", "array", "minItems", 2, "maxItems",
                         NOISE_GRAPH_MAX_POINTS, "items", "type", "number");
    if (strcmp(p->type, "bool") == 0)
        return json_pack("{s:s,s:b}", "type", "boolean", "default", 0);
    if (strcmp(p->type, "fractal") == 0)
        return json_pack("{s:s,s:[s,s,s,s],s:s}", "type", "string", "enum", "fbm", "ridged",
                         "turbulence", "pingpong", "default", "fbm");
    if (strcmp(p->type, "seed") == 0)
        return json_pack("{s:s,s:i,s:I,s:i,s:s}", "type", "integer", "minimum", 0, "maximum",
                         (json_int_t)4294967295LL, "default", 0, "description",
                         "added to the seed in effect (mod 2^32)");
    int integer = strcmp(p->type, "integer") == 0;
    json_t *s = json_pack("{s:s}", "type", integer ? "integer" : "number");
    if (fabs(p->lo) < DBL_MAX)
        json_object_set_new(s, p->lo_ex ? "exclusiveMinimum" : "minimum", json_real(p->lo));
    if (fabs(p->hi) < DBL_MAX)
        json_object_set_new(s, p->hi_ex ? "exclusiveMaximum" : "maximum", json_real(p->hi));
    if (!p->required)
        json_object_set_new(s, "default", integer ? json_integer((json_int_t)p->def) : json_real(p->def));
    if (strcmp(p->name, "strength") == 0)
        json_object_set_new(s, "description", json_string("type pingpong only"));
    return s;
}

/* One node's schema: {"node": NAME, "inputs": [...], params...}. */
static json_t *graph_node_schema(const char *name, int min_in, int max_in, const char *about,
                                 json_t *params, json_t *required)
{
    json_t *props = params;
    json_object_set_new(props, "node", json_pack("{s:s}", "const", name));
    if (max_in > 0)
        json_object_set_new(props, "inputs",
                            json_pack("{s:s,s:i,s:i,s:{s:s}}", "type", "array", "minItems", min_in,
                                      "maxItems", max_in, "items", "$ref",
                                      "#/components/schemas/GraphInput"));
    json_array_append_new(required, json_string("node"));
    if (max_in > 0)
        json_array_append_new(required, json_string("inputs"));
    return json_pack("{s:s,s:s,s:o,s:o,s:b}", "type", "object", "description", about,
                     "properties", props, "required", required, "additionalProperties", 0);
}

/* The schemas GraphNode, GraphInput and Graph (the document). */
static int add_graph_schemas(json_t *schemas)
{
    json_t *variants = json_array(), *names = json_array();
    /* the kinds: every field parameter the kind takes, and seed */
    size_t n_params;
    const noise_param *params = noise_params(&n_params);
    for (int k = 0; k < NOISE_KIND_COUNT; k++) {
        json_t *props = json_object();
        for (size_t i = 0; i < n_params; i++) {
            if (!noise_param_applies(&params[i], (noise_kind)k))
                continue;
            param_row r;
            memset(&r, 0, sizeof r);
            r.p = params[i];
            r.id = -1;
            json_object_set_new(props, params[i].name, param_schema(&r));
        }
        graph_param seed = {"seed", "seed", 0, 0, 0, 0, 0, 0};
        json_object_set_new(props, "seed", graph_param_schema(&seed));
        char about[160];
        snprintf(about, sizeof about, "a %s source: the kind's field with its query parameters",
                 noise_kind_name((noise_kind)k));
        json_array_append_new(names, json_string(noise_kind_name((noise_kind)k)));
        json_array_append_new(variants, graph_node_schema(noise_kind_name((noise_kind)k), 0, 0,
                                                          about, props, json_array()));
    }
    for (size_t o = 0; o < sizeof graph_ops / sizeof *graph_ops; o++) {
        const graph_op *op = &graph_ops[o];
        json_t *props = json_object(), *required = json_array();
        for (int i = 0; i < 5 && op->p[i].name != NULL; i++) {
            json_object_set_new(props, op->p[i].name, graph_param_schema(&op->p[i]));
            if (op->p[i].required)
                json_array_append_new(required, json_string(op->p[i].name));
        }
        json_array_append_new(names, json_string(op->name));
        json_array_append_new(variants, graph_node_schema(op->name, op->min_in, op->max_in,
                                                          op->about, props, required));
    }
    json_t *node = json_pack("{s:s,s:s,s:{s:{s:o}},s:[s],s:o}", "type", "object", "description",
                             "A node of a field graph (docs/graphs.md): its name in node, its "
                             "inputs, its parameters (defaults may be left out)",
                             "properties", "node", "enum", names, "required", "node", "oneOf",
                             variants);
    json_t *input = json_pack(
        "{s:s,s:[{s:s},{s:s,s:s},{s:s,s:s,s:s}]}", "description",
        "An input: a node, a number (a constant) or the name of an entry of the document's nodes",
        "anyOf", "$ref", "#/components/schemas/GraphNode", "type", "number", "description",
        "a constant", "type", "string", "pattern", "^[A-Za-z_][A-Za-z0-9_-]*$", "description",
        "a named sub-graph");
    json_t *graph = json_pack(
        "{s:s,s:[{s:s},{s:s,s:[s,s],s:{s:{s:s,s:{s:s}},s:{s:s}},s:b}]}", "description",
        "A field graph: a node, or {nodes: {NAME: INPUT...}, output: INPUT} where sub-graphs "
        "written once are used by name",
        "oneOf", "$ref", "#/components/schemas/GraphNode", "type", "object", "required", "nodes",
        "output", "properties", "nodes", "type", "object", "additionalProperties", "$ref",
        "#/components/schemas/GraphInput", "output", "$ref", "#/components/schemas/GraphInput",
        "additionalProperties", 0);
    json_t *posted = json_pack(
        "{s:s,s:[s,s,s,s,s,s,s,s],s:{s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s}}}",
        "type", "object", "required", "graph", "json", "nodes", "depth", "tiles", "tilejson",
        "point", "grid", "properties", "graph", "type", "string", "json", "$ref",
        "#/components/schemas/Graph", "nodes", "type", "integer", "depth", "type", "integer",
        "tiles", "type", "string", "tilejson", "$ref", "#/components/schemas/TileJSON", "point",
        "type", "string", "grid", "type", "string");
    json_t *list = json_pack(
        "{s:s,s:[s],s:{s:{s:s,s:{s:s,s:[s,s,s,s],s:{s:{s:s},s:{s:s},s:{s:s},s:{s:s}}}}}}", "type",
        "object", "required", "graphs", "properties", "graphs", "type", "array", "items", "type",
        "object", "required", "name", "description", "graph", "json", "properties", "name", "type",
        "string", "description", "type", "string", "graph", "type", "string", "json", "$ref",
        "#/components/schemas/Graph");
    if (node == NULL || input == NULL || graph == NULL || posted == NULL || list == NULL ||
        json_object_set_new(schemas, "GraphNode", node) != 0 ||
        json_object_set_new(schemas, "GraphInput", input) != 0 ||
        json_object_set_new(schemas, "Graph", graph) != 0 ||
        json_object_set_new(schemas, "GraphPosted", posted) != 0 ||
        json_object_set_new(schemas, "GraphList", list) != 0)
        return -1;
    /* the error body's pointer */
    json_t *err_props = json_object_get(
        json_object_get(json_object_get(json_object_get(schemas, "Error"), "properties"), "error"),
        "properties");
    return json_object_set_new(err_props, "pointer",
                               json_pack("{s:s,s:s}", "type", "string", "description",
                                         "a graph's error: the JSON pointer (RFC 6901) of the node "
                                         "or parameter, in the document as written (for g=, in "
                                         "its canonical JSON)"));
}

/* A graph twin of a kind's operation: field parameters left out, g= in
 * front (named graphs take neither), 422 possible (a graph's work). */
static json_t *graph_operation(json_t *op, const char *suffix)
{
    json_t *g = json_deep_copy(op);
    const char *id = json_string_value(json_object_get(g, "operationId"));
    char buf[96];
    if (id == NULL)
        return g;
    snprintf(buf, sizeof buf, "%s%s", id, suffix);
    json_object_set_new(g, "operationId", json_string(buf));
    json_t *params = json_object_get(g, "parameters");
    if (json_is_array(params)) {
        size_t n_field;
        const noise_param *field = noise_params(&n_field);
        json_t *kept = json_array();
        json_array_append_new(kept, json_pack("{s:s}", "$ref", "#/components/parameters/g"));
        size_t i;
        json_t *p;
        json_array_foreach(params, i, p) {
            const char *name = json_string_value(json_object_get(p, "name"));
            int is_field = 0;
            for (size_t k = 0; name != NULL && k < n_field; k++)
                is_field |= strcmp(field[k].name, name) == 0;
            if (!is_field)
                json_array_append(kept, p);
        }
        json_object_set_new(g, "parameters", kept);
    }
    json_t *responses = json_object_get(g, "responses");
    if (json_is_object(responses) && json_object_get(responses, "200") != NULL &&
        json_object_get(responses, "422") == NULL)
        json_object_set_new(responses, "422", json_pack("{s:s}", "$ref", "#/components/responses/TooCostly"));
    return g;
}

static int add_graph_paths(json_t *doc)
{
    json_t *paths = json_object_get(doc, "paths"), *twins = json_object();
    const char *path;
    json_t *item;
    json_object_foreach(paths, path, item) {
        if (strncmp(path, "/{kind}/{seed}/", 15) != 0)
            continue;
        char gpath[160];
        snprintf(gpath, sizeof gpath, "/graph/{seed}/%s", path + 15);
        json_t *twin = json_object();
        const char *method;
        json_t *op;
        json_object_foreach(item, method, op) {
            if (strcmp(method, "parameters") == 0) {
                json_t *kept = json_array();
                size_t i;
                json_t *p;
                json_array_foreach(op, i, p)
                    if (strcmp(json_string_value(json_object_get(p, "$ref")) ? json_string_value(json_object_get(p, "$ref")) : "",
                               "#/components/parameters/kind") != 0)
                        json_array_append(kept, p);
                json_object_set_new(twin, "parameters", kept);
            } else if (strcmp(method, "summary") == 0) {
                char s[300];
                snprintf(s, sizeof s, "%s, of the graph in g", json_string_value(op));
                json_object_set_new(twin, "summary", json_string(s));
            } else {
                json_object_set_new(twin, method, graph_operation(op, "Graph"));
            }
        }
        json_object_set_new(twins, gpath, twin);
    }
    json_object_update(paths, twins);
    json_decref(twins);
    json_t *posted_ok = json_pack("{s:s,s:{s:{s:{s:s}}}}", "description",
                                  "The graph's canonical text and JSON, its node count and depth, "
                                  "and absolute URL templates of its tiles, TileJSON, point and grid",
                                  "content", "application/json", "schema", "$ref",
                                  "#/components/schemas/GraphPosted");
    json_t *list_ok = json_pack("{s:s,s:{s:{s:{s:s}}}}", "description", "The list", "content",
                                "application/json", "schema", "$ref",
                                "#/components/schemas/GraphList");
    json_t *get = json_pack("{s:s,s:s,s:{s:o,s:{s:s}}}", "operationId", "getGraphs", "summary",
                            "The named graphs: the presets built in and those --graphs FILE loaded",
                            "responses", "200", list_ok, "405", "$ref",
                            "#/components/responses/MethodNotAllowed");
    json_t *seed = json_pack("{s:s,s:s,s:b,s:s,s:{s:s,s:i,s:I,s:i}}", "name", "seed", "in",
                             "query", "required", 0, "description",
                             "the seed of the URLs written (default 0)", "schema", "type",
                             "integer", "minimum", 0, "maximum", (json_int_t)4294967295LL,
                             "default", 0);
    json_t *body = json_pack("{s:b,s:{s:{s:{s:s}}}}", "required", 1, "content", "application/json",
                             "schema", "$ref", "#/components/schemas/Graph");
    json_t *post_responses = json_pack(
        "{s:o,s:{s:s},s:{s:s},s:{s:s}}", "200", posted_ok, "400", "$ref",
        "#/components/responses/BadRequest", "405", "$ref", "#/components/responses/MethodNotAllowed",
        "413", "$ref", "#/components/responses/TooLarge");
    json_t *post = json_pack("{s:s,s:s,s:[o],s:o,s:o}", "operationId", "postGraph", "summary",
                             "A graph's canonical form and URL templates (400 naming the node by "
                             "JSON pointer when it is bad)",
                             "parameters", seed, "requestBody", body, "responses", post_responses);
    json_t *options = json_pack("{s:s,s:s,s:{s:{s:s}}}", "operationId", "optionsGraphs", "summary",
                                "CORS preflight", "responses", "204", "$ref",
                                "#/components/responses/Preflight");
    json_t *api = json_pack("{s:o,s:o,s:o}", "get", get, "post", post, "options", options);
    if (api == NULL || json_object_set_new(paths, "/api/graphs", api) != 0)
        return -1;
    json_t *gparam = json_pack(
        "{s:s,s:s,s:b,s:s,s:{s:s,s:i,s:s}}", "name", "g", "in", "query", "required", 1,
        "description",
        "The graph in its canonical text (POST its JSON to /api/graphs for it); other spellings "
        "are 400 quoting the canonical form. A graph that is one source node with seed offset 0 "
        "answers exactly as its kind's URL. Named graphs are served at /{name}/{seed}/... the "
        "same way, without g (GET /api/graphs lists them).",
        "schema", "type", "string", "maxLength", NOISE_GRAPH_MAX_TEXT, "pattern",
        "^[A-Za-z0-9(),:$._-]+$");
    return json_object_set_new(json_object_get(json_object_get(doc, "components"), "parameters"),
                               "g", gparam);
}

json_t *openapi_document(void)
{
    /* ' -> ", and the numeric limits spliced in as text. */
    size_t cap = sizeof template_text + 256;
    char *text = malloc(cap);
    if (text == NULL)
        return NULL;
    size_t n = 0;
    for (const char *p = template_text; *p != '\0';) {
        const char *num = NULL;
        char val[32];
        if (strncmp(p, "@MAX_POINTS@", 12) == 0) {
            snprintf(val, sizeof val, "%d", LIMIT_MAX_POINTS);
            num = val;
            p += 12;
        } else if (strncmp(p, "@MAX_BODY@", 10) == 0) {
            snprintf(val, sizeof val, "%d", LIMIT_BODY_BYTES);
            num = val;
            p += 10;
        } else if (strncmp(p, "@MAX_SAMPLES@", 13) == 0) {
            snprintf(val, sizeof val, "%lld", QUERY_WINDOW_MAX_SAMPLES);
            num = val;
            p += 13;
        }
        if (num != NULL) {
            size_t l = strlen(num);
            if (n + l + 1 >= cap)
                break;
            memcpy(text + n, num, l);
            n += l;
            continue;
        }
        if (n + 2 >= cap)
            break;
        text[n++] = *p == '\'' ? '"' : *p;
        p++;
    }
    text[n] = '\0';
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    free(text);
    if (doc == NULL) {
        fprintf(stderr, "openapi template: %s at column %d\n", jerr.text, jerr.column);
        return NULL;
    }
    if (fill(doc) != 0 || add_too_costly(doc) != 0 || add_graph_paths(doc) != 0 ||
        add_graph_schemas(json_object_get(json_object_get(doc, "components"), "schemas")) != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}
