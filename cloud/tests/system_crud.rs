//! The list/detail/submit/remove family (parameters, posts) over a real server and database.

mod support;

use reqwest::Method;
use serde_json::{Value as Json, json};
use support::{TestApp, assert_failure};

async fn submit(app: &TestApp, token: &str, base: &str, body: Json) -> (u16, Json) {
    app.send_json(
        app.authed(Method::POST, &format!("{base}/submit"), token)
            .json(&body),
    )
    .await
}

#[tokio::test]
async fn parameters_full_cycle_with_validation_and_unique_keys() {
    let app = TestApp::start().await;
    let admin = app.token_of("000000", "admin", "admin").await;
    let base = "/api/blade-system/param";
    let (status, body) = submit(
        &app,
        &admin,
        base,
        json!({"paramName": "初始密码", "paramValue": "123456"}),
    )
    .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入参数键名");
    let (status, body) = app
        .send_json(
            app.authed(Method::POST, &format!("{base}/submit"), &admin)
                .header("Accept-Language", "en")
                .json(&json!({"paramKey": "k"})),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "Please enter parameter name");

    let (status, body) = submit(
        &app,
        &admin,
        base,
        json!({"paramName": "初始密码", "paramKey": "account.initPassword", "paramValue": "123456"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let id = body["data"].as_str().expect("new id as a string").to_owned();
    let (status, body) = submit(
        &app,
        &admin,
        base,
        json!({"paramName": "x", "paramKey": "account.initPassword", "paramValue": "y"}),
    )
    .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "参数键名已存在");

    let (_, page) = app
        .send_json(app.authed(Method::GET, &format!("{base}/list?paramName=密码"), &admin))
        .await;
    assert_eq!(page["data"]["total"], 1, "{page}");
    assert_eq!(page["data"]["records"][0]["id"], id.as_str());
    assert_eq!(page["data"]["records"][0]["paramValue"], "123456");
    let (status, body) = app
        .send_json(app.authed(Method::GET, &format!("{base}/list?paramValue=1"), &admin))
        .await;
    assert_failure(status, &body, 400);

    // Update keeps what it is not given; the key may stay its own.
    let (status, body) = submit(
        &app,
        &admin,
        base,
        json!({"id": id, "paramValue": "654321", "paramKey": "account.initPassword"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (_, detail) = app
        .send_json(app.authed(Method::GET, &format!("{base}/detail?id={id}"), &admin))
        .await;
    assert_eq!(detail["data"]["paramValue"], "654321");
    assert_eq!(detail["data"]["paramName"], "初始密码");
    let (status, body) = submit(&app, &admin, base, json!({"id": id, "paramName": ""})).await;
    assert_failure(status, &body, 400);
    assert_eq!(
        body["msg"], "请输入参数名称",
        "a required field cannot be emptied"
    );

    let (status, body) = app
        .send_json(app.authed(Method::POST, &format!("{base}/remove?ids={id},999"), &admin))
        .await;
    assert_eq!((status, &body["data"]), (200, &json!(1)), "{body}");
    let (status, body) = app
        .send_json(app.authed(Method::GET, &format!("{base}/detail?id={id}"), &admin))
        .await;
    assert_failure(status, &body, 404);
    // The key is free again once its row is deleted.
    let (status, _) = submit(
        &app,
        &admin,
        base,
        json!({"paramName": "n", "paramKey": "account.initPassword", "paramValue": "v"}),
    )
    .await;
    assert_eq!(status, 200);
    let (status, body) = app
        .send_json(app.authed(Method::POST, &format!("{base}/remove?ids=1,x"), &admin))
        .await;
    assert_failure(status, &body, 400);
    app.stop().await;
}

#[tokio::test]
async fn posts_stay_inside_their_tenant_and_need_permissions() {
    let app = TestApp::start().await;
    let admin = app.token_of("000000", "admin", "admin").await;
    let base = "/api/blade-system/post";
    let (status, body) = submit(
        &app,
        &admin,
        base,
        json!({"category": 1, "postCode": "ops", "postName": "运维", "sort": 2}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let ours = body["data"].as_str().unwrap().to_owned();
    let (status, body) = submit(
        &app,
        &admin,
        base,
        json!({"category": "x", "postCode": "c2", "postName": "n", "sort": 1}),
    )
    .await;
    assert_failure(status, &body, 400);
    let (status, body) = submit(
        &app,
        &admin,
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
    let other = app.token_of("400001", "mgr", "mgr-pass").await;
    let (_, page) = app
        .send_json(app.authed(Method::GET, &format!("{base}/list"), &other))
        .await;
    assert_eq!(
        page["data"]["total"], 0,
        "tenant 000000's posts are not listed: {page}"
    );
    let (status, body) = app
        .send_json(app.authed(Method::GET, &format!("{base}/detail?id={ours}"), &other))
        .await;
    assert_failure(status, &body, 404);
    let (status, body) = submit(&app, &other, base, json!({"id": ours, "postName": "hijacked"})).await;
    assert_failure(status, &body, 404);
    let (_, removed) = app
        .send_json(app.authed(Method::POST, &format!("{base}/remove?ids={ours}"), &other))
        .await;
    assert_eq!(removed["data"], 0);
    let (status, _) = submit(
        &app,
        &other,
        base,
        json!({"category": 1, "postCode": "ops", "postName": "运维", "sort": 1}),
    )
    .await;
    assert_eq!(status, 200, "codes are unique per tenant, not across tenants");
    let (_, detail) = app
        .send_json(app.authed(Method::GET, &format!("{base}/detail?id={ours}"), &admin))
        .await;
    assert_eq!(detail["data"]["postName"], "运维", "untouched");
    assert_eq!(detail["data"]["category"], 1, "plain integers stay numbers");

    // A viewer without the buttons can list but not change.
    app.create_tenant_user("400001", "viewer", "viewer-pass", &["post"], None)
        .await;
    let viewer = app.token_of("400001", "viewer", "viewer-pass").await;
    assert_eq!(
        app.send_json(app.authed(Method::GET, &format!("{base}/list"), &viewer))
            .await
            .0,
        200
    );
    let (status, body) = submit(
        &app,
        &viewer,
        base,
        json!({"category": 1, "postCode": "v", "postName": "v", "sort": 1}),
    )
    .await;
    assert_failure(status, &body, 403);
    let (status, body) = app
        .send_json(app.authed(Method::POST, &format!("{base}/remove?ids=1"), &viewer))
        .await;
    assert_failure(status, &body, 403);
    // And someone without the menu cannot even list.
    app.create_tenant_user("400001", "nobody", "nobody-pass", &["equipmentMap"], None)
        .await;
    let nobody = app.token_of("400001", "nobody", "nobody-pass").await;
    let (status, body) = app
        .send_json(app.authed(Method::GET, &format!("{base}/list"), &nobody))
        .await;
    assert_failure(status, &body, 403);
    app.stop().await;
}

#[tokio::test]
async fn the_crud_family_is_in_the_openapi_document() {
    let app = TestApp::start().await;
    let (_, doc) = app.get_json("/api/openapi.json").await;
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
