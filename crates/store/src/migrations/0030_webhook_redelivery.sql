-- A delivery retried by hand (`POST …/deliveries/{id}/retry`, the console's "redeliver") is sent once even when its
-- endpoint has been disabled since: the integrator asked for that one attempt, to see the fixed receiver take it. The
-- claim that sends it clears the mark, so an automatic retry after it follows the endpoint's state again.
ALTER TABLE webhook_deliveries ADD COLUMN redelivery BOOLEAN NOT NULL DEFAULT FALSE;
