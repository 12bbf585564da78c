//! The repair tests' shared site: two tenants, stations, dispatcher, maintenance staff, owner, and helpers.

use crate::support::{self, Client, TestApp, int, now_ms};
use pv_cloud::alarm::store::{self, Raise};
use pv_cloud::kernel::sql::Value;
use serde_json::{Value as Json, json};

pub const T1: &str = "200001";
pub const T2: &str = "200002";
pub const H: i64 = 3_600_000;

pub const MANAGER_MENUS: &[&str] = &[
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
pub const MAINTENANCE_MENUS: &[&str] = &[
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
pub const OWNER_MENUS: &[&str] = &["repair", "repair_view", "repair_evaluate"];

pub struct Site {
    pub app: TestApp,
    pub mgr: String,
    pub mgr_id: i64,
    /// Maintenance users: m1 and m2 assigned station s1, m3 station s2.
    pub m1: String,
    pub m1_id: i64,
    pub m2: String,
    pub m2_id: i64,
    pub m3: String,
    /// Owner of s1 (s2 has none).
    pub owner: String,
    pub owner_id: i64,
    /// A manager of another tenant.
    pub other: String,
    pub s1: String,
    pub s2: String,
}

pub async fn assign_station(app: &TestApp, tenant: &str, user: i64, station: &str) {
    app.exec(
        "INSERT INTO pv_user_station (user_id, station_id, tenant_id) VALUES (?, ?, ?)",
        vec![Value::Int(user), Value::Int(int(station)), tenant.into()],
    )
    .await;
}

pub async fn site() -> Site {
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

pub fn fault(station: &str, kind: &str) -> Raise {
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
    pub fn as_(&self, token: &str) -> Client<'_> {
        self.app.as_user(token)
    }

    pub async fn raise(&self, kind: &str) -> String {
        store::raise(&self.app.state.alarm_ctx(), &fault(&self.s1, kind))
            .await
            .expect("raise")
            .id()
            .to_string()
    }

    pub async fn condition_ends(&self, kind: &str) -> Option<String> {
        store::clear_auto(&self.app.state.alarm_ctx(), T1, int(&self.s1), 77, kind, now_ms())
            .await
            .expect("clear")
            .map(|id| id.to_string())
    }

    /// A manual order at s1 by the manager; its id.
    pub async fn manual(&self) -> String {
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
    pub async fn order_from_alarm(&self, kind: &str) -> (String, String) {
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

    pub async fn act(&self, token: &str, action: &str, body: Json) -> support::Reply {
        self.as_(token)
            .post_json(&format!("/api/repair/{action}"), body)
            .await
    }

    /// Takes `action` on `order` as the person who may.
    pub async fn take(&self, order: &str, action: &str) -> support::Reply {
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

    pub async fn status(&self, order: &str) -> i64 {
        self.app
            .scalar_i64(
                "SELECT status FROM pv_repair_order WHERE id = ?",
                vec![Value::Int(int(order))],
            )
            .await
    }

    pub async fn detail(&self, token: &str, order: &str) -> Json {
        self.as_(token).get_data(&format!("/api/repair/{order}")).await
    }

    /// An order from an alarm whose condition persists, brought to `status`.
    pub async fn order_in(&self, status: i64, kind: &str) -> String {
        let (order, _) = self.order_from_alarm(kind).await;
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
pub const ALLOWED: &[(i64, &str, i64)] = &[
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
pub const ACTIONS: [&str; 8] = [
    "assign", "accept", "transfer", "start", "finish", "verify", "evaluate", "cancel",
];
