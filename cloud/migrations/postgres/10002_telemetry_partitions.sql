-- Time-partitioned telemetry (issue 19), PostgreSQL only: the sample rows by UTC day (range on ts),
-- the packed hours and the rollups by UTC month (range on hour / bucket). Retention then drops a
-- whole day (or month) with its indexes instead of deleting its rows one by one, and the indexes
-- a writer touches stay those of the current partition. Bounds are epoch ms, like the columns.
-- Each table keeps its name, columns, primary key (which holds the partition key) and indexes, so
-- no statement of the hub changes; every existing row is copied into the new layout.
--
-- A DEFAULT partition takes what no partition covers (a late sample from a year ago, a day the
-- maintenance job has not prepared yet): nothing is ever refused for want of a partition. The job
-- (`telemetry::partition`) creates partitions ahead and moves what landed in DEFAULT into its own
-- partition, through the function below.

-- The start (epoch ms) of the UTC day or month holding `ms`.
CREATE OR REPLACE FUNCTION pv_partition_start(grain TEXT, ms BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $fn$
    SELECT CASE grain
        WHEN 'day' THEN ms - (((ms % 86400000) + 86400000) % 86400000)
        ELSE (EXTRACT(EPOCH FROM date_trunc('month', to_timestamp(ms / 1000.0) AT TIME ZONE 'UTC')
              AT TIME ZONE 'UTC') * 1000)::BIGINT
    END
$fn$;

-- The start (epoch ms) of the day or month after the one starting at `start`.
CREATE OR REPLACE FUNCTION pv_partition_next(grain TEXT, start BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $fn$
    SELECT CASE grain
        WHEN 'day' THEN start + 86400000
        ELSE (EXTRACT(EPOCH FROM ((to_timestamp(start / 1000.0) AT TIME ZONE 'UTC') + INTERVAL '1 month')
              AT TIME ZONE 'UTC') * 1000)::BIGINT
    END
$fn$;

-- `<table>_<yyyymmdd>` for a day, `<table>_<yyyymm>` for a month (UTC).
CREATE OR REPLACE FUNCTION pv_partition_name(tbl TEXT, grain TEXT, start BIGINT)
RETURNS TEXT LANGUAGE sql IMMUTABLE AS $fn$
    SELECT tbl || '_' || to_char(to_timestamp(start / 1000.0) AT TIME ZONE 'UTC',
                                 CASE grain WHEN 'day' THEN 'YYYYMMDD' ELSE 'YYYYMM' END)
$fn$;

-- The starts of the `n` + 1 days or months from the one holding `from_ms` on.
CREATE OR REPLACE FUNCTION pv_partition_ahead(grain TEXT, from_ms BIGINT, n BIGINT)
RETURNS SETOF BIGINT LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
    s BIGINT := pv_partition_start(grain, from_ms);
BEGIN
    FOR i IN 0..n LOOP
        RETURN NEXT s;
        s := pv_partition_next(grain, s);
    END LOOP;
END
$fn$;

-- The starts of the days or months in [lo, hi) of which `parent`'s DEFAULT partition holds rows.
CREATE OR REPLACE FUNCTION pv_partition_pending(parent TEXT, col TEXT, grain TEXT, lo BIGINT, hi BIGINT)
RETURNS SETOF BIGINT LANGUAGE plpgsql STABLE AS $fn$
BEGIN
    IF to_regclass(parent || '_default') IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format('SELECT DISTINCT pv_partition_start($1, %I) FROM %I WHERE %I >= $2 AND %I < $3 ORDER BY 1',
                                col, parent || '_default', col, col) USING grain, lo, hi;
END
$fn$;

-- Makes partition `child` of `parent` for `col` in [lo, hi): created standalone with the
-- parent's columns and indexes, given what the DEFAULT partition holds in that range (moved, in
-- this transaction), then attached. Attaching takes a weaker lock on the parent than
-- CREATE TABLE ... PARTITION OF, so ingest keeps writing meanwhile; the CHECK spares the attach
-- a scan of the new table. Returns the rows moved out of DEFAULT, or -1 if there is nothing to do.
CREATE OR REPLACE FUNCTION pv_partition_create(parent TEXT, child TEXT, col TEXT, lo BIGINT, hi BIGINT)
RETURNS BIGINT LANGUAGE plpgsql AS $fn$
DECLARE
    moved BIGINT := 0;
BEGIN
    -- Nothing when it exists, or when `parent` is no longer a partitioned table (an operator
    -- who turned it into something else, see docs/decisions.md).
    IF to_regclass(child) IS NOT NULL
       OR NOT EXISTS (SELECT 1 FROM pg_partitioned_table WHERE partrelid = to_regclass(parent)) THEN
        RETURN -1;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING INDEXES)', child, parent);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I >= %s AND %I < %s)',
                   child, child || '_range', col, lo, col, hi);
    IF to_regclass(parent || '_default') IS NOT NULL THEN
        -- Until the commit no row can reach DEFAULT: one written there after the move would
        -- make the attach fail (DEFAULT must hold nothing of the new range). Writers for other
        -- partitions do not wait.
        EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', parent || '_default');
        EXECUTE format('WITH m AS (DELETE FROM %I WHERE %I >= $1 AND %I < $2 RETURNING *) '
                       'INSERT INTO %I SELECT * FROM m',
                       parent || '_default', col, col, child) USING lo, hi;
        GET DIAGNOSTICS moved = ROW_COUNT;
    END IF;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', parent, child, lo, hi);
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', child, child || '_range');
    RETURN moved;
