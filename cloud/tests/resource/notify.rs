//! Notifications that reach people: a fault on a simulated inverter goes to the subscribed
//! maintainer as one SMS (the mock Aliyun server checks its signature) and one e-mail (aiosmtpd);
//! quiet hours hold all but critical alarms, low levels and held ones go out in one digest; a
//! provider outage loses nothing and sends each message once when it is back; two hubs on one
//! database deliver each message once. The deliverer's passes run at instants the test chooses
//! (its `now`), so quiet hours and the digest need no waiting.

use pv_cloud::alarm::message::{WorkMessage, create_for_alarm, create_for_users};
use pv_cloud::alarm::store::Raise;
use pv_cloud::kernel::Id;
use pv_cloud::kernel::sql::Value;
use pv_cloud::notify::deliver::{Pass, run_once};
use pv_cloud::notify::events;
use serde_json::json;

use super::sms::{SECRET, start_mock};
use crate::support::pytools::Smtpd;
use crate::support::{TestApp, eventually, local_midnight, local_today};

const PHONE: &str = "13900000007";
const EMAIL: &str = "maint@pv.test";
const HOUR: i64 = 3_600_000;
const T: std::time::Duration = std::time::Duration::from_secs(10);

/// Tomorrow 12:00 at +08:00 (the hub's clock): later than any row the test writes.
fn tomorrow_noon() -> i64 {
    local_midnight(local_today()) + 36 * HOUR
}

fn mail_config(port: u16) -> impl FnOnce(&mut pv_cloud::config::Config) {
    move |c| {
        c.mail.host = "127.0.0.1".into();
        c.mail.port = port;
        c.mail.security = "none".into();
        c.mail.from = "光伏运维 <noreply@pv.test>".into();
    }
}

/// An enabled Aliyun configuration of `tenant` sending to the mock.
async fn aliyun(app: &TestApp, tenant: &str, url: &str) {
    let sealed = app.state.resources.seal(SECRET).expect("seal");
    app.exec(
        "INSERT INTO blade_sms (id, tenant_id, category, sms_code, template_id, access_key, secret_key, \
         sign_name, endpoint, status, create_time, is_deleted) VALUES (?, ?, 1, 'ali', 'SMS_ALARM', \
         'LTAI-test', ?, '光伏运维', ?, 2, 0, 0)",
        vec![
            Value::Int(app.state.ids.next().0),
            Value::from(tenant),
            Value::from(sealed),
            Value::from(format!("{url}/aliyun")),
        ],
    )
    .await;
}

async fn pass(app: &TestApp, now: i64) -> Pass {
    run_once(&app.state.resource_ctx(), now).await.expect("pass")
}

