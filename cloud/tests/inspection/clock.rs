//! The inspection workbooks follow the one clock rule: a task or record is its station's, so its
//! times are written in the station's clock, and every row states the clock it uses. Station B
//! runs at UTC-12:00 here, 20 hours behind the hub's +08:00, so the two clocks name different
//! days for the same instant.

use pv_cloud::kernel::sql::Value;
use reqwest::Method;
use serde_json::json;

use super::site::*;
use crate::support::int;

/// 2026-11-20 02:30:00 UTC: 10:30 on the 20th at +08:00, 14:30 on the 19th at -12:00.
const AT: i64 = 1_795_141_800_000;
const AT_HUB: &str = "2026-11-20 10:30:00";
const AT_B: &str = "2026-11-19 14:30:00";

/// The column of `header` in the first row.
fn col(rows: &[Vec<String>], header: &str) -> usize {
    rows[0]
        .iter()
        .position(|h| h == header)
        .unwrap_or_else(|| panic!("no column {header:?} in {:?}", rows[0]))
}

#[tokio::test]
async fn tasks_records_and_plans_are_written_in_their_stations_clock_which_each_row_states() {
    let s = site().await;
    s.app
        .exec(
            "UPDATE pv_station SET utc_offset_minutes = ? WHERE id = ?",
            vec![Value::Int(-720), Value::Int(int(&s.b))],
        )
        .await;
    let m = s.mgr();
    let i1 = item(&m, "Panels", &["Clean"]).await;
    // Early enough to be today or before in both clocks: each station gets a task.
    let start = today_at(-12) - chrono::Duration::days(1);
    let mut plans = Vec::new();
    for (name, stations) in [("Both", json!([s.a, s.b])), ("Only B", json!([s.b]))] {
        let p = m
            .post_data(
                "/api/inspectPlan",
                json!({"name": name, "stationIds": stations, "itemIds": [i1],
                    "maintenanceIds": [s.uid(1)], "cyclePeriod": "1", "alarmDay": 1,
                    "startDate": start.to_string(), "remark": ""}),
            )
            .await;
        plans.push(p["id"].as_str().expect("plan id").to_owned());
    }
    pass(&s.app).await;
    // One instant for every time written, so each row's text depends on its clock alone.
    for table in ["pv_inspect_plan", "pv_inspect_task"] {
        s.app
            .exec(
                &format!("UPDATE {table} SET create_time = ?"),
                vec![Value::Int(AT)],
            )
            .await;
    }

    // Plans: the one over B alone is in B's clock; the one over A and B keeps the hub's.
    let (status, _, bytes) = m.raw(Method::GET, "/api/inspectPlan/export-data").await;
    assert_eq!(status, 200);
    let rows = sheet(bytes, "巡检计划");
    let (created, clock) = (col(&rows, "创建时间"), col(&rows, "时钟"));
    let plan_row = |name: &str| {
        rows.iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("no plan {name}"))
            .clone()
    };
    assert_eq!(plan_row("Only B")[created], AT_B);
    assert_eq!(plan_row("Only B")[clock], "UTC-12:00");
    assert_eq!(plan_row("Both")[created], AT_HUB);
    assert_eq!(plan_row("Both")[clock], "UTC+08:00");

    // Tasks: each row in its own station's clock, A's and B's in one workbook.
    let (status, _, bytes) = m.raw(Method::GET, "/api/inspectTask/export-data").await;
    assert_eq!(status, 200);
    let rows = sheet(bytes, "巡检任务");
    let (station, generated, clock) = (col(&rows, "电站"), col(&rows, "生成时间"), col(&rows, "时钟"));
    let tasks = &rows[1..];
    assert!(tasks.iter().any(|r| r[station] == "Station A"), "{rows:?}");
    assert!(tasks.iter().any(|r| r[station] == "Station B"), "{rows:?}");
    for r in tasks {
        let (time, zone) = if r[station] == "Station B" {
            (AT_B, "UTC-12:00")
        } else {
            (AT_HUB, "UTC+08:00")
        };
        assert_eq!(r[generated], time, "{r:?}");
        assert_eq!(r[clock], zone, "{r:?}");
    }

    // A record of B, filled at the same instant: B's clock, also in English.
    let m2 = s.maint(1);
    let task = s
        .app
        .scalar_i64(
            "SELECT id FROM pv_inspect_task WHERE plan_id = ? ORDER BY due_date DESC LIMIT 1",
            vec![Value::Int(int(&plans[1]))],
        )
        .await
        .to_string();
    let d = m2.get_data(&format!("/api/inspectTask/{task}")).await;
    m2.post_data("/api/inspectRecord", answers(&task, &d, None, json!([])))
        .await;
    s.app
        .exec(
            "UPDATE pv_inspect_record SET filled_time = ?",
            vec![Value::Int(AT)],
        )
        .await;
    let (status, _, bytes) = m.raw(Method::GET, "/api/inspectRecord/export-data").await;
    assert_eq!(status, 200);
    let rows = sheet(bytes, "巡检记录");
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[1][col(&rows, "电站")], "Station B");
    assert_eq!(rows[1][col(&rows, "填写时间")], AT_B);
    assert_eq!(rows[1][col(&rows, "时钟")], "UTC-12:00");
    let (status, _, bytes) = m.en().raw(Method::GET, "/api/inspectRecord/export-data").await;
    assert_eq!(status, 200);
    let rows = sheet(bytes, "Inspection records");
    assert_eq!(rows[1][col(&rows, "Filled")], AT_B);
    assert_eq!(rows[1][col(&rows, "Clock")], "UTC-12:00");
}
