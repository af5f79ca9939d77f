-- Imports stage their rows in tables of their own, one per resource, rather than in temporary tables: on Citus a
-- society's staged rows lie with its records, so the checks and writes that join them run on one worker. Each
-- import's rows carry its id and are gone when its transaction ends. Made from the resources' declarations
-- (store/src/import/staging.rs), which a test compares with these statements.

CREATE {unlogged}TABLE import_staging_farmers (
    society_id BIGINT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0 TEXT,
    v1 TEXT,
    v2 TEXT,
    v3 TEXT,
    v4 TEXT,
    v5 TEXT,
    v6 BIGINT,
    pass BIGINT,
    PRIMARY KEY (society_id, import_id, row_number)
);
CREATE INDEX import_staging_farmers_code ON import_staging_farmers (society_id, import_id, external_code);

CREATE {unlogged}TABLE import_staging_establishments (
    society_id BIGINT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0_id BIGINT,
    v0_code TEXT,
    v1 TEXT,
    v2 BIGINT,
    pass BIGINT,
    PRIMARY KEY (society_id, import_id, row_number)
);
CREATE INDEX import_staging_establishments_code ON import_staging_establishments (society_id, import_id, external_code);

CREATE {unlogged}TABLE import_staging_plots (
    society_id BIGINT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0_id BIGINT,
    v0_code TEXT,
    v1 TEXT,
    v2 DOUBLE PRECISION,
    v3 BIGINT,
    pass BIGINT,
    PRIMARY KEY (society_id, import_id, row_number)
);
CREATE INDEX import_staging_plots_code ON import_staging_plots (society_id, import_id, external_code);

CREATE {unlogged}TABLE import_staging_master_campaigns (
    society_id BIGINT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0 TEXT,
    v1_id BIGINT,
    v1_code TEXT,
    v2_id BIGINT,
    v2_code TEXT,
    v3_id BIGINT,
    v3_code TEXT,
    v4 BIGINT,
    pass BIGINT,
    PRIMARY KEY (society_id, import_id, row_number)
);
CREATE INDEX import_staging_master_campaigns_code ON import_staging_master_campaigns (society_id, import_id, external_code);

CREATE {unlogged}TABLE import_staging_campaigns (
    society_id BIGINT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0_id BIGINT,
    v0_code TEXT,
    v1_id BIGINT,
    v1_code TEXT,
    v2 TEXT,
    v3 DOUBLE PRECISION,
    v4 TEXT,
    v5 DOUBLE PRECISION,
    v6_id BIGINT,
    v6_code TEXT,
    v7 BIGINT,
    pass BIGINT,
    PRIMARY KEY (society_id, import_id, row_number)
);
CREATE INDEX import_staging_campaigns_code ON import_staging_campaigns (society_id, import_id, external_code);

CREATE {unlogged}TABLE import_staging_contractors (
    society_id BIGINT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0 TEXT,
    v1 TEXT,
    v2 TEXT,
    v3 TEXT,
    v4 BIGINT,
    pass BIGINT,
    PRIMARY KEY (society_id, import_id, row_number)
);
CREATE INDEX import_staging_contractors_code ON import_staging_contractors (society_id, import_id, external_code);

CREATE {unlogged}TABLE import_staging_machines (
    society_id BIGINT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0_id BIGINT,
    v0_code TEXT,
    v1 TEXT,
    v2 TEXT,
    v3 TEXT,
    v4 TEXT,
    v5 BIGINT,
    v6 TEXT,
    v7 BIGINT,
    pass BIGINT,
    PRIMARY KEY (society_id, import_id, row_number)
);
CREATE INDEX import_staging_machines_code ON import_staging_machines (society_id, import_id, external_code);

CREATE {unlogged}TABLE import_staging_warehouses (
    society_id BIGINT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0_id BIGINT,
    v0_code TEXT,
    v1 TEXT,
    v2 TEXT,
    v3 BIGINT,
    pass BIGINT,
    PRIMARY KEY (society_id, import_id, row_number)
);
CREATE INDEX import_staging_warehouses_code ON import_staging_warehouses (society_id, import_id, external_code);

CREATE {unlogged}TABLE import_staging_tags (
    society_id BIGINT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0_id BIGINT,
    v0_code TEXT,
    v1 TEXT,
    v2 BIGINT,
    pass BIGINT,
    PRIMARY KEY (society_id, import_id, row_number)
);
CREATE INDEX import_staging_tags_code ON import_staging_tags (society_id, import_id, external_code);

CREATE {unlogged}TABLE import_staging_applicators (
    society_id BIGINT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0 TEXT,
    v1 TEXT,
    v2 TEXT,
    v3 TEXT,
    v4 BIGINT,
    pass BIGINT,
    PRIMARY KEY (society_id, import_id, row_number)
);
CREATE INDEX import_staging_applicators_code ON import_staging_applicators (society_id, import_id, external_code);

CREATE {unlogged}TABLE import_staging_master_campaign_cycles (
    country TEXT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0 TEXT,
    v1 TEXT,
    v2 TEXT,
    v3 BIGINT,
    pass BIGINT,
    PRIMARY KEY (country, import_id, row_number)
);
CREATE INDEX import_staging_master_campaign_cycles_code ON import_staging_master_campaign_cycles (country, import_id, external_code);

CREATE {unlogged}TABLE import_staging_planting_times (
    country TEXT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0 TEXT,
    v1 TEXT,
    v2 BIGINT,
    pass BIGINT,
    PRIMARY KEY (country, import_id, row_number)
);
CREATE INDEX import_staging_planting_times_code ON import_staging_planting_times (country, import_id, external_code);

CREATE {unlogged}TABLE import_staging_formulateds (
    country TEXT NOT NULL,
    import_id BIGINT NOT NULL,
    row_number BIGINT NOT NULL,
    external_code TEXT NOT NULL,
    deleted BOOLEAN NOT NULL,
    v0 TEXT,
    v1 TEXT,
    v2_id BIGINT,
    v2_code TEXT,
    v3_id BIGINT,
    v3_code TEXT,
    v4 BIGINT,
    pass BIGINT,
    PRIMARY KEY (country, import_id, row_number)
);
CREATE INDEX import_staging_formulateds_code ON import_staging_formulateds (country, import_id, external_code);
