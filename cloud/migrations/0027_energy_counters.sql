-- Counted energy (issue 26, docs/reports.md "Counters"): a counter's readings are walked with a
-- state carried from one 5-minute bucket to the next, so glitches, resets, rebases and rejected
-- steps are told apart the same way on every replay.
--
-- The walk's state at the end of each 5-minute bucket (JSON metric -> state; NULL on hour and day
-- rows, and on rows written before this migration, whose successors start from the last raw
-- reading as before).
ALTER TABLE pv_telemetry_rollup ADD COLUMN counters TEXT;

-- Every step of a counter that was not counted as read: a glitch (left out), a reset (counted from
-- zero), a rebase or a rejected step (the step counted 0). Derived from raw readings by the rollup
-- worker: rewritten whenever the bucket that decided it (`decided_bucket`) is recomputed. The
-- administrators' decisions about a step live in pv_energy_correction, not here.
CREATE TABLE pv_counter_event (
    device_id       BIGINT            NOT NULL,
    metric          VARCHAR(32)       NOT NULL,
    -- The step's first reading (epoch ms): what corrections refer to.
    ts              BIGINT            NOT NULL,
    tenant_id       VARCHAR(12)       NOT NULL,
    station_id      BIGINT            NOT NULL,
    device_kind     VARCHAR(16)       NOT NULL,
    kind            VARCHAR(16)       NOT NULL,
    old_value       DOUBLE PRECISION  NOT NULL,
    old_ts          BIGINT            NOT NULL,
    new_value       DOUBLE PRECISION  NOT NULL,
    last_value      DOUBLE PRECISION  NOT NULL,
    readings        BIGINT            NOT NULL,
    counted_wh      DOUBLE PRECISION  NOT NULL,
    decided_ts      BIGINT            NOT NULL,
    decided_bucket  BIGINT            NOT NULL,
    updated_at      BIGINT            NOT NULL,
    PRIMARY KEY (device_id, metric, ts)
);
CREATE INDEX ix_pv_counter_event_station ON pv_counter_event (station_id, ts);
CREATE INDEX ix_pv_counter_event_decided ON pv_counter_event (device_id, decided_bucket);

-- Administrators' corrections, never deleted (a withdrawn one keeps its row with who and why):
--   exclude: energy booked by `device_id`'s readings (every device of the station when NULL) in
--            [from_ts, to_ts) does not count;
--   accept:  the step of `device_id`'s `metric` starting at `event_ts` counts as energy;
--   confirm: the step's reading is confirmed as found (e.g. a real replacement); figures unchanged.
CREATE TABLE pv_energy_correction (
    id              BIGINT          NOT NULL PRIMARY KEY,
    tenant_id       VARCHAR(12)     NOT NULL,
    station_id      BIGINT          NOT NULL,
    device_id       BIGINT,
    kind            VARCHAR(16)     NOT NULL,
    metric          VARCHAR(32),
    from_ts         BIGINT,
    to_ts           BIGINT,
    event_ts        BIGINT,
    reason          VARCHAR(500)    NOT NULL,
    create_user     BIGINT          NOT NULL,
    create_time     BIGINT          NOT NULL,
    withdrawn       BIGINT          NOT NULL DEFAULT 0,
    withdraw_user   BIGINT,
    withdraw_time   BIGINT,
    withdraw_reason VARCHAR(500)
);
CREATE INDEX ix_pv_energy_correction_station ON pv_energy_correction (station_id, withdrawn);
