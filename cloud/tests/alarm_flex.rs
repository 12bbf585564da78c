//! Bracket (tracker) alarms over a real server and database: the rules (`/api/alarmSettingFlex`)
//! with their checks, permissions and station scope; the alarms they raised
//! (`/api/alarmDataFlex`); and the evaluator the engine calls, over rules saved through the API.

use crate::support;

use std::collections::BTreeMap;

use pv_cloud::alarm::flex::{self, DeviceRef};
use pv_cloud::alarm::store::{self, Raise};
use pv_cloud::kernel::Id;
use pv_cloud::kernel::sql::Value;
use pv_shared::wire::Value as WireValue;
use reqwest::Method;
use serde_json::{Value as Json, json};
use support::{Client, GATEWAY_MENUS, Reply, STATION_MENUS, TestApp, assert_failure, row_ids};

const FLEX_MENUS: &[&str] = &[
    "alarmSettingFlex",
    "alarmSettingFlex_add",
    "alarmSettingFlex_edit",
    "alarmSettingFlex_delete",
    "alarmDataFlex",
    "alarmDataFlex_view",
    "alarmDataFlex_delete",
];

/// A tenant user holding the station, bracket and bracket-alarm permissions; returns the token.
async fn manager(app: &TestApp, tenant: &str, account: &str) -> String {
    let menus: Vec<&str> = STATION_MENUS
        .iter()
        .chain(GATEWAY_MENUS)
        .chain(FLEX_MENUS)
        .copied()
        .collect();
    app.create_tenant_user(tenant, account, "secret1", &menus, None)
        .await;
    app.token_of(tenant, account, "secret1").await
}

async fn create_rule(caller: &Client<'_>, body: Json) -> String {
    let Reply {
        status, body: res, ..
    } = caller.post_json("/api/alarmSettingFlex", body).await;
    assert_eq!(status, 200, "{res}");
    res["data"].as_str().expect("rule id").to_owned()
}

/// A bracket-alarm manager of tenant 100001 with a tracker station (bracket TRK-1) and a fixed
/// one, and a valid rule form for the tracker station; returns (app, token, tracker station,
/// fixed station, rule form).
async fn rules_setup() -> (TestApp, String, String, String, Json) {
    let app = TestApp::start().await;
    let t = manager(&app, "100001", "mgr").await;
    let (s, _) = app
        .as_user(&t)
        .station_with_bracket("Tracker plant", "TRK-1")
        .await;
    let fixed = app.as_user(&t).station("Fixed plant").await;

    let good = json!({"stationId": s, "variable": "wind_speed", "comparison": ">", "threshold": 12,
        "durationSeconds": 30, "level": 3, "enabled": true, "remark": "gusts"});
    (app, t, s, fixed, good)
}

#[tokio::test]
async fn bracket_rule_variables_are_listed_in_the_callers_language() {
    let app = TestApp::start().await;
    let t = app.as_user(&manager(&app, "100001", "mgr").await);

    // The variables, in the caller's language.
    let vars = t.get_data("/api/alarmSettingFlex/listVariable").await;
    let wind = vars
        .as_array()
        .and_then(|v| v.iter().find(|v| v["key"] == "wind_speed"))
        .expect("wind speed listed");
    assert_eq!(
        (wind["name"].as_str(), wind["unit"].as_str()),
        (Some("风速"), Some("m/s"))
    );
    assert!(
        vars.as_array()
            .is_some_and(|v| v.iter().any(|v| v["key"] == "angle_deviation"))
    );
    let Reply { body: en, .. } = t.en().get("/api/alarmSettingFlex/listVariable").await;
    assert_eq!(en["data"][0]["name"], "Wind speed");

    app.stop().await;
}

