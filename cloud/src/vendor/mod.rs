//! Vendor clouds as a data source (issue 30): stations without our gateway are read from their
//! inverter maker's northbound API. `connector` is the contract the poller codes against (one
//! `VendorApi` session per account, canonical metric names and units, four error kinds);
//! `budget` keeps each account under its vendor's documented request limits; one module per
//! vendor implements the contract from that vendor's public documentation (each module note
//! names the document and section of every fact it relies on). docs/vendor-clouds.md describes
//! the whole.
//!
//! What uses these sessions:
//! - `account`: a `pv_inverter_third` row read for polling (credentials opened);
//! - `plant`: the vendor's plants and devices of an account, and mapping a plant to a station
//!   (which makes the station's device rows);
//! - `poller`: one task per hub polling every mapped plant of the accounts it leases (`lease`),
//!   live at the vendor's cadence and backfilling history, into ingest (`telemetry::direct`);
//! - `alarms`: communication loss to the vendor's cloud and the vendor's own device alarms;
//! - `api`: `/api/inverterThird/{plants,map,status}`.

pub mod account;
pub mod alarms;
pub mod api;
pub mod budget;
pub mod connector;
pub mod context;
pub mod fusionsolar;
pub mod growatt;
pub mod isolarcloud;
pub mod lease;
mod model;
pub mod plant;
pub mod poller;
pub mod solaredge;
mod wire;

pub use budget::Budget;
pub use connector::{
    AlarmLevel, Credentials, DeviceKind, Limits, Plant, Platform, VendorAlarm, VendorApi, VendorDevice,
    VendorError, VendorSample, connect,
};
pub use context::{VendorCtx, VendorServices};
