//! One live replica per `node_id` on a PostgreSQL. Snowflake ids (`kernel::id`) are unique only
//! if no two processes mint with the same node id at the same time; two replicas configured
//! alike would collide silently, in any table. So a replica claims its node id before it mints
//! its first id: a session advisory lock keyed by the node id, held on a connection of its own
//! for the life of the process. A second replica with the same node id refuses to start and
//! names the holder. The server drops the lock with the holder's connection, so a crashed
//! replica's node id is free at once (loopback, a dead process) or after the server notices the
//! connection is gone (a network cut: TCP keepalive), with no expiry to wait out.
//!
//! A replica stopping frees the claim as it stops; a successor started right after (a restart)
//! waits up to [`PATIENCE`] for it. If the claiming connection drops while the hub runs, the
//! claim is taken again on a new connection; should another process have taken the node id
//! meanwhile, that is logged as an error on every attempt (nothing else can be done safely from
//! inside: the operator must fix the configuration).
//!
//! On SQLite a hub is alone with its file: nothing to claim.

use std::str::FromStr;
use std::time::{Duration, Instant};

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

use super::shutdown::Shutdown;

/// The first key of the advisory lock (ASCII "pvnd"): keeps these locks apart from others.
const CLASS: i32 = 0x7076_6e64;

/// How long a start waits for a stopping predecessor to free the node id.
pub const PATIENCE: Duration = Duration::from_secs(5);

/// How often the claiming connection is checked (and re-dialled when gone).
const CHECK: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum NodeClaimError {
    #[error(
        "node_id {node_id} is in use by another live replica on this database ({holder}): give every replica \
         its own node_id (PV_NODE_ID, 0-1023)"
    )]
    InUse { node_id: u16, holder: String },
    #[error("claiming node_id {node_id}: {source}")]
    Db { node_id: u16, source: sqlx::Error },
}

/// Takes the lock on `conn`; `Ok(None)` when another session holds it, with the holder's name.
async fn try_lock(conn: &mut PgConnection, node_id: u16) -> Result<Option<String>, sqlx::Error> {
    let got: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1, $2)")
        .bind(CLASS)
        .bind(i32::from(node_id))
        .fetch_one(&mut *conn)
        .await?;
    if got {
        return Ok(None);
    }
    let holder: Option<(String, Option<String>, i32)> = sqlx::query_as(
        "SELECT a.application_name, host(a.client_addr), a.pid FROM pg_locks l \
         JOIN pg_stat_activity a ON a.pid = l.pid \
         WHERE l.locktype = 'advisory' AND l.granted AND l.classid = CAST($1 AS oid) \
         AND l.objid = CAST($2 AS oid) AND l.objsubid = 2 \
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .bind(i64::from(CLASS))
    .bind(i64::from(node_id))
    .fetch_optional(&mut *conn)
    .await?;
    Ok(Some(match holder {
        Some((app, addr, pid)) => format!(
            "held by '{app}' from {}, server pid {pid}",
            addr.unwrap_or_else(|| "a local socket".to_owned())
        ),
        None => "held by a session that just ended".to_owned(),
    }))
}

async fn dial(options: &PgConnectOptions) -> Result<PgConnection, sqlx::Error> {
    PgConnection::connect_with(options).await
}

/// Claims `node_id` on the PostgreSQL at `url` and keeps the claim until `shutdown`.
pub async fn claim(url: &str, node_id: u16, shutdown: Shutdown) -> Result<(), NodeClaimError> {
    let db = |source| NodeClaimError::Db { node_id, source };
    let options = PgConnectOptions::from_str(url)
        .map_err(db)?
        .application_name(&format!("pv-node-{node_id}-{}", std::process::id()));
    let mut conn = dial(&options).await.map_err(db)?;
    let started = Instant::now();
    loop {
        match try_lock(&mut conn, node_id).await.map_err(db)? {
            None => break,
            Some(holder) if started.elapsed() >= PATIENCE => {
                let _ = conn.close().await;
                return Err(NodeClaimError::InUse { node_id, holder });
            }
            Some(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    tracing::info!(node_id, "node id claimed");
    tokio::spawn(hold(conn, options, node_id, shutdown));
    Ok(())
}

/// Keeps the claiming connection alive until the hub stops, then frees the claim.
async fn hold(conn: PgConnection, options: PgConnectOptions, node_id: u16, shutdown: Shutdown) {
    let mut conn = Some(conn);
    let mut held = true;
    loop {
        tokio::select! {
            _ = shutdown.stopping() => break,
            _ = tokio::time::sleep(CHECK) => {}
        }
        if let Some(c) = conn.as_mut()
            && held
            && c.ping().await.is_ok()
        {
            continue;
        }
        if held {
            tracing::warn!(node_id, "node id claim: connection lost; claiming again");
            held = false;
            conn = None;
        }
        if conn.is_none() {
            match dial(&options).await {
                Ok(c) => conn = Some(c),
                Err(e) => {
                    tracing::warn!(node_id, error = %e, "node id claim: cannot connect");
                    continue;
                }
            }
        }
        let Some(c) = conn.as_mut() else { continue };
        match try_lock(c, node_id).await {
            Ok(None) => {
                tracing::info!(node_id, "node id claimed again");
                held = true;
            }
            Ok(Some(holder)) => {
                tracing::error!(
                    node_id,
                    holder,
                    "node id taken by another replica while this one ran: ids may collide; fix node_id"
                )
            }
            Err(e) => {
                tracing::warn!(node_id, error = %e, "node id claim");
                conn = None;
            }
        }
    }
    if let Some(mut c) = conn {
        let _ = sqlx::query("SELECT pg_advisory_unlock($1, $2)")
            .bind(CLASS)
            .bind(i32::from(node_id))
            .execute(&mut c)
            .await;
        let _ = c.close().await;
    }
}
