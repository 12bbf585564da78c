//! Tenant administration (platform only): tenants, their product packages, account limits and
//! expiry, and everything a new tenant needs to be usable at once (root department, default
//! roles, an administrator account granted the package's menus).

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use utoipa::{IntoParams, ToSchema};

use super::entities::{Col, EntityDef, HookFuture, Hooks, PLATFORM_TENANT, Ty};
use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, id::parse_id_list, time};
use crate::system::context::SystemCtx;

pub static TENANT: EntityDef = EntityDef {
    base: "/api/blade-system/tenant",
    table: "blade_tenant",
    tenant_scoped: false,
    menu_code: "tenant",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("tenantId", "tenant_id", Ty::TEXT)
            .max(12)
            .unique("租户ID已存在", "This tenant id already exists")
            .filter(),
        Col::of("tenantName", "tenant_name", Ty::TEXT)
            .required_as("请输入租户名称", "Please enter the tenant name")
            .max(50)
            .filter(),
        Col::of("domain", "domain", Ty::TEXT).max(255).unique(
            "域名已被其他租户使用",
            "This domain is already used by another tenant",
        ),
        Col::of("backgroundUrl", "background_url", Ty::TEXT).max(1000),
        Col::of("linkman", "linkman", Ty::TEXT).max(20).filter(),
        Col::of("contactNumber", "contact_number", Ty::TEXT).max(20),
        Col::of("address", "address", Ty::TEXT).max(255),
        Col::of("accountNumber", "account_number", Ty::INT),
        Col::of("expireTime", "expire_time", Ty::Time),
        Col::of("packageId", "package_id", Ty::Id),
        Col::of("datasourceId", "datasource_id", Ty::Id),
        Col::of("status", "status", Ty::INT).filter(),
        // 1: anyone may ask for an account (register-guest); 0 (the default): no one.
        Col::of("selfRegister", "self_register", Ty::INT).defaulted(),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "create_time ASC, id ASC",
    platform_only: true,
    create_dept: true,
    hooks: &TenantHooks,
    ..EntityDef::DEFAULT
};

const PLATFORM_FIXED: Text = Text::new(
    "平台租户不能删除或停用",
    "The platform tenant cannot be removed or disabled",
);
const BAD_TENANT_ID: Text = Text::new(
    "租户ID只能包含字母和数字，最多12位",
    "A tenant id is 1-12 letters or digits",
);
const NO_SUCH_PACKAGE: Text = Text::new("产品包不存在", "No such package");
pub(super) const NO_SUCH_TENANT: Text = Text::new("租户不存在", "No such tenant");
const BAD_ACCOUNT_NUMBER: Text = Text::new(
    "账号额度必须是正整数，-1 表示不限",
    "The account limit is a positive number, or -1 for no limit",
);

/// The default roles of a new tenant: alias, zh name, en name, and the menu groups granted.
/// The administrator gets every menu of the package; the others a sensible working set.
const DEFAULT_ROLES: &[DefaultRole] = &[
    DefaultRole {
        alias: super::seed::ADMIN_ROLE_ALIAS,
        name: "管理员",
        groups: &[],
        only: &[],
        except: &[],
    },
    DefaultRole {
        alias: "user",
        name: "普通用户",
        groups: &["basicFacts"],
        only: &[],
        except: &[],
    },
    // Owners see their stations' repair orders and evaluate them.
    DefaultRole {
        alias: "owner",
        name: "业主",
        groups: &["basicFacts", "report"],
        only: &["repair", "repair_view", "repair_evaluate"],
        except: &[],
    },
    // Maintenance staff work orders; dispatching, verifying and the deadlines are for managers.
    DefaultRole {
        alias: "maintenance",
        name: "运维人员",
        groups: &["basicFacts", "stationMonitor", "intelligentOperation"],
        only: &[],
        except: &["repair_assign", "repair_verify", "repair_setting"],
    },
];

/// A default role: alias, zh name, the menu groups granted with everything under them, single
/// menus or buttons granted alone, and menus left out of the groups.
struct DefaultRole {
    alias: &'static str,
    name: &'static str,
    groups: &'static [&'static str],
    only: &'static [&'static str],
    except: &'static [&'static str],
}

pub struct TenantHooks;

