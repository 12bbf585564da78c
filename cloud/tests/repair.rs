//! Repair orders over the API on a real database: every allowed and every refused transition,
//! who may act, orders from alarms (and the alarm kept open while its order is), two people
//! accepting at once, deadlines and their messages, the bell's work items, scope (other tenants
//! and other maintenance users see and change nothing) and the figures.

mod support;

use std::time::Duration;

use futures_util::StreamExt;
use pv_cloud::alarm::store::{self, Raise};
use pv_cloud::kernel::sql::Value;
use serde_json::{Value as Json, json};
use support::{Client, TestApp, int, now_ms};

const T1: &str = "200001";
const T2: &str = "200002";
const H: i64 = 3_600_000;

const MANAGER_MENUS: &[&str] = &[
    "station",
    "station_add",
    "alarmData",
    "message",
    "repair",
    "repair_view",
    "repair_add",
    "repair_assign",
    "repair_accept",
    "repair_transfer",
    "repair_start",
    "repair_finish",
    "repair_verify",
    "repair_evaluate",
    "repair_cancel",
    "repair_setting",
];
const MAINTENANCE_MENUS: &[&str] = &[
    "alarmData",
    "message",
    "repair",
    "repair_view",
    "repair_add",
    "repair_accept",
    "repair_transfer",
    "repair_start",
    "repair_finish",
    "repair_cancel",
];
const OWNER_MENUS: &[&str] = &["repair", "repair_view", "repair_evaluate"];

struct Site {
    app: TestApp,
    mgr: String,
    mgr_id: i64,
    /// Maintenance users: m1 and m2 assigned station s1, m3 station s2.
    m1: String,
    m1_id: i64,
    m2: String,
    m2_id: i64,
    m3: String,
    /// Owner of s1 (s2 has none).
    owner: String,
    owner_id: i64,
    /// A manager of another tenant.
    other: String,
    s1: String,
    s2: String,
}

async fn assign_station(app: &TestApp, tenant: &str, user: i64, station: &str) {
    app.exec(
        "INSERT INTO pv_user_station (user_id, station_id, tenant_id) VALUES (?, ?, ?)",
        vec![Value::Int(user), Value::Int(int(station)), tenant.into()],
    )
    .await;
}

async fn site() -> Site {
    let app = TestApp::start().await;
    let (_, mgr_id) = app
        .create_tenant_user(T1, "mgr", "secret1", MANAGER_MENUS, None)
        .await;
    let mgr = app.token_of(T1, "mgr", "secret1").await;
    let s1 = app.as_user(&mgr).station("Station One").await;
    let s2 = app.as_user(&mgr).station("Station Two").await;
    let m1_id = app
        .user_with_alias(T1, "m1", "maintenance", MAINTENANCE_MENUS)
        .await;
    let m2_id = app
        .user_with_alias(T1, "m2", "maintenance", MAINTENANCE_MENUS)
        .await;
    let m3_id = app
        .user_with_alias(T1, "m3", "maintenance", MAINTENANCE_MENUS)
        .await;
    let owner_id = app.user_with_alias(T1, "owner1", "owner", OWNER_MENUS).await;
    assign_station(&app, T1, m1_id, &s1).await;
    assign_station(&app, T1, m2_id, &s1).await;
    assign_station(&app, T1, m3_id, &s2).await;
    assign_station(&app, T1, owner_id, &s1).await;
    app.create_tenant_user(T2, "mgr2", "secret1", MANAGER_MENUS, None)
        .await;
    let other = app.token_of(T2, "mgr2", "secret1").await;
    Site {
        m1: app.token_of(T1, "m1", "secret1").await,
        m2: app.token_of(T1, "m2", "secret1").await,
        m3: app.token_of(T1, "m3", "secret1").await,
        owner: app.token_of(T1, "owner1", "secret1").await,
        app,
        mgr,
        mgr_id,
        m1_id,
        m2_id,
        owner_id,
        other,
        s1,
        s2,
    }
}

fn fault(station: &str, kind: &str) -> Raise {
    Raise {
        tenant_id: T1.into(),
        station_id: int(station),
        device_id: 77,
        device_kind: "inverter".into(),
        device_name: "INV-7".into(),
        kind: kind.into(),
        category: "fault".into(),
        r#type: store::TYPE_FAULT,
        level: store::LEVEL_CRITICAL,
        code: "2001".into(),
        name: "直流过压".into(),
        name_en: "DC overvoltage".into(),
        detail: "直流电压 1100 V".into(),
        detail_en: "DC voltage 1100 V".into(),
        value: Some(1100.0),
        threshold: None,
        at: now_ms(),
    }
}

