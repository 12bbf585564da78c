//! Vendor clouds as a data source, through the hub's API, the poller, real ingest and rollups:
//! adding an account and mapping its plant backfills a day, live samples follow the vendor's
//! cadence within its request limit, a throttling answer and a 10-minute outage leave no gap
//! and no duplicate and raise one comm-loss alarm, the vendor's alarms become the device's,
//! a vendor-fed station reports and earns like a gateway-fed one, one poller per account across
//! replicas, and tenants never see each other's accounts.
//!
//! The vendor is `fake::FakeCloud` behind the `VendorApi` contract until `pv-mock-vendors`
//! (real HTTP servers) merges; the poller runs on a clock the test moves (`Poller::pass(now)`),
//! so an hour of the 5-minute cadence takes moments.

use std::sync::Arc;
use std::time::Duration;

use super::fake::{self, FakeCloud, INVERTER_SN, METER_SN, PLANT, STEP};
use pv_cloud::kernel::sql::Value;
use pv_cloud::vendor::poller::Poller;
use pv_cloud::vendor::{Budget, Limits, Platform};
use serde_json::{Value as Json, json};

use crate::support::{self, IngestApp, approx, int};

const T1: &str = "100001";
const T2: &str = "100002";
const MIN: i64 = 60_000;
const SECRET: &str = "Northbound#2026";

struct Setup {
    ia: IngestApp,
    cloud: Arc<FakeCloud>,
    token: String,
    account: String,
    station: String,
}

/// A hub with ingest, a station manager of T1 with a station and a FusionSolar account on
/// the fake cloud (whose clock reads `t0`), with a budget that does not spread the test's
/// compressed hours over real minutes.
async fn setup(t0: i64) -> Setup {
    let ia = IngestApp::start(|_| {}).await;
    let token = ia.app.station_manager(T1, "mgr").await;
    let cloud = FakeCloud::new(t0, SECRET);
    ia.app.state.vendor.set_connector(cloud.connector());
    let m = ia.app.as_user(&token);
    let station = m.station_with(plant_form("Vendor rooftop")).await;
    let account = m
        .post_json(
            "/api/inverterThird",
            json!({"platform": "1", "account": "northbound_api", "password": SECRET,
                "apiUrl": "https://fusionsolar.invalid", "stationId": station}),
        )
        .await
        .ok()
        .id();
    ia.app.state.vendor.set_budget(
        int(&account),
        Arc::new(Budget::new(&Limits {
            requests_per_minute: 100_000,
            ..Platform::FusionSolar.limits()
        })),
    );
    Setup {
        ia,
        cloud,
        token,
        account,
        station,
    }
}

impl Setup {
    fn poller(&self, replica: &str) -> Poller {
        Poller::new(
            self.ia.app.state.vendor_ctx(),
            self.ia.telemetry.ingest.clone(),
            replica.into(),
        )
    }

    async fn map(&self, station: &str) {
        let m = self.ia.app.as_user(&self.token);
        let plants = m
            .get_data(&format!("/api/inverterThird/plants?id={}", self.account))
            .await;
        assert_eq!(plants[0]["plantId"], PLANT, "{plants}");
        assert_eq!(plants[0]["deviceCount"], 2, "{plants}");
        m.post_json(
            "/api/inverterThird/map",
            json!({"id": self.account, "plantId": PLANT, "stationId": station}),
        )
        .await
        .ok();
    }

    /// Our device row of a vendor serial.
    async fn device(&self, serial: &str) -> i64 {
        self.ia
            .app
            .scalar_int(
                "SELECT device_id FROM pv_vendor_device WHERE serial = ?",
                vec![Value::from(serial)],
            )
            .await
            .expect("a linked device")
    }

    /// (rows, distinct times, first, last) of a device's stored samples: raw rows and the
    /// closed hours the compaction worker has packed into blocks meanwhile.
    async fn raw(&self, device: i64) -> (i64, i64, i64, i64) {
        let samples = pv_cloud::telemetry::raw::range(self.ia.app.state.db.pool(), device, 0, i64::MAX)
            .await
            .expect("samples");
        let times: std::collections::BTreeSet<i64> = samples.iter().map(|s| s.ts).collect();
        (
            samples.len() as i64,
            times.len() as i64,
            times.first().copied().unwrap_or(0),
            times.last().copied().unwrap_or(0),
        )
    }

