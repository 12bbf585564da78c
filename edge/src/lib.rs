//! The gateway agent as a library, so integration tests and benchmarks drive the real parts:
//! transports, the per-bus scheduler, the generic decoder, the queue, the uplink and the
//! device simulator.

pub mod agent;
pub mod clock;
pub mod command;
pub mod commission;
pub mod config;
pub mod counters;
pub mod device;
pub mod guard;
pub mod plan;
pub mod provision;
pub mod quality;
pub mod queue;
pub mod scheduler;
pub mod sim;
pub mod status;
#[cfg(feature = "testkit")]
pub mod testkit;
pub mod transport;
pub mod uplink;
