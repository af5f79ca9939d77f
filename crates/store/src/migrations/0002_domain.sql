-- The rest of the domain: catalogues (global, or per country where the platform's catalogues differ by country),
-- planning (cycles > master campaigns > campaigns in plots), operations (work orders and who and what does them),
-- and the field (scouting, progress, controls, silobags, weather, IoT), plus background jobs.
-- Every table carries created_at / updated_at / deleted_at (epoch ms, UTC) and active. Wire shapes rename
-- updated_at to modified_at where the specification does.

-- Global and per-country catalogues -------------------------------------------------------------------------------

CREATE TABLE species (
    {global_id},
    name TEXT NOT NULL,
    name_pt TEXT NOT NULL,
    scientific_name TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE master_campaign_cycles (
    {global_id},
    country TEXT NOT NULL,
    name TEXT NOT NULL,
    start_date TEXT NOT NULL,
    end_date TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);
CREATE INDEX master_campaign_cycles_country ON master_campaign_cycles (country, id);

CREATE TABLE planting_times (
    {global_id},
    country TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);
CREATE INDEX planting_times_country ON planting_times (country, id);

CREATE TABLE units (
    {global_id},
    name TEXT NOT NULL,
    abbreviation TEXT NOT NULL,
    kind TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE formulation_types (
    {global_id},
    code TEXT NOT NULL,
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE formulateds (
    {global_id},
    country TEXT NOT NULL,
    name TEXT NOT NULL,
    external_code TEXT NOT NULL,
    active_ingredient TEXT NOT NULL,
    formulation_type_id BIGINT NOT NULL REFERENCES formulation_types (id),
    unit_id BIGINT NOT NULL REFERENCES units (id),
    species_id BIGINT REFERENCES species (id),
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);
CREATE INDEX formulateds_country ON formulateds (country, id);
CREATE INDEX formulateds_updated ON formulateds (country, updated_at);

CREATE TABLE voucher_types (
    {global_id},
    code TEXT NOT NULL,
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE labour_types (
    {global_id},
    voucher_type_id BIGINT NOT NULL REFERENCES voucher_types (id),
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE activity_statuses (
    {global_id},
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE hydric_states (
    {global_id},
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE phenological_states (
    {global_id},
    species_id BIGINT NOT NULL REFERENCES species (id),
    code TEXT NOT NULL,
    name TEXT NOT NULL,
    position BIGINT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE adversity_kinds (
    {global_id},
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE adversity_categories (
    {global_id},
    adv_kind_id BIGINT NOT NULL REFERENCES adversity_kinds (id),
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE adversities (
    {global_id},
    adv_kind_id BIGINT NOT NULL REFERENCES adversity_kinds (id),
    adv_category_id BIGINT NOT NULL REFERENCES adversity_categories (id),
    name TEXT NOT NULL,
    scientific_name TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE climatic_factors (
    {global_id},
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE weather_anomaly_types (
    {global_id},
    climatic_factor_id BIGINT NOT NULL REFERENCES climatic_factors (id),
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE TABLE device_event_types (
    {global_id},
    code TEXT NOT NULL,
    name TEXT NOT NULL,
    unit_id BIGINT NOT NULL REFERENCES units (id),
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);

-- Plots: tags --------------------------------------------------------------------------------------------------

-- The v2 plot list renders each plot's tags as a JSON-encoded string; it is kept here, rewritten whenever the
-- plot's tags change, so the hottest list in the API reads one row per plot.
ALTER TABLE plots ADD COLUMN tags_json TEXT NOT NULL DEFAULT '[]';

CREATE TABLE tags (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    parent_id BIGINT,
    name TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, parent_id) REFERENCES tags (society_id, id)
);
CREATE INDEX tags_updated ON tags (society_id, updated_at);

CREATE TABLE plot_tags (
    society_id BIGINT NOT NULL,
    plot_id BIGINT NOT NULL,
    tag_id BIGINT NOT NULL,
    PRIMARY KEY (society_id, plot_id, tag_id),
    FOREIGN KEY (society_id, plot_id) REFERENCES plots (society_id, id),
    FOREIGN KEY (society_id, tag_id) REFERENCES tags (society_id, id)
);

-- Planning -----------------------------------------------------------------------------------------------------

CREATE TABLE master_campaigns (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    name TEXT NOT NULL,
    species_id BIGINT NOT NULL REFERENCES species (id),
    planting_time_id BIGINT NOT NULL REFERENCES planting_times (id),
    cycle_id BIGINT NOT NULL REFERENCES master_campaign_cycles (id),
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key}
);
CREATE INDEX master_campaigns_updated ON master_campaigns (society_id, updated_at);

CREATE TABLE campaigns (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    master_campaign_id BIGINT NOT NULL,
    plot_id BIGINT NOT NULL,
    activity_status_id BIGINT REFERENCES activity_statuses (id),
    name TEXT NOT NULL,
    external_code TEXT,
    area DOUBLE PRECISION NOT NULL,
    planting_date TEXT,
    objective_yield DOUBLE PRECISION,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, master_campaign_id) REFERENCES master_campaigns (society_id, id),
    FOREIGN KEY (society_id, plot_id) REFERENCES plots (society_id, id)
);
CREATE INDEX campaigns_plot ON campaigns (society_id, plot_id);
CREATE INDEX campaigns_master ON campaigns (society_id, master_campaign_id);
CREATE INDEX campaigns_updated ON campaigns (society_id, updated_at);

CREATE TABLE cultivations (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    plot_id BIGINT NOT NULL,
    campaign_id BIGINT NOT NULL,
    formulated_id BIGINT NOT NULL REFERENCES formulateds (id),
    area DOUBLE PRECISION NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, plot_id) REFERENCES plots (society_id, id),
    FOREIGN KEY (society_id, campaign_id) REFERENCES campaigns (society_id, id)
);
CREATE INDEX cultivations_campaign ON cultivations (society_id, campaign_id);
CREATE INDEX cultivations_updated ON cultivations (society_id, updated_at);

-- Operations ---------------------------------------------------------------------------------------------------

CREATE TABLE contractors (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    name TEXT NOT NULL,
    cuit TEXT,
    email TEXT,
    phone_number TEXT,
    external_code TEXT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key}
);
CREATE INDEX contractors_updated ON contractors (society_id, updated_at);

CREATE TABLE machines (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    contractor_id BIGINT,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    brand TEXT,
    model TEXT,
    year BIGINT,
    license_plate TEXT,
    external_code TEXT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, contractor_id) REFERENCES contractors (society_id, id)
);
CREATE INDEX machines_updated ON machines (society_id, updated_at);

CREATE TABLE applicators (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    name TEXT NOT NULL,
    address TEXT,
    phone_number TEXT,
    email TEXT,
    external_code TEXT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key}
);
CREATE INDEX applicators_updated ON applicators (society_id, updated_at);

CREATE TABLE applicator_machines (
    society_id BIGINT NOT NULL,
    applicator_id BIGINT NOT NULL,
    machine_id BIGINT NOT NULL,
    PRIMARY KEY (society_id, applicator_id, machine_id),
    FOREIGN KEY (society_id, applicator_id) REFERENCES applicators (society_id, id),
    FOREIGN KEY (society_id, machine_id) REFERENCES machines (society_id, id)
);

CREATE TABLE warehouses (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    establishment_id BIGINT,
    name TEXT NOT NULL,
    address TEXT,
    external_code TEXT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, establishment_id) REFERENCES establishments (society_id, id)
);
CREATE INDEX warehouses_updated ON warehouses (society_id, updated_at);

CREATE TABLE work_orders (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    external_id TEXT,
    system_id TEXT NOT NULL,
    name TEXT NOT NULL,
    date BIGINT NOT NULL,
    voucher_date BIGINT NOT NULL,
    voucher_type_id BIGINT NOT NULL REFERENCES voucher_types (id),
    pending BOOLEAN NOT NULL,
    executed BOOLEAN NOT NULL,
    confirmed BOOLEAN NOT NULL,
    is_read_only BOOLEAN NOT NULL DEFAULT FALSE,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key}
);
CREATE INDEX work_orders_updated ON work_orders (society_id, updated_at);
CREATE INDEX work_orders_created ON work_orders (society_id, created_at);
CREATE INDEX work_orders_deleted ON work_orders (society_id, deleted_at);
CREATE INDEX work_orders_external ON work_orders (society_id, external_id);

CREATE TABLE work_order_supplies (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    work_order_id BIGINT NOT NULL,
    position BIGINT NOT NULL,
    campaign_id BIGINT NOT NULL,
    formulated_id BIGINT NOT NULL REFERENCES formulateds (id),
    area_applied DOUBLE PRECISION NOT NULL,
    total_applied DOUBLE PRECISION NOT NULL,
    date BIGINT NOT NULL,
    pending BOOLEAN NOT NULL,
    executed BOOLEAN NOT NULL,
    confirmed BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    {tenant_key},
    FOREIGN KEY (society_id, work_order_id) REFERENCES work_orders (society_id, id),
    FOREIGN KEY (society_id, campaign_id) REFERENCES campaigns (society_id, id)
);
CREATE INDEX work_order_supplies_order ON work_order_supplies (society_id, work_order_id, position);

CREATE TABLE work_order_labours (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    work_order_id BIGINT NOT NULL,
    position BIGINT NOT NULL,
    campaign_id BIGINT NOT NULL,
    labour_type_id BIGINT REFERENCES labour_types (id),
    area_applied DOUBLE PRECISION NOT NULL,
    date BIGINT NOT NULL,
    pending BOOLEAN NOT NULL,
    executed BOOLEAN NOT NULL,
    confirmed BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    {tenant_key},
    FOREIGN KEY (society_id, work_order_id) REFERENCES work_orders (society_id, id),
    FOREIGN KEY (society_id, campaign_id) REFERENCES campaigns (society_id, id)
);
CREATE INDEX work_order_labours_order ON work_order_labours (society_id, work_order_id, position);

CREATE TABLE work_order_labour_contractors (
    society_id BIGINT NOT NULL,
    labour_id BIGINT NOT NULL,
    contractor_id BIGINT NOT NULL,
    PRIMARY KEY (society_id, labour_id, contractor_id),
    FOREIGN KEY (society_id, labour_id) REFERENCES work_order_labours (society_id, id),
    FOREIGN KEY (society_id, contractor_id) REFERENCES contractors (society_id, id)
);

CREATE TABLE work_order_labour_machines (
    society_id BIGINT NOT NULL,
    labour_id BIGINT NOT NULL,
    machine_id BIGINT NOT NULL,
    PRIMARY KEY (society_id, labour_id, machine_id),
    FOREIGN KEY (society_id, labour_id) REFERENCES work_order_labours (society_id, id),
    FOREIGN KEY (society_id, machine_id) REFERENCES machines (society_id, id)
);

CREATE TABLE work_order_labour_applicators (
    society_id BIGINT NOT NULL,
    labour_id BIGINT NOT NULL,
    applicator_id BIGINT NOT NULL,
    PRIMARY KEY (society_id, labour_id, applicator_id),
    FOREIGN KEY (society_id, labour_id) REFERENCES work_order_labours (society_id, id),
    FOREIGN KEY (society_id, applicator_id) REFERENCES applicators (society_id, id)
);

-- The field ----------------------------------------------------------------------------------------------------

CREATE TABLE scoutings (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    plot_id BIGINT NOT NULL,
    campaign_id BIGINT,
    kind TEXT NOT NULL,
    date BIGINT NOT NULL,
    scout_name TEXT NOT NULL,
    phenological_state_id BIGINT REFERENCES phenological_states (id),
    hydric_state_id BIGINT REFERENCES hydric_states (id),
    observations TEXT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, plot_id) REFERENCES plots (society_id, id),
    FOREIGN KEY (society_id, campaign_id) REFERENCES campaigns (society_id, id)
);
CREATE INDEX scoutings_updated ON scoutings (society_id, updated_at);

CREATE TABLE scouting_measures (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    scouting_id BIGINT NOT NULL,
    adversity_id BIGINT NOT NULL REFERENCES adversities (id),
    sample_number BIGINT NOT NULL,
    incidence_percent DOUBLE PRECISION NOT NULL,
    severity_percent DOUBLE PRECISION,
    individuals BIGINT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, scouting_id) REFERENCES scoutings (society_id, id)
);
CREATE INDEX scouting_measures_scouting ON scouting_measures (society_id, scouting_id);

CREATE TABLE waypoints (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    parent_id BIGINT NOT NULL,
    parent_type TEXT NOT NULL,
    sample_number BIGINT NOT NULL,
    waypoint_kind TEXT NOT NULL,
    lat TEXT,
    lon TEXT,
    accuracy TEXT NOT NULL,
    observations TEXT,
    file_name TEXT NOT NULL,
    file_storage_url TEXT NOT NULL,
    date BIGINT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key}
);
CREATE INDEX waypoints_parent ON waypoints (society_id, parent_type, parent_id);
CREATE INDEX waypoints_updated ON waypoints (society_id, updated_at);

CREATE TABLE progress (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    kind TEXT NOT NULL,
    campaign_id BIGINT NOT NULL,
    plot_id BIGINT NOT NULL,
    date BIGINT NOT NULL,
    area_done DOUBLE PRECISION NOT NULL,
    percent DOUBLE PRECISION NOT NULL,
    yield_kg_ha DOUBLE PRECISION,
    humidity_percent DOUBLE PRECISION,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, campaign_id) REFERENCES campaigns (society_id, id),
    FOREIGN KEY (society_id, plot_id) REFERENCES plots (society_id, id)
);
CREATE INDEX progress_kind ON progress (society_id, kind, id);
CREATE INDEX progress_updated ON progress (society_id, updated_at);

CREATE TABLE field_controls (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    kind TEXT NOT NULL,
    campaign_id BIGINT NOT NULL,
    plot_id BIGINT NOT NULL,
    date BIGINT NOT NULL,
    formulated_id BIGINT REFERENCES formulateds (id),
    unit_id BIGINT NOT NULL REFERENCES units (id),
    target_value DOUBLE PRECISION NOT NULL,
    measured_value DOUBLE PRECISION NOT NULL,
    observations TEXT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, campaign_id) REFERENCES campaigns (society_id, id),
    FOREIGN KEY (society_id, plot_id) REFERENCES plots (society_id, id)
);
CREATE INDEX field_controls_kind ON field_controls (society_id, kind, id);
CREATE INDEX field_controls_updated ON field_controls (society_id, updated_at);

