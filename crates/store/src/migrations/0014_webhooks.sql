-- Webhook endpoints and their deliveries (issue 17).
--
-- An endpoint is API data: its changes are counted and emit events (its disabling emits
-- `webhook_endpoint.disabled`). What changes at every delivery is kept out of it, in
-- `webhook_progress` (how far its fan-out has read the feed, since when it fails) and the deliveries' tables, so
-- that delivering neither changes the society's data version nor emits events about itself.
--
-- Deliveries name their endpoint without a foreign key: a logical deletion refuses records with live dependants,
-- and deliveries are history, not dependants; a deleted endpoint's pending deliveries are abandoned when claimed.
CREATE TABLE webhook_endpoints (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    url TEXT NOT NULL,
    types TEXT NOT NULL DEFAULT '',
    description TEXT,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expires_at BIGINT,
    state TEXT NOT NULL DEFAULT 'enabled',
    disabled_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key}
);
{track_versions:webhook_endpoints}
{track_events:webhook_endpoints}

CREATE TABLE webhook_progress (
    society_id BIGINT NOT NULL,
    endpoint_id BIGINT NOT NULL,
    feed_cursor TEXT,
    failing_since BIGINT,
    PRIMARY KEY (society_id, endpoint_id)
);

CREATE TABLE webhook_deliveries (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    endpoint_id BIGINT NOT NULL,
    event_id BIGINT NOT NULL,
    event_type TEXT NOT NULL,
    body TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'pending',
    next_attempt_at BIGINT NOT NULL,
    locked_by TEXT,
    locked_until BIGINT,
    last_status_code BIGINT,
    last_latency_ms BIGINT,
    last_response_head TEXT,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    delivered_at BIGINT,
    {tenant_key}
);
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (society_id, endpoint_id, event_id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (locked_until) WHERE status = 'delivering';

CREATE TABLE webhook_attempts (
    {id},
    society_id BIGINT NOT NULL,
    delivery_id BIGINT NOT NULL,
    attempted_at BIGINT NOT NULL,
    status_code BIGINT,
    latency_ms BIGINT NOT NULL,
    response_head TEXT,
    error TEXT,
    {tenant_key}
);
CREATE INDEX webhook_attempts_of_delivery ON webhook_attempts (society_id, delivery_id);
