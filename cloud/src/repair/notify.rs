//! Messages about repair orders (type 4, `biz_id` = the order): to the assignee when assigned or
//! transferred, to the dispatchers and the creator when repaired, to the owners when it awaits
//! their evaluation (the dispatchers when the station has no owner), and to the assignee and
//! dispatchers when a deadline passes. Each wakes the tenant's bells.

use super::people::{dispatchers, owners};
use crate::alarm::context::AlarmCtx;
use crate::alarm::message::{TYPE_REPAIR, WorkMessage, create_for_users};
use crate::alarm::store::notify;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id};

/// The order a message is about.
pub struct About<'a> {
    pub tenant_id: &'a str,
    pub id: Id,
    pub code: &'a str,
    pub title: &'a str,
    pub station_id: i64,
}

pub enum Event {
    Assigned,
    Repaired,
    ToEvaluate,
    ResponseOverdue,
    RepairOverdue,
}

impl Event {
    fn titles(&self, code: &str) -> (String, String) {
        match self {
            Event::Assigned => (format!("新维修工单 {code}"), format!("New repair order {code}")),
            Event::Repaired => (
                format!("工单 {code} 已维修"),
                format!("Repair order {code} repaired"),
            ),
            Event::ToEvaluate => (
                format!("工单 {code} 待评价"),
                format!("Repair order {code} awaits your evaluation"),
            ),
            Event::ResponseOverdue => (
                format!("工单 {code} 响应超时"),
                format!("Repair order {code}: response overdue"),
            ),
            Event::RepairOverdue => (
                format!("工单 {code} 维修超时"),
                format!("Repair order {code}: repair overdue"),
            ),
        }
    }

    /// The notification event (`notify::events`): an order coming back repaired or for
    /// evaluation is "returned"; an overdue one escalates.
    fn kind(&self) -> &'static str {
        use crate::notify::events as e;
        match self {
            Event::Assigned => e::REPAIR_ASSIGNED,
            Event::Repaired | Event::ToEvaluate => e::REPAIR_RETURNED,
            Event::ResponseOverdue | Event::RepairOverdue => e::REPAIR_OVERDUE,
        }
    }
}

/// Messages `users` about `about` and wakes the tenant's bells.
pub async fn send(ctx: &AlarmCtx, about: &About<'_>, event: Event, users: &[i64]) -> Result<usize, ApiError> {
    if users.is_empty() {
        return Ok(0);
    }
    let (title, title_en) = event.titles(about.code);
    let n = create_for_users(
        ctx,
        users,
        &WorkMessage {
            tenant_id: about.tenant_id,
            r#type: TYPE_REPAIR,
            event: event.kind(),
            biz_id: about.id,
            title: &title,
            title_en: &title_en,
            content: about.title,
            content_en: about.title,
        },
    )
    .await?;
    notify(ctx, about.tenant_id);
    Ok(n)
}

/// Tells the owners (or, with none, the dispatchers) that the order awaits evaluation, once:
/// only the call that flips `evaluate_notified` sends.
pub async fn to_evaluate(ctx: &AlarmCtx, about: &About<'_>) -> Result<(), ApiError> {
    let mut sql = Sql::new("UPDATE pv_repair_order SET evaluate_notified = 1 WHERE ");
    sql.push_bind("id = ? AND evaluate_notified = 0", [Value::from(about.id)]);
    if sql.execute(ctx.db.pool()).await? == 0 {
        return Ok(());
    }
    let mut users = owners(ctx, about.tenant_id, about.station_id).await?;
    if users.is_empty() {
        users = dispatchers(ctx, about.tenant_id, about.station_id).await?;
    }
    send(ctx, about, Event::ToEvaluate, &users).await?;
    Ok(())
}
