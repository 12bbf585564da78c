//! Data sources of the developer tools (`/api/blade-develop/datasource`): a SQLite file in the
//! data directory or a PostgreSQL server, whose tables models are read from. The password is
//! write-only: sealed with the credential key before it is stored, never read back.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use utoipa::ToSchema;

use super::catalogue::{self, Target};
use crate::auth::Caller;
use crate::kernel::entity::blade::{Hooks, PLATFORM_TENANT};
use crate::kernel::entity::field::{CheckFuture, Col, Ty};
use crate::kernel::extract::Json as Body;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::resource::ResourceCtx;
use crate::resource::context::EntityDef;

pub use super::catalogue::{POSTGRES, SQLITE};

pub static DATASOURCE: EntityDef = EntityDef {
    base: "/api/blade-develop/datasource",
    table: "blade_datasource",
    tenant_scoped: false,
    platform_only: true,
    menu_code: "datasource",
    tag: "develop",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("name", "name", Ty::Text(64))
            .required_as("请输入数据源名称", "Please enter the data source name")
            .unique("数据源名称已存在", "This data source name already exists")
            .filter(),
        Col::of(
            "category",
            "category",
            Ty::Int {
                min: SQLITE,
                max: POSTGRES,
            },
        )
        .required_as("请选择数据源类型", "Please select the data source kind")
        .filter(),
        Col::of("url", "url", Ty::Text(255))
            .required_as("请输入连接地址", "Please enter the connection address"),
        Col::of("username", "username", Ty::Text(64)),
        // Sealed by the hook (longer than typed); the hook limits what may be typed.
        Col::of("password", "password", Ty::TEXT).write_only(),
        Col::of("remark", "remark", Ty::Text(255)),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "id DESC",
    hooks: &DatasourceHooks,
    ..EntityDef::DEFAULT
};

struct DatasourceHooks;

const BAD_CATEGORY: Text = Text::new("请选择数据源类型", "Please select the data source kind");
const IN_USE: Text = Text::new(
    "该数据源正被数据模型或租户使用，请先解除",
    "Data models or tenants use this data source: release them first",
);
const PASSWORD_TOO_LONG: Text = Text::new(
    "密码不能超过128个字符",
    "The password must be at most 128 characters",
);

fn text<'a>(body: &'a Map<String, Json>, name: &str) -> &'a str {
    body.get(name).and_then(Json::as_str).map(str::trim).unwrap_or("")
}

fn int(body: &Map<String, Json>, name: &str) -> Option<i64> {
    body.get(name).and_then(|v| {
        v.as_i64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    })
}

impl Hooks<ResourceCtx, Caller> for DatasourceHooks {
    fn before_save<'a>(
        &'a self,
        state: &'a ResourceCtx,
        _caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            // The stored row fills what an edit leaves out, so the address is checked whole.
            let stored = match id {
                Some(id) => stored(state, id).await?,
                None => None,
            };
            let category = int(body, "category")
                .or(stored.as_ref().map(|s| s.category))
                .unwrap_or(0);
            if category != SQLITE && category != POSTGRES {
                return Err(ApiError::BadRequest(BAD_CATEGORY));
            }
            let url = match body.get("url") {
                Some(_) => text(body, "url").to_owned(),
                None => stored.as_ref().map(|s| s.url.clone()).unwrap_or_default(),
            };
            if !url.is_empty() {
                catalogue::check_address(category, &url)?;
            }
            let password = text(body, "password").to_owned();
            if !password.is_empty() {
                if password.chars().count() > 128 {
                    return Err(ApiError::BadRequest(PASSWORD_TOO_LONG));
                }
                body.insert("password".into(), Json::String(state.services.seal(&password)?));
            }
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a ResourceCtx,
        _caller: &'a Caller,
        ids: &'a [Id],
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            let mut models =
                Sql::new("SELECT COUNT(*) FROM blade_model WHERE is_deleted = 0 AND datasource_id IN (");
            models.push_ids(ids);
            models.push(")");
            let mut tenants =
                Sql::new("SELECT COUNT(*) FROM blade_tenant WHERE is_deleted = 0 AND datasource_id IN (");
            tenants.push_ids(ids);
            tenants.push(")");
            if models.scalar::<i64, _>(state.db.pool()).await? > 0
                || tenants.scalar::<i64, _>(state.db.pool()).await? > 0
            {
                return Err(ApiError::BadRequest(IN_USE));
            }
            Ok(())
        })
    }

    fn decorate<'a>(
        &'a self,
        state: &'a ResourceCtx,
        _caller: &'a Caller,
        rows: &'a mut [Json],
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            let with_password: Vec<i64> =
                Sql::new("SELECT id FROM blade_datasource WHERE is_deleted = 0 AND password IS NOT NULL")
                    .scalars::<i64, _>(state.db.pool())
                    .await?;
            for row in rows.iter_mut() {
                let set = row["id"]
                    .as_str()
                    .and_then(|s| s.parse::<i64>().ok())
                    .is_some_and(|id| with_password.contains(&id));
                if let Some(map) = row.as_object_mut() {
                    map.insert("passwordSet".into(), Json::Bool(set));
                }
            }
            Ok(())
        })
    }
}