impl Site {
    fn as_(&self, token: &str) -> Client<'_> {
        self.app.as_user(token)
    }

    async fn raise(&self, kind: &str) -> String {
        store::raise(&self.app.state.alarm_ctx(), &fault(&self.s1, kind))
            .await
            .expect("raise")
            .id()
            .to_string()
    }

    async fn condition_ends(&self, kind: &str) -> Option<String> {
        store::clear_auto(&self.app.state.alarm_ctx(), T1, int(&self.s1), 77, kind, now_ms())
            .await
            .expect("clear")
            .map(|id| id.to_string())
    }

    /// A manual order at s1 by the manager; its id.
    async fn manual(&self) -> String {
        self.as_(&self.mgr)
            .post_json(
                "/api/repair",
                json!({"title": "Broken string", "description": "String 3 reads 0 A", "stationId": self.s1}),
            )
            .await
            .ok()
            .data()["id"]
            .as_str()
            .expect("id")
            .to_owned()
    }

    /// An order from a fresh alarm of kind `kind`; its id.
    async fn from_alarm(&self, kind: &str) -> (String, String) {
        let alarm = self.raise(kind).await;
        let order = self
            .as_(&self.mgr)
            .post_json("/api/repair", json!({"alarmId": alarm}))
            .await
            .ok()
            .data()["id"]
            .as_str()
            .expect("id")
            .to_owned();
        (order, alarm)
    }

    async fn act(&self, token: &str, action: &str, body: Json) -> support::Reply {
        self.as_(token)
            .post_json(&format!("/api/repair/{action}"), body)
            .await
    }

    /// Takes `action` on `order` as the person who may.
    async fn take(&self, order: &str, action: &str) -> support::Reply {
        let id = json!(order);
        match action {
            "assign" => {
                self.act(
                    &self.mgr,
                    "assign",
                    json!({"id": id, "assigneeId": self.m1_id.to_string()}),
                )
                .await
            }
            "accept" => self.act(&self.m1, "accept", json!({"id": id})).await,
            "transfer" => {
                self.act(
                    &self.mgr,
                    "transfer",
                    json!({"id": id, "assigneeId": self.m2_id.to_string(), "reason": "busy"}),
                )
                .await
            }
            "start" => {
                self.act(&self.m1, "start", json!({"id": id, "note": "on site"}))
                    .await
            }
            "finish" => {
                self.act(
                    &self.m1,
                    "finish",
                    json!({"id": id, "workDone": "Replaced fuse", "parts": "fuse 15 A"}),
                )
                .await
            }
            "verify" => self.act(&self.mgr, "verify", json!({"id": id})).await,
            "evaluate" => {
                self.act(
                    &self.owner,
                    "evaluate",
                    json!({"id": id, "rating": 5, "comment": "quick"}),
                )
                .await
            }
            "cancel" => {
                self.act(&self.mgr, "cancel", json!({"id": id, "reason": "duplicate"}))
                    .await
            }
            _ => unreachable!(),
        }
    }

    async fn status(&self, order: &str) -> i64 {
        self.app
            .scalar_i64(
                "SELECT status FROM pv_repair_order WHERE id = ?",
                vec![Value::Int(int(order))],
            )
            .await
    }

    async fn detail(&self, token: &str, order: &str) -> Json {
        self.as_(token).get_data(&format!("/api/repair/{order}")).await
    }

    /// An order from an alarm whose condition persists, brought to `status`.
    async fn order_in(&self, status: i64, kind: &str) -> String {
        let (order, _) = self.from_alarm(kind).await;
        let path: &[&str] = match status {
            1 => &[],
            2 => &["assign"],
            3 => &["assign", "accept"],
            4 => &["assign", "accept", "start"],
            5 => &["assign", "accept", "start", "finish"],
            6 => &["assign", "accept", "start", "finish", "verify"],
            7 => &["assign", "accept", "start", "finish", "verify", "evaluate"],
            8 => &["cancel"],
            _ => unreachable!(),
        };
        for a in path {
            self.take(&order, a).await.ok();
        }
        assert_eq!(self.status(&order).await, status);
        order
    }
}

