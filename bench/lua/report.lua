-- Appended to every scenario's script: prints wrk's figures as one JSON line (prefixed "BENCH "), which bench/run
-- reads. Statuses are counted only by scripts that define `counted` (a response callback slows wrk down).

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function done(summary, latency, requests)
   local statuses = {}
   for _, thread in ipairs(threads) do
      local counts = thread:get("counts")
      if counts then
         for status, n in pairs(counts) do
            statuses[status] = (statuses[status] or 0) + n
         end
      end
   end
   local parts = {}
   for status, n in pairs(statuses) do
      table.insert(parts, string.format('"%s": %d', status, n))
   end
   local errors = summary.errors
   io.write(string.format(
      'BENCH {"requests": %d, "duration_us": %d, "bytes": %d, "p50_us": %d, "p99_us": %d, "non_2xx_3xx": %d, ' ..
      '"socket_errors": %d, "statuses": {%s}}\n',
      summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99),
      errors.status, errors.connect + errors.read + errors.write + errors.timeout, table.concat(parts, ", ")))
end
