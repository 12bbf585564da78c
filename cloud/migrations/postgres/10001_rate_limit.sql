-- Per-client-address rate limits shared by every hub replica on this database (a replica counting
-- only what reached it would let a client spend each replica's quota in turn). One row per
-- (route class, address): its GCRA "theoretical arrival time", epoch ms. A row whose time has
-- passed holds no information (its quota is full again) and is swept.
CREATE TABLE IF NOT EXISTS kernel_rate_limit (
    bucket   VARCHAR(200) NOT NULL PRIMARY KEY,
    tat      BIGINT       NOT NULL,
    allowed  BIGINT       NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_kernel_rate_limit_tat ON kernel_rate_limit (tat);
