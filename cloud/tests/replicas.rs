//! Two hubs on one database, as two replicas behind a balancer would run: what one replica
//! changes, the other honours at once. The bell rings on replica B for a fault raised on replica
//! A (cluster signals over PostgreSQL LISTEN/NOTIFY, surviving a dropped listener connection);
//! a captcha issued by A is checked by B; a session signed out on A is refused by B; a rate limit
//! spent on A counts on B; a menu grant or an API scope made on A applies on B at once.
//!
//! Signals and shared rate limits exist on PostgreSQL only (a SQLite file has one hub, see
//! `kernel::cluster`); on SQLite those tests check that nothing is sent, and the database-backed
//! parts (captchas, sessions, menus) are checked on both.

use crate::support;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use pv_cloud::kernel::cluster::Signal;
use pv_cloud::kernel::sql::Value;
use pv_shared::wire::TelemetryBatch;
use reqwest::Method;
use serde_json::{Value as Json, json};
use support::{
    BASIC_SABER, GatewayClient, IngestApp, Reply, TestApp, assert_failure, eventually, is_postgres, md5_hex,
    now_ms, sample,
};

const T: Duration = Duration::from_secs(10);
const TENANT: &str = "100001";
const ALARM_MENUS: &[&str] = &["alarmData", "alarmData_handle", "message", "intelligentWarning"];

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn ws_url(app: &TestApp, user: i64, token: &str) -> String {
    format!("{}/ws/{user}?token={token}", app.base.replacen("http", "ws", 1))
}

/// The next feed message within `limit`.
async fn next_feed(socket: &mut Socket, limit: Duration) -> Option<Json> {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, socket.next()).await {
            Ok(Some(Ok(m))) if m.is_text() => return serde_json::from_str(m.to_text().ok()?).ok(),
            Ok(Some(Ok(_))) => continue,
            _ => return None,
        }
    }
}

/// Waits (at most `limit`) for a feed message listing `count` alarms.
async fn feed_with(socket: &mut Socket, count: i64, limit: Duration) -> Option<Json> {
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        let msg = next_feed(socket, left).await?;
        if msg["count"] == count {
            return Some(msg);
        }
    }
}

