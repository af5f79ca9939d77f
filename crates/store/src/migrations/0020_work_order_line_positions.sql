-- A line's position is unique within its order: every write stores an order's lines at positions 0, 1, 2, ... after
-- removing the ones before. Saying so in the index lets a read of an order's lines come straight out of it in order.
-- Lines were ordered by position and then id, and the id, a tie that never happens, made PostgreSQL sort each order's
-- lines again: a sync's page of 500 orders took half as long to read without it (docs/performance.md, "positions").
DROP INDEX work_order_supplies_order;
CREATE UNIQUE INDEX work_order_supplies_order ON work_order_supplies (society_id, work_order_id, position);
DROP INDEX work_order_labours_order;
CREATE UNIQUE INDEX work_order_labours_order ON work_order_labours (society_id, work_order_id, position);
