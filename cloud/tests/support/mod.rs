//! A real hub on a loopback port over a real database: a SQLite file in a temporary directory,
//! or, when `TEST_POSTGRES_URL` names a PostgreSQL server, a fresh database on it per test.

#![allow(dead_code)]

use std::path::PathBuf;

use pv_cloud::config::Config;
use pv_cloud::state::AppState;
use sqlx::AssertSqlSafe;
use tokio::sync::oneshot;
use utoipa_axum::router::OpenApiRouter;

pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub state: AppState,
    pub data_dir: PathBuf,
    pub database_url: String,
    _tmp: Option<tempfile::TempDir>,
    stop: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<()>>,
}

/// The database URL a new test should use, creating a PostgreSQL database when configured.
pub async fn fresh_database_url(data_dir: &std::path::Path) -> String {
    match std::env::var("TEST_POSTGRES_URL") {
        Ok(admin) if !admin.is_empty() => {
            sqlx::any::install_default_drivers();
            let name = format!("pv_test_{}", std::process::id()) + &format!("_{}", rand_suffix());
            let pool = sqlx::AnyPool::connect(&admin)
                .await
                .expect("connect to TEST_POSTGRES_URL");
            sqlx::query(AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&pool)
                .await
                .expect("create test database");
            pool.close().await;
            let base = admin.rsplit_once('/').map(|(b, _)| b.to_owned()).unwrap_or(admin);
            format!("{base}/{name}")
        }
        _ => format!("sqlite://{}?mode=rwc", data_dir.join("pv.db").display()),
    }
}

fn rand_suffix() -> String {
    let mut b = [0u8; 6];
    getrandom::fill(&mut b).expect("randomness");
    hex::encode(b)
}

pub fn is_postgres() -> bool {
    std::env::var("TEST_POSTGRES_URL")
        .map(|v| !v.is_empty())
        .unwrap_or(false)
}

impl TestApp {
    pub async fn start() -> TestApp {
        Self::start_with(OpenApiRouter::new()).await
    }

    /// Starts the product's routes plus `extra` (routes that only tests need).
    pub async fn start_with(extra: OpenApiRouter<AppState>) -> TestApp {
        let tmp = tempfile::tempdir().expect("temp dir");
        let data_dir = tmp.path().to_path_buf();
        let url = fresh_database_url(&data_dir).await;
        let mut app = Self::start_on(data_dir, url, extra).await;
        app._tmp = Some(tmp);
        app
    }

    /// Starts on a given data directory and database (to test restarts).
    pub async fn start_on(
        data_dir: PathBuf,
        database_url: String,
        extra: OpenApiRouter<AppState>,
    ) -> TestApp {
        let config = Config {
            listen: "127.0.0.1:0".parse().expect("addr"),
            data_dir: data_dir.clone(),
            database_url: database_url.clone(),
            database_max_connections: 4,
            ..Config::default()
        };
        let state = pv_cloud::server::prepare(config).await.expect("prepare");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let app = pv_cloud::app::assemble(state.clone(), pv_cloud::app::api_routes().merge(extra));
        let db = state.db.clone();
        let server = tokio::spawn(async move {
            axum::serve(
                listener,
                app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
            )
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
            .expect("serve");
            db.close().await;
        });
        TestApp {
            base: format!("http://{addr}"),
            client: reqwest::Client::new(),
            state,
            data_dir,
            database_url,
            _tmp: None,
            stop: Some(stop),
            server: Some(server),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// GET returning (HTTP status, JSON body).
    pub async fn get_json(&self, path: &str) -> (u16, serde_json::Value) {
        self.send_json(self.client.get(self.url(path))).await
    }

    pub async fn send_json(&self, req: reqwest::RequestBuilder) -> (u16, serde_json::Value) {
        let res = req.send().await.expect("request");
        let status = res.status().as_u16();
        let body = res.json().await.expect("JSON body");
        (status, body)
    }

    /// Stops the server the way a signal would, waiting for in-flight requests.
    pub async fn stop(mut self) -> (PathBuf, String, Option<tempfile::TempDir>) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.expect("server task");
        }
        (self.data_dir.clone(), self.database_url.clone(), self._tmp.take())
    }
}

