//! The telemetry read calls (issue 7) over a real server and database: home page, map, area and
//! province statistics, the inverter realtime table and curves, flexible-bracket realtime and
//! sensor curves. Telemetry rows and realtime samples are written directly (as ingest would);
//! every figure is checked against values computed by hand from them, for the manager, for an
//! owner given one station, and for another tenant.

use crate::support;

use chrono::{Datelike, Duration, NaiveDate};
use pv_cloud::kernel::sql::Value;
use pv_cloud::kernel::time::Clock;
use pv_cloud::telemetry::realtime::GatewayLive;
use serde_json::{Value as Json, json};
use support::{Device, Reply, TestApp, approx, int, json_id, live_sample, local_midnight, local_text};

const T1: &str = "100001";
const T2: &str = "100002";
const DAY: i64 = 86_400_000;
const HOUR: i64 = 3_600_000;

/// The hub's clock in these tests: 1 January 2027, 00:20 at +08:00 (2026-12-31 16:20 UTC), where
/// today, this month and this year have just begun and yesterday is last year's last day.
const NEW_YEAR: i64 = 1_798_734_000_000;

/// The date at +08:00 of epoch ms.
fn local_date(ms: i64) -> NaiveDate {
    chrono::DateTime::from_timestamp_millis(ms + 8 * HOUR)
        .expect("time")
        .date_naive()
}

/// Epoch ms of `y-m-d h:mi` at +08:00.
fn local_at(y: i32, m: u32, d: u32, h: u32, mi: u32) -> i64 {
    local_midnight(NaiveDate::from_ymd_opt(y, m, d).expect("date"))
        + i64::from(h) * HOUR
        + i64::from(mi) * 60_000
}

/// What the suite builds: tenant 100001 with four stations, three inverters, a meter and a
/// bracket; tenant 100002 with one producing station.
struct Fleet {
    app: TestApp,
    manager: String,
    owner: String,
    other: String,
    s1: i64,
    s2: i64,
    s3: i64,
    s4: i64,
    i1: i64,
    i2: i64,
    i3: i64,
    flex: i64,
    now: i64,
    today: i64,
    date: NaiveDate,
}