    async fn backfill_from(&self) -> i64 {
        self.ia
            .app
            .scalar_int("SELECT backfill_from FROM pv_vendor_plant", vec![])
            .await
            .expect("mapped")
    }

    /// Runs passes at `now` until no backfill is pending.
    async fn settle(&self, poller: &mut Poller, now: i64) {
        self.cloud.set_now(now);
        for _ in 0..20 {
            if !poller.pass(now).await.expect("pass") {
                assert_eq!(
                    poller.store_failures(),
                    0,
                    "polled samples that could not be stored"
                );
                return;
            }
        }
        panic!("backfill still pending after 20 passes");
    }
}

/// A 50 kWp station that earns from its generation (as the report tests' plant does).
fn plant_form(name: &str) -> Json {
    json!({"name": name, "stationType": "2", "componentCapacity": 50, "componentCount": 100,
        "connectedType": "2", "contributionWay": "4", "feedInTariff": 0.39})
}

fn grid_after(t: i64) -> i64 {
    t + (STEP - t.rem_euclid(STEP)) % STEP
}

fn grid_before(t: i64) -> i64 {
    t - t.rem_euclid(STEP)
}

/// Every sample from `first` to `last` on the 5-minute grid, once.
#[track_caller]
fn contiguous(raw: (i64, i64, i64, i64), first: i64, last: i64, what: &str) {
    let (rows, distinct, min, max) = raw;
    assert_eq!((min, max), (first, last), "{what}: first and last sample");
    assert_eq!(rows, distinct, "{what}: a duplicate");
    assert_eq!(rows, (last - first) / STEP + 1, "{what}: a gap");
}

#[tokio::test]
async fn mapping_a_plant_backfills_a_day_then_live_samples_follow_the_vendor_cadence() {
    let t0 = support::now_ms() - 2 * 3_600_000;
    let s = setup(t0).await;
    let m = s.ia.app.as_user(&s.token);
    s.map(&s.station).await;
    // The vendor's devices are the station's, with its serials and platform.
    let inverters = m
        .get_data(&format!("/api/inverter/page?stationId={}", s.station))
        .await;
    let inv = &inverters["records"][0];
    assert_eq!(inv["sn"], INVERTER_SN, "{inverters}");
    assert_eq!(inv["manufacturer"], "1");
    approx(&inv["ratedPower"], 50.0, "kW from the vendor's W");
    let (inverter, meter) = (s.device(INVERTER_SN).await, s.device(METER_SN).await);

    let mut poller = s.poller("replica-a");
    s.settle(&mut poller, t0).await;
    let first = grid_after(s.backfill_from().await);
    contiguous(s.raw(inverter).await, first, grid_before(t0), "inverter backfill");
    contiguous(s.raw(meter).await, first, grid_before(t0), "meter backfill");
    let history = s.cloud.requests_of("history");
    assert_eq!(history, 2, "one window of a day per device");
    // Ingest's check dropped the vendor's non-canonical name.
    let metrics =
        s.ia.app
            .scalar_text(
                "SELECT metrics FROM pv_telemetry_raw WHERE device_id = ? ORDER BY ts DESC LIMIT 1",
                vec![Value::Int(inverter)],
            )
            .await
            .expect("a sample");
    assert!(
        metrics.contains("energy_total") && !metrics.contains("vendor_specific"),
        "{metrics}"
    );

    // An hour, a pass every minute: a live poll every 5 minutes, no history call.
    for k in 1..=60 {
        s.cloud.set_now(t0 + k * MIN);
        poller.pass(t0 + k * MIN).await.expect("pass");
    }
    assert_eq!(
        s.cloud.requests_of("realtime"),
        13,
        "at t0 and every 5 minutes after"
    );
    assert_eq!(
        s.cloud.requests_of("history"),
        history,
        "live polls keep the cursor"
    );
    contiguous(
        s.raw(inverter).await,
        first,
        grid_before(t0 + 60 * MIN),
        "inverter live",
    );
    // Live polling asks well under what FusionSolar allows an account in a minute (the first
    // round's burst is paced by the budget in real time: the connectors' `limits` tests).
    let times: Vec<i64> = s
        .cloud
        .with(|w| w.requests.iter().map(|(_, t)| *t).filter(|t| *t > t0).collect());
    let busiest = times
        .iter()
        .map(|t| times.iter().filter(|u| **u >= *t && **u < t + MIN).count())
        .max()
        .unwrap_or(0);
    assert!(
        busiest <= Platform::FusionSolar.limits().requests_per_minute as usize,
        "{busiest} requests in one minute"
    );

    let status = m
        .get_data(&format!("/api/inverterThird/status?id={}", s.account))
        .await;
    assert_eq!(status["state"], "ok", "{status}");
    assert_eq!(status["plants"], 1);
    assert_eq!(status["mappedPlants"], 1);
    assert_eq!(
        status["limits"]["requestsPerMinute"],
        Platform::FusionSolar.limits().requests_per_minute
    );
    assert!(status["requestsToday"].as_i64().unwrap_or(0) > 0, "{status}");
    let page = m.get_data("/api/inverterThird/page").await;
    assert_eq!(page["records"][0]["pollState"], "ok", "{page}");
    assert_eq!(page["records"][0]["passwordSet"], true);
    assert!(page["records"][0].get("password").is_none());
    let list = m.get_data("/api/inverterThird/listThirdAccount").await;
    assert_eq!(list[0]["pollState"], "ok", "{list}");
    let plants = m
        .get_data(&format!("/api/inverterThird/plants?id={}&cached=true", s.account))
        .await;
    assert_eq!(plants[0]["stationName"], "Vendor rooftop", "{plants}");
    assert!(plants[0]["backfilledUntil"].is_string(), "{plants}");

    // Unmapped: the devices stay, polling stops.
    m.post_json(
        "/api/inverterThird/map",
        json!({"id": s.account, "plantId": PLANT, "stationId": null}),
    )
    .await
    .ok();
    let before = s.cloud.requests();
    poller.pass(t0 + 70 * MIN).await.expect("pass");
    assert_eq!(s.cloud.requests(), before, "an unmapped plant is not polled");
    let inverters = m
        .get_data(&format!("/api/inverter/page?stationId={}", s.station))
        .await;
    assert_eq!(inverters["total"], 1);
}

