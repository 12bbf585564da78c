-- Several cloud replicas on one database (issue 7).
--
-- Periodic jobs that must run once cluster-wide (rollups, raw retention, alarm analytics, ...)
-- run under `kernel::leader`: a PostgreSQL advisory lock keeps two replicas from running one job
-- at the same time, and this table remembers when each job last ran, so a job due every hour
-- runs once an hour across all replicas instead of once an hour per replica. `job` is the name
-- the code passes (e.g. 'telemetry.retention'); times are epoch ms on the clock of the replica
-- that ran it.
CREATE TABLE pv_job_run (
    job          VARCHAR(64)   NOT NULL PRIMARY KEY,
    started_at   BIGINT        NOT NULL,
    finished_at  BIGINT        NOT NULL
);