#[tokio::test]
async fn bracket_rules_are_validated_in_both_languages_and_nothing_is_saved() {
    let (app, t, _s, fixed, good) = rules_setup().await;
    let with = |patch: Json| {
        let mut b = good.clone();
        for (k, v) in patch.as_object().cloned().unwrap_or_default() {
            b[k] = v;
        }
        b
    };
    for (bad, zh, en) in [
        (
            with(json!({"variable": "humidity"})),
            "监测变量无效：humidity",
            "Unknown variable humidity",
        ),
        (
            with(json!({"threshold": null})),
            "请输入阈值",
            "Please enter the threshold",
        ),
        (
            with(json!({"comparison": "inside", "thresholdHigh": 12})),
            "阈值上限必须大于阈值",
            "The upper threshold must be greater than the threshold",
        ),
        (
            with(json!({"comparison": "outside"})),
            "请输入阈值上限",
            "Please enter the upper threshold",
        ),
        (
            with(json!({"durationSeconds": -5})),
            "持续时间不能为负数",
            "The duration must not be negative",
        ),
        (
            with(json!({"level": 5})),
            "告警级别无效：5",
            "Invalid alarm level 5",
        ),
        (
            with(json!({"level": "0"})),
            "告警级别无效：0",
            "Invalid alarm level 0",
        ),
        (
            with(json!({"comparison": "≈"})),
            "比较方式无效：≈",
            "Unknown comparison ≈",
        ),
        (
            with(json!({"stationId": "424242"})),
            "电站不存在",
            "No such station",
        ),
        (
            with(json!({"stationId": fixed})),
            "该电站未配置柔性支架",
            "This station has no flexible bracket",
        ),
    ] {
        let Reply { status, body, .. } = app
            .as_user(&t)
            .post_json("/api/alarmSettingFlex", bad.clone())
            .await;
        assert_failure(status, &body, 400);
        assert_eq!(body["msg"], zh, "{bad}");
        let Reply { status, body, .. } = app
            .as_user(&t)
            .en()
            .post_json("/api/alarmSettingFlex", bad.clone())
            .await;
        assert_eq!(status, 400);
        assert!(
            body["msg"].as_str().is_some_and(|m| m.starts_with(en)),
            "{bad}: {body}"
        );
    }
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_alarm_setting_flex", vec![])
            .await,
        0,
        "nothing saved"
    );

    app.stop().await;
}

