//! 设备总览 (`/api/equipment/*`, issue 30) over real parts: devices made through the API, samples
//! and statuses through the embedded broker and the real ingest, the caller's station scope
//! (another tenant, an unassigned and an assigned owner), the filters, sort and paging, the
//! summary and the workbook agreeing with the page, the menu and button enforced by the server,
//! vendor-cloud devices, and the time of a page of 2,000 devices. SQLite, or PostgreSQL with
//! `TEST_POSTGRES_URL`.

use crate::support;

use std::time::{Duration, Instant};

use calamine::Reader;
use pv_cloud::kernel::sql::Value;
use pv_shared::topics;
use pv_shared::wire::{self, GatewayStatus, StatusKind, TelemetryBatch};
use reqwest::Method;
use serde_json::{Value as Json, json};
use support::factory::{Device, GATEWAY_MENUS, STATION_MENUS};
use support::telemetry::local_text;
use support::{Client, GatewayClient, IngestApp, TestApp, eventually, now_ms, sample};

const T: Duration = Duration::from_secs(15);

fn menus(extra: &[&'static str]) -> Vec<&'static str> {
    STATION_MENUS
        .iter()
        .chain(GATEWAY_MENUS)
        .chain(extra)
        .copied()
        .collect()
}

const EQUIPMENT: &[&str] = &["equipment", "equipment_export"];

fn records(page: &Json) -> Vec<Json> {
    page["records"].as_array().cloned().unwrap_or_default()
}

fn by_sn<'a>(rows: &'a [Json], sn: &str) -> &'a Json {
    rows.iter()
        .find(|r| r["sn"] == sn)
        .unwrap_or_else(|| panic!("{sn} in {rows:?}"))
}

