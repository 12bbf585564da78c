-- Telemetry from station gateways (ingest over MQTT, issue 7).
--
-- Raw samples: one row per device and sample time. A sample's metrics travel together as one JSON
-- object (canonical units, see shared/src/metrics.rs) instead of a row per point: a narrow
-- point table with its index caps SQLite near 60k points/s (toolchain notes), a wide row does not.
-- The primary key is the natural key of a sample, so a replayed batch inserts nothing new
-- (INSERT ... ON CONFLICT DO NOTHING) and ingest is idempotent without tracking sequence numbers.
-- `device_id` is the registry row id (pv_inverter / pv_meter / pv_weather / pv_flex ids are all
-- snowflakes from one generator, so they never collide across kinds).
CREATE TABLE pv_telemetry_raw (
    device_id    BIGINT        NOT NULL,
    ts           BIGINT        NOT NULL,
    tenant_id    VARCHAR(12)   NOT NULL,
    station_id   BIGINT        NOT NULL,
    seq          BIGINT        NOT NULL,
    metrics      TEXT          NOT NULL,
    PRIMARY KEY (device_id, ts)
);

-- Rollups that reports, analytics and charts read (never raw). period: '5m', '1h' or '1d';
-- bucket: epoch ms of the bucket start (days start at midnight in the configured timezone).
-- energy_* come from cumulative counters (deltas between consecutive samples, a counter reset
-- counts the new reading), never from integrating power. metrics: JSON object
-- metric -> [avg, min, max, last] for every numeric metric seen in the bucket.
CREATE TABLE pv_telemetry_rollup (
    device_id          BIGINT            NOT NULL,
    period             VARCHAR(4)        NOT NULL,
    bucket             BIGINT            NOT NULL,
    tenant_id          VARCHAR(12)       NOT NULL,
    station_id         BIGINT            NOT NULL,
    device_kind        VARCHAR(16)       NOT NULL,
    samples            BIGINT            NOT NULL,
    energy_wh          DOUBLE PRECISION,
    energy_import_wh   DOUBLE PRECISION,
    energy_export_wh   DOUBLE PRECISION,
    power_avg_w        DOUBLE PRECISION,
    power_max_w        DOUBLE PRECISION,
    irradiance_avg     DOUBLE PRECISION,
    irradiation_wh_m2  DOUBLE PRECISION,
    metrics            TEXT              NOT NULL,
    updated_at         BIGINT            NOT NULL,
    PRIMARY KEY (device_id, period, bucket)
);
CREATE INDEX ix_pv_telemetry_rollup_station ON pv_telemetry_rollup (station_id, period, bucket);

-- The newest sample of every device (what the realtime view is rebuilt from after a restart, and
-- what another cloud replica reads), and whether the device is communicating.
CREATE TABLE pv_telemetry_latest (
    device_id    BIGINT        NOT NULL PRIMARY KEY,
    tenant_id    VARCHAR(12)   NOT NULL,
    station_id   BIGINT        NOT NULL,
    device_kind  VARCHAR(16)   NOT NULL,
    gateway_id   VARCHAR(64)   NOT NULL,
    ts           BIGINT        NOT NULL,
    metrics      TEXT          NOT NULL,
    online       BIGINT        NOT NULL DEFAULT 1,
    changed_at   BIGINT        NOT NULL
);
CREATE INDEX ix_pv_telemetry_latest_station ON pv_telemetry_latest (station_id);

-- Gateways as ingest sees them: online from birth / last will / silence, the last status
-- message, and what was refused from them (JSON counters by reason).
CREATE TABLE pv_gateway_state (
    gateway_id   VARCHAR(64)   NOT NULL PRIMARY KEY,
    tenant_id    VARCHAR(12)   NOT NULL,
    station_id   BIGINT        NOT NULL,
    online       BIGINT        NOT NULL DEFAULT 0,
    last_seen    BIGINT        NOT NULL,
    status       TEXT,
    rejected     TEXT          NOT NULL DEFAULT '{}',
    accepted     BIGINT        NOT NULL DEFAULT 0,
    changed_at   BIGINT        NOT NULL
);
