//! Resources over the API against real outside servers: object storage configurations and
//! uploads into an S3-compatible server (moto, started by the test), attachments and quotas.

mod mail;
mod notify;
mod oss;
mod sms;
