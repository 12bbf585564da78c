-- Reference data and logs: dictionaries (platform) and business dictionaries (per tenant),
-- administrative regions, the API log and the usual log; audit columns for departments so they
-- can be narrowed by data scopes like other tenant rows.

ALTER TABLE blade_dept ADD COLUMN create_user BIGINT;
ALTER TABLE blade_dept ADD COLUMN create_dept BIGINT;
ALTER TABLE blade_dept ADD COLUMN create_time BIGINT NOT NULL DEFAULT 0;
ALTER TABLE blade_dept ADD COLUMN update_user BIGINT;
ALTER TABLE blade_dept ADD COLUMN update_time BIGINT;
CREATE INDEX ix_blade_dept_parent ON blade_dept (tenant_id, parent_id);

-- A dictionary is a row with parent_id 0 and dict_key '-1'; its entries point at it and repeat
-- its code. dict_value is the (Chinese) label, dict_value_en its English translation.
CREATE TABLE blade_dict (
    id             BIGINT        NOT NULL PRIMARY KEY,
    parent_id      BIGINT        NOT NULL DEFAULT 0,
    code           VARCHAR(255)  NOT NULL,
    dict_key       VARCHAR(255)  NOT NULL,
    dict_value     VARCHAR(255)  NOT NULL,
    dict_value_en  VARCHAR(255),
    sort           BIGINT        NOT NULL DEFAULT 1,
    remark         VARCHAR(255),
    is_sealed      BIGINT        NOT NULL DEFAULT 0,
    create_user    BIGINT,
    create_time    BIGINT        NOT NULL,
    update_user    BIGINT,
    update_time    BIGINT,
    is_deleted     BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_dict_code_key ON blade_dict (code, dict_key) WHERE is_deleted = 0;
CREATE INDEX ix_blade_dict_parent ON blade_dict (parent_id);

CREATE TABLE blade_dict_biz (
    id             BIGINT        NOT NULL PRIMARY KEY,
    tenant_id      VARCHAR(12)   NOT NULL,
    parent_id      BIGINT        NOT NULL DEFAULT 0,
    code           VARCHAR(255)  NOT NULL,
    dict_key       VARCHAR(255)  NOT NULL,
    dict_value     VARCHAR(255)  NOT NULL,
    dict_value_en  VARCHAR(255),
    sort           BIGINT        NOT NULL DEFAULT 1,
    remark         VARCHAR(255),
    is_sealed      BIGINT        NOT NULL DEFAULT 0,
    create_user    BIGINT,
    create_time    BIGINT        NOT NULL,
    update_user    BIGINT,
    update_time    BIGINT,
    is_deleted     BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_dict_biz_code_key ON blade_dict_biz (tenant_id, code, dict_key) WHERE is_deleted = 0;
CREATE INDEX ix_blade_dict_biz_parent ON blade_dict_biz (parent_id);

-- Administrative divisions by their GB/T 2260 codes: level 1 province, 2 city, 3 district.
-- Provinces have parent_code '00'.
CREATE TABLE blade_region (
    code         VARCHAR(12)   NOT NULL PRIMARY KEY,
    parent_code  VARCHAR(12)   NOT NULL,
    name         VARCHAR(64)   NOT NULL,
    level        BIGINT        NOT NULL,
    sort         BIGINT        NOT NULL DEFAULT 1,
    remark       VARCHAR(255)
);
CREATE INDEX ix_blade_region_parent ON blade_region (parent_code);

-- One row per mutating API call of a signed-in caller; params with secrets masked.
CREATE TABLE blade_log_api (
    id           BIGINT        NOT NULL PRIMARY KEY,
    tenant_id    VARCHAR(12)   NOT NULL,
    service_id   VARCHAR(32),
    server_host  VARCHAR(255),
    env          VARCHAR(255),
    type         VARCHAR(2)    NOT NULL DEFAULT '1',
    title        VARCHAR(255),
    method       VARCHAR(10)   NOT NULL,
    request_uri  VARCHAR(1000) NOT NULL,
    status       BIGINT,
    user_agent   VARCHAR(1000),
    remote_ip    VARCHAR(255),
    params       TEXT,
    time_cost    BIGINT        NOT NULL DEFAULT 0,
    create_by    VARCHAR(64),
    create_time  BIGINT        NOT NULL
);
CREATE INDEX ix_blade_log_api_time ON blade_log_api (tenant_id, create_time);

-- Business events worth keeping: sign-in, sign-out, password reset, tenant creation...
CREATE TABLE blade_log_usual (
    id           BIGINT        NOT NULL PRIMARY KEY,
    tenant_id    VARCHAR(12)   NOT NULL,
    service_id   VARCHAR(32),
    server_host  VARCHAR(255),
    env          VARCHAR(255),
    log_level    VARCHAR(10)   NOT NULL,
    log_id       VARCHAR(100)  NOT NULL,
    log_data     TEXT,
    method       VARCHAR(10),
    request_uri  VARCHAR(1000),
    user_agent   VARCHAR(1000),
    remote_ip    VARCHAR(255),
    params       TEXT,
    create_by    VARCHAR(64),
    create_time  BIGINT        NOT NULL
);
CREATE INDEX ix_blade_log_usual_time ON blade_log_usual (tenant_id, create_time);

ALTER TABLE blade_log_error ADD COLUMN remote_ip VARCHAR(255);