END
$fn$;

-- Detaches partition `child` of `parent` and drops it with its rows. Returns the rows it held.
CREATE OR REPLACE FUNCTION pv_partition_drop(parent TEXT, child TEXT)
RETURNS BIGINT LANGUAGE plpgsql AS $fn$
DECLARE
    n BIGINT;
BEGIN
    EXECUTE format('SELECT COUNT(*) FROM %I', child) INTO n;
    EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', parent, child);
    EXECUTE format('DROP TABLE %I', child);
    RETURN n;
END
$fn$;

-- Deletes the rows of `parent`'s DEFAULT partition with `col` before `cutoff`; returns how many.
CREATE OR REPLACE FUNCTION pv_partition_prune_default(parent TEXT, col TEXT, cutoff BIGINT)
RETURNS BIGINT LANGUAGE plpgsql AS $fn$
DECLARE
    n BIGINT := 0;
BEGIN
    IF to_regclass(parent || '_default') IS NOT NULL THEN
        EXECUTE format('DELETE FROM %I WHERE %I < $1', parent || '_default', col) USING cutoff;
        GET DIAGNOSTICS n = ROW_COUNT;
    END IF;
    RETURN n;
END
$fn$;

-- The partitions of `parent` with their bounds (the DEFAULT one has none).
CREATE OR REPLACE FUNCTION pv_partitions(parent TEXT)
RETURNS TABLE (name TEXT, lo BIGINT, hi BIGINT) LANGUAGE sql STABLE AS $fn$
    SELECT c.relname::TEXT,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''?(-?\d+)''?\)'))[1]::BIGINT,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''?(-?\d+)''?\)'))[1]::BIGINT
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = to_regclass(parent)
    ORDER BY 2 NULLS LAST
$fn$;