/// Asserts the failure envelope: HTTP status = code, success false, data null, a message.
pub fn assert_failure(status: u16, body: &serde_json::Value, code: u16) {
    assert_eq!(status, code, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert!(body["data"].is_null(), "{body}");
    assert!(body["msg"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
}

// ---- sign-in helpers ----

pub const BASIC_SABER: &str = "Basic c2FiZXI6c2FiZXJfc2VjcmV0";

pub fn md5_hex(s: &str) -> String {
    use md5::{Digest, Md5};
    hex::encode(Md5::digest(s.as_bytes()))
}

impl TestApp {
    /// A token call: query parameters and extra headers; returns (HTTP status, flat JSON).
    pub async fn token_call(
        &self,
        params: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> (u16, serde_json::Value) {
        let mut req = self
            .client
            .post(self.url("/api/blade-auth/oauth/token"))
            .query(params);
        req = req.header("Authorization", BASIC_SABER);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        self.send_json(req).await
    }

    pub async fn sign_in(&self, tenant: &str, account: &str, password: &str) -> (u16, serde_json::Value) {
        let pw = md5_hex(password);
        self.token_call(
            &[
                ("tenantId", tenant),
                ("username", account),
                ("password", &pw),
                ("grant_type", "password"),
                ("scope", "all"),
            ],
            &[("Tenant-Id", tenant)],
        )
        .await
    }

    /// Signs in and returns the access token, panicking on failure.
    pub async fn token_of(&self, tenant: &str, account: &str, password: &str) -> String {
        let (status, body) = self.sign_in(tenant, account, password).await;
        assert_eq!(status, 200, "sign in {tenant}/{account}: {body}");
        body["access_token"].as_str().expect("access_token").to_owned()
    }

    pub fn authed(&self, method: reqwest::Method, path: &str, token: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, self.url(path))
            .header("Blade-Auth", format!("bearer {token}"))
    }

    pub async fn exec(&self, sql: &str, values: Vec<pv_cloud::kernel::sql::Value>) {
        let mut s = pv_cloud::kernel::sql::Sql::default();
        s.push_bind(sql, values);
        let (text, args) = s.build().expect("sql");
        sqlx::query_with(AssertSqlSafe(text), args)
            .execute(self.state.db.pool())
            .await
            .expect("exec");
    }

    /// Creates a tenant (optionally limited to a package of menu codes) with a role granted
    /// `menu_codes` and a user holding it. Returns (role id, user id).
    pub async fn create_tenant_user(
        &self,
        tenant: &str,
        account: &str,
        password: &str,
        menu_codes: &[&str],
        package_codes: Option<&[&str]>,
    ) -> (i64, i64) {
        use pv_cloud::kernel::sql::Value;
        let now = Value::Int(pv_cloud::kernel::time::now_ms());
        let exists = self
            .scalar_text(
                "SELECT tenant_id FROM blade_tenant WHERE tenant_id = ?",
                vec![tenant.into()],
            )
            .await;
        if exists.is_none() {
            let package = match package_codes {
                Some(codes) => {
                    let ids = self.menu_ids(codes).await;
                    let pid = self.state.ids.next().0;
                    self.exec(
                        "INSERT INTO blade_tenant_package (id, package_name, menu_id, create_time) VALUES (?, ?, ?, ?)",
                        vec![Value::Int(pid), "p".into(), ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",").into(), now.clone()],
                    )
                    .await;
                    Value::Int(pid)
                }
                None => Value::Null,
            };
            self.exec(
                "INSERT INTO blade_tenant (id, tenant_id, tenant_name, package_id, create_time) VALUES (?, ?, ?, ?, ?)",
                vec![Value::Int(self.state.ids.next().0), tenant.into(), format!("Tenant {tenant}").into(), package, now.clone()],
            )
            .await;
        }
        let role = self.state.ids.next().0;
        self.exec(
            "INSERT INTO blade_role (id, tenant_id, role_name, role_alias) VALUES (?, ?, ?, ?)",
            vec![
                Value::Int(role),
                tenant.into(),
                format!("role of {account}").into(),
                format!("r_{account}").into(),
            ],
        )
        .await;
        for m in self.menu_ids(menu_codes).await {
            self.exec(
                "INSERT INTO blade_role_menu (role_id, menu_id, kind) VALUES (?, ?, 'web')",
                vec![Value::Int(role), Value::Int(m)],
            )
            .await;
        }
        let user = self.state.ids.next().0;
        let phc = pv_cloud::auth::password::hash(&md5_hex(password))
            .await
            .expect("hash");
        self.exec(
            "INSERT INTO blade_user (id, tenant_id, account, password, name, real_name, create_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
            vec![Value::Int(user), tenant.into(), account.into(), phc.into(), account.into(), account.into(), now],
        )
        .await;
        self.exec(
            "INSERT INTO blade_user_role (user_id, role_id) VALUES (?, ?)",
            vec![Value::Int(user), Value::Int(role)],
        )
        .await;
        (role, user)
    }

    pub async fn menu_ids(&self, codes: &[&str]) -> Vec<i64> {
        let mut out = Vec::new();
        for c in codes {
            let mut s = pv_cloud::kernel::sql::Sql::default();
            s.push_bind("SELECT id FROM blade_menu WHERE code = ?", [(*c).into()]);
            let (text, args) = s.build().expect("sql");
            let id: i64 = sqlx::query_scalar_with::<sqlx::Any, i64, _>(AssertSqlSafe(text), args)
                .fetch_one(self.state.db.pool())
                .await
                .unwrap_or_else(|_| panic!("menu {c}"));
            out.push(id);
        }
        out
    }

    pub async fn scalar_text(&self, sql: &str, values: Vec<pv_cloud::kernel::sql::Value>) -> Option<String> {
        let mut s = pv_cloud::kernel::sql::Sql::default();
        s.push_bind(sql, values);
        let (text, args) = s.build().expect("sql");
        sqlx::query_scalar_with::<sqlx::Any, String, _>(AssertSqlSafe(text), args)
            .fetch_optional(self.state.db.pool())
            .await
            .expect("query")
    }
}

// --- access helpers ---

impl TestApp {
    /// GET with a token; asserts 200 and returns `data`.
    pub async fn data_of(&self, path: &str, token: &str) -> serde_json::Value {
        let (status, body) = self
            .send_json(self.authed(reqwest::Method::GET, path, token))
            .await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body["data"].clone()
    }

    /// POST a JSON body with a token (and `Accept-Language` when `lang` is given).
    pub async fn post_json(
        &self,
        path: &str,
        token: &str,
        body: &serde_json::Value,
        lang: Option<&str>,
    ) -> (u16, serde_json::Value) {
        let mut req = self.authed(reqwest::Method::POST, path, token).json(body);
        if let Some(l) = lang {
            req = req.header("Accept-Language", l);
        }
        self.send_json(req).await
    }

    pub async fn scalar_int(&self, sql: &str, values: Vec<pv_cloud::kernel::sql::Value>) -> Option<i64> {
        let mut s = pv_cloud::kernel::sql::Sql::default();
        s.push_bind(sql, values);
        let (text, args) = s.build().expect("sql");
        sqlx::query_scalar_with::<sqlx::Any, i64, _>(AssertSqlSafe(text), args)
            .fetch_optional(self.state.db.pool())
            .await
            .expect("query")
    }

    /// A dept of `tenant` under `parent` (0 = a root), with `ancestors` as the dept admin keeps it.
    pub async fn create_dept(&self, tenant: &str, parent: i64, name: &str) -> i64 {
        use pv_cloud::kernel::sql::Value;
        let ancestors = if parent == 0 {
            "0".to_owned()
        } else {
            let up = self
                .scalar_text(
                    "SELECT ancestors FROM blade_dept WHERE id = ?",
                    vec![Value::Int(parent)],
                )
                .await
                .expect("parent dept");
            format!("{up},{parent}")
        };
        let id = self.state.ids.next().0;
        self.exec(
            "INSERT INTO blade_dept (id, tenant_id, parent_id, ancestors, dept_name, full_name) VALUES (?, ?, ?, ?, ?, ?)",
            vec![
                Value::Int(id),
                tenant.into(),
                Value::Int(parent),
                ancestors.into(),
                name.into(),
                name.into(),
            ],
        )
        .await;
        id
    }

    pub async fn put_in_dept(&self, user: i64, dept: i64) {
        use pv_cloud::kernel::sql::Value;
        self.exec(
            "INSERT INTO blade_user_dept (user_id, dept_id) VALUES (?, ?)",
            vec![Value::Int(user), Value::Int(dept)],
        )
        .await;
    }

    /// A user of `tenant` holding the existing `role`. Returns the user id.
    pub async fn create_role_holder(&self, tenant: &str, account: &str, password: &str, role: i64) -> i64 {
        use pv_cloud::kernel::sql::Value;
        let user = self.state.ids.next().0;
        let phc = pv_cloud::auth::password::hash(&md5_hex(password))
            .await
            .expect("hash");
        self.exec(
            "INSERT INTO blade_user (id, tenant_id, account, password, name, real_name, create_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
            vec![
                Value::Int(user),
                tenant.into(),
                account.into(),
                phc.into(),
                account.into(),
                account.into(),
                Value::Int(pv_cloud::kernel::time::now_ms()),
            ],
        )
        .await;
        self.exec(
            "INSERT INTO blade_user_role (user_id, role_id) VALUES (?, ?)",
            vec![Value::Int(user), Value::Int(role)],
        )
        .await;
        user
    }

    /// The menu id of `code` as the wire shows it.
    pub async fn menu_id(&self, code: &str) -> String {
        self.menu_ids(&[code]).await[0].to_string()
    }
}

/// Every `code` in a menu tree (routes / buttons answers).
pub fn codes_in(tree: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        for n in v.as_array().into_iter().flatten() {
            if let Some(c) = n["code"].as_str() {
                out.push(c.to_owned());
            }
            walk(&n["children"], out);
        }
    }
    walk(tree, &mut out);
    out
}

/// Every `id` in a tree (nodes or tree lists).
pub fn ids_in(tree: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        for n in v.as_array().into_iter().flatten() {
            if let Some(c) = n["id"].as_str() {
                out.push(c.to_owned());
            }
            walk(&n["children"], out);
        }
    }
    walk(tree, &mut out);
    out
}

