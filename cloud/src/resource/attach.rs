//! Attachments (`/api/blade-resource/attach`): every stored upload is a row (name, size, type,
//! store, owner, link). List, detail, download and remove; removing a row deletes its object
//! from the store that holds it. A tenant's uploads together stay under a quota (parameter
//! `attach.quota.mb`, or `attach.quota.mb.{tenantId}` for one tenant; `0` means no limit).

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, Value as Json};
use utoipa::IntoParams;

use super::attach_row::{Attach, COLUMNS};
use super::context::{EntityDef, ResourceCtx};
use super::store;
use crate::auth::Caller;
use crate::kernel::entity::blade::Hooks;
use crate::kernel::entity::field::{CheckFuture, Col, Ty};
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id};

pub static ATTACH: EntityDef = EntityDef {
    base: "/api/blade-resource/attach",
    table: "blade_attach",
    menu_code: "attach",
    tag: "resource",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("link", "link", Ty::TEXT).read_only(),
        Col::of("domain", "domain", Ty::TEXT).read_only(),
        Col::of("name", "name", Ty::TEXT).read_only().filter(),
        Col::of("originalName", "original_name", Ty::Text(200))
            .required_as("请输入附件名称", "Please enter the attachment name")
            .filter(),
        Col::of("extension", "extension", Ty::TEXT).read_only().filter(),
        Col::of("attachSize", "attach_size", Ty::INT).read_only(),
        Col::of("contentType", "content_type", Ty::TEXT).read_only(),
        Col::of("ossId", "oss_id", Ty::Id).read_only().filter(),
        Col::of("createUser", "create_user", Ty::Id).read_only(),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "create_time DESC, id DESC",
    // Rows are written by uploads, which have no update columns.
    audit: false,
    hooks: &AttachHooks,
    ..EntityDef::DEFAULT
};

struct AttachHooks;

const UPLOAD_ONLY: Text = Text::new(
    "附件由上传产生，请通过上传添加",
    "Attachments come from uploads: add one by uploading a file",
);

impl Hooks<ResourceCtx, Caller> for AttachHooks {
    fn before_save<'a>(
        &'a self,
        _state: &'a ResourceCtx,
        _caller: &'a Caller,
        id: Option<Id>,
        _body: &'a mut Map<String, Json>,
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            if id.is_none() {
                return Err(ApiError::BadRequest(UPLOAD_ONLY));
            }
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a ResourceCtx,
        caller: &'a Caller,
        ids: &'a [Id],
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            let mut sql = Sql::new(&format!(
                "SELECT {COLUMNS} FROM blade_attach WHERE is_deleted = 0"
            ));
            sql.push_bind(
                " AND tenant_id = ? AND id IN (",
                [caller.tenant_id.clone().into()],
            );
            sql.push_ids(ids);
            sql.push(")");
            let rows = sql.fetch_all::<Attach, _>(state.db.pool()).await?;
            delete_objects(state, &rows).await
        })
    }

    fn decorate<'a>(
        &'a self,
        state: &'a ResourceCtx,
        caller: &'a Caller,
        rows: &'a mut [Json],
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            // The store's code beside its id ("" for the local disk).
            let mut sql = Sql::new("SELECT id, oss_code FROM blade_oss WHERE ");
            sql.append(&caller.tenant_filter("tenant_id"));
            let codes: std::collections::HashMap<String, String> = sql
                .fetch_all::<(i64, String), _>(state.db.pool())
                .await?
                .into_iter()
                .map(|(id, code)| (id.to_string(), code))
                .collect();
            for row in rows.iter_mut() {
                let code = row
                    .get("ossId")
                    .and_then(Json::as_str)
                    .and_then(|id| codes.get(id))
                    .cloned()
                    .unwrap_or_default();
                if let Some(map) = row.as_object_mut() {
                    map.insert("ossCode".into(), Json::String(code));
                }
            }
            Ok(())
        })
    }
}

/// Deletes the objects of `rows` from the stores holding them.
async fn delete_objects(ctx: &ResourceCtx, rows: &[Attach]) -> Result<(), ApiError> {
    for row in rows {
        store::of_upload(ctx, row.oss_id).await?.delete(&row.name).await?;
    }
    Ok(())
}

