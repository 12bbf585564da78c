//! kill -9 at random moments loses nothing the agent reported as stored.
//!
//! The real `pv-edge run` binary polls simulated devices (a real TCP socket) every 20 ms and
//! prints `stored FIRST-LAST` once readings are durable. The test kills it with SIGKILL at a
//! random moment, 20 times, reopening the queue after each kill: every sequence number ever
//! reported must be there, numbers are never reused across restarts, and every entry decodes.
//! The second test does the same while the agent forwards to a broker and an acking consumer.

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use pv_edge::queue::Queue;

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_kill_nines_lose_no_stored_sample() {
    let all = maps();
    let pick: Vec<_> = [
        "huawei-sun2000-ktl",
        "eastron-sdm630",
        "sunspec-inverter",
        "pv-reference-tracker",
    ]
    .iter()
    .map(|id| all.iter().find(|m| &m.id == id).cloned().unwrap())
    .collect();
    let addr = serve_tcp(simulator(&pick, 3)).await;
    let dir = tempfile::tempdir().unwrap();
    let maps_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    let mut devices = String::new();
    for (i, m) in pick.iter().enumerate() {
        devices += &format!(
            "[[bus.device]]\nid = \"dev-{}\"\nmap = \"{}\"\nunit = {}\ninterval_ms = 20\n",
            i + 1,
            m.id,
            i + 1
        );
    }
    let config = dir.path().join("gw.toml");
    std::fs::write(
        &config,
        format!(
            "gateway_id = \"gw-crash\"\ndata_dir = \"data\"\nmaps_dir = \"{}\"\n[[bus]]\nname = \"sim\"\ntransport = \"tcp\"\naddress = \"{addr}\"\ntimeout_ms = 500\n{devices}",
            maps_dir.display()
        ),
    )
    .unwrap();

    let mut rng = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("seed {rng}");
    let mut reported: BTreeSet<u64> = BTreeSet::new();
    let mut highest_before_run = 0u64;
    for round in 0..20 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pv-edge"))
            .args(["run", "--print-stored", "--config"])
            .arg(&config)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn pv-edge");
        let stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut seen = Vec::new();
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some((a, b)) = line.strip_prefix("stored ").and_then(|r| r.split_once('-')) {
                    seen.push((a.parse::<u64>().unwrap(), b.parse::<u64>().unwrap()));
                }
            }
            seen
        });
        // Random moment: 150-900 ms after start (opening, discovery, polling or mid-write).
        let wait = Duration::from_millis(150 + xorshift(&mut rng) % 750);
        let t = Instant::now();
        tokio::time::sleep(wait).await;
        child.kill().expect("kill -9");
        let _ = child.wait();
        let seen = reader.join().unwrap();
        for (a, b) in &seen {
            assert!(*a > highest_before_run, "round {round}: sequence {a} reused");
            reported.extend(*a..=*b);
        }
        let q = Queue::open(&dir.path().join("data/queue"), 1_000_000).expect("reopen after kill -9");
        let stored: BTreeSet<u64> = q
            .after(0, usize::MAX)
            .expect("entries decode")
            .iter()
            .map(|s| s.seq)
            .collect();
        let lost: Vec<_> = reported.difference(&stored).take(10).collect();
        assert!(
            lost.is_empty(),
            "round {round} (killed after {:?}): lost {lost:?}",
            t.elapsed()
        );
        highest_before_run = stored.last().copied().unwrap_or(0).max(highest_before_run);
        eprintln!(
            "round {round}: killed after {wait:?}, {} stored so far, {} reported",
            stored.len(),
            reported.len()
        );
    }
    assert!(
        reported.len() > 200,
        "the agent stored too little to prove anything: {}",
        reported.len()
    );
}

/// The same with the uplink on: the agent is killed while forwarding to a real broker and an
/// acknowledging consumer, 20 times, then runs once more until the backlog is through. The
/// cloud ends with every sample ever reported stored, exactly once, with no gaps.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_kill_nines_while_forwarding_deliver_every_sample_once() {
    use pv_edge::testkit::{Consumer, start_broker};

    let broker = start_broker(None).unwrap();
    let cloud = Consumer::connect(broker, "cloud-crash").await;
    let all = maps();
    let pick: Vec<_> = ["huawei-sun2000-ktl", "eastron-sdm630", "pv-reference-tracker"]
        .iter()
        .map(|id| all.iter().find(|m| &m.id == id).cloned().unwrap())
        .collect();
    let sim = serve_tcp(simulator(&pick, 5)).await;
    let dir = tempfile::tempdir().unwrap();
    let config = gateway_config(
        dir.path(),
        "gw-crash-fwd",
        sim,
        &[
            ("inv-1", "huawei-sun2000-ktl", 1),
            ("meter-1", "eastron-sdm630", 2),
            ("tracker-1", "pv-reference-tracker", 3),
        ],
        20,
        &mqtt_section(broker, "batch_max_samples = 20"),
    );
    let mut rng = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("seed {rng}");
    let mut reported: BTreeSet<u64> = BTreeSet::new();
    for round in 0..20 {
        let agent = Agent::spawn(&config);
        // 300-1500 ms: connecting, replaying the previous rounds' backlog, or forwarding live.
        let wait = Duration::from_millis(300 + xorshift(&mut rng) % 1200);
        tokio::time::sleep(wait).await;
        reported.extend(agent.kill());
        eprintln!(
            "round {round}: killed after {wait:?}; {} reported, cloud has {}",
            reported.len(),
            cloud.store().seqs("gw-crash-fwd").len()
        );
    }
    let agent = Agent::spawn(&config);
    // The stop below must land on a running agent that is forwarding, not on one still starting:
    // when the earlier rounds left nothing behind, the wait for delivery ends at once.
    let started = std::time::Instant::now();
    while agent.stored().is_empty() && started.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !agent.stored().is_empty(),
        "the last agent stored nothing in 20 s"
    );
    let through = cloud
        .wait_for(Duration::from_secs(60), |s| {
            let have: BTreeSet<u64> = s.seqs("gw-crash-fwd").into_iter().collect();
            reported.iter().all(|seq| have.contains(seq))
        })
        .await;
    let (status, last) = agent.terminate();
    assert!(status.success());
    reported.extend(last);
    let st = cloud.store();
    let stored: BTreeSet<u64> = st.seqs("gw-crash-fwd").into_iter().collect();
    let lost: Vec<_> = reported.difference(&stored).take(10).collect();
    assert!(through, "not delivered after the last restart: {lost:?}");
    let left: BTreeSet<u64> = Queue::open(&dir.path().join("data/queue"), 1_000_000)
        .unwrap()
        .after(0, usize::MAX)
        .unwrap()
        .iter()
        .map(|s| s.seq)
        .collect();
    let lost: Vec<_> = reported
        .iter()
        .filter(|s| !stored.contains(s) && !left.contains(s))
        .take(10)
        .collect();
    assert!(lost.is_empty(), "lost: {lost:?}");
    let max = *stored.last().unwrap();
    assert_eq!(stored.len() as u64, max, "gaps in what the cloud stored");
    assert_eq!(st.refused, 0);
    eprintln!(
        "{} reported, {} stored once each, {} received twice, {} left queued",
        reported.len(),
        stored.len(),
        st.duplicates(),
        left.len()
    );
}
