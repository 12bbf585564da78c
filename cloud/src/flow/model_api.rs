//! `/api/blade-flow/model/*`: the tenant's process models (list, detail, submit, remove) and
//! deploying one (to the caller's tenant, or from the platform tenant to the tenants named).

use axum::extract::State;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::definition::{self, Deploy};
use super::view::{FlowModel, MODEL_SELECT, ModelRow, ProcessDefinition};
use crate::auth::Caller;
use crate::kernel::entity::blade::PLATFORM_TENANT;
use crate::kernel::extract::{Json, Query};
use crate::kernel::id::ids_param;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, UniqueAs, Value as V, like_contains};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page, time};

pub const MENU: &str = "flow_model";

#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ModelFilter {
    pub current: Option<i64>,
    pub size: Option<i64>,
    /// Contained in the key.
    pub model_key: Option<String>,
    /// Contained in the name.
    pub name: Option<String>,
}

fn contains(sql: &mut Sql, column: &str, v: &Option<String>) {
    if let Some(v) = v.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
        sql.push_bind(
            &format!(" AND LOWER({column}) LIKE LOWER(?) ESCAPE '\\'"),
            [V::from(like_contains(v))],
        );
    }
}

/// The tenant's models, newest change first (the default processes are added on first read).
#[utoipa::path(get, path = "/api/blade-flow/model/list", tag = "flow", params(ModelFilter),
    responses((status = 200, body = Envelope<Page<FlowModel>>), (status = 401), (status = 403)))]
pub async fn list(
    State(core): State<Core>,
    caller: Caller,
    Query(f): Query<ModelFilter>,
) -> ApiResult<Data<Page<FlowModel>>> {
    caller.require(&core, MENU).await?;
    super::seed::ensure(&core, &caller.tenant_id).await?;
    let (current, size) = crate::alarm::api::paging(f.current, f.size)?;
    let mut filter = Sql::new(" WHERE m.is_deleted = 0 AND ");
    filter.append(&caller.tenant_filter("m.tenant_id"));
    contains(&mut filter, "m.model_key", &f.model_key);
    contains(&mut filter, "m.name", &f.name);
    let mut count = Sql::new("SELECT COUNT(*) FROM flow_model m");
    count.append(&filter);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let mut sql = Sql::new(MODEL_SELECT);
    sql.append(&filter);
    sql.push_bind(
        " ORDER BY m.update_time DESC, m.id DESC LIMIT ? OFFSET ?",
        [V::Int(size), V::Int((current - 1) * size)],
    );
    let rows = sql.fetch_all::<ModelRow, _>(core.db.pool()).await?;
    let records = rows.into_iter().map(|r| FlowModel::of(r, false)).collect();
    Ok(Data(Page::new(records, total, size, current)))
}

pub async fn find(core: &Core, caller: &Caller, id: Id) -> Result<ModelRow, ApiError> {
    let mut sql = Sql::new(MODEL_SELECT);
    sql.push_bind(" WHERE m.is_deleted = 0 AND m.id = ? AND ", [V::from(id)]);
    sql.append(&caller.tenant_filter("m.tenant_id"));
    sql.fetch_optional::<ModelRow, _>(core.db.pool())
        .await?
        .ok_or_else(ApiError::not_found)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct IdParam {
    pub id: Id,
}

/// One model with its XML.
#[utoipa::path(get, path = "/api/blade-flow/model/detail", tag = "flow", params(IdParam),
    responses((status = 200, body = Envelope<FlowModel>), (status = 401), (status = 403), (status = 404)))]
