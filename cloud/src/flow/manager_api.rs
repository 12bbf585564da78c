//! `/api/blade-flow/manager/*`: deployed definitions: the list, suspending and activating,
//! deleting deployments, and deploying BPMN files uploaded straight (multipart).

use axum::extract::{Multipart, State};
use serde::Deserialize;
use utoipa::IntoParams;

use super::definition::{self, Deploy};
use super::store::DefinitionRow;
use super::view::{DEFINITION_SELECT, DefinitionListRow, ProcessDefinition};
use crate::auth::Caller;
use crate::kernel::extract::Query;
use crate::kernel::id::ids_param;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value as V, like_contains};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page, time};

pub fn summary(d: DefinitionRow) -> ProcessDefinition {
    ProcessDefinition::from(DefinitionListRow {
        id: d.id,
        tenant_id: d.tenant_id,
        process_key: d.process_key,
        name: d.name,
        category: d.category,
        version: d.version,
        suspended: d.suspended,
        deploy_time: d.deploy_time,
    })
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DefinitionFilter {
    pub current: Option<i64>,
    pub size: Option<i64>,
    /// Flow route entry.
    pub category: Option<String>,
    /// Contained in the key or the name.
    pub keyword: Option<String>,
    /// true: only the newest version of each key.
    pub latest: Option<bool>,
}

/// The definitions `caller` may see with `f`, newest first.
pub async fn definitions(
    core: &Core,
    caller: &Caller,
    f: &DefinitionFilter,
    active_only: bool,
) -> Result<Page<ProcessDefinition>, ApiError> {
    let (current, size) = crate::alarm::api::paging(f.current, f.size)?;
    let mut filter = Sql::new(" WHERE is_deleted = 0 AND ");
    filter.append(&caller.tenant_filter("tenant_id"));
    if let Some(c) = f.category.as_deref().filter(|c| !c.is_empty()) {
        filter.push_bind(" AND category = ?", [V::from(c)]);
    }
    if let Some(k) = f.keyword.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        let like = like_contains(k);
        filter.push_bind(
            " AND (LOWER(process_key) LIKE LOWER(?) ESCAPE '\\' OR LOWER(name) LIKE LOWER(?) ESCAPE '\\')",
            [V::from(like.as_str()), V::from(like.as_str())],
        );
    }
    if active_only {
        filter.push(" AND suspended = 0");
    }
    if f.latest == Some(true) || active_only {
        filter.push(
            " AND version = (SELECT MAX(v.version) FROM flow_definition v WHERE v.tenant_id = flow_definition.tenant_id \
             AND v.process_key = flow_definition.process_key AND v.is_deleted = 0)",
        );
    }
    let mut count = Sql::new("SELECT COUNT(*) FROM flow_definition");
    count.append(&filter);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let mut sql = Sql::new(DEFINITION_SELECT);
    sql.append(&filter);
    sql.push_bind(
        " ORDER BY deploy_time DESC, id DESC LIMIT ? OFFSET ?",
        [V::Int(size), V::Int((current - 1) * size)],
    );
    let rows = sql.fetch_all::<DefinitionListRow, _>(core.db.pool()).await?;
    Ok(Page::new(
        rows.into_iter().map(Into::into).collect(),
        total,
        size,
        current,
    ))
}

/// The tenant's deployed definitions (every version).
#[utoipa::path(get, path = "/api/blade-flow/manager/list", tag = "flow", params(DefinitionFilter),
    responses((status = 200, body = Envelope<Page<ProcessDefinition>>), (status = 401), (status = 403)))]
