//! Logs kept by the hub. So far: the console's uploaded error logs.

pub mod error_upload;