pub async fn detail(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<IdParam>,
) -> ApiResult<Data<FlowModel>> {
    caller.require(&core, MENU).await?;
    Ok(Data(FlowModel::of(find(&core, &caller, p.id).await?, true)))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelBody {
    /// Absent: a new model.
    #[schema(value_type = Option<String>)]
    pub id: Option<Id>,
    pub name: Option<String>,
    pub description: Option<String>,
    /// Flow route entry (`flow_` + dictionary key).
    pub category: Option<String>,
    /// BPMN 2.0 XML; the model's key is its process id. Checked against the subset on save.
    pub xml: String,
}

const KEY_TAKEN: Text = Text::new(
    "已有同标识的流程模型",
    "A model with this process id already exists",
);

/// Adds (button `flow_model_add`) or changes (`flow_model_edit`) a model. The XML is checked
/// as a deployment would check it, so what saves also deploys.
#[utoipa::path(post, path = "/api/blade-flow/model/submit", tag = "flow", request_body = ModelBody,
    responses((status = 200, body = Envelope<FlowModel>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn submit(
    State(core): State<Core>,
    caller: Caller,
    Json(b): Json<ModelBody>,
) -> ApiResult<Data<FlowModel>> {
    caller
        .require(
            &core,
            if b.id.is_some() {
                "flow_model_edit"
            } else {
                "flow_model_add"
            },
        )
        .await?;
    let def = super::bpmn::parse(&b.xml).map_err(definition::refusal)?;
    let name = b
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or(if def.name.trim().is_empty() {
            def.key.as_str()
        } else {
            def.name.trim()
        })
        .chars()
        .take(100)
        .collect::<String>();
    let description = b
        .description
        .unwrap_or_default()
        .chars()
        .take(500)
        .collect::<String>();
    let category = b
        .category
        .unwrap_or_default()
        .chars()
        .take(64)
        .collect::<String>();
    let now = time::now_ms();
    let id = match b.id {
        Some(id) => {
            let old = find(&core, &caller, id).await?;
            let mut sql = Sql::new(
                "UPDATE flow_model SET model_key = ?, name = ?, description = ?, category = ?, xml = ?, \
                 version = version + 1, update_time = ? WHERE id = ? AND is_deleted = 0",
            );
            sql.push_bind(
                "",
                [
                    V::from(def.key.as_str()),
                    V::from(name),
                    V::from(description),
                    V::from(category),
                    V::from(b.xml.as_str()),
                    V::Int(now),
                    V::Int(old.id),
                ],
            );
            sql.execute(core.db.pool())
                .await
                .unique_with(|| ApiError::BadRequest(KEY_TAKEN))?;
            id
        }
        None => {
            let id = core.ids.next();
            let mut sql = Sql::new(
                "INSERT INTO flow_model (id, tenant_id, model_key, name, description, category, xml, version, \
                 create_user, create_time, update_time) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
            );
            sql.push_bind(
                "",
                [
                    V::from(id),
                    V::from(caller.tenant_id.as_str()),
                    V::from(def.key.as_str()),
                    V::from(name),
                    V::from(description),
                    V::from(category),
                    V::from(b.xml.as_str()),
                    V::from(caller.user_id),
                    V::Int(now),
                    V::Int(now),
                ],
            );
            sql.execute(core.db.pool())
                .await
                .unique_with(|| ApiError::BadRequest(KEY_TAKEN))?;
            id
        }
    };
    Ok(Data(FlowModel::of(find(&core, &caller, id).await?, true)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct IdsParam {
    /// Comma-joined ids.
    pub ids: String,
}

/// Removes models (button `flow_model_delete`); their deployments stay. All or nothing: an id
/// not among the tenant's models refuses the selection.
#[utoipa::path(post, path = "/api/blade-flow/model/remove", tag = "flow", params(IdsParam),
    responses((status = 200, body = Envelope<bool>),
        (status = 400, description = "The id list is malformed or empty"),
        (status = 401), (status = 403),
        (status = 404, description = "An id is not a row the caller may act on: nothing is changed")))]
pub async fn remove(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<IdsParam>,
) -> ApiResult<Data<bool>> {
    caller.require(&core, "flow_model_delete").await?;
    let ids = ids_param(&p.ids)?;
    let mut find = Sql::new("SELECT id FROM flow_model WHERE is_deleted = 0 AND ");
    find.append(&caller.tenant_filter("tenant_id"));
    find.push(" AND id IN (");
    find.push_ids(&ids);
    find.push(")");
    let found = find
        .scalars::<i64, _>(core.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect();
    let found = crate::kernel::id::all_found(&ids, found)?;
    let mut sql = Sql::new("UPDATE flow_model SET is_deleted = 1 WHERE is_deleted = 0 AND id IN (");
    sql.push_ids(&found);
    sql.push(")");
    sql.execute(core.db.pool()).await?;
    Ok(Data(true))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DeployParams {
    pub model_id: Id,
    /// Flow route entry (`flow_` + dictionary key); the model's when absent.
    pub category: Option<String>,
    /// Comma-joined tenant ids (platform tenant only; the caller's tenant when absent).
    pub tenant_ids: Option<String>,
}

/// The tenants a deployment goes to: the caller's, or (from the platform tenant) those named.
pub fn target_tenants(caller: &Caller, tenant_ids: Option<&str>) -> Result<Vec<String>, ApiError> {
    let named: Vec<String> = tenant_ids
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    if named.is_empty() {
        return Ok(vec![caller.tenant_id.clone()]);
    }
    if caller.tenant_id != PLATFORM_TENANT && named.iter().any(|t| *t != caller.tenant_id) {
        return Err(ApiError::Forbidden(Text::new(
            "只能部署到本租户",
            "You can deploy to your own tenant only",
        )));
    }
    Ok(named)
}

/// Deploys a model (button `flow_model_deploy`) as the next version of its key.
#[utoipa::path(post, path = "/api/blade-flow/model/deploy", tag = "flow", params(DeployParams),
    responses((status = 200, body = Envelope<Vec<ProcessDefinition>>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn deploy(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<DeployParams>,
) -> ApiResult<Data<Vec<ProcessDefinition>>> {
    caller.require(&core, "flow_model_deploy").await?;
    let model = find(&core, &caller, p.model_id).await?;
    let tenants = target_tenants(&caller, p.tenant_ids.as_deref())?;
    let category = p
        .category
        .filter(|c| !c.trim().is_empty())
        .unwrap_or(model.category.clone());
    let now = time::now_ms();
    let mut tx = core.db.begin_write().await?;
    let mut out = Vec::new();
    for tenant in &tenants {
        let d = Deploy {
            tenant_id: tenant,
            xml: &model.xml,
            category: &category,
            model_id: Some(model.id),
            user: caller.user_id.0,
        };
        out.push(definition::deploy(&mut tx, &core, &d, now).await?);
    }
    tx.commit().await?;
    Ok(Data(out.into_iter().map(super::manager_api::summary).collect()))
}
