//! Real processes in tests (the hub binary, `pv-edge run`, `pv-edge simulate`): a child that is
//! killed however the test ends, free loopback ports, and the workspace root.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Child;

/// A child process killed when the test ends, however it ends.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// The workspace root (where `firmware-configs/` and `target/` are).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}