/// The fleet on a hub whose clock stands at `at` (epoch ms): its today, month and year are `at`'s.
async fn fleet(at: i64) -> Fleet {
    let app = TestApp::start_clocked(Clock::fixed(at)).await;
    let manager = app.gateway_manager(T1, "mgr").await;
    // S1 Alpha: Beijing, 100 kWp / 80 kW, running, producing.
    let s1 = int(&app.as_user(&manager).station_with(json!({"name": "Alpha", "componentCapacity": 100, "capacity": 80, "latitude": 39.9, "longitude": 116.4,
               "provinceCode": "110000", "cityCode": "110100", "gatewayId": "GW-A"})).await);
    // S2 Beta: Guangzhou, 50 kWp / 40 kW, running, an inverter with a fault code.
    let s2 = int(&app.as_user(&manager).station_with(json!({"name": "Beta", "componentCapacity": 50, "capacity": 40, "latitude": 23.1, "longitude": 113.3,
               "provinceCode": "440000", "cityCode": "440100", "gatewayId": "GW-B"})).await);
    // S3 Gamma: nowhere, no capacity, running, never reported.
    let s3 = int(&app.as_user(&manager).station_with(json!({"name": "Gamma"})).await);
    // S4 Delta: Beijing, 20 kWp, still commissioning, its gateway online.
    let s4 = int(&app
        .as_user(&manager)
        .station_with(
            json!({"name": "Delta", "componentCapacity": 20, "capacity": 15, "provinceCode": "110000",
               "cityCode": "110100", "gatewayId": "GW-D"}),
        )
        .await);
    for s in [s1, s2, s3] {
        app.as_user(&manager).switch_to_running(&s.to_string()).await;
    }
    let i1 = int(&app.as_user(&manager).device(Device::Inverter, json!({"stationId": s1.to_string(), "name": "INV-A1", "sn": "A1", "stringsCount": 3, "ratedPower": 50})).await);
    let i2 = int(&app.as_user(&manager).device(Device::Inverter, json!({"stationId": s1.to_string(), "name": "INV-A2", "sn": "A2", "stringsCount": 2, "ratedPower": 50})).await);
    let i3 = int(&app.as_user(&manager).device(Device::Inverter, json!({"stationId": s2.to_string(), "name": "INV-B1", "sn": "B1", "stringsCount": 2, "ratedPower": 50})).await);
    let meter = json_id(&app.as_user(&manager).post_data("/api/meter", json!({"stationId": s1.to_string(), "name": "M", "sn": "M1", "meterRole": "1", "ctRatio": 1, "ptRatio": 1})).await);
    let flex = json_id(&app.as_user(&manager).post_data("/api/flex", json!({"stationId": s2.to_string(), "name": "Row 1", "sn": "TRK-1", "mapModel": "pv-reference-tracker",
               "unitId": 5, "sensors": [
                   {"name": "Inclinometer", "kind": "angle", "unitId": 6},
                   {"name": "Anemometer", "kind": "wind", "point": "wind_speed"},
                   {"name": "Motor", "kind": "motor", "unitId": 7},
                   {"name": "Spare", "kind": "other", "point": "AI3"}]})).await);

    let now = at;
    let date = local_date(at);
    let today = local_midnight(date);
    // Today's day rollups: counter deltas so far and the counter's last reading.
    for (dev, st, wh, last) in [
        (i1, s1, 120_000.0, 5_120_000.0),
        (i2, s1, 80_000.0, 3_080_000.0),
        (i3, s2, 30_000.0, 1_030_000.0),
    ] {
        app.put_rollup(
            T1,
            st,
            dev,
            "inverter",
            "1d",
            today,
            Some(wh),
            json!({"energy_total": [0, 0, 0, last]}),
        )
        .await;
    }
    // A meter's day rollup is no generation.
    app.put_rollup(T1, s1, meter, "meter", "1d", today, Some(999_000.0), json!({}))
        .await;
    // Past days: yesterday, 40 days ago, the last day of last year. On 1 January yesterday is
    // last year's last day: that one is I2's, so no two rows of one device share a day whatever
    // the date.
    let last_year_end = local_midnight(NaiveDate::from_ymd_opt(date.year(), 1, 1).expect("jan 1")) - DAY;
    for (dev, st, bucket, wh) in [
        (i1, s1, today - DAY, 100_000.0),
        (i1, s1, today - 40 * DAY, 70_000.0),
        (i3, s2, today - DAY, 20_000.0),
        (i2, s1, last_year_end, 55_000.0),
    ] {
        app.put_rollup(T1, st, dev, "inverter", "1d", bucket, Some(wh), json!({}))
            .await;
    }
    // Live: I1 producing 40 kW, its counter 5 kWh past the rollup; I2 offline (its 10 kW is
    // history); I3 producing 15 kW with fault code 3; the bracket's controller.
    app.put_live(live_sample(
        T1,
        s1,
        i1,
        "inverter",
        now,
        &[
            ("ac_power", 40_000.0),
            ("energy_total", 5_125_000.0),
            ("dc_power", 41_000.0),
            ("temperature", 45.0),
            ("status_code", 512.0),
            ("fault_code", 0.0),
            ("grid_voltage_a", 230.0),
            ("grid_voltage_b", 231.0),
            ("grid_voltage_c", 232.0),
            ("grid_frequency", 50.01),
            ("pv1_current", 8.5),
            ("pv2_current", 8.4),
            ("pv3_current", 8.6),
            ("pv1_voltage", 600.0),
            ("pv2_voltage", 601.0),
            ("pv3_voltage", 602.0),
        ],
        true,
    ))
    .await;
    app.put_live(live_sample(
        T1,
        s1,
        i2,
        "inverter",
        now - 3_600_000,
        &[
            ("ac_power", 10_000.0),
            ("energy_total", 3_080_000.0),
            ("pv1_current", 3.0),
        ],
        false,
    ))
    .await;
    app.put_live(live_sample(
        T1,
        s2,
        i3,
        "inverter",
        now,
        &[
            ("ac_power", 15_000.0),
            ("energy_total", 1_030_000.0),
            ("fault_code", 3.0),
        ],
        true,
    ))
    .await;
    app.put_live(live_sample(
        T1,
        s2,
        flex,
        "flex",
        now,
        &[
            ("tracker_angle", 12.5),
            ("tracker_target_angle", 13.0),
            ("tracker_mode", 2.0),
            ("tracker_stow", 1.0),
            ("motor_current", 1.25),
            ("wind_speed", 16.3),
            ("status_code", 2.0),
            ("fault_word1", 0.0),
        ],
        true,
    ))
    .await;
    // The alarm engine's verdict on I3's fault code 3 (this suite writes telemetry directly,
    // without ingest and the engine): an open station-fault alarm makes S2 a faulty station.
    pv_cloud::alarm::store::raise(
        &app.state.alarm_ctx(),
        &pv_cloud::alarm::store::Raise {
            tenant_id: T1.into(),
            station_id: s2,
            device_id: i3,
            device_kind: "inverter".into(),
            device_name: "INV-B1".into(),
            kind: "fault:fault_code:3".into(),
            category: "fault".into(),
            r#type: pv_cloud::alarm::store::TYPE_FAULT,
            level: pv_cloud::alarm::store::LEVEL_MAJOR,
            code: "3".into(),
            name: "未知故障码 3".into(),
            name_en: "Unknown fault code 3".into(),
            detail: String::new(),
            detail_en: String::new(),
            value: Some(3.0),
            threshold: None,
            at: now,
        },
    )
    .await
    .expect("raise");
    app.state.realtime.set_gateway(GatewayLive {
        gateway_id: "GW-D".into(),
        tenant_id: T1.into(),
        station_id: s4,
        online: true,
        last_seen: now,
        status: None,
        withheld_since: Default::default(),
    });

    // An owner given S1 only.
    let owner_id = app.user_with_alias(T1, "owner1", "owner", &[]).await;
    app.as_user(&manager)
        .post_data(
            "/api/station/updateUserStation",
            json!({"userId": owner_id.to_string(), "stationIds": [s1.to_string()]}),
        )
        .await;
    let owner = app.token_of(T1, "owner1", "secret1").await;

    // Tenant 100002: one station, one inverter producing 7 kW, 2 kWh today.
    let other = app.gateway_manager(T2, "mgr2").await;
    let x = int(&app
        .as_user(&other)
        .station_with(json!({"name": "Xi", "componentCapacity": 10, "provinceCode": "110000"}))
        .await);
    let xi = int(&app.as_user(&other).device(Device::Inverter, json!({"stationId": x.to_string(), "name": "INV-X", "sn": "A1", "stringsCount": 1, "ratedPower": 50})).await);
    app.put_rollup(
        T2,
        x,
        xi,
        "inverter",
        "1d",
        today,
        Some(2_000.0),
        json!({"energy_total": [0, 0, 0, 9_000.0]}),
    )
    .await;
    app.put_live(live_sample(
        T2,
        x,
        xi,
        "inverter",
        now,
        &[("ac_power", 7_000.0), ("energy_total", 9_000.0)],
        true,
    ))
    .await;

    Fleet {
        app,
        manager,
        owner,
        other,
        s1,
        s2,
        s3,
        s4,
        i1,
        i2,
        i3,
        flex,
        now,
        today,
        date,
    }
}

