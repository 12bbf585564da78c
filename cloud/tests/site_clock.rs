//! The one clock rule (issue 18) over a real server and database: a station's data is cut into
//! days and labelled in the station's own clock (`utcOffsetMinutes`), and every answer that shows
//! such times states that offset: the inverter curves, the dispersion's day and the generation
//! report with its export. The station here runs at UTC-12:00, 20 hours behind the hub's +08:00,
//! so its days and the hub's disagree most of the time; its inverter's `energy_today` counter
//! restarts at the station's midnight, as the demo's simulated inverters' do.

use crate::support;

use calamine::{DataType, Reader, Xlsx};
use chrono::{Datelike, Duration, NaiveDate};
use serde_json::{Value as Json, json};
use support::{STATION_MENUS, TestApp, int};

const T1: &str = "100001";
/// The station's clock: UTC-12:00.
const OFFSET_MINUTES: i64 = -720;
const OFFSET_MS: i64 = OFFSET_MINUTES * 60_000;
const DAY: i64 = 86_400_000;
const FIVE_MIN: i64 = 300_000;

/// The station's date at epoch `ms`, computed here independently of the code under test.
fn site_date(ms: i64) -> NaiveDate {
    chrono::DateTime::from_timestamp_millis(ms + OFFSET_MS)
        .expect("time")
        .date_naive()
}

fn site_today() -> NaiveDate {
    site_date(support::telemetry::now_ms())
}

/// Epoch ms of the station's midnight starting `d`.
fn site_midnight(d: NaiveDate) -> i64 {
    d.and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc()
        .timestamp_millis()
        - OFFSET_MS
}

struct Site {
    app: TestApp,
    manager: String,
    station: i64,
    inverter: i64,
}

async fn site() -> Site {
    let app = TestApp::start().await;
    let menus: Vec<&str> = STATION_MENUS
        .iter()
        .copied()
        .chain(["discreteRate", "stationElectricity_export"])
        .collect();
    app.create_tenant_user(T1, "mgr", "secret1", &menus, None).await;
    let manager = app.token_of(T1, "mgr", "secret1").await;
    let m = app.as_user(&manager);
    let station = int(&m
        .station_with(
            json!({"name": "Dateline", "componentCapacity": 20, "utcOffsetMinutes": OFFSET_MINUTES}),
        )
        .await);
    let inverter = int(&m
        .inverter(&station.to_string(), "INV-DL", 6, json!({"ratedPower": 20}))
        .await);
    Site {
        app,
        manager,
        station,
        inverter,
    }
}

#[tokio::test]
async fn a_day_curve_is_the_stations_own_day_from_its_midnight_without_a_jump() {
    let s = site().await;
    let day = site_today() - Duration::days(1);
    let start = site_midnight(day);
    // A sample every 5 minutes from 6 h before the station's day to 6 h after it: the day's
    // energy so far, 10 Wh a minute since the station's last midnight (the counter restarts there).
    let samples: Vec<(i64, Json)> = (0..(DAY + 12 * 3_600_000) / FIVE_MIN)
        .map(|k| {
            let ts = start - 6 * 3_600_000 + k * FIVE_MIN;
            let since_midnight = (ts + OFFSET_MS).rem_euclid(DAY);
            (
                ts,
                json!({"energy_today": since_midnight as f64 / 60_000.0 * 10.0}),
            )
        })
        .collect();
    s.app.put_raw(T1, s.station, s.inverter, &samples).await;

    let d = s
        .app
        .as_user(&s.manager)
        .get_data(&format!(
            "/api/inverterReal/listWaveTag?inverterIds={}&names=energy_today&date={day}",
            s.inverter
        ))
        .await;
    assert_eq!(d["utcOffset"], "-12:00", "the answer states the station's clock");
    assert_eq!(d["utcOffsetMinutes"], OFFSET_MINUTES);
    assert_eq!(d["date"], day.to_string());
    assert_eq!(d["start"], format!("{day} 00:00:00"));
    assert_eq!(d["end"], format!("{} 00:00:00", day + Duration::days(1)));
    let points = d["series"][0]["points"].as_array().expect("points");
    assert_eq!(
        points.len(),
        288,
        "the station's whole day, one point per 5 minutes"
    );
    assert_eq!(
        points[0][0],
        format!("{day} 00:00:00"),
        "from the station's midnight"
    );
    assert_eq!(points[0][1], 0.0, "the counter starts the day at zero");
    assert_eq!(points[287][0], format!("{day} 23:55:00"));
    // No jump: the day's counter only grows within the station's day.
    let values: Vec<f64> = points.iter().filter_map(|p| p[1].as_f64()).collect();
    assert_eq!(values.len(), 288);
    for w in values.windows(2) {
        assert!(
            w[1] >= w[0],
            "a jump from {} to {} kWh inside one day",
            w[0],
            w[1]
        );
    }
    assert!(
        (values[287] - 14.35).abs() < 1e-9,
        "23:55 → 1435 min × 10 Wh: {}",
        values[287]
    );
}

