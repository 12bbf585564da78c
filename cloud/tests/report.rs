//! Reports over a real server and database, from raw samples through the real rollup code:
//! a hand-made 20 kWp station on a self-use tariff with two tariff versions, a grid meter whose
//! import counter is reset, and a weather station. Every figure is checked against the
//! arithmetic in the comments. Runs on SQLite, or on PostgreSQL with `TEST_POSTGRES_URL`.

use crate::support;

use chrono::NaiveDate;
use pv_cloud::kernel::sql::Value;
use serde_json::{Value as Json, json};
use support::{Reply, TestApp, approx, int, live_sample, local_midnight};

const T1: &str = "100001";
const T2: &str = "100002";
const HOUR: i64 = 3_600_000;
const MIN: i64 = 60_000;

fn day(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("date")
}

struct Plant {
    app: TestApp,
    manager: String,
    station: i64,
    inverter: i64,
}

/// Samples every 5 minutes at minute 4, 9, ... 59 from 09:04 to 14:59 (+08:00) of 2026-03-31
/// (d1) and 2026-04-01 (d2):
/// - inverter: `energy_total` +1 000 Wh per sample in hours 10-13 → 12 kWh an hour, 48 kWh a
///   day (flat 10-12, peak 12-14);
/// - grid meter: `energy_export` +250 Wh per sample in hours 12-13 → 6 kWh a day; `energy_import`
///   +100 Wh per sample in hour 10, reset to 0 at d2 10:29 → d1 1.2 kWh, d2 1.1 kWh;
/// - weather: `irradiance_poa` 500 W/m² and `module_temperature` 45 °C at every sample → each
///   hour 10-14 has 12 trapezoids of 500 × 5/60 = 500 Wh/m², hour 9 has 11 (458.33).
async fn plant() -> Plant {
    plant_on(["2026-03-31", "2026-04-01"]).await
}

async fn plant_on(days: [&str; 2]) -> Plant {
    let app = TestApp::start().await;
    // A station manager who may also change the tenant's report settings.
    let menus: Vec<&str> = support::factory::STATION_MENUS
        .iter()
        .copied()
        .chain([
            "electricityBill",
            "electricityBill_export",
            "stationElectricity_export",
            "reportFile",
            "reportFile_delete",
        ])
        .collect();
    app.create_tenant_user(T1, "mgr", "secret1", &menus, None).await;
    let manager = app.token_of(T1, "mgr", "secret1").await;
    let m = app.as_user(&manager);
    let station = int(&m
        .station_with(
            json!({"name": "Sunny", "componentCapacity": 20, "componentCount": 40,
            "connectedType": "2", "contributionWay": "4", "feedInTariff": 0.39}),
        )
        .await);
    let s = station.to_string();
    let inverter = int(&m.inverter(&s, "INV-1", 2, json!({"ratedPower": 20})).await);
    let meter = int(&m
        .device(
            support::Device::Meter,
            json!({"stationId": s, "name": "Grid meter", "meterRole": "1", "sn": "M-1", "ctRatio": 1, "ptRatio": 1}),
        )
        .await);
    let weather = int(&m
        .device(
            support::Device::Weather,
            json!({"stationId": s, "name": "W", "sn": "W-1"}),
        )
        .await);
    let segments = |valley: f64, peak: f64| {
        json!([
            {"startTime": "00:00", "endTime": "08:00", "type": "4", "price": valley},
            {"startTime": "08:00", "endTime": "12:00", "type": "3", "price": 0.6},
            {"startTime": "12:00", "endTime": "22:00", "type": "2", "price": peak},
            {"startTime": "22:00", "endTime": "24:00", "type": "3", "price": 0.6},
        ])
    };
    m.put_json(
        "/api/electricPrice",
        json!({"stationId": s, "priceType": "2", "schedules": [
            {"effectiveDate": "2026-01-01", "segments": segments(0.3, 1.0)},
            {"effectiveDate": "2026-04-01", "segments": segments(0.2, 1.2)},
        ]}),
    )
    .await
    .ok();
    m.put_json("/api/report/setting", json!({"emcDiscountPct": 10}))
        .await
        .ok();

    let mut inv = Vec::new();
    let mut met = Vec::new();
    let mut wx = Vec::new();
    let (mut e, mut ex, mut im) = (1_000_000.0, 200_000.0, 50_000.0);
    for d in days {
        let midnight = local_midnight(day(d));
        for h in 9..15 {
            for k in 0..12 {
                let ts = midnight + h * HOUR + (5 * k + 4) * MIN;
                if (10..14).contains(&h) {
                    e += 1_000.0;
                }
                if (12..14).contains(&h) {
                    ex += 250.0;
                }
                if h == 10 {
                    im += 100.0;
                }
                if d == days[1] && h == 10 && k == 5 {
                    im = 0.0;
                }
                inv.push((ts, json!({"energy_total": e, "ac_power": 1.0})));
                met.push((ts, json!({"energy_import": im, "energy_export": ex})));
                wx.push((ts, json!({"irradiance_poa": 500.0, "module_temperature": 45.0})));
            }
        }
    }
    let last = local_midnight(day(days[1])) + 15 * HOUR;
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
        app.put_raw_and_roll_up(T1, station, device, samples).await;
    }
    Plant {
        app,
        manager,
        station,
        inverter,
    }
}

