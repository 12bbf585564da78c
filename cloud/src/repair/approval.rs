//! Dispatch approval by the tenant's `repair_approval` process (issue 27). When the tenant has
//! it deployed and active, a new order is offered to it: the process decides from the order's
//! variables (`level`, `source`, `stationId`) whether approval is needed (the default process:
//! level ≥ 3) and who approves (`managers`: the station's dispatchers). An order needing
//! approval stays submitted and cannot be assigned until the process ends approved; then the
//! assignee named at creation, if any, gets it. A rejection (or a deleted instance) returns it
//! with the comment. Without the process, orders work as before.

use serde_json::{Map, Value};

use super::action_api::assign_in;
use super::machine::SUBMITTED;
use super::people::dispatchers;
use super::store::{self, LogEntry};
use crate::flow::engine::{self, Joins, Step};
use crate::flow::runtime::{self, Ended, StartArgs};
use crate::flow::store::{self as flow_store, DefinitionRow, Tx};
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value as V};
use crate::kernel::{ApiError, Core, Id};

pub const TABLE: &str = "pv_repair_order";
pub const KEY: &str = "repair_approval";

pub const NOT_NEEDED: i64 = 0;
pub const PENDING: i64 = 1;
pub const APPROVED: i64 = 2;
pub const REJECTED: i64 = 3;

pub const NOT_APPROVED: Text = Text::new(
    "工单尚未通过派工审批",
    "The order has not been approved for dispatch",
);

/// Whether an order in approval state `approval` may be assigned.
pub fn assignable(approval: i64) -> bool {
    approval == NOT_NEEDED || approval == APPROVED
}

/// What an order offers the process.
pub struct Offer {
    pub tenant_id: String,
    pub station_id: i64,
    pub level: i64,
    pub source: i64,
    pub creator: i64,
    /// Assigned once approved.
    pub assignee: Option<Id>,
}

/// The tenant's process and the variables of `o`, when the process would stop at a task for
/// it (read before the order's transaction: the dry run needs no database).
pub async fn prepare(
    core: &Core,
    o: &Offer,
) -> Result<Option<(DefinitionRow, Map<String, Value>)>, ApiError> {
    let Some(def) = flow_store::current(core, &o.tenant_id, KEY).await? else {
        return Ok(None);
    };
    let mut vars = Map::new();
    vars.insert("level".into(), Value::from(o.level));
    vars.insert("source".into(), Value::from(o.source));
    vars.insert("stationId".into(), Value::from(o.station_id.to_string()));
    vars.insert("creator".into(), Value::from(o.creator));
    vars.insert("approved".into(), Value::Bool(true));
    let managers = dispatchers(core, &o.tenant_id, o.station_id).await?;
    vars.insert("managers".into(), Value::from(managers));
    if let Some(a) = o.assignee {
        vars.insert("assignee".into(), Value::from(a.0));
    }
    let parsed = flow_store::parsed(&def)?;
    let steps = engine::start(&parsed, &vars, &mut Joins::new()).map_err(|e| {
        ApiError::bad_request(
            format!("维修派工审批流程无法启动: {e}"),
            format!("The repair approval process cannot start: {e}"),
        )
    })?;
    Ok(steps
        .iter()
        .any(|s| matches!(s, Step::Open { .. }))
        .then_some((def, vars)))
}

/// Starts the approval of order `id` inside its creating transaction.
pub async fn begin(
    tx: &mut Tx,
    core: &Core,
    id: Id,
    title: &str,
    o: &Offer,
    prepared: (DefinitionRow, Map<String, Value>),
    now: i64,
) -> Result<(), ApiError> {
    let (def, vars) = prepared;
    let args = StartArgs {
        tenant_id: &o.tenant_id,
        user_id: o.creator,
        business_table: TABLE,
        business_id: Some(id.0),
        title,
        variables: vars,
    };
    let (instance, ended) = runtime::start(tx, core, &def, args, now).await?;
    let mut sql = Sql::new("UPDATE pv_repair_order SET approval = ?, approval_instance = ? WHERE id = ?");
    sql.push_bind("", [V::Int(PENDING), V::from(instance), V::from(id)]);
    sql.execute(&mut **tx).await?;
    if let Some(e) = ended {
        finished(tx, core, &e, id.0, now).await?;
    }
    Ok(())
}

/// The process of order `id` ended: approved orders become assignable (and are assigned to the
/// assignee named at creation); others are returned with the comment.
pub async fn finished(tx: &mut Tx, core: &Core, ended: &Ended, id: i64, now: i64) -> Result<(), ApiError> {
    let approved = ended.approved();
    let mut sql = Sql::new(
        "UPDATE pv_repair_order SET approval = ?, approval_comment = ?, update_time = ? WHERE id = ? AND approval = ?",
    );
    sql.push_bind(
        "",
        [
            V::Int(if approved { APPROVED } else { REJECTED }),
            V::from(ended.comment.chars().take(1000).collect::<String>()),
            V::Int(now),
            V::Int(id),
            V::Int(PENDING),
        ],
    );
    if sql.execute(&mut **tx).await? == 0 {
        return Ok(());
    }
    let Some(row) = store::find_in(tx, Id(id)).await? else {
        return Ok(());
    };
    store::log(
        core,
        tx,
        &LogEntry {
            tenant_id: &row.tenant_id,
            order: Id(id),
            action: if approved { "approve" } else { "reject" },
            from: row.status,
            to: row.status,
            user: ended.by,
            note: &ended.comment,
            at: now,
        },
    )
    .await?;
    let assignee = ended.variables.get("assignee").and_then(Value::as_i64);
    if approved
        && row.status == SUBMITTED
        && let Some(assignee) = assignee
    {
        // The assignee may have left the station meanwhile: the order then waits for a dispatcher.
        match assign_in(core, tx, &row, ended.by, Id(assignee), "").await {
            Ok(()) => {}
            Err(ApiError::BadRequest(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
