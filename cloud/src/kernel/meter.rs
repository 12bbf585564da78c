//! The hub's operational instruments, exposed in Prometheus text at `/metrics` (see
//! `crate::scrape`). One `Meter` per hub (in `Core`), never a process-wide recorder: several hubs
//! in one test process keep their own counts. Counters and histograms are moved where things
//! happen (ingest, the writers, the alarm engine's inbox, the websocket feed, the HTTP layer);
//! gauges that mirror state kept elsewhere (pools, gateways, uptime) are set just before each
//! scrape. Every label takes a bounded set of values: reasons and pools are fixed lists, routes
//! are templates (`/api/station/{id}`, never the path itself), gateways appear one by one only up
//! to `metrics.per_gateway_max`.

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::prometheus_text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

type Labels = Vec<(&'static str, String)>;

/// Refusal reasons counted before any gateway is known (topic outside the layout, unknown id).
pub const UNATTRIBUTED: &str = "unattributed";

/// Seconds, from a few milliseconds (an idle hub acknowledges in ~1 ms) to half a minute (a
/// database that stalls, after which gateways resend anyway).
const LATENCY_BUCKETS: [f64; 13] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 30.0,
];

pub struct Meter {
    registry: Registry,
    pub samples_accepted: Counter,
    pub points_accepted: Counter,
    pub batches_stored: Counter,
    pub store_failures: Counter,
    refused: Family<Labels, Counter>,
    uplink_batches: Family<Labels, Counter>,
    uplink_bytes: Family<Labels, Counter>,
    /// From a batch's arrival at the hub to its acknowledgement being published.
    pub ack_latency: Histogram,
    pub writer_queue_depth: Gauge,
    pub writer_queue_capacity: Gauge,
    /// Waiting for a connection of the durable pool before an ingest transaction.
    pub db_acquire_wait: Histogram,
    pub alarm_inbox: Gauge,
    pub alarm_lag: Gauge<f64, AtomicU64>,
    pub ws_clients: Gauge,
    db_pool: Family<Labels, Gauge>,
    pub gateways_online: Gauge,
    pub gateways_offline: Gauge,
    gateway_online: Family<Labels, Gauge>,
    http_requests: Family<Labels, Counter>,
    pub uptime: Gauge<f64, AtomicU64>,
    build_info: Family<Labels, Gauge>,
}

impl std::fmt::Debug for Meter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Meter")
    }
}

impl Default for Meter {
    fn default() -> Self {
        Meter::new()
    }
}

impl Meter {
    pub fn new() -> Meter {
        let mut r = Registry::with_prefix("pv");
        let m = Meter {
            samples_accepted: Counter::default(),
            points_accepted: Counter::default(),
            batches_stored: Counter::default(),
            store_failures: Counter::default(),
            refused: Family::default(),
            uplink_batches: Family::default(),
            uplink_bytes: Family::default(),
            ack_latency: Histogram::new(LATENCY_BUCKETS),
            writer_queue_depth: Gauge::default(),
            writer_queue_capacity: Gauge::default(),
            db_acquire_wait: Histogram::new(LATENCY_BUCKETS),
            alarm_inbox: Gauge::default(),
            alarm_lag: Gauge::default(),
            ws_clients: Gauge::default(),
            db_pool: Family::default(),
            gateways_online: Gauge::default(),
            gateways_offline: Gauge::default(),
            gateway_online: Family::default(),
            http_requests: Family::default(),
            uptime: Gauge::default(),
            build_info: Family::default(),
            registry: Registry::default(),
        };
        r.register(
            "ingest_samples_accepted",
            "Samples stored and acknowledged (a resent sample counts again)",
            m.samples_accepted.clone(),
        );
        r.register(
            "ingest_points_accepted",
            "Metric values in the samples stored",
            m.points_accepted.clone(),
        );
        r.register(
            "ingest_batches_stored",
            "Batches acknowledged once stored (one whose samples were all refused counts too)",
            m.batches_stored.clone(),
        );
        r.register(
            "ingest_store_failures",
            "Write transactions given up (their batches are not acknowledged and are resent)",
            m.store_failures.clone(),
        );
        r.register(
            "ingest_refused",
            "Refused by reason: whole messages for malformed, oversized, wrong_version, gateway_mismatch and unattributed; samples for unknown_device and time_out_of_range",
            m.refused.clone(),
        );
        r.register(
            "ingest_uplink_batches",
            "Telemetry payloads received by encoding (json, binary), refused ones included",
            m.uplink_batches.clone(),
        );
        r.register(
            "ingest_uplink_bytes",
            "Bytes of telemetry payloads received by encoding",
            m.uplink_bytes.clone(),
        );
        r.register(
            "ingest_ack_latency_seconds",
            "From a batch's arrival to its acknowledgement",
            m.ack_latency.clone(),
        );
        r.register(
            "ingest_writer_queue_depth",
            "Accepted batches waiting for the writers",
            m.writer_queue_depth.clone(),
        );
        r.register(
            "ingest_writer_queue_capacity",
            "Batches the writers' queue holds before ingest stops reading the broker",
            m.writer_queue_capacity.clone(),
        );
        r.register(
            "db_acquire_wait_seconds",
            "Wait for a connection before an ingest write transaction",
            m.db_acquire_wait.clone(),
        );
        r.register(
            "db_pool_connections",
            "Open connections, idle ones and the limit per pool (state = open, idle, max)",
            m.db_pool.clone(),
        );
        r.register(
            "alarm_engine_inbox",
            "Hand-overs waiting for the alarm engine",
            m.alarm_inbox.clone(),
        );
        r.register(
            "alarm_engine_lag_seconds",
            "How long the oldest hand-over not yet taken by the alarm engine has waited (0 when none waits)",
            m.alarm_lag.clone(),
        );
        r.register(
            "websocket_clients",
            "Open alarm-bell websockets",
            m.ws_clients.clone(),
        );
        r.register(
            "gateways_online",
            "Provisioned gateways seen online",
            m.gateways_online.clone(),
        );
        r.register(
            "gateways_offline",
            "Provisioned gateways offline",
            m.gateways_offline.clone(),
        );
        r.register(
            "gateway_online",
            "1 when the gateway is online; only while the hub has at most metrics.per_gateway_max gateways",
            m.gateway_online.clone(),
        );
        r.register(
            "http_requests",
            "HTTP requests by route template, method and status",
            m.http_requests.clone(),
        );
        r.register(
            "process_uptime_seconds",
            "Seconds since the hub started",
            m.uptime.clone(),
        );
        r.register(
            "build_info",
            "Always 1; the labels name the version and the database back-end",
            m.build_info.clone(),
        );
        // Every reason from the start, so a rate over a reason that has never happened is 0,
        // not absent.
        for reason in REASONS {
            drop(m.refused.get_or_create(&vec![("reason", (*reason).to_owned())]));
        }
        Meter { registry: r, ..m }
    }

