//! Alarms and smart warnings: where they are kept (`store`), what evaluators report
//! (`condition`), and the live feed that the console's bell listens to (`feed`).

pub mod condition;
pub mod feed;
pub mod store;