#[tokio::test]
async fn every_page_defaults_to_the_stations_today_and_states_its_clock() {
    let s = site().await;
    let m = s.app.as_user(&s.manager);
    let today = site_today().to_string();

    let curve = m
        .get_data(&format!(
            "/api/inverterReal/listWaveTag?inverterIds={}&names=ac_power",
            s.inverter
        ))
        .await;
    let dispersion = m
        .get_data(&format!("/api/discreteRate/list?stationId={}", s.station))
        .await;
    let report = m
        .get_data(&format!(
            "/api/report/station/electricity?stationId={}&type=day",
            s.station
        ))
        .await;
    // Read again if the station's day turned between the calls.
    if site_today().to_string() != today {
        return;
    }
    assert_eq!(curve["date"], today, "the curve page's default day");
    assert_eq!(dispersion["date"], today, "the dispersion's default day");
    assert_eq!(report["title"], today, "the report's default day");
    for (what, answer) in [
        ("curve", &curve),
        ("dispersion", &dispersion),
        ("report", &report),
    ] {
        assert_eq!(answer["utcOffset"], "-12:00", "{what} states the station's clock");
    }

    // The export states and uses the same clock as the report on screen.
    let (status, _, bytes) = m
        .raw(
            reqwest::Method::GET,
            &format!(
                "/api/report/station/electricity/export?stationId={}&type=day&date={today}",
                s.station
            ),
        )
        .await;
    assert_eq!(status, 200);
    let mut book: Xlsx<_> = Xlsx::new(std::io::Cursor::new(bytes)).expect("a workbook");
    let sheet = book.worksheet_range("电站发电量").expect("sheet");
    let header: Vec<String> = (0..sheet.width())
        .filter_map(|c| sheet.get_value((0, c as u32)).map(|v| v.to_string()))
        .collect();
    let clock = header.iter().position(|h| h == "时钟").expect("a clock column") as u32;
    let labels: Vec<&str> = report["points"]
        .as_array()
        .expect("points")
        .iter()
        .filter_map(|p| p["label"].as_str())
        .collect();
    assert_eq!(labels.len(), 24);
    for (i, label) in labels.iter().enumerate() {
        let row = i as u32 + 1;
        assert_eq!(
            sheet.get_value((row, 1)).map(|v| v.to_string()).as_deref(),
            Some(*label)
        );
        assert_eq!(
            sheet
                .get_value((row, clock))
                .and_then(|v| v.get_string().map(str::to_owned)),
            Some("UTC-12:00".to_owned())
        );
    }
}

/// The rows the rollup worker keeps for the station's inverter, written here: an hour row of
/// 100 Wh for every hour from 30 h before the earlier of the two midnights (the station's and the
/// hub's) up to now, each carrying the counter's last reading, and the hub-clock day rows summing
/// them (the worker cuts days at the hub's midnight). Returns the hour buckets and the counter's
/// last reading.
async fn hour_rows(s: &Site, station_start: i64, hub_start: i64, now: i64) -> (Vec<i64>, f64) {
    const HOUR: i64 = 3_600_000;
    let first = (station_start.min(hub_start) - 30 * HOUR).div_euclid(HOUR) * HOUR;
    let mut total = 1_000_000.0;
    let mut buckets = Vec::new();
    let mut days: std::collections::BTreeMap<i64, f64> = Default::default();
    let mut b = first;
    while b <= now {
        total += 100.0;
        s.app
            .put_rollup(
                T1,
                s.station,
                s.inverter,
                "inverter",
                "1h",
                b,
                Some(100.0),
                json!({"energy_total": [total, total, total, total]}),
            )
            .await;
        let hub_day = b - (b - hub_start).rem_euclid(DAY);
        *days.entry(hub_day).or_default() += 100.0;
        buckets.push(b);
        b += HOUR;
    }
    for (day, wh) in days {
        s.app
            .put_rollup(
                T1,
                s.station,
                s.inverter,
                "inverter",
                "1d",
                day,
                Some(wh),
                json!({"energy_total": [total, total, total, total]}),
            )
            .await;
    }
    (buckets, total)
}

