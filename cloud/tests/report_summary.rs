//! The station-day summary that month, year and multi-year reports read gives the answers of
//! the rollups themselves: on a hand-made station, after a late sample for a past day, and
//! after a device is deleted. The raw-rollup answer of a day is the same report by hour (hour
//! rows, never the summary). Runs on SQLite, or on PostgreSQL with `TEST_POSTGRES_URL`.

use crate::support;

use std::collections::BTreeSet;

use chrono::NaiveDate;
use pv_cloud::kernel::sql::Value;
use serde_json::{Value as Json, json};
use support::{TestApp, approx, int, live_sample, local_midnight};

const T1: &str = "100001";
const HOUR: i64 = 3_600_000;
const MIN: i64 = 60_000;

fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("date")
}

fn point<'a>(d: &'a Json, label: &str) -> &'a Json {
    d["points"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["label"] == label))
        .unwrap_or_else(|| panic!("no point {label} in {d}"))
}

struct Site {
    app: TestApp,
    token: String,
    station: i64,
    devices: Vec<(i64, &'static str)>,
}

async fn rollup(app: &TestApp, device: i64, samples: &[(i64, Json)]) {
    let buckets: BTreeSet<i64> = samples
        .iter()
        .map(|(ts, _)| ts - ts.rem_euclid(5 * MIN))
        .collect();
    pv_cloud::telemetry::rollup::recompute(&app.state.db, device, &buckets, 900_000, 8 * HOUR)
        .await
        .expect("rollup");
}

/// A 10 kWp station with two inverters, a grid meter and a weather station, samples every 5
/// minutes from 10:00 to 11:55 (+08:00) on 2026-05-10 and 2026-05-11: each inverter +500 Wh a
/// sample (12 kWh a day), the meter exports +100 Wh a sample (2.4 kWh a day), 600 W/m².
async fn site() -> Site {
    let app = TestApp::start().await;
    let menus: Vec<&str> = support::factory::STATION_MENUS.to_vec();
    app.create_tenant_user(T1, "mgr", "secret1", &menus, None).await;
    let token = app.token_of(T1, "mgr", "secret1").await;
    let m = app.as_user(&token);
    let station = int(&m
        .station_with(json!({"name": "Summed", "componentCapacity": 10, "componentCount": 20}))
        .await);
    let s = station.to_string();
    let inv1 = int(&m.inverter(&s, "INV-A", 1, json!({"ratedPower": 5})).await);
    let inv2 = int(&m.inverter(&s, "INV-B", 1, json!({"ratedPower": 5})).await);
    let meter = int(&m
        .device(
            support::Device::Meter,
            json!({"stationId": s, "name": "Grid", "meterRole": "1", "sn": "SM-1", "ctRatio": 1, "ptRatio": 1}),
        )
        .await);
    let weather = int(&m
        .device(
            support::Device::Weather,
            json!({"stationId": s, "name": "W", "sn": "SW-1"}),
        )
        .await);
    let devices = vec![
        (inv1, "inverter"),
        (inv2, "inverter"),
        (meter, "meter"),
        (weather, "weather"),
    ];
    for (device, kind) in &devices {
        let mut samples = Vec::new();
        let mut counter = 1_000.0;
        for d in ["2026-05-10", "2026-05-11"] {
            let midnight = local_midnight(day(d));
            for k in 0..24 {
                let ts = midnight + 10 * HOUR + 5 * k * MIN;
                let metrics = match *kind {
                    "inverter" => {
                        counter += 500.0;
                        json!({"energy_total": counter})
                    }
                    "meter" => {
                        counter += 100.0;
                        json!({"energy_export": counter, "energy_import": 0.0})
                    }
                    _ => json!({"irradiance_poa": 600.0, "module_temperature": 40.0}),
                };
                samples.push((ts, metrics));
            }
        }
        let last = samples.last().map(|s| s.0).unwrap_or_default();
        app.put_live(live_sample(
            T1,
            station,
            *device,
            kind,
            last,
            &[("ac_power", 1.0)],
            true,
        ))
        .await;
        app.put_raw(T1, station, *device, &samples).await;
        rollup(&app, *device, &samples).await;
    }
    Site {
        app,
        token,
        station,
        devices,
    }
}

/// The month's day point of `date` equals the day's hourly report (hour rows) total.
async fn same_as_hours(site: &Site, month: &Json, date: &str) {
    let m = site.app.as_user(&site.token);
    let hours = m
        .get_data(&format!(
            "/api/report/station/electricity?stationId={}&type=day&date={date}",
            site.station
        ))
        .await;
    let p = point(month, date);
    for field in ["energyKwh", "exportKwh", "importKwh", "irradiationKwhM2"] {
        assert_eq!(
            p[field], hours["total"][field],
            "{date} {field}: month {month} vs hours {hours}"
        );
    }
}

async fn month(site: &Site) -> Json {
    site.app
        .as_user(&site.token)
        .get_data(&format!(
            "/api/report/station/electricity?stationId={}&type=month&date=2026-05",
            site.station
        ))
        .await
}

#[tokio::test]
async fn summary_answers_equal_the_rollups_also_after_a_late_sample_and_a_deleted_device() {
    let site = site().await;
    let m = site.app.as_user(&site.token);
    let d = month(&site).await;
    // Two inverters × 23 deltas × 500 Wh (the day's first sample is measured from the day
    // before only on the second day: 24 deltas) → 23 kWh on the 10th, 24 kWh on the 11th.
    approx(&point(&d, "2026-05-10")["energyKwh"], 23.0, "10th");
    approx(&point(&d, "2026-05-11")["energyKwh"], 24.0, "11th");
    approx(&point(&d, "2026-05-11")["exportKwh"], 2.4, "export");
    assert!(point(&d, "2026-05-09")["energyKwh"].is_null(), "no data is not 0");
    same_as_hours(&site, &d, "2026-05-10").await;
    same_as_hours(&site, &d, "2026-05-11").await;
    let summed = site
        .app
        .scalar_i64(
            "SELECT COUNT(*) FROM pv_telemetry_station_day WHERE station_id = ?",
            vec![Value::Int(site.station)],
        )
        .await;
    assert_eq!(summed, 2, "the month was read from the station-day summary");
    let y = m
        .get_data(&format!(
            "/api/report/station/multiple/electricity?stationIds={}&type=year&date=2026",
            site.station
        ))
        .await;
    approx(&point(&y[0], "2026-05")["energyKwh"], 47.0, "year by month");
    approx(&y[0]["total"]["energyKwh"], 47.0, "year");

    // PR of the 10th from the station-hour summary: hour 10 has 11 deltas × 500 Wh × 2 = 11 kWh
    // and 11 trapezoids × 600 × 5/60 = 550 Wh/m², hour 11 12 kWh and 600 Wh/m²:
    // PR = (23 / 10) / 1.15 = 2.0.
    let pr = |date: &'static str| {
        let m = site.app.as_user(&site.token);
        let station = site.station;
        async move {
            m.get_data(&format!(
                "/api/report/station/electricity/rate?stationId={station}&type=day&date={date}"
            ))
            .await
        }
    };
    let r = pr("2026-05-10").await;
    assert_eq!(r["interval"], "1h");
    assert_eq!(r["planeOfArray"], true);
    approx(&r["total"]["energyKwh"], 23.0, "PR energy");
    approx(&r["total"]["irradiationKwhM2"], 1.15, "PR irradiation");
    approx(&r["total"]["pr"], 2.0, "PR");
    let hours = site
        .app
        .scalar_i64(
            "SELECT COUNT(*) FROM pv_telemetry_station_hour WHERE station_id = ?",
            vec![Value::Int(site.station)],
        )
        .await;
    assert_eq!(hours, 4, "two hours a day in the station-hour summary");

