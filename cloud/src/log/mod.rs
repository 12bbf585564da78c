//! Logs kept by the hub. So far: the console's uploaded error logs.

pub mod api_log;
pub mod error_upload;
pub mod list;
pub mod usual;