/// (from, action, to) of the documented table.
const ALLOWED: &[(i64, &str, i64)] = &[
    (1, "assign", 2),
    (1, "cancel", 8),
    (2, "accept", 3),
    (2, "transfer", 2),
    (2, "cancel", 8),
    (3, "transfer", 2),
    (3, "start", 4),
    (3, "cancel", 8),
    (4, "finish", 5),
    (4, "cancel", 8),
    (5, "verify", 6),
    (6, "evaluate", 7),
];
const ACTIONS: [&str; 8] = [
    "assign", "accept", "transfer", "start", "finish", "verify", "evaluate", "cancel",
];

#[tokio::test]
async fn every_allowed_and_every_refused_transition() {
    let s = site().await;
    let mut n = 0;
    for status in 1..=8 {
        for action in ACTIONS {
            n += 1;
            let order = s.order_in(status, &format!("fault:t:{n}")).await;
            let logs_before = s
                .app
                .scalar_i64(
                    "SELECT COUNT(*) FROM pv_repair_log WHERE order_id = ?",
                    vec![Value::Int(int(&order))],
                )
                .await;
            let reply = s.take(&order, action).await;
            match ALLOWED.iter().find(|(f, a, _)| *f == status && *a == action) {
                Some((_, _, to)) => {
                    let reply = reply.ok();
                    assert_eq!(reply.data()["status"], *to, "{status} {action}");
                    assert_eq!(s.status(&order).await, *to);
                    let logs = reply.data()["logs"].as_array().cloned().unwrap_or_default();
                    assert_eq!(logs.last().expect("timeline")["action"], action);
                }
                None => {
                    let reply = reply.fails(400);
                    assert!(
                        reply.msg().contains("当前状态不允许该操作"),
                        "{status} {action}: {}",
                        reply.body
                    );
                    assert_eq!(
                        s.status(&order).await,
                        status,
                        "{status} {action} changed nothing"
                    );
                    let logs_after = s
                        .app
                        .scalar_i64(
                            "SELECT COUNT(*) FROM pv_repair_log WHERE order_id = ?",
                            vec![Value::Int(int(&order))],
                        )
                        .await;
                    assert_eq!(logs_before, logs_after);
                }
            }
        }
    }
}

