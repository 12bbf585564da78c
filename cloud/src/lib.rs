//! The cloud hub. Business domains each live in their own folder; `kernel` holds what they share.

pub mod app;
pub mod config;
pub mod console;
pub mod kernel;
pub mod ops;
pub mod server;
pub mod state;
