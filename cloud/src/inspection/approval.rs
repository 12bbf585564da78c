//! Plan approval by the tenant's `inspection_plan_approval` process (issue 27): when it is
//! deployed and active, a new or changed plan waits (generating no task) until the process
//! ends approved; a rejection keeps it inactive with the comment. A plan changed while its
//! approval is pending restarts the approval (the old instance is deleted). Without the
//! process, plans are active as soon as saved.

use serde_json::{Map, Value};

use crate::auth::Caller;
use crate::flow::runtime::{self, Ended, StartArgs};
use crate::flow::store::{self as flow_store, Tx};
use crate::kernel::sql::{Sql, Value as V};
use crate::kernel::{ApiError, Core, Id, time};

pub const TABLE: &str = "pv_inspect_plan";
pub const KEY: &str = "inspection_plan_approval";

const PENDING: i64 = 1;
const APPROVED: i64 = 2;
const REJECTED: i64 = 3;

/// Whether a plan in approval state `approval` generates tasks.
pub fn active(approval: i64) -> bool {
    approval == 0 || approval == APPROVED
}

/// Offers plan `id` (just saved) to the tenant's approval process, if it has one.
pub async fn submit(
    core: &Core,
    caller: &Caller,
    id: Id,
    name: &str,
    stations: &[Id],
) -> Result<(), ApiError> {
    let Some(def) = flow_store::current(core, &caller.tenant_id, KEY).await? else {
        return Ok(());
    };
    let mut managers = Vec::new();
    for s in stations {
        for m in crate::repair::people::dispatchers(core, &caller.tenant_id, s.0).await? {
            if !managers.contains(&m) {
                managers.push(m);
            }
        }
    }
    let mut vars = Map::new();
    vars.insert("managers".into(), Value::from(managers));
    vars.insert("approved".into(), Value::Bool(true));
    vars.insert("planId".into(), Value::from(id.0.to_string()));
    let now = time::now_ms();
    let mut tx = core.db.begin_write().await?;
    let mut old = Sql::new("SELECT approval_instance FROM pv_inspect_plan WHERE id = ? AND approval = ?");
    old.push_bind("", [V::from(id), V::Int(PENDING)]);
    if let Some(Some(instance)) = old.scalar_optional::<Option<i64>, _>(&mut *tx).await? {
        // Its end must not approve the plan as it now is.
        let mut detach = Sql::new("UPDATE flow_instance SET business_id = NULL WHERE id = ?");
        detach.push_bind("", [V::Int(instance)]);
        detach.execute(&mut *tx).await?;
        runtime::delete(
            &mut tx,
            &caller.tenant_id,
            instance,
            "计划已修改 / plan changed",
            caller.user_id.0,
        )
        .await?;
    }
    let args = StartArgs {
        tenant_id: &caller.tenant_id,
        user_id: caller.user_id.0,
        business_table: TABLE,
        business_id: Some(id.0),
        title: name,
        variables: vars,
    };
    let (instance, ended) = runtime::start(&mut tx, core, &def, args, now).await?;
    let mut sql = Sql::new(
        "UPDATE pv_inspect_plan SET approval = ?, approval_instance = ?, approval_comment = '' WHERE id = ?",
    );
    sql.push_bind("", [V::Int(PENDING), V::from(instance), V::from(id)]);
    sql.execute(&mut *tx).await?;
    if let Some(e) = ended {
        finished(&mut tx, &e, id.0, now).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The verdict of plan `id`'s approval.
pub async fn finished(tx: &mut Tx, ended: &Ended, id: i64, now: i64) -> Result<(), ApiError> {
    let mut sql = Sql::new(
        "UPDATE pv_inspect_plan SET approval = ?, approval_comment = ?, update_time = ? \
         WHERE id = ? AND approval = ? AND approval_instance = ?",
    );
    sql.push_bind(
        "",
        [
            V::Int(if ended.approved() { APPROVED } else { REJECTED }),
            V::from(ended.comment.chars().take(1000).collect::<String>()),
            V::Int(now),
            V::Int(id),
            V::Int(PENDING),
            V::Int(ended.instance_id),
        ],
    );
    sql.execute(&mut **tx).await?;
    Ok(())
}
