//! Gateway accounts on an external Mosquitto (`broker.embedded = false`): the hub writes the
//! broker's password file and ACL file from its database and asks the broker to read them again.
//!
//! The files are derived, never edited: every gateway whose credentials are current (a live
//! station that still names the gateway id, the same rule as `gateway::verify_gateway`) gets a
//! line with its Mosquitto hash, stored beside the argon2 one when the password was issued, and
//! the hub's own login from `broker.url`. The ACL keeps each gateway to `pv/1/{its id}/up/+`
//! (write) and `pv/1/{its id}/down/+` (read), the rule the embedded gatekeeper enforces. Because
//! everything comes from the database, a start-up rewrite is the whole reconciliation: a gateway
//! issued, rotated or removed while the broker (or this worker) was down is right once the
//! files are written and the broker has read them.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256, Sha512};
use sqlx::Row;

use crate::config::BrokerConfig;
use crate::kernel::db::Db;
use crate::kernel::sql::Sql;

/// PBKDF2 rounds of gateway hashes. Gateway passwords are 192 random bits, so rounds add no
/// protection against guessing; a low count keeps Mosquitto's check of every sign-in cheap for a
/// fleet reconnecting at once (`mosquitto_passwd` itself uses 101).
const ROUNDS: u32 = 1000;
/// Salt bytes, as `mosquitto_passwd` makes them.
const SALT_LEN: usize = 12;

/// Woken whenever the hub changes credentials, so the files follow at once instead of at the
/// next periodic pass.
static CHANGED: LazyLock<tokio::sync::Notify> = LazyLock::new(tokio::sync::Notify::new);

/// Credentials changed (issued, rotated, a station removed or its gateway id changed).
pub fn changed() {
    CHANGED.notify_waiters();
    CHANGED.notify_one();
}

#[derive(Debug, thiserror::Error)]
pub enum AccountsError {
    #[error("gateway accounts: {0}")]
    Db(#[from] crate::kernel::ApiError),
    #[error("gateway accounts: reading a row: {0}")]
    Row(#[from] sqlx::Error),
    #[error("writing {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("reload command {command:?}: {detail}")]
    Reload { command: String, detail: String },
}

/// Mosquitto's `$7$` password hash (PBKDF2-HMAC-SHA512, 64 bytes): `$7$rounds$salt$hash`, salt
/// and hash in standard base64.
pub fn mosquitto_hash(password: &str, salt: &[u8], rounds: u32) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut out = [0u8; 64];
    pbkdf2_sha512(password.as_bytes(), salt, rounds, &mut out);
    format!("$7${rounds}${}${}", b64.encode(salt), b64.encode(out))
}

/// One 64-byte block of PBKDF2 with HMAC-SHA512 (the block size equals the output size).
fn pbkdf2_sha512(password: &[u8], salt: &[u8], rounds: u32, out: &mut [u8; 64]) {
    let Ok(key) = Hmac::<Sha512>::new_from_slice(password) else {
        return;
    };
    let mut mac = key.clone();
    mac.update(salt);
    mac.update(&1u32.to_be_bytes());
    let mut u: [u8; 64] = mac.finalize().into_bytes().into();
    *out = u;
    for _ in 1..rounds {
        let mut mac = key.clone();
        mac.update(&u);
        u = mac.finalize().into_bytes().into();
        out.iter_mut().zip(u.iter()).for_each(|(o, x)| *o ^= x);
    }
}

/// A fresh gateway hash for `password`, with a random salt (stored at issue time).
pub fn gateway_hash(password: &str) -> Result<String, getrandom::Error> {
    let mut salt = [0u8; SALT_LEN];
    getrandom::fill(&mut salt)?;
    Ok(mosquitto_hash(password, &salt, ROUNDS))
}

/// The hub's own line. Its salt comes from the login itself so that every replica with the same
/// `broker.url` writes the same file (random salts would make replicas rewrite it in turn).
fn hub_hash(user: &str, password: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"pv-cloud broker login\0");
    h.update(user.as_bytes());
    h.update([0u8]);
    h.update(password.as_bytes());
    let digest = h.finalize();
    mosquitto_hash(password, &digest[..SALT_LEN], ROUNDS)
}

