-- mix.lua: wrk script for the load test (make loadtest): a mix of cached
-- tiles, new tiles (unique coordinates, so each one misses the cache and is
-- rendered), single points and POST batches of points. Counts every
-- response by status in response() and reports them in done(), with the
-- latency percentiles, as "loadtest:" lines the driver script parses.
--
-- Arguments (wrk ... -- FILE CONNS): the cached tile paths, one a line (the
-- driver fetched each once before the run), and wrk's -c (for the latency
-- figures below).
--
-- Two sets of latency figures. wrk 4.1 "corrects" its histogram for
-- coordinated omission before its report and before done() sees it: with
-- E = run time / (requests per connection), every request that took L >= 2E
-- adds made-up samples of L - E, L - 2E, ... down to just above E
-- (stats_correct in wrk's stats.c), as if each connection had been meant to
-- send one request every E. In this closed-loop mix three requests in ten
-- wait for the render pool for several E each, so the made-up samples
-- outnumber the real requests above E and wrk's p50 lands near E (here 256
-- connections / requests per second) whatever the cached requests take. The
-- "as measured" figures undo the correction: it adds to the count at each
-- m > E the counts measured at m + E, m + 2E, ..., so the count measured at
-- m is H[m] - H[m + E] (H the corrected histogram; m <= E is untouched).
-- They are read from wrk's stats through LuaJIT's FFI (wrk 4.1's struct),
-- checked against its min, max and totals, and reported as unavailable if
-- anything does not match.
local cached = {}
local counter = 0
local thread_no = 0
status_ok, status_304, status_bad, bad_example = 0, 0, 0, ""
kinds = { cached = 0, new = 0, point = 0, batch = 0 }

local threads = {}

function setup(thread)
  thread:set("thread_no", #threads + 1)
  threads[#threads + 1] = thread
end

function init(args)
  conns = tonumber(args[2] or "0")
  for line in io.lines(args[1]) do
    if #line > 0 then cached[#cached + 1] = line end
  end
  thread_no = thread_no or 0
  math.randomseed(1234 + thread_no)
end

local function batch_body(n)
  local parts = {}
  for i = 1, n do
    parts[i] = string.format("[%.6f,%.6f]", math.random() * 200 - 100, math.random() * 200 - 100)
  end
  return '{"points":[' .. table.concat(parts, ",") .. "]}"
end

local batch_headers = { ["Content-Type"] = "application/json" }

function request()
  local r = math.random(100)
  if r <= 70 then
    return wrk.format("GET", cached[math.random(#cached)])
  elseif r <= 80 then
    -- a tile nobody asked for before: thread number and a counter in x
    counter = counter + 1
    return wrk.format("GET", string.format("/perlin/7/2/%d/%d.png?octaves=6&palette=terrain", thread_no * 10000000 + counter, counter % 97))
  elseif r <= 92 then
    return wrk.format("GET", string.format("/simplex/3/point?x=%.6f&y=%.6f&octaves=4",
      math.random() * 1000 - 500, math.random() * 1000 - 500))
  else
    return wrk.format("POST", "/perlin/7/points?octaves=3", batch_headers, batch_body(100))
  end
end

function response(status, headers, body)
  if status >= 200 and status < 300 then
    status_ok = status_ok + 1
  elseif status == 304 then
    status_304 = status_304 + 1
  else
    status_bad = status_bad + 1
    if bad_example == "" then bad_example = status .. " " .. string.sub(body or "", 1, 200) end
  end
end

-- wrk's latency histogram as measured (see the top): a table of
-- { p50, p90, p99, max, interval (ms), n }, or nil and the reason.
local function as_measured(summary, latency, n_conns)
  if n_conns == nil or n_conns <= 0 then return nil, "connection count not given" end
  local ok, ffi = pcall(require, "ffi")
  if not ok then return nil, "no LuaJIT FFI" end
  pcall(ffi.cdef, [[
    typedef struct { uint64_t count, limit, min, max; uint64_t data[]; } noisetile_wrk_stats;
  ]])
  local st = ffi.cast("noisetile_wrk_stats **", latency)[0]
  local min, max = tonumber(st.min), tonumber(st.max)
  if min ~= latency.min or max ~= latency.max or max >= tonumber(st.limit) then
    return nil, "wrk's stats are not laid out as expected"
  end
  local per_conn = math.floor(summary.requests / n_conns)
  if per_conn == 0 then return nil, "too few requests" end
  local e = math.floor(summary.duration / per_conn)
  local h = st.data
  local function measured(m)
    local v = tonumber(h[m])
    if m > e and m + e <= max then v = v - tonumber(h[m + e]) end
    return v
  end
  local total, corrected = 0, 0
  for m = min, max do
    local v = measured(m)
    if v < 0 then return nil, "the histogram does not invert" end
    total = total + v
    corrected = corrected + tonumber(h[m])
  end
  -- Every request wrk timed is in the histogram once (beyond --timeout it
  -- counts a timeout instead); the corrected count is what stats hold.
  if total <= 0 or total > summary.requests or corrected ~= tonumber(st.count) then
    return nil, "the histogram does not add up"
  end
  local want = { 50, 90, 99 }
  local out, k, seen = { n = total, max = 0, interval = e / 1000 }, 1, 0
  for m = min, max do
    local v = measured(m)
    if v > 0 then
      seen = seen + v
      out.max = m / 1000
      while k <= #want and seen >= math.floor(want[k] / 100 * total + 0.5) do
        out["p" .. want[k]] = m / 1000
        k = k + 1
      end
    end
  end
  return out
end

function done(summary, latency, requests)
  local ok, n304, bad, example = 0, 0, 0, ""
  for _, t in ipairs(threads) do
    ok = ok + t:get("status_ok")
    n304 = n304 + t:get("status_304")
    bad = bad + t:get("status_bad")
    local e = t:get("bad_example")
    if example == "" and e ~= nil then example = e end
  end
  local e = summary.errors
  io.write(string.format("loadtest: requests %d duration_s %.1f rps %.0f\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6)))
  io.write(string.format("loadtest: status_2xx %d status_304 %d status_other %d\n", ok, n304, bad))
  io.write(string.format("loadtest: socket_errors connect %d read %d write %d timeout %d\n",
    e.connect, e.read, e.write, e.timeout))
  io.write(string.format("loadtest: latency_ms p50 %.2f p90 %.2f p99 %.2f max %.2f\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000))
  local m, why = as_measured(summary, latency, threads[1] and threads[1]:get("conns"))
  if m then
    io.write(string.format("loadtest: measured_ms p50 %.2f p90 %.2f p99 %.2f max %.2f n %d interval %.2f\n",
      m.p50, m.p90, m.p99, m.max, m.n, m.interval))
  else
    io.write("loadtest: measured_ms unavailable (" .. why .. ")\n")
  end
  if example ~= "" then io.write("loadtest: first bad response: " .. example .. "\n") end
end
