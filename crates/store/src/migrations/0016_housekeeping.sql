-- Housekeeping (store/src/housekeeping.rs) purges, oldest first and a bounded batch at a time, what outlives its
-- use: each purge finds its rows through one of these indexes instead of reading its whole table.
CREATE INDEX auth_tokens_expiry ON auth_tokens (expires_at);
CREATE INDEX login_failures_age ON login_failures (failed_at);
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