/// The password file: the hub first, then each gateway (sorted, so equal content means equal
/// accounts). A gateway named like the hub's login is left out: it would share the hub's
/// username and with it the right to read every gateway's uplink.
pub fn password_file(hub: Option<(&str, &str)>, gateways: &[(String, String)]) -> String {
    let mut out = String::from("# Written by pv-cloud from its database; edits are overwritten.\n");
    if let Some((user, password)) = hub {
        out.push_str(&format!("{user}:{}\n", hub_hash(user, password)));
    }
    for (id, hash) in gateways {
        if hub.is_some_and(|(user, _)| user == id) {
            tracing::error!(gateway = %id, "gateway id equals the hub's broker login: left out of the broker's accounts");
            continue;
        }
        out.push_str(&format!("{id}:{hash}\n"));
    }
    out
}

/// The ACL file: the hub reads every gateway's uplink and writes every downlink; any other user
/// (a gateway, whose username is its id) only its own topics.
pub fn acl_file(hub_user: Option<&str>) -> String {
    let v = pv_shared::topics::WIRE_VERSION;
    let mut out = String::from("# Written by pv-cloud; edits are overwritten.\n");
    if let Some(user) = hub_user {
        out.push_str(&format!(
            "user {user}\ntopic read pv/{v}/+/up/+\ntopic write pv/{v}/+/down/+\n\n"
        ));
    }
    out.push_str(&format!(
        "pattern write pv/{v}/%u/up/+\npattern read pv/{v}/%u/down/+\n"
    ));
    out
}

/// Gateways whose credentials are current and carry a broker hash, by id.
async fn current_gateways(db: &Db) -> Result<Vec<(String, String)>, AccountsError> {
    let rows = Sql::new(
        "SELECT c.gateway_id, c.broker_hash FROM pv_gateway_credential c \
         JOIN pv_station s ON s.id = c.station_id \
         WHERE s.is_deleted = 0 AND s.tenant_id = c.tenant_id AND s.gateway_id = c.gateway_id \
         AND c.broker_hash IS NOT NULL ORDER BY c.gateway_id",
    )
    .rows(db.pool())
    .await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let id: String = row.try_get("gateway_id")?;
        if pv_shared::topics::validate_gateway_id(&id).is_ok() {
            out.push((id, row.try_get("broker_hash")?));
        }
    }
    Ok(out)
}

/// Writes `content` to `path` unless it already holds exactly that; true when written. Through a
/// temporary file and a rename, so the broker never reads half a file.
fn write_if_changed(path: &Path, content: &str) -> Result<bool, AccountsError> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == content) {
        return Ok(false);
    }
    let err = |source| AccountsError::Write {
        path: path.to_owned(),
        source,
    };
    let tmp = path.with_extension("pv-tmp");
    {
        use std::io::Write;
        let mut o = std::fs::OpenOptions::new();
        o.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            // The broker's user reads it through the group; nobody else.
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o640);
        }
        let mut f = o.open(&tmp).map_err(err)?;
        f.write_all(content.as_bytes()).map_err(err)?;
        f.sync_all().map_err(err)?;
    }
    std::fs::rename(&tmp, path).map_err(err)?;
    Ok(true)
}

/// The hub's own broker login, from `broker.url` (`mqtt://user:password@host:port`).
fn hub_login(config: &BrokerConfig) -> Option<(String, String)> {
    let url = config.url.trim();
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (login, _) = rest.rsplit_once('@')?;
    let (user, password) = login.split_once(':')?;
    (!user.is_empty()).then(|| (user.to_owned(), password.to_owned()))
}

/// Whether `user` is the hub's own broker login (a gateway may not take that id).
pub fn is_hub_login(config: &BrokerConfig, user: &str) -> bool {
    !config.embedded
        && !config.mosquitto_password_file.trim().is_empty()
        && hub_login(config).is_some_and(|(u, _)| u == user)
}

/// One pass: both files from the database, and the reload command when either changed.
/// Returns whether anything changed.
pub async fn sync(db: &Db, config: &BrokerConfig) -> Result<bool, AccountsError> {
    let gateways = current_gateways(db).await?;
    let login = hub_login(config);
    let hub = login.as_ref().map(|(u, p)| (u.as_str(), p.as_str()));
    let passwords = password_file(hub, &gateways);
    let acl = acl_file(hub.map(|(u, _)| u));
    let (pw_path, acl_path) = (
        PathBuf::from(config.mosquitto_password_file.trim()),
        PathBuf::from(config.mosquitto_acl_file.trim()),
    );
    let changed = tokio::task::spawn_blocking(move || {
        let a = write_if_changed(&pw_path, &passwords)?;
        let b = if acl_path.as_os_str().is_empty() {
            false
        } else {
            write_if_changed(&acl_path, &acl)?
        };
        Ok::<_, AccountsError>(a || b)
    })
    .await
    .map_err(|e| AccountsError::Reload {
        command: String::new(),
        detail: e.to_string(),
    })??;
    if changed {
        tracing::info!(gateways = gateways.len(), "broker accounts written");
        reload(config.mosquitto_reload_command.trim()).await?;
    }
    Ok(changed)
}

