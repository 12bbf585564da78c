//! Alarms and smart warnings: where they are kept (`store`) and the live feed that the console's
//! bell listens to (`feed`).

pub mod feed;
pub mod store;