impl Hooks<SystemCtx, Caller> for TenantHooks {
    fn before_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            match id {
                None => {
                    let given = body
                        .get("tenantId")
                        .and_then(Json::as_str)
                        .map(str::trim)
                        .unwrap_or("");
                    let tenant_id = if given.is_empty() {
                        fresh_tenant_id(state).await?
                    } else if given.len() <= 12 && given.chars().all(|c| c.is_ascii_alphanumeric()) {
                        given.to_owned()
                    } else {
                        return Err(ApiError::BadRequest(BAD_TENANT_ID));
                    };
                    body.insert("tenantId".into(), Json::String(tenant_id));
                }
                Some(id) => {
                    // A tenant id is the key of every row the tenant owns: it never changes.
                    body.remove("tenantId");
                    let disabling = body
                        .get("status")
                        .is_some_and(|s| s.as_i64() != Some(1) && !s.is_null());
                    if disabling && tenant_id_of(state, id).await?.as_deref() == Some(PLATFORM_TENANT) {
                        return Err(ApiError::BadRequest(PLATFORM_FIXED));
                    }
                }
            }
            if let Some(n) = body.get("accountNumber").filter(|v| !v.is_null()) {
                let n = n
                    .as_i64()
                    .or_else(|| n.as_str().and_then(|s| s.trim().parse().ok()));
                if !n.is_some_and(|n| n == -1 || n > 0) {
                    return Err(ApiError::BadRequest(BAD_ACCOUNT_NUMBER));
                }
            }
            if let Some(pkg) = body.get("packageId").and_then(json_id)
                && !package_exists(state, pkg).await?
            {
                return Err(ApiError::BadRequest(NO_SUCH_PACKAGE));
            }
            Ok(())
        })
    }

    fn after_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        id: Id,
        created: bool,
        _body: &'a Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            if created {
                provision(state, id).await?;
                let tenant = tenant_id_of(state, id).await?.unwrap_or_default();
                crate::log::usual::record_event(
                    state,
                    crate::log::usual::Event {
                        tenant: &caller.tenant_id,
                        account: Some(&caller.account),
                        level: crate::log::usual::INFO,
                        id: "tenant_create",
                        data: &format!("tenant {tenant} created with account admin"),
                        request_uri: Some("/api/blade-system/tenant/submit"),
                    },
                )
                .await;
            }
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        ids: &'a [Id],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let mut sql = Sql::new("SELECT tenant_id FROM blade_tenant WHERE id IN (");
            sql.push_ids(ids);
            sql.push(")");
            let tenants = text_list(state, sql).await?;
            if tenants.iter().any(|t| t == PLATFORM_TENANT) {
                return Err(ApiError::BadRequest(PLATFORM_FIXED));
            }
            // A removed tenant's users are signed out at once, not when their tokens run out.
            for t in tenants {
                let mut sql = Sql::default();
                // The tenant as a value: a platform administrator removes named tenants.
                sql.push_bind(
                    "UPDATE blade_auth_session SET revoked = 1 WHERE tenant_id = ?",
                    [Value::Text(t)],
                );
                sql.execute(state.db.pool()).await?;
            }
            Ok(())
        })
    }

    fn decorate<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        rows: &'a mut [Json],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let names: Vec<(i64, String)> =
                Sql::new("SELECT id, package_name FROM blade_tenant_package WHERE is_deleted = 0")
                    .fetch_all::<(i64, String), _>(state.db.pool())
                    .await?;
            for row in rows.iter_mut() {
                let pkg = row.get("packageId").and_then(json_id);
                let name = pkg.and_then(|p| names.iter().find(|(id, _)| *id == p.0).map(|(_, n)| n.clone()));
                if let Json::Object(map) = row {
                    map.insert("packageName".into(), name.map(Json::String).unwrap_or(Json::Null));
                }
            }
            Ok(())
        })
    }
}

pub static TENANT_PACKAGE: EntityDef = EntityDef {
    base: "/api/blade-system/tenant-package",
    table: "blade_tenant_package",
    tenant_scoped: false,
    menu_code: "tenantPackage",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("packageName", "package_name", Ty::TEXT)
            .required_as("请输入产品包名称", "Please enter package name")
            .max(50)
            .unique("产品包名称已存在", "This package name already exists")
            .filter(),
        Col::of("menuId", "menu_id", Ty::TEXT).required_as("请选择菜单", "Please select menu"),
        Col::of("remark", "remark", Ty::TEXT).max(255),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "create_time ASC, id ASC",
    platform_only: true,
    hooks: &PackageHooks,
    ..EntityDef::DEFAULT
};

