-- Sign-in throttling (replaces the hard account lock): failed sign-ins counted per account AND
-- client address ('pair' rows), and per address over all accounts ('address' rows). A table, so
-- the state survives restarts and several hubs on one database share it. Rows are keyed by the
-- account name as typed, whether or not it exists, so the answers cannot reveal which do.
CREATE TABLE auth_throttle (
    throttle_key  VARCHAR(400)  NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12),
    account       VARCHAR(255),
    address       VARCHAR(64)   NOT NULL,
    failures      BIGINT        NOT NULL,
    window_start  BIGINT        NOT NULL,
    last_failure  BIGINT        NOT NULL
);
CREATE INDEX ix_auth_throttle_account ON auth_throttle (tenant_id, account);
CREATE INDEX ix_auth_throttle_last ON auth_throttle (last_failure);
