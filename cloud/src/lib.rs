//! The cloud hub. Business domains each live in their own folder; `kernel` holds what they share.

pub mod alarm;
pub mod analytics;
pub mod app;
pub mod auth;
pub mod commission;
pub mod config;
pub mod console;
pub mod demo;
pub mod energy;
pub mod headers;
pub mod home;
pub mod inspection;
pub mod kernel;
pub mod log;
pub mod notify;
pub mod ops;
pub mod repair;
pub mod report;
pub mod resource;
pub mod scrape;
pub mod server;
pub mod state;
pub mod station;
pub mod system;
pub mod telemetry;
pub mod user;
