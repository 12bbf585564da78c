//! Which replica ingests which gateway, when several hubs share one PostgreSQL and an external
//! broker. A device's samples must be evaluated in order by one alarm engine at a time (its
//! debounce state lives in one process), so a gateway's uplink goes to exactly one replica: the
//! one holding its lease in `pv_gateway_lease`. Each replica subscribes only to the uplink topics
//! of the gateways it leases.
//!
//! Every `lease_heartbeat_seconds` a replica, in this order:
//! 1. marks itself alive in `pv_replica` and renews all its leases for `lease_seconds`; a lease
//!    it no longer finds (another replica took it after it expired) is unsubscribed at once;
//! 2. deletes the leases it unsubscribed from on the previous beat (the gap lets the broker's
//!    UNSUBACK and the messages already received go through this replica's ingest first);
//! 3. computes its share, `ceil(gateways / live replicas)`, and gives away (unsubscribes) what
//!    it holds above it, or claims gateways whose lease is missing or expired up to it,
//!    subscribing after the claim committed.
//!
//! Only surplus moves, so a joining replica takes gateways from the others and a dying one's
//! gateways go to the survivors, and nothing else changes hands. A claim succeeds only on an
//! expired lease (a conditional upsert), so a gateway is taken over no sooner than `lease_seconds`
//! after its owner's last renewal, and no later than one heartbeat after that: the handover after
//! a crash is at most `lease_seconds + lease_heartbeat_seconds`. Times are the database's clock,
//! so replicas with skewed clocks agree. A replica that cannot renew (database unreachable)
//! unsubscribes everything before its leases can have expired, so it never ingests a gateway
//! another replica may already hold.
//!
//! A message published while nobody subscribes (between a crash and the takeover) is dropped
//! by the broker; the gateway keeps every batch until the hub acknowledges it after the commit,
//! resends it after its ack timeout, and the store is idempotent on (device, ts): nothing is
//! lost and nothing is stored twice.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::Row;

use crate::kernel::ApiError;
use crate::kernel::db::Db;
use crate::kernel::shutdown::Shutdown;
use crate::kernel::sql::{Sql, Value};
use pv_shared::topics;

/// The database's clock in epoch milliseconds (PostgreSQL; this module runs only there).
const NOW_MS: &str = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";

/// The uplink filter of one gateway.
pub fn uplink_of(gateway: &str) -> String {
    format!("pv/{}/{gateway}/up/+", topics::WIRE_VERSION)
}

/// The gateways this replica subscribes to, shared by the lease worker and the broker client
/// (which subscribes to all of them again after a reconnect).
#[derive(Default)]
pub struct Owned {
    client: Mutex<Option<rumqttc::AsyncClient>>,
    set: Mutex<BTreeSet<String>>,
}

impl Owned {
    pub fn new() -> Arc<Owned> {
        Arc::new(Owned::default())
    }

    /// The broker client to subscribe with (set once by `broker::start_external`).
    pub fn attach(&self, client: rumqttc::AsyncClient) {
        *self.client.lock().unwrap_or_else(|p| p.into_inner()) = Some(client);
    }

    pub fn gateways(&self) -> BTreeSet<String> {
        self.set.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn contains(&self, gateway: &str) -> bool {
        self.set
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(gateway)
    }

    fn client(&self) -> Option<rumqttc::AsyncClient> {
        self.client.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Subscribes to every owned gateway (after a connect: the session is clean).
    pub fn resubscribe(&self) -> Result<(), rumqttc::ClientError> {
        let Some(client) = self.client() else {
            return Ok(());
        };
        for g in self.gateways() {
            client.try_subscribe(uplink_of(&g), rumqttc::QoS::AtLeastOnce)?;
        }
        Ok(())
    }

    async fn subscribe(&self, gateway: &str) {
        self.set
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(gateway.to_owned());
        // While disconnected the request waits in the client's queue, and the ConnAck
        // resubscription covers it too; a failure here means the client is gone.
        if let Some(c) = self.client()
            && let Err(e) = c.subscribe(uplink_of(gateway), rumqttc::QoS::AtLeastOnce).await
        {
            tracing::warn!(gateway, error = %e, "subscribing to a leased gateway");
        }
    }

    async fn unsubscribe(&self, gateway: &str) {
        self.set.lock().unwrap_or_else(|p| p.into_inner()).remove(gateway);
        if let Some(c) = self.client()
            && let Err(e) = c.unsubscribe(uplink_of(gateway)).await
        {
            tracing::warn!(gateway, error = %e, "unsubscribing from a released gateway");
        }
    }
}

/// Lease timing (`broker.lease_seconds`, `broker.lease_heartbeat_seconds`).
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub lease: Duration,
    pub heartbeat: Duration,
}

impl Timing {
    fn lease_ms(&self) -> i64 {
        i64::try_from(self.lease.as_millis()).unwrap_or(i64::MAX)
    }
}

/// One replica's lease bookkeeping.
pub struct Leases {
    db: Db,
    replica: String,
    timing: Timing,
    owned: Arc<Owned>,
    /// Unsubscribed on the last beat; their leases are deleted on this one.
    releasing: BTreeSet<String>,
    /// When the leases were last renewed (for the self-fencing check).
    renewed: Option<Instant>,
}

/// A replica's id: its node id and a random part, so a restarted process is a new replica and
/// waits for its predecessor's leases to expire like any other.
pub fn replica_id(node_id: u16) -> String {
    let mut b = [0u8; 4];
    let _ = getrandom::fill(&mut b);
    format!("{node_id}-{}", hex::encode(b))
}

impl Leases {
    pub fn new(db: Db, replica: String, timing: Timing, owned: Arc<Owned>) -> Leases {
        Leases {
            db,
            replica,
            timing,
            owned,
            releasing: BTreeSet::new(),
            renewed: None,
        }
    }

