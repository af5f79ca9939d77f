-- Reads a different page of the change feed each request: the `after` values in the file named by BENCH_CURSORS,
-- one a line (an empty line is the feed's beginning), taken in turn, 1,000 events a page.

local starts = {}
for line in io.lines(os.getenv("BENCH_CURSORS")) do
   starts[#starts + 1] = line
end
assert(#starts > 0, "no feed pages to read")
local next_start = 0

local function encode(text)
   return (text:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

request = function()
   next_start = next_start % #starts + 1
   local after = starts[next_start]
   local query = "?size=1000"
   if after ~= "" then query = query .. "&after=" .. encode(after) end
   return wrk.format("GET", wrk.path .. query)
end
