//! Vendor clouds as a data source (issue 30): stations whose devices report to their vendor's
//! cloud (Huawei FusionSolar, Sungrow iSolarCloud, Growatt, SolarEdge) rather than to our
//! gateway.
//!
//! - `connector`, `budget`: the contract with each vendor's API and an account's request budget;
//! - `account`: a `pv_inverter_third` row read for polling (credentials opened);
//! - `plant`: the vendor's plants and devices of an account, and mapping a plant to a station
//!   (which makes the station's device rows);
//! - `poller`: one task per hub polling every mapped plant of the accounts it leases (`lease`),
//!   live at the vendor's cadence and backfilling history, into ingest (`telemetry::direct`);
//! - `alarms`: communication loss to the vendor's cloud and the vendor's own device alarms;
//! - `api`: `/api/inverterThird/{plants,map,status}` and the accounts' `pollState`.

pub mod account;
pub mod alarms;
pub mod api;
pub mod budget;
pub mod connector;
pub mod context;
pub mod lease;
pub mod plant;
pub mod poller;

pub use context::{VendorCtx, VendorServices};

pub use api::routes;
