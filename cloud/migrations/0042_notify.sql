-- Notifications that reach people (notify): what each user wants to hear about and how, the
-- user's quiet hours and digest, and the outbox every SMS and e-mail goes through (which is also
-- the administrators' notification log).

-- One row per user and event; no row means the event's defaults (notify::events).
CREATE TABLE pv_notify_subscription (
    id           BIGINT        NOT NULL PRIMARY KEY,
    tenant_id    VARCHAR(12)   NOT NULL,
    user_id      BIGINT        NOT NULL,
    -- alarm_raised, alarm_cleared, smart_warning, gateway_offline, repair_assigned,
    -- repair_overdue, repair_returned, inspection_due
    event        VARCHAR(32)   NOT NULL,
    bell         BIGINT        NOT NULL DEFAULT 1,
    sms          BIGINT        NOT NULL DEFAULT 0,
    email        BIGINT        NOT NULL DEFAULT 0,
    -- alarms below this level go by neither SMS nor e-mail
    min_level    BIGINT        NOT NULL DEFAULT 1,
    update_time  BIGINT        NOT NULL
);
CREATE UNIQUE INDEX ux_pv_notify_subscription ON pv_notify_subscription (user_id, event);

-- One row per user who changed the defaults. Times of day are minutes after midnight in the
-- hub's clock.
CREATE TABLE pv_notify_setting (
    user_id       BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    quiet_enabled BIGINT        NOT NULL DEFAULT 1,
    quiet_start   BIGINT        NOT NULL DEFAULT 1320,
    quiet_end     BIGINT        NOT NULL DEFAULT 420,
    -- alarms below this level wait for the daily digest
    digest_below  BIGINT        NOT NULL DEFAULT 3,
    digest_hour   BIGINT        NOT NULL DEFAULT 8,
    lang          VARCHAR(8)    NOT NULL DEFAULT 'zh',
    update_time   BIGINT        NOT NULL
);

-- Every SMS and e-mail to send. status: 0 waiting, 1 being sent (claimed until lease_until),
-- 2 sent, 3 failed (given up), 4 skipped (no provider or no address), 5 folded into the digest
-- row digest_id.
CREATE TABLE pv_notify_outbox (
    id           BIGINT        NOT NULL PRIMARY KEY,
    tenant_id    VARCHAR(12)   NOT NULL,
    user_id      BIGINT        NOT NULL,
    channel      VARCHAR(8)    NOT NULL,
    event        VARCHAR(32)   NOT NULL,
    level        BIGINT        NOT NULL DEFAULT 0,
    biz_id       BIGINT,
    title        VARCHAR(200)  NOT NULL,
    title_en     VARCHAR(200)  NOT NULL,
    content      VARCHAR(1000) NOT NULL,
    content_en   VARCHAR(1000) NOT NULL,
    -- critical alarms and escalations: never held by quiet hours nor the digest
    urgent       BIGINT        NOT NULL DEFAULT 0,
    -- waits for the user's digest
    digest       BIGINT        NOT NULL DEFAULT 0,
    status       BIGINT        NOT NULL DEFAULT 0,
    attempts     BIGINT        NOT NULL DEFAULT 0,
    next_time    BIGINT        NOT NULL,
    lease_until  BIGINT        NOT NULL DEFAULT 0,
    address      VARCHAR(255),
    result       VARCHAR(500),
    digest_id    BIGINT,
    create_time  BIGINT        NOT NULL,
    sent_time    BIGINT
);
CREATE INDEX ix_pv_notify_outbox_due ON pv_notify_outbox (status, next_time);
CREATE INDEX ix_pv_notify_outbox_log ON pv_notify_outbox (tenant_id, create_time);
