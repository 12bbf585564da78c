//! Counted energy from counters that glitch, are swapped and jump (issue 26), over a real server
//! and database, raw samples through the real rollup code and the rollup worker's passes:
//! two 100 kW inverters of one station produce the same 1 kWh a minute; one reads well, the other
//! has a read of 0, a read of half its counter, a torn read, a swap to a device whose counter
//! stands at 12 345 kWh and a step of +2 000 kWh. The generation report must count them alike but
//! for the production inside the swap's and the jump's minute, list each step for the station's
//! administrators, and follow their corrections (accept a step, exclude an interval, withdraw).
//! Runs on SQLite, or on PostgreSQL with `TEST_POSTGRES_URL`.

use crate::support;

use chrono::NaiveDate;
use serde_json::{Value as Json, json};
use support::{TestApp, approx, int, live_sample, local_midnight};

const T1: &str = "100001";
const T2: &str = "100002";
const HOUR: i64 = 3_600_000;
const MIN: i64 = 60_000;
const DAY: &str = "2026-05-10";

struct Plant {
    app: TestApp,
    admin: String,
    station: i64,
    good: i64,
    odd: i64,
}

fn at(midnight: i64, h: i64, m: i64) -> i64 {
    midnight + h * HOUR + m * MIN
}

/// Both inverters read every minute from 09:00 to 14:59: `good` from 50 000 kWh on, +1 kWh a
/// minute; `odd` the same, but 09:30 reads 0, 10:15 half its counter, 11:07 a torn read (high
/// word of a 0.01 kWh u32 one off: +655.36 kWh); from 12:00 it is another device whose counter
/// stands at 12 345 kWh; at 13:30 its counter steps +2 000 kWh.
async fn plant() -> Plant {
    let app = TestApp::start().await;
    let menus: Vec<&str> = support::factory::STATION_MENUS
        .iter()
        .copied()
        .chain([
            "stationElectricity",
            "inverterElectricity",
            "energyCorrection",
            "energyCorrection_correct",
        ])
        .collect();
    app.create_tenant_user(T1, "mgr", "secret1", &menus, None).await;
    let admin = app.token_of(T1, "mgr", "secret1").await;
    let m = app.as_user(&admin);
    let station = int(&m
        .station_with(json!({"name": "Counters", "componentCapacity": 240, "componentCount": 480}))
        .await);
    let s = station.to_string();
    let good = int(&m.inverter(&s, "INV-GOOD", 1, json!({"ratedPower": 100})).await);
    let odd = int(&m.inverter(&s, "INV-ODD", 1, json!({"ratedPower": 100})).await);
    let midnight = local_midnight(NaiveDate::parse_from_str(DAY, "%Y-%m-%d").expect("date"));
    let mut g = Vec::new();
    let mut o = Vec::new();
    let mut swapped = 12_345_000.0;
    for k in 0..360 {
        let ts = at(midnight, 9, k);
        let e = 50_000_000.0 + 1_000.0 * k as f64;
        g.push((ts, json!({"energy_total": e, "ac_power": 60_000.0})));
        let v = match k {
            30 => 0.0,
            75 => e / 2.0,
            127 => e + 655_360.0,
            _ if k < 180 => e,
            _ => {
                let v = swapped;
                swapped += 1_000.0;
                if k >= 270 { v + 2_000_000.0 } else { v }
            }
        };
        o.push((ts, json!({"energy_total": v, "ac_power": 60_000.0})));
    }
    for (device, samples) in [(good, &g), (odd, &o)] {
        app.put_live(live_sample(
            T1,
            station,
            device,
            "inverter",
            at(midnight, 15, 0),
            &[("ac_power", 1.0)],
            true,
        ))
        .await;
        app.put_raw_and_roll_up(T1, station, device, samples).await;
    }
    Plant {
        app,
        admin,
        station,
        good,
        odd,
    }
}

/// The inverter's energy per hour label of the day.
async fn hours_of(p: &Plant, inverter: i64) -> Vec<(String, Option<f64>)> {
    let d = p
        .app
        .as_user(&p.admin)
        .get_data(&format!(
            "/api/report/inverter/electricity?stationId={}&inverterId={inverter}&type=day&date={DAY}",
            p.station
        ))
        .await;
    d["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|pt| {
            (
                pt["label"].as_str().unwrap_or("").to_owned(),
                pt["energyKwh"].as_f64(),
            )
        })
        .collect()
}

fn hour(hours: &[(String, Option<f64>)], label: &str) -> f64 {
    hours
        .iter()
        .find(|(l, _)| l == label)
        .and_then(|(_, e)| *e)
        .unwrap_or_else(|| panic!("no energy at {label}: {hours:?}"))
}

/// Runs the rollup worker's passes over what corrections marked.
async fn roll(p: &Plant) {
    pv_cloud::telemetry::rollup::run_once(&p.app.state.db, 0, 900_000, 8 * HOUR, 100_000)
        .await
        .expect("rollup pass");
}