/// The month's and year's sums of the past-day rollups written by [`fleet`] (by hand: which of
/// yesterday, 40 days ago and last year's last day fall in this month / year).
fn past(f: &Fleet, stations: &[i64]) -> (f64, f64) {
    let today = f.date;
    let month_start = local_midnight(today.with_day(1).expect("day 1"));
    let year_start = local_midnight(NaiveDate::from_ymd_opt(today.year(), 1, 1).expect("jan 1"));
    let rows = [
        (f.s1, f.today - DAY, 100.0),
        (f.s1, f.today - 40 * DAY, 70.0),
        (f.s2, f.today - DAY, 20.0),
        (f.s1, year_start - DAY, 55.0),
    ];
    let sum = |from: i64| {
        rows.iter()
            .filter(|(s, b, _)| stations.contains(s) && *b >= from && *b < f.today)
            .map(|(_, _, kwh)| kwh)
            .sum::<f64>()
    };
    (sum(month_start), sum(year_start))
}

#[tokio::test]
async fn home_page_totals_follow_telemetry_and_the_callers_stations() {
    // Today, this month and this year at a year's first minutes, its last, a month's last, a 29
    // February and the day after it.
    for at in [
        NEW_YEAR,
        local_at(2026, 12, 31, 23, 50),
        local_at(2026, 11, 30, 23, 59),
        local_at(2028, 2, 29, 12, 0),
        local_at(2028, 3, 1, 0, 5),
    ] {
        home_page_totals_at(at).await;
    }
}

async fn home_page_totals_at(at: i64) {
    let f = fleet(at).await;
    let app = &f.app;
    let d = app.as_user(&f.manager).get_data("/api/homePage/data").await;
    assert_eq!(d["stationCount"], 4, "{d}");
    assert_eq!(
        (d["runningCount"].as_i64(), d["commissioningCount"].as_i64()),
        (Some(3), Some(1))
    );
    // Online: S1 and S2 (devices), S4 (gateway); offline: S3. Fault: S2 (an open alarm).
    assert_eq!(
        (d["onlineCount"].as_i64(), d["offlineCount"].as_i64()),
        (Some(3), Some(1))
    );
    assert_eq!(
        (d["faultCount"].as_i64(), d["normalCount"].as_i64()),
        (Some(1), Some(2))
    );
    approx(&d["capacityKwp"], 170.0, "kWp: 100 + 50 + 20");
    approx(&d["capacityKw"], 135.0, "kW: 80 + 40 + 15");
    approx(&d["currentPowerKw"], 55.0, "40 + 15, the offline I2 not counted");
    // Today: the day rollups' counted energy, I1 120, I2 80, I3 30 (I1's live counter 5 kWh past
    // its rollup is a reading, not a figure: it is counted when the rollup takes it).
    approx(&d["todayEnergyKwh"], 230.0, "today");
    let (month, year) = past(&f, &[f.s1, f.s2]);
    approx(&d["monthEnergyKwh"], month + 230.0, "month");
    approx(&d["yearEnergyKwh"], year + 230.0, "year");
    // Lifetime: all the energy counted since monitoring began, never a counter's last reading:
    // I1 120 + 100 + 70, I2 80 + 55, I3 30 + 20 = 475 kWh.
    approx(&d["totalEnergyKwh"], 475.0, "total");
    approx(&d["totalEnergyMwh"], 0.475, "total MWh");
    // h = 230 kWh / (100 + 50 + 20) kWp.
    approx(&d["equivalentHoursToday"], 1.35, "hours");
    // 475 kWh × 0.997 kg = 473.575 kg; × 0.4 kg = 190 kg; 473.575 / 18.3 = 25.9 trees.
    approx(&d["co2AvoidedT"], 0.474, "CO2");
    approx(&d["coalSavedT"], 0.19, "coal");
    assert_eq!(d["treesEquivalent"], 26);
    assert_eq!(
        d["factors"],
        json!({"coalKgPerKwh": 0.4, "co2KgPerKwh": 0.997, "so2KgPerKwh": 0.03, "noxKgPerKwh": 0.015,
            "dustKgPerKwh": 0.272, "co2KgPerTree": 18.3})
    );

    // The coefficient is a system parameter.
    app.exec(
        "INSERT INTO blade_param (id, param_name, param_key, param_value, create_time) VALUES (?, ?, ?, ?, ?)",
        vec![
            Value::Int(app.state.ids.next().0),
            "CO2".into(),
            "energy.co2KgPerKwh".into(),
            "0.8".into(),
            Value::Int(f.now),
        ],
    )
    .await;
    let d = app.as_user(&f.manager).get_data("/api/homePage/data").await;
    // 475 × 0.8 = 380 kg; 380 / 18.3 = 20.8.
    approx(&d["co2AvoidedT"], 0.38, "CO2 with the parameter");
    assert_eq!(d["treesEquivalent"], 21);

    // The owner of S1 sees S1's figures only.
    let d = app.as_user(&f.owner).get_data("/api/homePage/data").await;
    assert_eq!(d["stationCount"], 1, "{d}");
    assert_eq!(
        (d["onlineCount"].as_i64(), d["faultCount"].as_i64()),
        (Some(1), Some(0))
    );
    approx(&d["capacityKwp"], 100.0, "owner kWp");
    approx(&d["currentPowerKw"], 40.0, "owner power");
    approx(&d["todayEnergyKwh"], 200.0, "owner today: 120 + 80");
    let (month, year) = past(&f, &[f.s1]);
    approx(&d["monthEnergyKwh"], month + 200.0, "owner month");
    approx(&d["yearEnergyKwh"], year + 200.0, "owner year");
    approx(&d["totalEnergyKwh"], 425.0, "owner total: 290 + 135");
    approx(&d["equivalentHoursToday"], 2.0, "200 / 100");

    // The other tenant sees its own station only.
    let d = app.as_user(&f.other).get_data("/api/homePage/data").await;
    assert_eq!(d["stationCount"], 1, "{d}");
    approx(&d["currentPowerKw"], 7.0, "other power");
    approx(&d["todayEnergyKwh"], 2.0, "other today");
    approx(&d["totalEnergyKwh"], 2.0, "other total: its one day");

    // Not signed in.
    let Reply { status, body, .. } = app.get("/api/homePage/data").await;
    support::assert_failure(status, &body, 401);
}