pub struct PackageHooks;

impl Hooks<SystemCtx, Caller> for PackageHooks {
    fn before_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        _id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            // The spec's required-field messages come first; the generic check gives them.
            if body
                .get("packageName")
                .and_then(Json::as_str)
                .is_none_or(|n| n.trim().is_empty())
            {
                return Ok(());
            }
            let Some(raw) = body.get("menuId").and_then(Json::as_str) else {
                return Ok(());
            };
            let ids = parse_id_list(raw).map_err(|e| {
                ApiError::bad_request(
                    format!("无效的菜单ID：{}", e.0),
                    format!("invalid menu id {}", e.0),
                )
            })?;
            if ids.is_empty() {
                return Ok(()); // the required-field check answers this
            }
            let mut sql = Sql::new("SELECT COUNT(*) FROM blade_menu WHERE is_deleted = 0 AND id IN (");
            sql.push_ids(&ids);
            sql.push(")");
            let mut unique = ids.clone();
            unique.sort_by_key(|i| i.0);
            unique.dedup();
            if sql.scalar::<i64, _>(state.db.pool()).await? != unique.len() as i64 {
                return Err(ApiError::bad_request(
                    "菜单不存在",
                    "A selected menu does not exist",
                ));
            }
            // Stored normalised, so the package check compares ids, not spellings.
            let joined = unique
                .iter()
                .map(|i| i.0.to_string())
                .collect::<Vec<_>>()
                .join(",");
            body.insert("menuId".into(), Json::String(joined));
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        ids: &'a [Id],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let mut sql =
                Sql::new("SELECT COUNT(*) FROM blade_tenant WHERE is_deleted = 0 AND package_id IN (");
            sql.push_ids(ids);
            sql.push(")");
            if sql.scalar::<i64, _>(state.db.pool()).await? > 0 {
                return Err(ApiError::bad_request(
                    "该产品包正在被租户使用，无法删除",
                    "This package is still used by tenants",
                ));
            }
            Ok(())
        })
    }
}

fn json_id(v: &Json) -> Option<Id> {
    match v {
        Json::String(s) => s.trim().parse().ok().map(Id),
        Json::Number(n) => n.as_i64().map(Id),
        _ => None,
    }
}

async fn text_list(state: &Core, sql: Sql) -> Result<Vec<String>, ApiError> {
    sql.scalars::<String, _>(state.db.pool()).await
}

async fn package_exists(state: &Core, id: Id) -> Result<bool, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT COUNT(*) FROM blade_tenant_package WHERE is_deleted = 0 AND id = ?",
        [id.into()],
    );
    Ok(sql.scalar::<i64, _>(state.db.pool()).await? > 0)
}

async fn tenant_id_of(state: &Core, id: Id) -> Result<Option<String>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT tenant_id FROM blade_tenant WHERE is_deleted = 0 AND id = ?",
        [id.into()],
    );
    Ok(text_list(state, sql).await?.into_iter().next())
}

/// A random six-digit tenant id no live tenant uses.
async fn fresh_tenant_id(state: &Core) -> Result<String, ApiError> {
    for _ in 0..20 {
        let mut bytes = [0u8; 4];
        getrandom::fill(&mut bytes).map_err(|e| ApiError::Internal(format!("random: {e}")))?;
        let candidate = format!("{:06}", 100_000 + u32::from_le_bytes(bytes) % 900_000);
        let mut sql = Sql::default();
        // A candidate key of the tenant table itself, not a tenant-owned row.
        sql.push_bind(
            "SELECT COUNT(*) FROM blade_tenant WHERE is_deleted = 0 AND tenant_id = ?",
            [Value::Text(candidate.clone())],
        );
        if sql.scalar::<i64, _>(state.db.pool()).await? == 0 {
            return Ok(candidate);
        }
    }
    Err(ApiError::Internal("no free tenant id after 20 tries".into()))
}

/// The initial password of accounts an administrator creates: parameter `account.initPassword`
/// when set, else the configuration.
pub async fn initial_password(state: &Core) -> Result<String, ApiError> {
    let param: Option<String> = Sql::new(
        "SELECT param_value FROM blade_param WHERE param_key = 'account.initPassword' AND is_deleted = 0",
    )
    .scalar_optional::<String, _>(state.db.pool())
    .await?;
    Ok(param
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| state.config.auth.initial_password.clone()))
}

