-- On PostgreSQL an event's society is checked once per statement rather than once per row, as device events'
-- references are (migration 7). The foreign key checked each event with a query of its own that locked its society's
-- row, so a batch of 1,000 readings ran 1,000 of them for one society, about a tenth of PostgreSQL's time storing the
-- batch (docs/performance.md). The statement's distinct societies are locked `FOR KEY SHARE` once each; an event
-- moved to another society is checked as it moves; a society that events name refuses to go away, as it did. SQLite's
-- foreign keys cost a lookup a row without locking and stay as they are.
{postgres_event_society_check}
