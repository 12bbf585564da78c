//! Every report workbook follows the one clock rule: its rows are cut and labelled in the
//! station's own clock and each row states that clock in a 时钟/Clock column. The station runs
//! at UTC-12:00, 20 hours behind the hub's +08:00: its generation in the last four hours of its
//! day D falls on D+1 in the hub's clock, so a workbook cut in the hub's clock would show
//! nothing on D. Runs on SQLite, or on PostgreSQL with `TEST_POSTGRES_URL`.

use crate::support;

use std::collections::BTreeSet;

use calamine::{Data, DataType, Reader, Xlsx};
use chrono::NaiveDate;
use serde_json::json;
use support::{TestApp, int, live_sample};

const T1: &str = "100001";
const HOUR: i64 = 3_600_000;
const MIN: i64 = 60_000;
/// The station's clock: UTC-12:00.
const OFFSET_MINUTES: i64 = -720;
/// The station's day D.
const D: &str = "2026-11-10";
/// Station hours of D that carry 1 kWh each.
const HOURS: [i64; 4] = [20, 21, 22, 23];

/// Epoch ms of the station's `hour` on D, computed here independently of the code under test.
fn station_hour(hour: i64) -> i64 {
    let d = NaiveDate::parse_from_str(D, "%Y-%m-%d").expect("date");
    d.and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc()
        .timestamp_millis()
        - OFFSET_MINUTES * 60_000
        + hour * HOUR
}

struct Plant {
    app: TestApp,
    manager: String,
    station: i64,
    /// A second station in the hub's clock, without data.
    hub_station: i64,
}

async fn plant() -> Plant {
    let app = TestApp::start().await;
    let menus: Vec<&str> = support::STATION_MENUS
        .iter()
        .copied()
        .chain([
            "stationElectricity",
            "stationElectricity_export",
            "inverterElectricity",
            "inverterElectricity_export",
            "irradiance",
            "irradiance_export",
            "meterReport",
            "meterReport_export",
            "electricityBill",
            "electricityBill_export",
            "energyConservation",
        ])
        .collect();
    app.create_tenant_user(T1, "mgr", "secret1", &menus, None).await;
    let manager = app.token_of(T1, "mgr", "secret1").await;
    let m = app.as_user(&manager);
    let station = int(&m
        .station_with(json!({"name": "Dateline", "componentCapacity": 20,
            "utcOffsetMinutes": OFFSET_MINUTES, "connectedType": "2", "feedInTariff": 0.39}))
        .await);
    let s = station.to_string();
    let inverter = int(&m.inverter(&s, "INV-DL", 2, json!({"ratedPower": 20})).await);
    let meter = int(&m
        .device(
            support::Device::Meter,
            json!({"stationId": s, "name": "Grid meter", "meterRole": "1", "sn": "M-DL", "ctRatio": 1, "ptRatio": 1}),
        )
        .await);
    let weather = int(&m
        .device(
            support::Device::Weather,
            json!({"stationId": s, "name": "W", "sn": "W-DL"}),
        )
        .await);
    let hub_station = int(&m
        .station_with(json!({"name": "Home", "componentCapacity": 10}))
        .await);
    // Samples every 5 minutes (minute 4, 9, .. 59) of the station's hours 19-23 of D, through
    // the real rollup: the inverter's counter rises 1 000 Wh at the first sample of hours 20-23
    // (1 kWh in each), the weather station sees 500 W/m² throughout (trapezoids ending in the
    // hour: 12 × 500 × 5/60 = 500 Wh/m² in hours 20-23, 11 in hour 19), the meter's import
    // counter rises 10 Wh a sample.
    let (mut inv, mut met, mut wx) = (Vec::new(), Vec::new(), Vec::new());
    let (mut total, mut import) = (1_000_000.0, 50_000.0);
    for h in 19..24 {
        for k in 0..12 {
            let ts = station_hour(h) + (5 * k + 4) * MIN;
            if HOURS.contains(&h) && k == 0 {
                total += 1_000.0;
            }
            import += 10.0;
            inv.push((ts, json!({"energy_total": total, "ac_power": 1.0})));
            met.push((ts, json!({"energy_import": import, "energy_export": 0.0})));
            wx.push((ts, json!({"irradiance_poa": 500.0, "ambient_temperature": 20.0})));
        }
    }
    let last = station_hour(24);
    for (device, kind, samples) in [
        (inverter, "inverter", &inv),
        (meter, "meter", &met),
        (weather, "weather", &wx),
    ] {
        app.put_live(live_sample(
            T1,
            station,
            device,
            kind,
            last,
            &[("ac_power", 1.0)],
            true,
        ))
        .await;
        app.put_raw(T1, station, device, samples).await;
        let buckets: BTreeSet<i64> = samples
            .iter()
            .map(|(ts, _)| ts - ts.rem_euclid(5 * MIN))
            .collect();
        pv_cloud::telemetry::rollup::recompute(&app.state.db, device, &buckets, 900_000, 8 * HOUR)
            .await
            .expect("rollup");
    }
    Plant {
        app,
        manager,
        station,
        hub_station,
    }
}