/// Lowercase hex MD5 of a password: what the console sends at sign-in and what is hashed.
pub fn client_hash(password: &str) -> String {
    use md5::Digest;
    hex::encode(md5::Md5::digest(password.as_bytes()))
}

/// Gives a freshly created tenant its root department, default roles (granted menus within its
/// package) and an `admin` account holding the administrator role, all in one transaction.
pub async fn provision(state: &Core, id: Id) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT tenant_id, tenant_name FROM blade_tenant WHERE id = ? AND is_deleted = 0",
        [id.into()],
    );
    let (tenant_id, tenant_name): (String, String) = sql
        .fetch_optional::<(String, String), _>(state.db.pool())
        .await?
        .ok_or(ApiError::BadRequest(NO_SUCH_TENANT))?;
    let package = crate::auth::package::package_menus(state, &tenant_id).await?;
    let menus: Vec<(i64, i64, String)> =
        Sql::new("SELECT id, parent_id, code FROM blade_menu WHERE is_deleted = 0")
            .fetch_all::<(i64, i64, String), _>(state.db.pool())
            .await?;
    let allowed = |m: &i64| package.as_ref().is_none_or(|p| p.contains(&Id(*m)));
    let password = password_hash_of(&initial_password(state).await?).await?;
    let now = Value::Int(time::now_ms());
    let t = || Value::Text(tenant_id.clone());
    let (dept, user) = (state.ids.next(), state.ids.next());
    let mut tx = state.db.begin_write().await?;
    let mut s = Sql::default();
    s.push_bind(
        "INSERT INTO blade_dept (id, tenant_id, parent_id, ancestors, dept_category, dept_name, full_name, sort) \
         VALUES (?, ?, 0, '0', 1, ?, ?, 1)",
        [dept.into(), t(), tenant_name.clone().into(), tenant_name.clone().into()],
    );
    s.execute(&mut *tx).await?;
    let mut admin_role = None;
    for (sort, role_def) in DEFAULT_ROLES.iter().enumerate() {
        let (alias, name, groups) = (&role_def.alias, &role_def.name, role_def.groups);
        let role = state.ids.next();
        if *alias == super::seed::ADMIN_ROLE_ALIAS {
            admin_role = Some(role);
        }
        let mut s = Sql::default();
        s.push_bind(
            "INSERT INTO blade_role (id, tenant_id, parent_id, role_name, role_alias, sort) VALUES (?, ?, 0, ?, ?, ?)",
            [role.into(), t(), (*name).into(), (*alias).into(), Value::Int(sort as i64 + 1)],
        );
        s.execute(&mut *tx).await?;
        let granted: Vec<i64> = if groups.is_empty() {
            menus.iter().map(|m| m.0).filter(|m| allowed(m)).collect()
        } else {
            let except = menus_named(&menus, role_def.except);
            subtree(&menus, groups)
                .into_iter()
                .chain(menus_named(&menus, role_def.only))
                .filter(|m| allowed(m) && !except.contains(m))
                .collect()
        };
        for menu in granted {
            let mut s = Sql::default();
            s.push_bind(
                "INSERT INTO blade_role_menu (role_id, menu_id, kind) VALUES (?, ?, 'web')",
                [role.into(), Value::Int(menu)],
            );
            s.execute(&mut *tx).await?;
        }
    }
    let mut s = Sql::default();
    s.push_bind(
        "INSERT INTO blade_user (id, tenant_id, account, password, name, real_name, create_time, status) \
         VALUES (?, ?, 'admin', ?, ?, ?, ?, 1)",
        [
            user.into(),
            t(),
            password.into(),
            "管理员".into(),
            "管理员".into(),
            now,
        ],
    );
    s.execute(&mut *tx).await?;
    if let Some(role) = admin_role {
        let mut s = Sql::default();
        s.push_bind(
            "INSERT INTO blade_user_role (user_id, role_id) VALUES (?, ?)",
            [user.into(), role.into()],
        );
        s.execute(&mut *tx).await?;
    }
    let mut s = Sql::default();
    s.push_bind(
        "INSERT INTO blade_user_dept (user_id, dept_id) VALUES (?, ?)",
        [user.into(), dept.into()],
    );
    s.execute(&mut *tx).await?;
    tx.commit().await?;
    tracing::info!(tenant = %tenant_id, "tenant provisioned with account admin");
    Ok(())
}