#[tokio::test]
async fn map_area_and_province_figures_add_up() {
    let f = fleet(NEW_YEAR).await;
    let app = &f.app;
    let map = app.as_user(&f.manager).get_data("/api/homePage/map").await;
    let by_name = |name: &str| {
        map.as_array()
            .expect("list")
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} missing: {map}"))
    };
    assert_eq!(map.as_array().map(Vec::len), Some(4));
    let a = by_name("Alpha");
    assert_eq!(a["id"], f.s1.to_string());
    assert_eq!(
        (
            a["status"].as_str(),
            a["provinceName"].as_str(),
            a["cityName"].as_str()
        ),
        (Some("producing"), Some("北京市"), Some("市辖区"))
    );
    approx(&a["latitude"], 39.9, "lat");
    approx(&a["currentPowerKw"], 40.0, "S1 power");
    approx(&a["todayEnergyKwh"], 200.0, "S1 today");
    assert_eq!(a["updateTime"], local_text(f.now / 1000 * 1000));
    assert_eq!(by_name("Beta")["status"], "fault");
    assert_eq!(by_name("Gamma")["status"], "offline");
    assert_eq!(by_name("Gamma")["id"], f.s3.to_string());
    assert_eq!(by_name("Delta")["id"], f.s4.to_string());
    assert!(by_name("Gamma")["latitude"].is_null());
    let delta = by_name("Delta");
    assert_eq!(
        (delta["status"].as_str(), delta["online"].as_bool()),
        (Some("commissioning"), Some(true))
    );

    // Area tree: Beijing (S1, S4), Guangdong (S2), then the stations without a province (S3).
    let area = app.as_user(&f.manager).get_data("/api/station/listByArea").await;
    let provinces: Vec<&str> = area
        .as_array()
        .expect("list")
        .iter()
        .map(|p| p["provinceCode"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(provinces, vec!["110000", "440000", ""], "{area}");
    let bj = &area[0];
    assert_eq!(
        (bj["provinceName"].as_str(), bj["stationCount"].as_i64()),
        (Some("北京市"), Some(2))
    );
    approx(&bj["capacityKwp"], 120.0, "BJ kWp");
    approx(&bj["currentPowerKw"], 40.0, "BJ power");
    approx(&bj["todayEnergyKwh"], 200.0, "BJ today");
    assert_eq!(bj["cities"][0]["cityCode"], "110100");
    let names: Vec<&str> = bj["cities"][0]["stations"]
        .as_array()
        .expect("stations")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(names, vec!["Alpha", "Delta"]);
    approx(&area[1]["todayEnergyKwh"], 30.0, "GD today");
    assert_eq!(area[1]["cities"][0]["cityName"], "广州市");
    assert_eq!(
        (area[2]["provinceName"].as_str(), area[2]["stationCount"].as_i64()),
        (Some("未设置"), Some(1))
    );
    let Reply { body, .. } = app.as_user(&f.manager).en().get("/api/station/listByArea").await;
    assert_eq!(body["data"][2]["provinceName"], "Not set");

    let stats = app
        .as_user(&f.manager)
        .get_data("/api/station/getStatisticsByProvince")
        .await;
    assert_eq!(stats.as_array().map(Vec::len), Some(3), "{stats}");
    assert_eq!(
        (
            stats[0]["provinceCode"].as_str(),
            stats[0]["provinceName"].as_str()
        ),
        (Some("110000"), Some("北京市"))
    );
    assert_eq!(stats[0]["stationCount"], 2);
    approx(&stats[0]["capacityKwp"], 120.0, "BJ kWp");
    approx(&stats[0]["todayEnergyKwh"], 200.0, "BJ today");
    approx(&stats[0]["totalEnergyKwh"], 425.0, "BJ total: 290 + 135");
    approx(&stats[1]["totalEnergyKwh"], 50.0, "GD total");

    // The owner: S1 only, everywhere.
    let map = app.as_user(&f.owner).get_data("/api/homePage/map").await;
    assert_eq!(map.as_array().map(Vec::len), Some(1));
    assert_eq!(map[0]["name"], "Alpha");
    let area = app.as_user(&f.owner).get_data("/api/station/listByArea").await;
    assert_eq!(area.as_array().map(Vec::len), Some(1));
    assert_eq!(area[0]["stationCount"], 1);
    approx(&area[0]["capacityKwp"], 100.0, "owner BJ kWp");
    let stats = app
        .as_user(&f.owner)
        .get_data("/api/station/getStatisticsByProvince")
        .await;
    assert_eq!(stats.as_array().map(Vec::len), Some(1));
    approx(&stats[0]["totalEnergyKwh"], 425.0, "owner total");
    let list = app.as_user(&f.owner).get_data("/api/station/list").await;
    assert_eq!(
        list.as_array().map(Vec::len),
        Some(1),
        "existing list keeps the scope"
    );

    // The other tenant: none of tenant 100001's stations.
    let map = app.as_user(&f.other).get_data("/api/homePage/map").await;
    assert_eq!(map.as_array().map(Vec::len), Some(1));
    assert_eq!(map[0]["name"], "Xi");
    let stats = app
        .as_user(&f.other)
        .get_data("/api/station/getStatisticsByProvince")
        .await;
    assert_eq!(stats[0]["stationCount"], 1);
    approx(&stats[0]["totalEnergyKwh"], 2.0, "other total");
}

#[tokio::test]
async fn the_inverter_table_shows_live_values_filters_and_pages() {
    let f = fleet(NEW_YEAR).await;
    let app = &f.app;
    let Reply { status, body, .. } = app.as_user(&f.manager).post("/api/inverterReal/list").await;
    assert_eq!(status, 200, "{body}");
    let page = &body["data"];
    assert_eq!(page["total"], 3, "{page}");
    let ids: Vec<&str> = page["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or("?"))
        .collect();
    let (i1, i2, i3) = (f.i1.to_string(), f.i2.to_string(), f.i3.to_string());
    assert_eq!(
        ids,
        vec![i1.as_str(), i2.as_str(), i3.as_str()],
        "by station, then name"
    );
    let r = &page["records"][0];
    assert_eq!(
        (r["stationName"].as_str(), r["sn"].as_str(), r["online"].as_bool()),
        (Some("Alpha"), Some("A1"), Some(true))
    );
    approx(&r["acPowerKw"], 40.0, "ac");
    approx(&r["todayEnergyKwh"], 120.0, "today: its day rollup");
    // Lifetime: its counted days (120 + 100 + 70), never its own counter's reading (5 125 kWh).
    approx(&r["totalEnergyKwh"], 290.0, "total");
    approx(&r["dcPowerKw"], 41.0, "dc");
    approx(&r["efficiency"], 97.56, "40 / 41");
    approx(&r["temperature"], 45.0, "temperature");
    approx(&r["statusCode"], 512.0, "status");
    approx(&r["faultCode"], 0.0, "fault");
    approx(&r["gridVoltage"], 231.0, "mean of the phases");
    assert_eq!(r["gridVoltages"], json!([230.0, 231.0, 232.0]));
    approx(&r["gridFrequency"], 50.01, "f");
    assert_eq!(r["pvCurrents"], json!([8.5, 8.4, 8.6]));
    assert_eq!(r["pvVoltages"], json!([600.0, 601.0, 602.0]));
    assert_eq!(r["updateTime"], local_text(f.now / 1000 * 1000));
    approx(&r["ratedPowerKw"], 50.0, "rated");
    let r2 = &page["records"][1];
    assert_eq!(r2["online"], false);
    approx(&r2["acPowerKw"], 0.0, "offline shows no power");
    approx(&r2["todayEnergyKwh"], 80.0, "I2 today from its rollup");
    assert_eq!(r2["pvCurrents"], json!([3.0, null]), "two strings, one reported");

    // Filters in the query string or the body; paging.
    let records = |v: &Json| -> Vec<String> {
        v["records"]
            .as_array()
            .expect("records")
            .iter()
            .map(|r| r["id"].as_str().unwrap_or("?").to_owned())
            .collect()
    };
    let p = app
        .as_user(&f.manager)
        .post_data("/api/inverterReal/list?online=false", json!({}))
        .await;
    assert_eq!(records(&p), vec![i2.clone()]);
    let p = app
        .as_user(&f.manager)
        .post_data(
            "/api/inverterReal/list",
            json!({"online": true, "stationId": f.s1.to_string()}),
        )
        .await;
    assert_eq!(records(&p), vec![i1.clone()]);
    let p = app
        .as_user(&f.manager)
        .post_data("/api/inverterReal/list", json!({"keyword": "b1"}))
        .await;
    assert_eq!(records(&p), vec![i3.clone()]);
    let p = app
        .as_user(&f.manager)
        .post_data("/api/inverterReal/list?size=2&current=2", json!({}))
        .await;
    assert_eq!(
        (records(&p), p["total"].as_i64(), p["pages"].as_i64()),
        (vec![i3.clone()], Some(3), Some(2))
    );
    let Reply { status, body, .. } = app
        .as_user(&f.manager)
        .post_json("/api/inverterReal/list", json!({"online": "maybe"}))
        .await;
    support::assert_failure(status, &body, 400);

    // Owner: S1's inverters; the other tenant: only its own (same SN A1, other tenant).
    let p = app
        .as_user(&f.owner)
        .post_data("/api/inverterReal/list", json!({}))
        .await;
    assert_eq!(records(&p), vec![i1.clone(), i2.clone()]);
    let p = app
        .as_user(&f.owner)
        .post_data("/api/inverterReal/list", json!({"stationId": f.s2.to_string()}))
        .await;
    assert_eq!(p["total"], 0, "another station is not the owner's");
    let p = app
        .as_user(&f.other)
        .post_data("/api/inverterReal/list", json!({}))
        .await;
    assert_eq!(p["total"], 1);
    assert_eq!(p["records"][0]["name"], "INV-X");
    approx(&p["records"][0]["todayEnergyKwh"], 2.0, "other today");

    // Chartable metrics, with PV inputs up to the chosen inverters' string count.
    let names = app
        .as_user(&f.manager)
        .get_data(&format!("/api/inverterReal/listWaveName?inverterIds={}", f.i1))
        .await;
    let list: Vec<&str> = names
        .as_array()
        .expect("names")
        .iter()
        .map(|n| n["name"].as_str().unwrap_or("?"))
        .collect();
    assert!(
        list.contains(&"ac_power") && list.contains(&"pv3_current"),
        "{list:?}"
    );
    assert!(!list.contains(&"pv4_current"), "I1 has 3 strings");
    let ac = names
        .as_array()
        .and_then(|n| n.iter().find(|n| n["name"] == "ac_power"))
        .expect("ac_power");
    assert_eq!(
        (
            ac["unit"].as_str(),
            ac["labelZh"].as_str(),
            ac["labelEn"].as_str(),
            ac["label"].as_str()
        ),
        (Some("kW"), Some("交流功率"), Some("AC power"), Some("交流功率"))
    );
    let Reply { body, .. } = app
        .as_user(&f.owner)
        .en()
        .get("/api/inverterReal/listWaveName")
        .await;
    let pv: Vec<&str> = body["data"]
        .as_array()
        .expect("names")
        .iter()
        .filter(|n| {
            n["name"]
                .as_str()
                .is_some_and(|s| s.ends_with("_current") && s.starts_with("pv"))
        })
        .map(|n| n["label"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        pv,
        vec!["PV1 current", "PV2 current", "PV3 current"],
        "owner's inverters have ≤ 3 strings"
    );
}

#[tokio::test]
async fn chosen_inverters_answer_their_status_and_power() {
    let f = fleet(NEW_YEAR).await;
    let app = &f.app;
    // The registry list asks for its page's inverters by id: I1 online at 40 kW, I2 offline,
    // I3 producing but with an open fault alarm.
    let page = app
        .as_user(&f.manager)
        .post_data(
            &format!("/api/inverterReal/list?inverterIds={},{}", f.i3, f.i2),
            json!({}),
        )
        .await;
    assert_eq!(page["total"], 2, "only the chosen ones: {page}");
    let status: Vec<(String, String, Option<f64>)> = page["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or("?").to_owned(),
                r["status"].as_str().unwrap_or("?").to_owned(),
                r["acPowerKw"].as_f64(),
            )
        })
        .collect();
    assert_eq!(
        status,
        vec![
            (f.i2.to_string(), "offline".to_owned(), Some(0.0)),
            (f.i3.to_string(), "fault".to_owned(), Some(15.0)),
        ]
    );
    let one = app
        .as_user(&f.manager)
        .post_data(
            "/api/inverterReal/list",
            json!({"inverterIds": [f.i1.to_string()]}),
        )
        .await;
    assert_eq!(one["records"][0]["status"], "online");
    approx(&one["records"][0]["acPowerKw"], 40.0, "I1");
    // Another tenant's id is simply not there; the owner sees only S1's.
    let theirs = app
        .as_user(&f.other)
        .post_data(&format!("/api/inverterReal/list?inverterIds={}", f.i1), json!({}))
        .await;
    assert_eq!(theirs["total"], 0);
    let owner = app
        .as_user(&f.owner)
        .post_data(
            &format!("/api/inverterReal/list?inverterIds={},{}", f.i1, f.i3),
            json!({}),
        )
        .await;
    assert_eq!(owner["total"], 1);

    // What does not make a fault: a smart warning on I2, a cleared fault on I1, a fault of another
    // inverter of I1's station. What does: an open fault on an offline inverter (I2), whose
    // power stays 0.
    let alarm = |station: i64, device: i64, kind: &str, r#type: i64| pv_cloud::alarm::store::Raise {
        tenant_id: T1.into(),
        station_id: station,
        device_id: device,
        device_kind: "inverter".into(),
        device_name: "INV".into(),
        kind: kind.into(),
        category: "fault".into(),
        r#type,
        level: pv_cloud::alarm::store::LEVEL_MAJOR,
        code: "7".into(),
        name: "故障".into(),
        name_en: "Fault".into(),
        detail: String::new(),
        detail_en: String::new(),
        value: Some(7.0),
        threshold: None,
        at: f.now,
    };
    let ctx = app.state.alarm_ctx();
    let warning = pv_cloud::alarm::store::TYPE_WARNING;
    let fault = pv_cloud::alarm::store::TYPE_FAULT;
    pv_cloud::alarm::store::raise(&ctx, &alarm(f.s1, f.i2, "hday:low", warning))
        .await
        .expect("warning");
    pv_cloud::alarm::store::raise(&ctx, &alarm(f.s1, f.i1, "fault:fault_code:7", fault))
        .await
        .expect("fault");
    pv_cloud::alarm::store::clear_auto(&ctx, T1, f.s1, f.i1, "fault:fault_code:7", f.now)
        .await
        .expect("clear");
    let statuses = |page: &Json| -> Vec<(String, Option<f64>)> {
        page["records"]
            .as_array()
            .expect("records")
            .iter()
            .map(|r| {
                (
                    r["status"].as_str().unwrap_or("?").to_owned(),
                    r["acPowerKw"].as_f64(),
                )
            })
            .collect()
    };
    let ask = format!("/api/inverterReal/list?inverterIds={},{}", f.i1, f.i2);
    let page = app.as_user(&f.manager).post_data(&ask, json!({})).await;
    assert_eq!(
        statuses(&page),
        vec![
            ("online".to_owned(), Some(40.0)),
            ("offline".to_owned(), Some(0.0))
        ],
        "a warning or a cleared fault is no fault"
    );
    pv_cloud::alarm::store::raise(&ctx, &alarm(f.s1, f.i2, "fault:fault_code:7", fault))
        .await
        .expect("fault");
    let page = app.as_user(&f.manager).post_data(&ask, json!({})).await;
    assert_eq!(
        statuses(&page),
        vec![("online".to_owned(), Some(40.0)), ("fault".to_owned(), Some(0.0))],
        "an open fault shows on the offline inverter it belongs to, and no other"
    );
}