/// Removes uploads: their objects first, then their rows.
pub async fn remove_uploads(ctx: &ResourceCtx, rows: &[Attach]) -> Result<(), ApiError> {
    delete_objects(ctx, rows).await?;
    let ids: Vec<Id> = rows.iter().map(|r| r.id).collect();
    if ids.is_empty() {
        return Ok(());
    }
    let mut sql = Sql::new("UPDATE blade_attach SET is_deleted = 1 WHERE id IN (");
    sql.push_ids(&ids);
    sql.push(")");
    sql.execute(ctx.db.pool()).await?;
    Ok(())
}

/// The tenant's quota in bytes (`None`: no limit).
async fn quota_bytes(ctx: &ResourceCtx, tenant: &str) -> Result<Option<i64>, ApiError> {
    let own = format!("attach.quota.mb.{tenant}");
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT param_key, param_value FROM blade_param WHERE is_deleted = 0 AND param_key IN (?, ?)",
        [Value::from(own.as_str()), Value::from("attach.quota.mb")],
    );
    let rows = sql.fetch_all::<(String, String), _>(ctx.db.pool()).await?;
    let pick = |key: &str| {
        rows.iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.trim().parse::<i64>().ok())
    };
    let mb = pick(&own).or_else(|| pick("attach.quota.mb")).unwrap_or(0);
    Ok((mb > 0).then(|| mb.saturating_mul(1024 * 1024)))
}

/// Refuses an upload of `adding` bytes that would take the tenant over its quota.
pub async fn check_quota(ctx: &ResourceCtx, tenant: &str, adding: i64) -> Result<(), ApiError> {
    let Some(quota) = quota_bytes(ctx, tenant).await? else {
        return Ok(());
    };
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT CAST(COALESCE(SUM(attach_size), 0) AS BIGINT) FROM blade_attach WHERE is_deleted = 0 AND tenant_id = ?",
        [tenant.into()],
    );
    let used = sql.scalar::<i64, _>(ctx.db.pool()).await?;
    if used.saturating_add(adding) > quota {
        let mb = |b: i64| format!("{:.1}", b as f64 / 1024.0 / 1024.0);
        return Err(ApiError::bad_request(
            format!(
                "附件空间已满：已用 {} MB，配额 {} MB，本文件 {} MB。请删除不用的附件或联系管理员提高配额",
                mb(used),
                mb(quota),
                mb(adding)
            ),
            format!(
                "Attachment space is full: {} MB used of {} MB, this file is {} MB. Remove unused attachments or ask an administrator to raise the quota",
                mb(used),
                mb(quota),
                mb(adding)
            ),
        ));
    }
    Ok(())
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct DownloadParams {
    /// The attachment.
    pub id: Id,
}

/// The attachment's bytes as a download under its original name.
#[utoipa::path(get, path = "/api/blade-resource/attach/download", tag = "resource", params(DownloadParams),
    responses((status = 200, description = "The file, as a download", content_type = "application/octet-stream"),
        (status = 401), (status = 403), (status = 404)))]
pub async fn download(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<DownloadParams>,
) -> Result<Response, ApiError> {
    caller.require(&ctx, "attach").await?;
    let mut sql = Sql::new(&format!(
        "SELECT {COLUMNS} FROM blade_attach WHERE is_deleted = 0"
    ));
    sql.push_bind(
        " AND tenant_id = ? AND id = ?",
        [caller.tenant_id.clone().into(), p.id.into()],
    );
    let row = sql
        .fetch_optional::<Attach, _>(ctx.db.pool())
        .await?
        .ok_or_else(ApiError::not_found)?;
    let bytes = store::of_upload(&ctx, row.oss_id)
        .await?
        .read(&row.name)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let mut response = Body::from(bytes).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    // RFC 6266/5987: the UTF-8 name for browsers, an ASCII stand-in for the rest.
    let ascii: String = row
        .original_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || ".-_".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded: String = url_encode(&row.original_name);
    if let Ok(v) = HeaderValue::from_str(&format!(
        "attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}"
    )) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(response)
}

fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