#[tokio::test]
async fn bracket_rules_are_created_read_paged_and_updated_field_by_field() {
    let (app, t, s, fixed, good) = rules_setup().await;
    // Create, read, page.
    let id = create_rule(&app.as_user(&t), good.clone()).await;
    let range = create_rule(
        &app.as_user(&t),
        json!({"stationId": s, "variable": "tracker_angle", "comparison": "outside", "threshold": "-50",
            "thresholdHigh": "50", "level": "2", "enabled": 0}),
    )
    .await;
    let d = app
        .as_user(&t)
        .get_data(&format!("/api/alarmSettingFlex/{id}"))
        .await;
    assert_eq!(d["stationId"], s.as_str());
    assert_eq!(d["stationName"], "Tracker plant");
    assert_eq!(d["variable"], "wind_speed");
    assert_eq!(d["variableName"], "风速");
    assert_eq!(d["comparison"], ">");
    assert_eq!(d["threshold"], 12.0);
    assert!(d["thresholdHigh"].is_null());
    assert_eq!(d["durationSeconds"], 30);
    assert_eq!(d["level"], 3);
    assert_eq!(d["enabled"], true);
    assert_eq!(d["remark"], "gusts");
    assert_eq!(d["ruleName"], "风速 > 12 m/s 持续 30 s");
    let Reply { body: en, .. } = app
        .as_user(&t)
        .en()
        .get(&format!("/api/alarmSettingFlex/{id}"))
        .await;
    assert_eq!(en["data"]["ruleName"], "Wind speed > 12 m/s for 30 s");
    assert_eq!(en["data"]["variableName"], "Wind speed");
    let r = app
        .as_user(&t)
        .get_data(&format!("/api/alarmSettingFlex/{range}"))
        .await;
    assert_eq!(
        (
            r["thresholdHigh"].as_f64(),
            r["enabled"].as_bool(),
            r["durationSeconds"].as_i64()
        ),
        (Some(50.0), Some(false), Some(0))
    );
    let page = app
        .as_user(&t)
        .get_data(&format!("/api/alarmSettingFlex/page?stationId={s}"))
        .await;
    assert_eq!(page["total"], 2);
    assert_eq!(
        row_ids(&page["records"]),
        vec![range.clone(), id.clone()],
        "newest first"
    );
    let page = app
        .as_user(&t)
        .get_data("/api/alarmSettingFlex/page?enabled=true&current=1&size=10")
        .await;
    assert_eq!(row_ids(&page["records"]), vec![id.clone()]);
    let page = app
        .as_user(&t)
        .get_data(&format!("/api/alarmSettingFlex/page?stationId={fixed}"))
        .await;
    assert_eq!(page["total"], 0);

    // Update: named fields change, the rest stay; the whole rule is checked again.
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json(
            "/api/alarmSettingFlex",
            json!({"id": id, "threshold": 15.5, "level": 4}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let d = app
        .as_user(&t)
        .get_data(&format!("/api/alarmSettingFlex/{id}"))
        .await;
    assert_eq!(
        (
            d["threshold"].as_f64(),
            d["level"].as_i64(),
            d["durationSeconds"].as_i64()
        ),
        (Some(15.5), Some(4), Some(30))
    );
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json("/api/alarmSettingFlex", json!({"id": id, "comparison": "inside"}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入阈值上限");
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json("/api/alarmSettingFlex", json!({"id": id, "stationId": fixed}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "该电站未配置柔性支架");
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json("/api/alarmSettingFlex", json!({"id": "999", "level": 1}))
        .await;
    assert_failure(status, &body, 404);

    app.stop().await;
}

#[tokio::test]
async fn readers_owners_and_other_tenants_cannot_see_or_change_bracket_rules() {
    let (app, t, s, _fixed, good) = rules_setup().await;
    let id = create_rule(&app.as_user(&t), good.clone()).await;
    let _range = create_rule(
        &app.as_user(&t),
        json!({"stationId": s, "variable": "tracker_angle", "comparison": "outside", "threshold": "-50",
            "thresholdHigh": "50", "level": "2", "enabled": 0}),
    )
    .await;
    app.as_user(&t)
        .put_json("/api/alarmSettingFlex", json!({"id": id, "level": 4}))
        .await
        .ok();
    // Buttons: a reader without them may read but not change.
    app.create_tenant_user("100001", "reader", "secret1", &["alarmSettingFlex"], None)
        .await;
    let reader = app.as_user(&app.token_of("100001", "reader", "secret1").await);
    assert_eq!(reader.get_data("/api/alarmSettingFlex/page").await["total"], 2);
    for (method, path, body) in [
        (
            Method::POST,
            "/api/alarmSettingFlex".to_owned(),
            Some(good.clone()),
        ),
        (
            Method::PUT,
            "/api/alarmSettingFlex".to_owned(),
            Some(json!({"id": id, "level": 1})),
        ),
        (Method::DELETE, format!("/api/alarmSettingFlex/{id}"), None),
    ] {
        let Reply {
            status, body: res, ..
        } = reader.send(method.clone(), &path, body).await;
        assert_failure(status, &res, 403);
    }

    // An owner sees only the stations assigned to them: none yet.
    app.user_with_alias("100001", "owner1", "owner", FLEX_MENUS).await;
    let owner = app.as_user(&app.token_of("100001", "owner1", "secret1").await);
    assert_eq!(owner.get_data("/api/alarmSettingFlex/page").await["total"], 0);
    let Reply { status, .. } = owner.get(&format!("/api/alarmSettingFlex/{id}")).await;
    assert_eq!(status, 404);
    let Reply { status, body, .. } = owner.post_json("/api/alarmSettingFlex", good.clone()).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "电站不存在");

    // Another tenant sees and changes nothing.
    let b = app.as_user(&manager(&app, "100002", "mgr_b").await);
    assert_eq!(b.get_data("/api/alarmSettingFlex/page").await["total"], 0);
    let Reply { status, .. } = b.get(&format!("/api/alarmSettingFlex/{id}")).await;
    assert_eq!(status, 404);
    let Reply { status, .. } = b
        .put_json("/api/alarmSettingFlex", json!({"id": id, "level": 1}))
        .await;
    assert_eq!(status, 404);
    let Reply { status, .. } = b.delete(&format!("/api/alarmSettingFlex/{id}")).await;
    assert_eq!(status, 404);
    let Reply { status, body, .. } = b.post_json("/api/alarmSettingFlex", good.clone()).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "电站不存在");
    assert_eq!(
        app.as_user(&t)
            .get_data(&format!("/api/alarmSettingFlex/{id}"))
            .await["level"],
        4,
        "untouched"
    );

    app.stop().await;
}

#[tokio::test]
async fn removed_bracket_rules_leave_the_reads_but_stay_in_the_table() {
    let (app, t, s, _fixed, good) = rules_setup().await;
    let id = create_rule(&app.as_user(&t), good.clone()).await;
    let range = create_rule(
        &app.as_user(&t),
        json!({"stationId": s, "variable": "tracker_angle", "comparison": "outside", "threshold": "-50",
            "thresholdHigh": "50", "level": "2", "enabled": 0}),
    )
    .await;
    // Delete (comma-joined ids): gone from reads, kept in the table for old alarms' names.
    let Reply { status, body, .. } = app
        .as_user(&t)
        .delete(&format!("/api/alarmSettingFlex/{id},{range}"))
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, .. } = app.as_user(&t).get(&format!("/api/alarmSettingFlex/{id}")).await;
    assert_eq!(status, 404);
    assert_eq!(
        app.as_user(&t).get_data("/api/alarmSettingFlex/page").await["total"],
        0
    );
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM pv_alarm_setting_flex WHERE is_deleted = 1",
            vec![]
        )
        .await,
        2
    );
    let Reply { status, .. } = app
        .as_user(&t)
        .delete(&format!("/api/alarmSettingFlex/{id}"))
        .await;
    assert_eq!(status, 404, "already removed");

    app.stop().await;
}

