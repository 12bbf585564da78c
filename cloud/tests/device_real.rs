//! Weather stations and meters live (`/api/deviceReal/...`) over a real server and database:
//! newest values with labels and units, implausible values marked, day curves, and the caller's
//! scope. Runs on SQLite, or on PostgreSQL with `TEST_POSTGRES_URL`.

use crate::support;

use serde_json::json;
use support::{Device, Reply, TestApp, approx, int, live_sample, local_midnight, local_today, now_ms};

const T1: &str = "100001";
const T2: &str = "100002";

#[tokio::test]
async fn weather_and_meter_values_are_shown_with_implausible_ones_marked() {
    let app = TestApp::start().await;
    let manager = app.station_manager(T1, "mgr").await;
    let m = app.as_user(&manager);
    let s = m.station("Sunny").await;
    let station = int(&s);
    let weather = int(&m
        .device(Device::Weather, json!({"stationId": s, "name": "W", "sn": "W-1"}))
        .await);
    let meter = int(&m
        .device(
            Device::Meter,
            json!({"stationId": s, "name": "Grid", "meterRole": "1", "sn": "M-1", "ctRatio": 1, "ptRatio": 1}),
        )
        .await);
    let now = now_ms();
    app.put_live(live_sample(
        T1,
        station,
        weather,
        "weather",
        now,
        &[
            ("irradiance_poa", 2_500.0),
            ("module_temperature", 45.5),
            ("ambient_temperature", 21.0),
        ],
        true,
    ))
    .await;
    app.put_live(live_sample(
        T1,
        station,
        meter,
        "meter",
        now,
        &[
            ("ac_power", -35_000.0),
            ("power_factor", 0.995),
            ("energy_export", 1_234_500.0),
        ],
        true,
    ))
    .await;
    let list = m.get_data(&format!("/api/deviceReal/list?stationId={s}")).await;
    let devices = list.as_array().expect("devices");
    assert_eq!(devices.len(), 2);
    assert_eq!(devices[0]["kind"], "weather");
    let value = |d: &serde_json::Value, name: &str| {
        d["values"]
            .as_array()
            .and_then(|v| v.iter().find(|x| x["name"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("{name} in {d}"))
    };
    let g = value(&devices[0], "irradiance_poa");
    assert_eq!(
        (g["plausible"].as_bool(), g["unit"].as_str()),
        (Some(false), Some("W/m2"))
    );
    assert_eq!(g["label"], "斜面辐照度");
    assert_eq!(value(&devices[0], "module_temperature")["plausible"], true);
    let meter_row = &devices[1];
    assert_eq!(meter_row["meterRole"], "1");
    approx(&value(meter_row, "ac_power")["value"], -35.0, "kW");
    approx(&value(meter_row, "energy_export")["value"], 1_234.5, "kWh");
    assert_eq!(value(meter_row, "power_factor")["plausible"], true);

    // Curves from the 5-minute rollups; the spike is counted as implausible.
    let midnight = local_midnight(local_today());
    for (k, g) in [(120, 300.0), (121, 2_600.0), (122, 320.0)] {
        app.put_rollup(
            T1,
            station,
            weather,
            "weather",
            "5m",
            midnight + k * 300_000,
            None,
            json!({"irradiance_poa": [g, g, g, g]}),
        )
        .await;
    }
    let c = m
        .en()
        .get_data(&format!(
            "/api/deviceReal/curve?stationId={s}&deviceId={weather}&names=irradiance_poa"
        ))
        .await;
    let series = &c["series"][0];
    assert_eq!(series["label"], "Plane-of-array irradiance");
    assert_eq!(series["points"].as_array().map(Vec::len), Some(3));
    assert_eq!(series["implausiblePoints"], 1);

    // Bad input and other tenants.
    let Reply { status, .. } = m
        .get(&format!("/api/deviceReal/list?stationId={s}&kind=camera"))
        .await;
    assert_eq!(status, 400);
    let Reply { status, .. } = m
        .get(&format!(
            "/api/deviceReal/curve?stationId={s}&deviceId={weather}&names=ac_power"
        ))
        .await;
    assert_eq!(status, 400, "a meter metric is not a weather station's");
    let other = app.station_manager(T2, "mgr2").await;
    for path in [
        format!("/api/deviceReal/list?stationId={s}"),
        format!("/api/deviceReal/curve?stationId={s}&deviceId={meter}"),
    ] {
        let Reply { status, .. } = app.as_user(&other).get(&path).await;
        assert_eq!(status, 404, "{path}");
    }
}
