//! Ingest throughput and latency of the real data path: many gateways (rumqttc clients over
//! loopback TCP, signed in through the gatekeeper with argon2-checked credentials) publish
//! telemetry batches to the embedded broker; ingest checks them, puts the newest sample of each
//! device into the realtime view, stores them (raw, latest, rollup marks), acknowledges, and the
//! rollup worker runs. Each gateway keeps `BENCH_WINDOW` batches unacknowledged at most, as the
//! edge does (giving a batch up only after the edge's 60 s ack timeout; until 2026-11-23 it was
//! 5 s, which let gateways exceed the window whenever acks took longer), so the rate measured is
//! what is stored *and acknowledged*.
//!
//! Latency, under that load, of a probe gateway publishing one sample every 100 ms:
//! - `view_latency`: publish → the realtime view (what live API calls read) shows the sample.
//!   The view is updated when ingest accepts a batch, *before* it is stored (since issue 7's
//!   replica work; earlier figures measured view updates made after the commit).
//! - `ack_latency`: publish → the probe receives the acknowledgement, which ingest sends only
//!   after the sample's transaction committed: sample → stored.
//!
//! Knobs: BENCH_SECONDS (20), BENCH_GATEWAYS (40), BENCH_DEVICES (25 per gateway),
//! BENCH_METRICS (30 per sample), BENCH_BATCH (200 samples), BENCH_WINDOW (4),
//! BENCH_DATABASE_URL (empty: SQLite file in a temp dir; `postgres://...` for PostgreSQL; a
//! fresh database is created on it).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use argon2::Argon2;
use argon2::password_hash::PasswordHasher;
use pv_bench::{figure, knob, percentile_ms};
use pv_cloud::config::Config;
use pv_cloud::kernel::sql::{Sql, Value};
use pv_shared::topics;
use pv_shared::wire::{self, Sample, TelemetryBatch};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};

const PASSWORD: &str = "bench-gateway-password";

async fn exec(state: &pv_cloud::state::AppState, text: &str, values: Vec<Value>) -> anyhow::Result<()> {
    let mut sql = Sql::default();
    sql.push_bind(text, values);
    let (text, args) = sql.build().map_err(|e| anyhow::anyhow!("{e}"))?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(state.db.pool())
        .await?;
    Ok(())
}

