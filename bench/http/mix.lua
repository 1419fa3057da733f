-- mix.lua: wrk script for the load test (make loadtest): a mix of cached
-- tiles, new tiles (unique coordinates, so each one misses the cache and is
-- rendered), single points and POST batches of points. Counts every
-- response by status in response() and reports them in done(), with the
-- latency percentiles, as "loadtest:" lines the driver script parses.
--
-- Argument (wrk ... -- FILE): the cached tile paths, one a line (the driver
-- fetched each once before the run).
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
  if example ~= "" then io.write("loadtest: first bad response: " .. example .. "\n") end
end
