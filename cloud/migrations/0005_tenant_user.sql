-- Tenant administration and user administration.

-- A tenant may be bound to a data source of the code generator's registry; this installation keeps
-- every tenant in one database, so the binding is recorded for deployments that split them later.
ALTER TABLE blade_tenant ADD COLUMN datasource_id BIGINT;

-- Owners (plant investors) sign in like other users; their company is part of their record.
ALTER TABLE blade_user ADD COLUMN company_name VARCHAR(100);

-- Per-platform extension of a user (web, app, other), edited by `update-platform`.
CREATE TABLE blade_user_platform (
    user_id    BIGINT       NOT NULL PRIMARY KEY,
    tenant_id  VARCHAR(12)  NOT NULL,
    user_type  BIGINT       NOT NULL DEFAULT 1,
    user_ext   TEXT
);
