//! Alarms and smart warnings. So far: the live feed that the console's bell listens to.

pub mod feed;
