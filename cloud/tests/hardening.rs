//! The edge of the API as an attacker meets it: security headers, writes on selected rows that
//! are partly another tenant's, framework rejections in the envelope, names with control
//! characters. SQLite, and PostgreSQL when `TEST_POSTGRES_URL` is set.

use crate::support;

use pv_cloud::kernel::sql::Value;
use reqwest::Method;
use serde_json::json;
use support::{BASIC_SABER, Device, TestApp, assert_failure, int, md5_hex};

const OUT_OF_REACH: &str = "所选数据不存在或无权操作";

/// Status, headers and JSON body (null when the body is not JSON) of a request.
async fn raw(req: reqwest::RequestBuilder) -> (u16, reqwest::header::HeaderMap, serde_json::Value) {
    let res = req.send().await.expect("request");
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let text = res.text().await.unwrap_or_default();
    (
        status,
        headers,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::Null),
    )
}

// ---- security headers ----

#[tokio::test]
async fn every_answer_carries_the_security_headers_and_api_answers_are_never_cached() {
    let app = TestApp::start().await;
    let header = |res: &reqwest::Response, name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    };
    for path in [
        "/",
        "/basicFacts/equipmentMap",
        "/api/blade-user/info",
        "/api/nope",
    ] {
        let res = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(header(&res, "x-content-type-options"), "nosniff", "{path}");
        assert_eq!(header(&res, "x-frame-options"), "DENY", "{path}");
        assert_eq!(
            header(&res, "referrer-policy"),
            "strict-origin-when-cross-origin",
            "{path}"
        );
        assert!(
            header(&res, "content-security-policy").contains("frame-ancestors 'none'"),
            "{path}"
        );
    }
    // The console: its own scripts only, the configured tile host for images.
    let res = app.client.get(app.url("/")).send().await.unwrap();
    let csp = header(&res, "content-security-policy");
    assert!(csp.contains("script-src 'self';"), "{csp}");
    assert!(
        csp.contains("img-src 'self' https://tile.openstreetmap.org data: blob:"),
        "{csp}"
    );
    assert!(csp.contains("connect-src 'self';"), "{csp}");
    assert!(!csp.contains("'unsafe-eval'"), "{csp}");
    // `/api`: data, never a document, never cached; the token answer above all.
    let res = app
        .client
        .get(app.url("/api/blade-user/info"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(&res, "content-security-policy"),
        "default-src 'none'; frame-ancestors 'none'"
    );
    assert_eq!(header(&res, "cache-control"), "no-store");
    let (status, headers, _) = raw(app
        .client
        .post(app.url("/api/blade-auth/oauth/token"))
        .header("Authorization", BASIC_SABER)
        .header("Tenant-Id", "000000")
        .query(&[
            ("tenantId", "000000"),
            ("username", "admin"),
            ("password", md5_hex("admin").as_str()),
            ("grant_type", "password"),
            ("scope", "all"),
        ]))
    .await;
    assert_eq!(status, 200);
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    app.stop().await;
}

#[tokio::test]
async fn the_policy_follows_the_configured_tile_host() {
    let app = TestApp::start_configured(|c| {
        c.console.map_tile_url = "https://{s}.tiles.example.net/{z}/{x}/{y}.png".into();
    })
    .await;
    let res = app.client.get(app.url("/")).send().await.unwrap();
    let csp = res.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        csp.contains("img-src 'self' https://*.tiles.example.net data: blob:"),
        "{csp}"
    );
    assert!(!csp.contains("openstreetmap"), "{csp}");
    app.stop().await;
}

// ---- writes on selected rows: all the caller's, or nothing happens ----

#[tokio::test]
async fn a_removal_naming_another_tenants_rows_changes_nothing() {
    let app = TestApp::start().await;
    let platform = app.as_admin().await;
    let a = app.as_user(&app.station_manager("400001", "a").await);
    let b = app.as_user(&app.station_manager("400002", "b").await);
    let (a_station, b_station) = (a.station("A1").await, b.station("B1").await);
    let a_inverter = a.inverter(&a_station, "SN-A", 2, json!({})).await;
    let b_inverter = b.inverter(&b_station, "SN-B", 2, json!({})).await;
    let live = |table: &'static str, id: String| {
        let app = &app;
        async move {
            app.scalar_i64(
                &format!("SELECT COUNT(*) FROM {table} WHERE id = ? AND is_deleted = 0"),
                vec![Value::Int(int(&id))],
            )
            .await
        }
    };

    // Stations and devices: B's id among A's own.
    let r = a
        .delete(&format!("/api/station/{a_station},{b_station}?confirm=true"))
        .await;
    assert_failure(r.status, &r.body, 404);
    assert_eq!(r.body["msg"], OUT_OF_REACH);
    let r = a
        .delete(&format!("{}/{a_inverter},{b_inverter}", Device::Inverter.path()))
        .await;
    assert_failure(r.status, &r.body, 404);
    assert_eq!(live("pv_station", a_station.clone()).await, 1);
    assert_eq!(live("pv_station", b_station.clone()).await, 1);
    assert_eq!(live("pv_inverter", a_inverter.clone()).await, 1);
    assert_eq!(live("pv_inverter", b_inverter.clone()).await, 1);

    // The admin-console entities (departments here): the platform's id among a tenant's own.
    app.create_tenant_user(
        "400003",
        "d",
        "d-pass",
        &["dept", "dept_add", "dept_delete"],
        None,
    )
    .await;
    let d = app.as_user(&app.token_of("400003", "d", "d-pass").await);
    let dept = |name: &str| json!({"parentId": "0", "deptName": name, "fullName": name, "deptCategory": 1, "sort": 1});
    let own = d.submit("/api/blade-system/dept", dept("own")).await.ok().data();
    let own = own.as_str().unwrap().to_owned();
    let theirs = platform
        .submit("/api/blade-system/dept", dept("theirs"))
        .await
        .ok()
        .data();
    let theirs = theirs.as_str().unwrap().to_owned();
    let r = d
        .remove("/api/blade-system/dept", &format!("{own},{theirs}"))
        .await;
    assert_failure(r.status, &r.body, 404);
    assert_eq!(live("blade_dept", own.clone()).await, 1);
    assert_eq!(live("blade_dept", theirs.clone()).await, 1);
    // Its own rows alone still go.
    assert_eq!(d.remove("/api/blade-system/dept", &own).await.ok().data(), 1);
    assert_eq!(
        a.delete(&format!("{}/{a_inverter}", Device::Inverter.path()))
            .await
            .status,
        200
    );
    app.stop().await;
}

