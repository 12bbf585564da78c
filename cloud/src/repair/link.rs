//! The link between an alarm and its repair order, on the alarm's side. While an order is open
//! (status 1 .. 6) its alarm stays open even when the condition ends: the engine's auto-clear
//! calls [`hold_open`], which records when the condition ended and moves a repaired order (5)
//! on to "to be evaluated" (6). When the order completes, [`close_if_ended`] closes the alarm if
//! its condition has ended, naming the order; otherwise the alarm stays open.
//!
//! Only the kernel and the repair store are used here: the alarm store calls into this file.

use sqlx::{Any, Transaction};

use super::machine::{COMPLETED, REPAIRED, TO_EVALUATE};
use super::store::{LogEntry, transition};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id};

/// The note of the system's verify when the alarm's condition ended.
pub const CONDITION_ENDED: &str = "告警条件已结束 / alarm condition ended";

/// Called instead of closing alarm `alarm` whose condition ended at `at`: when an open order
/// holds it, records the end, advances a repaired order to "to be evaluated" and answers true
/// (the alarm must stay open). False: no open order, close it as usual.
pub async fn hold_open(core: &Core, alarm: Id, at: i64) -> Result<bool, ApiError> {
    let mut sql = Sql::new("SELECT id, status, tenant_id FROM pv_repair_order WHERE ");
    sql.push_bind(
        "alarm_id = ? AND status < ? AND is_deleted = 0",
        [Value::from(alarm), Value::Int(COMPLETED)],
    );
    let Some((order, status, tenant)) = sql
        .fetch_optional::<(i64, i64, String), _>(core.db.pool())
        .await?
    else {
        return Ok(false);
    };
    let mut tx = core.db.begin_write().await?;
    let mut mark = Sql::new("UPDATE pv_alarm SET ");
    mark.push_bind(
        "condition_end_time = COALESCE(condition_end_time, ?) WHERE id = ? AND status < 2",
        [Value::Int(at), Value::from(alarm)],
    );
    mark.execute(&mut *tx).await?;
    if status == REPAIRED {
        let mut set = Sql::default();
        set.push_bind(", verify_time = ?", [Value::Int(at)]);
        let moved = transition(
            core,
            &mut tx,
            &LogEntry {
                tenant_id: &tenant,
                order: Id(order),
                action: "verify",
                from: REPAIRED,
                to: TO_EVALUATE,
                user: 0,
                note: CONDITION_ENDED,
                at,
            },
            set,
        )
        .await;
        // Someone verified it meanwhile: the mark above still stands.
        if let Err(e) = moved
            && !matches!(e, ApiError::BadRequest(_))
        {
            return Err(e);
        }
    }
    tx.commit().await?;
    Ok(true)
}

/// Whether alarm `alarm`'s condition has ended (recorded while held, or the alarm is closed).
pub async fn condition_ended(tx: &mut Transaction<'_, Any>, alarm: i64) -> Result<bool, ApiError> {
    let mut sql = Sql::new("SELECT COUNT(*) FROM pv_alarm WHERE ");
    sql.push_bind(
        "id = ? AND (status = 2 OR condition_end_time IS NOT NULL)",
        [Value::Int(alarm)],
    );
    Ok(sql.scalar::<i64, _>(&mut **tx).await? > 0)
}

/// Closes alarm `alarm` when its condition has ended, by the system, with `note` naming the
/// order. Answers whether it closed.
pub async fn close_if_ended(
    tx: &mut Transaction<'_, Any>,
    alarm: i64,
    note: &str,
    at: i64,
) -> Result<bool, ApiError> {
    let mut sql = Sql::new("UPDATE pv_alarm SET ");
    sql.push_bind(
        "status = 2, clear_user = 0, clear_time = ?, clear_note = ? \
         WHERE id = ? AND status < 2 AND condition_end_time IS NOT NULL",
        [Value::Int(at), Value::from(note), Value::Int(alarm)],
    );
    Ok(sql.execute(&mut **tx).await? > 0)
}
