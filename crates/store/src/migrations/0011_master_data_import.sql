-- Operators load master data from files (`tranquera admin import`), matched by `external_code`: a row updates the
-- live record with its code, or makes one. So that this match is one record whoever writes (an import, the API, the
-- demo), each imported table holds its live external codes distinct, per society (per country for the per-country
-- catalogues). Codes of deleted records may repeat: a code deleted and loaded again is a new record.
--
-- Master campaigns and tags had no code to be matched by; they get one. Campaigns already have their index
-- (migration 9).
--
-- A database that already holds two live records of a table with one code stops this migration ("could not create
-- unique index … is duplicated"): mark all but one deleted (set `deleted_at`) or change their codes, then start the
-- server again.
ALTER TABLE master_campaigns ADD COLUMN external_code TEXT;
ALTER TABLE tags ADD COLUMN external_code TEXT;

CREATE UNIQUE INDEX farmers_external_live ON farmers (society_id, external_code) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX establishments_external_live ON establishments (society_id, external_code) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX plots_external_live ON plots (society_id, external_code) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX master_campaigns_external_live ON master_campaigns (society_id, external_code)
    WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX machines_external_live ON machines (society_id, external_code) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX contractors_external_live ON contractors (society_id, external_code) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX warehouses_external_live ON warehouses (society_id, external_code) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX tags_external_live ON tags (society_id, external_code) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX applicators_external_live ON applicators (society_id, external_code) WHERE deleted_at IS NULL;

CREATE UNIQUE INDEX formulateds_external_live ON formulateds (country, external_code) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX master_campaign_cycles_external_live ON master_campaign_cycles (country, external_code)
    WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX planting_times_external_live ON planting_times (country, external_code) WHERE deleted_at IS NULL;
