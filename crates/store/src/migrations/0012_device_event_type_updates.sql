-- On PostgreSQL no device event type could be updated (turned off by an operator, or corrected by a release of the
-- reference data): the statement trigger of migration 7 that keeps devices and event types while readings name them
-- tested both tables in one IF expression, and PL/pgSQL plans a whole expression against the transition table of the
-- table at hand, which for device_event_types has no society_id. The check now tests each table in its own branch,
-- so only that table's query is planned. (Numbered 12: migration 11 is the master-data import's.)
{postgres_device_event_referenced_by_table}