async fn steps(p: &Plant) -> Vec<Json> {
    let d = p
        .app
        .as_user(&p.admin)
        .get_data(&format!(
            "/api/energyCorrection/events?stationId={}&size=50",
            p.station
        ))
        .await;
    let mut records = d["records"].as_array().expect("records").clone();
    records.reverse();
    records
}

#[tokio::test]
async fn glitches_a_swap_and_a_jump_change_no_figure_but_their_own_minute() {
    let p = plant().await;
    let good = hours_of(&p, p.good).await;
    let odd = hours_of(&p, p.odd).await;
    // The first reading of the day is the baseline: 59 kWh in the first hour.
    for (h, kwh) in [("09:00", 59.0), ("10:00", 60.0), ("11:00", 60.0), ("14:00", 60.0)] {
        approx(&json!(hour(&good, h)), kwh, &format!("good {h}"));
        // The read of 0, the read of half and the torn read change nothing.
        approx(&json!(hour(&odd, h)), kwh, &format!("odd {h}"));
    }
    // The swap at 12:00 and the jump at 13:30 count 0 at the step: the minute's 1 kWh inside
    // each step is all that is missing.
    approx(&json!(hour(&odd, "12:00")), 59.0, "odd 12:00 (swap)");
    approx(&json!(hour(&odd, "13:00")), 59.0, "odd 13:00 (jump)");
    let eight = good.iter().find(|(l, _)| l == "08:00").expect("08:00");
    assert_eq!(eight.1, None, "no reading is no figure");

    let s = steps(&p).await;
    let summary: Vec<(String, String, f64, f64)> = s
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap_or("").to_owned(),
                e["time"].as_str().unwrap_or("").to_owned(),
                e["oldKwh"].as_f64().unwrap_or(f64::NAN),
                e["newKwh"].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect();
    let t = |h: i64, m: i64| format!("{DAY} {h:02}:{m:02}:00");
    assert_eq!(
        summary,
        vec![
            ("glitch".into(), t(9, 30), 50_029.0, 0.0),
            ("glitch".into(), t(10, 15), 50_074.0, 25_037.5),
            ("glitch".into(), t(11, 7), 50_126.0, 50_127.0 + 655.36),
            ("rebase".into(), t(12, 0), 50_179.0, 12_345.0),
            ("rejected".into(), t(13, 30), 12_434.0, 14_435.0),
        ]
    );
    assert!(
        s.iter()
            .all(|e| e["deviceName"] == "INV-ODD" && e["countedKwh"] == 0.0)
    );
    assert_eq!(s[3]["deviceSn"], "INV-ODD");
    // Confirmed after three readings and five minutes.
    assert_eq!(s[3]["decidedTime"], t(12, 5));

    // Counted in the device's status.
    let q = p
        .app
        .as_user(&p.admin)
        .get_data(&format!("/api/deviceQuality/list?stationId={}", p.station))
        .await;
    let of = |id: i64| {
        q.as_array()
            .expect("devices")
            .iter()
            .find(|d| d["id"].as_str() == Some(id.to_string().as_str()))
            .map(|d| d["counterSteps"].clone())
            .expect("device")
    };
    assert_eq!(
        of(p.odd),
        json!([{"kind": "glitch", "count": 3}, {"kind": "rebase", "count": 1}, {"kind": "rejected", "count": 1}])
    );
    assert_eq!(of(p.good), json!([]));
}

