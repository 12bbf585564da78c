-- Repair orders (issue 16): a fault turned into work, dispatched to a maintenance user,
-- accepted, repaired on site, verified and evaluated by the station's owner. The state machine
-- is `cloud/src/repair/machine.rs` (documented in docs/repair.md); every transition is one
-- conditional UPDATE (`WHERE id = ? AND status = ?`) plus a row of `pv_repair_log`, in one
-- transaction, so two people acting at once cannot both succeed. Times are epoch ms.
CREATE TABLE pv_repair_order (
    id                    BIGINT          NOT NULL PRIMARY KEY,
    tenant_id             VARCHAR(12)     NOT NULL,
    -- "WO" + yyyyMMdd + 4 digits, unique per tenant.
    code                  VARCHAR(20)     NOT NULL,
    title                 VARCHAR(200)    NOT NULL,
    description           VARCHAR(2000)   NOT NULL DEFAULT '',
    station_id            BIGINT          NOT NULL,
    device_id             BIGINT,
    device_name           VARCHAR(100)    NOT NULL DEFAULT '',
    alarm_id              BIGINT,
    alarm_name            VARCHAR(200)    NOT NULL DEFAULT '',
    alarm_level           BIGINT,
    inspect_record_id     BIGINT,
    inspect_result_index  BIGINT,
    -- 1 manual, 2 alarm, 3 inspection.
    source                BIGINT          NOT NULL,
    -- Alarm level 1 notice .. 4 critical: picks the deadlines.
    level                 BIGINT          NOT NULL,
    -- 1 submitted .. 7 completed, 8 canceled.
    status                BIGINT          NOT NULL,
    assignee_id           BIGINT,
    creator_id            BIGINT          NOT NULL,
    -- JSON arrays of upload links.
    photos                TEXT            NOT NULL,
    work_done             VARCHAR(2000)   NOT NULL DEFAULT '',
    parts                 VARCHAR(1000)   NOT NULL DEFAULT '',
    finish_photos         TEXT            NOT NULL,
    rating                BIGINT,
    evaluation            VARCHAR(1000)   NOT NULL DEFAULT '',
    response_deadline     BIGINT          NOT NULL,
    repair_deadline       BIGINT          NOT NULL,
    -- Set once by the deadline job when it has messaged that a deadline passed.
    response_notified     BIGINT          NOT NULL DEFAULT 0,
    repair_notified       BIGINT          NOT NULL DEFAULT 0,
    -- Set once the owners were told the order awaits their evaluation (the alarm engine moves an
    -- order to "to be evaluated" without messaging; the deadline job sends what is pending).
    evaluate_notified     BIGINT          NOT NULL DEFAULT 0,
    create_time           BIGINT          NOT NULL,
    accept_time           BIGINT,
    finish_time           BIGINT,
    verify_time           BIGINT,
    complete_time         BIGINT,
    cancel_time           BIGINT,
    update_time           BIGINT          NOT NULL,
    is_deleted            BIGINT          NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_pv_repair_order_code ON pv_repair_order (tenant_id, code);
-- One open order (not completed 7, not canceled 8) per alarm: a second create loses the race.
CREATE UNIQUE INDEX ux_pv_repair_order_alarm_open ON pv_repair_order (alarm_id) WHERE status < 7 AND alarm_id IS NOT NULL;
CREATE INDEX ix_pv_repair_order_tenant ON pv_repair_order (tenant_id, status, create_time);
CREATE INDEX ix_pv_repair_order_station ON pv_repair_order (station_id, status);
CREATE INDEX ix_pv_repair_order_assignee ON pv_repair_order (assignee_id, status);

-- The timeline: one row per transition (user 0 is the system).
CREATE TABLE pv_repair_log (
    id            BIGINT          NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)     NOT NULL,
    order_id      BIGINT          NOT NULL,
    action        VARCHAR(16)     NOT NULL,
    from_status   BIGINT          NOT NULL,
    to_status     BIGINT          NOT NULL,
    user_id       BIGINT          NOT NULL,
    note          VARCHAR(1000)   NOT NULL DEFAULT '',
    create_time   BIGINT          NOT NULL
);
CREATE INDEX ix_pv_repair_log_order ON pv_repair_log (order_id, create_time);

-- The alarm's latest order, and when its condition ended while an open order kept it open.
ALTER TABLE pv_alarm ADD COLUMN repair_id BIGINT;
ALTER TABLE pv_alarm ADD COLUMN condition_end_time BIGINT;
