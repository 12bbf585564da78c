-- Vendor clouds as a data source (issue 30): the plants of each vendor account, their devices
-- and the poller's state per account. A device fed by a vendor cloud is an ordinary
-- pv_inverter / pv_meter / pv_weather row of its station plus a pv_vendor_device row pointing
-- at it ("source = vendor cloud" is EXISTS pv_vendor_device WHERE device_id = x).

-- iSolarCloud signs requests with an app key and an access key besides the password.
ALTER TABLE pv_inverter_third ADD COLUMN app_key VARCHAR(100);
-- sealed with the credential key (never answered)
ALTER TABLE pv_inverter_third ADD COLUMN access_key_enc VARCHAR(1000);

CREATE TABLE pv_vendor_plant (
    id                BIGINT           NOT NULL PRIMARY KEY,
    tenant_id         VARCHAR(12)      NOT NULL,
    account_id        BIGINT           NOT NULL,
    plant_id          VARCHAR(64)      NOT NULL,
    name              VARCHAR(200)     NOT NULL,
    capacity_kwp      DOUBLE PRECISION,
    address           VARCHAR(255),
    station_id        BIGINT,
    -- Every sample before this time (epoch ms) is stored, as far as the vendor has it.
    backfilled_until  BIGINT,
    -- Where the backfill of the current mapping started (for its progress).
    backfill_from     BIGINT,
    create_time       BIGINT           NOT NULL,
    update_time       BIGINT
);
CREATE UNIQUE INDEX ux_pv_vendor_plant ON pv_vendor_plant (account_id, plant_id);
CREATE INDEX ix_pv_vendor_plant_station ON pv_vendor_plant (station_id);

CREATE TABLE pv_vendor_device (
    id                BIGINT           NOT NULL PRIMARY KEY,
    tenant_id         VARCHAR(12)      NOT NULL,
    account_id        BIGINT           NOT NULL,
    plant_id          VARCHAR(64)      NOT NULL,
    vendor_device_id  VARCHAR(64)      NOT NULL,
    serial            VARCHAR(64)      NOT NULL,
    -- inverter | meter | weather
    kind              VARCHAR(16)      NOT NULL,
    name              VARCHAR(100),
    model             VARCHAR(64),
    firmware          VARCHAR(64),
    rated_power_w     DOUBLE PRECISION,
    -- our pv_inverter / pv_meter / pv_weather row, made when the plant is mapped
    device_id         BIGINT,
    station_id        BIGINT,
    last_sample_ts    BIGINT,
    create_time       BIGINT           NOT NULL,
    update_time       BIGINT
);
CREATE UNIQUE INDEX ux_pv_vendor_device ON pv_vendor_device (account_id, vendor_device_id);
CREATE INDEX ix_pv_vendor_device_device ON pv_vendor_device (device_id);

CREATE TABLE pv_vendor_poll (
    account_id        BIGINT           NOT NULL PRIMARY KEY,
    tenant_id         VARCHAR(12)      NOT NULL,
    -- ok | auth_failed | throttled | unreachable | idle
    state             VARCHAR(16)      NOT NULL DEFAULT 'idle',
    last_ok           BIGINT,
    last_error        TEXT,
    error_since       BIGINT,
    paused_until      BIGINT,
    requests_day      BIGINT           NOT NULL DEFAULT 0,
    day               VARCHAR(10),
    -- The replica polling the account and until when its lease holds (compare-and-set).
    owner             VARCHAR(64),
    lease_until       BIGINT,
    update_time       BIGINT
);
