//! The alarm store over a real database: one open alarm per (station, device, kind), enforced by
//! the partial unique index; re-triggering updates it; clearing lets a new one open.

use crate::support;

use pv_cloud::alarm::store::{self, Raise, Raised};
use pv_cloud::kernel::sql::Value;
use support::{Reply, TestApp};

fn fault(at: i64) -> Raise {
    Raise {
        tenant_id: "000000".into(),
        station_id: 11,
        device_id: 22,
        device_kind: "inverter".into(),
        device_name: "INV-1".into(),
        kind: "fault:fault_code:2001".into(),
        category: "fault".into(),
        r#type: store::TYPE_FAULT,
        level: store::LEVEL_MAJOR,
        code: "2001".into(),
        name: "直流过压".into(),
        name_en: "DC overvoltage".into(),
        detail: String::new(),
        detail_en: String::new(),
        value: Some(2001.0),
        threshold: None,
        at,
    }
}

#[tokio::test]
async fn one_open_alarm_per_device_and_kind_retrigger_updates_clear_reopens() {
    let app = TestApp::start().await;
    let mut changes = app.state.alarms.changes.subscribe();
    let first = store::raise(&app.state.alarm_ctx(), &fault(1_000))
        .await
        .expect("raise");
    let Raised::New(id) = first else {
        panic!("new alarm expected, got {first:?}")
    };
    assert_eq!(
        changes.try_recv().ok().as_deref(),
        Some("000000"),
        "the tenant's feeds are woken"
    );
    let again = store::raise(
        &app.state.alarm_ctx(),
        &Raise {
            value: Some(2002.0),
            ..fault(2_000)
        },
    )
    .await
    .expect("re-trigger");
    assert_eq!(again, Raised::Updated(id));
    let (occ, last) = (
        app.scalar_int(
            "SELECT occurrences FROM pv_alarm WHERE id = ?",
            vec![Value::Int(id.0)],
        )
        .await,
        app.scalar_int(
            "SELECT last_time FROM pv_alarm WHERE id = ?",
            vec![Value::Int(id.0)],
        )
        .await,
    );
    assert_eq!((occ, last), (Some(2), Some(2_000)));
    // An older re-trigger (a replay) does not move last_time back.
    store::raise(&app.state.alarm_ctx(), &fault(1_500))
        .await
        .expect("replayed");
    assert_eq!(
        app.scalar_int(
            "SELECT last_time FROM pv_alarm WHERE id = ?",
            vec![Value::Int(id.0)]
        )
        .await,
        Some(2_000)
    );
    // The database itself refuses a second open row of the same kind.
    let dup = app.state.db.pool();
    let refused = sqlx::query(
        "INSERT INTO pv_alarm (id, tenant_id, station_id, device_id, device_kind, kind, category, type, \
         level, name, name_en, status, first_time, last_time, create_time) \
         VALUES (9, '000000', 11, 22, 'inverter', 'fault:fault_code:2001', 'fault', 1, 3, 'x', 'x', 1, 1, 1, 1)",
    )
    .execute(dup)
    .await;
    assert!(
        refused.is_err(),
        "second open alarm of one kind must violate ux_pv_alarm_open"
    );
    assert_eq!(
        store::open_kinds(&app.state.db, 11, 22).await.expect("open"),
        vec!["fault:fault_code:2001".to_owned()]
    );
    let cleared = store::clear_auto(
        &app.state.alarm_ctx(),
        "000000",
        11,
        22,
        "fault:fault_code:2001",
        3_000,
    )
    .await
    .expect("clear");
    assert_eq!(cleared, Some(id));
    assert_eq!(
        store::clear_auto(
            &app.state.alarm_ctx(),
            "000000",
            11,
            22,
            "fault:fault_code:2001",
            3_500
        )
        .await
        .expect("clear twice"),
        None
    );
    assert!(
        store::open_kinds(&app.state.db, 11, 22)
            .await
            .expect("open")
            .is_empty()
    );
    let reopened = store::raise(&app.state.alarm_ctx(), &fault(4_000))
        .await
        .expect("reopen");
    assert!(matches!(reopened, Raised::New(n) if n != id), "{reopened:?}");
    assert_eq!(
        app.scalar_int("SELECT COUNT(*) FROM pv_alarm WHERE station_id = 11", vec![])
            .await,
        Some(2)
    );
    assert_eq!(store::open_all(&app.state.db).await.expect("all").len(), 1);
    app.stop().await;
}

/// A removed device sends no sample that could end its condition: removing it (or its station)
/// through the API clears its open alarms, as the user who removed it, and leaves other
/// devices' alarms alone.
#[tokio::test]
async fn removing_a_device_or_its_station_clears_its_open_alarms() {
    use serde_json::json;
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("120001", "mgr").await);
    let Reply { body: s, .. } = t.post_json("/api/station", json!({"name": "清除测试"})).await;
    let station: i64 = s["data"].as_str().expect("station id").parse().expect("id");
    let mut inverters = Vec::new();
    for sn in ["RM-1", "RM-2"] {
        let Reply { status, body, .. } = t
            .post_json(
                "/api/inverter",
                json!({"stationId": station.to_string(), "name": sn, "sn": sn, "stringsCount": 8}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        inverters.push(
            app.scalar_int("SELECT id FROM pv_inverter WHERE sn = ?", vec![sn.into()])
                .await
                .expect("inverter"),
        );
    }
    for &device in &inverters {
        let r = Raise {
            tenant_id: "120001".into(),
            station_id: station,
            device_id: device,
            ..fault(1_000)
        };
        assert!(matches!(
            store::raise(&app.state.alarm_ctx(), &r).await.expect("raise"),
            Raised::New(_)
        ));
    }
    let open = |device: i64| {
        let app = &app;
        async move {
            app.scalar_int(
                "SELECT COUNT(*) FROM pv_alarm WHERE device_id = ? AND status < 2",
                vec![Value::Int(device)],
            )
            .await
            .unwrap_or(-1)
        }
    };
    let Reply { status, body, .. } = app
        .send(t.request(
            reqwest::Method::DELETE,
            &format!("/api/inverter/{}", inverters[0]),
        ))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        open(inverters[0]).await,
        0,
        "the removed inverter's alarm is cleared"
    );
    assert_eq!(
        open(inverters[1]).await,
        1,
        "the other inverter's alarm stays open"
    );
    let note = app
        .scalar_text(
            "SELECT clear_note FROM pv_alarm WHERE device_id = ?",
            vec![Value::Int(inverters[0])],
        )
        .await
        .unwrap_or_default();
    assert!(note.contains("removed"), "{note}");
    assert!(
        app.scalar_int(
            "SELECT clear_user FROM pv_alarm WHERE device_id = ?",
            vec![Value::Int(inverters[0])]
        )
        .await
        .unwrap_or(0)
            > 0,
        "cleared by the user who removed it"
    );
    let Reply { status, body, .. } = app
        .send(t.request(
            reqwest::Method::DELETE,
            &format!("/api/station/{station}?confirm=true"),
        ))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        open(inverters[1]).await,
        0,
        "the station's alarms are cleared with it"
    );
    app.stop().await;
}