fn raise(tenant: &str, station: i64, level: i64, name: &str) -> Raise {
    Raise {
        tenant_id: tenant.into(),
        station_id: station,
        device_id: 1,
        device_kind: "inverter".into(),
        device_name: "INV-0".into(),
        kind: format!("fault:test:{name}"),
        category: "fault".into(),
        r#type: 1,
        level,
        code: "9".into(),
        name: name.into(),
        name_en: name.into(),
        detail: format!("{name} detail"),
        detail_en: format!("{name} detail"),
        value: None,
        threshold: None,
        at: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fault_reaches_the_maintainer_by_one_sms_and_one_email_quiet_hours_hold_all_but_critical_and_a_digest_follows()
 {
    let mock = start_mock().await;
    let smtpd = Smtpd::start();
    let (s, mut g) = crate::alarm::site_with(mail_config(smtpd.port)).await;
    let app = &s.app.app;
    app.exec(
        "UPDATE blade_user SET phone = ?, email = ? WHERE id = ?",
        vec![Value::from(PHONE), Value::from(EMAIL), Value::Int(s.manager_id)],
    )
    .await;
    aliyun(app, "100001", &mock.url).await;
    // The maintainer's settings are the defaults: faults from minor up by SMS and e-mail, quiet
    // from 22:00 to 07:00, below major in the 08:00 digest.
    let mine = app
        .as_user(&s.manager)
        .get_data("/api/blade-resource/notify/setting")
        .await;
    assert_eq!(
        (mine["quietStart"].as_i64(), mine["digestBelow"].as_i64()),
        (Some(1320), Some(3))
    );
    let raised = &mine["events"][0];
    assert_eq!(
        (
            raised["event"].as_str(),
            raised["sms"].as_bool(),
            raised["email"].as_bool()
        ),
        (Some("alarm_raised"), Some(true), Some(true))
    );

    // Sungrow fault code 2, "Grid overvoltage", major.
    let ts = crate::support::now_ms() - 60_000;
    g.publish("S1", &[(ts, vec![("ac_power", 5000.0), ("fault_code", 0.0)])])
        .await;
    g.publish(
        "S1",
        &[(ts + 5_000, vec![("ac_power", 0.0), ("fault_code", 2.0)])],
    )
    .await;
    let queued = || async {
        app.scalar_i64("SELECT COUNT(*) FROM pv_notify_outbox", vec![])
            .await
    };
    assert!(
        eventually(T, || async { queued().await == 2 }).await,
        "{}",
        queued().await
    );
    // Written with the bell message, in one transaction.
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM pv_message WHERE user_id = ?",
            vec![Value::Int(s.manager_id)]
        )
        .await,
        1
    );

    let noon = tomorrow_noon();
    assert_eq!(
        pass(app, noon).await,
        Pass {
            sent: 2,
            ..Pass::default()
        }
    );
    let (who, phones, params) = mock.nth(1).await;
    assert_eq!((who.as_str(), phones), ("aliyun", vec![PHONE.to_owned()]));
    assert_eq!(params["title"], "INV-0：电网过压");
    let mails = smtpd.wait_for(1).await;
    assert!(mails[0].contains(&format!("To: {EMAIL}")), "{}", mails[0]);
    // Sent once: the next pass has nothing to do.
    assert_eq!(pass(app, noon + 60_000).await, Pass::default());
    assert_eq!((mock.taken().len(), smtpd.messages().len()), (1, 1));

    // A minor alarm (Sungrow 17, "Grid voltage unbalance") waits for the digest even by day.
    g.publish("S1", &[(ts + 10_000, vec![("fault_code", 17.0)])])
        .await;
    assert!(
        eventually(T, || async { queued().await == 4 }).await,
        "{}",
        queued().await
    );
    assert_eq!(
        pass(app, noon + 120_000).await,
        Pass {
            held: 2,
            ..Pass::default()
        }
    );

    // At 23:30 a major alarm waits, a critical one goes out at once.
    let station: i64 = s.station.parse().expect("station id");
    let core = &app.state.core;
    create_for_alarm(
        core,
        Id(core.ids.next().0),
        &raise("100001", station, 3, "Major at night"),
    )
    .await
    .expect("major");
    create_for_alarm(
        core,
        Id(core.ids.next().0),
        &raise("100001", station, 4, "Critical at night"),
    )
    .await
    .expect("critical");
    let night = noon + 11 * HOUR + 30 * 60_000;
    assert_eq!(
        pass(app, night).await,
        Pass {
            sent: 2,
            held: 2,
            ..Pass::default()
        }
    );
    let (_, _, params) = mock.nth(2).await;
    assert_eq!(params["title"], "INV-0：Critical at night");
    assert_eq!(smtpd.wait_for(2).await.len(), 2);

    // Still quiet at 06:30: no digest. At 08:05, one e-mail gathers the minor and the major.
    assert_eq!(pass(app, night + 7 * HOUR).await, Pass::default());
    assert_eq!(
        pass(app, night + 8 * HOUR + 35 * 60_000).await,
        Pass {
            sent: 1,
            digests: 1,
            ..Pass::default()
        }
    );
    let mails = smtpd.wait_for(3).await;
    assert_eq!(mails.len(), 3);
    assert_eq!(mock.taken().len(), 2, "the digest is an e-mail, no SMS");
    let digest = mails
        .iter()
        .find(|m| m.contains("Major at night"))
        .expect("the digest e-mail");
    assert!(digest.contains("INV-0"), "{digest}");
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_notify_outbox WHERE status = 5", vec![])
            .await,
        4,
        "the two held alarms, by SMS and e-mail each, went into the digest"
    );

    // The log: administrators of the tenant see who got what, where and how it went.
    let log = app
        .as_user(&s.manager)
        .get("/api/blade-resource/notify/log/list?current=1&size=50")
        .await;
    assert_eq!(log.status, 403, "the log needs the notifyLog menu");
    let admin = app.as_admin().await;
    let all = admin
        .get_data("/api/blade-resource/notify/log/list?size=50")
        .await;
    assert_eq!(all["total"], 0, "another tenant's log is not the platform's");
}