// ---- framework rejections come in the envelope ----

#[tokio::test]
async fn framework_rejections_answer_in_the_envelope() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let envelope = |(status, headers, body): (u16, reqwest::header::HeaderMap, serde_json::Value),
                    code: u16| {
        assert_eq!(status, code, "{body}");
        let ct = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        assert!(ct.starts_with("application/json"), "{code}: {ct}");
        assert_failure(status, &body, code);
        assert!(!body["msg"].as_str().unwrap_or("").is_empty(), "{body}");
        body
    };
    // 10 MiB to a handler reading the raw body, as JSON and as text.
    let big = vec![b' '; 10 * 1024 * 1024];
    for content_type in ["application/json", "text/plain"] {
        let body = envelope(
            raw(admin
                .request(Method::POST, "/api/inverterReal/list")
                .header("content-type", content_type)
                .body(big.clone()))
            .await,
            413,
        );
        assert_eq!(body["msg"], "请求内容过大", "{content_type}");
    }
    // A malformed multipart upload.
    envelope(
        raw(admin
            .request(Method::POST, "/api/blade-resource/oss/endpoint/put-file")
            .header("content-type", "multipart/form-data")
            .body("x"))
        .await,
        400,
    );
    // A JSON body of the wrong shape; a JSON body sent as text to a JSON handler.
    envelope(
        raw(admin
            .request(Method::POST, "/api/message/read")
            .json(&json!({"ids": "not a list"})))
        .await,
        400,
    );
    envelope(
        raw(admin
            .request(Method::POST, "/api/message/read")
            .header("content-type", "text/plain")
            .body("{}"))
        .await,
        400,
    );
    // Unknown routes and methods under /api.
    envelope(raw(admin.request(Method::GET, "/api/no/such/thing")).await, 404);
    let body = envelope(
        raw(admin.request(Method::PATCH, "/api/blade-user/info")).await,
        405,
    );
    assert_eq!(body["msg"], "请求方法不支持");
    app.stop().await;
}

// ---- names with control characters ----

#[tokio::test]
async fn names_with_nul_or_bidi_controls_are_refused() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let m = app.as_user(&app.station_manager("400010", "m").await);
    let station = m.station("S1").await;
    let bidi_message = "名称等文本不能包含双向控制字符（如 U+202E）";
    for bad in ["gpj\u{202E}exe", "a\u{2066}b", "a\u{200F}b", "x\u{202A}y"] {
        let r = m
            .post_json("/api/station", json!({"name": bad, "stationType": "2"}))
            .await;
        assert_failure(r.status, &r.body, 400);
        assert_eq!(r.body["msg"], bidi_message, "{bad:?}");
        let r = m
            .post_json(
                Device::Inverter.path(),
                json!({"stationId": station, "name": bad, "sn": "SN1", "stringsCount": 1}),
            )
            .await;
        assert_failure(r.status, &r.body, 400);
    }
    let r = m
        .en()
        .post_json("/api/station", json!({"name": "a\u{202E}b", "stationType": "2"}))
        .await;
    assert_eq!(
        r.body["msg"],
        "Names and other text must not contain bidirectional control characters (such as U+202E)"
    );
    let r = m
        .post_json("/api/station", json!({"name": "a\u{0}b", "stationType": "2"}))
        .await;
    assert_failure(r.status, &r.body, 400);
    assert_eq!(r.body["msg"], "请求内容不能包含空字符（U+0000）");
    // Users: JSON body and the query string of a write.
    let r = admin
        .post_json(
            "/api/blade-user/submit",
            json!({"account": "u\u{202E}1", "password": "p-12345", "password2": "p-12345", "realName": "x"}),
        )
        .await;
    assert_failure(r.status, &r.body, 400);
    assert_eq!(r.body["msg"], bidi_message);
    let r = admin
        .post_json(
            "/api/blade-user/update-info",
            json!({"realName": "管理\u{202E}员"}),
        )
        .await;
    assert_failure(r.status, &r.body, 400);
    let r = app
        .anon()
        .post_query(
            "/api/blade-user/register-guest",
            &[("tenantId", "000000"), ("account", "g\u{2067}1"), ("name", "g")],
        )
        .await;
    assert_failure(r.status, &r.body, 400);
    assert_eq!(r.body["msg"], bidi_message);
    // Nothing was stored; plain names (Chinese, dashes) still are.
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM pv_station WHERE name <> 'S1' AND tenant_id = '400010'",
            vec![]
        )
        .await,
        0
    );
    m.station("光伏电站 – 东区").await;
    // Reads may still search for anything.
    let r = m.get("/api/station/page?name=%E2%80%AE").await;
    assert_eq!(r.status, 200, "{}", r.body);
    app.stop().await;
}