CREATE TABLE external_systems (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key}
);

CREATE TABLE external_plot_associations (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    plot_id BIGINT NOT NULL,
    external_system_id BIGINT NOT NULL,
    external_id TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, plot_id) REFERENCES plots (society_id, id),
    FOREIGN KEY (society_id, external_system_id) REFERENCES external_systems (society_id, id)
);
CREATE INDEX external_plot_associations_updated ON external_plot_associations (society_id, updated_at);

CREATE TABLE silobags (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    establishment_id BIGINT NOT NULL,
    species_id BIGINT NOT NULL REFERENCES species (id),
    name TEXT NOT NULL,
    external_code TEXT,
    capacity_tn DOUBLE PRECISION NOT NULL,
    length_m DOUBLE PRECISION NOT NULL,
    latitude DOUBLE PRECISION,
    longitude DOUBLE PRECISION,
    closed_at BIGINT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, establishment_id) REFERENCES establishments (society_id, id)
);
CREATE INDEX silobags_updated ON silobags (society_id, updated_at);

CREATE TABLE silobag_campaigns (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    silobag_id BIGINT NOT NULL,
    campaign_id BIGINT NOT NULL,
    quantity_tn DOUBLE PRECISION NOT NULL,
    grain_humidity_percent DOUBLE PRECISION NOT NULL,
    grain_quality_semaphore BIGINT NOT NULL,
    observations TEXT NOT NULL DEFAULT '',
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, silobag_id) REFERENCES silobags (society_id, id),
    FOREIGN KEY (society_id, campaign_id) REFERENCES campaigns (society_id, id)
);
CREATE INDEX silobag_campaigns_silobag ON silobag_campaigns (society_id, silobag_id);
CREATE INDEX silobag_campaigns_updated ON silobag_campaigns (society_id, updated_at);