#[tokio::test]
async fn the_bracket_alarm_calls_are_in_the_openapi_document() {
    let app = TestApp::start().await;
    // Every call is described.
    let Reply { body: doc, .. } = app.get("/api/openapi.json").await;
    for p in [
        "/api/alarmSettingFlex/listVariable",
        "/api/alarmSettingFlex/page",
        "/api/alarmSettingFlex",
        "/api/alarmSettingFlex/{id}",
        "/api/alarmDataFlex/page",
        "/api/alarmDataFlex/{id}",
    ] {
        assert!(
            doc["paths"].get(p).is_some(),
            "{p} missing from the OpenAPI document"
        );
    }
    app.stop().await;
}

fn raise_of(tenant: &str, station: i64, device: i64, kind: &str, at: i64) -> Raise {
    Raise {
        tenant_id: tenant.into(),
        station_id: station,
        device_id: device,
        device_kind: "flex".into(),
        device_name: "Row 1".into(),
        kind: kind.into(),
        category: "flex".into(),
        r#type: store::TYPE_FAULT,
        level: store::LEVEL_MAJOR,
        code: "wind_speed".into(),
        name: "风速 > 12 m/s 持续 30 s".into(),
        name_en: "Wind speed > 12 m/s for 30 s".into(),
        detail: "当前值 13 m/s".into(),
        detail_en: "Value 13 m/s".into(),
        value: Some(13.0),
        threshold: Some(12.0),
        at,
    }
}

/// What the alarm-data tests read: tenant 100001's manager with two tracker stations and a wind
/// rule; on the first bracket an alarm raised and cleared at 10:00 and one open from 11:00, on
/// the second an alarm of a rule never stored, plus a fault of the first bracket and another
/// tenant's bracket alarm (neither is listed).
struct Alarms {
    app: TestApp,
    t: String,
    s: String,
    station_id: i64,
    device: i64,
    rule: String,
    t0: i64,
    cleared: Id,
    open: Id,
    orphan: Id,
}

async fn alarms() -> Alarms {
    let app = TestApp::start().await;
    let t = manager(&app, "100001", "mgr").await;
    let (s, flex_id) = app
        .as_user(&t)
        .station_with_bracket("Tracker plant", "TRK-1")
        .await;
    let (s2, flex2) = app
        .as_user(&t)
        .station_with_bracket("Second plant", "TRK-2")
        .await;
    let (station_id, device) = (s.parse::<i64>().expect("id"), flex_id);
    let (station2, device2) = (s2.parse::<i64>().expect("id"), flex2);
    let rule = create_rule(
        &app.as_user(&t),
        json!({"stationId": s, "variable": "wind_speed", "comparison": ">", "threshold": 12,
            "durationSeconds": 30, "level": 3}),
    )
    .await;

    let t0 = pv_cloud::kernel::time::parse_ms("2026-05-01 10:00:00").expect("time");
    let cleared = store::raise(
        &app.state.alarm_ctx(),
        &raise_of("100001", station_id, device, &format!("flex:{rule}"), t0),
    )
    .await
    .expect("raise")
    .id();
    store::clear_auto(
        &app.state.alarm_ctx(),
        "100001",
        station_id,
        device,
        &format!("flex:{rule}"),
        t0 + 60_000,
    )
    .await
    .expect("clear");
    let open = store::raise(
        &app.state.alarm_ctx(),
        &raise_of(
            "100001",
            station_id,
            device,
            &format!("flex:{rule}"),
            t0 + 3_600_000,
        ),
    )
    .await
    .expect("raise")
    .id();
    // Another station's alarm from a rule that no longer exists, and alarms that are not the
    // brackets': neither a fault of the same device nor another tenant's show.
    let orphan = store::raise(
        &app.state.alarm_ctx(),
        &raise_of("100001", station2, device2, "flex:123", t0 + 7_200_000),
    )
    .await
    .expect("raise")
    .id();
    store::raise(
        &app.state.alarm_ctx(),
        &Raise {
            kind: "fault:fault_word1:0".into(),
            category: "fault".into(),
            ..raise_of("100001", station_id, device, "", t0)
        },
    )
    .await
    .expect("raise fault");
    store::raise(
        &app.state.alarm_ctx(),
        &raise_of("100002", 777, 778, &format!("flex:{rule}"), t0),
    )
    .await
    .expect("raise other tenant");

    Alarms {
        app,
        t,
        s,
        station_id,
        device,
        rule,
        t0,
        cleared,
        open,
        orphan,
    }
}