async fn reload(command: &str) -> Result<(), AccountsError> {
    if command.is_empty() {
        return Ok(());
    }
    let fail = |detail: String| AccountsError::Reload {
        command: command.to_owned(),
        detail,
    };
    let cmd = command.to_owned();
    // std's process API on the blocking pool (the hub's tokio has no `process` feature).
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(std::process::Stdio::null())
            .output()
    })
    .await
    .map_err(|e| fail(e.to_string()))?
    .map_err(|e| fail(e.to_string()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(fail(format!(
            "{}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// Keeps the broker's files in step with the database until the hub stops: a pass at start
/// (reconciliation), then after each change the hub makes and every `mosquitto_sync_seconds`.
/// A pass that fails (the broker down, so its reload fails) is retried at the next period; the
/// files are written anyway, and a broker that starts later reads them.
pub fn spawn(
    db: Db,
    config: BrokerConfig,
    shutdown: crate::kernel::shutdown::Shutdown,
) -> Option<tokio::task::JoinHandle<()>> {
    if config.embedded || config.mosquitto_password_file.trim().is_empty() {
        if !config.embedded {
            tracing::warn!(
                "external broker without broker.mosquitto_password_file: the hub does not manage gateway accounts, the broker must"
            );
        }
        return None;
    }
    let period = Duration::from_secs(config.mosquitto_sync_seconds.max(1));
    Some(tokio::spawn(async move {
        loop {
            let wait = match sync(&db, &config).await {
                Ok(_) => period,
                Err(e) => {
                    tracing::warn!(error = %e, "broker accounts not in step yet; retrying");
                    period.min(Duration::from_secs(5))
                }
            };
            tokio::select! {
                biased;
                _ = shutdown.stopping() => return,
                _ = CHANGED.notified() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_mosquitto_passwd() {
        // A line `mosquitto_passwd -b` (Mosquitto 2.0.11, Debian) wrote for password "hubpw".
        let line = "$7$101$50bVjSd/U8ttoa8K$dFuxn4/SeqsftkAl+EK5d/2NsAT6bKBrwvgoMpDEBtZ7eF1jiQSWej6MjXEcNx5gBZv7NWuF6YZUa/1qjgoneA==";
        use base64::Engine;
        let salt = base64::engine::general_purpose::STANDARD
            .decode("50bVjSd/U8ttoa8K")
            .expect("salt");
        assert_eq!(mosquitto_hash("hubpw", &salt, 101), line);
        assert_ne!(mosquitto_hash("hubpw2", &salt, 101), line);
    }

    #[test]
    fn the_files_hold_the_hub_and_each_gateway_to_its_topics() {
        let gws = vec![
            ("GW-A".to_string(), "$7$1$a$b".to_string()),
            ("pv-hub".to_string(), "$7$1$c$d".to_string()),
        ];
        let pw = password_file(Some(("pv-hub", "s3cret")), &gws);
        assert!(pw.contains("\nGW-A:$7$1$a$b\n"), "{pw}");
        assert_eq!(
            pw.matches("pv-hub:").count(),
            1,
            "a gateway named like the hub is left out: {pw}"
        );
        assert!(!pw.contains("s3cret"), "never the password itself");
        assert_eq!(
            pw,
            password_file(Some(("pv-hub", "s3cret")), &gws),
            "same input, same file"
        );
        let acl = acl_file(Some("pv-hub"));
        assert!(acl.contains("user pv-hub\ntopic read pv/1/+/up/+\ntopic write pv/1/+/down/+\n"));
        assert!(acl.contains("pattern write pv/1/%u/up/+\npattern read pv/1/%u/down/+\n"));
    }

    #[test]
    fn the_hub_login_comes_from_the_url() {
        let mut c = crate::config::Config::default().broker;
        c.url = "mqtt://pv-hub:p:w@broker:1883".into();
        assert_eq!(hub_login(&c), Some(("pv-hub".into(), "p:w".into())));
        c.url = "mqtt://broker:1883".into();
        assert_eq!(hub_login(&c), None);
    }
}
