//! The job `repair.deadlines` (one replica at a time, `leader::run_exclusive`): marks orders
//! whose response or repair deadline has passed and messages their assignee and dispatchers,
//! once per deadline (only the pass that flips the order's `*_notified` flag sends), and sends
//! the "to be evaluated" messages of orders the alarm engine moved on.

use std::time::Duration;

use super::notify::{self, About, Event};
use super::people::dispatchers;
use crate::alarm::context::AlarmCtx;
use crate::kernel::leader;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id, time};

pub const JOB: &str = "repair.deadlines";

#[derive(Debug, sqlx::FromRow)]
struct Due {
    id: i64,
    tenant_id: String,
    code: String,
    title: String,
    station_id: i64,
    assignee_id: Option<i64>,
}

const COLUMNS: &str =
    "SELECT id, tenant_id, code, title, station_id, assignee_id FROM pv_repair_order WHERE ";

fn about(d: &Due) -> About<'_> {
    About {
        tenant_id: &d.tenant_id,
        id: Id(d.id),
        code: &d.code,
        title: &d.title,
        station_id: d.station_id,
    }
}

/// Orders past one deadline, not yet notified: `flag` is the notified column, `deadline` the
/// deadline column, `statuses` those in which the deadline still matters.
async fn overdue(
    ctx: &AlarmCtx,
    flag: &str,
    deadline: &str,
    statuses: &str,
    event: fn() -> Event,
    now: i64,
) -> Result<usize, ApiError> {
    let mut sql = Sql::new(COLUMNS);
    // Across tenants: the job acts for every tenant.
    sql.push_bind(
        &format!("is_deleted = 0 AND {flag} = 0 AND status IN ({statuses}) AND {deadline} < ?"),
        [Value::Int(now)],
    );
    let due = sql.fetch_all::<Due, _>(ctx.db.pool()).await?;
    let mut sent = 0;
    for d in due {
        let mut mark = Sql::new("UPDATE pv_repair_order SET ");
        mark.push_bind(
            &format!("{flag} = 1 WHERE id = ? AND {flag} = 0"),
            [Value::Int(d.id)],
        );
        if mark.execute(ctx.db.pool()).await? == 0 {
            continue;
        }
        let mut users = dispatchers(ctx, &d.tenant_id, d.station_id).await?;
        users.extend(d.assignee_id);
        notify::send(ctx, &about(&d), event(), &users).await?;
        sent += 1;
    }
    Ok(sent)
}

/// One pass; answers how many orders were newly found overdue (response and repair counted apart).
pub async fn run_once(ctx: &AlarmCtx) -> Result<usize, ApiError> {
    let now = time::now_ms();
    let mut n = overdue(
        ctx,
        "response_notified",
        "response_deadline",
        "1, 2",
        || Event::ResponseOverdue,
        now,
    )
    .await?;
    n += overdue(
        ctx,
        "repair_notified",
        "repair_deadline",
        "1, 2, 3, 4",
        || Event::RepairOverdue,
        now,
    )
    .await?;
    let mut sql = Sql::new(COLUMNS);
    sql.push("is_deleted = 0 AND evaluate_notified = 0 AND status = 6");
    for d in sql.fetch_all::<Due, _>(ctx.db.pool()).await? {
        notify::to_evaluate(ctx, &about(&d)).await?;
    }
    Ok(n)
}

/// Runs [`run_once`] every `every` on one replica of a cluster at a time.
pub fn spawn(ctx: AlarmCtx, every: Duration) {
    tokio::spawn(async move {
        loop {
            let Some(busy) = ctx.shutdown.pass() else {
                return;
            };
            match leader::run_exclusive(&ctx.db, JOB, run_once(&ctx)).await {
                Ok(Some(Ok(n))) if n > 0 => tracing::info!(overdue = n, "repair deadlines"),
                Ok(Some(Ok(_))) | Ok(None) => {}
                Ok(Some(Err(e))) => tracing::warn!(error = %e, "repair deadline pass failed"),
                Err(e) => tracing::warn!(error = %e, "repair deadlines: no leader lock"),
            }
            drop(busy);
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = ctx.shutdown.stopping() => return,
            }
        }
    });
}
