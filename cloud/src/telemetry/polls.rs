//! Polls per device and hour (`pv_device_polls`, migration 0053), for the device overview's
//! "missed polls of the last day" (docs/equipment.md). A gateway's status carries each device's
//! poll counters since its agent started; the hub keeps only the newest status, so the difference
//! to the previous one is added to the hour the new one arrived in when it comes. A counter lower
//! than before means the agent restarted: the new value counts (its polls since the restart). The
//! first status the hub holds of a gateway is only the baseline.

use pv_shared::wire::{DeviceStatus, GatewayStatus};

use super::raw::{HOUR_MS, hour_of};
use super::registry::GatewayEntry;
use crate::kernel::ApiError;
use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};

/// Rows older than this are dropped (the overview reads one day).
const KEEP_MS: i64 = 48 * HOUR_MS;

/// What a counter added since `before` (a restart, seen as a lower value, counts from zero).
pub fn step(before: u64, now: u64) -> u64 {
    if now >= before { now - before } else { now }
}

/// The previous status of the gateway as stored (when the realtime view holds none, e.g. right
/// after a restart of the hub).
async fn stored(db: &Db, gateway: &str) -> Result<Option<GatewayStatus>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT status FROM pv_gateway_state WHERE gateway_id = ?",
        [Value::from(gateway)],
    );
    let text: Option<Option<String>> = sql.scalar_optional(db.pool()).await?;
    Ok(text.flatten().and_then(|t| serde_json::from_str(&t).ok()))
}

/// Records what `status` adds to each registered device's polls since `before` (the previous
/// status; read from the database when `None`). Call before the new status is stored.
pub async fn record(
    db: &Db,
    entry: &GatewayEntry,
    before: Option<GatewayStatus>,
    status: &GatewayStatus,
    now: i64,
) -> Result<(), ApiError> {
    let before = match before {
        Some(b) => Some(b),
        None => stored(db, &entry.gateway_id).await?,
    };
    let Some(before) = before else {
        return Ok(());
    };
    let previous = |id: &str| -> Option<&DeviceStatus> { before.devices.iter().find(|d| d.id.trim() == id) };
    let hour = hour_of(now);
    let mut rows = Vec::new();
    for d in &status.devices {
        let id = d.id.trim();
        let Some(device) = entry.devices.get(id) else {
            continue;
        };
        let (ok, failed) = match previous(id) {
            Some(p) => (step(p.polls_ok, d.polls_ok), step(p.polls_failed, d.polls_failed)),
            // A device new to this gateway's statuses: its counters start with it.
            None => (d.polls_ok, d.polls_failed),
        };
        if ok > 0 || failed > 0 {
            rows.push((device.device_id, ok, failed));
        }
    }
    if rows.is_empty() {
        return Ok(());
    }
    let mut sql = Sql::new(
        "INSERT INTO pv_device_polls (device_id, hour, tenant_id, station_id, polls_ok, polls_failed) VALUES ",
    );
    for (i, (device, ok, failed)) in rows.iter().enumerate() {
        sql.push_bind(
            if i == 0 {
                "(?, ?, ?, ?, ?, ?)"
            } else {
                ", (?, ?, ?, ?, ?, ?)"
            },
            [
                Value::Int(*device),
                Value::Int(hour),
                Value::from(entry.tenant_id.as_str()),
                Value::Int(entry.station_id),
                Value::Int(i64::try_from(*ok).unwrap_or(i64::MAX)),
                Value::Int(i64::try_from(*failed).unwrap_or(i64::MAX)),
            ],
        );
    }
    sql.push(
        " ON CONFLICT (device_id, hour) DO UPDATE SET polls_ok = pv_device_polls.polls_ok + excluded.polls_ok, \
         polls_failed = pv_device_polls.polls_failed + excluded.polls_failed",
    );
    sql.execute(db.pool()).await?;
    // Old rows go once an hour per gateway (its first status of an hour), not on every status.
    if hour_of(before.ts) == hour {
        return Ok(());
    }
    let mut old = Sql::new("DELETE FROM pv_device_polls WHERE device_id IN (");
    for (i, (device, _, _)) in rows.iter().enumerate() {
        old.push_bind(if i == 0 { "?" } else { ", ?" }, [Value::Int(*device)]);
    }
    old.push_bind(") AND hour < ?", [Value::Int(hour - KEEP_MS)]);
    old.execute(db.pool()).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::step;

    #[test]
    fn a_lower_counter_is_a_restart() {
        assert_eq!(step(3, 7), 4);
        assert_eq!(step(7, 7), 0);
        assert_eq!(step(40, 2), 2);
    }
}
