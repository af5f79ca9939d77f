-- What one work-order create writes on PostgreSQL (an order, 5 supplies, 5 labours and their 15 links), as one
-- statement, for pgbench: the database's own ceiling for creates, without lookups, answers or HTTP. Ids are the large
-- society's (see target/bench/work_order.json). bench/run's "PostgreSQL alone" rows run it against the benchmark's
-- copy, PostgreSQL on core 0. Each order's external id is a fresh UUID: the variants run one after another on the
-- same copy, and random numbers drawn per client collided with an earlier variant's orders (a run aborted so).
-- Run as:
--   taskset -c 1 pgbench -h 127.0.0.1 -p PORT -U postgres -n -c 16 -j 1 -T 10 -M prepared -f bench/pgbench_create.sql bench_run
WITH o AS (
  INSERT INTO work_orders (society_id, external_id, system_id, name, date, voucher_date, voucher_type_id, pending, executed, confirmed, created_at, updated_at)
  VALUES (1, 'PGB-' || gen_random_uuid(), 'third_party', 'pgbench create', 0, 0, 1, true, false, false, 0, 0) RETURNING id),
s AS (
  INSERT INTO work_order_supplies (society_id, work_order_id, position, campaign_id, formulated_id, area_applied, total_applied, date, pending, executed, confirmed, created_at, updated_at)
  SELECT 1, o.id, g, 34161, 1, 40, 80, 0, true, false, false, 0, 0 FROM o, generate_series(0, 4) g),
l AS (
  INSERT INTO work_order_labours (society_id, work_order_id, position, campaign_id, labour_type_id, area_applied, date, pending, executed, confirmed, created_at, updated_at)
  SELECT 1, o.id, g, 34161, 1, 40, 0, true, false, false, 0, 0 FROM o, generate_series(0, 4) g RETURNING id),
c AS (INSERT INTO work_order_labour_contractors (society_id, labour_id, contractor_id) SELECT 1, l.id, 1 FROM l),
m AS (INSERT INTO work_order_labour_machines (society_id, labour_id, machine_id) SELECT 1, l.id, 1 FROM l)
INSERT INTO work_order_labour_applicators (society_id, labour_id, applicator_id) SELECT 1, l.id, 1 FROM l;