    /// Counts `n` refusals for `reason` (a `telemetry::stats::Reason` key or [`UNATTRIBUTED`]).
    pub fn refuse(&self, reason: &'static str, n: u64) {
        self.refused
            .get_or_create(&vec![("reason", reason.to_owned())])
            .inc_by(n);
    }

    /// Counts a telemetry payload of `bytes` in `encoding` (a `wire::Encoding` name).
    pub fn uplink(&self, encoding: &'static str, bytes: usize) {
        let labels = vec![("encoding", encoding.to_owned())];
        self.uplink_batches.get_or_create(&labels).inc();
        self.uplink_bytes.get_or_create(&labels).inc_by(bytes as u64);
    }

    /// Telemetry payloads received in `encoding`.
    pub fn uplink_batches(&self, encoding: &str) -> u64 {
        self.uplink_batches
            .get_or_create(&vec![("encoding", encoding.to_owned())])
            .get()
    }

    pub fn refused(&self, reason: &str) -> u64 {
        self.refused
            .get_or_create(&vec![("reason", reason.to_owned())])
            .get()
    }

    pub fn http_request(&self, route: &str, method: &str, status: u16) {
        self.http_requests
            .get_or_create(&vec![
                ("route", route.to_owned()),
                ("method", method.to_owned()),
                ("status", status.to_string()),
            ])
            .inc();
    }

    pub fn pool(&self, pool: &'static str, open: u32, idle: usize, max: u32) {
        for (state, v) in [
            ("open", i64::from(open)),
            ("idle", idle as i64),
            ("max", i64::from(max)),
        ] {
            self.db_pool
                .get_or_create(&vec![("pool", pool.to_owned()), ("state", state.to_owned())])
                .set(v);
        }
    }

    /// Replaces the per-gateway series (`None`: too many gateways, none is shown).
    pub fn gateways(&self, online: i64, offline: i64, each: Option<Vec<(String, bool)>>) {
        self.gateways_online.set(online);
        self.gateways_offline.set(offline);
        // Cleared every scrape so a deleted gateway's series goes away.
        self.gateway_online.clear();
        for (id, on) in each.into_iter().flatten() {
            self.gateway_online
                .get_or_create(&vec![("gateway", id)])
                .set(i64::from(on));
        }
    }

    pub fn build(&self, version: &str, backend: &str) {
        self.build_info
            .get_or_create(&vec![
                ("version", version.to_owned()),
                ("backend", backend.to_owned()),
            ])
            .set(1);
    }

    /// The Prometheus text exposition (format 0.0.4).
    pub fn encode(&self) -> String {
        let mut out = String::new();
        if prometheus_text::encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }
}

/// Keeps a gauge raised while alive (an open websocket, say).
pub struct Held(Gauge);

impl Held {
    pub fn new(gauge: &Gauge) -> Held {
        gauge.inc();
        Held(gauge.clone())
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// The refusal reasons, as `telemetry::stats::Reason::key` names them (the kernel cannot name
/// the telemetry domain; a unit test there checks both lists agree).
pub const REASONS: &[&str] = &[
    "malformed",
    "oversized",
    "wrong_version",
    "gateway_mismatch",
    "unknown_device",
    "time_out_of_range",
    UNATTRIBUTED,
];
