-- Developer tools (blade-develop): data sources, data models with their field settings, and the
-- code generator's rows. Platform-wide (only the platform tenant uses them), so no tenant_id.
CREATE TABLE blade_datasource (
    id           BIGINT        NOT NULL PRIMARY KEY,
    name         VARCHAR(64)   NOT NULL,
    -- 1 SQLite file in the data directory's datasources folder, 2 PostgreSQL
    category     BIGINT        NOT NULL DEFAULT 1,
    url          VARCHAR(255)  NOT NULL,
    username     VARCHAR(64),
    -- sealed with the credential key (never answered)
    password     VARCHAR(1000),
    remark       VARCHAR(255),
    status       BIGINT        NOT NULL DEFAULT 1,
    create_user  BIGINT,
    create_time  BIGINT        NOT NULL,
    update_user  BIGINT,
    update_time  BIGINT,
    is_deleted   BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_datasource_name ON blade_datasource (name) WHERE is_deleted = 0;

CREATE TABLE blade_model (
    id             BIGINT        NOT NULL PRIMARY KEY,
    datasource_id  BIGINT        NOT NULL,
    model_name     VARCHAR(64)   NOT NULL,
    model_code     VARCHAR(40)   NOT NULL,
    model_table    VARCHAR(64)   NOT NULL,
    model_remark   VARCHAR(255),
    status         BIGINT        NOT NULL DEFAULT 1,
    create_user    BIGINT,
    create_time    BIGINT        NOT NULL,
    update_user    BIGINT,
    update_time    BIGINT,
    is_deleted     BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_model_code ON blade_model (model_code) WHERE is_deleted = 0;

-- How each column of a model is shown and checked; replaced as a whole by submit-list.
CREATE TABLE blade_model_prototype (
    id             BIGINT        NOT NULL PRIMARY KEY,
    model_id       BIGINT        NOT NULL,
    jdbc_name      VARCHAR(64)   NOT NULL,
    jdbc_type      VARCHAR(64)   NOT NULL,
    property_name  VARCHAR(40)   NOT NULL,
    property_type  VARCHAR(16)   NOT NULL,
    label_zh       VARCHAR(64)   NOT NULL,
    label_en       VARCHAR(64)   NOT NULL,
    component      VARCHAR(16)   NOT NULL,
    is_required    BIGINT        NOT NULL DEFAULT 0,
    is_list        BIGINT        NOT NULL DEFAULT 1,
    is_search      BIGINT        NOT NULL DEFAULT 0,
    is_form        BIGINT        NOT NULL DEFAULT 1,
    dict_code      VARCHAR(64),
    max_length     BIGINT,
    min_value      DOUBLE PRECISION,
    max_value      DOUBLE PRECISION,
    sort           BIGINT        NOT NULL DEFAULT 0
);
CREATE INDEX ix_blade_model_prototype_model ON blade_model_prototype (model_id, sort);

CREATE TABLE blade_code (
    id             BIGINT        NOT NULL PRIMARY KEY,
    model_id       BIGINT        NOT NULL,
    code_name      VARCHAR(64)   NOT NULL,
    code_name_en   VARCHAR(64)   NOT NULL,
    module_name    VARCHAR(40)   NOT NULL,
    -- 1 rows belong to the caller's tenant, 0 shared by every tenant
    tenant_scoped  BIGINT        NOT NULL DEFAULT 1,
    remark         VARCHAR(255),
    status         BIGINT        NOT NULL DEFAULT 1,
    create_user    BIGINT,
    create_time    BIGINT        NOT NULL,
    update_user    BIGINT,
    update_time    BIGINT,
    is_deleted     BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_code_module ON blade_code (module_name) WHERE is_deleted = 0;
