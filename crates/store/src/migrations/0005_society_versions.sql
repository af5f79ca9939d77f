-- A society's data version (the sum of its change counters), which every request's token check reads, kept per
-- society as well as per table.
--
-- On PostgreSQL a society has a `table_versions` row per table and slot, often updated, so the sum read some 160
-- rows over about 40 heap pages on every request: most of the database's work for a list answered from memory.
-- `society_versions` holds the same counts in at most one row per slot, bumped by the same trigger function in the
-- same slot, so concurrent writers still rarely wait on each other. SQLite has one slot, a few dozen rows a society
-- and no heap, and keeps summing `table_versions`.
{postgres_society_versions}