#[tokio::test]
async fn throttling_and_a_ten_minute_outage_leave_no_gap_no_duplicate_and_one_alarm() {
    let t0 = support::now_ms() - 2 * 3_600_000;
    let s = setup(t0).await;
    let m = s.ia.app.as_user(&s.token);
    s.map(&s.station).await;
    let inverter = s.device(INVERTER_SN).await;
    let mut poller = s.poller("replica-a");
    s.settle(&mut poller, t0).await;
    let first = grid_after(s.backfill_from().await);

    // A throttling answer: the account waits for the vendor's Retry-After, then polls again.
    s.cloud.with(|w| w.throttle = 1);
    s.cloud.set_now(t0 + 5 * MIN);
    poller.pass(t0 + 5 * MIN).await.expect("pass");
    let status = m
        .get_data(&format!("/api/inverterThird/status?id={}", s.account))
        .await;
    assert_eq!(status["state"], "throttled", "{status}");
    assert!(status["pausedUntil"].is_string(), "{status}");
    let throttled = s.cloud.requests();
    poller.pass(t0 + 5 * MIN).await.expect("pass");
    assert_eq!(s.cloud.requests(), throttled, "nothing asked during the pause");
    tokio::time::sleep(Duration::from_millis(500)).await;
    poller.pass(t0 + 5 * MIN).await.expect("pass");
    contiguous(
        s.raw(inverter).await,
        first,
        grid_before(t0 + 5 * MIN),
        "after the throttle",
    );

    // Down from +10 to +20 minutes, a pass every minute until +40.
    let alarms = |status: &'static str| {
        let app = &s.ia.app;
        async move {
            app.scalar_int(
                &format!("SELECT COUNT(*) FROM pv_alarm WHERE kind = 'comm:vendor' AND {status}"),
                vec![],
            )
            .await
            .unwrap_or(0)
        }
    };
    for k in 6..=40 {
        let now = t0 + k * MIN;
        s.cloud.with(|w| w.outage = (10..20).contains(&k));
        s.cloud.set_now(now);
        poller.pass(now).await.expect("pass");
        if k == 19 {
            assert_eq!(alarms("status < 2").await, 1, "raised once during the outage");
            let status = m
                .get_data(&format!("/api/inverterThird/status?id={}", s.account))
                .await;
            assert_eq!(status["state"], "unreachable", "{status}");
            assert!(
                status["lastError"].as_str().unwrap_or_default().contains("503"),
                "{status}"
            );
        }
    }
    assert_eq!(alarms("1 = 1").await, 1, "one alarm for the episode");
    assert_eq!(
        alarms("status = 2").await,
        1,
        "cleared by the first successful poll"
    );
    let title: Option<String> =
        s.ia.app
            .scalar_text("SELECT name_en FROM pv_alarm WHERE kind = 'comm:vendor'", vec![])
            .await;
    assert_eq!(title.as_deref(), Some("Vendor cloud communication lost"));
    contiguous(
        s.raw(inverter).await,
        first,
        grid_before(t0 + 40 * MIN),
        "after the outage",
    );

    // The vendor's own alarm: raised once on the inverter, cleared when the vendor clears it.
    s.cloud
        .with(|w| w.alarms = vec![fake::inverter_alarm("2032", true, t0 + 41 * MIN)]);
    let vendor_alarms = |status: &'static str| {
        let app = &s.ia.app;
        async move {
            app.scalar_int(
                &format!(
                    "SELECT COUNT(*) FROM pv_alarm WHERE kind = 'vendor:2032' AND device_id = ? AND {status}"
                ),
                vec![Value::Int(inverter)],
            )
            .await
            .unwrap_or(0)
        }
    };
    for k in 41..=50 {
        s.cloud.set_now(t0 + k * MIN);
        poller.pass(t0 + k * MIN).await.expect("pass");
    }
    assert_eq!(vendor_alarms("status < 2").await, 1);
    let occurrences =
        s.ia.app
            .scalar_int(
                "SELECT occurrences FROM pv_alarm WHERE kind = 'vendor:2032'",
                vec![],
            )
            .await;
    assert_eq!(occurrences, Some(1), "raised once, not once per poll");
    s.cloud.with(|w| w.alarms.clear());
    for k in 51..=56 {
        s.cloud.set_now(t0 + k * MIN);
        poller.pass(t0 + k * MIN).await.expect("pass");
    }
    assert_eq!(vendor_alarms("status = 2").await, 1, "cleared with the vendor");
}

