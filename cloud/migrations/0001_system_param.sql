-- System parameters (key/value settings of the platform, e.g. the initial password of new users).
-- Conventions for every table: BIGINT snowflake ids made by the application, times as epoch
-- milliseconds in BIGINT, flags as BIGINT 0/1, logical deletion through is_deleted.
CREATE TABLE blade_param (
    id           BIGINT       NOT NULL PRIMARY KEY,
    param_name   VARCHAR(255) NOT NULL,
    param_key    VARCHAR(255) NOT NULL,
    param_value  TEXT         NOT NULL,
    remark       VARCHAR(255),
    create_user  BIGINT,
    create_dept  BIGINT,
    create_time  BIGINT       NOT NULL,
    update_user  BIGINT,
    update_time  BIGINT,
    status       BIGINT       NOT NULL DEFAULT 1,
    is_deleted   BIGINT       NOT NULL DEFAULT 0
);

CREATE UNIQUE INDEX ux_blade_param_key ON blade_param (param_key) WHERE is_deleted = 0;
