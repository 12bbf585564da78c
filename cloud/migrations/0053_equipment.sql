-- Device overview (issue 30, docs/equipment.md).
--
-- How many samples of a packed hour carry suspect marks, written when the hour is packed, so
-- "suspect values of the last day" is a sum over a day's blocks instead of opening (decompressing)
-- every block. NULL on blocks packed before this migration: readers open those.
ALTER TABLE pv_telemetry_block ADD COLUMN suspect_samples BIGINT;

-- Polls per device and hour as its gateway's statuses report them: each status's per-device
-- counters (since the agent started) minus the previous status's (`telemetry::polls`), added to
-- the hour the status arrived in; a counter lower than before (the agent restarted) counts from
-- zero. The first status the hub holds of a gateway is the baseline. Rows older than two days are
-- dropped with each gateway's first status of an hour.
CREATE TABLE pv_device_polls (
    device_id     BIGINT        NOT NULL,
    hour          BIGINT        NOT NULL,
    tenant_id     VARCHAR(12)   NOT NULL,
    station_id    BIGINT        NOT NULL,
    polls_ok      BIGINT        NOT NULL DEFAULT 0,
    polls_failed  BIGINT        NOT NULL DEFAULT 0,
    PRIMARY KEY (device_id, hour)
);
