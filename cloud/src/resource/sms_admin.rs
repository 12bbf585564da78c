//! SMS configurations of a tenant (`/api/blade-resource/sms`): list, detail, submit, remove and
//! `enable?id` (one enabled per tenant). The secret key is write-only and sealed at rest.

use axum::extract::State;
use serde_json::{Map, Value as Json};

use super::context::{EntityDef, ResourceCtx};
use super::oss_admin::{EnableParams, enable_only};
use super::sms_provider::{ALIYUN, GENERIC, Provider};
use crate::auth::Caller;
use crate::kernel::entity::blade::Hooks;
use crate::kernel::entity::field::{CheckFuture, Col, Ty};
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};

/// `blade_sms.status` of the enabled configuration.
pub const ENABLED: i64 = 2;

pub static SMS: EntityDef = EntityDef {
    base: "/api/blade-resource/sms",
    table: "blade_sms",
    menu_code: "sms",
    tag: "resource",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of(
            "category",
            "category",
            Ty::Int {
                min: ALIYUN,
                max: GENERIC,
            },
        )
        .required_as("请选择短信服务商", "Please select the SMS provider")
        .filter(),
        Col::of("smsCode", "sms_code", Ty::Text(32))
            .required_as("请输入资源编号", "Please enter the configuration code")
            .unique("资源编号已存在", "This configuration code already exists")
            .filter(),
        Col::of("templateId", "template_id", Ty::Text(64)),
        Col::of("accessKey", "access_key", Ty::Text(255)),
        // Sealed by the hook (longer than typed); the hook limits what may be typed.
        Col::of("secretKey", "secret_key", Ty::TEXT).write_only(),
        Col::of("regionId", "region_id", Ty::Text(64)),
        Col::of("signName", "sign_name", Ty::Text(64)),
        Col::of("appId", "app_id", Ty::Text(64)),
        Col::of("endpoint", "endpoint", Ty::Text(255)),
        Col::of("remark", "remark", Ty::Text(255)),
        Col::of("status", "status", Ty::INT).read_only().filter(),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "id DESC",
    create_dept: true,
    hooks: &SmsHooks,
    ..EntityDef::DEFAULT
};

struct SmsHooks;

const BAD_CATEGORY: Text = Text::new("请选择短信服务商", "Please select the SMS provider");
const NEED_ENDPOINT: Text = Text::new(
    "通用 HTTP 短信需要以 http:// 或 https:// 开头的接口地址",
    "A generic HTTP provider needs an endpoint starting with http:// or https://",
);
const BAD_ENDPOINT: Text = Text::new(
    "接口地址须以 http:// 或 https:// 开头",
    "The endpoint must start with http:// or https://",
);
const SECRET_TOO_LONG: Text = Text::new(
    "SecretKey 不能超过200个字符",
    "The secret key must be at most 200 characters",
);

impl Hooks<ResourceCtx, Caller> for SmsHooks {
    fn before_save<'a>(
        &'a self,
        state: &'a ResourceCtx,
        _caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            let text = |name: &str| {
                body.get(name)
                    .and_then(Json::as_str)
                    .map(str::trim)
                    .unwrap_or("")
                    .to_owned()
            };
            let category = body.get("category").and_then(|v| {
                v.as_i64()
                    .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            });
            if let Some(c) = category
                && !(ALIYUN..=GENERIC).contains(&c)
            {
                return Err(ApiError::BadRequest(BAD_CATEGORY));
            }
            let endpoint = text("endpoint");
            if !(endpoint.is_empty() || endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
                return Err(ApiError::BadRequest(BAD_ENDPOINT));
            }
            if category == Some(GENERIC)
                && endpoint.is_empty()
                && (id.is_none() || body.contains_key("endpoint"))
            {
                return Err(ApiError::BadRequest(NEED_ENDPOINT));
            }
            let secret = text("secretKey");
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

#[derive(Debug, sqlx::FromRow)]
struct SmsRow {
    id: Id,
    category: i64,
    template_id: String,
    access_key: String,
    secret_key: String,
    region_id: String,
    sign_name: String,
    app_id: String,
    endpoint: String,
}

const COLUMNS: &str = "id, category, COALESCE(template_id, '') AS template_id, COALESCE(access_key, '') AS access_key, \
    COALESCE(secret_key, '') AS secret_key, COALESCE(region_id, '') AS region_id, COALESCE(sign_name, '') AS sign_name, \
    COALESCE(app_id, '') AS app_id, COALESCE(endpoint, '') AS endpoint";

fn provider(ctx: &ResourceCtx, row: SmsRow) -> (Id, Provider) {
    (
        row.id,
        Provider {
            category: row.category,
            endpoint: row.endpoint,
            access_key: row.access_key,
            secret_key: ctx.services.open(&row.secret_key).unwrap_or_default(),
            region_id: row.region_id,
            sign_name: row.sign_name,
            app_id: row.app_id,
            template_id: row.template_id,
        },
    )
}

/// The tenant's enabled configuration, if any.
pub async fn enabled(ctx: &ResourceCtx, tenant: &str) -> Result<Option<(Id, Provider)>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_sms WHERE is_deleted = 0"));
    sql.push_bind(
        " AND tenant_id = ? AND status = ?",
        [tenant.into(), Value::Int(ENABLED)],
    );
    Ok(sql
        .fetch_optional::<SmsRow, _>(ctx.db.pool())
        .await?
        .map(|r| provider(ctx, r)))
}

/// The tenant's configuration with code `code`, if any.
pub async fn by_code(
    ctx: &ResourceCtx,
    tenant: &str,
    code: &str,
) -> Result<Option<(Id, Provider)>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_sms WHERE is_deleted = 0"));
    sql.push_bind(
        " AND tenant_id = ? AND sms_code = ?",
        [tenant.into(), code.into()],
    );
    Ok(sql
        .fetch_optional::<SmsRow, _>(ctx.db.pool())
        .await?
        .map(|r| provider(ctx, r)))
}

/// Enables one configuration of the caller's tenant and disables the others.
#[utoipa::path(post, path = "/api/blade-resource/sms/enable", tag = "resource", params(EnableParams),
    responses((status = 200, body = Envelope<bool>), (status = 401), (status = 403), (status = 404)))]
pub async fn enable(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<EnableParams>,
) -> ApiResult<Data<bool>> {
    caller.require(&ctx, "sms_enable").await?;
    enable_only(&ctx, &caller, "blade_sms", ENABLED, p.id).await
}