/// The stored hash of a plain password (argon2id of its MD5 hex, matching sign-in).
pub async fn password_hash_of(plain: &str) -> Result<String, ApiError> {
    crate::auth::password::hash(&client_hash(plain)).await
}

/// Menu ids of the named groups and everything below them.
/// The menus of `codes` themselves (without what is under them).
fn menus_named(menus: &[(i64, i64, String)], codes: &[&str]) -> Vec<i64> {
    menus
        .iter()
        .filter(|m| codes.contains(&m.2.as_str()))
        .map(|m| m.0)
        .collect()
}

fn subtree(menus: &[(i64, i64, String)], roots: &[&str]) -> Vec<i64> {
    let mut out: Vec<i64> = menus
        .iter()
        .filter(|m| roots.contains(&m.2.as_str()))
        .map(|m| m.0)
        .collect();
    let mut i = 0;
    while i < out.len() {
        let parent = out[i];
        out.extend(menus.iter().filter(|m| m.1 == parent).map(|m| m.0));
        i += 1;
    }
    out
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TenantOption {
    pub tenant_id: String,
    pub tenant_name: String,
}

/// Every live tenant, for the platform administrator's tenant pickers.
#[utoipa::path(get, path = "/api/blade-system/tenant/select", tag = "system",
    responses((status = 200, body = Envelope<Vec<TenantOption>>), (status = 403)))]