#[tokio::test]
async fn bracket_alarms_are_paged_newest_first_with_their_rule_and_only_the_tenants_brackets() {
    let Alarms {
        app,
        t,
        s,
        device,
        rule,
        cleared,
        open,
        orphan,
        ..
    } = alarms().await;
    let page = app.as_user(&t).get_data("/api/alarmDataFlex/page").await;
    assert_eq!(page["total"], 3, "{page}");
    assert_eq!(
        row_ids(&page["records"]),
        vec![orphan.to_string(), open.to_string(), cleared.to_string()],
        "newest lastTime first"
    );
    let rec = &page["records"][1];
    assert_eq!(rec["stationId"], s.as_str());
    assert_eq!(rec["stationName"], "Tracker plant");
    assert_eq!(rec["deviceId"], device.to_string());
    assert_eq!(rec["deviceName"], "Row 1");
    assert_eq!(rec["inverter"], "Row 1");
    assert_eq!(rec["kind"], format!("flex:{rule}"));
    assert_eq!(rec["category"], "flex");
    assert_eq!(rec["type"], 1);
    assert_eq!(rec["level"], 3);
    assert_eq!(rec["warningName"], "风速 > 12 m/s 持续 30 s");
    assert_eq!(rec["detail"], "当前值 13 m/s");
    assert_eq!(
        (rec["value"].as_f64(), rec["threshold"].as_f64()),
        (Some(13.0), Some(12.0))
    );
    assert_eq!(
        (rec["status"].as_i64(), rec["statusName"].as_str()),
        (Some(0), Some("未处理"))
    );
    assert_eq!(rec["firstTime"], "2026-05-01 11:00:00");
    assert_eq!(rec["occurrences"], 1);
    assert_eq!(rec["settingId"], rule.as_str());
    assert_eq!(rec["variable"], "wind_speed");
    assert_eq!(rec["variableName"], "风速");
    assert_eq!(rec["comparison"], ">");
    assert!(page["records"][0]["variable"].is_null(), "a rule never stored");
    let done = &page["records"][2];
    assert_eq!(done["statusName"], "已清除");
    assert_eq!(done["clearUserName"], "系统");
    assert_eq!(done["clearTime"], "2026-05-01 10:01:00");

    app.stop().await;
}

