-- On PostgreSQL, events' payloads are compressed with lz4 instead of pglz, the default. A work order's payload is
-- about 3 KB, which PostgreSQL compresses as it stores it: with lz4, work-order creates per second of CPU (the
-- server's and PostgreSQL's) were 7-11 % higher (docs/performance.md, "lz4"). Payloads stored before keep their
-- pglz; PostgreSQL reads both. A server without lz4 (before 14, or built without it) keeps pglz. SQLite does not
-- compress: nothing to do there.
{postgres_events_payload_lz4}