#[tokio::test]
async fn a_vendor_fed_station_reports_and_earns_like_a_gateway_fed_one() {
    let now = support::now_ms();
    let s = setup(now).await;
    let m = s.ia.app.as_user(&s.token);
    // The same plant, its samples stored as a gateway's would be.
    let twin = int(&m.station_with(plant_form("Gateway twin")).await);
    let twin_inv = int(&m
        .inverter(&twin.to_string(), "GW-INV-1", 2, json!({"ratedPower": 50}))
        .await);
    let twin_meter = int(&m
        .device(
            support::Device::Meter,
            json!({"stationId": twin.to_string(), "name": "Grid", "meterRole": "1", "sn": "GW-MTR-1",
                "ctRatio": 1, "ptRatio": 1}),
        )
        .await);
    for station in [&s.station, &twin.to_string()] {
        m.put_json(
            "/api/electricPrice",
            json!({"stationId": station, "priceType": "2", "schedules": [{"effectiveDate": "2020-01-01",
                "segments": [{"startTime": "00:00", "endTime": "24:00", "type": "3", "price": 0.5}]}]}),
        )
        .await
        .ok();
    }
    s.map(&s.station).await;
    let mut poller = s.poller("replica-a");
    s.settle(&mut poller, now).await;
    let (inverter, meter) = (s.device(INVERTER_SN).await, s.device(METER_SN).await);
    let (_, _, first, last) = s.raw(inverter).await;
    let mut inv = Vec::new();
    let mut met = Vec::new();
    let mut ts = first;
    while ts <= last {
        inv.push((
            ts,
            json!({"energy_total": fake::energy_at(ts), "ac_power": 6000.0}),
        ));
        met.push((
            ts,
            json!({"energy_export": 200_000.0 + (ts.div_euclid(STEP) % 1_000_000) as f64 * 100.0,
            "energy_import": 50_000.0}),
        ));
        ts += STEP;
    }
    // Its newest sample first, as ingest keeps it (the rollup reads the device's kind there).
    for (device, kind) in [(twin_inv, "inverter"), (twin_meter, "meter")] {
        s.ia.app
            .put_live(support::live_sample(
                T1,
                twin,
                device,
                kind,
                last,
                &[("ac_power", 6000.0)],
                true,
            ))
            .await;
    }
    s.ia.app.put_raw_and_roll_up(T1, twin, twin_inv, &inv).await;
    s.ia.app.put_raw_and_roll_up(T1, twin, twin_meter, &met).await;
    assert!(inverter > 0 && meter > 0);

    let today = support::local_today().format("%Y-%m-%d").to_string();
    let report = |station: String| {
        let m = s.ia.app.as_user(&s.token);
        let today = today.clone();
        async move {
            m.get_data(&format!(
                "/api/report/station/electricity?stationId={station}&type=day&date={today}"
            ))
            .await["total"]["energyKwh"]
                .as_f64()
                .unwrap_or(-1.0)
        }
    };
    let gateway_kwh = report(twin.to_string()).await;
    assert!(gateway_kwh > 0.0, "the twin's report has energy");
    // The rollup worker catches up with what the poller stored.
    let same = support::eventually(Duration::from_secs(20), || {
        let r = report(s.station.clone());
        async move { (r.await - gateway_kwh).abs() < 1e-6 }
    })
    .await;
    assert!(
        same,
        "vendor-fed {} kWh, gateway-fed {gateway_kwh} kWh",
        report(s.station.clone()).await
    );
    let revenue = |station: String| {
        let m = s.ia.app.as_user(&s.token);
        async move {
            let map = m.get_data("/api/homePage/map").await;
            map.as_array()
                .and_then(|a| a.iter().find(|x| x["id"].as_str() == Some(station.as_str())))
                .map(|x| x["todayRevenue"].as_f64().unwrap_or(-1.0))
                .unwrap_or(-2.0)
        }
    };
    let twin_revenue = revenue(twin.to_string()).await;
    assert!(twin_revenue > 0.0, "the twin earned {twin_revenue}");
    let earned = support::eventually(Duration::from_secs(20), || {
        let r = revenue(s.station.clone());
        async move { (r.await - twin_revenue).abs() < 1e-6 }
    })
    .await;
    assert!(
        earned,
        "vendor-fed revenue {} vs {twin_revenue}",
        revenue(s.station.clone()).await
    );
}

