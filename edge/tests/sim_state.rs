//! The real `pv-edge simulate --spec` keeps its devices' counters in the spec's state file:
//! stopped (SIGTERM) or killed and started again, a device's energy counter continues from where
//! it stopped instead of starting again from its seeded value. Read over real Modbus TCP with
//! `pv-edge read`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pv-edge"))
}

struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Huawei SUN2000: energy_total, u32 in 0.01 kWh, big-endian words.
const ENERGY_TOTAL: &str = "32106";

fn start(spec: &std::path::Path) -> Child {
    let mut child = bin()
        .args(["simulate", "--spec"])
        .arg(spec)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until it listens; the rest of stderr is left to the pipe.
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    for line in lines.by_ref() {
        if line.unwrap().contains("simulating") {
            break;
        }
    }
    std::thread::spawn(move || for _ in lines {});
    Child(child)
}

fn energy(port: u16) -> u64 {
    let out = bin()
        .args(["read", "--tcp", &format!("127.0.0.1:{port}"), "--unit", "1"])
        .args(["--start", ENERGY_TOTAL, "--count", "2", "--timeout-ms", "1000"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Lines: "ADDRESS DECIMAL 0xHEX".
    let words: Vec<u64> = text
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    words[0] << 16 | words[1]
}

fn sigterm(child: &mut Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.0.wait().unwrap();
    assert!(exit.success(), "a stopped simulator exits cleanly: {exit:?}");
}

#[test]
fn a_restarted_simulator_continues_its_counters_from_the_state_file() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // Solar noon on the site's clock (Wuhan, about 04:23 UTC), so the counter grows fast.
    let utc_h = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        % 86_400.0
        / 3_600.0;
    let offset = 4.4 - utc_h;
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("simulator.toml");
    let maps = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
    std::fs::write(
        &spec,
        format!(
            "maps_dir = {maps:?}\nstate = \"simulator-state.json\"\n\
             [site]\ncloudiness = 0.0\nclock_offset_h = {offset}\n\
             [[bus]]\ntcp = \"127.0.0.1:{port}\"\ncapacity_kw = 5000\n\
             device = [{{ unit = 1, map = \"huawei-sun2000-ktl\", serial = \"INV-A\" }}]\n"
        ),
    )
    .unwrap();
    let state = dir.path().join("simulator-state.json");

    let mut sim = start(&spec);
    let seeded = energy(port);
    std::thread::sleep(Duration::from_secs(2));
    let before_stop = energy(port);
    // 5 MW near noon: about 140 raw units (0.01 kWh) a second.
    assert!(before_stop > seeded + 100, "{seeded} -> {before_stop}");
    sigterm(&mut sim);
    let stopped = std::time::Instant::now();
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    assert!(
        saved["devices"]["INV-A"]["energy_total"].as_f64().unwrap() >= before_stop as f64 * 10.0,
        "stopped at {before_stop}: {saved}"
    );

    // Started again 3 s later: the counter goes on from where it stopped, not from the seed,
    // plus what the plant produced meanwhile (its monitoring was off, not the plant).
    std::thread::sleep(Duration::from_secs(3));
    let mut sim = start(&spec);
    let after_start = energy(port);
    let off_s = stopped.elapsed().as_secs_f64();
    let rate = (before_stop - seeded) as f64 / 2.0;
    assert!(
        after_start >= before_stop,
        "seeded {seeded}, stopped at {before_stop}, started again at {after_start}"
    );
    let added = (after_start - before_stop) as f64;
    assert!(
        added >= 0.5 * rate * 3.0 && added <= 1.5 * rate * (off_s + 1.0),
        "{added} units after {off_s:.1} s off at {rate:.0} units/s"
    );

    // Killed without warning: the periodic save (every 5 s) is what the next start finds.
    std::thread::sleep(Duration::from_millis(5_500));
    let before_kill = energy(port);
    sim.0.kill().unwrap();
    sim.0.wait().unwrap();
    let killed = std::time::Instant::now();
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    let periodic = saved["devices"]["INV-A"]["energy_total"].as_f64().unwrap() / 10.0;
    assert!(
        periodic > after_start as f64,
        "saved while running: {periodic} vs {after_start}"
    );
    let _sim = start(&spec);
    let again = energy(port);
    // From the periodic save on, what the plant produced until the new start is added: about
    // what was read before the kill and what came after it.
    let since_kill = killed.elapsed().as_secs_f64();
    assert!(
        again as f64 >= periodic.floor()
            && (again as f64) <= before_kill as f64 + 1.5 * rate * (since_kill + 1.0),
        "periodic save {periodic}, killed at {before_kill}, started again at {again} ({since_kill:.1} s later)"
    );
    assert!(!dir.path().join("simulator-state.json.tmp").exists());
}
