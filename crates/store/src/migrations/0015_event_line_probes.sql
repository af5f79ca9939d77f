-- The event triggers of lines and links made again (see store/src/events/sources.rs): on SQLite, a line's or a link's
-- trigger first looks for its record's pending event, and writes nothing when there is one. PostgreSQL's are made
-- again unchanged.
{track_events_again:plot_tags}
{track_events_again:applicator_machines}
{track_events_again:work_order_supplies}
{track_events_again:work_order_labours}
{track_events_again:work_order_labour_contractors}
{track_events_again:work_order_labour_machines}
{track_events_again:work_order_labour_applicators}