fn point<'a>(d: &'a Json, label: &str) -> &'a Json {
    d["points"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["label"] == label))
        .unwrap_or_else(|| panic!("no point {label} in {d}"))
}

#[tokio::test]
async fn generation_by_day_and_hour_with_yield_irradiation_and_the_meter() {
    let p = plant().await;
    let m = p.app.as_user(&p.manager);
    let d = m
        .get_data(&format!(
            "/api/report/station/electricity?stationId={}&type=month&date=2026-03",
            p.station
        ))
        .await;
    assert_eq!(d["title"], "2026-03");
    assert_eq!(d["points"].as_array().map(Vec::len), Some(31));
    let d31 = point(&d, "2026-03-31");
    approx(&d31["energyKwh"], 48.0, "energy");
    approx(&d31["equivalentHours"], 2.4, "48 kWh / 20 kWp");
    // 71 trapezoids × 500 W/m² × 5/60 h = 2 958.333 Wh/m².
    approx(&d31["irradiationKwhM2"], 2.958, "irradiation");
    approx(&d31["exportKwh"], 6.0, "export");
    approx(&d31["importKwh"], 1.2, "import");
    assert!(
        point(&d, "2026-03-30")["energyKwh"].is_null(),
        "no data is not zero"
    );
    approx(&d["total"]["energyKwh"], 48.0, "month total");

    let h = m
        .get_data(&format!(
            "/api/report/station/electricity?stationId={}&type=day&date=2026-04-01",
            p.station
        ))
        .await;
    approx(&point(&h, "10:00")["energyKwh"], 12.0, "hour 10");
    approx(&point(&h, "14:00")["energyKwh"], 0.0, "hour 14");
    approx(
        &point(&h, "11:00")["irradiationKwhM2"],
        0.5,
        "hour 11 irradiation",
    );

    let inv = m
        .get_data(&format!(
            "/api/report/inverter/multiple/electricity?stationId={}&type=range&start=2026-03-31&end=2026-04-01",
            p.station
        ))
        .await;
    assert_eq!(inv.as_array().map(Vec::len), Some(1));
    assert_eq!(inv[0]["inverterId"], p.inverter.to_string());
    approx(&inv[0]["total"]["energyKwh"], 96.0, "inverter total");
    approx(&inv[0]["total"]["sharePct"], 100.0, "the only inverter");
    // P0 of the inverter: its AC rating without module counts per string → 96 / 20.
    approx(&inv[0]["total"]["equivalentHours"], 4.8, "inverter yield");
}

