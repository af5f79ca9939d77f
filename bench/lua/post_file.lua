-- POSTs the body in the file named by BENCH_BODY (e.g. a batch of 1,000 device events) on every request.

local file = assert(io.open(os.getenv("BENCH_BODY"), "r"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"
