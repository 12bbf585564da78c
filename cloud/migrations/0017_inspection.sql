-- Inspections (issue 16): reusable items (a title and its checks), plans (stations × items ×
-- maintenance staff on a cycle), the tasks the job generates from plans, and the records that
-- fill them. Times are epoch ms; due dates are `yyyy-MM-dd` in the station's clock.

-- An item: its checks are a JSON array of strings (always read and written whole).
CREATE TABLE pv_inspect_item (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    title         VARCHAR(100)  NOT NULL,
    check_items   TEXT          NOT NULL,
    remark        VARCHAR(500)  NOT NULL DEFAULT '',
    create_user   BIGINT,
    create_time   BIGINT        NOT NULL,
    update_time   BIGINT        NOT NULL,
    is_deleted    BIGINT        NOT NULL DEFAULT 0
);
CREATE INDEX ix_pv_inspect_item_tenant ON pv_inspect_item (tenant_id, is_deleted, create_time);

-- A plan: cycle_period 1 daily .. 6 yearly; alarm_day = days before a due date its task is
-- generated and announced; status 1 enabled, 0 disabled.
CREATE TABLE pv_inspect_plan (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    name          VARCHAR(100)  NOT NULL,
    cycle_period  VARCHAR(2)    NOT NULL,
    alarm_day     BIGINT        NOT NULL DEFAULT 0,
    start_date    VARCHAR(10)   NOT NULL,
    end_date      VARCHAR(10),
    status        BIGINT        NOT NULL DEFAULT 1,
    remark        VARCHAR(500)  NOT NULL DEFAULT '',
    create_user   BIGINT,
    create_time   BIGINT        NOT NULL,
    update_time   BIGINT        NOT NULL,
    is_deleted    BIGINT        NOT NULL DEFAULT 0
);
CREATE INDEX ix_pv_inspect_plan_tenant ON pv_inspect_plan (tenant_id, is_deleted, create_time);

-- What a plan covers, in the order chosen (sort), one row per link.
CREATE TABLE pv_inspect_plan_station (
    plan_id       BIGINT        NOT NULL,
    station_id    BIGINT        NOT NULL,
    sort          BIGINT        NOT NULL DEFAULT 0,
    PRIMARY KEY (plan_id, station_id)
);
CREATE INDEX ix_pv_inspect_plan_station_station ON pv_inspect_plan_station (station_id);
CREATE TABLE pv_inspect_plan_item (
    plan_id       BIGINT        NOT NULL,
    item_id       BIGINT        NOT NULL,
    sort          BIGINT        NOT NULL DEFAULT 0,
    PRIMARY KEY (plan_id, item_id)
);
CREATE INDEX ix_pv_inspect_plan_item_item ON pv_inspect_plan_item (item_id);
CREATE TABLE pv_inspect_plan_user (
    plan_id       BIGINT        NOT NULL,
    user_id       BIGINT        NOT NULL,
    sort          BIGINT        NOT NULL DEFAULT 0,
    PRIMARY KEY (plan_id, user_id)
);
CREATE INDEX ix_pv_inspect_plan_user_user ON pv_inspect_plan_user (user_id);

-- A task: one per plan, station and due date, ever (the unique index also covers deleted rows,
-- so the job's insert-if-absent generates each exactly once, whichever hub runs it). items is
-- the JSON snapshot of the plan's items when it was generated. status 0 unfilled, 1 filled;
-- reminded / overdue: its reminder / overdue notice went out (each claimed by one conditional
-- UPDATE, so one message per task even with several hubs).
CREATE TABLE pv_inspect_task (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    plan_id       BIGINT        NOT NULL,
    station_id    BIGINT        NOT NULL,
    due_date      VARCHAR(10)   NOT NULL,
    items         TEXT          NOT NULL,
    status        BIGINT        NOT NULL DEFAULT 0,
    record_id     BIGINT,
    reminded      BIGINT        NOT NULL DEFAULT 0,
    overdue       BIGINT        NOT NULL DEFAULT 0,
    create_time   BIGINT        NOT NULL,
    is_deleted    BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_pv_inspect_task_due ON pv_inspect_task (plan_id, station_id, due_date);
CREATE INDEX ix_pv_inspect_task_tenant ON pv_inspect_task (tenant_id, is_deleted, due_date);
CREATE INDEX ix_pv_inspect_task_station ON pv_inspect_task (station_id, status, due_date);

-- A record fills one task (one live record per task); run_situation 1 normal, 2 abnormal.
CREATE TABLE pv_inspect_record (
    id              BIGINT        NOT NULL PRIMARY KEY,
    tenant_id       VARCHAR(12)   NOT NULL,
    task_id         BIGINT        NOT NULL,
    plan_id         BIGINT        NOT NULL,
    station_id      BIGINT        NOT NULL,
    due_date        VARCHAR(10)   NOT NULL,
    run_situation   VARCHAR(1)    NOT NULL,
    remark          VARCHAR(500)  NOT NULL DEFAULT '',
    abnormal_count  BIGINT        NOT NULL DEFAULT 0,
    filled_by       BIGINT        NOT NULL,
    filled_time     BIGINT        NOT NULL,
    is_deleted      BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_pv_inspect_record_task ON pv_inspect_record (task_id) WHERE is_deleted = 0;
CREATE INDEX ix_pv_inspect_record_tenant ON pv_inspect_record (tenant_id, is_deleted, filled_time);

-- One answer per check of the task's snapshot; seq is its 0-based place in the record's
-- results (the repair order's `inspectResultIndex`), photos a JSON array of upload links,
-- repair_id the order opened from it.
CREATE TABLE pv_inspect_record_item (
    record_id     BIGINT        NOT NULL,
    seq           BIGINT        NOT NULL,
    item_id       BIGINT        NOT NULL,
    item_title    VARCHAR(100)  NOT NULL,
    check_text    VARCHAR(200)  NOT NULL,
    result        VARCHAR(1)    NOT NULL,
    note          VARCHAR(500)  NOT NULL DEFAULT '',
    photos        TEXT          NOT NULL,
    repair_id     BIGINT,
    PRIMARY KEY (record_id, seq)
);