    pub fn owned(&self) -> Arc<Owned> {
        self.owned.clone()
    }

    pub fn replica(&self) -> &str {
        &self.replica
    }

    /// One heartbeat (see the module notes). On an error the caller calls `fence`.
    pub async fn beat(&mut self) -> Result<(), ApiError> {
        let lease = self.timing.lease_ms();
        let me = Value::from(self.replica.as_str());
        let mut alive = Sql::default();
        alive.push_bind(
            &format!(
                "INSERT INTO pv_replica (replica, seen_at) VALUES (?, {NOW_MS}) ON CONFLICT (replica) \
                 DO UPDATE SET seen_at = excluded.seen_at"
            ),
            [me.clone()],
        );
        alive.execute(self.db.pool()).await?;
        // Replicas long gone, and leases nobody renewed for as long (a removed gateway's):
        // forgotten, so the tables stay as small as the fleet.
        let mut forget = Sql::default();
        forget.push_bind(
            &format!("DELETE FROM pv_replica WHERE seen_at < {NOW_MS} - ?"),
            [Value::Int(lease.saturating_mul(20))],
        );
        forget.execute(self.db.pool()).await?;
        let mut stale = Sql::default();
        stale.push_bind(
            &format!("DELETE FROM pv_gateway_lease WHERE expires_at < {NOW_MS} - ?"),
            [Value::Int(lease.saturating_mul(20))],
        );
        stale.execute(self.db.pool()).await?;
        let mut renew = Sql::default();
        renew.push_bind(
            &format!(
                "UPDATE pv_gateway_lease SET expires_at = {NOW_MS} + ? WHERE replica = ? RETURNING gateway_id"
            ),
            [Value::Int(lease), me.clone()],
        );
        let held: BTreeSet<String> = renew.scalars(self.db.pool()).await?.into_iter().collect();
        self.renewed = Some(Instant::now());
        // Taken by another replica (this one failed to renew in time): stop at once.
        for g in self.owned.gateways() {
            if !held.contains(&g) {
                tracing::warn!(gateway = %g, "gateway lease lost to another replica");
                self.owned.unsubscribe(&g).await;
            }
        }
        let mut held = held;
        for g in std::mem::take(&mut self.releasing) {
            held.remove(&g);
            let mut del = Sql::default();
            del.push_bind(
                "DELETE FROM pv_gateway_lease WHERE replica = ? AND gateway_id = ?",
                [me.clone(), Value::from(g.as_str())],
            );
            del.execute(self.db.pool()).await?;
            tracing::info!(gateway = %g, "gateway lease released");
        }
        // Still leased but not subscribed: after a fence the renewal found nobody had taken
        // them, so they are this replica's again.
        let owned = self.owned.gateways();
        for g in held.difference(&owned) {
            tracing::info!(gateway = %g, "gateway lease kept: subscribing again");
            self.owned.subscribe(g).await;
        }
        self.balance(held).await
    }

