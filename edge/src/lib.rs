//! The gateway agent as a library, so integration tests and benchmarks drive the real parts:
//! transports, the per-bus scheduler, the generic decoder and the device simulator.

pub mod config;
pub mod device;
pub mod plan;
pub mod queue;
pub mod scheduler;
pub mod sim;
pub mod transport;
