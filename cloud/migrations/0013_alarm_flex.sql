-- Flexible-bracket (tracker) alarm rules (issue 8): a tracker variable of a station's bracket
-- compared with a threshold, or a range for 'outside' / 'inside' (threshold_high > threshold),
-- held for duration_seconds, raises an alarm of `level` (dictionary alarm_level, 1..4) whose
-- kind is 'flex:<id>' in pv_alarm. variable is a key of `listVariable` (a metric of the
-- vocabulary or the derived angle_deviation); values compare in the metric's canonical unit.
-- Removed rules stay (is_deleted = 1) so their past alarms still name their variable.
CREATE TABLE pv_alarm_setting_flex (
    id                BIGINT            NOT NULL PRIMARY KEY,
    tenant_id         VARCHAR(12)       NOT NULL,
    station_id        BIGINT            NOT NULL,
    variable          VARCHAR(64)       NOT NULL,
    comparison        VARCHAR(8)        NOT NULL,
    threshold         DOUBLE PRECISION  NOT NULL,
    threshold_high    DOUBLE PRECISION,
    duration_seconds  BIGINT            NOT NULL DEFAULT 0,
    level             BIGINT            NOT NULL,
    enabled           BIGINT            NOT NULL DEFAULT 1,
    remark            VARCHAR(500),
    create_user       BIGINT,
    create_time       BIGINT            NOT NULL,
    update_user       BIGINT,
    update_time       BIGINT,
    is_deleted        BIGINT            NOT NULL DEFAULT 0
);
-- The evaluator reads a station's live rules on every cache miss; pages filter by tenant.
CREATE INDEX ix_pv_alarm_setting_flex_station ON pv_alarm_setting_flex (station_id, is_deleted);
CREATE INDEX ix_pv_alarm_setting_flex_tenant ON pv_alarm_setting_flex (tenant_id, is_deleted);
