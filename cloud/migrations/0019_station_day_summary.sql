-- Station-day summary (issue 15): per station and local day (the bucket of the '1d' rollups),
-- the sums reports read over months and years, by device kind: the inverters' energy, the grid
-- meter's import and export, the weather station's irradiation, with how many rows carried each
-- figure (a sum over no rows is "not measured", not 0). A year over a hundred stations reads
-- 36 500 rows here instead of 800 000 device-day rows. The rollup worker rewrites a row whenever
-- it recomputes a day of one of the station's devices; the hub rebuilds a station's rows when
-- its set of live devices is not the one they were summed over (pv_telemetry_station_devices),
-- and at start-up for stations that have none yet.
CREATE TABLE pv_telemetry_station_day (
    station_id         BIGINT            NOT NULL,
    bucket             BIGINT            NOT NULL,
    inverter_rows      BIGINT            NOT NULL,
    inverter_samples   BIGINT            NOT NULL,
    energy_wh          DOUBLE PRECISION,
    energy_n           BIGINT            NOT NULL,
    meter_rows         BIGINT            NOT NULL,
    meter_samples      BIGINT            NOT NULL,
    import_wh          DOUBLE PRECISION,
    import_n           BIGINT            NOT NULL,
    export_wh          DOUBLE PRECISION,
    export_n           BIGINT            NOT NULL,
    weather_rows       BIGINT            NOT NULL,
    weather_samples    BIGINT            NOT NULL,
    irradiation_wh_m2  DOUBLE PRECISION,
    irradiation_n      BIGINT            NOT NULL,
    updated_at         BIGINT            NOT NULL,
    PRIMARY KEY (station_id, bucket)
);

-- The live devices a station's summary rows were summed over: inverters, grid meters, weather
-- stations, as `2:i<ids>|m<ids>|w<ids>` (the leading version changes when what the rows hold does).
CREATE TABLE pv_telemetry_station_devices (
    station_id   BIGINT         NOT NULL PRIMARY KEY,
    devices      TEXT           NOT NULL,
    updated_at   BIGINT         NOT NULL
);

-- Station-hour summary: per station and hour (the bucket of the '1h' rollups), what the
-- performance ratio and the bill read per interval, kept and rebuilt with the day rows: the
-- inverters' energy, the grid meter's import and export, and the figures of the station's weather
-- station in that hour (the one with the highest id when there are several): irradiation, mean
-- irradiance, mean module temperature, and whether any measured plane-of-array irradiance. A
-- station's month reads 720 rows here instead of some 15 000 device-hour rows and their metrics.
CREATE TABLE pv_telemetry_station_hour (
    station_id         BIGINT            NOT NULL,
    bucket             BIGINT            NOT NULL,
    inverter_rows      BIGINT            NOT NULL,
    energy_wh          DOUBLE PRECISION,
    energy_n           BIGINT            NOT NULL,
    meter_rows         BIGINT            NOT NULL,
    import_wh          DOUBLE PRECISION,
    import_n           BIGINT            NOT NULL,
    export_wh          DOUBLE PRECISION,
    export_n           BIGINT            NOT NULL,
    weather_rows       BIGINT            NOT NULL,
    irradiation_wh_m2  DOUBLE PRECISION,
    irradiance         DOUBLE PRECISION,
    module_temp        DOUBLE PRECISION,
    poa                BIGINT            NOT NULL,
    updated_at         BIGINT            NOT NULL,
    PRIMARY KEY (station_id, bucket)
);