pub async fn select(State(state): State<SystemCtx>, caller: Caller) -> ApiResult<Data<Vec<TenantOption>>> {
    TENANT.check_platform(&caller)?;
    let rows: Vec<(String, String)> = Sql::new(
        "SELECT tenant_id, tenant_name FROM blade_tenant WHERE is_deleted = 0 ORDER BY create_time, id",
    )
    .fetch_all::<(String, String), _>(state.db.pool())
    .await?;
    Ok(Data(
        rows.into_iter()
            .map(|(tenant_id, tenant_name)| TenantOption {
                tenant_id,
                tenant_name,
            })
            .collect(),
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct SettingParams {
    /// Comma-joined tenant row ids.
    pub ids: String,
    /// -1 for no limit.
    pub account_number: Option<i64>,
    /// `yyyy-MM-dd HH:mm:ss`; empty clears the expiry.
    pub expire_time: Option<String>,
}

/// Sets the account limit and expiry of several tenants at once (permission `tenant_setting`).
#[utoipa::path(post, path = "/api/blade-system/tenant/setting", tag = "system", params(SettingParams),
    responses((status = 200, body = Envelope<u64>), (status = 400, description = "No id, or an id that is not a number"), (status = 403),
        (status = 404, description = "An id is not a live tenant: nothing is changed")))]
pub async fn setting(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<SettingParams>,
) -> ApiResult<Data<u64>> {
    TENANT.check_platform(&caller)?;
    caller.require(&state, "tenant_setting").await?;
    let ids = parse_id_list(&p.ids)
        .map_err(|e| ApiError::bad_request(format!("无效的ID：{}", e.0), e.to_string()))?;
    if ids.is_empty() {
        return Err(ApiError::bad_request(
            "请选择至少一条数据",
            "Please select at least one record",
        ));
    }
    // All or nothing: an unknown id changes no tenant (and says so) instead of a quiet 200.
    let mut live = Sql::new("SELECT id FROM blade_tenant WHERE is_deleted = 0 AND id IN (");
    live.push_ids(&ids);
    live.push(")");
    let found: Vec<Id> = live
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect();
    crate::kernel::id::all_found(&ids, found)?;
    let account = p.account_number.unwrap_or(-1);
    if !(account == -1 || account > 0) {
        return Err(ApiError::BadRequest(BAD_ACCOUNT_NUMBER));
    }
    let expire = match p.expire_time.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Value::Null,
        Some(s) => Value::Int(
            time::parse_ms(s)
                .ok_or_else(|| ApiError::bad_request("过期时间格式错误", "invalid expireTime"))?,
        ),
    };
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_tenant SET account_number = ?, expire_time = ?, update_user = ?, update_time = ? \
         WHERE is_deleted = 0 AND id IN (",
        [
            Value::Int(account),
            expire,
            caller.user_id.into(),
            Value::Int(time::now_ms()),
        ],
    );
    sql.push_ids(&ids);
    sql.push(")");
    Ok(Data(sql.execute(state.db.pool()).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct PackageDetailParams {
    pub tenant_id: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageView {
    pub id: Id,
    pub package_name: String,
    pub menu_id: String,
    pub remark: Option<String>,
}

/// The package a tenant is on, or `null`.
#[utoipa::path(get, path = "/api/blade-system/tenant/package-detail", tag = "system", params(PackageDetailParams),
    responses((status = 200, description = "The package, or data null when the tenant has none", body = Envelope<Option<PackageView>>), (status = 403)))]
pub async fn package_detail(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<PackageDetailParams>,
) -> ApiResult<Data<Option<PackageView>>> {
    TENANT.check_platform(&caller)?;
    caller.require(&state, "tenant").await?;
    let mut sql = Sql::new(
        "SELECT p.id, p.package_name, p.menu_id, p.remark FROM blade_tenant t \
         JOIN blade_tenant_package p ON p.id = t.package_id AND p.is_deleted = 0",
    );
    // The tenant as a value: a platform administrator reads the tenant they name.
    sql.push_bind(
        " WHERE t.is_deleted = 0 AND t.tenant_id = ?",
        [Value::Text(p.tenant_id.trim().to_owned())],
    );
    let row = sql
        .fetch_optional::<(i64, String, String, Option<String>), _>(state.db.pool())
        .await?;
    Ok(Data(row.map(|(id, package_name, menu_id, remark)| PackageView {
        id: Id(id),
        package_name,
        menu_id,
        remark,
    })))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct PackageSettingParams {
    pub tenant_id: String,
    /// Empty takes the tenant off any package (all menus).
    pub package_id: Option<String>,
}

/// Puts a tenant on a package (permission `tenant_package`); its users then see only the
/// package's menus, whatever their roles hold.
#[utoipa::path(post, path = "/api/blade-system/tenant/package-setting", tag = "system", params(PackageSettingParams),
    responses((status = 200, body = Envelope<u64>), (status = 400), (status = 403)))]
pub async fn package_setting(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<PackageSettingParams>,
) -> ApiResult<Data<u64>> {
    TENANT.check_platform(&caller)?;
    caller.require(&state, "tenant_package").await?;
    let tenant_id = p.tenant_id.trim().to_owned();
    if tenant_id == PLATFORM_TENANT {
        return Err(ApiError::bad_request(
            "平台租户不使用产品包",
            "The platform tenant is not limited by a package",
        ));
    }
    let pkg = match p.package_id.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Value::Null,
        Some(s) => {
            let id = Id(s.parse().map_err(|_| ApiError::BadRequest(NO_SUCH_PACKAGE))?);
            if !package_exists(&state, id).await? {
                return Err(ApiError::BadRequest(NO_SUCH_PACKAGE));
            }
            id.into()
        }
    };
    let mut sql = Sql::default();
    // The tenant as a value: a platform administrator acts on the tenant they name.
    sql.push_bind(
        "UPDATE blade_tenant SET package_id = ?, update_user = ?, update_time = ? WHERE is_deleted = 0 AND tenant_id = ?",
        [pkg, caller.user_id.into(), Value::Int(time::now_ms()), Value::Text(tenant_id)],
    );
    match sql.execute(state.db.pool()).await? {
        0 => Err(ApiError::BadRequest(NO_SUCH_TENANT)),
        n => Ok(Data(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtree_takes_groups_and_all_their_descendants() {
        let menus = vec![
            (1, 0, "a".to_owned()),
            (2, 1, "a1".to_owned()),
            (3, 2, "a1_add".to_owned()),
            (4, 0, "b".to_owned()),
            (5, 4, "b1".to_owned()),
        ];
        let mut got = subtree(&menus, &["a"]);
        got.sort_unstable();
        assert_eq!(got, vec![1, 2, 3]);
        assert!(subtree(&menus, &["zzz"]).is_empty());
    }

    #[test]
    fn client_hash_is_lowercase_md5_hex() {
        assert_eq!(client_hash("admin"), "21232f297a57a5a743894a0e4a801fc3");
    }
}
