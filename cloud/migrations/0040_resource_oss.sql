-- Object storage configurations of a tenant (blade-resource/oss). At most one is enabled
-- (status 2); with none enabled, uploads go to the local disk as before.
CREATE TABLE blade_oss (
    id           BIGINT        NOT NULL PRIMARY KEY,
    tenant_id    VARCHAR(12)   NOT NULL,
    -- 1 local disk, 2 S3-compatible
    category     BIGINT        NOT NULL DEFAULT 1,
    oss_code     VARCHAR(32)   NOT NULL,
    endpoint     VARCHAR(255),
    bucket_name  VARCHAR(63),
    region       VARCHAR(64),
    access_key   VARCHAR(255),
    -- sealed with the credential key (never answered)
    secret_key   VARCHAR(1000),
    -- 1 path-style URLs (MinIO, most S3-compatible servers), 0 virtual-hosted
    path_style   BIGINT        NOT NULL DEFAULT 1,
    remark       VARCHAR(255),
    status       BIGINT        NOT NULL DEFAULT 1,
    create_user  BIGINT,
    create_dept  BIGINT,
    create_time  BIGINT        NOT NULL,
    update_user  BIGINT,
    update_time  BIGINT,
    is_deleted   BIGINT        NOT NULL DEFAULT 0
);
CREATE INDEX ix_blade_oss_tenant ON blade_oss (tenant_id, status);

-- Which store holds an upload: NULL is the local disk.
ALTER TABLE blade_attach ADD COLUMN oss_id BIGINT;
CREATE INDEX ix_blade_attach_tenant ON blade_attach (tenant_id, is_deleted);
-- Two enables racing on different replicas cannot leave two enabled configurations.
CREATE UNIQUE INDEX ux_blade_oss_enabled ON blade_oss (tenant_id) WHERE status = 2 AND is_deleted = 0;
