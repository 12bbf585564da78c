//! Starting and stopping the hub.

use std::sync::Arc;
use std::time::Instant;

use tokio::net::TcpListener;

use crate::config::Config;
use crate::kernel::db::{Db, DbError};
use crate::kernel::id::IdGenerator;
use crate::kernel::secret::{self, SecretError};
use crate::kernel::time;
use crate::state::AppState;

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("data directory {path}: {source}")]
    DataDir { path: String, source: std::io::Error },
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("device register maps: {0}")]
    DeviceMaps(String),
    #[error("seeding initial data: {0}")]
    Seed(String),
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: String, source: std::io::Error },
    #[error("server: {0}")]
    Serve(std::io::Error),
    #[error(transparent)]
    Broker(#[from] crate::telemetry::broker::BrokerError),
    #[error(transparent)]
    Tls(#[from] crate::kernel::tls::TlsError),
    #[error(transparent)]
    NodeId(#[from] crate::kernel::node_claim::NodeClaimError),
}

/// Prepares everything a server needs: data directory, secret, database and schema.
pub async fn prepare(config: Config) -> Result<AppState, StartError> {
    prepare_with_clock(config, time::Clock::system()).await
}

/// [`prepare`] with the hub's date-dependent work (partitions, retention, a station's "today")
/// reading `clock` instead of real time: what tests use to run on a chosen day.
pub async fn prepare_with_clock(config: Config, clock: time::Clock) -> Result<AppState, StartError> {
    // Outgoing HTTPS (object storage) runs rustls on ring; reqwest bundles no provider.
    let _ = rustls::crypto::ring::default_provider().install_default();
    std::fs::create_dir_all(&config.data_dir).map_err(|source| StartError::DataDir {
        path: config.data_dir.display().to_string(),
        source,
    })?;
    if let Some(offset) = time::parse_offset(&config.timezone) {
        time::init_offset(offset);
    }
    let token_secret = secret::load_or_create(&config.token_secret, &config.data_dir)?;
    let url = config.effective_database_url();
    let db = Db::connect(&url, config.database_max_connections).await?;
    tracing::info!(database = db.backend().name(), url = %crate::kernel::db::redact(&url), "database ready");
    match db.durability_warnings().await {
        Ok(warnings) => {
            for w in warnings {
                tracing::warn!("{w}");
            }
        }
        Err(e) => tracing::warn!(error = %e, "database durability settings unreadable"),
    }
    let shutdown = crate::kernel::shutdown::Shutdown::default();
    // Before the first id is minted: two live replicas with one node id would mint the same ids.
    if db.backend() == crate::kernel::db::Backend::Postgres {
        crate::kernel::node_claim::claim(&url, config.node_id, shutdown.clone()).await?;
    }
    let ids = Arc::new(IdGenerator::new(config.node_id));
    crate::system::seed::run(&db, &ids)
        .await
        .map_err(|e| StartError::Seed(e.to_string()))?;
    // Reports read the station-day summary: fill it for stations that have none yet (the first
    // start with it sums the day rollups already kept).
    match crate::telemetry::station_day::backfill(&db).await {
        Ok(n) if n > 0 => tracing::info!(stations = n, "station-day summary rebuilt"),
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "station-day summary backfill; reports rebuild it on use"),
    }
    if config.auth.expose_captcha_answer {
        tracing::warn!("auth.expose_captcha_answer is on: captcha answers are sent to clients (tests only)");
    }
    let station = crate::station::StationServices::load(&config).map_err(StartError::DeviceMaps)?;
    let credential_key =
        secret::load_or_create_named(&config.station.credential_key, &config.data_dir, "credential_key")?;
    let cluster = match db.backend() {
        crate::kernel::db::Backend::Postgres => crate::kernel::cluster::Cluster::join(&url, shutdown.clone())
            .await
            .map_err(|source| DbError::Connect {
                url: crate::kernel::db::redact(&url),
                source,
            })?,
        crate::kernel::db::Backend::Sqlite => Default::default(),
    };
    let core = crate::kernel::Core {
        db,
        ids,
        token_secret: token_secret.into(),
        config: Arc::new(config),
        started: Instant::now(),
        shutdown,
        meter: Default::default(),
        cluster,
        clock,
    };
    let resources = crate::resource::ResourceServices::new(credential_key.clone());
    let state = AppState::new(core, station.with_credential_key(credential_key), resources);
    crate::state::follow_other_replicas(&state);
    Ok(state)
}

/// Serves until `shutdown` resolves, lets in-flight requests finish, waits for the work they
/// left (log rows) and closes the pool.
pub async fn serve(
    state: AppState,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    let core = state.core.clone();
    let evaluation = state.evaluation.clone();
    let result = serve_http(state, listener, shutdown).await;
    core.shutdown.begin();
    // Without the data path (`run` stops it), nothing else ends the alarm engine, if one runs.
    evaluation.close();
    close(&core, None).await;
    result
}

async fn serve_http(
    state: AppState,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    serve_http_on(state, listener, None, shutdown).await
}

/// Serves HTTP, or HTTPS when `tls` is given.
async fn serve_http_on(
    state: AppState,
    listener: TcpListener,
    tls: Option<tokio_rustls::TlsAcceptor>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    use axum::serve::ListenerExt;
    let app = crate::app::assemble(state, crate::app::api_routes());
    // The peer address feeds the api log's remote ip when no proxy header names the client.
    let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    match tls {
        None => axum::serve(listener, app)
            .with_graceful_shutdown(shutdown)
            .await
            .map_err(StartError::Serve),
        // `tap_io` (doing nothing) is what gives a custom listener axum's socket-address
        // ConnectInfo.
        Some(tls) => {
            let listener = crate::kernel::tls::TlsListener::new(listener, tls).map_err(StartError::Serve)?;
            axum::serve(listener.tap_io(|_| ()), app)
                .with_graceful_shutdown(shutdown)
                .await
                .map_err(StartError::Serve)
        }
    }
}

/// How long the stop waits for the data path and the workers before closing the pool anyway.
const DRAIN_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

/// The end of the hub's stop, once `Core::shutdown` has begun and HTTP has stopped: the data
/// path (listener and reader, then the writers' queue, then the alarm engine's inbox), then every
/// worker's last pass and the work requests left, and only then the pool.
async fn close(core: &crate::kernel::Core, telemetry: Option<crate::telemetry::Telemetry>) {
    if let Some(t) = telemetry
        && tokio::time::timeout(DRAIN_LIMIT, t.stop()).await.is_err()
    {
        tracing::warn!("ingest did not drain in time; unacknowledged batches are resent after the restart");
    }
    if !core.shutdown.drained(DRAIN_LIMIT).await {
        tracing::warn!("workers still busy at shutdown; closing the database anyway");
    }
    core.db.close().await;
}

pub async fn run(config: Config) -> Result<(), StartError> {
    let addr = config.listen;
    // Certificate mistakes stop the start before anything else is touched.
    let https = if config.https.enabled() {
        Some(crate::kernel::tls::acceptor(
            &config.https,
            "https",
            crate::kernel::tls::Alpn::Http1,
        )?)
    } else {
        None
    };
    if config.broker.embedded && config.broker.tls.enabled() {
        crate::kernel::tls::acceptor(&config.broker.tls, "broker.tls", crate::kernel::tls::Alpn::None)?;
    }
    let state = prepare(config).await?;
    crate::demo::start(&state.station_ctx())
        .await
        .map_err(|e| StartError::Seed(e.to_string()))?;
    // The broker and ingest run beside the HTTP server until the hub stops.
    let telemetry = if state.config.telemetry.enabled {
        Some(start_data_path(&state).await?)
    } else {
        None
    };
    // Vendor clouds: the plants mapped to stations, polled into ingest (one replica per account).
    let _vendor = telemetry
        .as_ref()
        .map(|t| crate::vendor::poller::spawn(state.vendor_ctx(), t.ingest.clone()));
    // Smart warnings (dispersion, full-load hours) from the rollups, every 10 minutes.
    let _analytics =
        crate::analytics::job::spawn(state.alarm_ctx(), crate::analytics::job::JobConfig::default());
    // Monthly report files: checked hourly, produced once per station and month.
    let _reports = crate::report::monthly::spawn(state.core.clone(), std::time::Duration::from_secs(3600));
    // Repair deadlines: overdue orders marked and messaged once per deadline, every minute.
    crate::repair::deadline::spawn(state.alarm_ctx(), std::time::Duration::from_secs(60));
    // Inspection tasks: generated, announced and marked overdue every 5 minutes.
    let _inspections = crate::inspection::job::spawn(state.alarm_ctx(), std::time::Duration::from_secs(300));
    // Workflow boundary timers (escalations): fired once across replicas, checked every 30 s.
    crate::flow::job::spawn(state.core.clone(), std::time::Duration::from_secs(30));
    // SMS and e-mail: the outbox polled every 5 seconds on every replica, at once after an event here.
    crate::notify::deliver::spawn(state.resource_ctx(), std::time::Duration::from_secs(5));
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| StartError::Listen {
            addr: addr.to_string(),
            source,
        })?;
    let scheme = if https.is_some() { "https" } else { "http" };
    tracing::info!(%addr, "console and API at {scheme}://{addr}/");
    serve_metrics(&state).await?;
    let core = state.core.clone();
    // The signal starts the stop everywhere at once: HTTP stops accepting (in-flight requests
    // finish), and so do the gateways' listener, ingest's reader and the workers.
    let stop = {
        let core = core.clone();
        async move {
            shutdown_signal().await;
            core.shutdown.begin();
        }
    };
    let served = serve_http_on(state, listener, https, stop).await;
    core.shutdown.begin();
    close(&core, telemetry).await;
    served?;
    tracing::info!("stopped");
    Ok(())
}