CREATE TABLE weather_samples (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    plot_id BIGINT NOT NULL,
    date BIGINT NOT NULL,
    observations TEXT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, plot_id) REFERENCES plots (society_id, id)
);

CREATE TABLE weather_anomalies (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    weather_anomaly_type_id BIGINT NOT NULL REFERENCES weather_anomaly_types (id),
    weather_scouting_sample_id BIGINT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, weather_scouting_sample_id) REFERENCES weather_samples (society_id, id)
);
CREATE INDEX weather_anomalies_updated ON weather_anomalies (society_id, updated_at);

CREATE TABLE devices (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    establishment_id BIGINT,
    silobag_id BIGINT,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    serial_number TEXT NOT NULL,
    latitude DOUBLE PRECISION,
    longitude DOUBLE PRECISION,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, establishment_id) REFERENCES establishments (society_id, id),
    FOREIGN KEY (society_id, silobag_id) REFERENCES silobags (society_id, id)
);
CREATE INDEX devices_updated ON devices (society_id, updated_at);

CREATE TABLE device_events (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    device_id BIGINT NOT NULL,
    device_event_type_id BIGINT NOT NULL REFERENCES device_event_types (id),
    recorded_at BIGINT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, device_id) REFERENCES devices (society_id, id)
);
CREATE INDEX device_events_device ON device_events (society_id, device_id, recorded_at);
CREATE INDEX device_events_updated ON device_events (society_id, updated_at);

-- Background work ----------------------------------------------------------------------------------------------

CREATE TABLE jobs (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    input TEXT NOT NULL,
    total_items BIGINT NOT NULL DEFAULT 0,
    processed_items BIGINT NOT NULL DEFAULT 0,
    failed_items BIGINT NOT NULL DEFAULT 0,
    result TEXT,
    error TEXT,
    attempts BIGINT NOT NULL DEFAULT 0,
    locked_by TEXT,
    locked_until BIGINT,
    started_at BIGINT,
    finished_at BIGINT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key}
);
CREATE INDEX jobs_kind ON jobs (society_id, kind, id);
CREATE INDEX jobs_status ON jobs (status, created_at);
