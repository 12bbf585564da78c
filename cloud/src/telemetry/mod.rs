//! Telemetry from station gateways: the MQTT broker and ingest, raw storage, rollups and the
//! in-memory realtime view that live screens read.
//!
//! - `broker`: embedded rumqttd (or an external broker) and the downlink for acks;
//! - `gatekeeper`: the gateway-facing listener that signs gateways in and keeps each to its
//!   own topics;
//! - `ingest`: checks, stores, updates the view, acknowledges (`store` holds its SQL);
//! - `ownership`: which replica ingests which gateway (leases, with several hubs on PostgreSQL);
//! - `follow`: the realtime view of gateways another replica ingests;
//! - `registry`, `presence`, `stats`, `rollup`, `retention`; `admin`: the operator's view;
//! - `raw`: reads raw samples, recent rows and the hours `compact` packed into `block`s;
//! - `station_day`, `station_hour`: the station summaries the rollup worker keeps for reports.

pub mod admin;
pub mod api;
pub mod block;
pub mod broker;
pub mod commands;
pub mod compact;
pub mod context;
pub mod direct;
pub mod events;
pub mod follow;
pub mod gatekeeper;
pub mod ingest;
pub mod ownership;
pub mod partition;
pub mod polls;
pub mod presence;
pub mod raw;
pub mod realtime;
pub mod registry;
pub mod retention;
pub mod rollup;
pub mod station_day;
pub mod station_hour;
pub mod stats;
pub mod store;
pub mod store_pg;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::kernel::time;
use broker::BrokerError;
use ingest::Ingest;
use presence::Presence;
use registry::Registry;
use stats::Stats;

pub use context::TelemetryCtx;

/// The running data path.
pub struct Telemetry {
    pub ingest: Arc<Ingest>,
    /// Where gateways connect (the embedded broker's gatekeeper, over TLS when `broker.tls` is
    /// set), if embedded.
    pub gateway_addr: Option<SocketAddr>,
    /// Wakes the rollup worker (tests).
    pub rollups: Arc<tokio::sync::Notify>,
    /// The broker reader, the silence sweep and the counter flush, ended by [`Telemetry::stop`].
    tasks: Vec<tokio::task::JoinHandle<()>>,
    evaluation: Arc<crate::telemetry::events::Evaluation>,
}

impl Telemetry {
    /// The data path's part of the hub's stop, once `Core::shutdown` has begun: the gateways'
    /// listener, the broker reader and the silence sweep end first (so connections the stop
    /// closes are never taken for outages); the writers store and acknowledge what was queued;
    /// the counters are flushed; then the evaluator's inbox closes, and the evaluator ends after
    /// taking what it was handed.
    pub async fn stop(mut self) {
        for t in self.tasks.drain(..) {
            let _ = t.await;
        }
        self.ingest.drain().await;
        let i = &self.ingest;
        flush_counters(i.state(), &i.stats, &i.registry).await;
        self.evaluation.close();
    }
}

