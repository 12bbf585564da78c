-- Flexible brackets (tracker controllers): at most one live bracket per station, its
-- controller device (register map of kind tracker, unit id, SN) and its sensors.
CREATE TABLE pv_flex (
    id              BIGINT        NOT NULL PRIMARY KEY,
    tenant_id       VARCHAR(12)   NOT NULL,
    station_id      BIGINT        NOT NULL,
    name            VARCHAR(100)  NOT NULL,
    sn              VARCHAR(64)   NOT NULL,
    gateway_id      VARCHAR(64),
    map_model       VARCHAR(64),
    unit_id         BIGINT,
    modbus_address  VARCHAR(255),
    remark          VARCHAR(500),
    create_user     BIGINT,
    create_time     BIGINT        NOT NULL,
    update_user     BIGINT,
    update_time     BIGINT,
    is_deleted      BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_pv_flex_station ON pv_flex (station_id) WHERE is_deleted = 0;
CREATE UNIQUE INDEX ux_pv_flex_sn ON pv_flex (tenant_id, sn) WHERE is_deleted = 0;

-- A bracket's sensors, replaced as a set when the bracket is saved.
CREATE TABLE pv_flex_sensor (
    id           BIGINT       NOT NULL PRIMARY KEY,
    flex_id      BIGINT       NOT NULL,
    name         VARCHAR(50)  NOT NULL,
    sensor_kind  VARCHAR(20)  NOT NULL,
    unit_id      BIGINT,
    point        VARCHAR(64),
    sort         BIGINT       NOT NULL DEFAULT 0
);
CREATE INDEX ix_pv_flex_sensor_flex ON pv_flex_sensor (flex_id);