// --- reference helpers ---

impl TestApp {
    /// A signed-in call with an optional JSON body; returns (HTTP status, JSON body).
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: Option<serde_json::Value>,
    ) -> (u16, serde_json::Value) {
        let mut req = self.authed(method, path, token);
        if let Some(b) = body {
            req = req.json(&b);
        }
        self.send_json(req).await
    }

    /// Like [`TestApp::call`] with `Accept-Language: en`.
    pub async fn call_en(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: Option<serde_json::Value>,
    ) -> (u16, serde_json::Value) {
        let mut req = self.authed(method, path, token).header("Accept-Language", "en");
        if let Some(b) = body {
            req = req.json(&b);
        }
        self.send_json(req).await
    }

    /// GETs `path` until `done` accepts the body (rows written off the request's path, such as
    /// log rows, appear a moment later); panics after 10 s.
    pub async fn poll(
        &self,
        path: &str,
        token: &str,
        done: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let (status, body) = self.call(reqwest::Method::GET, path, token, None).await;
            if status == 200 && done(&body) {
                return body;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "gave up waiting on {path}: {body}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    pub async fn scalar_i64(&self, sql: &str, values: Vec<pv_cloud::kernel::sql::Value>) -> i64 {
        let mut s = pv_cloud::kernel::sql::Sql::default();
        s.push_bind(sql, values);
        let (text, args) = s.build().expect("sql");
        sqlx::query_scalar_with::<sqlx::Any, i64, _>(AssertSqlSafe(text), args)
            .fetch_one(self.state.db.pool())
            .await
            .expect("query")
    }
}

