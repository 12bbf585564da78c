//! The HTTP kernel over a real server and a real database (SQLite by default; PostgreSQL when
//! `TEST_POSTGRES_URL` is set — the test command runs this file on both).

use crate::support;

use std::time::Duration;

use axum::extract::State;
use pv_cloud::kernel::extract::Path;
use pv_cloud::kernel::list::{Field, Kind, ListQuery, fetch_page};
use pv_cloud::kernel::sql::{Sql, Value};
use pv_cloud::kernel::time::{Timestamp, format_ms, parse_ms};
use pv_cloud::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page};
use pv_cloud::state::AppState;
use serde::Serialize;
use support::{Reply, TestApp, assert_failure, is_postgres};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

// ---- routes that exist only in tests, built from the same kernel pieces the domains use ----

#[derive(Debug, Serialize, sqlx::FromRow, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
struct ParamRow {
    id: Id,
    param_name: String,
    param_key: String,
    create_time: Timestamp,
}

const PARAM_FIELDS: &[Field] = &[
    Field::new("paramName", "param_name", Kind::Text),
    Field::new("paramKey", "param_key", Kind::Text),
    Field::new("status", "status", Kind::Int),
    Field::new("createTime", "create_time", Kind::Time),
];

#[utoipa::path(get, path = "/api/test/params", responses((status = 200, body = Envelope<Page<ParamRow>>)))]
async fn list_params(State(s): State<AppState>, query: ListQuery) -> ApiResult<Data<Page<ParamRow>>> {
    let from = Sql::new("FROM blade_param WHERE is_deleted = 0");
    let page = fetch_page(
        &s.db,
        "id, param_name, param_key, create_time",
        from,
        &query,
        PARAM_FIELDS,
        "create_time DESC, id DESC",
    )
    .await?;
    Ok(Data(page))
}

#[utoipa::path(get, path = "/api/test/params/{id}", responses((status = 200, body = Envelope<ParamRow>)))]
async fn param_detail(State(s): State<AppState>, Path(id): Path<Id>) -> ApiResult<Data<ParamRow>> {
    let mut sql = Sql::new("SELECT id, param_name, param_key, create_time FROM blade_param");
    sql.push_bind(" WHERE id = ? AND is_deleted = 0", [Value::Int(id.0)]);
    let (text, args) = sql.build()?;
    let row: Option<ParamRow> = sqlx::query_as_with(sqlx::AssertSqlSafe(text), args)
        .fetch_optional(s.db.pool())
        .await?;
    row.map(Data).ok_or_else(ApiError::not_found)
}

#[utoipa::path(get, path = "/api/test/panic", responses((status = 500)))]
async fn panics() -> ApiResult<Data<()>> {
    let v: Vec<u8> = Vec::new();
    let _ = v[usize::MAX / 2 + v.len()];
    Ok(Data(()))
}

#[utoipa::path(get, path = "/api/test/slow", responses((status = 200, body = Envelope<String>)))]
async fn slow() -> Data<&'static str> {
    tokio::time::sleep(Duration::from_millis(400)).await;
    Data("finished")
}

fn test_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_params))
        .routes(routes!(param_detail))
        .routes(routes!(panics))
        .routes(routes!(slow))
}

async fn insert_param(app: &TestApp, key: &str, name: &str, created: &str) -> Id {
    let id = app.state.ids.next();
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_param (id, param_name, param_key, param_value, create_time) VALUES (?, ?, ?, ?, ?)",
        [
            Value::Int(id.0),
            Value::Text(name.into()),
            Value::Text(key.into()),
            Value::Text("v".into()),
            Value::Int(parse_ms(created).expect("date")),
        ],
    );
    let (text, args) = sql.build().expect("sql");
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(app.state.db.pool())
        .await
        .expect("insert");
    id
}

// ---- tests ----

#[tokio::test]
async fn health_answers_in_the_envelope_and_names_the_backend() {
    let app = TestApp::start().await;
    let Reply { status, body, .. } = app.get("/api/health").await;
    assert_eq!(status, 200);
    assert_eq!(body["code"], 200);
    assert_eq!(body["success"], true);
    assert_eq!(body["msg"], "操作成功");
    assert_eq!(body["data"]["status"], "ok");
    assert_eq!(
        body["data"]["database"],
        if is_postgres() { "postgres" } else { "sqlite" }
    );
    assert!(
        body["data"].get("demoTenant").is_none(),
        "no demo, no demo tenant: {body}"
    );
    let Reply { body: en, .. } = app
        .send(
            app.client
                .get(app.url("/api/health"))
                .header("Accept-Language", "en-US,en;q=0.9"),
        )
        .await;
    assert_eq!(en["msg"], "Operation successful");
    app.stop().await;
}

