-- Societies, accounts and credentials, and the first master data: farmers, establishments, plots.
-- Time is epoch milliseconds in UTC. {id}, {tenant_key} and {global_id} are rendered per dialect (see migrate.rs):
-- tenant tables lead their keys with society_id, and reference their parents by (society_id, id), so a row can
-- never point at another society's parent.

CREATE TABLE societies (
    {global_id},
    legal_name TEXT NOT NULL,
    country TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    data_version BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE users (
    {global_id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    email TEXT NOT NULL,
    name TEXT NOT NULL,
    lastname TEXT,
    password_hash TEXT NOT NULL,
    roles TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email);

CREATE TABLE auth_tokens (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    user_id BIGINT NOT NULL REFERENCES users (id),
    family TEXT NOT NULL,
    kind TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    revoked_at BIGINT,
    created_at BIGINT NOT NULL,
    {tenant_key}
);
CREATE UNIQUE INDEX auth_tokens_hash ON auth_tokens (society_id, token_hash);
CREATE INDEX auth_tokens_family ON auth_tokens (society_id, family);
CREATE INDEX auth_tokens_user ON auth_tokens (society_id, user_id);

CREATE TABLE api_keys (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    label TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT,
    {tenant_key}
);
CREATE UNIQUE INDEX api_keys_hash ON api_keys (society_id, key_hash);

CREATE TABLE login_failures (
    {global_id},
    subject TEXT NOT NULL,
    failed_at BIGINT NOT NULL
);
CREATE INDEX login_failures_subject ON login_failures (subject, failed_at);

CREATE TABLE farmers (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    name TEXT NOT NULL,
    lastname TEXT,
    cuit TEXT,
    observations TEXT,
    external_code TEXT,
    email TEXT,
    phone_number TEXT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key}
);
CREATE INDEX farmers_updated ON farmers (society_id, updated_at);
CREATE INDEX farmers_created ON farmers (society_id, created_at);
CREATE INDEX farmers_deleted ON farmers (society_id, deleted_at);

CREATE TABLE establishments (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    farmer_id BIGINT NOT NULL,
    name TEXT NOT NULL,
    external_code TEXT,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, farmer_id) REFERENCES farmers (society_id, id)
);
CREATE INDEX establishments_farmer ON establishments (society_id, farmer_id);
CREATE INDEX establishments_updated ON establishments (society_id, updated_at);
CREATE INDEX establishments_created ON establishments (society_id, created_at);
CREATE INDEX establishments_deleted ON establishments (society_id, deleted_at);

CREATE TABLE plots (
    {id},
    society_id BIGINT NOT NULL REFERENCES societies (id),
    establishment_id BIGINT NOT NULL,
    name TEXT NOT NULL,
    area DOUBLE PRECISION NOT NULL,
    external_code TEXT,
    created_by BIGINT REFERENCES users (id),
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT,
    {tenant_key},
    FOREIGN KEY (society_id, establishment_id) REFERENCES establishments (society_id, id)
);
CREATE INDEX plots_establishment ON plots (society_id, establishment_id);
CREATE INDEX plots_updated ON plots (society_id, updated_at);
CREATE INDEX plots_created ON plots (society_id, created_at);
CREATE INDEX plots_deleted ON plots (society_id, deleted_at);