#[tokio::test]
async fn two_replicas_poll_an_account_once_and_the_second_takes_over_when_the_lease_runs_out() {
    let t0 = support::now_ms() - 2 * 3_600_000;
    let s = setup(t0).await;
    s.map(&s.station).await;
    // On PostgreSQL the second poller is another hub on the same database.
    let other = if support::is_postgres() {
        Some(s.ia.app.replica(|_| {}).await)
    } else {
        None
    };
    let other_ctx = other
        .as_ref()
        .map_or_else(|| s.ia.app.state.vendor_ctx(), |o| o.state.vendor_ctx());
    if let Some(o) = &other {
        o.state.vendor.set_connector(s.cloud.connector());
        o.state.vendor.set_budget(
            int(&s.account),
            Arc::new(Budget::new(&Limits {
                requests_per_minute: 100_000,
                ..Platform::FusionSolar.limits()
            })),
        );
    }
    let mut a = s.poller("replica-a").with_lease(3 * MIN);
    let mut b = Poller::new(other_ctx, s.ia.telemetry.ingest.clone(), "replica-b".into()).with_lease(3 * MIN);
    s.settle(&mut a, t0).await;
    b.pass(t0).await.expect("pass");
    assert_eq!(a.holding(), vec![int(&s.account)]);
    assert!(b.holding().is_empty(), "the lease is taken");
    for k in 1..=10 {
        s.cloud.set_now(t0 + k * MIN);
        a.pass(t0 + k * MIN).await.expect("pass");
        b.pass(t0 + k * MIN).await.expect("pass");
    }
    assert_eq!(
        s.cloud.requests_of("realtime"),
        3,
        "t0, +5 and +10: one poller only"
    );
    // Replica a stops without giving its lease back: b takes over once it runs out.
    drop(a);
    s.cloud.set_now(t0 + 12 * MIN);
    b.pass(t0 + 12 * MIN).await.expect("pass");
    assert!(b.holding().is_empty(), "a's lease (renewed at +10) still holds");
    s.cloud.set_now(t0 + 14 * MIN);
    b.pass(t0 + 14 * MIN).await.expect("pass");
    assert_eq!(b.holding(), vec![int(&s.account)]);
    assert_eq!(s.cloud.requests_of("realtime"), 4);
    let inverter = s.device(INVERTER_SN).await;
    let first = grid_after(s.backfill_from().await);
    contiguous(
        s.raw(inverter).await,
        first,
        grid_before(t0 + 14 * MIN),
        "across the takeover",
    );
    // A release at shutdown frees the lease at once.
    b.release().await;
    let owned =
        s.ia.app
            .scalar_int(
                "SELECT COUNT(*) FROM pv_vendor_poll WHERE owner IS NOT NULL",
                vec![],
            )
            .await;
    assert_eq!(owned, Some(0));
}

