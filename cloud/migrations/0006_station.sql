-- Station domain: stations with images and user assignments, device registries (inverters,
-- third-party inverter accounts, cameras, weather stations, meters), station prices and
-- time-of-use electricity price schedules.
-- Dictionary-coded fields hold the dictionary key as text (the console binds selects by key).
-- Dates (effective dates) are epoch ms of local midnight; times of day are minutes 0-1440.

CREATE TABLE pv_station (
    id                     BIGINT           NOT NULL PRIMARY KEY,
    tenant_id              VARCHAR(12)      NOT NULL,
    name                   VARCHAR(100)     NOT NULL,
    address                VARCHAR(255),
    contact                VARCHAR(50),
    contact_phone          VARCHAR(20),
    azimuth                DOUBLE PRECISION,
    inclination            DOUBLE PRECISION,
    component_count        BIGINT,
    -- kWp (DC), the P0 of yield and PR figures.
    component_capacity     DOUBLE PRECISION,
    -- kW (AC), the sum of inverter ratings as the owner declares it.
    capacity               DOUBLE PRECISION,
    grid_connection_time   BIGINT,
    installer              VARCHAR(50),
    installer_phone        VARCHAR(20),
    owner_id               BIGINT,
    owner_name             VARCHAR(50),
    owner_phone            VARCHAR(20),
    gateway_id             VARCHAR(64),
    gateway_sn             VARCHAR(64),
    remark1                VARCHAR(500),
    remark2                VARCHAR(500),
    remark3                VARCHAR(500),
    electricity_price_type VARCHAR(20),
    feed_in_tariff         DOUBLE PRECISION,
    installation_status    VARCHAR(20)      NOT NULL DEFAULT '1',
    state                  VARCHAR(20)      NOT NULL DEFAULT '1',
    station_type           VARCHAR(20),
    inverter_manufacturer  VARCHAR(20),
    contribution_way       VARCHAR(20),
    connected_type         VARCHAR(20),
    latitude               DOUBLE PRECISION,
    longitude              DOUBLE PRECISION,
    province_code          VARCHAR(12),
    city_code              VARCHAR(12),
    district_code          VARCHAR(12),
    create_user            BIGINT,
    create_dept            BIGINT,
    create_time            BIGINT           NOT NULL,
    update_user            BIGINT,
    update_time            BIGINT,
    is_deleted             BIGINT           NOT NULL DEFAULT 0
);
CREATE INDEX ix_pv_station_tenant ON pv_station (tenant_id, is_deleted);

-- Up to 5 uploaded pictures per station (blade_attach rows of the same tenant).
CREATE TABLE pv_station_image (
    station_id  BIGINT NOT NULL,
    attach_id   BIGINT NOT NULL,
    sort        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (station_id, attach_id)
);

-- Which stations a user is given; owners and maintenance staff see only these.
CREATE TABLE pv_user_station (
    user_id     BIGINT      NOT NULL,
    station_id  BIGINT      NOT NULL,
    tenant_id   VARCHAR(12) NOT NULL,
    PRIMARY KEY (user_id, station_id)
);
CREATE INDEX ix_pv_user_station_station ON pv_user_station (station_id);

CREATE TABLE pv_inverter (
    id                  BIGINT           NOT NULL PRIMARY KEY,
    tenant_id           VARCHAR(12)      NOT NULL,
    station_id          BIGINT           NOT NULL,
    name                VARCHAR(100)     NOT NULL,
    device_type         VARCHAR(20),
    manufacturer        VARCHAR(20),
    sn                  VARCHAR(64)      NOT NULL,
    collector_sn        VARCHAR(64),
    verification_code   VARCHAR(64),
    gateway_id          VARCHAR(64),
    rated_power         DOUBLE PRECISION,
    strings_count       BIGINT           NOT NULL DEFAULT 1,
    -- Comma-joined module count per string, in string order (dispersion normalises by it).
    modules_per_string  VARCHAR(1000),
    purchasing_company  VARCHAR(100),
    map_model           VARCHAR(64),
    unit_id             BIGINT,
    modbus_address      VARCHAR(255),
    remark              VARCHAR(500),
    create_user         BIGINT,
    create_time         BIGINT           NOT NULL,
    update_user         BIGINT,
    update_time         BIGINT,
    is_deleted          BIGINT           NOT NULL DEFAULT 0
);
CREATE INDEX ix_pv_inverter_station ON pv_inverter (station_id);
CREATE UNIQUE INDEX ux_pv_inverter_sn ON pv_inverter (tenant_id, sn) WHERE is_deleted = 0;