pub async fn list(
    State(core): State<Core>,
    caller: Caller,
    Query(f): Query<DefinitionFilter>,
) -> ApiResult<Data<Page<ProcessDefinition>>> {
    caller.require(&core, "flow_manager").await?;
    Ok(Data(definitions(&core, &caller, &f, false).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct StateParams {
    /// `active` or `suspend`.
    pub state: String,
    pub process_id: Id,
}

/// Suspends or activates a definition (button `flow_manager_state`): a suspended one starts no
/// instance and its tasks cannot be claimed or completed until it is active again.
#[utoipa::path(post, path = "/api/blade-flow/manager/change-state", tag = "flow", params(StateParams),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn change_state(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<StateParams>,
) -> ApiResult<Data<bool>> {
    caller.require(&core, "flow_manager_state").await?;
    let suspended = match p.state.as_str() {
        "active" => false,
        "suspend" => true,
        _ => {
            return Err(ApiError::BadRequest(Text::new(
                "状态须为 active 或 suspend",
                "The state must be active or suspend",
            )));
        }
    };
    definition::set_suspended(&core, &caller.tenant_id, p.process_id, suspended).await?;
    Ok(Data(true))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct DeploymentIds {
    /// Comma-joined deployment ids.
    pub deployment_ids: String,
}

/// Deletes deployments (button `flow_manager_delete`): no new instance starts from them;
/// running instances finish on the definition they started with.
#[utoipa::path(post, path = "/api/blade-flow/manager/delete-deployment", tag = "flow", params(DeploymentIds),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401), (status = 403)))]
pub async fn delete_deployment(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<DeploymentIds>,
) -> ApiResult<Data<bool>> {
    caller.require(&core, "flow_manager_delete").await?;
    let ids = ids_param(&p.deployment_ids)?;
    definition::remove(&core, &caller.tenant_id, &ids).await?;
    Ok(Data(true))
}

/// The most a BPMN file may hold.
const MAX_BPMN_BYTES: usize = 2 * 1024 * 1024;

/// Deploys uploaded BPMN files (button `flow_manager_upload`; multipart fields `category`,
/// `tenantIds` (platform tenant only) and one or more `files`, each `.bpmn` or `.bpmn20.xml`).
#[utoipa::path(post, path = "/api/blade-flow/manager/deploy-upload", tag = "flow",
    request_body(content_type = "multipart/form-data", description = "fields `category`, `tenantIds`, `files` (BPMN XML)"),
    responses((status = 200, body = Envelope<Vec<ProcessDefinition>>), (status = 400), (status = 401), (status = 403)))]
pub async fn deploy_upload(
    State(core): State<Core>,
    caller: Caller,
    mut form: Multipart,
) -> ApiResult<Data<Vec<ProcessDefinition>>> {
    caller.require(&core, "flow_manager_upload").await?;
    let bad = |e: axum::extract::multipart::MultipartError| {
        ApiError::bad_request(format!("上传内容有误：{e}"), format!("malformed upload: {e}"))
    };
    let mut category = String::new();
    let mut tenant_ids = String::new();
    let mut files: Vec<(String, String)> = Vec::new();
    while let Some(field) = form.next_field().await.map_err(bad)? {
        match field.name().unwrap_or("") {
            "category" => category = field.text().await.map_err(bad)?,
            "tenantIds" => tenant_ids = field.text().await.map_err(bad)?,
            "files" | "file" => {
                let name = field.file_name().unwrap_or("process.bpmn").to_string();
                let lower = name.to_lowercase();
                if !(lower.ends_with(".bpmn") || lower.ends_with(".bpmn20.xml") || lower.ends_with(".xml")) {
                    return Err(ApiError::bad_request(
                        format!("仅支持 .bpmn 或 .bpmn20.xml 文件: {name}"),
                        format!("Only .bpmn or .bpmn20.xml files: {name}"),
                    ));
                }
                let bytes = field.bytes().await.map_err(bad)?;
                if bytes.len() > MAX_BPMN_BYTES {
                    return Err(ApiError::bad_request(
                        "文件过大（最大2MB）",
                        "The file is too large (at most 2 MB)",
                    ));
                }
                let xml = String::from_utf8(bytes.to_vec()).map_err(|_| {
                    ApiError::bad_request(
                        format!("{name} 不是UTF-8文本"),
                        format!("{name} is not UTF-8 text"),
                    )
                })?;
                files.push((name, xml));
            }
            _ => {}
        }
    }
    if files.is_empty() {
        return Err(ApiError::bad_request(
            "请选择流程文件",
            "Please choose a process file",
        ));
    }
    let tenants = super::model_api::target_tenants(&caller, Some(&tenant_ids))?;
    let now = time::now_ms();
    let mut tx = core.db.begin_write().await?;
    let mut out = Vec::new();
    for tenant in &tenants {
        for (name, xml) in &files {
            let d = Deploy {
                tenant_id: tenant,
                xml,
                category: category.trim(),
                model_id: None,
                user: caller.user_id.0,
            };
            let row = definition::deploy(&mut tx, &core, &d, now)
                .await
                .map_err(|e| match e {
                    ApiError::BadRequest(t) => {
                        ApiError::bad_request(format!("{name}: {}", t.zh), format!("{name}: {}", t.en))
                    }
                    other => other,
                })?;
            out.push(summary(row));
        }
    }
    tx.commit().await?;
    Ok(Data(out))
}
