-- The change feed (see store/src/events/): one row per committed change of a record, written by the triggers that
-- each `track_events` line below renders, in the writing transaction; its payload is rendered just before that commits.
-- `position` orders the feed: on PostgreSQL the writing transaction's id, raised past the record's previous event
-- when that one committed with a larger one; on SQLite 0, where ids are commit order (one writer at a time).
CREATE TABLE events (
    {event_id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    position BIGINT NOT NULL,
    tx BIGINT NOT NULL,
    resource TEXT NOT NULL,
    resource_id BIGINT NOT NULL,
    action TEXT NOT NULL,
    occurred_at BIGINT NOT NULL,
    payload TEXT
    {events_key}
);
CREATE UNIQUE INDEX events_pending ON events (tx, society_id, resource, resource_id) WHERE payload IS NULL;
CREATE INDEX events_feed ON events (society_id, position, id);
CREATE INDEX events_by_record ON events (society_id, resource, resource_id);
CREATE INDEX events_by_age ON events (occurred_at);

-- Where retention has pruned the feed to: a cursor at or before it can no longer be served whole.
CREATE TABLE events_pruned (
    id BIGINT PRIMARY KEY,
    position BIGINT NOT NULL,
    event_id BIGINT NOT NULL
);
INSERT INTO events_pruned (id, position, event_id) VALUES (1, 0, 0);

-- A row here (SQLite), or `tranquera.events_paused` (PostgreSQL), pauses capture inside a seed load's transaction:
-- the demo's generated history predates the feed.
CREATE TABLE events_paused (id BIGINT PRIMARY KEY);

{track_events:farmers}
{track_events:establishments}
{track_events:plots}
{track_events:plot_tags}
{track_events:tags}
{track_events:master_campaigns}
{track_events:campaigns}
{track_events:cultivations}
{track_events:contractors}
{track_events:machines}
{track_events:applicators}
{track_events:applicator_machines}
{track_events:warehouses}
{track_events:work_orders}
{track_events:work_order_supplies}
{track_events:work_order_labours}
{track_events:work_order_labour_contractors}
{track_events:work_order_labour_machines}
{track_events:work_order_labour_applicators}
{track_events:scoutings}
{track_events:scouting_measures}
{track_events:waypoints}
{track_events:progress}
{track_events:field_controls}
{track_events:external_systems}
{track_events:external_plot_associations}
{track_events:silobags}
{track_events:silobag_campaigns}
{track_events:weather_anomalies}
{track_events:devices}
{track_events:device_events}
{track_events:jobs}
