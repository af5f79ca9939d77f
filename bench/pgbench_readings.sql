-- What a batch of 1,000 device readings writes on PostgreSQL without its events, for pgbench: bench/run's "PostgreSQL
-- alone: a batch's 1,000 readings" rows, the other side of bench/pgbench_readings_events.sql. The readings, and the
-- change counters the batch's commit bumps (the readings' table's and the society's, in the slot the connection
-- picks), as the API's batch writes them. Each reading's event payload is rendered but not stored, so the two scripts
-- differ only by storing the events. Devices are the large society's; readings go round them. The payload's colons are
-- written `\x3a`, as pgbench would take `:true` for a variable.
BEGIN;
WITH x AS (SELECT pg_backend_pid() % 16 AS slot),
t AS (INSERT INTO table_versions (society_id, table_name, slot, version) SELECT 1, 'device_events', x.slot, 1 FROM x
  ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = table_versions.version + 1),
v AS (INSERT INTO society_versions (society_id, slot, version) SELECT 1, x.slot, 1 FROM x
  ON CONFLICT (society_id, slot) DO UPDATE SET version = society_versions.version + 1),
d AS (SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS i FROM devices WHERE society_id = 1 AND deleted_at IS NULL),
r AS (
  INSERT INTO device_events (society_id, device_id, device_event_type_id, recorded_at, value, active, created_at, updated_at)
  SELECT 1, d.id, 1 + g % 5, 1764000000000 + g * 60000, g * 0.5, TRUE, 1764400000000, 1764400000000
  FROM generate_series(1, 1000) g JOIN d ON d.i = g % (SELECT count(*) FROM d) RETURNING *)
SELECT sum(length(format(E'{"id"\x3a%s,"device_id"\x3a%s,"device_event_type_id"\x3a%s,"recorded_at"\x3a"2025-11-24T10\x3a%s\x3a00.000-03\x3a00","value"\x3a%s,"active"\x3atrue,"created_at"\x3a"2025-11-29T00\x3a00\x3a00.000-03\x3a00","updated_at"\x3a"2025-11-29T00\x3a00\x3a00.000-03\x3a00","deleted_at"\x3anull}',
  id, device_id, device_event_type_id, lpad((recorded_at / 60000 % 60)::text, 2, '0'), value))) FROM r;
COMMIT;
