-- Claims run per society: a claim finds its society's due deliveries and lapsed leases in the order it takes them,
-- and the sweep that finds the societies with due deliveries reads them, with their society, from an index alone.
CREATE INDEX webhook_deliveries_due_by_society ON webhook_deliveries (society_id, next_attempt_at, id)
    WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased_by_society ON webhook_deliveries (society_id, locked_until)
    WHERE status = 'delivering';
CREATE INDEX webhook_deliveries_due_societies ON webhook_deliveries (next_attempt_at, society_id)
    WHERE status = 'pending';
DROP INDEX webhook_deliveries_due;
DROP INDEX webhook_deliveries_leased;
