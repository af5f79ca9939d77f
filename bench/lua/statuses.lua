-- Counts the status of every response (used where 304s and 200s must be told apart).

counts = {}

function response(status, headers, body)
   counts[status] = (counts[status] or 0) + 1
end
