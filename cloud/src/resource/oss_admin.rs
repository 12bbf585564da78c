//! Object storage configurations of a tenant (`/api/blade-resource/oss`): list, detail, submit,
//! remove, `enable?id` (one enabled per tenant) and the STS call's documented refusal.
//!
//! The secret key is write-only: sealed with the credential key before it is stored, never
//! read back (an edit that leaves it blank keeps the stored one).

use axum::extract::State;
use serde::Deserialize;
use serde_json::{Map, Value as Json};
use utoipa::IntoParams;

use super::context::{EntityDef, ResourceCtx};
use super::store::{self, ENABLED, LOCAL, OssRow, S3};
use crate::auth::Caller;
use crate::kernel::entity::blade::Hooks;
use crate::kernel::entity::field::{CheckFuture, Col, Ty};
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};

pub static OSS: EntityDef = EntityDef {
    base: "/api/blade-resource/oss",
    table: "blade_oss",
    menu_code: "oss",
    tag: "resource",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("category", "category", Ty::Int { min: LOCAL, max: S3 })
            .required_as("请选择存储类型", "Please select the storage kind")
            .filter(),
        Col::of("ossCode", "oss_code", Ty::Text(32))
            .required_as("请输入资源编号", "Please enter the storage code")
            .unique("资源编号已存在", "This storage code already exists")
            .filter(),
        Col::of("endpoint", "endpoint", Ty::Text(255)),
        Col::of("bucketName", "bucket_name", Ty::Text(63)),
        Col::of("region", "region", Ty::Text(64)),
        Col::of("accessKey", "access_key", Ty::Text(255)),
        // Sealed by the hook (longer than typed); the hook limits what may be typed.
        Col::of("secretKey", "secret_key", Ty::TEXT).write_only(),
        Col::of("pathStyle", "path_style", Ty::Int { min: 0, max: 1 }).defaulted(),
        Col::of("remark", "remark", Ty::Text(255)),
        Col::of("status", "status", Ty::INT).read_only().filter(),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "id DESC",
    create_dept: true,
    hooks: &OssHooks,
    ..EntityDef::DEFAULT
};

struct OssHooks;

const NEED_ENDPOINT: Text = Text::new(
    "请输入以 http:// 或 https:// 开头的服务地址",
    "Please enter an endpoint starting with http:// or https://",
);
const BAD_CATEGORY: Text = Text::new("请选择存储类型", "Please select the storage kind");
const NEED_BUCKET: Text = Text::new("请输入存储桶名称", "Please enter the bucket name");
const NEED_KEYS: Text = Text::new(
    "请输入访问密钥（AccessKey 与 SecretKey）",
    "Please enter the access key and the secret key",
);
const SECRET_TOO_LONG: Text = Text::new(
    "SecretKey 不能超过200个字符",
    "The secret key must be at most 200 characters",
);

fn text<'a>(body: &'a Map<String, Json>, name: &str) -> &'a str {
    body.get(name).and_then(Json::as_str).map(str::trim).unwrap_or("")
}

impl Hooks<ResourceCtx, Caller> for OssHooks {
    fn before_save<'a>(
        &'a self,
        state: &'a ResourceCtx,
        caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            // The stored row fills what an edit leaves out, so the S3 checks see the whole.
            let stored = match id {
                Some(id) => stored(state, &caller.tenant_id, id).await?,
                None => None,
            };
            let category = body
                .get("category")
                .and_then(|v| {
                    v.as_i64()
                        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                })
                .or(stored.as_ref().map(|s| s.category))
                .unwrap_or(LOCAL);
            if category != LOCAL && category != S3 {
                return Err(ApiError::BadRequest(BAD_CATEGORY));
            }
            if category == S3 {
                let pick = |name: &str, old: Option<&str>| {
                    let given = text(body, name);
                    if given.is_empty() && !body.contains_key(name) {
                        old.unwrap_or("").to_owned()
                    } else {
                        given.to_owned()
                    }
                };
                let endpoint = pick("endpoint", stored.as_ref().map(|s| s.endpoint.as_str()));
                if !(endpoint.starts_with("http://") || endpoint.starts_with("https://"))
                    || endpoint.len() < 10
                {
                    return Err(ApiError::BadRequest(NEED_ENDPOINT));
                }
                if pick("bucketName", stored.as_ref().map(|s| s.bucket_name.as_str())).is_empty() {
                    return Err(ApiError::BadRequest(NEED_BUCKET));
                }
                let has_secret = !text(body, "secretKey").is_empty()
                    || stored.as_ref().is_some_and(|s| !s.secret_key.is_empty());
                if pick("accessKey", stored.as_ref().map(|s| s.access_key.as_str())).is_empty() || !has_secret
                {
                    return Err(ApiError::BadRequest(NEED_KEYS));
                }
            }
            let secret = text(body, "secretKey").to_owned();
            if !secret.is_empty() {
                if secret.chars().count() > 200 {
                    return Err(ApiError::BadRequest(SECRET_TOO_LONG));
                }
                body.insert("secretKey".into(), Json::String(state.services.seal(&secret)?));
            }
            Ok(())
        })
    }
}