fn values(metrics: usize, i: u64, energy: f64) -> std::collections::BTreeMap<String, wire::Value> {
    let mut v: std::collections::BTreeMap<String, wire::Value> = (0..metrics.saturating_sub(2))
        .map(|m| {
            (
                format!("metric_{m}"),
                wire::Value::Number((i * 7 + m as u64) as f64 * 0.5),
            )
        })
        .collect();
    v.insert("ac_power".into(), wire::Value::Number((i % 1000) as f64 * 10.0));
    v.insert("energy_total".into(), wire::Value::Number(energy));
    v
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let seconds: u64 = knob("BENCH_SECONDS", 20);
    let gateways: usize = knob("BENCH_GATEWAYS", 40);
    let devices: usize = knob("BENCH_DEVICES", 25);
    let metrics: usize = knob("BENCH_METRICS", 30);
    let batch: usize = knob("BENCH_BATCH", 200);
    let window: usize = knob("BENCH_WINDOW", 4);
    let db_url: String = knob("BENCH_DATABASE_URL", String::new());

    let dir = tempfile::tempdir()?;
    let database_url = if db_url.starts_with("postgres") {
        sqlx::any::install_default_drivers();
        let name = format!("pv_bench_{}", std::process::id());
        let pool = sqlx::AnyPool::connect(&db_url).await?;
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&pool)
            .await?;
        pool.close().await;
        format!(
            "{}/{name}",
            db_url.rsplit_once('/').map(|(b, _)| b).unwrap_or(&db_url)
        )
    } else {
        String::new()
    };
    let backend = if database_url.is_empty() {
        "sqlite"
    } else {
        "postgres"
    };
    let mut config = Config {
        data_dir: dir.path().to_path_buf(),
        database_url,
        ..Config::default()
    };
    config.broker.listen = "127.0.0.1:0".parse()?;
    let state = pv_cloud::server::prepare(config).await?;

    // Provisioning straight into the registry tables (what the API would write).
    let hash = Argon2::default()
        .hash_password(PASSWORD.as_bytes())
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .to_string();
    let now = pv_cloud::kernel::time::now_ms();
    for g in 0..gateways {
        let station = state.ids.next().0;
        let gw = format!("BENCH-GW-{g}");
        exec(&state, "INSERT INTO pv_station (id, tenant_id, name, gateway_id, create_time) VALUES (?, '000000', ?, ?, ?)",
            vec![Value::Int(station), Value::Text(gw.clone()), Value::Text(gw.clone()), Value::Int(now)]).await?;
        exec(&state, "INSERT INTO pv_gateway_credential (id, tenant_id, station_id, gateway_id, password_hash, issued_at) VALUES (?, '000000', ?, ?, ?, ?)",
            vec![Value::Int(state.ids.next().0), Value::Int(station), Value::Text(gw.clone()), Value::Text(hash.clone()), Value::Int(now)]).await?;
        for d in 0..devices {
            exec(&state, "INSERT INTO pv_inverter (id, tenant_id, station_id, name, sn, create_time) VALUES (?, '000000', ?, ?, ?, ?)",
                vec![Value::Int(state.ids.next().0), Value::Int(station), Value::Text(format!("inv {d}")), Value::Text(format!("{gw}-INV-{d}")), Value::Int(now)]).await?;
        }
    }
    // The latency probe: its own gateway with one device.
    let probe_station = state.ids.next().0;
    let probe_device = state.ids.next().0;
    exec(&state, "INSERT INTO pv_station (id, tenant_id, name, gateway_id, create_time) VALUES (?, '000000', 'probe', 'BENCH-PROBE', ?)",
        vec![Value::Int(probe_station), Value::Int(now)]).await?;
    exec(&state, "INSERT INTO pv_gateway_credential (id, tenant_id, station_id, gateway_id, password_hash, issued_at) VALUES (?, '000000', ?, 'BENCH-PROBE', ?, ?)",
        vec![Value::Int(state.ids.next().0), Value::Int(probe_station), Value::Text(hash.clone()), Value::Int(now)]).await?;
    exec(&state, "INSERT INTO pv_inverter (id, tenant_id, station_id, name, sn, create_time) VALUES (?, '000000', ?, 'probe', 'PROBE-INV', ?)",
        vec![Value::Int(probe_device), Value::Int(probe_station), Value::Int(now)]).await?;
    let telemetry = pv_cloud::server::start_data_path(&state).await?;
    let addr = telemetry
        .gateway_addr
        .ok_or_else(|| anyhow::anyhow!("no embedded broker"))?;
    eprintln!(
        "ingest_throughput: {backend}, {gateways} gateways × {devices} devices, {metrics} metrics/sample, \
         batches of {batch}, window {window}, {seconds}s, broker on {addr}"
    );

    let acked_samples = Arc::new(AtomicU64::new(0));
    let measuring = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let deadline = Instant::now() + Duration::from_secs(seconds + 3);
    let mut tasks = Vec::new();
    for g in 0..gateways {
        let gw = format!("BENCH-GW-{g}");
        let acked = acked_samples.clone();
        let measuring = measuring.clone();
        tasks.push(tokio::spawn(async move {
            let mut o = MqttOptions::new(&gw, addr.ip().to_string(), addr.port());
            o.set_keep_alive(Duration::from_secs(30))
                .set_clean_session(true)
                .set_credentials(&gw, PASSWORD)
                .set_max_packet_size(300 * 1024, 300 * 1024);
            let (client, mut eventloop) = AsyncClient::new(o, 64);
            let (ack_tx, mut ack_rx) = tokio::sync::mpsc::unbounded_channel::<u64>();
            let sub = client.clone();
            let down = topics::downlink_filter(&gw).unwrap_or_default();
            tokio::spawn(async move {
                loop {
                    match eventloop.poll().await {
                        Ok(Event::Incoming(Packet::ConnAck(_))) => {
                            let _ = sub.try_subscribe(down.clone(), QoS::AtLeastOnce);
                        }
                        Ok(Event::Incoming(Packet::Publish(p))) => {
                            if let Ok(a) = wire::parse::<wire::Ack>(&p.payload) {
                                let _ = ack_tx.send(a.last_seq - a.first_seq + 1);
                            }
                        }
                        Ok(_) => {}
                        Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                    }
                }
            });
            tokio::time::sleep(Duration::from_millis(500)).await;
            let topic = topics::telemetry(&gw).unwrap_or_default();
            let base_ts = pv_cloud::kernel::time::now_ms() - 3_600_000;
            let mut seq = 1u64;
            let mut in_flight = 0usize;
            let mut energy = 0.0;
            while Instant::now() < deadline {
                while in_flight < window {
                    let samples: Vec<Sample> = (0..batch)
                        .map(|i| {
                            let s = seq + i as u64;
                            let d = (s as usize) % devices;
                            energy += 1.5;
                            Sample {
                                seq: s,
                                device: format!("{gw}-INV-{d}"),
                                // Unique per device: one sample per device per `devices` seqs.
                                ts: base_ts + (s / devices as u64) as i64 * 100,
                                values: values(metrics, s, energy),
                                suspect: Default::default(),
                            }
                        })
                        .collect();
                    seq += batch as u64;
                    let b = TelemetryBatch::new(&gw, false, samples);
                    let Ok(bytes) = wire::to_bytes(&b) else { return };
                    let _ = client
                        .publish(topic.clone(), QoS::AtLeastOnce, false, bytes)
                        .await;
                    in_flight += 1;
                }
                // The edge's default ack timeout (`mqtt.ack_timeout_s`). A shorter one would
                // publish new batches while the unacknowledged ones still wait in ingest, i.e.
                // exceed the window under exactly the load being measured.
                match tokio::time::timeout(Duration::from_secs(60), ack_rx.recv()).await {
                    Ok(Some(n)) => {
                        in_flight -= 1;
                        if measuring.load(Ordering::Relaxed) {
                            acked.fetch_add(n, Ordering::Relaxed);
                        }
                    }
                    // A batch lost in the broker: the edge would resend; here just move on.
                    _ => in_flight = 0,
                }
            }
        }));
    }

    // Latency: every 100 ms the probe gateway publishes one sample stamped now; the time until
    // the realtime view shows it is the sample → view latency under the load above.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut o = MqttOptions::new("BENCH-PROBE", addr.ip().to_string(), addr.port());
    o.set_keep_alive(Duration::from_secs(30))
        .set_clean_session(true)
        .set_credentials("BENCH-PROBE", PASSWORD);
    let (probe, mut probe_loop) = AsyncClient::new(o, 64);
    // Sent time per probe seq; the ack handler turns each into an ack latency.
    let probe_sent: Arc<std::sync::Mutex<std::collections::HashMap<u64, Instant>>> = Arc::default();
    let ack_latencies: Arc<std::sync::Mutex<Vec<Duration>>> = Arc::default();
    {
        let (sent, lat, sub) = (probe_sent.clone(), ack_latencies.clone(), probe.clone());
        let down = topics::downlink_filter("BENCH-PROBE")?;
        tokio::spawn(async move {
            loop {
                match probe_loop.poll().await {
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        let _ = sub.try_subscribe(down.clone(), QoS::AtLeastOnce);
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        if let Ok(a) = wire::parse::<wire::Ack>(&p.payload) {
                            let at = sent.lock().unwrap_or_else(|e| e.into_inner()).remove(&a.last_seq);
                            if let Some(at) = at {
                                lat.lock().unwrap_or_else(|e| e.into_inner()).push(at.elapsed());
                            }
                        }
                    }
                    Ok(_) => {}
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        });
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    measuring.store(true, Ordering::Relaxed);
    let started = Instant::now();
    let mut latencies = Vec::new();
    let view = state.realtime.clone();
    let probe_topic = topics::telemetry("BENCH-PROBE")?;
    let mut probe_seq = 1u64;
    let mut lost = 0u64;
    while started.elapsed() < Duration::from_secs(seconds) {
        let ts = pv_cloud::kernel::time::now_ms();
        let b = TelemetryBatch::new(
            "BENCH-PROBE",
            false,
            vec![Sample {
                seq: probe_seq,
                device: "PROBE-INV".into(),
                ts,
                values: values(metrics, probe_seq, 0.0),
                suspect: Default::default(),
            }],
        );
        let sent = Instant::now();
        probe_sent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(probe_seq, sent);
        probe_seq += 1;
        probe
            .publish(probe_topic.clone(), QoS::AtLeastOnce, false, wire::to_bytes(&b)?)
            .await?;
        loop {
            if view.device(probe_device).is_some_and(|d| d.ts >= ts) {
                latencies.push(sent.elapsed());
                break;
            }
            if sent.elapsed() > Duration::from_secs(10) {
                lost += 1;
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let next = sent + Duration::from_millis(100);
        tokio::time::sleep_until(next.into()).await;
    }
    if lost > 0 {
        eprintln!("ingest_throughput: {lost} probe samples not in the view within 10 s");
    }
    let elapsed = started.elapsed().as_secs_f64();
    measuring.store(false, Ordering::Relaxed);
    let samples = acked_samples.load(Ordering::Relaxed) as f64;
    // The last probes' acks are still on their way: give them the time the others took.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let unacked = probe_sent.lock().unwrap_or_else(|e| e.into_inner()).len();
    if unacked > 0 {
        eprintln!("ingest_throughput: {unacked} probe samples not acknowledged within 3 s of the end");
    }
    let mut ack_latencies = std::mem::take(&mut *ack_latencies.lock().unwrap_or_else(|e| e.into_inner()));
    for t in tasks {
        t.abort();
    }
    latencies.sort();
    figure(
        &format!("ingest_{backend}_samples_per_s"),
        (samples / elapsed).round(),
        "samples/s",
    );
    figure(
        &format!("ingest_{backend}_points_per_s"),
        (samples * metrics as f64 / elapsed).round(),
        "points/s",
    );
    if !latencies.is_empty() {
        figure(
            &format!("ingest_{backend}_view_latency_p50"),
            percentile_ms(&latencies, 50.0),
            "ms",
        );
        figure(
            &format!("ingest_{backend}_view_latency_p99"),
            percentile_ms(&latencies, 99.0),
            "ms",
        );
    }
    ack_latencies.sort();
    if !ack_latencies.is_empty() {
        figure(
            &format!("ingest_{backend}_ack_latency_p50"),
            percentile_ms(&ack_latencies, 50.0),
            "ms",
        );
        figure(
            &format!("ingest_{backend}_ack_latency_p99"),
            percentile_ms(&ack_latencies, 99.0),
            "ms",
        );
    }
    Ok(())
}