/// Starts the broker (embedded or external), ingest, presence, counters and rollups.
pub async fn start(state: &TelemetryCtx) -> Result<Telemetry, BrokerError> {
    let cfg = state.config.telemetry.clone();
    let stats = Arc::new(Stats::metered(state.meter.clone()));
    let registry = Arc::new(Registry::new(
        state.db.clone(),
        Duration::from_secs(cfg.registry_ttl_seconds),
        Duration::from_secs(cfg.registry_negative_ttl_seconds),
    ));
    let presence = Arc::new(Presence::new(state.clone()));
    if let Ok(n) = state.realtime.load(&state.db).await {
        tracing::info!(devices = n, "realtime view loaded");
    }
    let loaded: Vec<i64> = state
        .realtime
        .gateways()
        .iter()
        .flat_map(|g| state.realtime.station(g.station_id))
        .map(|d| d.device_id)
        .collect();
    presence.grace_for_loaded(loaded);

    // Several hubs share a PostgreSQL: each ingests only the gateways it leases. A SQLite
    // file belongs to one hub, which owns every gateway.
    let leases = (!state.config.broker.embedded
        && state.db.backend() == crate::kernel::db::Backend::Postgres)
        .then(|| {
            let b = &state.config.broker;
            let timing = ownership::Timing {
                lease: Duration::from_secs(b.lease_seconds),
                heartbeat: Duration::from_secs(b.lease_heartbeat_seconds),
            };
            let replica = ownership::replica_id(state.config.node_id);
            ownership::Leases::new(state.db.clone(), replica, timing, ownership::Owned::new())
        });
    if let Some(l) = &leases {
        presence.follow_leases(l.owned());
    }
    let uplink = match &leases {
        Some(l) => broker::Uplink::Owned(l.owned()),
        None => broker::Uplink::All,
    };
    let (connected, gateway_addr) = if state.config.broker.embedded {
        let secret: Arc<str> = {
            let mut b = [0u8; 32];
            getrandom::fill(&mut b).map_err(|e| BrokerError::Start(e.to_string()))?;
            hex::encode(b).into()
        };
        let (internal, connected) = broker::start_embedded(secret.clone())?;
        let auth = Arc::new(gatekeeper::GatewayAuth::new(
            state.clone(),
            Duration::from_secs(cfg.auth_cache_seconds),
        ));
        let addr = gatekeeper::listen(state, internal, secret, auth, stats.clone()).await?;
        (connected, Some(addr))
    } else {
        (
            broker::start_external(&state.config.broker, state.config.node_id, uplink)?,
            None,
        )
    };

    state.commands.attach(connected.downlink.clone());
    // Whoever evaluates samples (the alarm engine) is started before this by the caller
    // (`server::start_data_path`), so the first stored batch is evaluated.
    let ingest = Ingest::start(
        state.clone(),
        registry.clone(),
        stats.clone(),
        presence.clone(),
        connected.downlink,
    );
    let mut tasks = vec![
        tokio::spawn(ingest.clone().run(connected.incoming)),
        presence::spawn_sweeper(presence, cfg.gateway_silence_seconds, cfg.device_silence_seconds),
        spawn_counter_flush(state.clone(), stats, registry, cfg.state_flush_seconds),
    ];
    tasks.extend(leases.map(|l| ownership::spawn(l, state.shutdown.clone())));
    tasks.extend(follow::spawn(state.clone()));
    // An external Mosquitto: its gateway accounts follow the database from now on.
    tasks.extend(crate::station::broker_accounts::spawn(
        state.db.clone(),
        state.config.broker.clone(),
        state.shutdown.clone(),
    ));
    let rollups = rollup::spawn_worker(state.clone());
    Ok(Telemetry {
        ingest,
        gateway_addr,
        rollups,
        tasks,
        evaluation: state.evaluation.clone(),
    })
}

/// Adds what was counted since the last flush to `pv_gateway_state` every `period` seconds
/// (deltas, so replicas sum: see `stats`), until the hub stops.
fn spawn_counter_flush(
    state: TelemetryCtx,
    stats: Arc<Stats>,
    registry: Arc<Registry>,
    period: u64,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(period.max(1)));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                // The last flush is `Telemetry::stop`'s, after the writers drained.
                _ = state.shutdown.stopping() => return,
                _ = tick.tick() => {}
            }
            flush_counters(&state, &stats, &registry).await;
        }
    })
}

/// One flush: every gateway's pending delta is added to its stored totals, or given back to be
/// added next time when the registry or the database fails (counts are not lost to a blip).
pub async fn flush_counters(state: &crate::kernel::Core, stats: &Stats, registry: &Registry) {
    for (gw, delta) in stats.take_pending() {
        let entry = match registry.gateway(&gw).await {
            Ok(Some(e)) => e,
            // No longer provisioned: there is no row to count into.
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!(gateway = %gw, error = %e, "gateway lookup for counters");
                stats.restore(&gw, delta);
                continue;
            }
        };
        let key = store::GatewayKey {
            gateway_id: &gw,
            tenant_id: &entry.tenant_id,
            station_id: entry.station_id,
        };
        if let Err(e) = store::add_gateway_counters(
            &state.db,
            key,
            delta.accepted,
            &delta.rejected_by_key(),
            time::now_ms(),
        )
        .await
        {
            tracing::warn!(gateway = %gw, error = %e, "storing gateway counters");
            stats.restore(&gw, delta);
            continue;
        }
        if let Some(encoding) = delta.encoding
            && let Err(e) =
                store::add_gateway_uplink(&state.db, &gw, encoding, delta.uplink_bytes, delta.uplink_samples)
                    .await
        {
            // The counters above are stored: only the uplink figures are given back.
            tracing::warn!(gateway = %gw, error = %e, "storing gateway uplink figures");
            stats.restore(
                &gw,
                stats::Counters {
                    uplink_bytes: delta.uplink_bytes,
                    uplink_samples: delta.uplink_samples,
                    encoding: delta.encoding,
                    ..Default::default()
                },
            );
        }
    }
}

/// The telemetry (the operator's view of ingest, realtime pages) routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    TelemetryCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(admin::gateways))
        .routes(routes!(api::inverter_real::list))
        .routes(routes!(api::inverter_real::list_wave_name))
        .routes(routes!(api::inverter_real::list_wave_tag))
        .routes(routes!(api::device_real::list))
        .routes(routes!(api::device_real::curve))
        .routes(routes!(api::device_quality::list))
        .routes(routes!(api::flex_real::real_time_data))
        .routes(routes!(api::flex_real::data_by_sensor))
}