#[tokio::test]
async fn bracket_alarm_pages_filter_by_station_status_and_time_in_both_languages() {
    let Alarms {
        app,
        t,
        s,
        cleared,
        open,
        ..
    } = alarms().await;
    // Filters.
    let only = |q: &str| {
        let path = format!("/api/alarmDataFlex/page?{q}");
        let app = &app;
        let t = &t;
        async move { row_ids(&app.as_user(t).get_data(&path).await["records"]) }
    };
    assert_eq!(
        only(&format!("stationId={s}")).await,
        vec![open.to_string(), cleared.to_string()]
    );
    assert_eq!(only("status=2").await, vec![cleared.to_string()]);
    assert_eq!(
        only("startTime=2026-05-01%2010:30:00&endTime=2026-05-01%2011:30:00").await,
        vec![open.to_string()]
    );
    assert_eq!(
        only("startTime=2026-05-01%2009:00:00&endTime=2026-05-01%2010:00:00").await,
        vec![cleared.to_string()],
        "seen within the window, bounds included"
    );
    assert_eq!(only("endTime=2026-05-01%2009:59:59").await, Vec::<String>::new());
    let Reply { status, body, .. } = app
        .as_user(&t)
        .get("/api/alarmDataFlex/page?startTime=yesterday")
        .await;
    assert_failure(status, &body, 400);
    let Reply { body: en, .. } = app
        .as_user(&t)
        .en()
        .get(&format!("/api/alarmDataFlex/page?stationId={s}"))
        .await;
    assert_eq!(
        en["data"]["records"][0]["warningName"],
        "Wind speed > 12 m/s for 30 s"
    );
    assert_eq!(en["data"]["records"][0]["variableName"], "Wind speed");
    assert_eq!(en["data"]["records"][1]["clearUserName"], "system");
    assert_eq!(en["data"]["records"][1]["statusName"], "Cleared");

    app.stop().await;
}

#[tokio::test]
async fn a_bracket_alarm_detail_shows_only_the_tenants_bracket_alarms() {
    let Alarms { app, t, open, .. } = alarms().await;
    // Detail.
    let d = app
        .as_user(&t)
        .get_data(&format!("/api/alarmDataFlex/{open}"))
        .await;
    assert_eq!(
        (d["id"].as_str(), d["comparison"].as_str()),
        (Some(open.to_string().as_str()), Some(">"))
    );
    let other_tenant_alarm = app
        .scalar_int("SELECT id FROM pv_alarm WHERE tenant_id = '100002'", vec![])
        .await
        .expect("other alarm");
    for path in [
        format!("/api/alarmDataFlex/{other_tenant_alarm}"),
        "/api/alarmDataFlex/1".to_owned(),
    ] {
        let Reply { status, body, .. } = app.as_user(&t).get(&path).await;
        assert_failure(status, &body, 404);
    }
    let fault_id = app
        .scalar_int("SELECT id FROM pv_alarm WHERE category = 'fault'", vec![])
        .await
        .expect("fault");
    let Reply { status, .. } = app
        .as_user(&t)
        .get(&format!("/api/alarmDataFlex/{fault_id}"))
        .await;
    assert_eq!(status, 404, "not a bracket alarm");

    app.stop().await;
}

#[tokio::test]
async fn only_cleared_bracket_alarms_are_deleted_and_only_with_the_button() {
    let Alarms {
        app,
        t,
        station_id,
        device,
        rule,
        t0,
        cleared,
        open,
        ..
    } = alarms().await;
    let other_tenant_alarm = app
        .scalar_int("SELECT id FROM pv_alarm WHERE tenant_id = '100002'", vec![])
        .await
        .expect("other alarm");
    // Delete: an open alarm is refused, in both languages; a cleared one goes.
    let Reply { status, body, .. } = app
        .as_user(&t)
        .delete(&format!("/api/alarmDataFlex/{open}"))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请先清除告警");
    let Reply { status, body, .. } = app
        .as_user(&t)
        .en()
        .delete(&format!("/api/alarmDataFlex/{open}"))
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("Clear the alarm first"))
    );
    let Reply { status, body, .. } = app
        .as_user(&t)
        .delete(&format!("/api/alarmDataFlex/{cleared},{open}"))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_alarm WHERE category = 'flex'", vec![])
            .await,
        4,
        "nothing deleted when one is open"
    );
    // Without the button, or from another tenant, nothing goes either.
    app.create_tenant_user("100001", "reader", "secret1", &["alarmDataFlex"], None)
        .await;
    let reader = app.as_user(&app.token_of("100001", "reader", "secret1").await);
    assert_eq!(reader.get_data("/api/alarmDataFlex/page").await["total"], 3);
    let Reply { status, body, .. } = reader.delete(&format!("/api/alarmDataFlex/{cleared}")).await;
    assert_failure(status, &body, 403);
    let b = app.as_user(&manager(&app, "100002", "mgr_b").await);
    let Reply { status, .. } = b.delete(&format!("/api/alarmDataFlex/{cleared}")).await;
    assert_eq!(status, 404);
    let page_b = b.get_data("/api/alarmDataFlex/page").await;
    assert_eq!(row_ids(&page_b["records"]), vec![other_tenant_alarm.to_string()]);
    assert!(
        page_b["records"][0]["variable"].is_null(),
        "another tenant's rule is not resolved"
    );

    let Reply { status, body, .. } = app
        .as_user(&t)
        .delete(&format!("/api/alarmDataFlex/{cleared}"))
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, .. } = app
        .as_user(&t)
        .get(&format!("/api/alarmDataFlex/{cleared}"))
        .await;
    assert_eq!(status, 404);
    // Once cleared, the other can go too.
    store::clear_auto(
        &app.state.alarm_ctx(),
        "100001",
        station_id,
        device,
        &format!("flex:{rule}"),
        t0 + 3_700_000,
    )
    .await
    .expect("clear");
    let Reply { status, body, .. } = app
        .as_user(&t)
        .delete(&format!("/api/alarmDataFlex/{open}"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        app.as_user(&t).get_data("/api/alarmDataFlex/page").await["total"],
        1
    );
    app.stop().await;
}

