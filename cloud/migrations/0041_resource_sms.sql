-- SMS configurations of a tenant (blade-resource/sms); at most one enabled (status 2).
CREATE TABLE blade_sms (
    id           BIGINT        NOT NULL PRIMARY KEY,
    tenant_id    VARCHAR(12)   NOT NULL,
    -- 1 Aliyun SMS, 2 Tencent Cloud SMS, 3 generic HTTP
    category     BIGINT        NOT NULL,
    sms_code     VARCHAR(32)   NOT NULL,
    template_id  VARCHAR(64),
    access_key   VARCHAR(255),
    -- sealed with the credential key (never answered)
    secret_key   VARCHAR(1000),
    region_id    VARCHAR(64),
    sign_name    VARCHAR(64),
    -- Tencent's SmsSdkAppId
    app_id       VARCHAR(64),
    -- the provider's address (blank: its public endpoint); the URL of a generic provider
    endpoint     VARCHAR(255),
    remark       VARCHAR(255),
    status       BIGINT        NOT NULL DEFAULT 1,
    create_user  BIGINT,
    create_dept  BIGINT,
    create_time  BIGINT        NOT NULL,
    update_user  BIGINT,
    update_time  BIGINT,
    is_deleted   BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_blade_sms_enabled ON blade_sms (tenant_id) WHERE status = 2 AND is_deleted = 0;

-- Verification codes sent by SMS: kept hashed, one use, with an expiry; the rows also count
-- sends per phone and per address for the rate limits (shared by every replica).
CREATE TABLE blade_sms_code (
    id           BIGINT        NOT NULL PRIMARY KEY,
    tenant_id    VARCHAR(12)   NOT NULL,
    phone        VARCHAR(32)   NOT NULL,
    code_hash    VARCHAR(128)  NOT NULL,
    client_addr  VARCHAR(64)   NOT NULL,
    expire_time  BIGINT        NOT NULL,
    attempts     BIGINT        NOT NULL DEFAULT 0,
    used         BIGINT        NOT NULL DEFAULT 0,
    create_time  BIGINT        NOT NULL
);
CREATE INDEX ix_blade_sms_code_phone ON blade_sms_code (phone, create_time);
CREATE INDEX ix_blade_sms_code_addr ON blade_sms_code (client_addr, create_time);
