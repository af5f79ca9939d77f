-- Device events are checked against their device and event type once per statement rather than once per row.
--
-- On PostgreSQL a foreign key checks each inserted row with a query of its own, so a batch of 1,000 readings ran
-- 3,000 of them (society, device, event type), nearly half of what storing the batch cost. A statement trigger checks
-- the batch's distinct devices and event types in one query each, locking them as a foreign key does, and the
-- devices and event types refuse to go away while readings name them. The society needs no check of its own: the
-- device is the society's. SQLite's foreign keys cost a lookup a row without locking and stay as they are.
{postgres_device_event_references}
