//! The inspection tests' shared site: tenants, stations, maintenance staff, plans and helpers.

use chrono::{Duration, NaiveDate};
use pv_cloud::config::Config;
use pv_cloud::kernel::sql::Value;
use pv_cloud::kernel::time::Clock;
use serde_json::{Value as Json, json};

use crate::support::{self, Client, Reply, TestApp, int};

pub const T1: &str = "100001";
pub const T2: &str = "100002";

/// Every menu and button of the inspection pages.
pub const INSPECT_MENUS: &[&str] = &[
    "inspectionPlan",
    "inspectionPlan_add",
    "inspectionPlan_edit",
    "inspectionPlan_delete",
    "inspectionPlan_view",
    "inspectionPlan_copy",
    "inspectionPlan_export",
    "inspectionItem",
    "inspectionItem_add",
    "inspectionItem_edit",
    "inspectionItem_delete",
    "inspectionTask",
    "inspectionTask_view",
    "inspectionTask_delete",
    "inspectionTask_export",
    "inspectionTask_fill",
    "inspectionRecord",
    "inspectionRecord_view",
    "inspectionRecord_delete",
    "inspectionRecord_export",
];

/// The hub's clock in these tests: 2026-12-31 23:30 at +08:00, 05:30 the same day at UTC-10 (and
/// still 30 December at UTC-12): a plan announced days ahead runs into the next year.
pub const NOW: i64 = 1_798_731_000_000;

pub struct Site {
    pub app: TestApp,
    /// Station manager and inspection planner of T1 (sees every station, not an administrator).
    pub mgr: String,
    /// Station A (the hub's clock) and B (UTC-10).
    pub a: String,
    pub b: String,
    /// Maintenance staff of T1: m1 sees A, m2 sees A and B, m3 sees B, m4 sees A.
    pub m: Vec<(i64, String)>,
    /// T2's manager.
    pub other: String,
}

impl Site {
    pub fn mgr(&self) -> Client<'_> {
        self.app.as_user(&self.mgr)
    }
    pub fn maint(&self, i: usize) -> Client<'_> {
        self.app.as_user(&self.m[i].1)
    }
    pub fn uid(&self, i: usize) -> String {
        self.m[i].0.to_string()
    }
}

/// The date at [`NOW`], the hub's clock, in a clock `offset_hours` ahead of UTC.
pub fn today_at(offset_hours: i64) -> NaiveDate {
    (chrono::DateTime::from_timestamp_millis(NOW).expect("time") + Duration::hours(offset_hours)).date_naive()
}

pub async fn site() -> Site {
    let app = TestApp::start_clocked(Clock::fixed(NOW)).await;
    let menus: Vec<&str> = support::STATION_MENUS
        .iter()
        .chain(INSPECT_MENUS)
        .copied()
        .collect();
    app.create_tenant_user(T1, "mgr", "secret1", &menus, None).await;
    let mgr = app.token_of(T1, "mgr", "secret1").await;
    let m = app.as_user(&mgr);
    let a = m.station("Station A").await;
    let b = m.station("Station B").await;
    app.exec(
        "UPDATE pv_station SET utc_offset_minutes = ? WHERE id = ?",
        vec![Value::Int(-600), Value::Int(int(&b))],
    )
    .await;
    let mut staff = Vec::new();
    for (account, stations) in [
        ("m1", vec![a.clone()]),
        ("m2", vec![a.clone(), b.clone()]),
        ("m3", vec![b.clone()]),
        ("m4", vec![a.clone()]),
    ] {
        let id = app
            .user_with_alias(T1, account, "maintenance", INSPECT_MENUS)
            .await;
        m.post_json(
            "/api/station/updateUserStation",
            json!({"userId": id.to_string(), "stationIds": stations}),
        )
        .await
        .ok();
        staff.push((id, app.token_of(T1, account, "secret1").await));
    }
    app.create_tenant_user(T2, "other", "secret1", &menus, None).await;
    let other = app.token_of(T2, "other", "secret1").await;
    Site {
        app,
        mgr,
        a,
        b,
        m: staff,
        other,
    }
}

pub async fn item(c: &Client<'_>, title: &str, checks: &[&str]) -> String {
    c.post_data("/api/inspectItem", json!({"title": title, "checkItems": checks}))
        .await["id"]
        .as_str()
        .expect("item id")
        .to_owned()
}

pub fn plan_body(s: &Site, items: &[&str], cycle: &str, start: NaiveDate, alarm_day: i64) -> Json {
    json!({"name": "Daily walk", "stationIds": [s.a], "itemIds": items,
        "maintenanceIds": [s.uid(0), s.uid(1)], "cyclePeriod": cycle, "alarmDay": alarm_day,
        "startDate": start.to_string(), "remark": "r"})
}