#[tokio::test]
async fn tenants_never_see_each_others_accounts_plants_or_stations() {
    let now = support::now_ms();
    let s = setup(now).await;
    s.map(&s.station).await;
    let other = s.ia.app.station_manager(T2, "mgr2").await;
    let o = s.ia.app.as_user(&other);
    let their_station = o.station("Theirs").await;
    let acc = &s.account;
    o.get(&format!("/api/inverterThird/plants?id={acc}"))
        .await
        .fails(404);
    o.get(&format!("/api/inverterThird/status?id={acc}"))
        .await
        .fails(404);
    o.post_json(
        "/api/inverterThird/map",
        json!({"id": acc, "plantId": PLANT, "stationId": their_station}),
    )
    .await
    .fails(404);
    let page = o.get_data("/api/inverterThird/page").await;
    assert_eq!(page["total"], 0, "{page}");
    // Nor may T1 map its plant onto T2's station.
    let m = s.ia.app.as_user(&s.token);
    m.post_json(
        "/api/inverterThird/map",
        json!({"id": acc, "plantId": PLANT, "stationId": their_station}),
    )
    .await
    .fails(400);
    let theirs = o
        .get_data(&format!("/api/inverter/page?stationId={their_station}"))
        .await;
    assert_eq!(theirs["total"], 0);
    // Mapping needs the edit button.
    s.ia.app
        .create_tenant_user(T1, "viewer", "secret1", &["station"], None)
        .await;
    let token = s.ia.app.token_of(T1, "viewer", "secret1").await;
    s.ia.app
        .as_user(&token)
        .post_json(
            "/api/inverterThird/map",
            json!({"id": acc, "plantId": PLANT, "stationId": s.station}),
        )
        .await
        .fails(403);
    // The access key of iSolarCloud accounts is sealed and never answered.
    let isc = m
        .post_json(
            "/api/inverterThird",
            json!({"platform": "2", "account": "isc_user", "password": "pw", "appKey": "APPKEY1",
                "accessKey": "secret-access-key"}),
        )
        .await
        .ok()
        .id();
    let stored =
        s.ia.app
            .scalar_text(
                "SELECT access_key_enc FROM pv_inverter_third WHERE id = ?",
                vec![Value::Int(int(&isc))],
            )
            .await
            .expect("sealed");
    assert!(stored.starts_with("v1:") && !stored.contains("secret-access-key"));
    let page = m.get_data("/api/inverterThird/page").await;
    let row = page["records"]
        .as_array()
        .and_then(|r| r.iter().find(|x| x["id"] == isc.as_str()))
        .cloned()
        .unwrap_or(Json::Null);
    assert_eq!(row["appKey"], "APPKEY1", "{row}");
    assert_eq!(row["accessKeySet"], true);
    assert!(!page.to_string().contains("secret-access-key"));
}