/// The metrics listener, when `metrics.listen` asks for one; it stops with the hub.
pub async fn serve_metrics(state: &AppState) -> Result<Option<std::net::SocketAddr>, StartError> {
    let Some(addr) = state.config.metrics.listen else {
        return Ok(None);
    };
    let listen_error = |source| StartError::Listen {
        addr: addr.to_string(),
        source,
    };
    let listener = TcpListener::bind(addr).await.map_err(listen_error)?;
    let bound = listener.local_addr().map_err(listen_error)?;
    let core = state.core.clone();
    let app = crate::scrape::router(state.clone());
    tokio::spawn(async move {
        let stop = async move { core.shutdown.stopping().await };
        if let Err(e) = axum::serve(listener, app).with_graceful_shutdown(stop).await {
            tracing::warn!(error = %e, "metrics listener ended");
        }
    });
    tracing::info!(addr = %bound, "Prometheus metrics at http://{bound}{}", crate::scrape::PATH);
    Ok(Some(bound))
}

/// Starts the data path: the alarm engine first, so the first batch ingest stores is evaluated,
/// then the broker, ingest, presence, counters and rollups.
pub async fn start_data_path(state: &AppState) -> Result<crate::telemetry::Telemetry, StartError> {
    crate::alarm::engine::start(&state.alarm_ctx()).await;
    Ok(crate::telemetry::start(&state.telemetry_ctx()).await?)
}

/// Ctrl-C or SIGTERM (what `docker stop` and systemd send).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}
