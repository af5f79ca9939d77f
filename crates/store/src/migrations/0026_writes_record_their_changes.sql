-- Changes, events and change counters are written by the store's write transaction (store/src/events/commit.rs), not
-- by triggers. This drops every trigger and trigger function the earlier migrations made, the table that paused them,
-- and the index of events awaiting their payload (every event is written with it). On PostgreSQL the references that
-- statement triggers checked are foreign keys again. Existing events, positions and cursors are untouched.
{drop_triggers}
DROP TABLE events_paused;
DROP INDEX events_pending;
{postgres_foreign_keys}