async fn stored(ctx: &ResourceCtx, tenant: &str, id: Id) -> Result<Option<OssRow>, ApiError> {
    let mut sql = Sql::new(&format!(
        "SELECT {} FROM blade_oss WHERE is_deleted = 0",
        store::OSS_COLUMNS
    ));
    sql.push_bind(" AND tenant_id = ? AND id = ?", [tenant.into(), id.into()]);
    sql.fetch_optional::<OssRow, _>(ctx.db.pool()).await
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct EnableParams {
    /// The configuration to enable.
    pub id: Id,
}

/// Enables one configuration of the caller's tenant and disables the others; uploads go to it
/// from then on. An S3 configuration is checked first (its bucket must answer), so a wrong one
/// never takes uploads down.
#[utoipa::path(post, path = "/api/blade-resource/oss/enable", tag = "resource", params(EnableParams),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401), (status = 403), (status = 404)))]
pub async fn enable(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<EnableParams>,
) -> ApiResult<Data<bool>> {
    caller.require(&ctx, "oss_enable").await?;
    let row = stored(&ctx, &caller.tenant_id, p.id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if row.category == S3 {
        let client = store::client(&ctx, &row)?;
        probe(client.as_ref()).await?;
    }
    enable_only(&ctx, &caller, "blade_oss", ENABLED, p.id).await
}

/// Enables configuration `id` of `table` (`blade_oss`, `blade_sms`) as the tenant's only enabled
/// one (status 1 for the others), in one transaction; 404 when it is not the tenant's.
pub(super) async fn enable_only(
    ctx: &ResourceCtx,
    caller: &Caller,
    table: &'static str,
    enabled: i64,
    id: Id,
) -> ApiResult<Data<bool>> {
    let mut tx = ctx.db.begin_write().await?;
    let mut off = Sql::default();
    off.push_bind(
        &format!("UPDATE {table} SET status = 1 WHERE tenant_id = ? AND status = ? AND is_deleted = 0"),
        [caller.tenant_id.clone().into(), Value::Int(enabled)],
    );
    off.execute(&mut *tx).await?;
    let mut on = Sql::default();
    on.push_bind(
        &format!(
            "UPDATE {table} SET status = ?, update_user = ?, update_time = ? WHERE id = ? AND tenant_id = ? AND is_deleted = 0"
        ),
        [
            Value::Int(enabled),
            caller.user_id.into(),
            Value::Int(time::now_ms()),
            id.into(),
            caller.tenant_id.clone().into(),
        ],
    );
    if on.execute(&mut *tx).await? == 0 {
        return Err(ApiError::not_found());
    }
    tx.commit().await?;
    Ok(Data(true))
}

const BUCKET_UNREACHABLE: Text = Text::new(
    "无法访问该存储桶，请检查服务地址、存储桶名称和访问密钥",
    "The bucket cannot be reached: check the endpoint, the bucket name and the keys",
);

/// Lists one page of the bucket: enough to prove the endpoint, bucket and keys work.
async fn probe(store: &dyn object_store::ObjectStore) -> Result<(), ApiError> {
    match store.list_with_delimiter(None).await {
        Ok(_) => Ok(()),
        Err(e) => {
            tracing::warn!(error = %e, "object storage check failed");
            Err(ApiError::BadRequest(BUCKET_UNREACHABLE))
        }
    }
}

/// Temporary credentials for one bucket (the shape a store with an STS service would answer).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StsToken {
    pub access_key_id: String,
    pub access_key_secret: String,
    pub security_token: String,
    /// `yyyy-MM-dd HH:mm:ss`
    pub expiration: String,
    pub bucket_name: String,
    pub endpoint: String,
}

const NO_STS: Text = Text::new(
    "当前存储不签发临时凭证（STS）：请通过 put-file 上传，由服务器写入存储",
    "The storage issues no temporary credentials (STS): upload through put-file and the server writes to the storage",
);

/// Temporary credentials for uploading straight to the store: neither the local disk nor a
/// generic S3-compatible server (which has no STS service) issues them, so the call refuses
/// with that reason; uploads go through `put-file`.
#[utoipa::path(get, path = "/api/blade-resource/oss/sts/security/token", tag = "resource",
    responses((status = 200, body = Envelope<StsToken>, description = "The shape of temporary credentials; no store supported now issues them"),
        (status = 400, description = "Always for now: the configured stores issue no temporary credentials"), (status = 401)))]
pub async fn sts_token(_caller: Caller) -> ApiResult<Data<StsToken>> {
    Err(ApiError::BadRequest(NO_STS))
}
