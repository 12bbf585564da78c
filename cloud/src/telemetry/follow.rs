//! Realtime values and presence on every replica. A replica's realtime view is fed by its own
//! ingest, and a gateway is ingested by one replica only (`ownership`), so without this a console
//! served by another replica would show the values it loaded at start. The replica that stores
//! new latest values or presence marks the station touched (after the commit, so a reader never
//! finds the old row); once per [`ANNOUNCE`] it tells the others which stations changed, in one
//! cluster signal, and they re-read those stations' rows from `pv_telemetry_latest` and
//! `pv_gateway_state`. A signal carries station ids only: a fleet's worth would exceed NOTIFY's
//! limit and is then widened to "everything" (`cluster::ALL`), a full re-read.
//!
//! Signals can be lost (a dropped listener connection is followed by a resync, which re-reads
//! everything); a re-read of everything every [`SAFETY`] bounds what anything else could leave
//! stale. On SQLite a hub is alone and this does not run.

use std::time::Duration;

use crate::kernel::cluster::{ALL, Signal};
use crate::telemetry::context::TelemetryCtx;

/// The cluster topic: "the latest rows of these stations changed".
pub const TOPIC: &str = "realtime";

/// How often touched stations are announced (a busy station is named once per period, however
/// many batches it sent).
pub const ANNOUNCE: Duration = Duration::from_secs(1);

/// How often everything is re-read regardless of signals.
pub const SAFETY: Duration = Duration::from_secs(30);

/// The signal's key: station ids, comma-separated.
fn key_of(stations: impl IntoIterator<Item = i64>) -> String {
    stations
        .into_iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The stations a key names; `None` for every station (or a key this replica cannot read).
fn stations_of(key: &str) -> Option<Vec<i64>> {
    if key == ALL {
        return None;
    }
    key.split(',').map(|s| s.trim().parse().ok()).collect()
}

/// Announces this replica's changes and follows the others' until the hub stops.
pub fn spawn(state: TelemetryCtx) -> Option<tokio::task::JoinHandle<()>> {
    if !state.cluster.is_shared() {
        return None;
    }
    let mut signals = state.cluster.subscribe();
    Some(tokio::spawn(async move {
        let mut announce = tokio::time::interval(ANNOUNCE);
        announce.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut safety = tokio::time::interval(SAFETY);
        safety.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let stations = tokio::select! {
                biased;
                _ = state.shutdown.stopping() => return,
                _ = announce.tick() => {
                    let touched = state.realtime.take_touched();
                    if !touched.is_empty() {
                        state.cluster.publish(TOPIC, &key_of(touched));
                    }
                    continue;
                }
                _ = safety.tick() => None,
                s = signals.recv() => match s {
                    Ok(Signal::Changed { topic, key }) if topic == TOPIC => stations_of(&key),
                    Ok(Signal::Changed { .. }) => continue,
                    Ok(Signal::Resync) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => None,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
            };
            if let Err(e) = state.realtime.refresh(&state.db, stations.as_deref()).await {
                tracing::warn!(error = %e, "re-reading realtime values another replica stored");
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_names_stations_or_everything() {
        assert_eq!(stations_of(&key_of([3, 17])), Some(vec![3, 17]));
        assert_eq!(stations_of(ALL), None);
        assert_eq!(stations_of("3,x"), None);
    }
}
