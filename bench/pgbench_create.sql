-- What one work-order create writes on PostgreSQL, as the API's create writes it in one statement, for pgbench: the
-- database's own ceiling for creates, without lookups, answers or HTTP. The order, 5 supplies, 5 labours and their 15
-- links; the change counters of the six work-order tables and of the society, in the slot the connection picks;
-- and the order's `created` event, its position the next of the society's feed and its payload the order as the API
-- renders it (about 3,000 bytes; the lines' ids in it are fixed, the order's are its own). Ids are the large society's (see
-- target/bench/work_order.json). bench/run's "PostgreSQL alone" rows run it against the benchmark's copy, PostgreSQL on
-- core 0. Each order's external id is a fresh UUID: the variants run one after another on the same copy, and random
-- numbers drawn per client collided with an earlier variant's orders (a run aborted so). The payload's colons are
-- written `\x3a`, as pgbench would take `:true` for a variable.
-- Run as:
--   taskset -c 1 pgbench -h 127.0.0.1 -p PORT -U postgres -n -c 16 -j 1 -T 10 -M prepared -f bench/pgbench_create.sql bench_run
WITH x AS (SELECT pg_backend_pid() % 16 AS slot),
f AS (INSERT INTO society_feeds (society_id, head, pruned_position, pruned_id) VALUES (1, 1, 0, 0)
  ON CONFLICT (society_id) DO UPDATE SET head = society_feeds.head + EXCLUDED.head RETURNING head),
o AS (
  INSERT INTO work_orders (society_id, external_id, system_id, name, date, voucher_date, voucher_type_id, pending, executed, confirmed, created_at, updated_at)
  VALUES (1, 'PGB-' || gen_random_uuid(), 'third_party', 'pgbench create', 0, 0, 1, true, false, false, 0, 0) RETURNING id, external_id),
s AS (
  INSERT INTO work_order_supplies (society_id, work_order_id, position, campaign_id, formulated_id, area_applied, total_applied, date, pending, executed, confirmed, created_at, updated_at)
  SELECT 1, o.id, g, 34161, 1, 40, 80, 0, true, false, false, 0, 0 FROM o, generate_series(0, 4) g),
l AS (
  INSERT INTO work_order_labours (society_id, work_order_id, position, campaign_id, labour_type_id, area_applied, date, pending, executed, confirmed, created_at, updated_at)
  SELECT 1, o.id, g, 34161, 1, 40, 0, true, false, false, 0, 0 FROM o, generate_series(0, 4) g RETURNING id),
c AS (INSERT INTO work_order_labour_contractors (society_id, labour_id, contractor_id) SELECT 1, l.id, 1 FROM l),
m AS (INSERT INTO work_order_labour_machines (society_id, labour_id, machine_id) SELECT 1, l.id, 1 FROM l),
a AS (INSERT INTO work_order_labour_applicators (society_id, labour_id, applicator_id) SELECT 1, l.id, 1 FROM l),
t AS (
  INSERT INTO table_versions (society_id, table_name, slot, version)
  SELECT 1, n, x.slot, 1 FROM x, unnest(ARRAY['work_orders', 'work_order_supplies', 'work_order_labours',
    'work_order_labour_contractors', 'work_order_labour_machines', 'work_order_labour_applicators']) n
  ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = table_versions.version + 1),
v AS (
  INSERT INTO society_versions (society_id, slot, version) SELECT 1, x.slot, 1 FROM x
  ON CONFLICT (society_id, slot) DO UPDATE SET version = society_versions.version + 1)
INSERT INTO events (society_id, position, resource, resource_id, action, occurred_at, payload)
SELECT 1, f.head, 'work_order', o.id, 'created', 1764400000000,
  format(E'{"header"\x3a{"local_id"\x3a%s,"external_id"\x3a"%s","system_id"\x3a"third_party","name"\x3a"pgbench create","date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","voucher_date"\x3a"2026-03-01T00\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse},"extra_fields"\x3a{"company"\x3a{"local_id"\x3a1},"voucher_type"\x3a{"local_id"\x3a1}},"is_read_only"\x3afalse,"active"\x3atrue,"created_at"\x3a"2026-11-29T07\x3a42\x3a27-03\x3a00","updated_at"\x3a"2026-11-29T07\x3a42\x3a27-03\x3a00","deleted_at"\x3anull},"supplies"\x3a[{"local_id"\x3a24027,"cultivation"\x3a{"local_id"\x3a34161},"formulated"\x3a{"local_id"\x3a1},"area_applied"\x3a40.0,"total_applied"\x3a80.0,"date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse}},{"local_id"\x3a24028,"cultivation"\x3a{"local_id"\x3a34161},"formulated"\x3a{"local_id"\x3a1},"area_applied"\x3a40.0,"total_applied"\x3a80.0,"date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse}},{"local_id"\x3a24029,"cultivation"\x3a{"local_id"\x3a34161},"formulated"\x3a{"local_id"\x3a1},"area_applied"\x3a40.0,"total_applied"\x3a80.0,"date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse}},{"local_id"\x3a24030,"cultivation"\x3a{"local_id"\x3a34161},"formulated"\x3a{"local_id"\x3a1},"area_applied"\x3a40.0,"total_applied"\x3a80.0,"date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse}},{"local_id"\x3a24031,"cultivation"\x3a{"local_id"\x3a34161},"formulated"\x3a{"local_id"\x3a1},"area_applied"\x3a40.0,"total_applied"\x3a80.0,"date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse}}],"labours"\x3a[{"local_id"\x3a24678,"cultivation"\x3a{"local_id"\x3a34161},"labour_type"\x3a{"local_id"\x3a1},"area_applied"\x3a40.0,"contractors"\x3a[{"local_id"\x3a1}],"machines"\x3a[{"local_id"\x3a1}],"applicators"\x3a[{"local_id"\x3a1}],"date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse}},{"local_id"\x3a24679,"cultivation"\x3a{"local_id"\x3a34161},"labour_type"\x3a{"local_id"\x3a1},"area_applied"\x3a40.0,"contractors"\x3a[{"local_id"\x3a1}],"machines"\x3a[{"local_id"\x3a1}],"applicators"\x3a[{"local_id"\x3a1}],"date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse}},{"local_id"\x3a24680,"cultivation"\x3a{"local_id"\x3a34161},"labour_type"\x3a{"local_id"\x3a1},"area_applied"\x3a40.0,"contractors"\x3a[{"local_id"\x3a1}],"machines"\x3a[{"local_id"\x3a1}],"applicators"\x3a[{"local_id"\x3a1}],"date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse}},{"local_id"\x3a24681,"cultivation"\x3a{"local_id"\x3a34161},"labour_type"\x3a{"local_id"\x3a1},"area_applied"\x3a40.0,"contractors"\x3a[{"local_id"\x3a1}],"machines"\x3a[{"local_id"\x3a1}],"applicators"\x3a[{"local_id"\x3a1}],"date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse}},{"local_id"\x3a24682,"cultivation"\x3a{"local_id"\x3a34161},"labour_type"\x3a{"local_id"\x3a1},"area_applied"\x3a40.0,"contractors"\x3a[{"local_id"\x3a1}],"machines"\x3a[{"local_id"\x3a1}],"applicators"\x3a[{"local_id"\x3a1}],"date"\x3a"2026-03-02T08\x3a00\x3a00-03\x3a00","state"\x3a{"pending"\x3atrue,"executed"\x3afalse,"confirmed"\x3afalse}}]}',
    o.id, o.external_id)
FROM f, o;
