-- MQTT credentials of station gateways. The gateway id is the MQTT client id and username, so
-- it is unique across the whole installation (every tenant), not per tenant. Only an argon2id
-- hash of the generated password is kept; issuing again replaces the row (rotation).
CREATE TABLE pv_gateway_credential (
    id             BIGINT        NOT NULL PRIMARY KEY,
    tenant_id      VARCHAR(12)   NOT NULL,
    station_id     BIGINT        NOT NULL,
    gateway_id     VARCHAR(64)   NOT NULL,
    password_hash  VARCHAR(255)  NOT NULL,
    issued_by      BIGINT,
    issued_at      BIGINT        NOT NULL
);
CREATE UNIQUE INDEX ux_pv_gateway_credential_gateway ON pv_gateway_credential (gateway_id);
CREATE UNIQUE INDEX ux_pv_gateway_credential_station ON pv_gateway_credential (station_id);