#[tokio::test]
async fn who_may_act_and_what_they_see() {
    let s = site().await;
    let order = s.manual().await;
    let d = s.detail(&s.mgr, &order).await;
    assert_eq!(d["status"], 1);
    assert_eq!(d["code"].as_str().unwrap().len(), 14, "{d}");
    assert!(d["code"].as_str().unwrap().starts_with("WO"));
    assert_eq!(d["actions"], json!(["assign", "cancel"]));
    // A maintenance user cannot dispatch; only to maintenance staff who see the station.
    s.act(
        &s.m1,
        "assign",
        json!({"id": order, "assigneeId": s.m1_id.to_string()}),
    )
    .await
    .fails(403);
    s.act(
        &s.mgr,
        "assign",
        json!({"id": order, "assigneeId": s.owner_id.to_string()}),
    )
    .await
    .fails(400);
    // Assign also works as a GET with query parameters.
    s.as_(&s.mgr)
        .get_query(
            "/api/repair/assign",
            &[("id", &order), ("assigneeId", &s.m1_id.to_string())],
        )
        .await
        .ok();
    assert_eq!(
        s.detail(&s.m1, &order).await["actions"],
        json!(["accept", "transfer"])
    );
    assert_eq!(
        s.detail(&s.mgr, &order).await["actions"],
        json!(["transfer", "cancel"])
    );
    assert_eq!(s.detail(&s.owner, &order).await["actions"], json!([]));
    // Not the assignee: the other maintenance user, the owner, the dispatcher.
    for token in [&s.m2, &s.owner, &s.mgr] {
        s.act(token, "accept", json!({"id": order})).await.fails(403);
    }
    s.act(
        &s.m2,
        "transfer",
        json!({"id": order, "assigneeId": s.m2_id.to_string(), "reason": "mine"}),
    )
    .await
    .fails(403);
    s.act(&s.m1, "cancel", json!({"id": order, "reason": "no"}))
        .await
        .fails(403);
    // A reason is required to transfer.
    s.act(
        &s.m1,
        "transfer",
        json!({"id": order, "assigneeId": s.m2_id.to_string()}),
    )
    .await
    .fails(400);
    s.act(
        &s.m1,
        "transfer",
        json!({"id": order, "assigneeId": s.m2_id.to_string(), "reason": "on leave"}),
    )
    .await
    .ok();
    s.act(&s.m1, "accept", json!({"id": order})).await.fails(403);
    s.act(&s.m2, "accept", json!({"id": order})).await.ok();
    s.act(&s.m2, "start", json!({"id": order})).await.ok();
    s.act(&s.m2, "finish", json!({"id": order})).await.fails(400);
    let photo = s
        .as_(&s.m2)
        .upload_file(
            "/api/blade-resource/oss/endpoint/put-file",
            "fixed.png",
            b"\x89PNG fake".to_vec(),
        )
        .await
        .ok()
        .data()["link"]
        .as_str()
        .unwrap()
        .to_owned();
    s.act(
        &s.m2,
        "finish",
        json!({"id": order, "workDone": "x", "photos": ["http://elsewhere/x.png"]}),
    )
    .await
    .fails(400);
    // No alarm: verified at once, to be evaluated.
    let d = s
        .act(
            &s.m2,
            "finish",
            json!({"id": order, "workDone": "Fuse replaced", "photos": [photo]}),
        )
        .await
        .ok()
        .data();
    assert_eq!(d["status"], 6);
    assert_eq!(d["finishPhotos"], json!([photo]));
    // The station has an owner: only the owner evaluates.
    s.act(&s.mgr, "evaluate", json!({"id": order, "rating": 4}))
        .await
        .fails(403);
    s.act(&s.m2, "evaluate", json!({"id": order, "rating": 4}))
        .await
        .fails(403);
    s.act(&s.owner, "evaluate", json!({"id": order, "rating": 9}))
        .await
        .fails(400);
    let d = s
        .act(
            &s.owner,
            "evaluate",
            json!({"id": order, "rating": 4, "comment": "ok"}),
        )
        .await
        .ok()
        .data();
    assert_eq!((d["status"].clone(), d["rating"].clone()), (json!(7), json!(4)));
    let actions: Vec<&str> = d["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "create", "assign", "transfer", "accept", "start", "finish", "verify", "evaluate"
        ]
    );
    // The owner was told it awaited evaluation; the dispatcher that it was repaired.
    let messages = |user: i64, like: &'static str| {
        let app = &s.app;
        let order = order.clone();
        async move {
            app.scalar_i64(
                "SELECT COUNT(*) FROM pv_message WHERE user_id = ? AND biz_id = ? AND type = 4 AND title LIKE ?",
                vec![Value::Int(user), Value::Int(int(&order)), like.into()],
            )
            .await
        }
    };
    assert_eq!(messages(s.owner_id, "%待评价%").await, 1);
    assert_eq!(messages(s.mgr_id, "%已维修%").await, 1);
    assert_eq!(messages(s.m1_id, "%新维修工单%").await, 1);
    assert_eq!(messages(s.m2_id, "%新维修工单%").await, 1);

    // A station without owner: the dispatcher evaluates.
    let o2 = s
        .as_(&s.mgr)
        .post_json(
            "/api/repair",
            json!({"title": "Fence", "description": "Gate broken", "stationId": s.s2, "level": 1}),
        )
        .await
        .ok()
        .data()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // m1 does not see station 2: not assignable to it.
    s.act(
        &s.mgr,
        "assign",
        json!({"id": o2, "assigneeId": s.m1_id.to_string()}),
    )
    .await
    .fails(400);
    s.as_(&s.mgr).get(&format!("/api/repair/{o2}")).await.ok();
    s.as_(&s.m1).get(&format!("/api/repair/{o2}")).await.fails(404);
    s.act(&s.mgr, "cancel", json!({"id": o2})).await.fails(400);
    s.act(&s.mgr, "cancel", json!({"id": o2, "reason": "Wrong station"}))
        .await
        .ok();
}

