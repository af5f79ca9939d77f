-- A society's live work orders have distinct external ids, and the database holds them to it.
--
-- A write looked for another live order with the external id before writing. On PostgreSQL two creates with one
-- external id at once could both look, both find none, and both be stored. With a unique index the second waits for
-- the first to commit and is then refused, and the write answers that refusal as it answers its lookup (409 naming
-- the other order). SQLite has one writer at a time and could not store such a pair, but keeps the same schema. The
-- lookup reads live orders only, which the new index holds, so it replaces the plain one.
--
-- A PostgreSQL database that already holds such a pair stops this migration with "could not create unique index …
-- Key (society_id, external_id)=(…) is duplicated": mark all but one of those orders deleted (set `deleted_at`), then
-- start the server again.
CREATE UNIQUE INDEX work_orders_external_live ON work_orders (society_id, external_id) WHERE deleted_at IS NULL;
DROP INDEX work_orders_external;
