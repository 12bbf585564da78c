//! Deployments: a checked BPMN document becomes the next version of its key in a tenant;
//! suspending and activating a definition; deleting deployments (their running instances go
//! on with the definition they started with).

use super::bpmn::{self, BpmnError};
use super::store::{self, DefinitionRow, Tx};
use crate::kernel::sql::{Sql, Value as V};
use crate::kernel::{ApiError, Core, Id};

/// The refusal of a document outside the subset or broken, naming what is wrong.
pub fn refusal(e: BpmnError) -> ApiError {
    match e {
        BpmnError::Unsupported(element) => ApiError::bad_request(
            format!("不支持的BPMN元素: {element}（支持的子集见 docs/workflow.md）"),
            format!("Unsupported BPMN element: {element} (the supported subset is in docs/workflow.md)"),
        ),
        BpmnError::Invalid { zh, en } => ApiError::bad_request(
            format!("流程定义无效: {zh}"),
            format!("Invalid process definition: {en}"),
        ),
    }
}

pub struct Deploy<'a> {
    pub tenant_id: &'a str,
    pub xml: &'a str,
    pub category: &'a str,
    pub model_id: Option<i64>,
    pub user: i64,
}

/// Deploys `d.xml` as the next version of its process key in `d.tenant_id`.
pub async fn deploy(tx: &mut Tx, core: &Core, d: &Deploy<'_>, now: i64) -> Result<DefinitionRow, ApiError> {
    let def = bpmn::parse(d.xml).map_err(refusal)?;
    let mut max =
        Sql::new("SELECT MAX(version) FROM flow_definition WHERE tenant_id = ? AND process_key = ?");
    max.push_bind("", [V::from(d.tenant_id), V::from(def.key.as_str())]);
    let version = max.scalar::<Option<i64>, _>(&mut **tx).await?.unwrap_or(0) + 1;
    let id = core.ids.next();
    let name = if def.name.trim().is_empty() {
        def.key.clone()
    } else {
        def.name.trim().chars().take(100).collect()
    };
    let mut sql = Sql::new(
        "INSERT INTO flow_definition (id, tenant_id, process_key, name, category, version, xml, suspended, model_id, \
         deploy_user, deploy_time) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
    );
    sql.push_bind(
        "",
        [
            V::from(id),
            V::from(d.tenant_id),
            V::from(def.key.as_str()),
            V::from(name.as_str()),
            V::from(d.category.chars().take(64).collect::<String>()),
            V::Int(version),
            V::from(d.xml),
            d.model_id.map_or(V::Null, V::Int),
            V::Int(d.user),
            V::Int(now),
        ],
    );
    sql.execute(&mut **tx).await?;
    store::definition(&mut **tx, d.tenant_id, id.0)
        .await?
        .ok_or_else(|| ApiError::Internal("deployed definition vanished".into()))
}

/// Suspends (`true`) or activates definition `id` of `tenant`.
pub async fn set_suspended(core: &Core, tenant: &str, id: Id, suspended: bool) -> Result<(), ApiError> {
    let mut sql = Sql::new(
        "UPDATE flow_definition SET suspended = ? WHERE id = ? AND tenant_id = ? AND is_deleted = 0",
    );
    sql.push_bind("", [V::Int(i64::from(suspended)), V::from(id), V::from(tenant)]);
    if sql.execute(core.db.pool()).await? == 0 {
        return Err(ApiError::not_found());
    }
    Ok(())
}

/// Deletes deployments `ids` of `tenant` (no new instances; running ones finish).
pub async fn remove(core: &Core, tenant: &str, ids: &[Id]) -> Result<u64, ApiError> {
    let mut sql =
        Sql::new("UPDATE flow_definition SET is_deleted = 1 WHERE is_deleted = 0 AND tenant_id = ?");
    sql.push_bind("", [V::from(tenant)]);
    sql.push(" AND id IN (");
    sql.push_ids(ids);
    sql.push(")");
    sql.execute(core.db.pool()).await
}