#[tokio::test]
async fn wave_curves_are_five_minute_means_of_one_local_day() {
    let f = fleet(NEW_YEAR).await;
    let app = &f.app;
    let day = f.date - Duration::days(1);
    let start = local_midnight(day);
    let at = |h: i64, m: i64, s: i64| start + ((h * 60 + m) * 60 + s) * 1000;
    // I1: 5m rollups up to 08:05; raw samples after them (and one inside a rolled-up bucket,
    // which the rollup already accounts for), one with a text value, and samples just outside
    // the day.
    for (bucket, ac, pv1) in [(at(8, 0, 0), 1_000.0, 5.0), (at(8, 5, 0), 2_000.0, 5.5)] {
        app.put_rollup(
            T1,
            f.s1,
            f.i1,
            "inverter",
            "5m",
            bucket,
            None,
            json!({"ac_power": [ac, 0, 0, 0], "pv1_current": [pv1, 0, 0, 0]}),
        )
        .await;
    }
    app.put_raw(
        T1,
        f.s1,
        f.i1,
        &[
            (at(8, 6, 0), json!({"ac_power": 99_999.0})),
            (at(8, 10, 0), json!({"ac_power": 3_000.0, "pv1_current": 6.0})),
            (at(8, 12, 30), json!({"ac_power": 5_000.0})),
            (at(8, 15, 0), json!({"ac_power": 6_000.0})),
            (at(8, 16, 0), json!({"ac_power": "n/a"})),
            (at(23, 57, 0), json!({"ac_power": 500.0})),
            (start - 1_000, json!({"ac_power": 7_777.0})),
            (start + DAY, json!({"ac_power": 8_888.0})),
        ],
    )
    .await;
    // I2: no rollups at all; a raw sample each minute of the day, ac_power = the minute's index.
    let samples: Vec<(i64, Json)> = (0..1440)
        .map(|k| (start + k * 60_000, json!({"ac_power": k as f64})))
        .collect();
    app.put_raw(T1, f.s1, f.i2, &samples).await;

    let path = format!(
        "/api/inverterReal/listWaveTag?inverterIds={},{}&names=ac_power,pv1_current&date={day}",
        f.i1, f.i2
    );
    let d = app.as_user(&f.manager).get_data(&path).await;
    assert_eq!(d["date"], day.to_string());
    assert_eq!(d["start"], format!("{day} 00:00:00"));
    assert_eq!(d["end"], format!("{} 00:00:00", day + Duration::days(1)));
    assert_eq!(d["intervalMinutes"], 5);
    let series = d["series"].as_array().expect("series");
    let keys: Vec<(String, String)> = series
        .iter()
        .map(|s| {
            (
                s["inverterId"].as_str().unwrap_or("?").to_owned(),
                s["name"].as_str().unwrap_or("?").to_owned(),
            )
        })
        .collect();
    let (i1, i2) = (f.i1.to_string(), f.i2.to_string());
    assert_eq!(
        keys,
        vec![
            (i1.clone(), "ac_power".into()),
            (i1.clone(), "pv1_current".into()),
            (i2.clone(), "ac_power".into()),
            (i2.clone(), "pv1_current".into()),
        ]
    );
    let t = |h: i64, m: i64| format!("{day} {h:02}:{m:02}:00");
    assert_eq!(series[0]["unit"], "kW");
    assert_eq!(series[0]["label"], "交流功率");
    assert_eq!(
        series[0]["points"],
        json!([
            [t(8, 0), 1.0],
            [t(8, 5), 2.0],
            [t(8, 10), 4.0],
            [t(8, 15), 6.0],
            [t(23, 55), 0.5]
        ]),
        "rollups, then raw means; nothing outside the day"
    );
    assert_eq!(series[1]["unit"], "A");
    assert_eq!(
        series[1]["points"],
        json!([[t(8, 0), 5.0], [t(8, 5), 5.5], [t(8, 10), 6.0]])
    );
    let pts = series[2]["points"].as_array().expect("points");
    assert_eq!(pts.len(), 288, "one point per 5 minutes");
    // Bucket k holds minutes 5k..5k+4: mean 5k + 2 W.
    assert_eq!(pts[0], json!([t(0, 0), 0.002]));
    assert_eq!(pts[100], json!([t(8, 20), 0.502]));
    assert_eq!(pts[287], json!([t(23, 55), 1.437]));
    assert_eq!(series[3]["points"], json!([]));

    // Refusals: unknown metric, too many, nothing chosen, a bad date; others' inverters.
    for (query, code) in [
        (format!("inverterIds={}&names=wind_speed", f.i1), 400),
        (format!("inverterIds={}&names=pv0_current", f.i1), 400),
        (format!("inverterIds={}", f.i1), 400),
        (format!("inverterIds={}&names=ac_power&date=yesterday", f.i1), 400),
        (format!("inverterIds={}&names=a,b,c,d,e,f,g,h,i,j,k", f.i1), 400),
    ] {
        let Reply { status, body, .. } = app
            .as_user(&f.manager)
            .get(&format!("/api/inverterReal/listWaveTag?{query}"))
            .await;
        support::assert_failure(status, &body, code);
    }
    let Reply { status, body, .. } = app
        .as_user(&f.owner)
        .get(&format!(
            "/api/inverterReal/listWaveTag?inverterIds={}&names=ac_power",
            f.i3
        ))
        .await;
    support::assert_failure(status, &body, 404);
    let Reply { status, body, .. } = app
        .as_user(&f.other)
        .get(&format!(
            "/api/inverterReal/listWaveTag?inverterIds={}&names=ac_power",
            f.i1
        ))
        .await;
    support::assert_failure(status, &body, 404);
    // The owner's own inverter works.
    let d = app
        .as_user(&f.owner)
        .get_data(&format!(
            "/api/inverterReal/listWaveTag?inverterIds={}&names=ac_power&date={day}",
            f.i1
        ))
        .await;
    assert_eq!(d["series"][0]["points"].as_array().map(Vec::len), Some(5));
}

