//! Vendor clouds as a data source (issue 30): stations without our gateway are read from their
//! inverter maker's northbound API. `connector` is the contract the poller codes against (one
//! `VendorApi` session per account, canonical metric names and units, four error kinds);
//! `budget` keeps each account under its vendor's documented request limits; one module per
//! vendor implements the contract from that vendor's public documentation (each module note
//! names the document and section of every fact it relies on). docs/vendor-clouds.md describes
//! the whole. The poller, tables and calls that use these sessions live beside them.

pub mod budget;
pub mod connector;
pub mod fusionsolar;
pub mod growatt;
pub mod isolarcloud;
mod model;
pub mod solaredge;
mod wire;

pub use budget::Budget;
pub use connector::{
    AlarmLevel, Credentials, DeviceKind, Limits, Plant, Platform, VendorAlarm, VendorApi, VendorDevice,
    VendorError, VendorSample, connect,
};
