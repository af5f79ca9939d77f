-- Asks for a different page of the list each request (pages 1 to BENCH_PAGES, 2,000 unless set), so that no answer
-- the server keeps is ever asked for again before it is forgotten: what a page costs when it must be read.
local pages = tonumber(os.getenv("BENCH_PAGES") or "2000")
local page = 0
local separator = wrk.path:find("?", 1, true) and "&" or "?"

request = function()
   page = page % pages + 1
   return wrk.format("GET", wrk.path .. separator .. "page=" .. page)
end