#[tokio::test]
async fn openapi_document_is_generated_from_the_mounted_routes() {
    let app = TestApp::start_with(test_routes()).await;
    let Reply {
        status, body: doc, ..
    } = app.get("/api/openapi.json").await;
    assert_eq!(status, 200);
    assert!(
        doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")),
        "{doc}"
    );
    let paths = doc["paths"].as_object().expect("paths");
    for p in [
        "/api/health",
        "/api/openapi.json",
        "/api/test/params",
        "/api/test/params/{id}",
    ] {
        assert!(paths.contains_key(p), "{p} missing from {:?}", paths.keys());
    }
    // A server without the test routes does not describe them.
    let plain = TestApp::start().await;
    let Reply { body: doc, .. } = plain.get("/api/openapi.json").await;
    assert!(
        !doc["paths"]
            .as_object()
            .expect("paths")
            .contains_key("/api/test/params")
    );
    app.stop().await;
    plain.stop().await;
}

#[tokio::test]
async fn unknown_paths_and_wrong_methods_answer_in_the_envelope() {
    let app = TestApp::start().await;
    let Reply { status, body, .. } = app.get("/api/no/such/thing").await;
    assert_failure(status, &body, 404);
    assert_eq!(body["msg"], "接口不存在");
    let Reply { status, body, .. } = app.get("/api").await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = app.get("/ws").await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = app.get("/ws/123").await;
    assert_failure(status, &body, 401);
    let Reply { status, body, .. } = app
        .send(
            app.client
                .post(app.url("/api/health"))
                .header("Accept-Language", "en"),
        )
        .await;
    assert_failure(status, &body, 405);
    assert_eq!(body["msg"], "Method not allowed");
    app.stop().await;
}

#[tokio::test]
async fn client_routes_fall_back_to_the_console_but_missing_files_do_not() {
    let app = TestApp::start().await;
    let res = app
        .client
        .get(app.url("/basicFacts/equipmentMap"))
        .send()
        .await
        .expect("get");
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap_or("")
            .starts_with("text/html")
    );
    let html = res.text().await.expect("text");
    assert!(html.to_lowercase().contains("<!doctype html"), "{html}");
    let res = app
        .client
        .get(app.url("/assets/no-such-chunk.js"))
        .send()
        .await
        .expect("get");
    assert_eq!(res.status(), 404);
    app.stop().await;
}

#[tokio::test]
async fn lists_page_filter_and_sort_on_the_database() {
    let app = TestApp::start_with(test_routes()).await;
    let a = insert_param(
        &app,
        "account.initPassword",
        "Initial password",
        "2026-01-05 08:00:00",
    )
    .await;
    let b = insert_param(&app, "tenant.default", "Default tenant", "2026-02-10 09:30:00").await;
    let c = insert_param(&app, "sms_limit_100%", "SMS limit", "2026-03-15 10:00:00").await;

    let Reply { status, body, .. } = app.get("/api/test/params").await;
    assert_eq!(status, 200, "{body}");
    let page = &body["data"];
    assert_eq!(page["total"], 3);
    assert_eq!(
        (
            page["current"].as_i64(),
            page["size"].as_i64(),
            page["pages"].as_i64()
        ),
        (Some(1), Some(10), Some(1))
    );
    // Default order: newest first. Ids travel as strings.
    assert_eq!(page["records"][0]["id"], c.0.to_string());
    assert_eq!(page["records"][0]["createTime"], "2026-03-15 10:00:00");

    // "contains" without suffix, case-insensitive on both back-ends.
    let Reply { body, .. } = app.get("/api/test/params?paramName=PASSWORD").await;
    assert_eq!(body["data"]["total"], 1);
    assert_eq!(body["data"]["records"][0]["id"], a.0.to_string());
    // LIKE wildcards in the value match literally.
    let Reply { body, .. } = app.get("/api/test/params?paramKey_like=100%25").await;
    assert_eq!(body["data"]["total"], 1, "{body}");
    let Reply { body, .. } = app.get("/api/test/params?paramKey_like=_").await;
    assert_eq!(
        body["data"]["total"], 1,
        "only sms_limit_100% has an underscore: {body}"
    );
    // Date range as the console sends it.
    let Reply { body, .. } = app
        .get("/api/test/params?createTime_datege=2026-02-01%2000:00:00&createTime_datelt=2026-03-01%2000:00:00")
        .await;
    assert_eq!(body["data"]["total"], 1);
    assert_eq!(body["data"]["records"][0]["id"], b.0.to_string());
    // Paging with an explicit sort.
    let Reply { body, .. } = app.get("/api/test/params?ascs=createTime&size=2&current=2").await;
    assert_eq!(body["data"]["total"], 3);
    assert_eq!(body["data"]["pages"], 2);
    assert_eq!(body["data"]["records"].as_array().map(Vec::len), Some(1));
    assert_eq!(body["data"]["records"][0]["id"], c.0.to_string());
    // An injection attempt is just a value that matches nothing; the table is intact.
    let Reply { body, .. } = app
        .get("/api/test/params?paramName=x'%20OR%201=1;DROP%20TABLE%20blade_param;--")
        .await;
    assert_eq!(body["data"]["total"], 0);
    let Reply { body, .. } = app.get("/api/test/params").await;
    assert_eq!(body["data"]["total"], 3);
    app.stop().await;
}

