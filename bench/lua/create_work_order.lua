-- POSTs a new work order on every request: the body in the file named by BENCH_BODY, with @EXTERNAL_ID@ replaced
-- by an id unique to this run, phase (warm-up or measure), thread and request, so no create is refused as a
-- duplicate.

local file = assert(io.open(os.getenv("BENCH_BODY"), "r"))
local template = file:read("*a")
file:close()
local before, after = template:match("^(.-)@EXTERNAL_ID@(.*)$")
assert(before, "the body has no @EXTERNAL_ID@")
local run = (os.getenv("BENCH_RUN") or tostring(os.time())) .. "-" .. (os.getenv("BENCH_PHASE") or "")
local counter = 0
local threads_numbered = 0

-- `setup` runs in the main state once per thread: it hands each thread its number as the global `thread_number`.
local report_setup = setup
function setup(thread)
   threads_numbered = threads_numbered + 1
   thread:set("thread_number", threads_numbered)
   report_setup(thread)
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

function request()
   counter = counter + 1
   local body = before .. string.format("BENCH-%s-%d-%d", run, thread_number or 0, counter) .. after
   return wrk.format(nil, nil, nil, body)
end
