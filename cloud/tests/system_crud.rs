//! The list/detail/submit/remove family (parameters, posts) over a real server and database.

use crate::support;

use reqwest::Method;
use serde_json::json;
use support::{Reply, TestApp, assert_failure};

#[tokio::test]
async fn parameters_full_cycle_with_validation_and_unique_keys() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let base = "/api/blade-system/param";
    let Reply { status, body, .. } = admin
        .submit(base, json!({"paramName": "初始密码", "paramValue": "123456"}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入参数键名");
    let Reply { status, body, .. } = app
        .send(
            admin
                .request(Method::POST, &format!("{base}/submit"))
                .header("Accept-Language", "en")
                .json(&json!({"paramKey": "k"})),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "Please enter parameter name");

    let Reply { status, body, .. } = admin
        .submit(
            base,
            json!({"paramName": "初始密码", "paramKey": "account.initPassword", "paramValue": "123456"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let id = body["data"].as_str().expect("new id as a string").to_owned();
    let Reply { status, body, .. } = admin
        .submit(
            base,
            json!({"paramName": "x", "paramKey": "account.initPassword", "paramValue": "y"}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "参数键名已存在");

    let Reply { body: page, .. } = app
        .send(admin.request(Method::GET, &format!("{base}/list?paramName=密码")))
        .await;
    assert_eq!(page["data"]["total"], 1, "{page}");
    assert_eq!(page["data"]["records"][0]["id"], id.as_str());
    assert_eq!(page["data"]["records"][0]["paramValue"], "123456");
    let Reply { status, body, .. } = app
        .send(admin.request(Method::GET, &format!("{base}/list?paramValue=1")))
        .await;
    assert_failure(status, &body, 400);

    // Update keeps what it is not given; the key may stay its own.
    let Reply { status, body, .. } = admin
        .submit(
            base,
            json!({"id": id, "paramValue": "654321", "paramKey": "account.initPassword"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { body: detail, .. } = app
        .send(admin.request(Method::GET, &format!("{base}/detail?id={id}")))
        .await;
    assert_eq!(detail["data"]["paramValue"], "654321");
    assert_eq!(detail["data"]["paramName"], "初始密码");
    let Reply { status, body, .. } = admin.submit(base, json!({"id": id, "paramName": ""})).await;
    assert_failure(status, &body, 400);
    assert_eq!(
        body["msg"], "请输入参数名称",
        "a required field cannot be emptied"
    );

    // All or nothing: one missing id among the selected refuses the removal.
    let Reply { status, body, .. } = app
        .send(admin.request(Method::POST, &format!("{base}/remove?ids={id},999")))
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, .. } = app
        .send(admin.request(Method::GET, &format!("{base}/detail?id={id}")))
        .await;
    assert_eq!(status, 200, "still there");
    let Reply { status, body, .. } = app
        .send(admin.request(Method::POST, &format!("{base}/remove?ids={id},{id}")))
        .await;
    assert_eq!((status, &body["data"]), (200, &json!(1)), "{body}");
    let Reply { status, body, .. } = app
        .send(admin.request(Method::GET, &format!("{base}/detail?id={id}")))
        .await;
    assert_failure(status, &body, 404);
    // The key is free again once its row is deleted.
    let Reply { status, .. } = admin
        .submit(
            base,
            json!({"paramName": "n", "paramKey": "account.initPassword", "paramValue": "v"}),
        )
        .await;
    assert_eq!(status, 200);
    let Reply { status, body, .. } = app
        .send(admin.request(Method::POST, &format!("{base}/remove?ids=1,x")))
        .await;
    assert_failure(status, &body, 400);
    app.stop().await;
}

#[tokio::test]
async fn posts_stay_inside_their_tenant_and_need_permissions() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let base = "/api/blade-system/post";
    let Reply { status, body, .. } = admin
        .submit(
            base,
            json!({"category": 1, "postCode": "ops", "postName": "运维", "sort": 2}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let ours = body["data"].as_str().unwrap().to_owned();
    let Reply { status, body, .. } = admin
        .submit(
            base,
            json!({"category": "x", "postCode": "c2", "postName": "n", "sort": 1}),
        )
        .await;
    assert_failure(status, &body, 400);
    let Reply { status, body, .. } = admin
        .submit(
            base,
            json!({"category": 1, "postCode": "way-too-long-code", "postName": "n", "sort": 1}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "输入内容过长");

    // Another tenant's manager may manage posts, but only their own tenant's.
    app.create_tenant_user(
        "400001",
        "mgr",
        "mgr-pass",
        &["post", "post_add", "post_edit", "post_delete"],
        None,
    )
    .await;
    let other = app.as_user(&app.token_of("400001", "mgr", "mgr-pass").await);
    let Reply { body: page, .. } = app
        .send(other.request(Method::GET, &format!("{base}/list")))
        .await;
    assert_eq!(
        page["data"]["total"], 0,
        "tenant 000000's posts are not listed: {page}"
    );
    let Reply { status, body, .. } = app
        .send(other.request(Method::GET, &format!("{base}/detail?id={ours}")))
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = other
        .submit(base, json!({"id": ours, "postName": "hijacked"}))
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = app
        .send(other.request(Method::POST, &format!("{base}/remove?ids={ours}")))
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, .. } = other
        .submit(
            base,
            json!({"category": 1, "postCode": "ops", "postName": "运维", "sort": 1}),
        )
        .await;
    assert_eq!(status, 200, "codes are unique per tenant, not across tenants");
    let Reply { body: detail, .. } = app
        .send(admin.request(Method::GET, &format!("{base}/detail?id={ours}")))
        .await;
    assert_eq!(detail["data"]["postName"], "运维", "untouched");
    assert_eq!(detail["data"]["category"], 1, "plain integers stay numbers");

    // A viewer without the buttons can list but not change.
    app.create_tenant_user("400001", "viewer", "viewer-pass", &["post"], None)
        .await;
    let viewer = app.as_user(&app.token_of("400001", "viewer", "viewer-pass").await);
    assert_eq!(
        app.send(viewer.request(Method::GET, &format!("{base}/list")))
            .await
            .status,
        200
    );
    let Reply { status, body, .. } = viewer
        .submit(
            base,
            json!({"category": 1, "postCode": "v", "postName": "v", "sort": 1}),
        )
        .await;
    assert_failure(status, &body, 403);
    let Reply { status, body, .. } = app
        .send(viewer.request(Method::POST, &format!("{base}/remove?ids=1")))
        .await;
    assert_failure(status, &body, 403);
    // And someone without the menu cannot even list.
    app.create_tenant_user("400001", "nobody", "nobody-pass", &["equipmentMap"], None)
        .await;
    let nobody = app.token_of("400001", "nobody", "nobody-pass").await;
    let Reply { status, body, .. } = app
        .send(app.as_user(&nobody).request(Method::GET, &format!("{base}/list")))
        .await;
    assert_failure(status, &body, 403);
    app.stop().await;
}

#[tokio::test]
async fn the_crud_family_is_in_the_openapi_document() {
    let app = TestApp::start().await;
    let Reply { body: doc, .. } = app.get("/api/openapi.json").await;
    for p in [
        "/api/blade-system/param/list",
        "/api/blade-system/param/submit",
        "/api/blade-system/post/remove",
        "/api/blade-system/post/detail",
    ] {
        assert!(doc["paths"].get(p).is_some(), "{p}");
    }
    app.stop().await;
}

/// PostgreSQL refuses U+0000 in text parameters: it must be turned away at the edge with a 400,
/// for query strings and JSON bodies alike, whichever handler would have read them.
#[tokio::test]
async fn text_inputs_with_a_nul_character_are_refused_with_400() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    for (path, name) in [
        ("/api/blade-system/dept/lazy-list", "deptName"),
        ("/api/blade-system/dict/tree", "code"),
        ("/api/blade-user/page", "realName"),
    ] {
        let Reply { status, body, .. } = admin.get_query(path, &[(name, "a\u{0}b")]).await;
        assert_failure(status, &body, 400);
        assert_eq!(body["msg"], "请求参数不能包含空字符（U+0000）", "{path}");
        let Reply { status, body, .. } = admin.en().get_query(path, &[(name, "\u{0}")]).await;
        assert_failure(status, &body, 400);
        assert_eq!(
            body["msg"], "Request parameters must not contain the NUL character (U+0000)",
            "{path}"
        );
    }
    let base = "/api/blade-system/param";
    let body = json!({"paramName": "名\u{0}", "paramKey": "nul.key", "paramValue": "v"});
    let Reply {
        status, body: reply, ..
    } = admin.submit(base, body.clone()).await;
    assert_failure(status, &reply, 400);
    assert_eq!(reply["msg"], "请求内容不能包含空字符（U+0000）");
    let Reply {
        status, body: reply, ..
    } = admin.en().submit(base, body).await;
    assert_failure(status, &reply, 400);
    assert_eq!(
        reply["msg"],
        "The request body must not contain the NUL character (U+0000)"
    );
    // Form bodies too (the token call reads its parameters from one).
    let Reply {
        status, body: reply, ..
    } = app
        .send(
            app.anon()
                .request(Method::POST, "/api/blade-auth/oauth/token")
                .header("Authorization", support::BASIC_SABER)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body("tenantId=000000&username=ad%00min&password=x&grant_type=password"),
        )
        .await;
    assert_failure(status, &reply, 400);
    assert_eq!(reply["msg"], "请求内容不能包含空字符（U+0000）");
    // Nothing was stored, and an escaped backslash before `u0000` is ordinary text.
    let Reply { status, body, .. } = admin
        .submit(
            base,
            json!({"paramName": "a\\u0000", "paramKey": "nul.key", "paramValue": "v"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}
