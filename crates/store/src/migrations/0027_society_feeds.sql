-- The change feed's order is each society's own (see store/src/events/): a write's commit takes its events' positions
-- from its society's row here, whose lock it holds until it commits. `head` is the last position given to one of the
-- society's events; `pruned_position` and `pruned_id` are the last event retention deleted, the feed's start.
CREATE TABLE society_feeds (
    society_id BIGINT NOT NULL,
    head BIGINT NOT NULL,
    pruned_position BIGINT NOT NULL,
    pruned_id BIGINT NOT NULL,
    PRIMARY KEY (society_id)
);
-- Every society starts at or above each position and cursor handed out so far, with the pruning mark all shared. On
-- SQLite every earlier position is 0. On PostgreSQL they were transaction ids, and a cursor of `after=now` the next one
-- to be assigned: with the writers in flight finished, the head starts at the next transaction id.
INSERT INTO society_feeds (society_id, head, pruned_position, pruned_id)
SELECT s.id, 0, p.position, p.event_id FROM societies s, events_pruned p;
{postgres_feed_heads}
DROP TABLE events_pruned;
-- The writing transaction's id, which ordered the feed, is no longer kept.
ALTER TABLE events DROP COLUMN tx;
-- Retention prunes each society's events in turn.
DROP INDEX events_by_age;
CREATE INDEX events_by_age ON events (society_id, occurred_at);
-- The database's feed identity, which every cursor names: a cursor of another database (another deployment, or this
-- one before it was made anew) is refused rather than read as a place in this feed.
CREATE TABLE feed_identity (
    id BIGINT PRIMARY KEY,
    identity TEXT NOT NULL
);
INSERT INTO feed_identity (id, identity) VALUES (1, {random_identity});