    async fn balance(&mut self, held: BTreeSet<String>) -> Result<(), ApiError> {
        let lease = self.timing.lease_ms();
        let mut live = Sql::default();
        live.push_bind(
            &format!("SELECT COUNT(*) FROM pv_replica WHERE seen_at > {NOW_MS} - ?"),
            [Value::Int(lease)],
        );
        let replicas = live.scalar::<i64, _>(self.db.pool()).await?.max(1);
        let gateways = current_gateways(&self.db).await?;
        let share = usize::try_from((gateways.len() as i64 + replicas - 1) / replicas).unwrap_or(0);
        let keep: Vec<&String> = held.iter().filter(|g| gateways.contains(*g)).collect();
        // Held but gone (station removed) or above the share: give away, from the end.
        let surplus: Vec<String> = held
            .iter()
            .filter(|g| !gateways.contains(*g))
            .chain(keep.iter().skip(share).copied())
            .cloned()
            .collect();
        for g in surplus {
            tracing::info!(gateway = %g, share, replicas, "giving a gateway away");
            self.owned.unsubscribe(&g).await;
            self.releasing.insert(g);
        }
        let mut have = keep.len().min(share);
        if have >= share {
            return Ok(());
        }
        let leases = Sql::new(&format!(
            "SELECT gateway_id, CASE WHEN expires_at < {NOW_MS} THEN 1 ELSE 0 END AS expired FROM pv_gateway_lease"
        ))
        .rows(self.db.pool())
        .await?;
        let mut taken = BTreeMap::new();
        for r in leases {
            taken.insert(
                r.try_get::<String, _>("gateway_id")?,
                r.try_get::<i32, _>("expired")? == 1,
            );
        }
        for g in &gateways {
            if have >= share {
                break;
            }
            if taken.get(g).is_some_and(|expired| !expired) {
                continue;
            }
            let mut claim = Sql::default();
            claim.push_bind(
                &format!(
                    "INSERT INTO pv_gateway_lease (gateway_id, replica, expires_at) VALUES (?, ?, {NOW_MS} + ?) \
                     ON CONFLICT (gateway_id) DO UPDATE SET replica = excluded.replica, \
                     expires_at = excluded.expires_at WHERE pv_gateway_lease.expires_at < {NOW_MS}"
                ),
                [
                    Value::from(g.as_str()),
                    Value::from(self.replica.as_str()),
                    Value::Int(lease),
                ],
            );
            if claim.execute(self.db.pool()).await? == 1 {
                tracing::info!(gateway = %g, share, replicas, "gateway lease taken");
                self.owned.subscribe(g).await;
                have += 1;
            }
        }
        Ok(())
    }

    /// After a failed beat: once the leases may expire before the next beat has had its
    /// chance (a beat takes at most a heartbeat, see `spawn`), stop ingesting everything, since
    /// another replica may take them any moment. `lease >= 3 x heartbeat` (checked in `config`)
    /// makes this happen at least a heartbeat before they expire.
    pub async fn fence(&mut self) {
        let margin = self.timing.lease.saturating_sub(self.timing.heartbeat * 2);
        if self.renewed.is_some_and(|r| r.elapsed() < margin) {
            return;
        }
        for g in self.owned.gateways() {
            tracing::warn!(gateway = %g, "leases not renewed in time: stopping this gateway's ingest");
            self.owned.unsubscribe(&g).await;
        }
    }

    /// A clean stop: unsubscribe everything, leave the leases to expire one heartbeat from now
    /// (time for this replica's ingest to finish what it received) and leave the replica list.
    pub async fn stop(&mut self) {
        for g in self.owned.gateways() {
            self.owned.unsubscribe(&g).await;
        }
        let heartbeat = i64::try_from(self.timing.heartbeat.as_millis()).unwrap_or(i64::MAX);
        let me = Value::from(self.replica.as_str());
        let mut expire = Sql::default();
        expire.push_bind(
            &format!("UPDATE pv_gateway_lease SET expires_at = {NOW_MS} + ? WHERE replica = ?"),
            [Value::Int(heartbeat), me.clone()],
        );
        let mut leave = Sql::default();
        leave.push_bind("DELETE FROM pv_replica WHERE replica = ?", [me]);
        if let Err(e) = expire.execute(self.db.pool()).await {
            tracing::warn!(error = %e, "shortening this replica's leases at stop");
        }
        if let Err(e) = leave.execute(self.db.pool()).await {
            tracing::warn!(error = %e, "leaving the replica list at stop");
        }
    }
}

/// Gateways that can sign in to the broker (current credentials of a live station), sorted.
async fn current_gateways(db: &Db) -> Result<BTreeSet<String>, ApiError> {
    let ids: Vec<String> = Sql::new(
        "SELECT DISTINCT c.gateway_id FROM pv_gateway_credential c \
         JOIN pv_station s ON s.id = c.station_id \
         WHERE s.is_deleted = 0 AND s.tenant_id = c.tenant_id AND s.gateway_id = c.gateway_id",
    )
    .scalars(db.pool())
    .await?;
    Ok(ids
        .into_iter()
        .filter(|id| topics::validate_gateway_id(id).is_ok())
        .collect())
}

/// Runs the heartbeat until the hub stops, then hands the leases over.
pub fn spawn(mut leases: Leases, shutdown: Shutdown) -> tokio::task::JoinHandle<()> {
    tracing::info!(replica = leases.replica(), "gateway ownership by leases");
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(leases.timing.heartbeat);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                _ = shutdown.stopping() => break,
                _ = tick.tick() => {}
            }
            // A beat that hangs (database unreachable, pool exhausted) must not hold off the
            // fence past the leases' expiry.
            let failed = match tokio::time::timeout(leases.timing.heartbeat, leases.beat()).await {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e.to_string()),
                Err(_) => Some("timed out".to_owned()),
            };
            if let Some(e) = failed {
                tracing::warn!(error = %e, "gateway lease heartbeat");
                leases.fence().await;
            }
        }
        leases.stop().await;
    })
}
