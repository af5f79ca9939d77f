-- No endpoint reads device events by device: lists page by id and filter by the audit columns. The index on
-- (society, device, time) was kept up by every reading and read by nothing, and a batch of readings from a few hundred
-- devices dirtied a leaf page of it per device, which made it most of what storing the batch wrote. Devices are
-- deleted logically, so no foreign-key check looks for a device's readings either.
DROP INDEX device_events_device;