fn values(pairs: &[(&str, f64)]) -> BTreeMap<String, WireValue> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), WireValue::Number(*v)))
        .collect()
}

/// The evaluator's world: tenant 100001's tracker station with its bracket (`device`), and
/// rules saved through the API: `wind` (> 12 m/s for 30 s), `lag` (deviation >= 5), `off`
/// (motor current, disabled), and a rule of a second station that never applies here.
struct Evaluator {
    app: TestApp,
    t: String,
    station_id: i64,
    device: DeviceRef,
    ts: i64,
    wind: String,
    lag: String,
    off: String,
}

async fn evaluator() -> Evaluator {
    let app = TestApp::start().await;
    let t = manager(&app, "100001", "mgr").await;
    let (s, flex_id) = app
        .as_user(&t)
        .station_with_bracket("Tracker plant", "TRK-1")
        .await;
    let (s2, _) = app
        .as_user(&t)
        .station_with_bracket("Second plant", "TRK-2")
        .await;
    let station_id: i64 = s.parse().expect("id");
    let device = DeviceRef {
        device_id: flex_id,
        tenant_id: "100001".into(),
        station_id,
        kind: "flex",
        name: "Tracker plant row".into(),
    };
    let ts = pv_cloud::kernel::time::now_ms();

    let wind = create_rule(
        &app.as_user(&t),
        json!({"stationId": s, "variable": "wind_speed", "comparison": ">", "threshold": 12,
            "durationSeconds": 30, "level": 3}),
    )
    .await;
    let lag = create_rule(&app.as_user(&t), json!({"stationId": s, "variable": "angle_deviation", "comparison": ">=", "threshold": 5, "level": 2}))
    .await;
    let off = create_rule(
        &app.as_user(&t),
        json!({"stationId": s, "variable": "motor_current", "comparison": ">", "threshold": 0, "level": 4,
            "enabled": false}),
    )
    .await;
    // Another station's rule never applies to this bracket.
    create_rule(
        &app.as_user(&t),
        json!({"stationId": s2, "variable": "wind_speed", "comparison": ">", "threshold": 0, "level": 1}),
    )
    .await;

    Evaluator {
        app,
        t,
        station_id,
        device,
        ts,
        wind,
        lag,
        off,
    }
}