/// The same path against the FusionSolar mock over HTTP (the real connector): a backfilled day,
/// the live cadence, a 10-minute outage with one alarm, and the mock's own count of requests per
/// window. Its rate window is shrunk to 600 ms and the account's budget to 1 s, so the
/// documented 5 requests per window hold at 100 × speed.
#[tokio::test]
async fn against_the_fusionsolar_mock_the_poller_backfills_follows_and_recovers_within_the_limit() {
    use pv_mock_vendors::{MockConfig, Vendor};
    let t0 = support::now_ms() - 2 * 3_600_000;
    let window = Duration::from_millis(600);
    let per_window = Platform::FusionSolar.limits().requests_per_minute;
    let mut cfg = MockConfig {
        now_ms: Some(t0),
        plants: 1,
        inverters_per_plant: 1,
        rate_window: window,
        ..MockConfig::default()
    };
    cfg.rate_limits.insert(Vendor::FusionSolar, per_window);
    let mock = pv_mock_vendors::start(cfg).await.expect("mock vendors start");
    let ia = IngestApp::start(|_| {}).await;
    let token = ia.app.station_manager(T1, "mgr").await;
    let m = ia.app.as_user(&token);
    let station = m.station_with(plant_form("Mock rooftop")).await;
    let demo = mock.account(Vendor::FusionSolar);
    let account = m
        .post_json(
            "/api/inverterThird",
            json!({"platform": "1", "account": demo.account, "password": demo.secret,
                "apiUrl": mock.base_url(Vendor::FusionSolar)}),
        )
        .await
        .ok()
        .id();
    // The budget's margin is for network delay, which does not shrink with the clock: at
    // 100 × speed a loaded machine's jitter (tens of ms) would eat a 5 % margin of 600 ms, and
    // the mock would refuse the sixth request of a window. The budget's window is 1 s here.
    ia.app.state.vendor.set_budget(
        int(&account),
        Arc::new(Budget::with_period(
            per_window,
            Duration::from_millis(1_000),
            None,
        )),
    );
    let plants = m
        .get_data(&format!("/api/inverterThird/plants?id={account}"))
        .await;
    let plant = plants[0]["plantId"].as_str().expect("a plant").to_owned();
    assert!(plants[0]["deviceCount"].as_i64().unwrap_or(0) >= 1, "{plants}");
    m.post_json(
        "/api/inverterThird/map",
        json!({"id": account, "plantId": plant, "stationId": station}),
    )
    .await
    .ok();
    let inverter = ia
        .app
        .scalar_int(
            "SELECT device_id FROM pv_vendor_device WHERE kind = 'inverter' ORDER BY serial LIMIT 1",
            vec![],
        )
        .await
        .expect("the inverter's row");
    let raw = |ia: &IngestApp| {
        let pool = ia.app.state.db.pool().clone();
        async move {
            let s = pv_cloud::telemetry::raw::range(&pool, inverter, 0, i64::MAX)
                .await
                .expect("samples");
            let times: Vec<i64> = s.iter().map(|x| x.ts).collect();
            times
        }
    };
    let gapless = |times: &[i64], what: &str| {
        let (first, last) = (times[0], times[times.len() - 1]);
        assert_eq!(times.len() as i64, (last - first) / STEP + 1, "{what}: a gap");
        last
    };
    let mut poller = Poller::new(ia.app.state.vendor_ctx(), ia.telemetry.ingest.clone(), "r".into());
    let at = |k: i64| {
        mock.set_now(Some(t0 + k * MIN));
        t0 + k * MIN
    };
    let now = at(0);
    for _ in 0..5 {
        if !poller.pass(now).await.expect("pass") {
            break;
        }
    }
    let times = raw(&ia).await;
    assert!(times.len() > 250, "a day backfilled: {} samples", times.len());
    assert_eq!(gapless(&times, "backfill"), grid_before(t0));
    for k in 1..=40 {
        let now = at(k);
        mock.set_outage((15..25).contains(&k));
        poller.pass(now).await.expect("pass");
    }
    let times = raw(&ia).await;
    assert_eq!(gapless(&times, "after the outage"), grid_before(t0 + 40 * MIN));
    let alarms = ia
        .app
        .scalar_int(
            "SELECT COUNT(*) FROM pv_alarm WHERE kind = 'comm:vendor' AND status = 2",
            vec![],
        )
        .await;
    assert_eq!(alarms, Some(1), "one comm-loss alarm, cleared");
    assert_eq!(
        mock.refused(Vendor::FusionSolar),
        0,
        "never throttled by the mock"
    );
    assert!(
        mock.busiest_window(Vendor::FusionSolar) <= per_window as usize,
        "{} requests in one window",
        mock.busiest_window(Vendor::FusionSolar)
    );
    assert_eq!(poller.store_failures(), 0);
}
