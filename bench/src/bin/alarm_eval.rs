//! Alarm evaluation cost and fault → bell latency.
//!
//! (a) `alarm_eval_ns_per_sample`: the engine's evaluation of one sample without the database —
//! fault table (the Sungrow map: a code point), unknown-code handling, the threshold rules
//! (temperature, voltage, frequency, zero output) and the debounce state machine — over many
//! devices with realistic 30-metric inverter samples, about 1 % of them carrying a fault code.
//!
//! (b) `alarm_bell_latency_p50/p99`: a real hub (SQLite file, embedded broker, ingest, engine,
//! HTTP server) with gateways publishing ordinary telemetry as background load; a probe gateway
//! injects a fault code into a fresh inverter every `BENCH_INJECT_MS`; a websocket client signed
//! in as the tenant administrator listens on `/ws/{userId}` and timestamps each feed message that
//! shows the new alarm, against the time the probe published the sample.
//!
//! Knobs: BENCH_EVAL_DEVICES (10000), BENCH_EVAL_SAMPLES (2000000), BENCH_SECONDS (15),
//! BENCH_GATEWAYS (10), BENCH_DEVICES (25 per gateway), BENCH_PERIOD_MS (1000: each gateway
//! sends one sample per device per period), BENCH_INJECT_MS (250).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use argon2::Argon2;
use argon2::password_hash::PasswordHasher;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use pv_bench::{figure, knob, percentile_ms};
use pv_cloud::alarm::bench::Bench;
use pv_cloud::alarm::faults::FaultIndex;
use pv_cloud::config::Config;
use pv_cloud::kernel::sql::{Sql, Value};
use pv_shared::topics;
use pv_shared::wire::{self, Sample, TelemetryBatch};
use rumqttc::{AsyncClient, MqttOptions, QoS};

const PASSWORD: &str = "bench-gateway-password";
/// MD5 of "admin", as the console sends the seeded administrator's password.
const ADMIN_MD5: &str = "21232f297a57a5a743894a0e4a801fc3";

/// A realistic inverter sample: 30 metrics of a three-phase string inverter.
fn inverter_values(i: u64, fault: f64) -> BTreeMap<String, wire::Value> {
    let x = (i % 97) as f64;
    let mut v = BTreeMap::new();
    let mut put = |k: &str, n: f64| {
        v.insert(k.to_owned(), wire::Value::Number(n));
    };
    put("ac_power", 40_000.0 + x * 10.0);
    put("dc_power", 41_000.0 + x * 10.0);
    put("energy_total", 1_000_000.0 + i as f64);
    put("energy_today", 120.0 + x);
    put("temperature", 45.0 + x / 10.0);
    put("grid_voltage_ab", 400.0 + x / 10.0);
    put("grid_voltage_bc", 401.0);
    put("grid_voltage_ca", 399.0);
    put("ac_current_a", 58.0);
    put("ac_current_b", 58.1);
    put("ac_current_c", 57.9);
    put("ac_reactive_power", 100.0);
    put("power_factor", 0.99);
    put("grid_frequency", 50.0 + x / 1000.0);
    put("status_code", 0.0);
    put("fault_code", fault);
    put("insulation_resistance", 2000.0);
    put("running_time_total", 10_000.0);
    for n in 1..=3 {
        put(&format!("mppt{n}_voltage"), 600.0 + n as f64);
        put(&format!("mppt{n}_current"), 20.0 + n as f64);
    }
    for n in 1..=6 {
        put(&format!("pv{n}_current"), 9.0 + n as f64 / 10.0);
    }
    v
}

fn eval_cost() {
    let devices: u64 = knob("BENCH_EVAL_DEVICES", 10_000);
    let samples: u64 = knob("BENCH_EVAL_SAMPLES", 2_000_000);
    let mut bench = Bench::new(FaultIndex::load(&Config::default()));
    // Pre-built samples (building them is not the engine's cost); 1 in 100 carries a fault.
    let pool: Vec<BTreeMap<String, wire::Value>> = (0..1000u64)
        .map(|i| inverter_values(i, if i % 100 == 7 { 2.0 } else { 0.0 }))
        .collect();
    let mut actions = 0usize;
    let started = Instant::now();
    for i in 0..samples {
        let device = (i % devices) as i64;
        let ts = 1_700_000_000_000 + (i / devices) as i64 * 5_000;
        // The faulty samples move across devices round by round, so faults appear, re-trigger
        // and clear (debounce work) rather than staying on the same devices.
        let round = i / devices;
        let pick = ((round * 13 + device as u64) % 1000) as usize;
        actions += bench.sample(device, Some("sungrow-sg-cx"), ts, &pool[pick]);
    }
    let elapsed = started.elapsed();
    eprintln!(
        "alarm_eval: {samples} samples over {devices} devices, 30 metrics, {actions} raise/clear actions, {:.2}s",
        elapsed.as_secs_f64()
    );
    figure(
        "alarm_eval_ns_per_sample",
        (elapsed.as_nanos() as f64 / samples as f64).round(),
        "ns",
    );
}

