-- A society's live campaigns have distinct external codes, and the database holds them to it.
--
-- The campaign import refuses a row whose external code a live campaign of the society has, by looking first. Two
-- imports worked at once by two processes could each look, find none, and both store the code. With this index the
-- second one's chunk is refused; its job is tried again when its lease runs out, and that try's lookup refuses the
-- row as it refuses any other repeated code. The lookup scanned the society's campaigns; the index answers it.
--
-- A database that already holds such a pair stops this migration ("… is duplicated"): mark all but one of those
-- campaigns deleted (set `deleted_at`) or clear their external codes, then start the server again.
CREATE UNIQUE INDEX campaigns_external_live ON campaigns (society_id, external_code) WHERE deleted_at IS NULL;