/// The backend pid of a replica's listener connection (named after its cluster origin).
async fn listener_pid(app: &TestApp) -> Option<i64> {
    app.scalar_int(
        "SELECT CAST(pid AS BIGINT) FROM pg_stat_activity WHERE application_name = ?",
        vec![Value::from(format!("pv-cluster-{}", app.state.cluster.origin()))],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fault_raised_on_one_replica_rings_the_bell_of_a_browser_on_another() {
    // Replica A owns the gateway: broker, ingest and alarm engine. Replica B only serves HTTP.
    let a = IngestApp::start(|_| {}).await;
    let b = a.app.replica(|_| {}).await;
    if !is_postgres() {
        assert!(
            !a.app.state.cluster.is_shared() && !b.state.cluster.is_shared(),
            "SQLite: a hub alone with its file sends no signals"
        );
        return;
    }
    let menus: Vec<&str> = support::STATION_MENUS
        .iter()
        .chain(support::GATEWAY_MENUS)
        .chain(ALARM_MENUS)
        .copied()
        .collect();
    let (_, manager_id) = a
        .app
        .create_tenant_user(TENANT, "mgr", "secret1", &menus, None)
        .await;
    let manager = a.app.token_of(TENANT, "mgr", "secret1").await;
    let (_, pw) = a.provision(&manager, "GW-1", &["S1", "S2"]).await;
    let mut gw = GatewayClient::connect(a.gateway_addr, "GW-1", Some(("GW-1", &pw)), None)
        .await
        .expect("gateway signs in to replica A");

    // The browser signed in through replica B (its token is honoured by both).
    let token_b = b.token_of(TENANT, "mgr", "secret1").await;
    let mut bell_b = tokio_tungstenite::connect_async(ws_url(&b, manager_id, &token_b))
        .await
        .expect("bell on replica B")
        .0;
    let mut bell_a = tokio_tungstenite::connect_async(ws_url(&a.app, manager_id, &manager))
        .await
        .expect("bell on replica A")
        .0;
    for bell in [&mut bell_b, &mut bell_a] {
        let first = next_feed(bell, T).await.expect("initial list");
        assert_eq!(first["count"], 0, "{first}");
    }

    let mut seq = 0;
    let mut publish = async |device: &str, ts: i64, metrics: Vec<(&str, f64)>| {
        seq += 1;
        let batch = TelemetryBatch::new("GW-1", false, vec![sample(seq, device, ts, &metrics)]);
        gw.send(&batch).await;
        gw.ack_within(T).await.expect("stored and acknowledged");
    };
    let ts = now_ms() - 60_000;
    publish("S1", ts, vec![("ac_power", 5000.0), ("fault_code", 0.0)]).await;
    let raised = Instant::now();
    // Sungrow fault code 2: grid overvoltage.
    publish("S1", ts + 5_000, vec![("ac_power", 0.0), ("fault_code", 2.0)]).await;
    let msg = feed_with(&mut bell_b, 1, T).await.expect("B's bell rings");
    let took = raised.elapsed();
    assert!(took < Duration::from_secs(2), "B's bell after {took:?}");
    assert_eq!(msg["data"][0]["warningName"], "电网过压", "{msg}");
    assert_eq!(msg["data"][0]["inverter"], "INV-0", "{msg}");
    // A's own bell rings once for the raise: its own signal does not come back as a second wake.
    feed_with(&mut bell_a, 1, T).await.expect("A's bell rings");
    assert!(
        next_feed(&mut bell_a, Duration::from_millis(800)).await.is_none(),
        "replica A delivered its own raise twice"
    );

    // The listener connection of B dies (a network cut, a server restart of that backend): B
    // dials again, re-reads, and the next fault on A still rings B's bell.
    let mut signals_b = b.state.cluster.subscribe();
    let before = listener_pid(&b).await.expect("B listens");
    let killed = a
        .app
        .scalar_int(
            "SELECT CASE WHEN pg_terminate_backend(CAST(? AS INTEGER)) THEN CAST(1 AS BIGINT) ELSE CAST(0 AS BIGINT) END",
            vec![Value::Int(before)],
        )
        .await;
    assert_eq!(killed, Some(1), "listener backend terminated");
    let back = eventually(T, || async {
        listener_pid(&b).await.is_some_and(|p| p != before)
    })
    .await;
    assert!(back, "B listens again on a new connection");
    // Other replicas' changes (A's live values) may still be in flight ahead of the resync.
    let mut seen = Vec::new();
    let resync = tokio::time::timeout(T, async {
        loop {
            match signals_b.recv().await {
                Ok(Signal::Resync) => return true,
                Ok(other) => seen.push(format!("{other:?}")),
                Err(e) => {
                    seen.push(format!("{e:?}"));
                    return false;
                }
            }
        }
    })
    .await;
    assert!(
        matches!(resync, Ok(true)),
        "B re-reads after reconnecting: {resync:?}, signals before: {seen:?}"
    );
    // The resync itself wakes B's bell (nothing changed: still one alarm).
    let again = next_feed(&mut bell_b, T).await.expect("resync re-read");
    assert_eq!(again["count"], 1, "{again}");
    let raised = Instant::now();
    publish("S2", ts + 6_000, vec![("ac_power", 5000.0), ("fault_code", 0.0)]).await;
    publish("S2", ts + 10_000, vec![("ac_power", 0.0), ("fault_code", 2.0)]).await;
    feed_with(&mut bell_b, 2, T)
        .await
        .expect("B's bell rings after its listener came back");
    assert!(
        raised.elapsed() < Duration::from_secs(3),
        "{:?}",
        raised.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_hears_the_others_signals_and_never_its_own() {
    let a = TestApp::start().await;
    let b = a.replica(|_| {}).await;
    if !is_postgres() {
        assert!(!a.state.cluster.is_shared() && !b.state.cluster.is_shared());
        return;
    }
    let mut heard_a = a.state.cluster.subscribe();
    let mut heard_b = b.state.cluster.subscribe();
    a.state.cluster.publish("test", "from-a");
    b.state.cluster.publish("test", "from-b");
    let on_a = tokio::time::timeout(T, heard_a.recv())
        .await
        .expect("A hears")
        .expect("signal");
    let on_b = tokio::time::timeout(T, heard_b.recv())
        .await
        .expect("B hears")
        .expect("signal");
    let changed = |key: &str| Signal::Changed {
        topic: "test".into(),
        key: key.into(),
    };
    assert_eq!(on_a, changed("from-b"));
    assert_eq!(on_b, changed("from-a"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(heard_a.try_recv().is_err(), "A never hears itself");
    assert!(heard_b.try_recv().is_err(), "B never hears itself");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_captcha_issued_by_one_replica_is_accepted_by_another() {
    let a = TestApp::start().await;
    let b = a.replica(|_| {}).await;
    let Reply { status, body, .. } = a.get("/api/blade-auth/oauth/captcha").await;
    assert_eq!(status, 200, "{body}");
    let key = body["key"].as_str().expect("key").to_owned();
    let answer = a
        .scalar_text(
            "SELECT answer FROM blade_captcha WHERE captcha_key = ?",
            vec![key.clone().into()],
        )
        .await
        .expect("answer stored");
    let pw = md5_hex("admin");
    let params = [
        ("tenantId", "000000"),
        ("username", "admin"),
        ("password", pw.as_str()),
        ("grant_type", "captcha"),
    ];
    let Reply { status, body, .. } = b
        .token_call(&params, &[("Captcha-Key", &key), ("Captcha-Code", &answer)])
        .await;
    assert_eq!(status, 200, "B accepts A's captcha: {body}");
    assert!(body["access_token"].is_string(), "{body}");
    // Used up everywhere, A included.
    let Reply { status, .. } = a
        .token_call(&params, &[("Captcha-Key", &key), ("Captcha-Code", &answer)])
        .await;
    assert_eq!(status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_signed_out_on_one_replica_is_refused_by_another() {
    let a = TestApp::start().await;
    let b = a.replica(|_| {}).await;
    let token = a.token_of("000000", "admin", "admin").await;
    let routes = "/api/blade-system/menu/routes";
    let Reply { status, .. } = b.send(b.as_user(&token).request(Method::GET, routes)).await;
    assert_eq!(status, 200, "B honours A's token");
    let Reply { status, body, .. } = a
        .send(
            a.as_user(&token)
                .request(Method::GET, "/api/blade-auth/oauth/logout"),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, body, .. } = b.send(b.as_user(&token).request(Method::GET, routes)).await;
    assert_failure(status, &body, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_spent_on_one_replica_counts_on_another() {
    let quota = |c: &mut pv_cloud::config::Config| {
        c.limits.captcha = pv_cloud::config::RateQuota {
            burst: 3,
            per_minute: 1,
        };
    };
    let a = TestApp::start_configured(quota).await;
    let b = a.replica(quota).await;
    let captcha = |app: &TestApp| {
        app.client
            .get(app.url("/api/blade-auth/oauth/captcha"))
            .header("Authorization", BASIC_SABER)
            .send()
    };
    for (i, app) in [&a, &a, &b].into_iter().enumerate() {
        let status = captcha(app).await.expect("answer").status().as_u16();
        assert_eq!(status, 200, "call {i} within the quota");
    }
    let refused_on_b = captcha(&b).await.expect("answer");
    let refused_on_a = captcha(&a).await.expect("answer");
    if is_postgres() {
        for (who, r) in [("B", refused_on_b), ("A", refused_on_a)] {
            assert_eq!(r.status().as_u16(), 429, "{who}: the quota is spent cluster-wide");
            let wait: u64 = r
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok())
                .expect("Retry-After");
            assert!((1..=60).contains(&wait), "{wait}");
        }
    } else {
        // SQLite: each hub counts its own (there is one hub per file): B has spent 2 of its 3,
        // A 3 of its 3.
        assert_eq!(refused_on_b.status().as_u16(), 200);
        assert_eq!(refused_on_a.status().as_u16(), 200);
        assert_eq!(captcha(&a).await.expect("answer").status().as_u16(), 429);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn menus_and_api_scopes_changed_on_one_replica_apply_on_another_at_once() {
    let a = TestApp::start().await;
    let b = a.replica(|_| {}).await;
    let perms = ["post", "post_add"];
    let (role, _) = a
        .create_tenant_user("580001", "clerk", "clerk-pass", &perms, None)
        .await;
    let clerk_token = a.token_of("580001", "clerk", "clerk-pass").await;
    let admin_a = a.as_admin().await;
    let clerk_b = b.as_user(&clerk_token);
    let list = "/api/blade-system/post/list";
    // B has read (and cached) the scope table: nothing protects the list yet.
    assert_eq!(b.send(clerk_b.request(Method::GET, list)).await.status, 200);

    let post = a.menu_id("post").await;
    let Reply { status, body, .. } = admin_a
        .submit(
            "/api/blade-system/api-scope",
            json!({"menuId": post, "resourceCode": "post", "scopeName": "岗位列表",
                "scopePath": list, "scopeType": 2}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let scope = a
        .scalar_text(
            "SELECT CAST(id AS VARCHAR(32)) FROM blade_scope_api WHERE scope_path = ?",
            vec![Value::from(list)],
        )
        .await
        .expect("scope stored");
    if is_postgres() {
        // Well inside the cache's 5 s: only the signal from A can have made B re-read.
        let applied = eventually(Duration::from_millis(1500), || async {
            b.send(clerk_b.request(Method::GET, list)).await.status == 403
        })
        .await;
        assert!(applied, "B enforces the scope created on A at once");
    }
    // A's grant of the scope (and of a further menu) to the clerk's role, seen on B at once.
    let mut codes = perms.to_vec();
    codes.push("post_edit");
    let menus: Vec<String> = a.menu_ids(&codes).await.iter().map(i64::to_string).collect();
    let Reply { status, body, .. } = admin_a
        .post_json(
            "/api/blade-system/role/grant",
            json!({"roleIds": [role.to_string()], "menuIds": menus, "dataScopeIds": [],
                "apiScopeIds": [scope]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        b.send(clerk_b.request(Method::GET, list)).await.status,
        200,
        "granted on A, honoured by B"
    );
    let buttons = b
        .as_user(&clerk_token)
        .get_data("/api/blade-system/menu/buttons")
        .await;
    assert!(
        buttons.to_string().contains("post_edit"),
        "B lists the menu granted on A: {buttons}"
    );
}
