//! The hub's integration tests: each module is one area (its own doc says what it covers), all in
//! one test binary. One binary links the hub once instead of forty times: on the two-core CI machine
//! that saves minutes of linking and about five gigabytes of disk. Run one area with
//! `cargo test -p pv-cloud --test hub <module>::`.
//!
//! Tests run on SQLite, or on PostgreSQL when `TEST_POSTGRES_URL` names a server (a fresh database
//! per test, dropped when the test's hub stops).

mod support;

mod access;
mod alarm;
mod alarm_flex;
mod alarm_gateway;
mod alarm_store;
mod analytics;
mod api;
mod auth;
mod commission;
mod compact;
mod counted_energy;
mod data_path;
mod data_quality;
mod demo;
mod develop;
mod device_quality;
mod device_real;
mod durability;
mod energy;
mod flow;
mod hardening;
mod ingest;
mod ingest_replicas;
mod ingest_store;
mod inspection;
mod labels;
mod menu_access;
mod mosquitto;
mod openapi_conformance;
mod operations;
mod partitions;
mod realtime_api;
mod reference;
mod repair;
mod replica_view;
mod replicas;
mod report;
mod report_clock;
mod report_summary;
mod resource;
mod shutdown;
mod sign_in_limits;
mod site_clock;
mod station;
mod station_gateway;
mod system_crud;
mod tenant_user;
mod tls;
mod topology;
mod vendor;
