//! Operating the hub itself: health and the API description.

pub mod health;
pub mod openapi;
