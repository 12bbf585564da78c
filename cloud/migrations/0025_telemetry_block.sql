-- Compact raw telemetry (issue 19): the samples of one device in one hour packed into one
-- compressed binary block (`telemetry::block`: columns per metric, delta-encoded, zstd), about
-- 1 byte per point instead of 24 as JSON rows. Ingest still writes `pv_telemetry_raw`; the
-- compaction job (`telemetry::compact`) moves closed hours here, and merges a sample that arrives
-- late for an hour already packed. Readers take both tables (`telemetry::raw`).
-- hour: epoch ms of the hour's start (UTC); first_ts / last_ts bound the samples inside.
CREATE TABLE pv_telemetry_block (
    device_id    BIGINT        NOT NULL,
    hour         BIGINT        NOT NULL,
    tenant_id    VARCHAR(12)   NOT NULL,
    station_id   BIGINT        NOT NULL,
    samples      BIGINT        NOT NULL,
    first_ts     BIGINT        NOT NULL,
    last_ts      BIGINT        NOT NULL,
    data         BYTEA         NOT NULL,
    PRIMARY KEY (device_id, hour)
);
