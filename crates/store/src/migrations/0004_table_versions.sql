-- Per-society, per-table change counters, kept by triggers so that no write path can forget them.
--
-- A society's `syncCheck` is the sum of its counters, so it changes with every committed write. Lists use the
-- counter of their table to know, without counting, whether the rows they paged through before are still the same
-- (the page-boundary index of a list is reused while it stands), and name their ETag after the society's sum.
-- Credentials and idempotency records are not API data and are not tracked, so a login changes neither.
--
-- Each counter is split in slots, and a PostgreSQL transaction bumps the slot its transaction id picks: concurrent
-- writers of one society then rarely wait on the same row, and their commits can share a WAL flush. SQLite has one
-- writer at a time and uses slot 0. This replaces the single `societies.data_version` row every write had to lock.
CREATE TABLE table_versions (
    society_id BIGINT NOT NULL,
    table_name TEXT NOT NULL,
    slot BIGINT NOT NULL,
    version BIGINT NOT NULL,
    PRIMARY KEY (society_id, table_name, slot)
);

ALTER TABLE societies DROP COLUMN data_version;

{track_versions_setup}
{track_versions:users}
{track_versions:farmers}
{track_versions:establishments}
{track_versions:plots}
{track_versions:tags}
{track_versions:plot_tags}
{track_versions:master_campaigns}
{track_versions:campaigns}
{track_versions:cultivations}
{track_versions:contractors}
{track_versions:machines}
{track_versions:applicators}
{track_versions:applicator_machines}
{track_versions:warehouses}
{track_versions:work_orders}
{track_versions:work_order_supplies}
{track_versions:work_order_labours}
{track_versions:work_order_labour_contractors}
{track_versions:work_order_labour_machines}
{track_versions:work_order_labour_applicators}
{track_versions:scoutings}
{track_versions:scouting_measures}
{track_versions:waypoints}
{track_versions:progress}
{track_versions:field_controls}
{track_versions:external_systems}
{track_versions:external_plot_associations}
{track_versions:silobags}
{track_versions:silobag_campaigns}
{track_versions:weather_samples}
{track_versions:weather_anomalies}
{track_versions:devices}
{track_versions:device_events}
{track_versions:jobs}