// --- station helpers ---

/// Every menu and button of the station domain (what a tenant's station manager holds).
pub const STATION_MENUS: &[&str] = &[
    "station",
    "station_add",
    "station_edit",
    "station_delete",
    "station_switch",
    "inverter_add",
    "inverter_edit",
    "inverter_delete",
    "inverterThird_add",
    "inverterThird_edit",
    "inverterThird_delete",
    "camera_add",
    "camera_edit",
    "camera_delete",
    "weather_add",
    "weather_edit",
    "weather_delete",
    "meter_add",
    "meter_edit",
    "meter_delete",
    "stationPrice_add",
    "stationPrice_edit",
    "stationPrice_delete",
    "electricPrice_edit",
    "stationAssignment",
    "stationAssignment_assign",
];

impl TestApp {
    /// A tenant with a station manager holding every station permission; returns the token.
    pub async fn station_manager(&self, tenant: &str, account: &str) -> String {
        self.create_tenant_user(tenant, account, "secret1", STATION_MENUS, None)
            .await;
        self.token_of(tenant, account, "secret1").await
    }

    /// A user of `tenant` holding the role with `alias` (created when missing, granted
    /// `menu_codes`). Returns the user id.
    pub async fn user_with_alias(
        &self,
        tenant: &str,
        account: &str,
        alias: &str,
        menu_codes: &[&str],
    ) -> i64 {
        use pv_cloud::kernel::sql::Value;
        let role = match self
            .scalar_int(
                "SELECT id FROM blade_role WHERE tenant_id = ? AND role_alias = ? AND is_deleted = 0",
                vec![tenant.into(), alias.into()],
            )
            .await
        {
            Some(r) => r,
            None => {
                let r = self.state.ids.next().0;
                self.exec(
                    "INSERT INTO blade_role (id, tenant_id, role_name, role_alias) VALUES (?, ?, ?, ?)",
                    vec![Value::Int(r), tenant.into(), alias.into(), alias.into()],
                )
                .await;
                for m in self.menu_ids(menu_codes).await {
                    self.exec(
                        "INSERT INTO blade_role_menu (role_id, menu_id, kind) VALUES (?, ?, 'web')",
                        vec![Value::Int(r), Value::Int(m)],
                    )
                    .await;
                }
                r
            }
        };
        self.create_role_holder(tenant, account, "secret1", role).await
    }

