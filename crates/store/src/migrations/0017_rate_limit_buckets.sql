-- The rate limits' buckets that every server process shares (store/src/rate_limits.rs): for each limit and key,
-- when the bucket is full again (GCRA's theoretical arrival time, epoch microseconds). A bucket past that moment is
-- the same as none; housekeeping deletes those through the index.
CREATE TABLE rate_limit_buckets (
    limit_name TEXT NOT NULL,
    limit_key TEXT NOT NULL,
    tat_us BIGINT NOT NULL,
    PRIMARY KEY (limit_name, limit_key)
);
CREATE INDEX rate_limit_buckets_spent ON rate_limit_buckets (tat_us);