-- Accounts on an inverter vendor's cloud; the password is encrypted (see docs/decisions.md).
CREATE TABLE pv_inverter_third (
    id              BIGINT        NOT NULL PRIMARY KEY,
    tenant_id       VARCHAR(12)   NOT NULL,
    station_id      BIGINT,
    platform        VARCHAR(20)   NOT NULL,
    account         VARCHAR(100)  NOT NULL,
    password_enc    VARCHAR(1000),
    api_url         VARCHAR(255),
    remark          VARCHAR(500),
    create_user     BIGINT,
    create_time     BIGINT        NOT NULL,
    update_user     BIGINT,
    update_time     BIGINT,
    is_deleted      BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_pv_inverter_third_account ON pv_inverter_third (tenant_id, platform, account) WHERE is_deleted = 0;

CREATE TABLE pv_camera (
    id                 BIGINT        NOT NULL PRIMARY KEY,
    tenant_id          VARCHAR(12)   NOT NULL,
    station_id         BIGINT        NOT NULL,
    camera_type        VARCHAR(20)   NOT NULL,
    name               VARCHAR(100)  NOT NULL,
    sn                 VARCHAR(64)   NOT NULL,
    channel            BIGINT,
    verification_code  VARCHAR(64),
    application_key    VARCHAR(100),
    app_key_enc        VARCHAR(1000),
    remark             VARCHAR(500),
    create_user        BIGINT,
    create_time        BIGINT        NOT NULL,
    update_user        BIGINT,
    update_time        BIGINT,
    is_deleted         BIGINT        NOT NULL DEFAULT 0
);
CREATE INDEX ix_pv_camera_station ON pv_camera (station_id);
CREATE UNIQUE INDEX ux_pv_camera_sn ON pv_camera (tenant_id, sn) WHERE is_deleted = 0;

CREATE TABLE pv_weather (
    id              BIGINT        NOT NULL PRIMARY KEY,
    tenant_id       VARCHAR(12)   NOT NULL,
    station_id      BIGINT        NOT NULL,
    name            VARCHAR(100)  NOT NULL,
    sn              VARCHAR(64)   NOT NULL,
    gateway_id      VARCHAR(64),
    map_model       VARCHAR(64),
    unit_id         BIGINT,
    modbus_address  VARCHAR(255),
    remark          VARCHAR(500),
    create_user     BIGINT,
    create_time     BIGINT        NOT NULL,
    update_user     BIGINT,
    update_time     BIGINT,
    is_deleted      BIGINT        NOT NULL DEFAULT 0
);
-- The spec's "at most one weather station per station", held by the database too.
CREATE UNIQUE INDEX ux_pv_weather_station ON pv_weather (station_id) WHERE is_deleted = 0;
CREATE UNIQUE INDEX ux_pv_weather_sn ON pv_weather (tenant_id, sn) WHERE is_deleted = 0;

CREATE TABLE pv_meter (
    id              BIGINT           NOT NULL PRIMARY KEY,
    tenant_id       VARCHAR(12)      NOT NULL,
    station_id      BIGINT           NOT NULL,
    name            VARCHAR(100)     NOT NULL,
    meter_role      VARCHAR(20)      NOT NULL,
    sn              VARCHAR(64)      NOT NULL,
    ct_ratio        DOUBLE PRECISION NOT NULL DEFAULT 1,
    pt_ratio        DOUBLE PRECISION NOT NULL DEFAULT 1,
    gateway_id      VARCHAR(64),
    map_model       VARCHAR(64),
    unit_id         BIGINT,
    modbus_address  VARCHAR(255),
    remark          VARCHAR(500),
    create_user     BIGINT,
    create_time     BIGINT           NOT NULL,
    update_user     BIGINT,
    update_time     BIGINT,
    is_deleted      BIGINT           NOT NULL DEFAULT 0
);
CREATE INDEX ix_pv_meter_station ON pv_meter (station_id);
CREATE UNIQUE INDEX ux_pv_meter_sn ON pv_meter (tenant_id, sn) WHERE is_deleted = 0;

-- Price history of a station: the row with the latest effective date not after today is in force.
CREATE TABLE pv_station_price (
    id              BIGINT           NOT NULL PRIMARY KEY,
    tenant_id       VARCHAR(12)      NOT NULL,
    station_id      BIGINT           NOT NULL,
    effective_date  BIGINT           NOT NULL,
    price           DOUBLE PRECISION NOT NULL,
    remark          VARCHAR(500),
    create_user     BIGINT,
    create_time     BIGINT           NOT NULL,
    update_user     BIGINT,
    update_time     BIGINT,
    is_deleted      BIGINT           NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_pv_station_price_date ON pv_station_price (station_id, effective_date) WHERE is_deleted = 0;

-- One electricity price version per (station, effective date); a fixed price is one flat
-- segment covering the day. Replaced versions stay with is_deleted = 1 and their revision.
CREATE TABLE pv_electric_price (
    id              BIGINT        NOT NULL PRIMARY KEY,
    tenant_id       VARCHAR(12)   NOT NULL,
    station_id      BIGINT        NOT NULL,
    price_type      VARCHAR(20)   NOT NULL,
    effective_date  BIGINT        NOT NULL,
    revision        BIGINT        NOT NULL,
    create_user     BIGINT,
    create_time     BIGINT        NOT NULL,
    is_deleted      BIGINT        NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX ux_pv_electric_price_date ON pv_electric_price (station_id, effective_date) WHERE is_deleted = 0;

CREATE TABLE pv_electric_price_segment (
    id            BIGINT           NOT NULL PRIMARY KEY,
    price_id      BIGINT           NOT NULL,
    start_minute  BIGINT           NOT NULL,
    end_minute    BIGINT           NOT NULL,
    segment_type  VARCHAR(20)      NOT NULL,
    price         DOUBLE PRECISION NOT NULL
);
CREATE INDEX ix_pv_electric_price_segment ON pv_electric_price_segment (price_id);
