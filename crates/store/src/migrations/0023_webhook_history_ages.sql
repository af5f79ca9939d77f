-- Housekeeping also purges webhook deliveries settled (succeeded, failed or abandoned) past their retention, and
-- attempts as old: each through an index on its age, as migration 16's purges do. Without them both tables kept
-- every delivery's body and every attempt for as long as their endpoint lived.
CREATE INDEX webhook_deliveries_settled ON webhook_deliveries (updated_at)
    WHERE status IN ('succeeded', 'failed', 'abandoned');
CREATE INDEX webhook_attempts_age ON webhook_attempts (attempted_at);
