//! A vendor cloud as the poller sees it through `VendorApi`, in memory, on a clock the test
//! moves: one plant of an inverter and a grid meter whose 5-minute samples are a function of
//! their time (so any two reads of one time agree, and the expected stored rows are known), an
//! outage switch, a throttling answer on demand, alarms the test raises and clears, and a log
//! of every request. It stands where `pv-mock-vendors` (real HTTP servers) will once merged.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pv_cloud::vendor::context::Connect;
use pv_cloud::vendor::{
    AlarmLevel, Budget, Credentials, DeviceKind, Plant, Platform, VendorAlarm, VendorApi, VendorDevice,
    VendorError, VendorSample,
};

pub const STEP: i64 = 300_000;
pub const PLANT: &str = "NE=1001";
pub const INVERTER_SN: &str = "HW-INV-0001";
pub const METER_SN: &str = "HW-MTR-0001";

#[derive(Default)]
pub struct Switches {
    pub outage: bool,
    /// Throttling answers still to give.
    pub throttle: u32,
    pub alarms: Vec<VendorAlarm>,
    /// (what, virtual time) of every request answered or refused.
    pub requests: Vec<(String, i64)>,
}

pub struct FakeCloud {
    /// The vendor's clock: no sample after it exists yet.
    pub now: AtomicI64,
    pub switches: Mutex<Switches>,
    /// The account name each session signed in with.
    pub sessions: Mutex<Vec<String>>,
    /// Sign-in fails when the secret is not this.
    pub secret: String,
}

/// The inverter's lifetime energy at `ts` (Wh): 500 Wh per 5 minutes.
pub fn energy_at(ts: i64) -> f64 {
    1_000_000.0 + (ts.div_euclid(STEP) % 1_000_000) as f64 * 500.0
}

impl FakeCloud {
    pub fn new(now: i64, secret: &str) -> Arc<FakeCloud> {
        Arc::new(FakeCloud {
            now: AtomicI64::new(now),
            switches: Mutex::new(Switches::default()),
            sessions: Mutex::new(Vec::new()),
            secret: secret.to_owned(),
        })
    }

    pub fn set_now(&self, now: i64) {
        self.now.store(now, Ordering::SeqCst);
    }

    pub fn with<T>(&self, f: impl FnOnce(&mut Switches) -> T) -> T {
        f(&mut self.switches.lock().expect("switches"))
    }

    pub fn requests(&self) -> usize {
        self.with(|s| s.requests.len())
    }

    pub fn requests_of(&self, what: &str) -> usize {
        self.with(|s| s.requests.iter().filter(|(w, _)| w == what).count())
    }

    /// Makes sessions of this cloud for the hub.
    pub fn connector(self: &Arc<Self>) -> Connect {
        let cloud = self.clone();
        Arc::new(
            move |platform: Platform, credentials: Credentials, budget: Arc<Budget>| {
                cloud
                    .sessions
                    .lock()
                    .expect("sessions")
                    .push(credentials.account.clone());
                Box::new(Session {
                    cloud: cloud.clone(),
                    platform,
                    credentials,
                    budget,
                }) as Box<dyn VendorApi>
            },
        )
    }

    fn sample(device: &str, ts: i64) -> VendorSample {
        let mut values = BTreeMap::new();
        if device == "inv-1" {
            values.insert("energy_total".to_owned(), energy_at(ts));
            values.insert("ac_power".to_owned(), 6_000.0);
            // A vendor's name the product has no metric for: dropped by ingest's check.
            values.insert("vendor_specific_thing".to_owned(), 1.0);
        } else {
            values.insert(
                "energy_export".to_owned(),
                200_000.0 + (ts.div_euclid(STEP) % 1_000_000) as f64 * 100.0,
            );
            values.insert("energy_import".to_owned(), 50_000.0);
        }
        VendorSample {
            device_id: device.to_owned(),
            ts_ms: ts,
            values,
        }
    }

