-- Idempotency keys: the first answer to a POST carrying `Idempotency-Key`, replayed to retries for 24 hours.
-- request_hash binds the key to the method, path and body it was first used with. A row whose status is NULL is
-- a request still being answered.
CREATE TABLE idempotency_keys (
    society_id BIGINT NOT NULL REFERENCES societies (id),
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status BIGINT,
    content_type TEXT,
    location TEXT,
    body TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (society_id, idempotency_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