async fn exec(state: &pv_cloud::state::AppState, text: &str, values: Vec<Value>) -> anyhow::Result<()> {
    let mut sql = Sql::default();
    sql.push_bind(text, values);
    let (text, args) = sql.build().map_err(|e| anyhow::anyhow!("{e}"))?;
    sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(state.db.pool())
        .await?;
    Ok(())
}

/// Provisions a gateway's station with `devices` inverters named `{gw}-INV-{d}`.
async fn provision(
    state: &pv_cloud::state::AppState,
    gw: &str,
    devices: usize,
    hash: &str,
) -> anyhow::Result<()> {
    let now = pv_cloud::kernel::time::now_ms();
    let station = state.ids.next().0;
    exec(
        state,
        "INSERT INTO pv_station (id, tenant_id, name, gateway_id, create_time) VALUES (?, '000000', ?, ?, ?)",
        vec![
            Value::Int(station),
            Value::Text(gw.into()),
            Value::Text(gw.into()),
            Value::Int(now),
        ],
    )
    .await?;
    exec(state, "INSERT INTO pv_gateway_credential (id, tenant_id, station_id, gateway_id, password_hash, issued_at) VALUES (?, '000000', ?, ?, ?, ?)",
        vec![Value::Int(state.ids.next().0), Value::Int(station), Value::Text(gw.into()), Value::Text(hash.into()), Value::Int(now)]).await?;
    for d in 0..devices {
        exec(state, "INSERT INTO pv_inverter (id, tenant_id, station_id, name, sn, map_model, create_time) VALUES (?, '000000', ?, ?, ?, 'sungrow-sg-cx', ?)",
            vec![Value::Int(state.ids.next().0), Value::Int(station), Value::Text(format!("inv {d}")), Value::Text(format!("{gw}-INV-{d}")), Value::Int(now)]).await?;
    }
    Ok(())
}

