//! Which replica polls an account: a lease in the account's `pv_vendor_poll` row, taken and
//! renewed by compare-and-set (the owner is this replica, or nobody, or a lease that ran out),
//! as `telemetry::ownership` leases gateways. One statement decides, so two replicas can never
//! both hold it; a replica that dies loses its accounts when their leases run out, and the
//! next pass of another replica takes them over. Polls are idempotent (samples by their
//! (device, time) key, cursors only forward), so the overlap a lost lease allows at worst
//! re-polls a window.

use super::context::VendorCtx;
use crate::kernel::ApiError;
use crate::kernel::sql::{Sql, Value};

/// Makes sure the account has its poll row (a plant mapped before the row existed).
pub async fn ensure_row(state: &VendorCtx, account_id: i64, tenant: &str, now: i64) -> Result<(), ApiError> {
    let mut sql = Sql::new("INSERT INTO pv_vendor_poll (account_id, tenant_id, state, update_time) VALUES ");
    sql.push_bind(
        "(?,?,'idle',?) ON CONFLICT (account_id) DO NOTHING",
        [Value::Int(account_id), Value::from(tenant), Value::Int(now)],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}

/// Takes or renews the lease of `account_id` for `replica` until `now + lease_ms`; true when
/// this replica holds it.
pub async fn claim(
    state: &VendorCtx,
    account_id: i64,
    replica: &str,
    now: i64,
    lease_ms: i64,
) -> Result<bool, ApiError> {
    let mut sql = Sql::new("UPDATE pv_vendor_poll SET ");
    sql.push_bind(
        "owner = ?, lease_until = ? WHERE account_id = ? AND (owner IS NULL OR owner = ? OR lease_until IS NULL OR lease_until < ?)",
        [
            Value::from(replica),
            Value::Int(now + lease_ms),
            Value::Int(account_id),
            Value::from(replica),
            Value::Int(now),
        ],
    );
    Ok(sql.execute(state.db.pool()).await? == 1)
}

/// Gives up every lease of `replica` (at shutdown), so another replica takes over at once.
pub async fn release_all(state: &VendorCtx, replica: &str) -> Result<(), ApiError> {
    let mut sql = Sql::new("UPDATE pv_vendor_poll SET ");
    sql.push_bind(
        "owner = NULL, lease_until = NULL WHERE owner = ?",
        [Value::from(replica)],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}
