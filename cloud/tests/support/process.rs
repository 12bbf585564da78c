//! Real processes in tests (the hub binary, `pv-edge run`, `pv-edge simulate`): a child that is
//! killed however the test ends, free loopback ports, and the workspace root.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::atomic::{AtomicU32, Ordering};

/// A child process killed when the test ends, however it ends.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback port nobody listens on right now, for a process the test starts.
pub fn free_port() -> u16 {
    free_ports(1)
}

/// The first of `n` consecutive loopback ports nobody listens on right now. They come from below
/// the kernel's ephemeral range (32768 and up), where sockets bound to port 0 and outgoing
/// connections take theirs: a port picked there was seen taken by another test's connection or
/// hub between this check and the child process binding it. Each test process walks its own
/// stretch of 20000–31999 (by process id) and never hands a port out twice.
pub fn free_ports(n: u16) -> u16 {
    const LOW: u32 = 20_000;
    const SPAN: u32 = 12_000;
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let start = (std::process::id() % 60) * 200;
    loop {
        let offset = NEXT.fetch_add(u32::from(n), Ordering::Relaxed);
        let first = LOW + (start + offset) % (SPAN - u32::from(n));
        let Ok(first) = u16::try_from(first) else {
            continue;
        };
        if (0..n).all(|k| TcpListener::bind(("127.0.0.1", first + k)).is_ok()) {
            return first;
        }
    }
}

/// The workspace root (where `firmware-configs/` and `target/` are).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}
