//! Requests per second and latency of a simple enveloped endpoint (`GET /api/health`, which
//! also runs `SELECT 1` on the embedded SQLite database) under concurrent keep-alive load.
//!
//! The server runs in this process on a loopback port, exactly as the product assembles it;
//! the load generator shares the same cores, so the figure is a floor for a dedicated server.
//! Knobs: BENCH_SECONDS (10), BENCH_CONNECTIONS (32), BENCH_WARMUP_SECONDS (2).

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use pv_bench::{figure, knob, percentile_ms};
use pv_cloud::config::Config;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let seconds: u64 = knob("BENCH_SECONDS", 10);
    let connections: usize = knob("BENCH_CONNECTIONS", 32);
    let warmup: u64 = knob("BENCH_WARMUP_SECONDS", 2);

    let dir = tempfile::tempdir()?;
    let config = Config {
        data_dir: dir.path().to_path_buf(),
        ..Config::default()
    };
    let state = pv_cloud::server::prepare(config).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(pv_cloud::server::serve(state, listener, async {
        let _ = stopped.await;
    }));
    eprintln!(
        "http_envelope: {connections} connections, {warmup}s warm-up, {seconds}s measured, server on {addr}"
    );

    let start = Instant::now() + Duration::from_secs(warmup);
    let end = start + Duration::from_secs(seconds);
    let mut workers = Vec::new();
    for _ in 0..connections {
        workers.push(tokio::spawn(async move { worker(addr, start, end).await }));
    }
    let mut latencies = Vec::new();
    for w in workers {
        latencies.extend(w.await.context("worker")??);
    }
    let _ = stop.send(());
    server.await.context("server task")??;

    latencies.sort_unstable();
    figure("http_envelope_requests", latencies.len() as f64, "requests");
    figure(
        "http_envelope_throughput",
        latencies.len() as f64 / seconds as f64,
        "req/s",
    );
    figure("http_envelope_latency_p50", percentile_ms(&latencies, 50.0), "ms");
    figure("http_envelope_latency_p99", percentile_ms(&latencies, 99.0), "ms");
    figure(
        "http_envelope_latency_max",
        percentile_ms(&latencies, 100.0),
        "ms",
    );
    Ok(())
}

/// One keep-alive connection sending requests back to back; returns the latencies measured
/// between `start` and `end`.
async fn worker(addr: std::net::SocketAddr, start: Instant, end: Instant) -> anyhow::Result<Vec<Duration>> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(conn);
    let mut latencies = Vec::new();
    loop {
        let sent = Instant::now();
        if sent >= end {
            break;
        }
        let req = hyper::Request::get("/api/health")
            .header("host", addr.to_string())
            .body(Empty::<Bytes>::new())?;
        let res = sender.send_request(req).await?;
        let status = res.status();
        let body = res.into_body().collect().await?.to_bytes();
        if !status.is_success() || !body.starts_with(br#"{"code":200"#) {
            bail!("unexpected answer {status}: {}", String::from_utf8_lossy(&body));
        }
        if sent >= start {
            latencies.push(sent.elapsed());
        }
    }
    Ok(latencies)
}
