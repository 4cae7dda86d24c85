-- wrk script: one request, as a signed-in client sends it (bench/cost-growth.ts, the list points).
--   wrk -t1 -c10 -d4s --latency -s bench/wrk-auth.lua http://127.0.0.1:PORT -- GET /api/collections/records/records?… TOKEN
local req
function init(args)
  local method, path, token = args[1] or "GET", args[2] or "/", args[3] or ""
  req = wrk.format(method, path, { ["Authorization"] = "Bearer " .. token })
end
function request()
  return req
end
