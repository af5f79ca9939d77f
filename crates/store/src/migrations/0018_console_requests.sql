-- The sandbox console's recent requests (store/src/console.rs): a bounded ring per society, written in batches off
-- the request path by every server process that has the console on, so that an integrator sees its society's
-- requests whichever process served them. Bodies and headers are stored already redacted. Not API data: no list of
-- the API serves it, so its changes are neither counted nor events. Reads and trims go newest first through the
-- tenant key, (society_id, id).
CREATE TABLE console_requests (
    {id},
    society_id BIGINT NOT NULL,
    recorded_at BIGINT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    query TEXT,
    status BIGINT NOT NULL,
    latency_ms BIGINT NOT NULL,
    request_id TEXT,
    error_message TEXT,
    request_headers TEXT NOT NULL,
    request_body TEXT,
    response_body TEXT,
    {tenant_key}
);
