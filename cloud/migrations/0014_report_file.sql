-- Report files (issue 15): the monthly report of each station as an .xlsx, produced once on the
-- first of each month by the job runner (or on demand), listed and downloaded from the console.
-- The workbook is stored in the row itself, so every hub replica on one PostgreSQL serves it.
-- One live monthly report per station and month: the job's insert loses a race harmlessly.
CREATE TABLE pv_report_file (
    id            BIGINT        NOT NULL PRIMARY KEY,
    tenant_id     VARCHAR(12)   NOT NULL,
    station_id    BIGINT        NOT NULL,
    kind          VARCHAR(16)   NOT NULL,
    period        VARCHAR(16)   NOT NULL,
    name          VARCHAR(200)  NOT NULL,
    content       BYTEA         NOT NULL,
    file_size     BIGINT        NOT NULL,
    create_user   BIGINT,
    create_time   BIGINT        NOT NULL,
    is_deleted    BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_pv_report_file_period ON pv_report_file (station_id, kind, period) WHERE is_deleted = 0;
CREATE INDEX ix_pv_report_file_tenant ON pv_report_file (tenant_id, is_deleted, create_time);