    /// Uploads a file through the file storage; returns its attach id.
    pub async fn upload(&self, token: &str, file_name: &str) -> String {
        let form = reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(b"\x89PNG fake image".to_vec()).file_name(file_name.to_owned()),
        );
        let (status, body) = self
            .send_json(
                self.authed(
                    reqwest::Method::POST,
                    "/api/blade-resource/oss/endpoint/put-file",
                    token,
                )
                .multipart(form),
            )
            .await;
        assert_eq!(status, 200, "upload: {body}");
        body["data"]["attachId"].as_str().expect("attachId").to_owned()
    }
}

// --- gateway helpers ---

/// The station manager's permissions plus gateway provisioning, Excel import/export and
/// flexible brackets.
pub const GATEWAY_MENUS: &[&str] = &[
    "station_gateway",
    "station_import",
    "station_export",
    "inverter_import",
    "inverter_export",
    "flex",
    "flex_add",
    "flex_edit",
    "flex_delete",
];

impl TestApp {
    /// Like [`TestApp::start`] with the configuration changed by `tweak` first.
    pub async fn start_configured(tweak: impl FnOnce(&mut Config)) -> TestApp {
        let tmp = tempfile::tempdir().expect("temp dir");
        let data_dir = tmp.path().to_path_buf();
        let database_url = fresh_database_url(&data_dir).await;
        let mut config = Config {
            listen: "127.0.0.1:0".parse().expect("addr"),
            data_dir: data_dir.clone(),
            database_url: database_url.clone(),
            database_max_connections: 4,
            ..Config::default()
        };
        tweak(&mut config);
        let state = pv_cloud::server::prepare(config).await.expect("prepare");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let app = pv_cloud::app::assemble(state.clone(), pv_cloud::app::api_routes());
        let db = state.db.clone();
        let server = tokio::spawn(async move {
            axum::serve(
                listener,
                app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
            )
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
            .expect("serve");
            db.close().await;
        });
        TestApp {
            base: format!("http://{addr}"),
            client: reqwest::Client::new(),
            state,
            data_dir,
            database_url,
            _tmp: Some(tmp),
            stop: Some(stop),
            server: Some(server),
        }
    }

    /// A tenant user holding every station permission and the gateway and Excel buttons.
    pub async fn gateway_manager(&self, tenant: &str, account: &str) -> String {
        let menus: Vec<&str> = STATION_MENUS.iter().chain(GATEWAY_MENUS).copied().collect();
        self.create_tenant_user(tenant, account, "secret1", &menus, None)
            .await;
        self.token_of(tenant, account, "secret1").await
    }