-- Rebuilds `tbl` as a partitioned table (range on `col`, `grain` 'day' or 'month') keeping every
-- row: renamed aside, the partitioned table made like it, partitions made for every day or month
-- its rows fall in (so the copy lands in them, not in DEFAULT), rows copied, the old table dropped.
-- Nothing to do when it is partitioned already.
CREATE OR REPLACE FUNCTION pv_partition_convert(tbl TEXT, col TEXT, grain TEXT, pk TEXT)
RETURNS VOID LANGUAGE plpgsql AS $fn$
DECLARE
    aside TEXT := tbl || '_unpartitioned';
    idx RECORD;
    unit BIGINT;
    first_ms BIGINT;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_partitioned_table WHERE partrelid = to_regclass(tbl)) THEN
        RETURN;
    END IF;
    EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, aside);
    -- Index names are schema-wide: the old ones step aside for the new table's.
    FOR idx IN SELECT indexrelid::regclass::TEXT AS name FROM pg_index WHERE indrelid = to_regclass(aside) LOOP
        EXECUTE format('ALTER INDEX %I RENAME TO %I', idx.name, idx.name || '_old');
    END LOOP;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS, PRIMARY KEY (%s)) PARTITION BY RANGE (%I)',
                   tbl, aside, pk, col);
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', tbl || '_default', tbl);
    FOR first_ms IN EXECUTE format('SELECT DISTINCT pv_partition_start($1, %I) FROM %I', col, aside) USING grain
    LOOP
        PERFORM pv_partition_create(tbl, pv_partition_name(tbl, grain, first_ms), col, first_ms,
                                    pv_partition_next(grain, first_ms));
    END LOOP;
    EXECUTE format('INSERT INTO %I SELECT * FROM %I', tbl, aside);
    EXECUTE format('DROP TABLE %I', aside);
END
$fn$;

SELECT pv_partition_convert('pv_telemetry_raw', 'ts', 'day', 'device_id, ts');
SELECT pv_partition_convert('pv_telemetry_block', 'hour', 'month', 'device_id, hour');
SELECT pv_partition_convert('pv_telemetry_rollup', 'bucket', 'month', 'device_id, period, bucket');
-- The reports' covering index (see the common migrations), now on every month of rollups.
CREATE INDEX IF NOT EXISTS ix_pv_telemetry_rollup_station ON pv_telemetry_rollup (
    station_id, period, bucket, device_kind, device_id, tenant_id, samples,
    energy_wh, energy_import_wh, energy_export_wh, irradiation_wh_m2
);

-- Run by the hub on each session of its native PostgreSQL pool (`kernel::db`): ingest copies a
-- group of samples (COPY ... FROM STDIN) into this session's staging table, then inserts them
-- into pv_telemetry_raw in one statement that skips what is stored already (a replayed batch).
-- Temporary: private to the session, never WAL-logged; emptied at each commit.
CREATE OR REPLACE FUNCTION pv_session_prepare()
RETURNS VOID LANGUAGE plpgsql AS $fn$
BEGIN
    -- A group of 64 batches of 200 samples is ≈ 9 MB of rows: with the default 8 MB of
    -- session-local buffers the staging table spilled to disk at every group. Settable only
    -- before the session first uses a temporary table, hence here.
    PERFORM set_config('temp_buffers', '64MB', false);
    CREATE TEMP TABLE IF NOT EXISTS pv_raw_stage (
        device_id    BIGINT   NOT NULL,
        ts           BIGINT   NOT NULL,
        tenant_id    TEXT     NOT NULL,
        station_id   BIGINT   NOT NULL,
        seq          BIGINT   NOT NULL,
        metrics      TEXT     NOT NULL,
        suspect      TEXT
    ) ON COMMIT DELETE ROWS;
END
$fn$;

-- Today's partitions and the next ones (as the maintenance job keeps them: 7 days of sample rows,
-- 3 months of packed hours and rollups), so a new installation writes into them from the start.
SELECT pv_partition_create(t.name, pv_partition_name(t.name, t.grain, s), t.col, s, pv_partition_next(t.grain, s))
FROM (VALUES ('pv_telemetry_raw', 'ts', 'day', 7),
             ('pv_telemetry_block', 'hour', 'month', 3),
             ('pv_telemetry_rollup', 'bucket', 'month', 3)) AS t(name, col, grain, ahead),
     LATERAL pv_partition_ahead(t.grain, (EXTRACT(EPOCH FROM now()) * 1000)::BIGINT, t.ahead) AS s;
