-- SQLite's event triggers made again in a smaller form (see store/src/events/sources.rs): every connection parses
-- every trigger, a read-only one too, and the 99 of them were 0.84 MB of each connection's 1.17 MB of schema. They
-- write the same events. PostgreSQL's are left as they are.
{sqlite_track_events_again:farmers}
{sqlite_track_events_again:establishments}
{sqlite_track_events_again:plots}
{sqlite_track_events_again:plot_tags}
{sqlite_track_events_again:tags}
{sqlite_track_events_again:master_campaigns}
{sqlite_track_events_again:campaigns}
{sqlite_track_events_again:cultivations}
{sqlite_track_events_again:contractors}
{sqlite_track_events_again:machines}
{sqlite_track_events_again:applicators}
{sqlite_track_events_again:applicator_machines}
{sqlite_track_events_again:warehouses}
{sqlite_track_events_again:work_orders}
{sqlite_track_events_again:work_order_supplies}
{sqlite_track_events_again:work_order_labours}
{sqlite_track_events_again:work_order_labour_contractors}
{sqlite_track_events_again:work_order_labour_machines}
{sqlite_track_events_again:work_order_labour_applicators}
{sqlite_track_events_again:scoutings}
{sqlite_track_events_again:scouting_measures}
{sqlite_track_events_again:waypoints}
{sqlite_track_events_again:progress}
{sqlite_track_events_again:field_controls}
{sqlite_track_events_again:external_systems}
{sqlite_track_events_again:external_plot_associations}
{sqlite_track_events_again:silobags}
{sqlite_track_events_again:silobag_campaigns}
{sqlite_track_events_again:weather_anomalies}
{sqlite_track_events_again:devices}
{sqlite_track_events_again:device_events}
{sqlite_track_events_again:jobs}
{sqlite_track_events_again:webhook_endpoints}