struct Sheet {
    rows: Vec<Vec<Data>>,
}

impl Sheet {
    fn col(&self, header: &str) -> usize {
        self.rows[0]
            .iter()
            .position(|h| h.get_string() == Some(header))
            .unwrap_or_else(|| panic!("no column {header:?} in {:?}", self.rows[0]))
    }

    fn text(&self, row: usize, col: usize) -> String {
        self.rows[row].get(col).map(|c| c.to_string()).unwrap_or_default()
    }

    /// The data rows (after the header).
    fn body(&self) -> std::ops::Range<usize> {
        1..self.rows.len()
    }

    /// The row whose column `col` reads `text`.
    fn row_of(&self, col: usize, text: &str) -> usize {
        self.body()
            .find(|&r| self.text(r, col) == text)
            .unwrap_or_else(|| panic!("no row {text:?} in column {col}"))
    }

    fn number(&self, row: usize, col: usize) -> Option<f64> {
        self.rows[row].get(col).and_then(|c| c.as_f64())
    }

    /// Every data row states `clock`.
    #[track_caller]
    fn states_clock(&self, header: &str, clock: &str) {
        let c = self.col(header);
        assert!(self.rows.len() > 1, "rows");
        for r in self.body() {
            assert_eq!(self.text(r, c), clock, "row {r}: {:?}", self.rows[r]);
        }
    }

    /// Hour rows of the station's day D: 00:00 .. 23:00 then the total; `column` carries `per`
    /// in the station's hours 20-23, `first` in hour 19 and nothing in the others.
    #[track_caller]
    fn station_day(&self, time: &str, column: &str, total: &str, first: f64, per: f64) {
        let (t, e) = (self.col(time), self.col(column));
        let labels: Vec<String> = self.body().map(|r| self.text(r, t)).collect();
        let mut expected: Vec<String> = (0..24).map(|h| format!("{h:02}:00")).collect();
        expected.push(total.to_owned());
        assert_eq!(labels, expected);
        for h in 0..24 {
            let v = self.number(h + 1, e).unwrap_or(0.0);
            let want = match h as i64 {
                19 => first,
                h if HOURS.contains(&h) => per,
                _ => 0.0,
            };
            assert!((v - want).abs() < 1e-3, "{column} {h:02}:00 is {v}, want {want}");
        }
        let sum = self.number(25, e).unwrap_or(0.0);
        let want = first + per * HOURS.len() as f64;
        assert!((sum - want).abs() < 1e-3, "{column} total {sum}, want {want}");
    }
}

impl Plant {
    async fn workbook(&self, path: &str, en: bool) -> Xlsx<std::io::Cursor<Vec<u8>>> {
        let user = self.app.as_user(&self.manager);
        let user = if en { user.en() } else { user };
        let (status, _, bytes) = user.raw(reqwest::Method::GET, path).await;
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&bytes));
        Xlsx::new(std::io::Cursor::new(bytes)).expect("a workbook")
    }

    async fn sheet(&self, path: &str, name: &str) -> Sheet {
        self.sheet_in(path, name, false).await
    }

    async fn sheet_in(&self, path: &str, name: &str, en: bool) -> Sheet {
        let mut book = self.workbook(path, en).await;
        let range = book.worksheet_range(name).expect("sheet");
        Sheet {
            rows: range.rows().map(|r| r.to_vec()).collect(),
        }
    }
}

