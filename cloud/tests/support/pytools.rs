//! Outside services written in Python, run as real servers on loopback ports: moto's S3 server
//! (an S3-compatible object store) and aiosmtpd (an SMTP server). They live in a virtual
//! environment that `scripts/setup test` fills (`target/test-venv`, or `PV_TEST_VENV`); a
//! missing one is a failure, not a skip.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::process::{Proc, free_port, repo_root};

/// The virtual environment's `bin` folder.
pub fn venv_bin() -> PathBuf {
    let root = std::env::var_os("PV_TEST_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target").join("test-venv"));
    let bin = root.join("bin");
    assert!(
        bin.join("moto_server").exists(),
        "{} has no moto_server: run scripts/setup test",
        bin.display()
    );
    bin
}

/// Waits until something accepts connections on `port`.
fn wait_listening(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not start on port {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A moto S3 server: `url` is its endpoint (path-style buckets).
pub struct Moto {
    _proc: Proc,
    pub url: String,
}

impl Moto {
    pub fn start() -> Moto {
        let port = free_port();
        let child = std::process::Command::new(venv_bin().join("moto_server"))
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start moto_server");
        let proc = Proc(child);
        wait_listening(port, "moto_server");
        Moto {
            _proc: proc,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    /// Creates `bucket` (moto accepts unsigned requests).
    pub async fn create_bucket(&self, bucket: &str) {
        let res = crate::support::client::http()
            .put(format!("{}/{bucket}", self.url))
            .send()
            .await
            .expect("create bucket");
        assert!(res.status().is_success(), "create bucket: {}", res.status());
    }

    /// The MD5 (hex) of object `key` of `bucket` as the server lists it, or `None` when it is
    /// not there. moto answers unsigned listings but not unsigned reads of private objects; a
    /// single-part upload's ETag is the MD5 of its bytes.
    pub async fn object_md5(&self, bucket: &str, key: &str) -> Option<String> {
        let res = super::client::http()
            .get(format!("{}/{bucket}", self.url))
            .query(&[("list-type", "2"), ("prefix", key)])
            .send()
            .await
            .expect("list objects");
        assert!(res.status().is_success(), "list objects: {}", res.status());
        let xml = res.text().await.expect("listing");
        let entry = xml
            .split("<Contents>")
            .skip(1)
            .find(|c| c.contains(&format!("<Key>{key}</Key>")))?;
        let etag = entry.split("<ETag>").nth(1)?.split("</ETag>").next()?;
        Some(
            etag.replace("&#34;", "")
                .replace("&quot;", "")
                .trim_matches('"')
                .to_owned(),
        )
    }
}

/// An aiosmtpd SMTP server (no TLS, no sign-in) keeping every message in a maildir.
pub struct Smtpd {
    _proc: Proc,
    pub port: u16,
    maildir: tempfile::TempDir,
}

impl Smtpd {
    pub fn start() -> Smtpd {
        let port = free_port();
        let maildir = tempfile::tempdir().expect("maildir");
        let child = std::process::Command::new(venv_bin().join("aiosmtpd"))
            .args([
                "-n",
                "-l",
                &format!("127.0.0.1:{port}"),
                "-c",
                "aiosmtpd.handlers.Mailbox",
            ])
            .arg(maildir.path().join("box"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start aiosmtpd");
        let proc = Proc(child);
        wait_listening(port, "aiosmtpd");
        Smtpd {
            _proc: proc,
            port,
            maildir,
        }
    }

    /// The raw messages received so far.
    pub fn messages(&self) -> Vec<String> {
        let dir = self.maildir.path().join("box").join("new");
        let mut out: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out
    }

    /// Waits (10 s at most) until `n` messages arrived and returns them.
    pub async fn wait_for(&self, n: usize) -> Vec<String> {
        for _ in 0..200 {
            let got = self.messages();
            if got.len() >= n {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{n} messages never arrived: {:?}", self.messages());
    }
}
