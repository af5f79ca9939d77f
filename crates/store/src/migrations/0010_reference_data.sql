-- Reference data: the catalogues every deployment ships (crates/store/reference/*.csv), loaded and kept up to date by
-- `migrate` (see reference.rs).
--
-- Each shipped row is known by its `reference_key`, stable across releases, and remembers the hash of the content a
-- release last gave it (`reference_hash`). A release rewrites a row only when its own content for it changed, so a
-- correction an operator made stands until a release corrects that very row; `active` is never written by a release,
-- so a row an operator turned off stays off. Rows without a key are the operator's own (imported or made by hand).
--
-- Catalogues are shared by every society, so their changes are counted apart from the societies' counters: one
-- `reference_version`, bumped by triggers on every catalogue table, which every society's `syncCheck` and every
-- catalogue's ETag include. Releases applied are recorded in `reference_releases`.

CREATE TABLE reference_version (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    version BIGINT NOT NULL
);
INSERT INTO reference_version (id, version) VALUES (1, 0);

CREATE TABLE reference_releases (
    checksum TEXT PRIMARY KEY,
    version TEXT NOT NULL,
    added BIGINT NOT NULL,
    corrected BIGINT NOT NULL,
    applied_at BIGINT NOT NULL
);

-- Cycles and planting times are named by external code in operators' imports; a shipped row's is its key.
ALTER TABLE master_campaign_cycles ADD COLUMN external_code TEXT;
ALTER TABLE planting_times ADD COLUMN external_code TEXT;

{postgres_reference_version}
ALTER TABLE species ADD COLUMN reference_key TEXT;
ALTER TABLE species ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX species_reference_key ON species (reference_key);
{track_reference:species}
ALTER TABLE units ADD COLUMN reference_key TEXT;
ALTER TABLE units ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX units_reference_key ON units (reference_key);
{track_reference:units}
ALTER TABLE formulation_types ADD COLUMN reference_key TEXT;
ALTER TABLE formulation_types ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX formulation_types_reference_key ON formulation_types (reference_key);
{track_reference:formulation_types}
ALTER TABLE formulateds ADD COLUMN reference_key TEXT;
ALTER TABLE formulateds ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX formulateds_reference_key ON formulateds (reference_key);
{track_reference:formulateds}
ALTER TABLE master_campaign_cycles ADD COLUMN reference_key TEXT;
ALTER TABLE master_campaign_cycles ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX master_campaign_cycles_reference_key ON master_campaign_cycles (reference_key);
{track_reference:master_campaign_cycles}
ALTER TABLE planting_times ADD COLUMN reference_key TEXT;
ALTER TABLE planting_times ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX planting_times_reference_key ON planting_times (reference_key);
{track_reference:planting_times}
ALTER TABLE activity_statuses ADD COLUMN reference_key TEXT;
ALTER TABLE activity_statuses ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX activity_statuses_reference_key ON activity_statuses (reference_key);
{track_reference:activity_statuses}
ALTER TABLE hydric_states ADD COLUMN reference_key TEXT;
ALTER TABLE hydric_states ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX hydric_states_reference_key ON hydric_states (reference_key);
{track_reference:hydric_states}
ALTER TABLE phenological_states ADD COLUMN reference_key TEXT;
ALTER TABLE phenological_states ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX phenological_states_reference_key ON phenological_states (reference_key);
{track_reference:phenological_states}
ALTER TABLE voucher_types ADD COLUMN reference_key TEXT;
ALTER TABLE voucher_types ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX voucher_types_reference_key ON voucher_types (reference_key);
{track_reference:voucher_types}
ALTER TABLE labour_types ADD COLUMN reference_key TEXT;
ALTER TABLE labour_types ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX labour_types_reference_key ON labour_types (reference_key);
{track_reference:labour_types}
ALTER TABLE adversity_kinds ADD COLUMN reference_key TEXT;
ALTER TABLE adversity_kinds ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX adversity_kinds_reference_key ON adversity_kinds (reference_key);
{track_reference:adversity_kinds}
ALTER TABLE adversity_categories ADD COLUMN reference_key TEXT;
ALTER TABLE adversity_categories ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX adversity_categories_reference_key ON adversity_categories (reference_key);
{track_reference:adversity_categories}
ALTER TABLE adversities ADD COLUMN reference_key TEXT;
ALTER TABLE adversities ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX adversities_reference_key ON adversities (reference_key);
{track_reference:adversities}
ALTER TABLE climatic_factors ADD COLUMN reference_key TEXT;
ALTER TABLE climatic_factors ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX climatic_factors_reference_key ON climatic_factors (reference_key);
{track_reference:climatic_factors}
ALTER TABLE weather_anomaly_types ADD COLUMN reference_key TEXT;
ALTER TABLE weather_anomaly_types ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX weather_anomaly_types_reference_key ON weather_anomaly_types (reference_key);
{track_reference:weather_anomaly_types}
ALTER TABLE device_event_types ADD COLUMN reference_key TEXT;
ALTER TABLE device_event_types ADD COLUMN reference_hash TEXT;
CREATE UNIQUE INDEX device_event_types_reference_key ON device_event_types (reference_key);
{track_reference:device_event_types}
