-- Quality marks (issue 17): values outside their metric's plausible range travel beside the good
-- ones (`wire::Sample::suspect`; ingest also marks what an older gateway sent unmarked). They are
-- kept here, JSON metric -> value, for diagnosis and live views, and never in `metrics`: rollups,
-- reports, analytics and alarms read `metrics` only, so a marked value counts nowhere. NULL: none.
ALTER TABLE pv_telemetry_raw ADD COLUMN suspect TEXT;
ALTER TABLE pv_telemetry_latest ADD COLUMN suspect TEXT;
