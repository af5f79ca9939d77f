-- A claimed idempotency key holds a lease, renewed while its request runs, so that a request that ended without an
-- answer (its client gone, its time-out, its process killed) frees the key within seconds instead of 24 hours.
-- claim_id names the request that holds the key: only it may renew, answer or release it. committed_at is set in the
-- same transaction as the request's write, so a key whose write committed is never run again, even when its answer
-- was never recorded.
ALTER TABLE idempotency_keys ADD COLUMN claim_id BIGINT;
ALTER TABLE idempotency_keys ADD COLUMN lease_until BIGINT;
ALTER TABLE idempotency_keys ADD COLUMN committed_at BIGINT;
-- Keys still unanswered were held by a process that has stopped: free them.
UPDATE idempotency_keys SET lease_until = 0 WHERE status IS NULL;