#[tokio::test]
async fn the_bill_splits_by_segment_and_tariff_version_with_the_contract_discount() {
    let p = plant().await;
    let m = p.app.as_user(&p.manager);
    let b = m
        .get_data(&format!(
            "/api/stationMeterReport/electricityBillSettlement?stationId={}&type=range&start=2026-03-31&end=2026-04-01",
            p.station
        ))
        .await;
    assert_eq!(b["gridConnection"], "selfUseSurplus");
    approx(
        &b["discountFactor"],
        0.9,
        "10 % energy-performance contract discount",
    );
    assert_eq!(b["currency"], "CNY");
    assert_eq!(b["interval"], "1h");
    let t = &b["total"];
    approx(&t["generationKwh"], 96.0, "generation");
    approx(&t["exportedKwh"], 12.0, "export");
    approx(&t["selfConsumedKwh"], 84.0, "self-consumed");
    approx(&t["importedKwh"], 2.3, "import, with the reset's reading counted");
    // d1: flat 24 × 0.60 × 0.9 = 12.96, peak 18 × 1.00 × 0.9 = 16.20;
    // d2: flat 12.96, peak 18 × 1.20 × 0.9 = 19.44; export 12 × 0.39 = 4.68.
    approx(&t["selfConsumedAmount"], 61.56, "self-consumed amount");
    approx(&t["exportedAmount"], 4.68, "export amount");
    approx(&t["amount"], 66.24, "bill");
    let seg = |kind: &str| {
        t["segments"]
            .as_array()
            .and_then(|s| s.iter().find(|l| l["kind"] == kind))
            .cloned()
            .unwrap_or_else(|| panic!("segment {kind} in {t}"))
    };
    approx(&seg("2")["generationKwh"], 48.0, "peak energy");
    approx(&seg("2")["minPrice"], 1.0, "old peak");
    approx(&seg("2")["maxPrice"], 1.2, "new peak");
    approx(&seg("3")["selfConsumedAmount"], 25.92, "flat amount");
    approx(&point(&b, "2026-04-01")["amount"], 12.96 + 19.44 + 2.34, "d2");
    assert_eq!(b["unpricedDays"], json!([]));

    let r = m
        .get_data(&format!(
            "/api/stationMeterReport/rate?stationId={}&type=range&start=2026-03-31&end=2026-04-01",
            p.station
        ))
        .await;
    assert_eq!(r["metered"], true);
    approx(&r["total"]["selfConsumptionRatio"], 0.875, "84 / 96");
    approx(&r["total"]["feedInRatio"], 0.125, "12 / 96");
    approx(&r["total"]["selfSufficiencyRatio"], 0.9733, "84 / (84 + 2.3)");

    let c = m
        .get_data(&format!(
            "/api/stationMeterReport/energyConservation?stationIds={}&type=range&start=2026-03-31&end=2026-04-01",
            p.station
        ))
        .await;
    approx(&c["total"]["energyKwh"], 96.0, "energy");
    approx(&c["total"]["coalT"], 0.0384, "96 × 0.4 kg");
    approx(&c["total"]["co2T"], 0.0957, "96 × 0.997 kg");
    approx(&c["factors"]["co2KgPerKwh"], 0.997, "coefficient shown");
}

#[tokio::test]
async fn performance_ratio_plain_and_temperature_corrected() {
    let p = plant().await;
    let m = p.app.as_user(&p.manager);
    let r = m
        .get_data(&format!(
            "/api/report/station/electricity/rate?stationId={}&type=day&date=2026-03-31",
            p.station
        ))
        .await;
    assert_eq!(r["prKind"], "IEC 61724-1");
    assert_eq!(r["planeOfArray"], true);
    let t = &r["total"];
    approx(&t["energyKwh"], 48.0, "energy");
    approx(&t["irradiationKwhM2"], 2.958, "irradiation");
    // PR = (48 / 20) / 2.958333 = 0.8113; at 45 °C the array is rated 1 − 0.004 × 20 = 0.92.
    approx(&t["pr"], 0.8113, "PR");
    approx(&t["prTemperatureCorrected"], 0.8818, "PR at module temperature");
    // Irradiance ≥ 50 W/m² in hours 9-14 (6), producing in 10-13 (4).
    approx(&t["availability"], 0.6667, "availability");
    // 20 kWp × 2.958333 h × 0.92 × design PR 0.8 = 43.547 kWh.
    approx(&t["expectedEnergyKwh"], 43.547, "expected");
    assert_eq!(t["implausibleIntervals"], 0);
}