    // A late sample for the 10th, before the day's first one: the first inverter's counter
    // read 800 Wh at 09:55, so the 10th gains 700 Wh once the worker recomputes that bucket.
    let (inv1, _) = site.devices[0];
    let ts = local_midnight(day("2026-05-10")) + 9 * HOUR + 55 * MIN;
    let late = [(ts, json!({"energy_total": 800.0}))];
    site.app.put_raw(T1, site.station, inv1, &late).await;
    rollup(&site.app, inv1, &late).await;
    let d = month(&site).await;
    approx(
        &point(&d, "2026-05-10")["energyKwh"],
        23.7,
        "10th with the late sample",
    );
    same_as_hours(&site, &d, "2026-05-10").await;
    let r = pr("2026-05-10").await;
    approx(&r["total"]["energyKwh"], 23.7, "PR energy with the late sample");
    // (2.37 / 1.15 = 2.06087, rounded to 4 places.)
    approx(&r["total"]["pr"], 2.0609, "PR with the late sample");
    let s = m
        .get_data(&format!(
            "/api/stationMeterReport/energyConservation?stationIds={}&type=month&date=2026-05",
            site.station
        ))
        .await;
    assert!(s["points"].as_array().is_some_and(|p| !p.is_empty()), "{s}");

    // The grid meter is deleted: its counters no longer count, as on hour rows.
    let (meter, _) = site.devices[2];
    m.delete(&format!("/api/meter/{meter}")).await.ok();
    let d = month(&site).await;
    assert!(point(&d, "2026-05-11")["exportKwh"].is_null(), "{d}");
    same_as_hours(&site, &d, "2026-05-11").await;
    approx(
        &point(&d, "2026-05-11")["energyKwh"],
        24.0,
        "inverters still count",
    );
}