#[track_caller]
pub fn refused(r: Reply, code: u16, msg: &str) {
    let body = r.body.clone();
    r.fails(code);
    assert_eq!(body["msg"], msg, "{body}");
}

pub async fn count(app: &TestApp, sql: &str, values: Vec<Value>) -> i64 {
    app.scalar_i64(sql, values).await
}

pub fn sheet(bytes: Vec<u8>, name: &str) -> Vec<Vec<String>> {
    use calamine::{Reader, Xlsx};
    assert_eq!(&bytes[..2], b"PK", "a zip (xlsx)");
    let mut book: Xlsx<_> = Xlsx::new(std::io::Cursor::new(bytes)).expect("a workbook");
    let range = book.worksheet_range(name).expect("sheet");
    range
        .rows()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

/// A real 2×2 PNG.
pub fn png_bytes() -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, 2, 2);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut w = encoder.write_header().expect("png header");
    w.write_image_data(&[200u8; 12]).expect("png data");
    w.finish().expect("png end");
    out
}

pub const PUT_IMAGE: &str = "/api/blade-resource/oss/endpoint/put-image";

pub async fn tasks_of(app: &TestApp, plan: &str) -> Vec<(i64, String, i64)> {
    let mut out = Vec::new();
    let n = count(
        app,
        "SELECT COUNT(*) FROM pv_inspect_task WHERE plan_id = ?",
        vec![Value::Int(int(plan))],
    )
    .await;
    for i in 0..n {
        let id = app
            .scalar_i64(
                "SELECT id FROM pv_inspect_task WHERE plan_id = ? ORDER BY station_id, due_date LIMIT 1 OFFSET ?",
                vec![Value::Int(int(plan)), Value::Int(i)],
            )
            .await;
        let due = app
            .scalar_text(
                "SELECT due_date FROM pv_inspect_task WHERE id = ?",
                vec![Value::Int(id)],
            )
            .await
            .unwrap();
        let station = app
            .scalar_i64(
                "SELECT station_id FROM pv_inspect_task WHERE id = ?",
                vec![Value::Int(id)],
            )
            .await;
        out.push((id, due, station));
    }
    out
}

pub async fn messages(app: &TestApp, user: i64, kind: i64) -> i64 {
    count(
        app,
        "SELECT COUNT(*) FROM pv_message WHERE user_id = ? AND type = ?",
        vec![Value::Int(user), Value::Int(kind)],
    )
    .await
}

pub async fn pass(app: &TestApp) -> pv_cloud::inspection::job::Pass {
    pv_cloud::inspection::job::run_once(&app.state.alarm_ctx())
        .await
        .expect("pass")
}

pub async fn site_with_tasks() -> (Site, String, Vec<String>) {
    let s = site().await;
    let m = s.mgr();
    let i1 = item(&m, "Panels", &["Clean", "No cracks"]).await;
    let i2 = item(&m, "Fence", &["Gate locked"]).await;
    let p = m
        .post_data(
            "/api/inspectPlan",
            plan_body(&s, &[&i1, &i2], "1", today_at(8), 1),
        )
        .await;
    let plan = p["id"].as_str().unwrap().to_owned();
    pass(&s.app).await;
    let tasks = tasks_of(&s.app, &plan)
        .await
        .into_iter()
        .map(|t| t.0.to_string())
        .collect();
    (s, plan, tasks)
}

pub fn answers(task: &str, d: &Json, abnormal_note: Option<&str>, photos: Json) -> Json {
    let mut results = Vec::new();
    for item in d["items"].as_array().unwrap() {
        for check in item["checkItems"].as_array().unwrap() {
            results.push(json!({"itemId": item["itemId"], "check": check, "result": "1", "photos": photos}));
        }
    }
    if let Some(note) = abnormal_note {
        results[1]["result"] = json!("2");
        results[1]["note"] = json!(note);
    }
    json!({"taskId": task, "runSituation": if abnormal_note.is_some() { "2" } else { "1" }, "remark": "ok", "results": results})
}

pub async fn replica_of(app: &TestApp) -> pv_cloud::state::AppState {
    let config = Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        data_dir: app.data_dir.clone(),
        database_url: app.database_url.clone(),
        database_max_connections: 4,
        node_id: 7,
        ..Config::default()
    };
    pv_cloud::server::prepare_with_clock(config, app.state.clock.clone())
        .await
        .expect("second hub")
}