#[tokio::test]
async fn flex_realtime_and_sensor_curves() {
    let f = fleet(NEW_YEAR).await;
    let app = &f.app;
    let list = app
        .as_user(&f.manager)
        .get_data("/api/FlexData/realTimeData")
        .await;
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    let b = &list[0];
    assert_eq!(
        (
            b["stationId"].as_str(),
            b["flexId"].as_str(),
            b["sn"].as_str(),
            b["online"].as_bool()
        ),
        (
            Some(f.s2.to_string().as_str()),
            Some(f.flex.to_string().as_str()),
            Some("TRK-1"),
            Some(true)
        )
    );
    approx(&b["angle"], 12.5, "angle");
    approx(&b["targetAngle"], 13.0, "target");
    assert_eq!(
        (b["mode"].as_f64(), b["modeName"].as_str(), b["stow"].as_bool()),
        (Some(2.0), Some("保护"), Some(true))
    );
    approx(&b["windSpeed"], 16.3, "wind");
    approx(&b["motorCurrent"], 1.25, "motor");
    let sensors: Vec<(String, Json, Json)> = b["sensors"]
        .as_array()
        .expect("sensors")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("?").to_owned(),
                s["metric"].clone(),
                s["value"].clone(),
            )
        })
        .collect();
    assert_eq!(
        sensors,
        vec![
            ("Inclinometer".into(), json!("tracker_angle"), json!(12.5)),
            ("Anemometer".into(), json!("wind_speed"), json!(16.3)),
            ("Motor".into(), json!("motor_current"), json!(1.25)),
            ("Spare".into(), Json::Null, Json::Null),
        ]
    );
    assert_eq!(b["sensors"][0]["unit"], "deg");
    assert_eq!(b["sensors"][1]["unit"], "m/s");
    let one = app
        .as_user(&f.manager)
        .get_data(&format!("/api/FlexData/realTimeData?stationId={}", f.s1))
        .await;
    assert_eq!(one, json!([]), "S1 has no bracket");
    // S2 is not the owner's, nor the other tenant's.
    assert_eq!(
        app.as_user(&f.owner).get_data("/api/FlexData/realTimeData").await,
        json!([])
    );
    assert_eq!(
        app.as_user(&f.other).get_data("/api/FlexData/realTimeData").await,
        json!([])
    );

    // A sensor's day: the angle sensor charts the angle and its target.
    let angle = b["sensors"][0]["id"].as_str().expect("sensor id").to_owned();
    let wind = b["sensors"][1]["id"].as_str().expect("sensor id").to_owned();
    let day = f.date - Duration::days(1);
    let start = local_midnight(day);
    app.put_rollup(
        T1,
        f.s2,
        f.flex,
        "flex",
        "5m",
        start + 10 * 3_600_000,
        None,
        json!({"tracker_angle": [10.0, 9.0, 11.0, 10.5], "tracker_target_angle": [11.0, 11.0, 11.0, 11.0],
               "wind_speed": [4.0, 3.0, 5.0, 4.0]}),
    )
    .await;
    app.put_raw(
        T1,
        f.s2,
        f.flex,
        &[
            (start + 10 * 3_600_000 + 300_000, json!({"wind_speed": 6.0})),
            (start + 10 * 3_600_000 + 420_000, json!({"wind_speed": 8.0})),
        ],
    )
    .await;
    let d = app
        .as_user(&f.manager)
        .get_data(&format!("/api/FlexReal/dataBySensor?sensorId={angle}&date={day}"))
        .await;
    assert_eq!(
        (d["sensorName"].as_str(), d["stationName"].as_str()),
        (Some("Inclinometer"), Some("Beta"))
    );
    assert_eq!(d["series"][0]["name"], "tracker_angle");
    assert_eq!(
        d["series"][0]["points"],
        json!([[format!("{day} 10:00:00"), 10.0]])
    );
    assert_eq!(d["series"][1]["name"], "tracker_target_angle");
    assert_eq!(
        d["series"][1]["points"],
        json!([[format!("{day} 10:00:00"), 11.0]])
    );
    let d = app
        .as_user(&f.manager)
        .get_data(&format!("/api/FlexReal/dataBySensor?sensorId={wind}&date={day}"))
        .await;
    assert_eq!(d["series"].as_array().map(Vec::len), Some(1));
    assert_eq!(d["series"][0]["unit"], "m/s");
    assert_eq!(
        d["series"][0]["points"],
        json!([[format!("{day} 10:00:00"), 4.0], [format!("{day} 10:05:00"), 7.0]])
    );
    for token in [&f.owner, &f.other] {
        let Reply { status, body, .. } = app
            .as_user(token)
            .get(&format!("/api/FlexReal/dataBySensor?sensorId={angle}"))
            .await;
        support::assert_failure(status, &body, 404);
    }
    let Reply { status, body, .. } = app.as_user(&f.manager).get("/api/FlexReal/dataBySensor").await;
    support::assert_failure(status, &body, 400);
}

#[tokio::test]
async fn the_calls_are_in_the_openapi_document() {
    let app = TestApp::start().await;
    let Reply {
        status, body: doc, ..
    } = app.get("/api/openapi.json").await;
    assert_eq!(status, 200);
    for p in [
        "/api/homePage/data",
        "/api/homePage/map",
        "/api/station/listByArea",
        "/api/station/getStatisticsByProvince",
        "/api/inverterReal/list",
        "/api/inverterReal/listWaveName",
        "/api/inverterReal/listWaveTag",
        "/api/FlexData/realTimeData",
        "/api/FlexReal/dataBySensor",
    ] {
        assert!(doc["paths"].get(p).is_some(), "{p} missing from OpenAPI");
    }
    let desc = doc["components"]["schemas"]["HomeData"]["properties"]["capacityKwp"]["description"]
        .as_str()
        .unwrap_or_default();
    assert!(desc.contains("kWp"), "units documented: {desc}");
}
