//! A real hub on a loopback port over a real database: a SQLite file in a temporary directory,
//! or, when `TEST_POSTGRES_URL` names a PostgreSQL server, a fresh database on it per test.
//!
//! - [`databases`]: PostgreSQL test databases, dropped when no hub of the test uses them.
//! - [`server`]: starting and stopping the hub ([`TestApp`]), [`eventually`].
//! - [`client`]: the one HTTP client ([`Client`], [`Reply`]) and signing in.
//! - [`factory`]: users, tenants, stations, devices, gateways... built as a console user would.
//! - [`db`]: SQL straight on the hub's database.
//! - [`telemetry`]: telemetry rows and local-time arithmetic.
//! - [`mqtt`]: the embedded broker with ingest, and gateway connections.
//! - [`mosquitto`]: a real Mosquitto process whose accounts the hub manages.
//! - [`process`]: child processes killed with the test, free ports, the workspace root.
//! - [`tree`]: reading ids and codes out of trees and lists.

// Each test binary uses a part of this module.
#![allow(dead_code, unused_imports)]

pub mod client;
pub mod databases;
pub mod db;
pub mod factory;
pub mod mosquitto;
pub mod mqtt;
pub mod process;
pub mod pytools;
pub mod server;
pub mod telemetry;
pub mod tree;

pub use client::{BASIC_SABER, Client, Reply, assert_failure, int, json_id, md5_hex};
pub use factory::{Device, GATEWAY_MENUS, STATION_MENUS};
pub use mqtt::{GatewayClient, IngestApp, sample};
pub use server::{TestApp, eventually, fresh_database_url, is_postgres, pv_edge_binary};
pub use telemetry::{approx, live_sample, local_midnight, local_text, local_today, now_ms};
pub use tree::{codes_in, find_in, ids_in, row_ids};