#[tokio::test]
async fn meter_rows_show_readings_and_the_reset() {
    let p = plant().await;
    let m = p.app.as_user(&p.manager);
    let r = m
        .get_data(&format!(
            "/api/meterReport/reportDaily?stationId={}&date=2026-04-01",
            p.station
        ))
        .await;
    let meter = &r["meters"][0];
    assert_eq!(meter["meterRole"], "1");
    let h10 = point(meter, "10:00");
    // 5 samples +100 before the reset, the reset reading 0 counts 0, then 6 × +100.
    approx(&h10["energyImport"]["energy"], 1.1, "import in hour 10");
    assert_eq!(h10["energyImport"]["resets"], json!(["2026-04-01 10:00"]));
    approx(
        &h10["energyImport"]["startReading"],
        51.2,
        "the reading d1 ended with",
    );
    approx(&h10["energyImport"]["endReading"], 0.6, "after the reset");
    approx(&point(meter, "03:00")["missingHours"], 1.0, "no reading at night");
    let month = m
        .get_data(&format!(
            "/api/meterReport/reportMonthly?stationId={}&date=2026-04",
            p.station
        ))
        .await;
    approx(
        &point(&month["meters"][0], "2026-04-01")["energyExport"]["energy"],
        6.0,
        "export d2",
    );
}

#[tokio::test]
async fn bad_ranges_and_other_tenants_get_messages_not_numbers() {
    let p = plant().await;
    let m = p.app.as_user(&p.manager);
    let path = |q: &str| format!("/api/report/station/electricity?stationId={}&{q}", p.station);
    let Reply { status, body, .. } = m.get(&path("type=range&start=2026-04-02&end=2026-04-01")).await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("开始时间不能晚于结束时间"))
    );
    let Reply { status, body, .. } = m
        .en()
        .get(&path("type=range&start=2024-01-01&end=2026-04-01"))
        .await;
    assert_eq!(status, 400);
    assert!(body["msg"].as_str().unwrap_or("").contains("366"), "{body}");
    let Reply { status, .. } = m.get(&path("type=day&date=2026-02-30")).await;
    assert_eq!(status, 400);
    let Reply { status, body, .. } = m.get("/api/report/station/electricity?type=day").await;
    assert_eq!((status, body["msg"].as_str()), (400, Some("请选择电站")));

    let other = p.app.station_manager(T2, "mgr2").await;
    let o = p.app.as_user(&other);
    for call in [
        path("type=month&date=2026-03"),
        format!(
            "/api/stationMeterReport/electricityBillSettlement?stationId={}",
            p.station
        ),
        format!(
            "/api/meterReport/reportDaily?stationId={}&date=2026-04-01",
            p.station
        ),
        format!("/api/report/inverter/electricity?inverterId={}", p.inverter),
        format!(
            "/api/report/station/multiple/electricity?stationIds={}",
            p.station
        ),
    ] {
        let Reply { status, .. } = o.get(&call).await;
        assert_eq!(status, 404, "{call}");
    }
    // Another tenant's fleet report holds none of these numbers.
    let fleet = o
        .get_data("/api/report/station/multiple/electricity?type=month&date=2026-03")
        .await;
    assert_eq!(fleet, json!([]));
    // An owner given no station sees nothing either.
    let owner = p.app.user_with_alias(T1, "owner1", "owner", &[]).await;
    let token = p.app.token_of(T1, "owner1", "secret1").await;
    let Reply { status, .. } = p.app.as_user(&token).get(&path("type=day")).await;
    assert_eq!(status, 404);
    p.app
        .exec(
            "INSERT INTO pv_user_station (user_id, station_id, tenant_id) VALUES (?, ?, ?)",
            vec![Value::Int(owner), Value::Int(p.station), T1.into()],
        )
        .await;
    let d = p
        .app
        .as_user(&token)
        .get_data(&path("type=day&date=2026-04-01"))
        .await;
    approx(&d["total"]["energyKwh"], 48.0, "the owner's own station");
}

