-- Several hubs on one PostgreSQL (telemetry::ownership): the live replicas and which of them
-- ingests each gateway. Times are epoch ms of the database's clock. Unused on SQLite, where one
-- hub owns every gateway.
CREATE TABLE pv_replica (
    replica   VARCHAR(64)  NOT NULL PRIMARY KEY,
    seen_at   BIGINT       NOT NULL
);

CREATE TABLE pv_gateway_lease (
    gateway_id  VARCHAR(64)  NOT NULL PRIMARY KEY,
    replica     VARCHAR(64)  NOT NULL,
    expires_at  BIGINT       NOT NULL
);