#[tokio::test]
async fn the_evaluator_applies_the_enabled_rules_of_the_brackets_own_station_only() {
    let Evaluator {
        app,
        device,
        ts,
        wind,
        lag,
        off,
        ..
    } = evaluator().await;
    let calm = flex::conditions(
        &app.state.alarm_ctx(),
        &device,
        ts,
        &values(&[("wind_speed", 12.0), ("motor_current", 3.0)]),
    )
    .await;
    assert!(calm.is_empty(), "{calm:?}");
    let mut seen = flex::conditions(
        &app.state.alarm_ctx(),
        &device,
        ts,
        &values(&[
            ("wind_speed", 14.5),
            ("tracker_angle", 20.0),
            ("tracker_target_angle", 25.0),
            ("motor_current", 3.0),
        ]),
    )
    .await;
    seen.sort_by(|a, b| a.kind.cmp(&b.kind));
    let mut expected = vec![format!("flex:{wind}"), format!("flex:{lag}")];
    expected.sort();
    assert_eq!(
        seen.iter().map(|c| c.kind.clone()).collect::<Vec<_>>(),
        expected,
        "the disabled rule ({off}) and the other station's stay silent"
    );
    let w = seen
        .iter()
        .find(|c| c.kind == format!("flex:{wind}"))
        .expect("wind");
    assert_eq!(
        (w.category, w.r#type, w.level, w.hold_ms),
        ("flex", store::TYPE_FAULT, 3, 30_000)
    );
    assert_eq!((w.value, w.threshold), (Some(14.5), Some(12.0)));
    assert_eq!(w.name, "风速 > 12 m/s 持续 30 s");
    assert_eq!(w.name_en, "Wind speed > 12 m/s for 30 s");
    let l = seen
        .iter()
        .find(|c| c.kind == format!("flex:{lag}"))
        .expect("lag");
    assert_eq!((l.level, l.hold_ms, l.value), (2, 0, Some(5.0)));

    // Not a bracket, or another tenant's device id on this station: nothing.
    let inverter = DeviceRef {
        kind: "inverter",
        ..device.clone()
    };
    assert!(
        flex::conditions(
            &app.state.alarm_ctx(),
            &inverter,
            ts,
            &values(&[("wind_speed", 30.0)])
        )
        .await
        .is_empty()
    );
    let stranger = DeviceRef {
        tenant_id: "100002".into(),
        ..device.clone()
    };
    assert!(
        flex::conditions(
            &app.state.alarm_ctx(),
            &stranger,
            ts,
            &values(&[("wind_speed", 30.0)])
        )
        .await
        .is_empty()
    );

    app.stop().await;
}

#[tokio::test]
async fn rule_edits_reach_the_evaluator_at_the_next_sample() {
    let Evaluator {
        app,
        t,
        device,
        ts,
        wind,
        off,
        ..
    } = evaluator().await;
    // Edits apply at the next sample (the API drops the cache).
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json("/api/alarmSettingFlex", json!({"id": wind, "threshold": 20}))
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json("/api/alarmSettingFlex", json!({"id": off, "enabled": true}))
        .await;
    assert_eq!(status, 200, "{body}");
    let kinds = |c: Vec<pv_cloud::alarm::condition::Condition>| {
        let mut k: Vec<String> = c.into_iter().map(|c| c.kind).collect();
        k.sort();
        k
    };
    assert_eq!(
        kinds(
            flex::conditions(
                &app.state.alarm_ctx(),
                &device,
                ts,
                &values(&[("wind_speed", 14.5), ("motor_current", 3.0)]),
            )
            .await
        ),
        vec![format!("flex:{off}")]
    );

    app.stop().await;
}

#[tokio::test]
async fn disabling_or_removing_a_rule_clears_its_open_alarm_at_once() {
    let Evaluator {
        app,
        t,
        wind,
        station_id,
        device,
        ts,
        lag,
        off,
        ..
    } = evaluator().await;
    // The wind threshold raised to 20 and the motor-current rule switched on, as edited.
    for edit in [
        json!({"id": wind, "threshold": 20}),
        json!({"id": off, "enabled": true}),
    ] {
        app.as_user(&t).put_json("/api/alarmSettingFlex", edit).await.ok();
    }
    // Disabling or removing a rule clears its open alarm at once.
    let open = store::raise(
        &app.state.alarm_ctx(),
        &raise_of("100001", station_id, device.device_id, &format!("flex:{off}"), ts),
    )
    .await
    .expect("raise")
    .id();
    let lag_open = store::raise(
        &app.state.alarm_ctx(),
        &raise_of("100001", station_id, device.device_id, &format!("flex:{lag}"), ts),
    )
    .await
    .expect("raise")
    .id();
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json("/api/alarmSettingFlex", json!({"id": off, "enabled": false}))
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, body, .. } = app
        .as_user(&t)
        .delete(&format!("/api/alarmSettingFlex/{lag}"))
        .await;
    assert_eq!(status, 200, "{body}");
    for id in [open, lag_open] {
        assert_eq!(
            app.scalar_int("SELECT status FROM pv_alarm WHERE id = ?", vec![Value::Int(id.0)])
                .await,
            Some(store::STATUS_CLEARED),
            "{id:?}"
        );
    }
    assert!(
        flex::conditions(
            &app.state.alarm_ctx(),
            &device,
            ts,
            &values(&[
                ("wind_speed", 14.5),
                ("motor_current", 3.0),
                ("tracker_angle", 0.0),
                ("tracker_target_angle", 30.0),
            ]),
        )
        .await
        .is_empty()
    );
    app.stop().await;
}
