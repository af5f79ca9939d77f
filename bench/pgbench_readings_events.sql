-- What a batch of 1,000 device readings writes on PostgreSQL with its 1,000 events, for pgbench: bench/run's
-- "PostgreSQL alone: a batch's 1,000 readings with their events" rows. As bench/pgbench_readings.sql (the readings and
-- their change counters), and each reading's event stored whole, as the API's batch stores it (its position the
-- next of its society's feed, its payload about 230 bytes).
BEGIN;
WITH x AS (SELECT pg_backend_pid() % 16 AS slot),
f AS (INSERT INTO society_feeds (society_id, head, pruned_position, pruned_id) VALUES (1, 1000, 0, 0)
  ON CONFLICT (society_id) DO UPDATE SET head = society_feeds.head + EXCLUDED.head RETURNING head),
t AS (INSERT INTO table_versions (society_id, table_name, slot, version) SELECT 1, 'device_events', x.slot, 1 FROM x
  ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = table_versions.version + 1),
v AS (INSERT INTO society_versions (society_id, slot, version) SELECT 1, x.slot, 1 FROM x
  ON CONFLICT (society_id, slot) DO UPDATE SET version = society_versions.version + 1),
d AS (SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS i FROM devices WHERE society_id = 1 AND deleted_at IS NULL),
r AS (
  INSERT INTO device_events (society_id, device_id, device_event_type_id, recorded_at, value, active, created_at, updated_at)
  SELECT 1, d.id, 1 + g % 5, 1764000000000 + g * 60000, g * 0.5, TRUE, 1764400000000, 1764400000000
  FROM generate_series(1, 1000) g JOIN d ON d.i = g % (SELECT count(*) FROM d) RETURNING *)
INSERT INTO events (society_id, position, resource, resource_id, action, occurred_at, payload)
SELECT 1, f.head - 1000 + row_number() OVER (ORDER BY r.id), 'device_event', r.id, 'created', 1764400000000,
  format(E'{"id"\x3a%s,"device_id"\x3a%s,"device_event_type_id"\x3a%s,"recorded_at"\x3a"2025-11-24T10\x3a%s\x3a00.000-03\x3a00","value"\x3a%s,"active"\x3atrue,"created_at"\x3a"2025-11-29T00\x3a00\x3a00.000-03\x3a00","updated_at"\x3a"2025-11-29T00\x3a00\x3a00.000-03\x3a00","deleted_at"\x3anull}',
    r.id, r.device_id, r.device_event_type_id, lpad((r.recorded_at / 60000 % 60)::text, 2, '0'), r.value)
FROM f, r ORDER BY r.id;
COMMIT;