async fn gateway(addr: std::net::SocketAddr, gw: &str) -> AsyncClient {
    let mut o = MqttOptions::new(gw, addr.ip().to_string(), addr.port());
    o.set_keep_alive(Duration::from_secs(30))
        .set_clean_session(true)
        .set_credentials(gw, PASSWORD)
        .set_max_packet_size(300 * 1024, 300 * 1024);
    let (client, mut eventloop) = AsyncClient::new(o, 64);
    tokio::spawn(async move {
        loop {
            if eventloop.poll().await.is_err() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    });
    client
}

/// Signs the seeded administrator in over HTTP; returns (user id, access token).
async fn sign_in(http: std::net::SocketAddr) -> anyhow::Result<(String, String)> {
    let stream = tokio::net::TcpStream::connect(http).await?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    tokio::spawn(conn);
    let uri = format!(
        "/api/blade-auth/oauth/token?tenantId=000000&username=admin&password={ADMIN_MD5}&grant_type=password&scope=all"
    );
    let req = hyper::Request::post(uri)
        .header("Host", http.to_string())
        .header("Authorization", "Basic c2FiZXI6c2FiZXJfc2VjcmV0")
        .header("Tenant-Id", "000000")
        .body(Empty::<Bytes>::new())?;
    let body = sender
        .send_request(req)
        .await?
        .into_body()
        .collect()
        .await?
        .to_bytes();
    let v: serde_json::Value = serde_json::from_slice(&body)?;
    let user = v["user_id"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("sign-in: {v}"))?;
    let token = v["access_token"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("sign-in: {v}"))?;
    Ok((user.to_owned(), token.to_owned()))
}

async fn bell_latency() -> anyhow::Result<()> {
    let seconds: u64 = knob("BENCH_SECONDS", 15);
    let gateways: usize = knob("BENCH_GATEWAYS", 10);
    let devices: usize = knob("BENCH_DEVICES", 25);
    let period_ms: u64 = knob("BENCH_PERIOD_MS", 1000);
    let inject_ms: u64 = knob("BENCH_INJECT_MS", 250);
    let injections = (seconds * 1000 / inject_ms.max(1)) as usize;

    let dir = tempfile::tempdir()?;
    let mut config = Config {
        data_dir: dir.path().to_path_buf(),
        ..Config::default()
    };
    config.broker.listen = "127.0.0.1:0".parse()?;
    let state = pv_cloud::server::prepare(config).await?;
    let hash = Argon2::default()
        .hash_password(PASSWORD.as_bytes())
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .to_string();
    for g in 0..gateways {
        provision(&state, &format!("LOAD-GW-{g}"), devices, &hash).await?;
    }
    // One fresh inverter per injection, so each fault is a new alarm (a re-trigger of an open
    // alarm changes nothing the bell shows).
    provision(&state, "PROBE", injections, &hash).await?;
    let telemetry = pv_cloud::server::start_data_path(&state).await?;
    let broker = telemetry
        .gateway_addr
        .ok_or_else(|| anyhow::anyhow!("no embedded broker"))?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let http = listener.local_addr()?;
    tokio::spawn(pv_cloud::server::serve(
        state.clone(),
        listener,
        std::future::pending(),
    ));
    eprintln!(
        "alarm_eval: bell latency, sqlite, {gateways} gateways × {devices} devices every {period_ms} ms, \
         {injections} faults every {inject_ms} ms"
    );

    // Background load: every gateway sends one sample per device per period.
    let load: Vec<_> = (0..gateways)
        .map(|g| {
            tokio::spawn(async move {
                let gw = format!("LOAD-GW-{g}");
                let client = gateway(broker, &gw).await;
                let topic = topics::telemetry(&gw).unwrap_or_default();
                let mut seq = 1u64;
                let mut tick = tokio::time::interval(Duration::from_millis(period_ms));
                loop {
                    tick.tick().await;
                    let ts = pv_cloud::kernel::time::now_ms();
                    let samples: Vec<Sample> = (0..devices)
                        .map(|d| {
                            seq += 1;
                            Sample {
                                seq,
                                device: format!("{gw}-INV-{d}"),
                                ts,
                                values: inverter_values(seq, 0.0),
                                suspect: Default::default(),
                            }
                        })
                        .collect();
                    let Ok(bytes) = wire::to_bytes(&TelemetryBatch::new(&gw, false, samples)) else {
                        return;
                    };
                    let _ = client
                        .publish(topic.clone(), QoS::AtLeastOnce, false, bytes)
                        .await;
                }
            })
        })
        .collect();

    let (user, token) = sign_in(http).await?;
    let (mut socket, _) =
        tokio_tungstenite::connect_async(format!("ws://{http}/ws/{user}?token={token}")).await?;
    // The bell's messages, with their arrival time and count.
    let (tx, mut arrivals) = tokio::sync::mpsc::unbounded_channel::<(Instant, i64)>();
    tokio::spawn(async move {
        while let Some(Ok(m)) = socket.next().await {
            let at = Instant::now();
            if let Ok(text) = m.to_text()
                && let Ok(v) = serde_json::from_str::<serde_json::Value>(text)
            {
                let _ = tx.send((at, v["count"].as_i64().unwrap_or(0)));
            }
        }
    });
    let probe = gateway(broker, "PROBE").await;
    let probe_topic = topics::telemetry("PROBE")?;
    tokio::time::sleep(Duration::from_secs(2)).await;

    let mut latencies = Vec::new();
    let mut lost = 0;
    for k in 0..injections {
        let ts = pv_cloud::kernel::time::now_ms();
        let b = TelemetryBatch::new(
            "PROBE",
            false,
            vec![Sample {
                seq: k as u64 + 1,
                device: format!("PROBE-INV-{k}"),
                ts,
                values: inverter_values(k as u64, 2.0),
                suspect: Default::default(),
            }],
        );
        let sent = Instant::now();
        probe
            .publish(probe_topic.clone(), QoS::AtLeastOnce, false, wire::to_bytes(&b)?)
            .await?;
        // The k-th fault is shown when the bell's count reaches k + 1.
        let want = k as i64 + 1;
        let deadline = sent + Duration::from_secs(10);
        loop {
            match tokio::time::timeout_at(deadline.into(), arrivals.recv()).await {
                Ok(Some((at, count))) if count >= want => {
                    latencies.push(at.saturating_duration_since(sent));
                    break;
                }
                Ok(Some(_)) => continue,
                _ => {
                    lost += 1;
                    break;
                }
            }
        }
        tokio::time::sleep_until((sent + Duration::from_millis(inject_ms)).into()).await;
    }
    for t in load {
        t.abort();
    }
    if lost > 0 {
        eprintln!("alarm_eval: {lost} faults not on the bell within 10 s");
    }
    latencies.sort();
    figure("alarm_bell_latency_p50", percentile_ms(&latencies, 50.0), "ms");
    figure("alarm_bell_latency_p99", percentile_ms(&latencies, 99.0), "ms");
    figure("alarm_bell_faults_seen", latencies.len() as f64, "alarms");
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    eval_cost();
    bell_latency().await
}