fn sns(rows: &[Json]) -> Vec<String> {
    rows.iter()
        .map(|r| r["sn"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn page(user: &Client<'_>, query: &[(&str, &str)]) -> Json {
    let mut q: Vec<(&str, &str)> = query.to_vec();
    if !query.iter().any(|(k, _)| *k == "size") {
        q.push(("size", "200"));
    }
    user.get_query("/api/equipment/page", &q).await.ok().data()
}

/// The workbook's rows (header first) as text cells.
async fn workbook(user: &Client<'_>, query: &str) -> Vec<Vec<String>> {
    let (status, headers, bytes) = user
        .raw(Method::GET, &format!("/api/equipment/export?{query}"))
        .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    assert!(
        headers[reqwest::header::CONTENT_TYPE]
            .to_str()
            .unwrap_or_default()
            .contains("spreadsheetml"),
        "{headers:?}"
    );
    let mut book = calamine::Xlsx::new(std::io::Cursor::new(bytes)).expect("an xlsx");
    let sheet = book.sheet_names()[0].clone();
    let range = book.worksheet_range(&sheet).expect("the sheet");
    range
        .rows()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

fn status(devices: Vec<wire::DeviceStatus>) -> Vec<u8> {
    status_at(devices, now_ms())
}

fn status_at(devices: Vec<wire::DeviceStatus>, ts: i64) -> Vec<u8> {
    wire::to_bytes(&GatewayStatus {
        v: 1,
        gateway: "GW-EQ".into(),
        kind: StatusKind::Birth,
        online: true,
        ts,
        agent: "test".into(),
        queue: None,
        devices,
        buses: vec![],
    })
    .expect("status")
}

fn line(id: &str, online: bool, failed: u64, withheld: Option<&str>) -> wire::DeviceStatus {
    wire::DeviceStatus {
        id: id.into(),
        online,
        polls_ok: 100,
        polls_failed: failed,
        withheld: withheld.map(Into::into),
        changes: 0,
        last_change: None,
        suspect: Default::default(),
        counter_rereads: 0,
        counters_unconfirmed: 0,
    }
}

/// Status from real telemetry: a device that reported is online with its newest sample's time,
/// failed polls are what its gateway's statuses added (a restart counting from zero), a
/// suspect-marked sample counts (also once its hour is packed), a device its gateway says is silent
/// is offline, a withheld one withheld, one that never reported never, an open fault alarm makes it
/// fault, rebases of the last day count; a camera is unknown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_and_quality_come_from_real_telemetry() {
    let app = IngestApp::start(|_| {}).await;
    app.app
        .create_tenant_user("100001", "eq", "secret1", &menus(EQUIPMENT), None)
        .await;
    let token = app.app.token_of("100001", "eq", "secret1").await;
    let (station, pw) = app
        .provision(&token, "GW-EQ", &["EQ-ON", "EQ-OFF", "EQ-WH", "EQ-NEVER"])
        .await;
    let user = app.app.as_user(&token);
    user.device(
        Device::Camera,
        json!({"stationId": station, "name": "CAM-1", "sn": "EQ-CAM", "cameraType": "1", "channel": 1}),
    )
    .await;
    let gw = GatewayClient::connect(app.gateway_addr, "GW-EQ", Some(("GW-EQ", &pw)), None)
        .await
        .expect("a provisioned gateway signs in");
    // Made two hours ago by the gateway's clock: the next status is the first of a new hour.
    gw.publish(
        &topics::status("GW-EQ").unwrap(),
        status_at(
            vec![
                line("EQ-ON", true, 3, None),
                line("EQ-OFF", false, 40, None),
                line("EQ-WH", true, 0, Some("layout changed")),
            ],
            now_ms() - 2 * 3_600_000,
        ),
    )
    .await;
    let ts = now_ms() - 1_000;
    let mut marked = sample(
        1,
        "EQ-ON",
        ts - 5_000,
        &[("ac_power", 5_000.0), ("power_factor", -20.7)],
    );
    marked.mark_implausible();
    let good = sample(2, "EQ-ON", ts, &[("ac_power", 5_100.0)]);
    let off = sample(3, "EQ-OFF", ts - 60_000, &[("ac_power", 1.0)]);
    gw.send(&TelemetryBatch::new("GW-EQ", false, vec![marked, good, off]))
        .await;

    let ready = eventually(T, || async {
        let rows = records(&page(&user, &[]).await);
        rows.len() == 5
            && by_sn(&rows, "EQ-ON")["suspectValues"] == 1
            && by_sn(&rows, "EQ-ON")["status"] == "online"
    })
    .await;
    let rows = records(&page(&user, &[]).await);
    assert!(ready, "{rows:?}");
    let on = by_sn(&rows, "EQ-ON");
    assert_eq!(on["lastSample"], local_text(ts).as_str(), "{on}");
    // The first status is the baseline: reported, nothing added yet.
    assert_eq!(on["missedPolls"], 0);
    assert_eq!(on["source"], "gateway");
    assert_eq!(on["kind"], "inverter");
    assert_eq!(on["gatewayId"], "GW-EQ");
    assert_eq!(on["stationName"], "Plant GW-EQ");
    assert!(
        on["model"].as_str().is_some_and(|m| !m.is_empty()),
        "the register map names it: {on}"
    );
    assert_eq!(by_sn(&rows, "EQ-OFF")["status"], "offline");
    assert_eq!(by_sn(&rows, "EQ-OFF")["missedPolls"], 0);

    // Failed polls: what each status adds to the one before (3 → 7: 4), and after the agent
    // restarted (7 → 2) its polls since the restart (2).
    let status_topic = topics::status("GW-EQ").unwrap();
    let on_id = support::client::int(on["id"].as_str().expect("id"));
    let hour = now_ms() - now_ms() % 3_600_000;
    // Three days old: outside the window, and dropped with the new hour's first status.
    app.app
        .exec(
            "INSERT INTO pv_device_polls (device_id, hour, tenant_id, station_id, polls_ok, polls_failed) \
             VALUES (?, ?, '100001', ?, 0, 500)",
            vec![
                Value::Int(on_id),
                Value::Int(hour - 72 * 3_600_000),
                Value::Int(support::client::int(&station)),
            ],
        )
        .await;
    for (n, failed) in [(1_u64, 7_u64), (2, 2)] {
        gw.publish(
            &status_topic,
            status(vec![
                line("EQ-ON", true, failed, None),
                line("EQ-OFF", false, 40, None),
                line("EQ-WH", true, 0, Some("layout changed")),
            ]),
        )
        .await;
        let want = if n == 1 { 4 } else { 6 };
        assert!(
            eventually(T, || async {
                by_sn(&records(&page(&user, &[]).await), "EQ-ON")["missedPolls"] == want
            })
            .await,
            "status {n}: {:?}",
            records(&page(&user, &[]).await)
        );
    }
    let rows = records(&page(&user, &[]).await);
    assert_eq!(by_sn(&rows, "EQ-OFF")["missedPolls"], 0, "40 → 40 adds nothing");
    assert_eq!(
        app.app
            .scalar_i64(
                "SELECT COUNT(*) FROM pv_device_polls WHERE device_id = ? AND hour < ?",
                vec![Value::Int(on_id), Value::Int(hour)],
            )
            .await,
        0,
        "rows older than two days are dropped"
    );
    assert_eq!(by_sn(&rows, "EQ-OFF")["suspectValues"], 0);
    assert_eq!(by_sn(&rows, "EQ-WH")["status"], "withheld");
    assert_eq!(by_sn(&rows, "EQ-NEVER")["status"], "never");
    assert!(by_sn(&rows, "EQ-NEVER")["lastSample"].is_null());
    assert!(
        by_sn(&rows, "EQ-NEVER")["missedPolls"].is_null(),
        "its gateway's status does not name it"
    );
    let cam = by_sn(&rows, "EQ-CAM");
    assert_eq!(
        (cam["kind"].as_str(), cam["status"].as_str()),
        (Some("camera"), Some("unknown"))
    );

    // Packed into a block, the marked sample still counts once (from the block's count, and by
    // opening a block packed before that count was kept).
    let db = &app.app.state.core.db;
    pv_cloud::telemetry::compact::compact_before(db, now_ms() + 2 * 3_600_000)
        .await
        .expect("packs");
    assert_eq!(
        app.app
            .scalar_i64(
                "SELECT COUNT(*) FROM pv_telemetry_raw WHERE device_id = ?",
                vec![Value::Int(on_id)]
            )
            .await,
        0,
        "the hour was packed"
    );
    assert_eq!(
        by_sn(&records(&page(&user, &[]).await), "EQ-ON")["suspectValues"],
        1
    );
    app.app
        .exec("UPDATE pv_telemetry_block SET suspect_samples = NULL", vec![])
        .await;
    assert_eq!(
        by_sn(&records(&page(&user, &[]).await), "EQ-ON")["suspectValues"],
        1
    );

    // Rebases: one now counts, one two days ago does not.
    for (i, at) in [now_ms() - 60_000, now_ms() - 48 * 3_600_000]
        .into_iter()
        .enumerate()
    {
        app.app
            .exec(
                "INSERT INTO pv_counter_event (device_id, metric, ts, tenant_id, station_id, device_kind, kind, \
                 old_value, old_ts, new_value, last_value, readings, counted_wh, decided_ts, decided_bucket, updated_at) \
                 VALUES (?, 'energy_total', ?, '100001', ?, 'inverter', 'rebase', 1, ?, 2, 2, 3, 0, ?, 0, ?)",
                vec![
                    Value::Int(on_id),
                    Value::Int(at + i as i64),
                    Value::Int(support::client::int(&station)),
                    Value::Int(at - 1),
                    Value::Int(at),
                    Value::Int(at),
                ],
            )
            .await;
    }
    // An open fault alarm makes it fault.
    app.app
        .exec(
            "INSERT INTO pv_alarm (id, tenant_id, station_id, device_id, device_kind, kind, category, type, level, \
             name, name_en, status, first_time, last_time, create_time) \
             VALUES (?, '100001', ?, ?, 'inverter', 'fault:fault_code:1', 'fault', 1, 3, '故障', 'Fault', 0, ?, ?, ?)",
            vec![
                Value::Int(app.app.state.core.ids.next().0),
                Value::Int(support::client::int(&station)),
                Value::Int(on_id),
                Value::Int(now_ms()),
                Value::Int(now_ms()),
                Value::Int(now_ms()),
            ],
        )
        .await;
    let rows = records(&page(&user, &[]).await);
    let on = by_sn(&rows, "EQ-ON");
    assert_eq!(
        (on["counterRebases"].as_i64(), on["status"].as_str()),
        (Some(1), Some("fault")),
        "{on}"
    );
    let summary = user.get_data("/api/equipment/summary").await;
    assert_eq!(summary["all"]["total"], 5, "{summary}");
    let inverters = &summary["kinds"][0];
    assert_eq!(
        [
            &inverters["fault"],
            &inverters["offline"],
            &inverters["withheld"],
            &inverters["never"]
        ],
        [&json!(1), &json!(1), &json!(1), &json!(1)],
        "{summary}"
    );
    assert_eq!(summary["kinds"][4]["unknown"], 1);
}

/// Only the caller's stations: another tenant and an unassigned owner see none of the devices, an
/// assigned owner those of their station. Filters, sort and paging; the summary counts what the
/// page lists, the workbook holds the page's rows in its order; no menu, no list; no button, no
/// workbook; unknown filter values are refused.
#[tokio::test]
async fn scope_filters_summary_export_and_permissions() {
    let app = TestApp::start().await;
    app.create_tenant_user("100001", "mgr", "secret1", &menus(EQUIPMENT), None)
        .await;
    let mgr = app.as_user(&app.token_of("100001", "mgr", "secret1").await);
    let north = mgr.station("North").await;
    let south = mgr.station("South").await;
    for (station, sn) in [(&north, "N-INV-1"), (&north, "N-INV-2"), (&south, "S-INV-1")] {
        mgr.inverter(station, sn, 1, json!({})).await;
    }
    mgr.device(Device::Meter, json!({"stationId": north, "name": "N-M", "sn": "N-MET", "meterRole": "1", "ctRatio": 1, "ptRatio": 1}))
        .await;
    mgr.device(
        Device::Weather,
        json!({"stationId": south, "name": "S-W", "sn": "S-WEA"}),
    )
    .await;

    let all = records(&page(&mgr, &[]).await);
    assert_eq!(
        sns(&all),
        ["N-INV-1", "N-INV-2", "N-MET", "S-INV-1", "S-WEA"],
        "station, kind, name"
    );
    assert!(
        all.iter()
            .all(|r| r["status"] == "never" && r["source"] == "gateway")
    );

    // Another tenant with the menu sees nothing of them.
    app.create_tenant_user("200002", "other", "secret1", EQUIPMENT, None)
        .await;
    let other = app.as_user(&app.token_of("200002", "other", "secret1").await);
    assert_eq!(page(&other, &[]).await["total"], 0);
    // An owner with no station assigned sees nothing; assigned North, only North's.
    let owner = app.user_with_alias("100001", "owner1", "owner", EQUIPMENT).await;
    let owner_client = app.as_user(&app.token_of("100001", "owner1", "secret1").await);
    assert_eq!(page(&owner_client, &[]).await["total"], 0);
    app.exec(
        "INSERT INTO pv_user_station (user_id, station_id, tenant_id) VALUES (?, ?, '100001')",
        vec![Value::Int(owner), Value::Int(support::client::int(&north))],
    )
    .await;
    assert_eq!(
        sns(&records(&page(&owner_client, &[]).await)),
        ["N-INV-1", "N-INV-2", "N-MET"]
    );
    assert_eq!(
        page(&owner_client, &[("stationId", &south)]).await["total"],
        0,
        "another station by id: nothing"
    );

    // Filters.
    assert_eq!(
        sns(&records(&page(&mgr, &[("kind", "inverter")]).await)),
        ["N-INV-1", "N-INV-2", "S-INV-1"]
    );
    assert_eq!(
        sns(&records(&page(&mgr, &[("stationId", &south)]).await)),
        ["S-INV-1", "S-WEA"]
    );
    assert_eq!(
        sns(&records(&page(&mgr, &[("keyword", "inv-2")]).await)),
        ["N-INV-2"]
    );
    assert_eq!(page(&mgr, &[("status", "online")]).await["total"], 0);
    assert_eq!(page(&mgr, &[("source", "vendor")]).await["total"], 0);
    // Sort and paging.
    let sorted = records(&page(&mgr, &[("sort", "sn"), ("order", "desc")]).await);
    assert_eq!(sns(&sorted), ["S-WEA", "S-INV-1", "N-MET", "N-INV-2", "N-INV-1"]);
    let p2 = mgr
        .get_query(
            "/api/equipment/page",
            &[("sort", "sn"), ("order", "desc"), ("size", "2"), ("current", "2")],
        )
        .await
        .ok()
        .data();
    assert_eq!((p2["total"].as_i64(), p2["pages"].as_i64()), (Some(5), Some(3)));
    assert_eq!(sns(&records(&p2)), ["N-MET", "N-INV-2"]);
    for bad in [
        ("sort", "name; drop"),
        ("kind", "pv_inverter"),
        ("status", "asleep"),
        ("order", "up"),
    ] {
        mgr.get_query("/api/equipment/page", &[bad]).await.fails(400);
    }

    // The summary counts what the page lists, under the same filters.
    for filter in [
        vec![],
        vec![("stationId", north.as_str())],
        vec![("kind", "inverter")],
    ] {
        let listed = page(&mgr, &filter).await;
        let summary = mgr.get_query("/api/equipment/summary", &filter).await.ok().data();
        assert_eq!(summary["all"]["total"], listed["total"], "{filter:?}: {summary}");
        for k in summary["kinds"].as_array().expect("kinds") {
            let n = records(&listed).iter().filter(|r| r["kind"] == k["kind"]).count();
            assert_eq!(k["total"], n, "{filter:?}: {k}");
            assert_eq!(k["never"], n, "nothing reported yet");
        }
    }

    // The workbook: the page's rows in its order, headers in the request's language.
    let sheet = workbook(&mgr, "sort=sn&order=desc").await;
    assert_eq!(sheet[0][0], "电站");
    assert_eq!(sheet.len() - 1, sorted.len());
    let sn_col = sheet[0].iter().position(|h| h == "SN").expect("an SN column");
    let from_sheet: Vec<&str> = sheet[1..].iter().map(|r| r[sn_col].as_str()).collect();
    assert_eq!(from_sheet, sns(&sorted));
    assert_eq!(sheet[1][0], "South");
    let filtered = workbook(&mgr.en(), &format!("stationId={north}&kind=inverter")).await;
    assert_eq!(filtered[0][0], "Station");
    assert_eq!(filtered.len() - 1, 2);
    assert_eq!(filtered[1][1], "Inverter");
    assert_eq!(filtered[1][7], "Never reported");

    // The server enforces the menu and the button.
    app.create_tenant_user("100001", "nomenu", "secret1", &menus(&[]), None)
        .await;
    let nomenu = app.as_user(&app.token_of("100001", "nomenu", "secret1").await);
    nomenu.get("/api/equipment/page").await.fails(403);
    nomenu.get("/api/equipment/summary").await.fails(403);
    app.create_tenant_user("100001", "noexport", "secret1", &menus(&["equipment"]), None)
        .await;
    let noexport = app.as_user(&app.token_of("100001", "noexport", "secret1").await);
    assert_eq!(page(&noexport, &[]).await["total"], 5);
    noexport.get("/api/equipment/export").await.fails(403);
}

/// A device a vendor cloud feeds (a `pv_vendor_device` row points at it) is "vendor", with the
/// vendor's model and firmware. The table arrives with the vendor poller's migration (0051); until
/// then this test makes it as that migration does.
#[tokio::test]
async fn vendor_cloud_devices_carry_source_model_and_firmware() {
    let app = TestApp::start().await;
    app.create_tenant_user("100001", "mgr", "secret1", &menus(EQUIPMENT), None)
        .await;
    let mgr = app.as_user(&app.token_of("100001", "mgr", "secret1").await);
    let station = mgr.station("Vendor plant").await;
    let fed = mgr.inverter(&station, "HW-001", 1, json!({})).await;
    mgr.inverter(&station, "GW-FED-1", 1, json!({})).await;
    // Without a vendor row every device is a gateway's.
    assert_eq!(page(&mgr, &[("source", "gateway")]).await["total"], 2);
    for (tenant, device) in [("100001", support::client::int(&fed)), ("200002", 1)] {
        app.exec(
            "INSERT INTO pv_vendor_device (id, tenant_id, account_id, plant_id, vendor_device_id, serial, kind, model, \
             firmware, device_id, station_id, create_time) VALUES (?, ?, 1, 'P1', ?, 'HW-001', 'inverter', \
             'SUN2000-100KTL-M1', 'V100R001C00SPC120', ?, ?, 0)",
            vec![
                Value::Int(app.state.core.ids.next().0),
                tenant.into(),
                format!("NE-{tenant}").into(),
                Value::Int(device),
                Value::Int(support::client::int(&station)),
            ],
        )
        .await;
    }
    let vendor = records(&page(&mgr, &[("source", "vendor")]).await);
    assert_eq!(sns(&vendor), ["HW-001"]);
    assert_eq!(vendor[0]["model"], "SUN2000-100KTL-M1");
    assert_eq!(vendor[0]["firmware"], "V100R001C00SPC120");
    assert_eq!(vendor[0]["gatewayId"], "");
    assert_eq!(
        sns(&records(&page(&mgr, &[("source", "gateway")]).await)),
        ["GW-FED-1"]
    );
    assert_eq!(
        sns(&records(&page(&mgr, &[("keyword", "sun2000")]).await)),
        ["HW-001"]
    );
    let sheet = workbook(&mgr, "source=vendor").await;
    assert_eq!(sheet[1][6], "厂商云");
}

/// 2,000 devices over 20 stations (inverters, meters, a weather station each), each with a
/// suspect-marked sample and an hour of polls: a page and the summary stay fast (one query per
/// table, no query per device). Prints the times.
#[tokio::test]
async fn a_page_of_two_thousand_devices_is_fast() {
    let app = TestApp::start().await;
    app.create_tenant_user("100001", "mgr", "secret1", &menus(EQUIPMENT), None)
        .await;
    let mgr = app.as_user(&app.token_of("100001", "mgr", "secret1").await);
    let mut stations = Vec::new();
    for i in 0..20 {
        stations.push(support::client::int(&mgr.station(&format!("Bulk {i:02}")).await));
    }
    let now = now_ms();
    let tables = ["pv_inverter", "pv_meter", "pv_weather", "pv_inverter"];
    let mut n = 0_i64;
    for station in &stations {
        let mut devices: Vec<(usize, i64)> = Vec::new();
        for j in 0..100 {
            // One weather station per station (the registry allows no more).
            let kind = if j == 0 {
                2
            } else if j % 10 == 0 {
                1
            } else {
                0
            };
            devices.push((kind, app.state.core.ids.next().0));
        }
        for (kind, table) in tables.iter().enumerate().take(3) {
            let rows: Vec<&(usize, i64)> = devices.iter().filter(|(k, _)| *k == kind).collect();
            if rows.is_empty() {
                continue;
            }
            let extra = if *table == "pv_meter" { ", meter_role" } else { "" };
            let mut sql = format!(
                "INSERT INTO {table} (id, tenant_id, station_id, name, sn, create_time{extra}) VALUES "
            );
            let mut values = Vec::new();
            for (i, (_, id)) in rows.iter().enumerate() {
                n += 1;
                sql.push_str(if i == 0 {
                    "(?, '100001', ?, ?, ?, ?"
                } else {
                    ", (?, '100001', ?, ?, ?, ?"
                });
                sql.push_str(if extra.is_empty() { ")" } else { ", '1')" });
                values.extend([
                    Value::Int(*id),
                    Value::Int(*station),
                    format!("D{n:05}").into(),
                    format!("BULK-{n:05}").into(),
                    Value::Int(now),
                ]);
            }
            app.exec(&sql, values).await;
        }
        let mut raw = String::from(
            "INSERT INTO pv_telemetry_raw (device_id, ts, tenant_id, station_id, seq, metrics, suspect) VALUES ",
        );
        let mut values = Vec::new();
        for (i, (_, id)) in devices.iter().enumerate() {
            raw.push_str(if i == 0 {
                "(?, ?, '100001', ?, 1, '{}', ?)"
            } else {
                ", (?, ?, '100001', ?, 1, '{}', ?)"
            });
            values.extend([
                Value::Int(*id),
                Value::Int(now - 60_000),
                Value::Int(*station),
                "{\"power_factor\":-20.7}".into(),
            ]);
        }
        app.exec(&raw, values).await;
        let mut polls = String::from(
            "INSERT INTO pv_device_polls (device_id, hour, tenant_id, station_id, polls_ok, polls_failed) VALUES ",
        );
        let mut values = Vec::new();
        for (i, (_, id)) in devices.iter().enumerate() {
            polls.push_str(if i == 0 {
                "(?, ?, '100001', ?, 10, 2)"
            } else {
                ", (?, ?, '100001', ?, 10, 2)"
            });
            values.extend([
                Value::Int(*id),
                Value::Int(now - now % 3_600_000),
                Value::Int(*station),
            ]);
        }
        app.exec(&polls, values).await;
    }
    assert_eq!(n, 2_000);
    let started = Instant::now();
    let first = page(
        &mgr,
        &[("size", "50"), ("sort", "suspectValues"), ("order", "desc")],
    )
    .await;
    let page_ms = started.elapsed().as_millis();
    let started = Instant::now();
    let summary = mgr.get_data("/api/equipment/summary").await;
    let summary_ms = started.elapsed().as_millis();
    println!("equipment over 2000 devices: page {page_ms} ms, summary {summary_ms} ms");
    assert_eq!(first["total"], 2_000);
    assert_eq!(summary["all"]["total"], 2_000);
    assert!(
        records(&first)
            .iter()
            .all(|r| r["suspectValues"] == 1 && r["missedPolls"] == 2)
    );
    assert!(
        page_ms < 5_000 && summary_ms < 5_000,
        "page {page_ms} ms, summary {summary_ms} ms"
    );
}