#[tokio::test]
async fn an_order_from_an_alarm_keeps_it_open_until_completed() {
    let s = site().await;
    let alarm = s.raise("fault:a:1").await;
    let created = s
        .as_(&s.mgr)
        .post_json("/api/repair", json!({"alarmId": alarm}))
        .await
        .ok()
        .data();
    let order = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["stationId"], json!(s.s1));
    assert_eq!(created["deviceId"], json!("77"));
    assert_eq!(created["deviceName"], "INV-7");
    assert_eq!(
        (created["level"].clone(), created["alarmLevel"].clone()),
        (json!(4), json!(4))
    );
    assert_eq!(created["alarmName"], "直流过压");
    assert_eq!(created["description"], "直流电压 1100 V");
    assert_eq!(created["source"], "2");
    // Critical: respond within 1 h, repair within 8 h (defaults).
    let created_ms = pv_cloud::kernel::time::parse_ms(created["createTime"].as_str().unwrap()).unwrap();
    let repair_ms = pv_cloud::kernel::time::parse_ms(created["repairDeadline"].as_str().unwrap()).unwrap();
    assert_eq!(repair_ms - created_ms, 8 * H);
    // One open order per alarm: the second answers the first's id.
    let again = s
        .as_(&s.mgr)
        .post_json("/api/repair", json!({"alarmId": alarm}))
        .await;
    assert_eq!(again.status, 400, "{}", again.body);
    assert_eq!(again.body["data"], json!(order));
    assert!(again.msg().contains("该告警已有工单"));
    // The alarm shows its order.
    let a = s.as_(&s.mgr).get_data(&format!("/api/alarmData/{alarm}")).await;
    assert_eq!(
        (a["repairId"].clone(), a["repairStatus"].clone()),
        (json!(order), json!(1))
    );
    let page = s.as_(&s.mgr).get_data("/api/alarmData/page").await;
    assert_eq!(page["records"][0]["repairId"], json!(order));
    let plain = s.raise("fault:a:plain").await;
    let p = s.as_(&s.mgr).get_data(&format!("/api/alarmData/{plain}")).await;
    assert!(
        p.get("repairId").is_none() && p.get("repairStatus").is_none(),
        "{p}"
    );

    for a in ["assign", "accept", "start"] {
        s.take(&order, a).await.ok();
    }
    // The condition ends: the alarm stays open while the order is.
    assert_eq!(s.condition_ends("fault:a:1").await, None);
    let alarm_status = |id: String| {
        let app = &s.app;
        async move {
            app.scalar_i64(
                "SELECT status FROM pv_alarm WHERE id = ?",
                vec![Value::Int(int(&id))],
            )
            .await
        }
    };
    assert_eq!(alarm_status(alarm.clone()).await, 0);
    // Finished after the condition ended: verified at once; completed: the alarm closes.
    assert_eq!(s.take(&order, "finish").await.ok().data()["status"], 6);
    s.take(&order, "evaluate").await.ok();
    assert_eq!(alarm_status(alarm.clone()).await, 2);
    let a = s.as_(&s.mgr).get_data(&format!("/api/alarmData/{alarm}")).await;
    let code = s.detail(&s.mgr, &order).await["code"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(a["clearNote"].as_str().unwrap().contains(&code), "{a}");
    assert_eq!(a["repairStatus"], 7);

    // Repaired while the condition persists: 5, then 6 when the condition ends.
    let (o2, a2) = s.from_alarm("fault:a:2").await;
    for a in ["assign", "accept", "start"] {
        s.take(&o2, a).await.ok();
    }
    assert_eq!(s.take(&o2, "finish").await.ok().data()["status"], 5);
    assert_eq!(s.condition_ends("fault:a:2").await, None);
    assert_eq!(s.status(&o2).await, 6);
    let logs = s.detail(&s.mgr, &o2).await["logs"].clone();
    assert_eq!(logs.as_array().unwrap().last().unwrap()["userId"], "0");
    assert_eq!(alarm_status(a2.clone()).await, 0);
    s.take(&o2, "evaluate").await.ok();
    assert_eq!(alarm_status(a2).await, 2);

    // Verified by a dispatcher while the condition persists: completed, the alarm stays open;
    // a new order may then be opened for it.
    let (o3, a3) = s.from_alarm("fault:a:3").await;
    for a in ["assign", "accept", "start", "finish", "verify", "evaluate"] {
        s.take(&o3, a).await.ok();
    }
    assert_eq!(alarm_status(a3.clone()).await, 0);
    let o4 = s
        .as_(&s.mgr)
        .post_json("/api/repair", json!({"alarmId": a3}))
        .await
        .ok()
        .data()["id"]
        .clone();
    assert_ne!(o4, json!(o3));
    // The condition ended, then came back before completion: the alarm stays open.
    let (o5, a5) = s.from_alarm("fault:a:5").await;
    s.condition_ends("fault:a:5").await;
    s.raise("fault:a:5").await;
    for a in ["assign", "accept", "start", "finish", "verify", "evaluate"] {
        s.take(&o5, a).await.ok();
    }
    assert_eq!(alarm_status(a5).await, 0);
    // Without an order the condition's end closes the alarm as before.
    assert_eq!(s.condition_ends("fault:a:plain").await, Some(plain.clone()));
    assert_eq!(alarm_status(plain).await, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_accepting_at_once_exactly_one_wins() {
    let s = site().await;
    for round in 0..5 {
        let order = s.order_in(2, &format!("fault:c:{round}")).await;
        let body = json!({"id": order});
        let (a, b) = tokio::join!(
            s.act(&s.m1, "accept", body.clone()),
            s.act(&s.m1, "accept", body.clone())
        );
        let ok = [&a, &b].iter().filter(|r| r.status == 200).count();
        assert_eq!(ok, 1, "round {round}: {} / {}", a.body, b.body);
        let refused = if a.status == 200 { b } else { a };
        refused.fails(400);
        let accepts = s
            .app
            .scalar_i64(
                "SELECT COUNT(*) FROM pv_repair_log WHERE order_id = ? AND action = 'accept'",
                vec![Value::Int(int(&order))],
            )
            .await;
        assert_eq!(accepts, 1);
    }
}

#[tokio::test]
async fn deadlines_mark_overdue_and_message_once_each() {
    let s = site().await;
    // Settings: read by all, changed by holders of repair_setting not limited to stations.
    let setting = s.as_(&s.m1).get_data("/api/repair/setting").await;
    assert_eq!(setting["responseHours"]["4"], 1.0);
    s.as_(&s.m1)
        .put_json(
            "/api/repair/setting",
            json!({"responseHours": setting["responseHours"]}),
        )
        .await
        .fails(403);
    let bad = json!({"responseHours": {"1": 1, "2": 1, "3": 1, "4": 100}});
    s.as_(&s.mgr)
        .put_json("/api/repair/setting", bad)
        .await
        .fails(400);
    let changed = s
        .as_(&s.mgr)
        .put_json(
            "/api/repair/setting",
            json!({"repairHours": {"1": 100, "2": 72, "3": 24, "4": 2}}),
        )
        .await
        .ok()
        .data();
    assert_eq!(changed["repairHours"]["4"], 2.0);
    assert_eq!(changed["responseHours"]["4"], 1.0);
    let (order, _) = s.from_alarm("fault:d:1").await;
    let d = s.detail(&s.mgr, &order).await;
    let at = |k: &str| pv_cloud::kernel::time::parse_ms(d[k].as_str().unwrap()).unwrap();
    assert_eq!(at("repairDeadline") - at("createTime"), 2 * H);
    s.take(&order, "assign").await.ok();

    let ctx = s.app.state.alarm_ctx();
    assert_eq!(pv_cloud::repair::deadline::run_once(&ctx).await.unwrap(), 0);
    let past = now_ms() - 1000;
    s.app
        .exec(
            "UPDATE pv_repair_order SET response_deadline = ? WHERE id = ?",
            vec![Value::Int(past), Value::Int(int(&order))],
        )
        .await;
    assert_eq!(pv_cloud::repair::deadline::run_once(&ctx).await.unwrap(), 1);
    assert_eq!(
        pv_cloud::repair::deadline::run_once(&ctx).await.unwrap(),
        0,
        "once per deadline"
    );
    let d = s.detail(&s.mgr, &order).await;
    assert_eq!(
        (d["responseOverdue"].clone(), d["repairOverdue"].clone()),
        (json!(true), json!(false))
    );
    let overdue = s.as_(&s.mgr).get_data("/api/repair/page?overdue=true").await;
    assert_eq!(overdue["total"], 1);
    assert_eq!(overdue["records"][0]["id"], json!(order));
    s.app
        .exec(
            "UPDATE pv_repair_order SET repair_deadline = ? WHERE id = ?",
            vec![Value::Int(past), Value::Int(int(&order))],
        )
        .await;
    assert_eq!(pv_cloud::repair::deadline::run_once(&ctx).await.unwrap(), 1);
    assert_eq!(pv_cloud::repair::deadline::run_once(&ctx).await.unwrap(), 0);
    let count = |user: i64, like: &'static str| {
        let app = &s.app;
        let order = order.clone();
        async move {
            app.scalar_i64(
                "SELECT COUNT(*) FROM pv_message WHERE user_id = ? AND biz_id = ? AND title LIKE ?",
                vec![Value::Int(user), Value::Int(int(&order)), like.into()],
            )
            .await
        }
    };
    for user in [s.mgr_id, s.m1_id] {
        assert_eq!(count(user, "%响应超时%").await, 1);
        assert_eq!(count(user, "%维修超时%").await, 1);
    }
    assert_eq!(
        count(s.m2_id, "%超时%").await,
        0,
        "not his order, not a dispatcher"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bell_carries_work_items() {
    let s = site().await;
    let order = s.manual().await;
    s.take(&order, "assign").await.ok();
    let url = format!(
        "{}/ws/{}?token={}",
        s.app.base.replacen("http", "ws", 1),
        s.m1_id,
        s.m1
    );
    let mut bell = tokio_tungstenite::connect_async(url).await.expect("bell").0;
    let msg = tokio::time::timeout(Duration::from_secs(10), bell.next())
        .await
        .expect("a message")
        .expect("open")
        .expect("text");
    let msg: Json = serde_json::from_str(msg.to_text().unwrap()).unwrap();
    assert!(msg["data"].is_array() && msg["count"].is_i64(), "{msg}");
    assert_eq!(msg["workCount"], 1, "{msg}");
    let item = &msg["work"][0];
    assert_eq!(
        (item["type"].clone(), item["bizId"].clone()),
        (json!(4), json!(order))
    );
    assert!(item["title"].as_str().unwrap().contains("新维修工单"));
    assert!(item["date"].as_str().unwrap().contains('T'));
    // Reading it empties the bell's work list.
    let id = item["id"].as_str().unwrap().to_owned();
    s.as_(&s.m1)
        .post_json("/api/message/read", json!({"ids": [id]}))
        .await
        .ok();
    let next = tokio::time::timeout(Duration::from_secs(10), bell.next())
        .await
        .expect("a message after reading")
        .expect("open")
        .expect("text");
    let next: Json = serde_json::from_str(next.to_text().unwrap()).unwrap();
    assert_eq!(next["workCount"], 0, "{next}");
}

#[tokio::test]
async fn other_tenants_and_other_assignments_see_and_change_nothing() {
    let s = site().await;
    let order = s.order_in(2, "fault:x:1").await;
    for token in [&s.other, &s.m3] {
        s.as_(token).get(&format!("/api/repair/{order}")).await.fails(404);
        assert_eq!(s.as_(token).get_data("/api/repair/page").await["total"], 0);
        for action in ACTIONS {
            let body = json!({"id": order, "assigneeId": s.m2_id.to_string(), "reason": "r", "workDone": "w", "rating": 5});
            s.act(token, action, body).await.fails(404);
        }
        let stats = s.as_(token).get_data("/api/repair/stats").await;
        assert_eq!(stats["open"], 0);
    }
    assert_eq!(s.status(&order).await, 2);
    assert_eq!(
        s.app
            .scalar_i64(
                "SELECT COUNT(*) FROM pv_repair_log WHERE order_id = ?",
                vec![Value::Int(int(&order))]
            )
            .await,
        2
    );
    // Another tenant cannot open an order from this tenant's alarm or on its station.
    let alarm = s.raise("fault:x:2").await;
    s.as_(&s.other)
        .post_json("/api/repair", json!({"alarmId": alarm}))
        .await
        .fails(404);
    s.as_(&s.other)
        .post_json(
            "/api/repair",
            json!({"title": "t", "description": "d", "stationId": s.s1}),
        )
        .await
        .fails(404);
    // The owner sees his station's orders, the maintenance user of station 1 too; m1 (assignee)
    // would see it even off his stations.
    assert_eq!(s.as_(&s.owner).get_data("/api/repair/page").await["total"], 1);
    assert_eq!(
        s.as_(&s.m1).get_data("/api/repair/page?mine=true").await["total"],
        1
    );
    assert_eq!(
        s.as_(&s.m2).get_data("/api/repair/page?mine=true").await["total"],
        0
    );
    // An owner has no button to create.
    s.as_(&s.owner)
        .post_json(
            "/api/repair",
            json!({"title": "t", "description": "d", "stationId": s.s1}),
        )
        .await
        .fails(403);
}

#[tokio::test]
async fn stats_and_home_figures_by_hand() {
    let s = site().await;
    let now = now_ms();
    // Two orders at s2 (no owner: the dispatcher evaluates), repaired in 4 h and 2 h.
    let mut done = Vec::new();
    for _ in 0..2 {
        let id = s
            .as_(&s.mgr)
            .post_json(
                "/api/repair",
                json!({"title": "t", "description": "d", "stationId": s.s2}),
            )
            .await
            .ok()
            .data()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        done.push(id);
    }
    let m3_id = s
        .app
        .scalar_i64(
            "SELECT id FROM blade_user WHERE account = 'm3' AND tenant_id = ?",
            vec![T1.into()],
        )
        .await;
    for (id, hours) in done.iter().zip([4, 2]) {
        s.act(
            &s.mgr,
            "assign",
            json!({"id": id, "assigneeId": m3_id.to_string()}),
        )
        .await
        .ok();
        for a in ["accept", "start"] {
            s.act(&s.m3, a, json!({"id": id})).await.ok();
        }
        s.act(&s.m3, "finish", json!({"id": id, "workDone": "done"}))
            .await
            .ok();
        s.act(&s.mgr, "evaluate", json!({"id": id, "rating": 5}))
            .await
            .ok();
        s.app
            .exec(
                "UPDATE pv_repair_order SET create_time = ?, finish_time = ? WHERE id = ?",
                vec![
                    Value::Int(now - 10 * H),
                    Value::Int(now - 10 * H + hours * H),
                    Value::Int(int(id)),
                ],
            )
            .await;
    }
    // One open order at s1, past its response deadline; one canceled.
    let open = s.manual().await;
    s.app
        .exec(
            "UPDATE pv_repair_order SET response_deadline = ? WHERE id = ?",
            vec![Value::Int(now - H), Value::Int(int(&open))],
        )
        .await;
    let canceled = s.manual().await;
    s.take(&canceled, "cancel").await.ok();

    let stats = s.as_(&s.mgr).get_data("/api/repair/stats").await;
    assert_eq!(
        (
            stats["open"].clone(),
            stats["overdue"].clone(),
            stats["completed30d"].clone(),
            stats["mttrHours"].clone()
        ),
        (json!(1), json!(1), json!(2), json!(3.0)),
        "{stats}"
    );
    let stations = stats["stations"].as_array().unwrap();
    assert_eq!(stations.len(), 2);
    assert_eq!(stations[0]["stationName"], "Station One");
    assert_eq!(
        (stations[0]["open"].clone(), stations[0]["mttrHours"].clone()),
        (json!(1), Json::Null)
    );
    assert_eq!(
        (stations[1]["open"].clone(), stations[1]["mttrHours"].clone()),
        (json!(0), json!(3.0))
    );
    let one = s
        .as_(&s.mgr)
        .get_data(&format!("/api/repair/stats?stationId={}", s.s2))
        .await;
    assert_eq!(
        (one["open"].clone(), one["completed30d"].clone()),
        (json!(0), json!(2))
    );
    // The owner of s1 sees s1's figures only.
    let own = s.as_(&s.owner).get_data("/api/repair/stats").await;
    assert_eq!(
        (own["open"].clone(), own["mttrHours"].clone()),
        (json!(1), Json::Null)
    );
    let home = s.as_(&s.mgr).get_data("/api/homePage/data").await;
    assert_eq!(
        (
            home["repairOpen"].clone(),
            home["repairOverdue"].clone(),
            home["mttrHours"].clone()
        ),
        (json!(1), json!(1), json!(3.0))
    );
    let statuses = s.as_(&s.m1).en().get_data("/api/repair/statusList").await;
    assert_eq!(statuses.as_array().unwrap().len(), 8);
    assert_eq!(
        statuses[5],
        json!({"dictKey": "6", "dictValue": "To be evaluated"})
    );
}