#[tokio::test]
async fn settings_are_the_callers_own_and_a_provider_outage_sends_each_message_once_after_it_returns() {
    let mock = start_mock().await;
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    app.exec(
        "UPDATE blade_user SET phone = ? WHERE account = 'admin'",
        vec![Value::from(PHONE)],
    )
    .await;
    aliyun(&app, "000000", &mock.url).await;
    let uid = app
        .scalar_i64("SELECT id FROM blade_user WHERE account = 'admin'", vec![])
        .await;

    // SMS only for repair orders given to the admin; no quiet hours.
    let mut mine = admin.get_data("/api/blade-resource/notify/setting").await;
    mine["quietEnabled"] = json!(0);
    mine["events"] =
        json!([{"event": "repair_assigned", "bell": true, "sms": true, "email": false, "minLevel": 1}]);
    admin
        .post_json("/api/blade-resource/notify/setting", mine.clone())
        .await
        .ok();
    mine["digestHour"] = json!(25);
    admin
        .post_json("/api/blade-resource/notify/setting", mine)
        .await
        .fails(400);
    let saved = admin.get_data("/api/blade-resource/notify/setting").await;
    assert_eq!(saved["quietEnabled"], 0);
    let assigned = saved["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "repair_assigned")
        .unwrap()
        .clone();
    assert_eq!(
        (assigned["sms"].as_bool(), assigned["email"].as_bool()),
        (Some(true), Some(false))
    );

    let order = |n: i64| WorkMessage {
        tenant_id: "000000",
        r#type: 4,
        event: events::REPAIR_ASSIGNED,
        biz_id: Id(n),
        title: "新维修工单 R-1",
        title_en: "New repair order R-1",
        content: "Inverter INV-0 stopped",
        content_en: "Inverter INV-0 stopped",
    };
    create_for_users(&app.state.core, &[uid], &order(1))
        .await
        .expect("queued");

    mock.down.store(true, std::sync::atomic::Ordering::SeqCst);
    let noon = tomorrow_noon();
    assert_eq!(
        pass(&app, noon).await,
        Pass {
            retrying: 1,
            ..Pass::default()
        }
    );
    let (attempts, next) = (
        app.scalar_i64("SELECT attempts FROM pv_notify_outbox", vec![])
            .await,
        app.scalar_i64("SELECT next_time FROM pv_notify_outbox", vec![])
            .await,
    );
    assert_eq!(
        (attempts, next),
        (1, noon + 30_000),
        "backoff: 30 s after the first try"
    );
    // Not yet due; then due but still down: the wait doubles.
    assert_eq!(pass(&app, noon + 10_000).await, Pass::default());
    assert_eq!(
        pass(&app, noon + 30_000).await,
        Pass {
            retrying: 1,
            ..Pass::default()
        }
    );
    assert_eq!(
        app.scalar_i64("SELECT next_time FROM pv_notify_outbox", vec![])
            .await,
        noon + 90_000
    );
    mock.down.store(false, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(
        pass(&app, noon + 90_000).await,
        Pass {
            sent: 1,
            ..Pass::default()
        }
    );
    assert_eq!(pass(&app, noon + 10 * 60_000).await, Pass::default());
    assert_eq!(mock.taken().len(), 1, "sent once");
    assert_eq!(mock.taken()[0].2["title"], "新维修工单 R-1");

    let log = admin
        .get_data("/api/blade-resource/notify/log/list?channel=sms")
        .await;
    assert_eq!(log["total"], 1, "{log}");
    let row = &log["records"][0];
    assert_eq!(
        (
            row["status"].as_i64(),
            row["attempts"].as_i64(),
            row["address"].as_str(),
            row["result"].as_str()
        ),
        (Some(2), Some(3), Some("139****0007"), Some("ok"))
    );
    assert_eq!(row["account"], "admin");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hubs_on_one_database_send_each_message_once() {
    let mock = start_mock().await;
    let a = TestApp::start().await;
    let b = a.replica(|_| {}).await;
    a.exec(
        "UPDATE blade_user SET phone = ? WHERE account = 'admin'",
        vec![Value::from(PHONE)],
    )
    .await;
    aliyun(&a, "000000", &mock.url).await;
    let uid = a
        .scalar_i64("SELECT id FROM blade_user WHERE account = 'admin'", vec![])
        .await;
    let titles: Vec<String> = (0..24).map(|i| format!("工单 R-{i} 维修超时")).collect();
    for (i, t) in titles.iter().enumerate() {
        // Overdue orders escalate: urgent, whatever the hour.
        let m = WorkMessage {
            tenant_id: "000000",
            r#type: 4,
            event: events::REPAIR_OVERDUE,
            biz_id: Id(i as i64 + 1),
            title: t,
            title_en: t,
            content: t,
            content_en: t,
        };
        create_for_users(&a.state.core, &[uid], &m).await.expect("queued");
    }
    let now = tomorrow_noon();
    let (pa, pb) = tokio::join!(pass(&a, now), pass(&b, now));
    assert_eq!(pa.sent + pb.sent, 24, "{pa:?} {pb:?}");
    let mut got: Vec<String> = mock
        .taken()
        .iter()
        .map(|(_, _, p)| p["title"].as_str().unwrap_or_default().to_owned())
        .collect();
    got.sort();
    let mut want = titles.clone();
    want.sort();
    assert_eq!(got, want, "each message once");
    let (pa, pb) = tokio::join!(pass(&a, now + HOUR), pass(&b, now + HOUR));
    assert_eq!((pa, pb), (Pass::default(), Pass::default()));
}
