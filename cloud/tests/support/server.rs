//! Starting and stopping a real hub: the product's routes on a loopback port over a SQLite file
//! in a temporary directory, or over a fresh PostgreSQL database when `TEST_POSTGRES_URL` is set.

use std::path::PathBuf;

use pv_cloud::config::Config;
use pv_cloud::state::AppState;
use sqlx::AssertSqlSafe;
use tokio::sync::oneshot;

use super::databases::{self, DbUse};
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
    _database: Option<DbUse>,
}

/// The database URL a new test should use, creating a PostgreSQL database when configured. The
/// database stays until the server stops: a hub started with [`TestApp::start`] and its kin gets
/// one that is dropped when the test is done with it (see [`super::databases`]).
pub async fn fresh_database_url(data_dir: &std::path::Path) -> String {
    create_database(data_dir).await.0
}

/// Like [`fresh_database_url`], with the PostgreSQL database tracked for dropping.
async fn tracked_database_url(data_dir: &std::path::Path) -> String {
    let (url, created) = create_database(data_dir).await;
    if let Some((name, admin)) = created {
        databases::track(&url, &name, &admin);
    }
    url
}

/// The URL, and for PostgreSQL the database's name and the server's admin URL.
async fn create_database(data_dir: &std::path::Path) -> (String, Option<(String, String)>) {
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
            let base = admin
                .rsplit_once('/')
                .map(|(b, _)| b.to_owned())
                .unwrap_or(admin.clone());
            (format!("{base}/{name}"), Some((name, admin)))
        }
        _ => (
            format!("sqlite://{}?mode=rwc", data_dir.join("pv.db").display()),
            None,
        ),
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
        let url = tracked_database_url(&data_dir).await;
        let mut app = Self::start_on(data_dir, url, extra).await;
        app._tmp = Some(tmp);
        app
    }

    /// Like [`TestApp::start`] on a hub whose date-dependent work reads `clock` (a fixed day),
    /// not real time: a test of "today", a month end or a year end passes on any day.
    pub async fn start_clocked(clock: pv_cloud::kernel::time::Clock) -> TestApp {
        let tmp = tempfile::tempdir().expect("temp dir");
        let data_dir = tmp.path().to_path_buf();
        let url = tracked_database_url(&data_dir).await;
        let mut app = Self::serve_clocked(Self::config(data_dir, url), OpenApiRouter::new(), clock).await;
        app._tmp = Some(tmp);
        app
    }

    /// Like [`TestApp::start`] with the configuration changed by `tweak` first.
    pub async fn start_configured(tweak: impl FnOnce(&mut Config)) -> TestApp {
        let tmp = tempfile::tempdir().expect("temp dir");
        let data_dir = tmp.path().to_path_buf();
        let database_url = tracked_database_url(&data_dir).await;
        let mut config = Self::config(data_dir, database_url);
        tweak(&mut config);
        let mut app = Self::serve(config, OpenApiRouter::new()).await;
        app._tmp = Some(tmp);
        app
    }

    /// Starts on a given data directory and database (to test restarts).
    pub async fn start_on(
        data_dir: PathBuf,
        database_url: String,
        extra: OpenApiRouter<AppState>,
    ) -> TestApp {
        Self::serve(Self::config(data_dir, database_url), extra).await
    }

    /// Another hub (a replica) on this one's database: its own data directory and node id, the
    /// secrets every replica of one installation must share (from configuration), this one's
    /// clock, and `tweak`.
    pub async fn replica(&self, tweak: impl FnOnce(&mut Config)) -> TestApp {
        let tmp = tempfile::tempdir().expect("temp dir");
        let mut config = Self::config(tmp.path().to_path_buf(), self.database_url.clone());
        config.node_id = self.state.config.node_id + 1;
        config.token_secret = self.state.token_secret.to_string();
        config.station.credential_key = std::fs::read_to_string(self.data_dir.join("credential_key"))
            .map(|k| k.trim().to_owned())
            .unwrap_or_else(|_| self.state.config.station.credential_key.clone());
        config.limits = self.state.config.limits.clone();
        config.auth = self.state.config.auth.clone();
        tweak(&mut config);
        let mut app = Self::serve_clocked(config, OpenApiRouter::new(), self.state.clock.clone()).await;
        app._tmp = Some(tmp);
        app
    }

    fn config(data_dir: PathBuf, database_url: String) -> Config {
        Config {
            listen: "127.0.0.1:0".parse().expect("addr"),
            data_dir,
            database_url,
            database_max_connections: 4,
            ..Config::default()
        }
    }

    async fn serve(config: Config, extra: OpenApiRouter<AppState>) -> TestApp {
        Self::serve_clocked(config, extra, pv_cloud::kernel::time::Clock::system()).await
    }

    async fn serve_clocked(
        config: Config,
        extra: OpenApiRouter<AppState>,
        clock: pv_cloud::kernel::time::Clock,
    ) -> TestApp {
        let data_dir = config.data_dir.clone();
        let database_url = config.database_url.clone();
        let state = pv_cloud::server::prepare_with_clock(config, clock)
            .await
            .expect("prepare");
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
        let database_use = if is_postgres() {
            databases::acquire(&database_url)
        } else {
            None
        };
        TestApp {
            base: format!("http://{addr}"),
            client: crate::support::client::http(),
            state,
            data_dir,
            database_url,
            _tmp: None,
            stop: Some(stop),
            server: Some(server),
            _database: database_use,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Stops the server the way a signal would, waiting for in-flight requests.
    pub async fn stop(mut self) -> (PathBuf, String, Option<tempfile::TempDir>) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.expect("server task");
        }
        // As the hub's own stop does: its node id claim is freed for a successor.
        self.state.shutdown.begin();
        (self.data_dir.clone(), self.database_url.clone(), self._tmp.take())
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
