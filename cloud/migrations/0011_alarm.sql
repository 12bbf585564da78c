-- Alarms and smart warnings (issue 8).
--
-- One row per alarm occurrence: raised, possibly re-triggered (occurrences, last_time), then
-- acknowledged and cleared. At most one *open* row (active 0 or acknowledged 1) per
-- (station, device, kind) — the partial unique index makes "one active alarm per device and
-- alarm kind" a database guarantee, so two evaluators (or replicas) racing on the same condition
-- cannot open two rows; the loser's insert conflicts and it updates the open row instead.
-- device_id 0 means the station or its gateway. Times are epoch ms.
CREATE TABLE pv_alarm (
    id            BIGINT            NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)       NOT NULL,
    station_id    BIGINT            NOT NULL,
    device_id     BIGINT            NOT NULL DEFAULT 0,
    device_kind   VARCHAR(16)       NOT NULL,
    device_name   VARCHAR(100)      NOT NULL DEFAULT '',
    kind          VARCHAR(96)       NOT NULL,
    category      VARCHAR(16)       NOT NULL,
    type          BIGINT            NOT NULL,
    level         BIGINT            NOT NULL,
    code          VARCHAR(32)       NOT NULL DEFAULT '',
    name          VARCHAR(200)      NOT NULL,
    name_en       VARCHAR(200)      NOT NULL,
    detail        VARCHAR(1000)     NOT NULL DEFAULT '',
    detail_en     VARCHAR(1000)     NOT NULL DEFAULT '',
    value         DOUBLE PRECISION,
    threshold     DOUBLE PRECISION,
    status        BIGINT            NOT NULL DEFAULT 0,
    first_time    BIGINT            NOT NULL,
    last_time     BIGINT            NOT NULL,
    occurrences   BIGINT            NOT NULL DEFAULT 1,
    ack_user      BIGINT,
    ack_time      BIGINT,
    ack_note      VARCHAR(500),
    clear_user    BIGINT,
    clear_time    BIGINT,
    clear_note    VARCHAR(500),
    create_time   BIGINT            NOT NULL
);
CREATE UNIQUE INDEX ux_pv_alarm_open ON pv_alarm (station_id, device_id, kind) WHERE status < 2;
CREATE INDEX ix_pv_alarm_tenant_time ON pv_alarm (tenant_id, type, last_time);
CREATE INDEX ix_pv_alarm_station_status ON pv_alarm (station_id, status);

-- Notifications raised by alarms and warnings, one row per recipient.
CREATE TABLE pv_message (
    id            BIGINT            NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)       NOT NULL,
    user_id       BIGINT            NOT NULL,
    alarm_id      BIGINT,
    type          BIGINT            NOT NULL,
    title         VARCHAR(200)      NOT NULL,
    title_en      VARCHAR(200)      NOT NULL,
    content       VARCHAR(1000)     NOT NULL DEFAULT '',
    content_en    VARCHAR(1000)     NOT NULL DEFAULT '',
    is_read       BIGINT            NOT NULL DEFAULT 0,
    create_time   BIGINT            NOT NULL
);
CREATE INDEX ix_pv_message_user ON pv_message (user_id, is_read, create_time);

-- Per-tenant settings of alarm rules and analytics (thresholds, bounds), one JSON value per key;
-- a missing key means the built-in default.
CREATE TABLE pv_alarm_rule (
    tenant_id     VARCHAR(12)       NOT NULL,
    rule_key      VARCHAR(64)       NOT NULL,
    value         TEXT              NOT NULL,
    update_user   BIGINT,
    update_time   BIGINT            NOT NULL,
    PRIMARY KEY (tenant_id, rule_key)
);

-- The site's clock: minutes east of UTC. NULL means the hub's configured timezone. Windows of the
-- day (dispersion's 10:00-14:00) are taken in this local time.
ALTER TABLE pv_station ADD COLUMN utc_offset_minutes BIGINT;
