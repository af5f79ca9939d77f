-- A line's position is unique within its order: every write removes an order's lines and stores the new ones at
-- consecutive positions. Saying so in the index lets a read of an order's lines come straight out of it in order.
-- Lines were ordered by position and then id, and the id, a tie that never happens, made PostgreSQL sort each order's
-- lines again: without it, the supplies of 500 orders were read at 148-184 statements a second instead of 129-152
-- (docs/performance.md, "A work order's lines without a sort").
DROP INDEX work_order_supplies_order;
CREATE UNIQUE INDEX work_order_supplies_order ON work_order_supplies (society_id, work_order_id, position);
DROP INDEX work_order_labours_order;
CREATE UNIQUE INDEX work_order_labours_order ON work_order_labours (society_id, work_order_id, position);