    /// A signed-in call answering (status, headers, raw body).
    pub async fn call_raw(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
    ) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
        let res = self.authed(method, path, token).send().await.expect("request");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let body = res.bytes().await.expect("body").to_vec();
        (status, headers, body)
    }

    /// Uploads `bytes` as `file_name` (multipart field `file`) to `path`.
    pub async fn upload_to(
        &self,
        path: &str,
        token: &str,
        file_name: &str,
        bytes: Vec<u8>,
    ) -> (u16, serde_json::Value) {
        let form = reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(bytes).file_name(file_name.to_owned()),
        );
        self.send_json(self.authed(reqwest::Method::POST, path, token).multipart(form))
            .await
    }
}

/// The `pv-edge` binary of this workspace (built by `cargo test --workspace`, or
/// `cargo build -p pv-edge`).
pub fn pv_edge_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    // target/debug/deps/<test> -> target/debug/pv-edge
    let dir = exe.parent().and_then(|d| d.parent()).expect("target profile dir");
    let bin = dir.join(format!("pv-edge{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: build it with `cargo build -p pv-edge`",
        bin.display()
    );
    bin
}

// --- telemetry helpers ---

/// Local midnight (epoch ms) of `date` in the hub's default offset, +08:00, computed here
/// independently of the code under test.
pub fn local_midnight(date: chrono::NaiveDate) -> i64 {
    date.and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc()
        .timestamp_millis()
        - 8 * 3_600_000
}

/// Today's date at +08:00.
pub fn local_today() -> chrono::NaiveDate {
    (chrono::Utc::now() + chrono::Duration::hours(8)).date_naive()
}

/// `yyyy-MM-dd HH:mm:ss` at +08:00 of epoch ms (what the API writes).
pub fn local_text(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms + 8 * 3_600_000)
        .expect("time")
        .naive_utc()
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

/// A realtime sample of numeric metrics.
pub fn live_sample(
    tenant: &str,
    station: i64,
    device: i64,
    kind: &str,
    ts: i64,
    values: &[(&str, f64)],
    online: bool,
) -> pv_cloud::telemetry::realtime::DeviceLive {
    pv_cloud::telemetry::realtime::DeviceLive {
        device_id: device,
        tenant_id: tenant.to_owned(),
        station_id: station,
        kind: kind.to_owned(),
        gateway_id: "GW-TEST".to_owned(),
        ts,
        values: values
            .iter()
            .map(|(k, v)| (k.to_string(), pv_shared::wire::Value::Number(*v)))
            .collect(),
        online,
    }
}

impl TestApp {
    /// Stores `sample` as ingest would: its `pv_telemetry_latest` row, then the realtime view.
    pub async fn put_live(&self, sample: pv_cloud::telemetry::realtime::DeviceLive) {
        use pv_cloud::kernel::sql::Value;
        let metrics = serde_json::to_string(&sample.values).expect("metrics");
        self.exec(
            "DELETE FROM pv_telemetry_latest WHERE device_id = ?",
            vec![Value::Int(sample.device_id)],
        )
        .await;
        self.exec(
            "INSERT INTO pv_telemetry_latest (device_id, tenant_id, station_id, device_kind, gateway_id, ts, metrics, online, changed_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            vec![
                Value::Int(sample.device_id),
                sample.tenant_id.clone().into(),
                Value::Int(sample.station_id),
                sample.kind.clone().into(),
                sample.gateway_id.clone().into(),
                Value::Int(sample.ts),
                metrics.into(),
                Value::Int(sample.online as i64),
                Value::Int(sample.ts),
            ],
        )
        .await;
        assert!(self.state.realtime.apply(sample), "sample kept by the view");
    }

    /// One rollup row; `metrics` is `{metric: [avg, min, max, last]}`.
    #[allow(clippy::too_many_arguments)]
    pub async fn put_rollup(
        &self,
        tenant: &str,
        station: i64,
        device: i64,
        kind: &str,
        period: &str,
        bucket: i64,
        energy_wh: Option<f64>,
        metrics: serde_json::Value,
    ) {
        use pv_cloud::kernel::sql::Value;
        self.exec(
            "INSERT INTO pv_telemetry_rollup (device_id, period, bucket, tenant_id, station_id, device_kind, samples, \
             energy_wh, metrics, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            vec![
                Value::Int(device),
                period.into(),
                Value::Int(bucket),
                tenant.into(),
                Value::Int(station),
                kind.into(),
                Value::Int(1),
                energy_wh.map(Value::Float).unwrap_or(Value::Null),
                metrics.to_string().into(),
                Value::Int(bucket),
            ],
        )
        .await;
    }

    /// Raw samples `(ts, metrics JSON)` of one device, inserted 200 rows per statement.
    pub async fn put_raw(
        &self,
        tenant: &str,
        station: i64,
        device: i64,
        samples: &[(i64, serde_json::Value)],
    ) {
        use pv_cloud::kernel::sql::Value;
        for chunk in samples.chunks(200) {
            let mut sql = String::from(
                "INSERT INTO pv_telemetry_raw (device_id, ts, tenant_id, station_id, seq, metrics) VALUES ",
            );
            let mut values = Vec::new();
            for (i, (ts, m)) in chunk.iter().enumerate() {
                sql.push_str(if i == 0 {
                    "(?, ?, ?, ?, ?, ?)"
                } else {
                    ", (?, ?, ?, ?, ?, ?)"
                });
                values.extend([
                    Value::Int(device),
                    Value::Int(*ts),
                    tenant.into(),
                    Value::Int(station),
                    Value::Int(*ts / 1000),
                    m.to_string().into(),
                ]);
            }
            self.exec(&sql, values).await;
        }
    }
}