#[tokio::test]
async fn exports_are_the_reports_as_workbooks_with_human_headers() {
    use calamine::{DataType, Reader, Xlsx};
    let p = plant().await;
    let m = p.app.as_user(&p.manager);
    let query = format!(
        "stationId={}&type=range&start=2026-03-31&end=2026-04-01",
        p.station
    );
    let (status, headers, bytes) = m
        .raw(
            reqwest::Method::GET,
            &format!("/api/stationMeterReport/electricityBillSettlement/export?{query}"),
        )
        .await;
    assert_eq!(status, 200);
    assert!(
        headers["content-disposition"]
            .to_str()
            .unwrap_or("")
            .contains("electricity-bill-2026-03-31_2026-04-01.xlsx")
    );
    let mut book: Xlsx<_> = Xlsx::new(std::io::Cursor::new(bytes)).expect("a workbook");
    let sheet = book.worksheet_range("电费结算").expect("bill sheet");
    let header: Vec<String> = (0..sheet.width())
        .filter_map(|c| sheet.get_value((0, c as u32)).map(|v| v.to_string()))
        .collect();
    assert_eq!(header[0], "时间");
    assert!(header.contains(&"峰时段发电量 (kWh)".to_owned()), "{header:?}");
    assert!(header.contains(&"合计电费 (CNY)".to_owned()), "{header:?}");
    let last = sheet.height() as u32 - 1;
    assert_eq!(
        sheet.get_value((last, 0)).map(|v| v.to_string()),
        Some("合计".into())
    );
    let total_col = header
        .iter()
        .position(|h| h == "合计电费 (CNY)")
        .expect("total column") as u32;
    assert_eq!(
        sheet.get_value((last, total_col)).and_then(|v| v.as_f64()),
        Some(66.24)
    );
    let segments = book.worksheet_range("分时段明细").expect("segment sheet");
    assert_eq!(
        segments.get_value((1, 0)).map(|v| v.to_string()),
        Some("峰".into())
    );

    // In English, with the generation report: the labels follow the language.
    let (status, _, bytes) = m
        .en()
        .raw(
            reqwest::Method::GET,
            &format!("/api/report/station/electricity/export?{query}"),
        )
        .await;
    assert_eq!(status, 200);
    let mut book: Xlsx<_> = Xlsx::new(std::io::Cursor::new(bytes)).expect("a workbook");
    let sheet = book.worksheet_range("Station generation").expect("sheet");
    assert_eq!(
        sheet.get_value((0, 2)).map(|v| v.to_string()),
        Some("Generation (kWh)".into())
    );
    assert_eq!(
        sheet.get_value((1, 0)).map(|v| v.to_string()),
        Some("Sunny".into())
    );
    assert_eq!(sheet.get_value((1, 2)).and_then(|v| v.as_f64()), Some(48.0));

    // Without the page's export button: refused, nothing written.
    let plain = p.app.station_manager(T1, "viewer").await;
    let (status, _, _) = p
        .app
        .as_user(&plain)
        .raw(
            reqwest::Method::GET,
            &format!("/api/report/station/electricity/export?{query}"),
        )
        .await;
    assert_eq!(status, 403);
}