#[tokio::test]
async fn bad_list_requests_get_a_clear_400_in_the_callers_language() {
    let app = TestApp::start_with(test_routes()).await;
    let Reply { status, body, .. } = app.get("/api/test/params?paramValue=secret").await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "不支持的查询条件：paramValue");
    let en = |path: &str| app.client.get(app.url(path)).header("Accept-Language", "en-GB");
    let Reply { status, body, .. } = app.send(en("/api/test/params?descs=param_value")).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "unknown sort column: param_value");
    let Reply { status, body, .. } = app.send(en("/api/test/params?status=active")).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "invalid value for filter status: active");
    let Reply { status, body, .. } = app.send(en("/api/test/params?size=5000")).await;
    assert_failure(status, &body, 400);
    app.stop().await;
}

#[tokio::test]
async fn malformed_and_unknown_ids() {
    let app = TestApp::start_with(test_routes()).await;
    let Reply { status, body, .. } = app.get("/api/test/params/12ab").await;
    assert_failure(status, &body, 400);
    let Reply { status, body, .. } = app.get("/api/test/params/99999").await;
    assert_failure(status, &body, 404);
    let id = insert_param(&app, "k", "n", "2026-05-01 00:00:00").await;
    let Reply { status, body, .. } = app.get(&format!("/api/test/params/{id}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["id"], id.0.to_string());
    assert_eq!(
        body["data"]["createTime"],
        format_ms(parse_ms("2026-05-01").expect("d"))
    );
    app.stop().await;
}

#[tokio::test]
async fn a_panicking_handler_gets_a_500_envelope_and_the_server_keeps_serving() {
    let app = TestApp::start_with(test_routes()).await;
    let Reply { status, body, .. } = app.get("/api/test/panic").await;
    assert_failure(status, &body, 500);
    assert!(
        !body["msg"].as_str().unwrap_or("").contains("index out of bounds"),
        "no internals leak: {body}"
    );
    let Reply { status, .. } = app.get("/api/health").await;
    assert_eq!(status, 200);
    app.stop().await;
}

#[tokio::test]
async fn shutdown_lets_in_flight_requests_finish() {
    let app = TestApp::start_with(test_routes()).await;
    let request = app.client.get(app.url("/api/test/slow")).send();
    let in_flight = tokio::spawn(request);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let url = app.url("/api/health");
    let client = app.client.clone();
    app.stop().await;
    let res = in_flight
        .await
        .expect("join")
        .expect("the slow request completes");
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.expect("json");
    assert_eq!(body["data"], "finished");
    assert!(client.get(url).send().await.is_err(), "no longer listening");
}

#[tokio::test]
async fn restart_keeps_schema_data_and_token_secret() {
    let app = TestApp::start_with(test_routes()).await;
    let id = insert_param(&app, "persist.me", "n", "2026-06-01 12:00:00").await;
    let secret = app.state.token_secret.clone();
    let (dir, url, tmp) = app.stop().await;
    // Migrations run again at start and must be a no-op on an up-to-date schema.
    let again = TestApp::start_on(dir, url, test_routes()).await;
    assert_eq!(again.state.token_secret, secret);
    let Reply { status, body, .. } = again.get(&format!("/api/test/params/{id}")).await;
    assert_eq!(status, 200, "{body}");
    again.stop().await;
    drop(tmp);
}