#[tokio::test]
async fn every_report_workbook_is_cut_in_the_stations_clock_and_states_it_on_each_row() {
    let p = plant().await;
    let day = format!("stationId={}&type=day&date={D}", p.station);

    let g = p
        .sheet(
            &format!("/api/report/station/electricity/export?{day}"),
            "电站发电量",
        )
        .await;
    g.station_day("时间", "发电量 (kWh)", "合计", 0.0, 1.0);
    g.states_clock("时钟", "UTC-12:00");

    let pr = p
        .sheet(
            &format!("/api/report/station/electricity/rate/export?{day}"),
            "性能比",
        )
        .await;
    pr.station_day("时间", "发电量 (kWh)", "合计", 0.0, 1.0);
    pr.states_clock("时钟", "UTC-12:00");

    let inv = p
        .sheet(
            &format!("/api/report/inverter/multiple/electricity/export?{day}"),
            "逆变器发电量",
        )
        .await;
    inv.station_day("时间", "发电量 (kWh)", "合计", 0.0, 1.0);
    inv.states_clock("时钟", "UTC-12:00");

    let rate = p
        .sheet(
            &format!("/api/stationMeterReport/rate/export?{day}"),
            "自用率与上网率",
        )
        .await;
    rate.station_day("时间", "发电量 (kWh)", "合计", 0.0, 1.0);
    rate.states_clock("时钟", "UTC-12:00");

    let bill = p
        .sheet(
            &format!("/api/stationMeterReport/electricityBillSettlement/export?{day}"),
            "电费结算",
        )
        .await;
    bill.station_day("时间", "发电量 (kWh)", "合计", 0.0, 1.0);
    bill.states_clock("时钟", "UTC-12:00");

    // Irradiation: 500 Wh/m² in each of the station's hours 20-23.
    let irr = p
        .sheet(&format!("/api/report/irradiance/list/export?{day}"), "辐照量")
        .await;
    irr.station_day(
        "时间",
        "斜面辐照量 (kWh/m²)",
        "合计",
        11.0 * 500.0 / 12.0 / 1000.0,
        0.5,
    );
    irr.states_clock("时钟", "UTC-12:00");

    // Meters: the day's hours in the station's clock, each row stating it.
    for path in [
        format!(
            "/api/meterReport/reportDaily/export?stationId={}&date={D}",
            p.station
        ),
        format!("/api/stationMeterReport/historyMeter/export?{day}"),
    ] {
        let meter = p.sheet(&path, "电表报表").await;
        let t = meter.col("时间");
        let labels: Vec<String> = meter.body().map(|r| meter.text(r, t)).collect();
        let mut expected: Vec<String> = (0..24).map(|h| format!("{h:02}:00")).collect();
        expected.push("合计".into());
        assert_eq!(labels, expected, "{path}");
        meter.states_clock("时钟", "UTC-12:00");
    }

    // Savings over the station and one in the hub's clock: each slot adds each station's own
    // hour of the same name, and the rows say which clocks they add.
    let both = p
        .sheet(
            &format!(
                "/api/stationMeterReport/energyConservation/export?stationIds={},{}&type=day&date={D}",
                p.station, p.hub_station
            ),
            "节能减排",
        )
        .await;
    both.station_day("时间", "发电量 (kWh)", "合计", 0.0, 1.0);
    both.states_clock("时钟", "UTC-12:00, UTC+08:00");

    // In English, the same columns by their English names.
    let en = p
        .sheet_in(
            &format!("/api/report/station/electricity/rate/export?{day}"),
            "Performance ratio",
            true,
        )
        .await;
    en.station_day("Time", "Generation (kWh)", "Total", 0.0, 1.0);
    en.states_clock("Clock", "UTC-12:00");
    let row = en.row_of(en.col("Time"), "23:00");
    assert_eq!(en.number(row, en.col("Generation (kWh)")), Some(1.0));
}

#[tokio::test]
async fn the_monthly_workbook_cuts_the_stations_days_and_states_its_clock() {
    let p = plant().await;
    let core = p.app.state.core.clone();
    let stations = pv_cloud::analytics::data::tenant_stations(&core, T1)
        .await
        .expect("stations");
    let station = stations.iter().find(|s| s.id == p.station).expect("the station");
    let bytes = pv_cloud::report::monthly::workbook_of(&core, station, "2026-11")
        .await
        .expect("workbook");
    let mut book: Xlsx<_> = Xlsx::new(std::io::Cursor::new(bytes)).expect("a workbook");
    for name in ["电站发电量", "性能比", "电费结算"] {
        let range = book.worksheet_range(name).expect("sheet");
        let s = Sheet {
            rows: range.rows().map(|r| r.to_vec()).collect(),
        };
        s.states_clock("时钟", "UTC-12:00");
        let (t, e) = (s.col("时间"), s.col("发电量 (kWh)"));
        assert_eq!(
            s.number(s.row_of(t, D), e),
            Some(4.0),
            "{name}: D in the station's clock"
        );
        assert!(
            s.number(s.row_of(t, "2026-11-11"), e).unwrap_or(0.0) == 0.0,
            "{name}: nothing on D+1, the hub's date of those hours"
        );
    }
}
