//! FusionSolar connector (work in progress: answers Protocol("not yet") until its commit lands).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use super::budget::Budget;
use super::connector::*;

pub(super) fn limits() -> Limits {
    Limits {
        requests_per_minute: 10,
        requests_per_day: None,
        live_interval: Duration::from_secs(300),
        history_window: Duration::from_secs(86_400),
        backfill_depth: Duration::from_secs(86_400),
    }
}

pub struct FusionSolar {
    #[allow(dead_code)]
    credentials: Credentials,
    #[allow(dead_code)]
    budget: Arc<Budget>,
    #[allow(dead_code)]
    http: reqwest::Client,
}

impl FusionSolar {
    pub fn new(credentials: Credentials, budget: Arc<Budget>, http: reqwest::Client) -> FusionSolar {
        FusionSolar {
            credentials,
            budget,
            http,
        }
    }
}

fn not_yet<T>() -> Result<T, VendorError> {
    Err(VendorError::Protocol("not yet".into()))
}

#[async_trait]
impl VendorApi for FusionSolar {
    fn platform(&self) -> Platform {
        Platform::FusionSolar
    }
    async fn plants(&mut self) -> Result<Vec<Plant>, VendorError> {
        not_yet()
    }
    async fn devices(&mut self, _plant_id: &str) -> Result<Vec<VendorDevice>, VendorError> {
        not_yet()
    }
    async fn realtime(
        &mut self,
        _plant_id: &str,
        _devices: &[VendorDevice],
    ) -> Result<Vec<VendorSample>, VendorError> {
        not_yet()
    }
    async fn history(
        &mut self,
        _plant_id: &str,
        _device: &VendorDevice,
        _from_ms: i64,
        _to_ms: i64,
    ) -> Result<Vec<VendorSample>, VendorError> {
        not_yet()
    }
    async fn alarms(&mut self, _plant_id: &str) -> Result<Vec<VendorAlarm>, VendorError> {
        not_yet()
    }
}
