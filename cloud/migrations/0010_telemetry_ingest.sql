-- Rollup work left by ingest (issue 7). Ingest marks the 5-minute bucket of every stored sample
-- in the same transaction as the sample, so a crash between storing and rolling up loses no
-- work; the rollup worker recomputes marked buckets from raw and deletes a mark only if nobody
-- marked it again meanwhile (`mark` is a fresh snowflake id on every marking).
CREATE TABLE pv_telemetry_dirty (
    device_id    BIGINT        NOT NULL,
    bucket       BIGINT        NOT NULL,
    mark         BIGINT        NOT NULL,
    PRIMARY KEY (device_id, bucket)
);
CREATE INDEX ix_pv_telemetry_dirty_bucket ON pv_telemetry_dirty (bucket);
