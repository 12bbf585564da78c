//! A real Mosquitto 2 process on a loopback port, configured from a temporary directory: the
//! password and ACL files there are the ones the hub writes (`broker.mosquitto_*`), and its pid
//! file is what the hub's reload command signals. Not installed is a failure, not a skip:
//! `scripts/setup test` installs the Debian package.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Where the broker's files live; the hub is configured with [`BrokerFiles::configure`].
pub struct BrokerFiles {
    pub dir: tempfile::TempDir,
    pub password_file: PathBuf,
    pub acl_file: PathBuf,
    pub pid_file: PathBuf,
}

/// A running broker, stopped (by its own pid) when dropped.
pub struct Mosquitto {
    child: std::process::Child,
    pub port: u16,
    pub log: PathBuf,
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn binary() -> PathBuf {
    [
        "/usr/sbin/mosquitto",
        "/usr/bin/mosquitto",
        "/usr/local/sbin/mosquitto",
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
    .expect("mosquitto is not installed: run scripts/setup test (apt-get install mosquitto)")
}

impl BrokerFiles {
    pub fn new() -> BrokerFiles {
        let dir = tempfile::tempdir().expect("temp dir");
        let p = dir.path().to_path_buf();
        BrokerFiles {
            password_file: p.join("passwd"),
            acl_file: p.join("acl"),
            pid_file: p.join("mosquitto.pid"),
            dir,
        }
    }

    /// A hub that manages this broker's accounts, signing in as `hub_user`.
    pub fn configure(&self, c: &mut pv_cloud::config::Config, port: u16, hub_user: &str, hub_password: &str) {
        c.broker.embedded = false;
        c.broker.url = format!("mqtt://{hub_user}:{hub_password}@127.0.0.1:{port}");
        c.broker.public_url = format!("mqtt://127.0.0.1:{port}");
        c.broker.mosquitto_password_file = self.password_file.display().to_string();
        c.broker.mosquitto_acl_file = self.acl_file.display().to_string();
        c.broker.mosquitto_reload_command = format!("kill -HUP \"$(cat '{}')\"", self.pid_file.display());
    }

    /// Starts Mosquitto on `port` reading the hub's files; `with_acl: false` leaves the ACL file
    /// out of its configuration (to show what the ACL is for).
    pub fn start(&self, port: u16, with_acl: bool) -> Mosquitto {
        // Run as root (tests in a container), Mosquitto drops to user `mosquitto`, which
        // cannot read this directory; naming the current user keeps it (ignored when not root).
        let user = std::process::Command::new("id")
            .arg("-un")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default();
        let mut conf = format!(
            "per_listener_settings false\nallow_anonymous false\nlistener {port} 127.0.0.1\n\
             persistence false\npid_file {}\npassword_file {}\nlog_dest stdout\nlog_type all\n",
            self.pid_file.display(),
            self.password_file.display(),
        );
        if with_acl {
            conf.push_str(&format!("acl_file {}\n", self.acl_file.display()));
        }
        if !user.is_empty() {
            conf.push_str(&format!("user {user}\n"));
        }
        let conf_path = self.dir.path().join("mosquitto.conf");
        std::fs::write(&conf_path, conf).expect("mosquitto.conf");
        let log = self.dir.path().join("mosquitto.log");
        let out = std::fs::File::create(&log).expect("log file");
        let child = std::process::Command::new(binary())
            .arg("-c")
            .arg(&conf_path)
            .stdout(out.try_clone().expect("log"))
            .stderr(out)
            .spawn()
            .expect("mosquitto starts");
        let mut broker = Mosquitto { child, port, log };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() || !self.pid_file.exists() {
            if let Ok(Some(status)) = broker.child.try_wait() {
                panic!("mosquitto exited ({status}): {}", broker.log_text());
            }
            assert!(
                Instant::now() < deadline,
                "mosquitto did not listen on {port}: {}",
                broker.log_text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        broker
    }
}

impl Mosquitto {
    pub fn addr(&self) -> std::net::SocketAddr {
        std::net::SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}