// --- ingest helpers ---

/// A hub with the MQTT broker and ingest running, gateways dialling `gateway_addr`.
pub struct IngestApp {
    pub app: TestApp,
    pub telemetry: pv_cloud::telemetry::Telemetry,
    pub gateway_addr: std::net::SocketAddr,
}

impl IngestApp {
    /// Broker on a free loopback port; counters flushed every second; rollups at once.
    pub async fn start(tweak: impl FnOnce(&mut Config)) -> IngestApp {
        let app = TestApp::start_configured(|c| {
            c.broker.listen = "127.0.0.1:0".parse().expect("addr");
            c.broker.public_url = "mqtt://127.0.0.1:1883".into();
            c.telemetry.state_flush_seconds = 1;
            c.telemetry.rollup_delay_seconds = 0;
            c.telemetry.rollup_interval_ms = 200;
            tweak(c);
        })
        .await;
        let telemetry = pv_cloud::server::start_data_path(&app.state)
            .await
            .expect("telemetry starts");
        let gateway_addr = telemetry.gateway_addr.expect("embedded broker");
        IngestApp {
            app,
            telemetry,
            gateway_addr,
        }
    }

    /// Provisions as an installer would through the API: a station with `gateway`, one
    /// inverter per SN, and the gateway's credentials. Returns (station id, password).
    pub async fn provision(&self, token: &str, gateway: &str, sns: &[&str]) -> (String, String) {
        let app = &self.app;
        let (status, body) = app
            .call(
                reqwest::Method::POST,
                "/api/station",
                token,
                Some(serde_json::json!({"name": format!("Plant {gateway}"), "gatewayId": gateway})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let station = body["data"].as_str().expect("station id").to_owned();
        for (i, sn) in sns.iter().enumerate() {
            let (status, body) = app
                .call(
                    reqwest::Method::POST,
                    "/api/inverter",
                    token,
                    Some(
                        serde_json::json!({"stationId": station, "name": format!("INV-{i}"),
                        "sn": sn, "stringsCount": 2, "mapModel": "sungrow-sg-cx", "unitId": i + 1}),
                    ),
                )
                .await;
            assert_eq!(status, 200, "{body}");
        }
        let (status, body) = app
            .call(
                reqwest::Method::POST,
                &format!("/api/station/gateway/credentials?stationId={station}"),
                token,
                Some(serde_json::json!({})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let password = body["data"]["password"].as_str().expect("password").to_owned();
        (station, password)
    }

    /// Rows of `pv_telemetry_raw` of a device SN's registry row.
    pub async fn raw_count(&self) -> i64 {
        self.app
            .scalar_int("SELECT COUNT(*) FROM pv_telemetry_raw", vec![])
            .await
            .unwrap_or(0)
    }
}

/// A gateway's MQTT connection as the edge makes it (rumqttc, clean session, QoS 1).
pub struct GatewayClient {
    pub id: String,
    pub client: rumqttc::AsyncClient,
    pub acks: tokio::sync::mpsc::UnboundedReceiver<pv_shared::wire::Ack>,
    pub closed: std::sync::Arc<std::sync::atomic::AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for GatewayClient {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl GatewayClient {
    /// Connects with (client id, optional username/password, optional last will); Err with the
    /// reason when the broker refuses.
    pub async fn connect(
        addr: std::net::SocketAddr,
        client_id: &str,
        login: Option<(&str, &str)>,
        will: Option<Vec<u8>>,
    ) -> Result<GatewayClient, String> {
        use rumqttc::{Event, MqttOptions, Packet, QoS};
        let mut o = MqttOptions::new(client_id, addr.ip().to_string(), addr.port());
        o.set_keep_alive(std::time::Duration::from_secs(5))
            .set_clean_session(true)
            .set_max_packet_size(300 * 1024, 300 * 1024);
        if let Some((u, p)) = login {
            o.set_credentials(u, p);
        }
        if let Some(w) = will {
            let topic = pv_shared::topics::status(client_id).unwrap_or_default();
            o.set_last_will(rumqttc::LastWill::new(topic, w, QoS::AtLeastOnce, true));
        }
        let (client, mut eventloop) = rumqttc::AsyncClient::new(o, 1000);
        let (ack_tx, acks) = tokio::sync::mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = oneshot::channel::<Result<(), String>>();
        let closed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let sub = client.clone();
        let down = pv_shared::topics::downlink_filter(client_id).unwrap_or_default();
        let flag = closed.clone();
        let task = tokio::spawn(async move {
            let mut ready = Some(ready_tx);
            loop {
                match eventloop.poll().await {
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        let _ = sub.try_subscribe(down.clone(), QoS::AtLeastOnce);
                    }
                    Ok(Event::Incoming(Packet::SubAck(_))) => {
                        if let Some(r) = ready.take() {
                            let _ = r.send(Ok(()));
                        }
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        if let Ok(a) = pv_shared::wire::parse::<pv_shared::wire::Ack>(&p.payload) {
                            let _ = ack_tx.send(a);
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        flag.store(true, std::sync::atomic::Ordering::SeqCst);
                        if let Some(r) = ready.take() {
                            let _ = r.send(Err(e.to_string()));
                        }
                        return;
                    }
                }
            }
        });
        match tokio::time::timeout(std::time::Duration::from_secs(10), ready_rx).await {
            Ok(Ok(Ok(()))) => Ok(GatewayClient {
                id: client_id.to_owned(),
                client,
                acks,
                closed,
                task,
            }),
            Ok(Ok(Err(e))) => Err(e),
            _ => Err("no answer from the broker".into()),
        }
    }

    pub async fn publish(&self, topic: &str, payload: Vec<u8>) {
        self.client
            .publish(topic, rumqttc::QoS::AtLeastOnce, false, payload)
            .await
            .expect("publish queued");
    }

    /// Publishes a batch on its own telemetry topic.
    pub async fn send(&self, batch: &pv_shared::wire::TelemetryBatch) {
        let bytes = pv_shared::wire::to_bytes(batch).expect("valid batch");
        self.publish(&pv_shared::topics::telemetry(&self.id).expect("topic"), bytes)
            .await;
    }

    /// The next ack within `limit`.
    pub async fn ack_within(&mut self, limit: std::time::Duration) -> Option<pv_shared::wire::Ack> {
        tokio::time::timeout(limit, self.acks.recv()).await.ok().flatten()
    }

    /// Ends the connection without DISCONNECT (a gateway losing power): the broker sends its will.
    pub fn kill(&self) {
        self.task.abort();
    }
}

/// A sample of `device` with the given metrics.
pub fn sample(seq: u64, device: &str, ts: i64, metrics: &[(&str, f64)]) -> pv_shared::wire::Sample {
    pv_shared::wire::Sample {
        seq,
        device: device.to_owned(),
        ts,
        values: metrics
            .iter()
            .map(|(k, v)| (k.to_string(), pv_shared::wire::Value::Number(*v)))
            .collect(),
    }
}

/// Polls `check` every 50 ms until it holds or `limit` passes.
pub async fn eventually<F, Fut>(limit: std::time::Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = std::time::Instant::now() + limit;
    loop {
        if check().await {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