#[tokio::test]
async fn corrections_accept_a_step_exclude_an_interval_and_can_be_withdrawn() {
    let p = plant().await;
    let m = p.app.as_user(&p.admin);
    let jump = steps(&p)
        .await
        .into_iter()
        .find(|e| e["kind"] == "rejected")
        .expect("jump");

    // A glitch cannot be counted; a reason is required.
    let glitch = steps(&p)
        .await
        .into_iter()
        .find(|e| e["kind"] == "glitch")
        .expect("glitch");
    let refused = m
        .post_json(
            "/api/energyCorrection/submit",
            json!({"stationId": p.station.to_string(), "deviceId": p.odd.to_string(), "kind": "accept",
                   "metric": "energy_total", "eventTime": glitch["time"], "reason": "real"}),
        )
        .await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    let no_reason = m
        .post_json(
            "/api/energyCorrection/submit",
            json!({"stationId": p.station.to_string(), "deviceId": p.odd.to_string(), "kind": "accept",
                   "metric": "energy_total", "eventTime": jump["time"], "reason": " "}),
        )
        .await;
    assert_eq!(no_reason.status, 400);
    assert_eq!(no_reason.body["msg"], "请填写修正原因");

    // Accepting the jump counts its 2 001 kWh in the hour it was confirmed.
    let accepted = m
        .post_data(
            "/api/energyCorrection/submit",
            json!({"stationId": p.station.to_string(), "deviceId": p.odd.to_string(), "kind": "accept",
                   "metric": "energy_total", "eventTime": jump["time"], "reason": "meter replaced, counter confirmed by the vendor"}),
        )
        .await;
    roll(&p).await;
    let odd = hours_of(&p, p.odd).await;
    approx(&json!(hour(&odd, "13:00")), 59.0 + 2_001.0, "accepted jump");
    approx(&json!(hour(&odd, "14:00")), 60.0, "next hour unchanged");
    let s = steps(&p).await;
    let jump = s.iter().find(|e| e["kind"] == "rejected").expect("jump");
    assert_eq!(jump["decision"]["kind"], "accept");
    approx(&jump["countedKwh"], 2_001.0, "the step's own count");

    // Excluding 14:00-14:30 of the good inverter books nothing for its 30 readings there.
    let excluded = m
        .post_data(
            "/api/energyCorrection/submit",
            json!({"stationId": p.station.to_string(), "deviceId": p.good.to_string(), "kind": "exclude",
                   "fromTime": format!("{DAY} 14:00:00"), "toTime": format!("{DAY} 14:30:00"),
                   "reason": "string test by the installer"}),
        )
        .await;
    roll(&p).await;
    approx(
        &json!(hour(&hours_of(&p, p.good).await, "14:00")),
        30.0,
        "excluded half hour",
    );
    // The station's report is the sum of its inverters, corrections included.
    let st = m
        .get_data(&format!(
            "/api/report/station/electricity?stationId={}&type=day&date={DAY}",
            p.station
        ))
        .await;
    let station_14 = st["points"]
        .as_array()
        .expect("points")
        .iter()
        .find(|x| x["label"] == "14:00")
        .expect("14");
    approx(&station_14["energyKwh"], 90.0, "station 14:00");
    let list = m
        .get_data(&format!("/api/energyCorrection/list?stationId={}", p.station))
        .await;
    assert_eq!(list["total"], 2);

    // Withdrawn, both are kept but no longer count.
    for (id, why) in [
        (&accepted, "entered on the wrong device"),
        (&excluded, "test was the day after"),
    ] {
        m.post_data("/api/energyCorrection/withdraw", json!({"id": id, "reason": why}))
            .await;
    }
    let again = m
        .post_json(
            "/api/energyCorrection/withdraw",
            json!({"id": accepted, "reason": "twice"}),
        )
        .await;
    assert_eq!(again.status, 400, "withdrawn twice: {}", again.body);
    roll(&p).await;
    approx(
        &json!(hour(&hours_of(&p, p.odd).await, "13:00")),
        59.0,
        "withdrawn accept",
    );
    approx(
        &json!(hour(&hours_of(&p, p.good).await, "14:00")),
        60.0,
        "withdrawn exclusion",
    );
    let all = m
        .get_data(&format!(
            "/api/energyCorrection/list?stationId={}&withWithdrawn=true",
            p.station
        ))
        .await;
    assert_eq!(all["total"], 2);
    assert!(
        all["records"]
            .as_array()
            .expect("records")
            .iter()
            .all(|c| c["withdrawn"] == true)
    );
    assert_eq!(
        m.get_data(&format!("/api/energyCorrection/list?stationId={}", p.station))
            .await["total"],
        0
    );
}

#[tokio::test]
async fn steps_and_corrections_are_for_the_stations_administrators_only() {
    let p = plant().await;
    // A user of the same tenant without the page, and one with the page but not the button.
    p.app
        .create_tenant_user(T1, "viewer", "secret1", support::factory::STATION_MENUS, None)
        .await;
    let viewer = p.app.token_of(T1, "viewer", "secret1").await;
    let v = p.app.as_user(&viewer);
    let r = v
        .get(&format!("/api/energyCorrection/events?stationId={}", p.station))
        .await;
    assert_eq!(r.status, 403, "{}", r.body);
    p.app
        .create_tenant_user(T1, "reader", "secret1", &["energyCorrection"], None)
        .await;
    let reader = p.app.token_of(T1, "reader", "secret1").await;
    let rd = p.app.as_user(&reader);
    assert_eq!(
        rd.get_data(&format!("/api/energyCorrection/events?stationId={}", p.station))
            .await["total"],
        5
    );
    let r = rd
        .post_json(
            "/api/energyCorrection/submit",
            json!({"stationId": p.station.to_string(), "kind": "exclude",
                   "fromTime": format!("{DAY} 09:00:00"), "toTime": format!("{DAY} 10:00:00"), "reason": "x"}),
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.body);
    // Another tenant's administrator sees none of it and cannot correct it.
    p.app
        .create_tenant_user(
            T2,
            "other",
            "secret1",
            &["energyCorrection", "energyCorrection_correct"],
            None,
        )
        .await;
    let other = p.app.token_of(T2, "other", "secret1").await;
    let o = p.app.as_user(&other);
    assert_eq!(o.get_data("/api/energyCorrection/events").await["total"], 0);
    let r = o
        .post_json(
            "/api/energyCorrection/submit",
            json!({"stationId": p.station.to_string(), "kind": "exclude",
                   "fromTime": format!("{DAY} 09:00:00"), "toTime": format!("{DAY} 10:00:00"), "reason": "x"}),
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.body);
    approx(
        &json!(hour(&hours_of(&p, p.good).await, "09:00")),
        59.0,
        "nothing excluded",
    );
}