#[tokio::test]
async fn revenue_of_today_and_this_month_on_the_home_page_and_the_map() {
    let today = support::local_today();
    let yesterday = today.pred_opt().expect("yesterday");
    let (t, y) = (
        today.format("%Y-%m-%d").to_string(),
        yesterday.format("%Y-%m-%d").to_string(),
    );
    let p = plant_on([&y, &t]).await;
    let m = p.app.as_user(&p.manager);
    // Both days after 2026-04-01: flat 24 × 0.60 × 0.9 + peak 18 × 1.20 × 0.9 + export 6 × 0.39.
    let per_day = 12.96 + 19.44 + 2.34;
    let month = if yesterday.format("%m").to_string() == today.format("%m").to_string() {
        2.0 * per_day
    } else {
        per_day
    };
    let home = m.get_data("/api/homePage/data").await;
    approx(&home["todayRevenue"], per_day, "today");
    approx(&home["monthRevenue"], month, "month");
    assert_eq!(home["currency"], "CNY");
    let map = m.get_data("/api/homePage/map").await;
    let me = map
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|s| s["id"].as_str() == Some(p.station.to_string().as_str()))
        })
        .expect("the station on the map");
    approx(&me["todayRevenue"], per_day, "station today");
    approx(&me["monthRevenue"], month, "station month");
    // Another tenant's home shows none of it.
    let other = p.app.station_manager(T2, "mgr2").await;
    let theirs = p.app.as_user(&other).get_data("/api/homePage/data").await;
    approx(&theirs["todayRevenue"], 0.0, "other tenant");
}

#[tokio::test]
async fn monthly_report_files_are_made_once_listed_downloaded_and_removed() {
    use calamine::{DataType, Reader, Xlsx};
    let p = plant().await;
    let m = p.app.as_user(&p.manager);
    // On demand, for March: the month's generation, performance and bill in one workbook.
    let f = m
        .post_data(
            "/api/blade-report/report/rest/generate",
            json!({"stationId": p.station.to_string(), "period": "2026-03"}),
        )
        .await;
    assert_eq!(f["name"], "Sunny-2026-03.xlsx");
    assert_eq!(f["period"], "2026-03");
    let id = f["id"].as_str().expect("id").to_owned();
    let (status, _, bytes) = m
        .raw(
            reqwest::Method::GET,
            &format!("/api/blade-report/report/rest/download/{id}"),
        )
        .await;
    assert_eq!(status, 200);
    let mut book: Xlsx<_> = Xlsx::new(std::io::Cursor::new(bytes)).expect("a workbook");
    assert_eq!(
        book.sheet_names(),
        vec!["电站发电量", "性能比", "电费结算", "分时段明细"]
    );
    let gen_sheet = book.worksheet_range("电站发电量").expect("generation");
    // Row 31 is 2026-03-31 (row 0 is the header).
    assert_eq!(
        gen_sheet.get_value((31, 1)).map(|v| v.to_string()),
        Some("2026-03-31".into())
    );
    assert_eq!(gen_sheet.get_value((31, 2)).and_then(|v| v.as_f64()), Some(48.0));

    // The job makes each station's previous month once, even when two passes race.
    let core = p.app.state.core.clone();
    let (a, b) = tokio::join!(
        pv_cloud::report::monthly::run_once(&core),
        pv_cloud::report::monthly::run_once(&core)
    );
    assert_eq!(a.expect("pass a") + b.expect("pass b"), 1);
    assert_eq!(
        pv_cloud::report::monthly::run_once(&core).await.expect("again"),
        0
    );
    let list = m.get_data("/api/blade-report/report/rest/list").await;
    assert_eq!(list["total"], 2);

    // Another tenant neither sees nor removes them.
    let other = p.app.station_manager(T2, "mgr2").await;
    let Reply { status, .. } = p
        .app
        .as_user(&other)
        .post(&format!("/api/blade-report/report/rest/remove?ids={id}"))
        .await;
    assert!(status == 403 || status == 404, "{status}");
    let Reply { status, .. } = m
        .post(&format!("/api/blade-report/report/rest/remove?ids={id},1"))
        .await;
    assert_eq!(status, 404, "an id that is not the caller's removes nothing");
    assert_eq!(m.get_data("/api/blade-report/report/rest/list").await["total"], 2);
    m.post(&format!("/api/blade-report/report/rest/remove?ids={id}"))
        .await
        .ok();
    let list = m
        .get_data("/api/blade-report/report/rest/list?period=2026-03")
        .await;
    assert_eq!(list["total"], 0);
}
