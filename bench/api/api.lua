-- wrk script for bench/api/run.sh. Arguments after "--": MODE [PREFIX] [THREADS QUOTA].
--   create PREFIX        POST a job with a unique id (PREFIX_<thread>_<n>) per request
--   preload PREFIX QUOTA like create; each wrk thread stops once QUOTA of its creates were
--                        answered 200. wrk calls request() once on thread 0 before the run to
--                        check the script, so id PREFIX_0_1 is never sent, and the creates in
--                        flight at the stop add a few ids past QUOTA: PREFIX_<t>_2..QUOTA exist.
--   get PREFIX THREADS QUOTA   GET a random preloaded job (PREFIX_<0..THREADS-1>_<2..QUOTA>)
--   list [QUERY]         GET the first page of 100 jobs (QUERY: more of the query, "&filter=…")
--   healthz              GET /healthz
-- done() prints one "BENCH key=value ..." line that run.sh reads; "ok" counts 200 answers
-- (counted only in create/preload modes, where response() is kept).

local threads = {}

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

local project = "/v1/projects/p/jobs"
local json_headers = { ["Content-Type"] = "application/json" }
-- The seed's GPU example as gcloud sends it (reference §1.4): validation has work to do.
local body_format = '{"jobId":"%s","labels":{"bench":"api"},"trainingInput":{'
  .. '"args":["--epochs=2"],"enableWebAccess":false,'
  .. '"masterConfig":{"acceleratorConfig":{"count":"4","type":"NVIDIA_TESLA_T4"}},'
  .. '"masterType":"n1-highcpu-16","packageUris":["gs://bkt1/trainer-0.1.tar.gz"],'
  .. '"parameterServerCount":"3","parameterServerType":"n1-highmem-8",'
  .. '"pythonModule":"trainer.task","pythonVersion":"3.7","region":"us-central1",'
  .. '"runtimeVersion":"2.11","scaleTier":"CUSTOM",'
  .. '"workerConfig":{"acceleratorConfig":{"count":"4","type":"NVIDIA_TESLA_T4"}},'
  .. '"workerCount":"9","workerType":"n1-highcpu-16"}}'

function init(args)
  mode = args[1]
  prefix = args[2] or "job"
  n = 0
  ok = 0
  other = 0
  if mode == "preload" then
    quota = tonumber(args[3])
  elseif mode == "get" then
    get_threads = tonumber(args[3])
    get_quota = tonumber(args[4])
    math.randomseed(tid * 7919 + os.time())
  elseif mode == "list" then
    list_request = wrk.format("GET", project .. "?pageSize=100" .. (args[2] or ""))
  elseif mode == "healthz" then
    healthz_request = wrk.format("GET", "/healthz")
  elseif mode ~= "create" then
    error("unknown mode " .. tostring(mode))
  end
  if mode ~= "create" and mode ~= "preload" then
    response = nil -- wrk then skips parsing headers and bodies
  end
end

local function create_request()
  n = n + 1
  local id = string.format("%s_%d_%d", prefix, tid, n)
  return wrk.format("POST", project, json_headers, string.format(body_format, id))
end

function request()
  if mode == "get" then
    local id = string.format("%s_%d_%d", prefix, math.random(0, get_threads - 1),
      math.random(2, get_quota))
    return wrk.format("GET", project .. "/" .. id)
  elseif mode == "list" then
    return list_request
  elseif mode == "healthz" then
    return healthz_request
  end
  return create_request()
end

function response(status, headers, body)
  if status == 200 then
    ok = ok + 1
  else
    other = other + 1
  end
  if mode == "preload" and ok >= quota then
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local ok_total, other_total = 0, 0
  for _, thread in ipairs(threads) do
    ok_total = ok_total + (thread:get("ok") or 0)
    other_total = other_total + (thread:get("other") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d "
      .. "status_errors=%d socket_errors=%d ok=%d other=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, e.status, e.connect + e.read + e.write + e.timeout,
    ok_total, other_total))
end