    fn devices() -> Vec<VendorDevice> {
        vec![
            VendorDevice {
                device_id: "inv-1".into(),
                plant_id: PLANT.into(),
                serial: INVERTER_SN.into(),
                kind: DeviceKind::Inverter,
                name: "SUN2000-50KTL".into(),
                model: Some("SUN2000-50KTL-M3".into()),
                firmware: Some("V100R001C00SPC130".into()),
                rated_power_w: Some(50_000.0),
            },
            VendorDevice {
                device_id: "mtr-1".into(),
                plant_id: PLANT.into(),
                serial: METER_SN.into(),
                kind: DeviceKind::Meter,
                name: "DTSU666-H".into(),
                model: Some("DTSU666-H".into()),
                firmware: None,
                rated_power_w: None,
            },
        ]
    }
}

struct Session {
    cloud: Arc<FakeCloud>,
    platform: Platform,
    credentials: Credentials,
    budget: Arc<Budget>,
}

impl Session {
    /// Every request: a token of the budget first (as the connectors do), then the switches.
    async fn request(&self, what: &str) -> Result<i64, VendorError> {
        self.budget.take().await;
        let now = self.cloud.now.load(Ordering::SeqCst);
        let mut s = self.cloud.switches.lock().expect("switches");
        s.requests.push((what.to_owned(), now));
        if s.outage {
            return Err(VendorError::Unavailable("HTTP 503 Service Unavailable".into()));
        }
        if s.throttle > 0 {
            s.throttle -= 1;
            let retry_after = Some(Duration::from_millis(400));
            self.budget.throttled(retry_after);
            return Err(VendorError::Throttled {
                retry_after,
                message: "failCode 407: ACCESS_FREQUENCY_IS_TOO_HIGH".into(),
            });
        }
        if self.credentials.secret != self.cloud.secret {
            return Err(VendorError::Auth(
                "failCode 20001: wrong user name or password".into(),
            ));
        }
        self.budget.answered();
        Ok(now)
    }
}

#[async_trait::async_trait]
impl VendorApi for Session {
    fn platform(&self) -> Platform {
        self.platform
    }

    async fn plants(&mut self) -> Result<Vec<Plant>, VendorError> {
        self.request("plants").await?;
        Ok(vec![Plant {
            plant_id: PLANT.into(),
            name: "Rooftop 50 kWp".into(),
            capacity_kwp: Some(50.0),
            address: Some("Shenzhen".into()),
            timezone: Some("Asia/Shanghai".into()),
        }])
    }

    async fn devices(&mut self, plant_id: &str) -> Result<Vec<VendorDevice>, VendorError> {
        self.request("devices").await?;
        Ok(if plant_id == PLANT {
            FakeCloud::devices()
        } else {
            Vec::new()
        })
    }

    async fn realtime(
        &mut self,
        _: &str,
        devices: &[VendorDevice],
    ) -> Result<Vec<VendorSample>, VendorError> {
        let now = self.request("realtime").await?;
        let newest = now - now.rem_euclid(STEP);
        Ok(devices
            .iter()
            .map(|d| FakeCloud::sample(&d.device_id, newest))
            .collect())
    }

    async fn history(
        &mut self,
        _: &str,
        device: &VendorDevice,
        from_ms: i64,
        to_ms: i64,
    ) -> Result<Vec<VendorSample>, VendorError> {
        let now = self.request("history").await?;
        assert!(
            to_ms - from_ms <= self.platform.limits().history_window.as_millis() as i64,
            "a history call asked more than the vendor's window"
        );
        let mut ts = from_ms + (STEP - from_ms.rem_euclid(STEP)) % STEP;
        let mut out = Vec::new();
        while ts < to_ms && ts <= now {
            out.push(FakeCloud::sample(&device.device_id, ts));
            ts += STEP;
        }
        Ok(out)
    }

    async fn alarms(&mut self, _: &str) -> Result<Vec<VendorAlarm>, VendorError> {
        self.request("alarms").await?;
        Ok(self.cloud.with(|s| s.alarms.clone()))
    }
}

/// An active alarm of the inverter as FusionSolar reports one.
pub fn inverter_alarm(code: &str, active: bool, at: i64) -> VendorAlarm {
    VendorAlarm {
        device_id: Some("inv-1".into()),
        code: code.into(),
        level: AlarmLevel::Major,
        message: "String 2 reverse connection".into(),
        raised_ms: at,
        active,
    }
}