/// A stored data source, its password still sealed.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DatasourceRow {
    pub id: i64,
    pub name: String,
    pub category: i64,
    pub url: String,
    pub username: Option<String>,
    pub password: Option<String>,
}

pub async fn stored(ctx: &ResourceCtx, id: Id) -> Result<Option<DatasourceRow>, ApiError> {
    let mut sql = Sql::new(
        "SELECT id, name, category, url, username, password FROM blade_datasource WHERE is_deleted = 0",
    );
    sql.push_bind(" AND id = ?", [id.into()]);
    sql.fetch_optional::<DatasourceRow, _>(ctx.db.pool()).await
}

const NO_DATASOURCE: Text = Text::new("数据源不存在", "No such data source");
const UNREADABLE_PASSWORD: Text = Text::new(
    "已保存的密码无法解密（凭据密钥已更换？），请重新输入密码",
    "The stored password cannot be decrypted (was the credential key changed?): enter it again",
);

/// Where a stored data source points, its password opened.
pub async fn target_of(ctx: &ResourceCtx, id: Id) -> Result<Target, ApiError> {
    let row = stored(ctx, id)
        .await?
        .ok_or(ApiError::BadRequest(NO_DATASOURCE))?;
    let password = match row.password.as_deref() {
        Some(sealed) => Some(
            ctx.services
                .open(sealed)
                .ok_or(ApiError::BadRequest(UNREADABLE_PASSWORD))?,
        ),
        None => None,
    };
    Ok(Target {
        category: row.category,
        url: row.url,
        username: row.username.filter(|u| !u.is_empty()),
        password,
    })
}

/// The form of the data-source dialog as it stands.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestRequest {
    /// A saved data source: its stored password is used when none is typed.
    pub id: Option<Id>,
    /// 1 SQLite file, 2 PostgreSQL.
    pub category: i64,
    pub url: String,
    pub username: Option<String>,
    pub password: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TestAnswer {
    /// What the server says it is, e.g. `SQLite 3.46.0` or `PostgreSQL 16.4 …`.
    pub version: String,
    /// How many tables a model can be made from.
    pub tables: usize,
}

/// Connects with the form's settings (within 5 s) and says what answered; a failure carries the
/// database's own error text.
#[utoipa::path(post, path = "/api/blade-develop/datasource/test", tag = "develop", request_body = TestRequest,
    responses((status = 200, body = Envelope<TestAnswer>),
        (status = 400, description = "Bad settings, or the connection failed (the message carries the server's error)"),
        (status = 401), (status = 403)))]
pub async fn test(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Body(form): Body<TestRequest>,
) -> ApiResult<Data<TestAnswer>> {
    if caller.tenant_id != PLATFORM_TENANT {
        return Err(ApiError::Forbidden(crate::auth::caller::NO_PERMISSION));
    }
    caller.require(&ctx, "datasource").await?;
    if form.category != SQLITE && form.category != POSTGRES {
        return Err(ApiError::BadRequest(BAD_CATEGORY));
    }
    let typed = form.password.as_deref().map(str::trim).filter(|p| !p.is_empty());
    let password = match (typed, form.id) {
        (Some(p), _) => Some(p.to_owned()),
        (None, Some(id)) => target_of(&ctx, id).await?.password,
        (None, None) => None,
    };
    let target = Target {
        category: form.category,
        url: form.url.trim().to_owned(),
        username: form
            .username
            .map(|u| u.trim().to_owned())
            .filter(|u| !u.is_empty()),
        password,
    };
    let mut conn = catalogue::connect(&ctx.config.data_dir, &target).await?;
    let version = catalogue::version(&mut conn, target.category).await?;
    let tables = catalogue::tables(&mut conn, target.category).await?.len();
    Ok(Data(TestAnswer { version, tables }))
}

/// Whether `id` names a live data source (the tenant dialog binds only to one).
pub async fn exists(ctx: &crate::kernel::Core, id: Id) -> Result<bool, ApiError> {
    let mut sql = Sql::new("SELECT COUNT(*) FROM blade_datasource WHERE is_deleted = 0");
    sql.push_bind(" AND id = ?", [Value::from(id)]);
    Ok(sql.scalar::<i64, _>(ctx.db.pool()).await? > 0)
}