#[tokio::test]
async fn todays_energy_of_live_tables_and_home_starts_at_the_stations_midnight() {
    let s = site().await;
    let now = support::telemetry::now_ms();
    let today = site_today();
    let station_start = site_midnight(today);
    let hub_start = support::local_midnight(support::local_today());
    assert_ne!(station_start, hub_start, "the two clocks cut days apart");
    let (buckets, total) = hour_rows(&s, station_start, hub_start, now).await;
    // The live counter moved 50 Wh past the last hour row's reading: not counted energy yet (the
    // pages show what the rollups counted, as the reports do).
    s.app
        .put_live(support::live_sample(
            T1,
            s.station,
            s.inverter,
            "inverter",
            now,
            &[("energy_total", total + 50.0), ("ac_power", 1000.0)],
            true,
        ))
        .await;
    let in_window = |from: i64, to: i64| -> f64 {
        buckets.iter().filter(|b| **b >= from && **b < to).count() as f64 * 0.1
    };
    let today_kwh = in_window(station_start, i64::MAX);
    let hub_today_kwh = in_window(hub_start, i64::MAX);
    assert!(
        (today_kwh - hub_today_kwh).abs() > 0.3,
        "the test tells the clocks apart"
    );

    let m = s.app.as_user(&s.manager);
    let list = m.post_data("/api/inverterReal/list", json!({})).await;
    let home = m.get_data("/api/homePage/data").await;
    let area = m.get_data("/api/station/listByArea").await;
    if site_today() != today {
        return; // the station's day turned between the calls: nothing to compare
    }
    support::approx(
        &list["records"][0]["todayEnergyKwh"],
        today_kwh,
        "inverter list: today since the station's midnight",
    );
    support::approx(&home["todayEnergyKwh"], today_kwh, "home KPI: today");
    support::approx(
        &area[0]["cities"][0]["stations"][0]["todayEnergyKwh"],
        today_kwh,
        "station list by area: today",
    );
    // This month and year: the station's past days (its own midnights) plus today, no hour
    // counted twice.
    let month_start = site_midnight(today.with_day(1).expect("day 1"));
    let year_start = site_midnight(today.with_ordinal(1).expect("1 January"));
    support::approx(
        &home["monthEnergyKwh"],
        in_window(month_start, station_start) + today_kwh,
        "home KPI: month",
    );
    support::approx(
        &home["yearEnergyKwh"],
        in_window(year_start, station_start) + today_kwh,
        "home KPI: year",
    );
}

/// Samples every 5 minutes over `day` ± 6 h of a clock `offset_ms` ahead of UTC: the day's energy
/// so far, 10 Wh a minute since that clock's last midnight (the counter restarts there).
fn day_counter(day: NaiveDate, offset_ms: i64) -> Vec<(i64, Json)> {
    let start = day
        .and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc()
        .timestamp_millis()
        - offset_ms;
    (0..(DAY + 12 * 3_600_000) / FIVE_MIN)
        .map(|k| {
            let ts = start - 6 * 3_600_000 + k * FIVE_MIN;
            let since_midnight = (ts + offset_ms).rem_euclid(DAY);
            (
                ts,
                json!({"energy_today": since_midnight as f64 / 60_000.0 * 10.0}),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_curve_over_stations_on_two_clocks_gives_each_series_its_own_day_and_clock() {
    let s = site().await;
    let m = s.app.as_user(&s.manager);
    // A second station on the hub's clock (+08:00).
    let hub_station = int(&m
        .station_with(json!({"name": "Hub", "componentCapacity": 20}))
        .await);
    let hub_inverter = int(&m
        .inverter(&hub_station.to_string(), "INV-HUB", 6, json!({"ratedPower": 20}))
        .await);
    let day = site_today() - Duration::days(2);
    s.app
        .put_raw(T1, s.station, s.inverter, &day_counter(day, OFFSET_MS))
        .await;
    s.app
        .put_raw(T1, hub_station, hub_inverter, &day_counter(day, 8 * 3_600_000))
        .await;

    let d = m
        .get_data(&format!(
            "/api/inverterReal/listWaveTag?inverterIds={},{hub_inverter}&names=energy_today&date={day}",
            s.inverter
        ))
        .await;
    assert_eq!(d["date"], day.to_string());
    let series = d["series"].as_array().expect("series");
    assert_eq!(series.len(), 2);
    for (sr, offset, minutes) in [(&series[0], "-12:00", -720), (&series[1], "+08:00", 480)] {
        assert_eq!(
            sr["utcOffset"], offset,
            "each series states its own clock: {}",
            sr["inverterName"]
        );
        assert_eq!(sr["utcOffsetMinutes"], minutes);
        let points = sr["points"].as_array().expect("points");
        assert_eq!(points.len(), 288, "{offset}: the station's whole day");
        assert_eq!(
            points[0][0],
            format!("{day} 00:00:00"),
            "{offset}: from its own midnight"
        );
        assert_eq!(points[0][1], 0.0, "{offset}: its counter starts the day at zero");
        assert_eq!(points[287][0], format!("{day} 23:55:00"));
        let values: Vec<f64> = points.iter().filter_map(|p| p[1].as_f64()).collect();
        for w in values.windows(2) {
            assert!(
                w[1] >= w[0],
                "{offset}: a jump from {} to {} kWh inside one day",
                w[0],
                w[1]
            );
        }
    }
}
