-- paths.lua: wrk script that rotates over the request paths listed, one a
-- line, in the file named by the first script argument (wrk ... -- FILE).
-- Each thread starts at a different offset so the threads do not move in step.
local paths = {}
local i = 0

function init(args)
  for line in io.lines(args[1]) do
    if #line > 0 then paths[#paths + 1] = line end
  end
  i = (tonumber(wrk.thread:get("id")) or 0) * 7
end

function setup(thread)
  thread_ids = (thread_ids or 0) + 1
  thread:set("id", thread_ids)
end

function request()
  i = i % #paths + 1
  return wrk.format(nil, paths[i])
end
