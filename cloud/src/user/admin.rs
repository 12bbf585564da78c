//! User administration within a tenant (`/api/blade-user`): the user list (narrowed by data
//! scopes), owners and maintenance staff, creating and editing accounts with their roles and
//! departments, role grants, password resets, approval of guest registrations.
//!
//! Every call works inside the caller's tenant: an id of another tenant's user, role or
//! department is "not found", never acted on. Changes to roles, status or password end the
//! user's sessions, because a token carries the roles it was issued with.

use std::collections::HashMap;

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use sqlx::any::AnyRow;
use sqlx::{Any, Row};
use utoipa::{IntoParams, ToSchema};

use super::routes::{valid_account, valid_email, valid_phone};
use super::store::{STATUS_ACTIVE, STATUS_PENDING};
use crate::auth::{Caller, session};
use crate::kernel::Core;
use crate::kernel::extract::{Json as JsonBody, Query};
use crate::kernel::lang::Text;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, id::parse_id_list, time};
use crate::system::tenant_admin::{initial_password, password_hash_of};

const COLUMNS: &str = "id, tenant_id, account, name, real_name, email, phone, birthday, sex, post_id, \
                       user_type, status, company_name, avatar, code, locked_until, create_time";

const FIELDS: &[Field] = &[
    Field::new("account", "account", Kind::Text),
    Field::new("realName", "real_name", Kind::Text),
    Field::new("name", "name", Kind::Text),
    Field::new("phone", "phone", Kind::Text),
    Field::new("email", "email", Kind::Text),
    Field::new("companyName", "company_name", Kind::Text),
    Field::new("status", "status", Kind::Int),
    Field::new("userType", "user_type", Kind::Int),
    Field::new("createTime", "create_time", Kind::Time),
];

pub use crate::auth::scope::{MAINTENANCE_ROLE, OWNER_ROLE};
const DEFAULT_ROLE: &str = "user";

const ACCOUNT_EMPTY: Text = Text::new("请输入账号", "Please enter the account");
const ACCOUNT_BAD: Text = Text::new("请输入正确的用户名", "Please enter a valid user name");
const ACCOUNT_TAKEN: Text = Text::new("当前用户已存在", "This account already exists");
const PASSWORD_EMPTY: Text = Text::new("请输入密码", "Please enter the password");
const PASSWORD_MISMATCH: Text = Text::new("两次密码输入不一致", "The two passwords do not match");
const OWNER_PASSWORD_SHORT: Text = Text::new(
    "密码长度必须大于6位",
    "The password must be longer than 6 characters",
);
const REAL_NAME_EMPTY: Text = Text::new("请输入用户姓名", "Please enter the user's name");
const ROLE_EMPTY: Text = Text::new("请选择所属角色", "Please select a role");
const DEPT_EMPTY: Text = Text::new("请选择所属部门", "Please select a department");
const PHONE_EMPTY: Text = Text::new("请输入手机号码", "Please enter the mobile number");
const PHONE_BAD: Text = Text::new(
    "请输入正确的11位手机号码",
    "Please enter a valid 11-digit mobile number",
);
const EMAIL_BAD: Text = Text::new("请输入正确的邮箱", "Please enter a valid e-mail address");
const TOO_LONG: Text = Text::new("输入内容过长", "The text is too long");
const NO_SUCH_ROLE: Text = Text::new("角色不存在", "No such role");
const NO_SUCH_DEPT: Text = Text::new("部门不存在", "No such department");
const NO_SUCH_POST: Text = Text::new("岗位不存在", "No such post");
const NOT_SELF: Text = Text::new("不能删除当前登录用户", "You cannot remove your own account");
const QUOTA: Text = Text::new(
    "当前租户已到最大账号额度",
    "The tenant has reached its account limit",
);
const SELECT_ONE: Text = Text::new("请选择至少一条数据", "Please select at least one record");

/// Fails with 403 unless the caller holds one of `codes`.
async fn require_any(state: &Core, caller: &Caller, codes: &[&str]) -> Result<(), ApiError> {
    for code in codes {
        if caller.has_permission(state, code).await? {
            return Ok(());
        }
    }
    Err(ApiError::Forbidden(crate::auth::caller::NO_PERMISSION))
}

fn ids_param(raw: &str) -> Result<Vec<Id>, ApiError> {
    let ids =
        parse_id_list(raw).map_err(|e| ApiError::bad_request(format!("无效的ID：{}", e.0), e.to_string()))?;
    if ids.is_empty() {
        return Err(ApiError::BadRequest(SELECT_ONE));
    }
    Ok(ids)
}

/// Ids given as `"1,2"`, `["1", 2]` or a single number.
fn ids_of(body: &Map<String, Json>, key: &str) -> Result<Vec<Id>, ApiError> {
    let bad = || ApiError::bad_request(format!("字段 {key} 的值无效"), format!("invalid value for {key}"));
    match body.get(key) {
        None | Some(Json::Null) => Ok(vec![]),
        Some(Json::String(s)) => parse_id_list(s).map_err(|_| bad()),
        Some(Json::Number(n)) => n.as_i64().map(|i| vec![Id(i)]).ok_or_else(bad),
        Some(Json::Array(items)) => items
            .iter()
            .map(|v| match v {
                Json::String(s) => s.trim().parse().map(Id).map_err(|_| bad()),
                Json::Number(n) => n.as_i64().map(Id).ok_or_else(bad),
                _ => Err(bad()),
            })
            .collect(),
        Some(_) => Err(bad()),
    }
}

/// A trimmed text field; `None` when absent, null or blank.
fn text_of(body: &Map<String, Json>, key: &str, max: usize) -> Result<Option<String>, ApiError> {
    let s = match body.get(key) {
        None | Some(Json::Null) => return Ok(None),
        Some(Json::String(s)) => s.trim().to_owned(),
        Some(Json::Number(n)) => n.to_string(),
        Some(_) => {
            return Err(ApiError::bad_request(
                format!("字段 {key} 的值无效"),
                format!("invalid value for {key}"),
            ));
        }
    };
    if s.chars().count() > max {
        return Err(ApiError::BadRequest(TOO_LONG));
    }
    Ok((!s.is_empty()).then_some(s))
}

fn int_of(body: &Map<String, Json>, key: &str) -> Result<Option<i64>, ApiError> {
    match body.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Number(n)) => Ok(n.as_i64()),
        Some(Json::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Json::String(s)) => s.trim().parse().map(Some).map_err(|_| {
            ApiError::bad_request(format!("字段 {key} 的值无效"), format!("invalid value for {key}"))
        }),
        Some(_) => Err(ApiError::bad_request(
            format!("字段 {key} 的值无效"),
            format!("invalid value for {key}"),
        )),
    }
}

async fn exec_on(conn: &mut sqlx::AnyConnection, sql: Sql) -> Result<u64, ApiError> {
    let (text, args) = sql.build()?;
    Ok(sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(conn)
        .await?
        .rows_affected())
}

async fn exec(state: &Core, sql: Sql) -> Result<u64, ApiError> {
    let (text, args) = sql.build()?;
    Ok(sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(state.db.pool())
        .await?
        .rows_affected())
}

async fn scalar(state: &Core, sql: Sql) -> Result<i64, ApiError> {
    let (text, args) = sql.build()?;
    Ok(
        sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_one(state.db.pool())
            .await?,
    )
}

async fn id_list(state: &Core, sql: Sql) -> Result<Vec<Id>, ApiError> {
    let (text, args) = sql.build()?;
    Ok(
        sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_all(state.db.pool())
            .await?
            .into_iter()
            .map(Id)
            .collect(),
    )
}

/// `FROM blade_user WHERE` live, in the caller's tenant, within the caller's data scopes.
async fn visible_users(state: &Core, caller: &Caller) -> Result<Sql, ApiError> {
    let mut sql = Sql::new(" FROM blade_user WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    if let Some(narrow) = crate::system::data_scope::narrow(state, caller, "user").await? {
        sql.push(" AND (");
        sql.append(&narrow);
        sql.push(")");
    }
    Ok(sql)
}

/// Which of `ids` the caller may act on.
async fn visible_ids(state: &Core, caller: &Caller, ids: &[Id]) -> Result<Vec<Id>, ApiError> {
    let mut sql = Sql::new("SELECT id");
    sql.append(&visible_users(state, caller).await?);
    sql.push(" AND id IN (");
    sql.push_ids(ids);
    sql.push(")");
    id_list(state, sql).await
}

fn has_role_alias(alias: &str) -> Sql {
    let mut sql = Sql::default();
    sql.push_bind(
        " AND EXISTS (SELECT 1 FROM blade_user_role ur JOIN blade_role r ON r.id = ur.role_id \
         WHERE ur.user_id = blade_user.id AND r.is_deleted = 0 AND r.role_alias = ?)",
        [alias.into()],
    );
    sql
}

fn row_json(row: &AnyRow) -> Result<Json, ApiError> {
    let text = |c: &str| -> Result<Json, ApiError> {
        Ok(row
            .try_get::<Option<String>, _>(c)?
            .map(Json::String)
            .unwrap_or(Json::Null))
    };
    let id: i64 = row.try_get("id")?;
    let locked_until: Option<i64> = row.try_get("locked_until")?;
    let mut m = Map::new();
    m.insert("id".into(), Json::String(id.to_string()));
    m.insert("tenantId".into(), text("tenant_id")?);
    m.insert("account".into(), text("account")?);
    m.insert("name".into(), text("name")?);
    m.insert("realName".into(), text("real_name")?);
    m.insert("email".into(), text("email")?);
    m.insert("phone".into(), text("phone")?);
    m.insert(
        "birthday".into(),
        row.try_get::<Option<i64>, _>("birthday")?
            .map(|v| Json::String(time::format_ms(v)))
            .unwrap_or(Json::Null),
    );
    m.insert(
        "sex".into(),
        row.try_get::<Option<i64>, _>("sex")?
            .map(Json::from)
            .unwrap_or(Json::Null),
    );
    m.insert("postId".into(), text("post_id")?);
    m.insert("userType".into(), Json::from(row.try_get::<i64, _>("user_type")?));
    m.insert("status".into(), Json::from(row.try_get::<i64, _>("status")?));
    m.insert("companyName".into(), text("company_name")?);
    m.insert("avatar".into(), text("avatar")?);
    m.insert("code".into(), text("code")?);
    m.insert(
        "locked".into(),
        Json::Bool(locked_until.is_some_and(|t| t > time::now_ms())),
    );
    m.insert(
        "createTime".into(),
        Json::String(time::format_ms(row.try_get::<i64, _>("create_time")?)),
    );
    Ok(Json::Object(m))
}

/// Adds roleId/roleName/deptId/deptName/postName (comma-joined) to user rows, three queries in all.
async fn decorate(state: &Core, rows: &mut [Json]) -> Result<(), ApiError> {
    let ids: Vec<Id> = rows
        .iter()
        .filter_map(|r| {
            r.get("id")
                .and_then(Json::as_str)
                .and_then(|s| s.parse().ok())
                .map(Id)
        })
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    let joined = async |head: &str, tail: &str| -> Result<HashMap<i64, Vec<(i64, String)>>, ApiError> {
        let mut sql = Sql::new(head);
        sql.push_ids(&ids);
        sql.push(tail);
        let (text, args) = sql.build()?;
        let rows = sqlx::query_as_with::<Any, (i64, i64, String), _>(sqlx::AssertSqlSafe(text), args)
            .fetch_all(state.db.pool())
            .await?;
        let mut out: HashMap<i64, Vec<(i64, String)>> = HashMap::new();
        for (user, id, name) in rows {
            out.entry(user).or_default().push((id, name));
        }
        Ok(out)
    };
    let roles = joined(
        "SELECT ur.user_id, r.id, r.role_name FROM blade_user_role ur JOIN blade_role r ON r.id = ur.role_id \
         WHERE r.is_deleted = 0 AND ur.user_id IN (",
        ") ORDER BY r.sort, r.id",
    )
    .await?;
    let depts = joined(
        "SELECT ud.user_id, d.id, d.dept_name FROM blade_user_dept ud JOIN blade_dept d ON d.id = ud.dept_id \
         WHERE d.is_deleted = 0 AND ud.user_id IN (",
        ") ORDER BY d.sort, d.id",
    )
    .await?;
    let posts: HashMap<i64, String> = {
        let wanted: Vec<Id> = rows
            .iter()
            .filter_map(|r| r.get("postId").and_then(Json::as_str))
            .flat_map(|s| parse_id_list(s).unwrap_or_default())
            .collect();
        if wanted.is_empty() {
            HashMap::new()
        } else {
            let mut sql = Sql::new("SELECT id, post_name FROM blade_post WHERE is_deleted = 0 AND id IN (");
            sql.push_ids(&wanted);
            sql.push(")");
            let (text, args) = sql.build()?;
            sqlx::query_as_with::<Any, (i64, String), _>(sqlx::AssertSqlSafe(text), args)
                .fetch_all(state.db.pool())
                .await?
                .into_iter()
                .collect()
        }
    };
    let join = |items: Option<&Vec<(i64, String)>>, pick: fn(&(i64, String)) -> String| {
        Json::String(
            items
                .map(|v| v.iter().map(pick).collect::<Vec<_>>().join(","))
                .unwrap_or_default(),
        )
    };
    for row in rows.iter_mut() {
        let Json::Object(m) = row else { continue };
        let Some(id) = m
            .get("id")
            .and_then(Json::as_str)
            .and_then(|s| s.parse::<i64>().ok())
        else {
            continue;
        };
        m.insert("roleId".into(), join(roles.get(&id), |r| r.0.to_string()));
        m.insert("roleName".into(), join(roles.get(&id), |r| r.1.clone()));
        m.insert("deptId".into(), join(depts.get(&id), |d| d.0.to_string()));
        m.insert("deptName".into(), join(depts.get(&id), |d| d.1.clone()));
        let post_name = m
            .get("postId")
            .and_then(Json::as_str)
            .map(|s| {
                parse_id_list(s)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|p| posts.get(&p.0).cloned())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default();
        m.insert("postName".into(), Json::String(post_name));
    }
    Ok(())
}

async fn page_of(
    state: &Core,
    caller: &Caller,
    mut query: ListQuery,
    alias: Option<&str>,
) -> ApiResult<Data<Json>> {
    let mut from = visible_users(state, caller).await?;
    if let Some(dept) = query.take("deptId").filter(|d| !d.trim().is_empty()) {
        let dept: i64 = dept
            .trim()
            .parse()
            .map_err(|_| ApiError::bad_request("无效的部门ID", "invalid deptId"))?;
        // A department filter includes its sub-departments, as an organisation tree reads.
        from.push_bind(
            " AND EXISTS (SELECT 1 FROM blade_user_dept ud JOIN blade_dept d ON d.id = ud.dept_id \
             WHERE ud.user_id = blade_user.id AND d.is_deleted = 0 AND (d.id = ? OR ',' || d.ancestors || ',' LIKE ?))",
            [Value::Int(dept), Value::Text(format!("%,{dept},%"))],
        );
    }
    if let Some(role) = query.take("roleId").filter(|r| !r.trim().is_empty()) {
        let role: i64 = role
            .trim()
            .parse()
            .map_err(|_| ApiError::bad_request("无效的角色ID", "invalid roleId"))?;
        from.push_bind(
            " AND EXISTS (SELECT 1 FROM blade_user_role ur WHERE ur.user_id = blade_user.id AND ur.role_id = ?)",
            [Value::Int(role)],
        );
    }
    let alias = query
        .take("roleAlias")
        .filter(|a| !a.trim().is_empty())
        .or(alias.map(str::to_owned));
    if let Some(alias) = alias {
        from.append(&has_role_alias(alias.trim()));
    }
    let mut page = fetch_page_with(
        &state.db,
        COLUMNS,
        from,
        &query,
        FIELDS,
        "create_time DESC, id DESC",
        row_json,
    )
    .await?;
    decorate(state, &mut page.records).await?;
    Ok(Data(
        serde_json::to_value(page).map_err(|e| ApiError::Internal(e.to_string()))?,
    ))
}

/// Users of the caller's tenant, narrowed by data scopes (filters: account, realName, phone,
/// status, deptId incl. sub-departments, roleId, roleAlias).
#[utoipa::path(get, path = "/api/blade-user/page", tag = "user",
    params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("account" = Option<String>, Query),
           ("realName" = Option<String>, Query), ("deptId" = Option<String>, Query), ("roleId" = Option<String>, Query),
           ("roleAlias" = Option<String>, Query), ("status" = Option<i64>, Query)),
    responses((status = 200, body = Envelope<Json>), (status = 403)))]
pub async fn page(State(state): State<Core>, caller: Caller, query: ListQuery) -> ApiResult<Data<Json>> {
    require_any(&state, &caller, &["user", "personnel"]).await?;
    page_of(&state, &caller, query, None).await
}

/// Owners (users holding role `owner`).
#[utoipa::path(get, path = "/api/blade-user/pageOwner", tag = "user",
    params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("account" = Option<String>, Query),
           ("realName" = Option<String>, Query), ("companyName" = Option<String>, Query)),
    responses((status = 200, body = Envelope<Json>), (status = 403)))]
pub async fn page_owner(
    State(state): State<Core>,
    caller: Caller,
    query: ListQuery,
) -> ApiResult<Data<Json>> {
    require_any(&state, &caller, &["owner", "user"]).await?;
    page_of(&state, &caller, query, Some(OWNER_ROLE)).await
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StaffMember {
    pub id: Id,
    pub account: String,
    pub real_name: Option<String>,
    pub phone: Option<String>,
    /// Names of all the member's roles, comma-joined.
    pub role_name: String,
}

/// Active maintenance staff of the tenant (role `maintenance`), for assigning work.
#[utoipa::path(get, path = "/api/blade-user/listMaintenance", tag = "user",
    responses((status = 200, body = Envelope<Vec<StaffMember>>), (status = 401)))]
pub async fn list_maintenance(
    State(state): State<Core>,
    caller: Caller,
) -> ApiResult<Data<Vec<StaffMember>>> {
    let mut sql = Sql::new(
        "SELECT id, account, real_name, phone FROM blade_user WHERE is_deleted = 0 AND status = 1 AND ",
    );
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.append(&has_role_alias(MAINTENANCE_ROLE));
    sql.push(" ORDER BY real_name, id");
    let (text, args) = sql.build()?;
    let rows = sqlx::query_as_with::<Any, (i64, String, Option<String>, Option<String>), _>(
        sqlx::AssertSqlSafe(text),
        args,
    )
    .fetch_all(state.db.pool())
    .await?;
    let mut staff: Vec<Json> = rows
        .iter()
        .map(|(id, ..)| serde_json::json!({"id": id.to_string()}))
        .collect();
    decorate(&state, &mut staff).await?;
    Ok(Data(
        rows.into_iter()
            .zip(staff)
            .map(|((id, account, real_name, phone), decorated)| StaffMember {
                id: Id(id),
                account,
                real_name,
                phone,
                role_name: decorated["roleName"].as_str().unwrap_or_default().to_owned(),
            })
            .collect(),
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct IdParam {
    pub id: Id,
}

async fn find_json(state: &Core, caller: &Caller, id: Id) -> Result<Option<Json>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS}"));
    sql.append(&visible_users(state, caller).await?);
    sql.push_bind(" AND id = ?", [id.into()]);
    let (text, args) = sql.build()?;
    let row = sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_optional(state.db.pool())
        .await?;
    let Some(row) = row else { return Ok(None) };
    let mut rows = [row_json(&row)?];
    decorate(state, &mut rows).await?;
    let [row] = rows;
    Ok(Some(row))
}

/// One user with role, department and post names.
#[utoipa::path(get, path = "/api/blade-user/detail", tag = "user", params(IdParam),
    responses((status = 200, body = Envelope<Json>), (status = 404)))]
pub async fn detail(
    State(state): State<Core>,
    caller: Caller,
    Query(p): Query<IdParam>,
) -> ApiResult<Data<Json>> {
    require_any(&state, &caller, &["user", "personnel", "owner"]).await?;
    find_json(&state, &caller, p.id)
        .await?
        .map(Data)
        .ok_or_else(ApiError::not_found)
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlatformDetail {
    pub user_id: Id,
    pub user_type: i64,
    pub user_ext: Option<String>,
}

/// A user's per-platform settings (type and extension data).
#[utoipa::path(get, path = "/api/blade-user/platform-detail", tag = "user", params(IdParam),
    responses((status = 200, body = Envelope<PlatformDetail>), (status = 404)))]
pub async fn platform_detail(
    State(state): State<Core>,
    caller: Caller,
    Query(p): Query<IdParam>,
) -> ApiResult<Data<PlatformDetail>> {
    require_any(&state, &caller, &["user_platform", "user"]).await?;
    let user = find_json(&state, &caller, p.id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT user_type, user_ext FROM blade_user_platform WHERE user_id = ?",
        [p.id.into()],
    );
    let (text, args) = sql.build()?;
    let row = sqlx::query_as_with::<Any, (i64, Option<String>), _>(sqlx::AssertSqlSafe(text), args)
        .fetch_optional(state.db.pool())
        .await?;
    let (user_type, user_ext) =
        row.unwrap_or((user.get("userType").and_then(Json::as_i64).unwrap_or(1), None));
    Ok(Data(PlatformDetail {
        user_id: p.id,
        user_type,
        user_ext,
    }))
}

/// Sets a user's per-platform settings (permission `user_platform`).
#[utoipa::path(post, path = "/api/blade-user/update-platform", tag = "user", request_body = PlatformDetail,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 404)))]
pub async fn update_platform(
    State(state): State<Core>,
    caller: Caller,
    JsonBody(p): JsonBody<PlatformDetail>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, "user_platform").await?;
    if !(1..=3).contains(&p.user_type) {
        return Err(ApiError::bad_request(
            "用户平台只能是 1 (web)、2 (app) 或 3 (其他)",
            "userType is 1 (web), 2 (app) or 3 (other)",
        ));
    }
    if visible_ids(&state, &caller, &[p.user_id]).await?.is_empty() {
        return Err(ApiError::not_found());
    }
    let mut tx = state.db.pool().begin().await?;
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM blade_user_platform WHERE user_id = ?",
        [p.user_id.into()],
    );
    exec_on(&mut tx, del).await?;
    let mut ins = Sql::default();
    ins.push_bind(
        "INSERT INTO blade_user_platform (user_id, tenant_id, user_type, user_ext) VALUES (?, ?, ?, ?)",
        [
            p.user_id.into(),
            caller.tenant_id.clone().into(),
            Value::Int(p.user_type),
            p.user_ext.into(),
        ],
    );
    exec_on(&mut tx, ins).await?;
    let mut upd = Sql::default();
    upd.push_bind(
        "UPDATE blade_user SET user_type = ? WHERE id = ?",
        [Value::Int(p.user_type), p.user_id.into()],
    );
    exec_on(&mut tx, upd).await?;
    tx.commit().await?;
    Ok(Data(true))
}

/// Checks that every id names a live row of `table` in the caller's tenant.
async fn check_owned(
    state: &Core,
    caller: &Caller,
    table: &str,
    ids: &[Id],
    missing: Text,
) -> Result<(), ApiError> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut unique = ids.to_vec();
    unique.sort_by_key(|i| i.0);
    unique.dedup();
    let mut sql = Sql::new(&format!("SELECT COUNT(*) FROM {table} WHERE is_deleted = 0 AND "));
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push(" AND id IN (");
    sql.push_ids(&unique);
    sql.push(")");
    if scalar(state, sql).await? != unique.len() as i64 {
        return Err(ApiError::BadRequest(missing));
    }
    Ok(())
}

/// The profile fields common to create and update, validated.
struct Profile {
    account: Option<String>,
    real_name: Option<String>,
    name: Option<String>,
    phone: Option<String>,
    email: Option<String>,
    code: Option<String>,
    company_name: Option<String>,
    avatar: Option<String>,
    sex: Option<i64>,
    birthday: Option<i64>,
    user_type: Option<i64>,
    roles: Option<Vec<Id>>,
    depts: Option<Vec<Id>>,
    posts: Option<Vec<Id>>,
}

fn read_profile(body: &Map<String, Json>) -> Result<Profile, ApiError> {
    let account = text_of(body, "account", 45)?;
    if let Some(a) = &account
        && !valid_account(a)
    {
        return Err(ApiError::BadRequest(ACCOUNT_BAD));
    }
    let phone = text_of(body, "phone", 45)?;
    if let Some(p) = &phone
        && !valid_phone(p)
    {
        return Err(ApiError::BadRequest(PHONE_BAD));
    }
    let email = text_of(body, "email", 45)?;
    if let Some(e) = &email
        && !valid_email(e)
    {
        return Err(ApiError::BadRequest(EMAIL_BAD));
    }
    let birthday = match text_of(body, "birthday", 32)? {
        None => None,
        Some(s) => Some(
            time::parse_ms(&s)
                .or_else(|| time::parse_ms(&format!("{s} 00:00:00")))
                .ok_or_else(|| ApiError::bad_request("生日格式错误", "invalid birthday"))?,
        ),
    };
    let sex = int_of(body, "sex")?;
    if sex.is_some_and(|s| !(1..=3).contains(&s)) {
        return Err(ApiError::bad_request("性别无效", "invalid sex"));
    }
    let present = |k: &str| body.get(k).is_some();
    Ok(Profile {
        account,
        real_name: text_of(body, "realName", 20)?,
        name: text_of(body, "name", 20)?,
        phone,
        email,
        code: text_of(body, "code", 12)?,
        company_name: text_of(body, "companyName", 100)?,
        avatar: text_of(body, "avatar", 1000)?,
        sex,
        birthday,
        user_type: int_of(body, "userType")?,
        roles: present("roleId").then(|| ids_of(body, "roleId")).transpose()?,
        depts: present("deptId").then(|| ids_of(body, "deptId")).transpose()?,
        posts: present("postId").then(|| ids_of(body, "postId")).transpose()?,
    })
}

async fn check_refs(state: &Core, caller: &Caller, p: &Profile) -> Result<(), ApiError> {
    check_owned(
        state,
        caller,
        "blade_role",
        p.roles.as_deref().unwrap_or(&[]),
        NO_SUCH_ROLE,
    )
    .await?;
    check_owned(
        state,
        caller,
        "blade_dept",
        p.depts.as_deref().unwrap_or(&[]),
        NO_SUCH_DEPT,
    )
    .await?;
    check_owned(
        state,
        caller,
        "blade_post",
        p.posts.as_deref().unwrap_or(&[]),
        NO_SUCH_POST,
    )
    .await
}

async fn check_quota(state: &Core, caller: &Caller) -> Result<(), ApiError> {
    let mut sql = Sql::new("SELECT account_number FROM blade_tenant WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    let limit = scalar(state, sql).await.unwrap_or(-1);
    if limit < 0 {
        return Ok(());
    }
    let mut sql = Sql::new("SELECT COUNT(*) FROM blade_user WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    if scalar(state, sql).await? >= limit {
        return Err(ApiError::BadRequest(QUOTA));
    }
    Ok(())
}

async fn account_taken(
    state: &Core,
    caller: &Caller,
    account: &str,
    except: Option<Id>,
) -> Result<bool, ApiError> {
    let mut sql = Sql::new("SELECT COUNT(*) FROM blade_user WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push_bind(" AND account = ?", [account.into()]);
    if let Some(own) = except {
        sql.push_bind(" AND id <> ?", [own.into()]);
    }
    Ok(scalar(state, sql).await? > 0)
}

fn unique_violation(e: &ApiError) -> bool {
    matches!(e, ApiError::Database(e) if e.as_database_error().is_some_and(|d| d.is_unique_violation()))
}

/// Inserts a user with its links in one transaction.
async fn insert_user(
    state: &Core,
    caller: &Caller,
    p: &Profile,
    phc: String,
    status: i64,
) -> Result<Id, ApiError> {
    let id = state.ids.next();
    let now = Value::Int(time::now_ms());
    let posts = p
        .posts
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|i| i.0.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let mut tx = state.db.pool().begin().await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_user (id, tenant_id, code, user_type, account, password, name, real_name, avatar, email, \
         phone, birthday, sex, post_id, company_name, create_user, create_dept, create_time, status) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            id.into(),
            caller.tenant_id.clone().into(),
            p.code.clone().into(),
            Value::Int(p.user_type.unwrap_or(1)),
            p.account.clone().into(),
            phc.into(),
            p.name.clone().or(p.real_name.clone()).into(),
            p.real_name.clone().into(),
            p.avatar.clone().into(),
            p.email.clone().into(),
            p.phone.clone().into(),
            p.birthday.map(Value::Int).unwrap_or(Value::Null),
            p.sex.map(Value::Int).unwrap_or(Value::Null),
            Value::Text(posts),
            p.company_name.clone().into(),
            caller.user_id.into(),
            caller.dept_id.map(Value::from).unwrap_or(Value::Null),
            now,
            Value::Int(status),
        ],
    );
    exec_on(&mut tx, sql).await?;
    link(&mut tx, id, p.roles.as_deref(), p.depts.as_deref()).await?;
    tx.commit().await?;
    Ok(id)
}

/// Replaces a user's roles and/or departments (each only when given).
async fn link(
    tx: &mut sqlx::AnyConnection,
    user: Id,
    roles: Option<&[Id]>,
    depts: Option<&[Id]>,
) -> Result<(), ApiError> {
    for (table, column, ids) in [
        ("blade_user_role", "role_id", roles),
        ("blade_user_dept", "dept_id", depts),
    ] {
        let Some(ids) = ids else { continue };
        let mut del = Sql::default();
        del.push_bind(&format!("DELETE FROM {table} WHERE user_id = ?"), [user.into()]);
        exec_on(tx, del).await?;
        let mut unique = ids.to_vec();
        unique.sort_by_key(|i| i.0);
        unique.dedup();
        for id in unique {
            let mut ins = Sql::default();
            ins.push_bind(
                &format!("INSERT INTO {table} (user_id, {column}) VALUES (?, ?)"),
                [user.into(), id.into()],
            );
            exec_on(tx, ins).await?;
        }
    }
    Ok(())
}

/// Updates the profile fields present in the body; roles/depts replaced when given.
async fn update_user(
    state: &Core,
    caller: &Caller,
    id: Id,
    body: &Map<String, Json>,
    p: &Profile,
) -> Result<(), ApiError> {
    let mut sets = Sql::new("UPDATE blade_user SET ");
    let mut set = |col: &str, key: &str, v: Value| {
        if body.contains_key(key) {
            sets.push_bind(&format!("{col} = ?, "), [v]);
        }
    };
    set("account", "account", p.account.clone().into());
    set("real_name", "realName", p.real_name.clone().into());
    set("name", "name", p.name.clone().into());
    set("phone", "phone", p.phone.clone().into());
    set("email", "email", p.email.clone().into());
    set("code", "code", p.code.clone().into());
    set("company_name", "companyName", p.company_name.clone().into());
    set("avatar", "avatar", p.avatar.clone().into());
    set("sex", "sex", p.sex.map(Value::Int).unwrap_or(Value::Null));
    set(
        "birthday",
        "birthday",
        p.birthday.map(Value::Int).unwrap_or(Value::Null),
    );
    if let Some(t) = p.user_type {
        set("user_type", "userType", Value::Int(t));
    }
    if let Some(posts) = &p.posts {
        let joined = posts
            .iter()
            .map(|i| i.0.to_string())
            .collect::<Vec<_>>()
            .join(",");
        set("post_id", "postId", Value::Text(joined));
    }
    sets.push_bind(
        "update_user = ?, update_time = ? WHERE is_deleted = 0 AND id = ?",
        [caller.user_id.into(), Value::Int(time::now_ms()), id.into()],
    );
    let mut tx = state.db.pool().begin().await?;
    exec_on(&mut tx, sets).await?;
    link(&mut tx, id, p.roles.as_deref(), p.depts.as_deref()).await?;
    tx.commit().await?;
    if p.roles.is_some() {
        session::revoke_user(&state.db, id, Some(caller.session_id)).await?;
    }
    Ok(())
}

fn body_object(body: Json) -> Result<Map<String, Json>, ApiError> {
    match body {
        Json::Object(m) => Ok(m),
        _ => Err(ApiError::bad_request(
            "请求内容必须是对象",
            "the request body must be a JSON object",
        )),
    }
}

fn body_id(body: &Map<String, Json>) -> Result<Option<Id>, ApiError> {
    match body.get("id") {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Json::String(s)) => s
            .trim()
            .parse()
            .map(|i| Some(Id(i)))
            .map_err(|_| ApiError::not_found()),
        Some(Json::Number(n)) => n.as_i64().map(|i| Some(Id(i))).ok_or_else(ApiError::not_found),
        Some(_) => Err(ApiError::not_found()),
    }
}

/// Creates a user (no `id`; password and password2 in plain text) or updates one (with `id`;
/// the password is not changed here).
#[utoipa::path(post, path = "/api/blade-user/submit", tag = "user", request_body = Json,
    responses((status = 200, body = Envelope<String>), (status = 400), (status = 403)))]
pub async fn submit(
    State(state): State<Core>,
    caller: Caller,
    JsonBody(body): JsonBody<Json>,
) -> ApiResult<Data<String>> {
    let body = body_object(body)?;
    match body_id(&body)? {
        Some(id) => {
            require_any(&state, &caller, &["user_edit", "personnel_edit"]).await?;
            save_update(&state, &caller, id, &body).await
        }
        None => {
            require_any(&state, &caller, &["user_add", "personnel_add"]).await?;
            let p = read_profile(&body)?;
            let account = p.account.as_deref().ok_or(ApiError::BadRequest(ACCOUNT_EMPTY))?;
            let pw = text_of(&body, "password", 64)?.ok_or(ApiError::BadRequest(PASSWORD_EMPTY))?;
            let pw2 = text_of(&body, "password2", 64)?.ok_or(ApiError::BadRequest(PASSWORD_EMPTY))?;
            if pw != pw2 {
                return Err(ApiError::BadRequest(PASSWORD_MISMATCH));
            }
            if p.real_name.is_none() {
                return Err(ApiError::BadRequest(REAL_NAME_EMPTY));
            }
            if p.roles.as_ref().is_none_or(Vec::is_empty) {
                return Err(ApiError::BadRequest(ROLE_EMPTY));
            }
            if p.depts.as_ref().is_none_or(Vec::is_empty) {
                return Err(ApiError::BadRequest(DEPT_EMPTY));
            }
            check_refs(&state, &caller, &p).await?;
            if account_taken(&state, &caller, account, None).await? {
                return Err(ApiError::BadRequest(ACCOUNT_TAKEN));
            }
            check_quota(&state, &caller).await?;
            let phc = password_hash_of(&pw).await?;
            match insert_user(&state, &caller, &p, phc, STATUS_ACTIVE).await {
                Err(e) if unique_violation(&e) => Err(ApiError::BadRequest(ACCOUNT_TAKEN)),
                other => other.map(|id| Data(id.to_string())),
            }
        }
    }
}

async fn save_update(
    state: &Core,
    caller: &Caller,
    id: Id,
    body: &Map<String, Json>,
) -> ApiResult<Data<String>> {
    if visible_ids(state, caller, &[id]).await?.is_empty() {
        return Err(ApiError::not_found());
    }
    let p = read_profile(body)?;
    if body.contains_key("account") {
        let account = p.account.as_deref().ok_or(ApiError::BadRequest(ACCOUNT_EMPTY))?;
        if account_taken(state, caller, account, Some(id)).await? {
            return Err(ApiError::BadRequest(ACCOUNT_TAKEN));
        }
    }
    if body.contains_key("realName") && p.real_name.is_none() {
        return Err(ApiError::BadRequest(REAL_NAME_EMPTY));
    }
    if p.roles.as_ref().is_some_and(Vec::is_empty) {
        return Err(ApiError::BadRequest(ROLE_EMPTY));
    }
    if p.depts.as_ref().is_some_and(Vec::is_empty) {
        return Err(ApiError::BadRequest(DEPT_EMPTY));
    }
    check_refs(state, caller, &p).await?;
    match update_user(state, caller, id, body, &p).await {
        Err(e) if unique_violation(&e) => Err(ApiError::BadRequest(ACCOUNT_TAKEN)),
        other => other.map(|_| Data(id.to_string())),
    }
}

/// Updates a user (the password is not changed here).
#[utoipa::path(post, path = "/api/blade-user/update", tag = "user", request_body = Json,
    responses((status = 200, body = Envelope<String>), (status = 400), (status = 404)))]
pub async fn update(
    State(state): State<Core>,
    caller: Caller,
    JsonBody(body): JsonBody<Json>,
) -> ApiResult<Data<String>> {
    require_any(&state, &caller, &["user_edit", "personnel_edit"]).await?;
    let body = body_object(body)?;
    let id = body_id(&body)?.ok_or_else(ApiError::not_found)?;
    save_update(&state, &caller, id, &body).await
}

/// The tenant's role with `alias`, created when missing (owners need one to exist).
async fn ensure_role(state: &Core, caller: &Caller, alias: &str, zh_name: &str) -> Result<Id, ApiError> {
    let mut sql = Sql::new("SELECT id FROM blade_role WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push_bind(" AND role_alias = ? ORDER BY sort, id", [alias.into()]);
    if let Some(id) = id_list(state, sql).await?.into_iter().next() {
        return Ok(id);
    }
    let id = state.ids.next();
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_role (id, tenant_id, parent_id, role_name, role_alias, sort) VALUES (?, ?, 0, ?, ?, 99)",
        [id.into(), caller.tenant_id.clone().into(), zh_name.into(), alias.into()],
    );
    exec(state, sql).await?;
    Ok(id)
}

/// The department new owners join: the caller's own, else the tenant's first root department.
async fn default_dept(state: &Core, caller: &Caller) -> Result<Option<Id>, ApiError> {
    if let Some(d) = caller.dept_id {
        return Ok(Some(d));
    }
    let mut sql = Sql::new("SELECT id FROM blade_dept WHERE is_deleted = 0 AND parent_id = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push(" ORDER BY sort, id");
    Ok(id_list(state, sql).await?.into_iter().next())
}

/// Creates (no `id`) or updates an owner: company, account, name, phone, avatar and a plain
/// password longer than 6 characters (required on create, optional on update).
#[utoipa::path(post, path = "/api/blade-user/saveOwner", tag = "user", request_body = Json,
    responses((status = 200, body = Envelope<String>), (status = 400), (status = 403)))]
pub async fn save_owner(
    State(state): State<Core>,
    caller: Caller,
    JsonBody(body): JsonBody<Json>,
) -> ApiResult<Data<String>> {
    let body = body_object(body)?;
    let id = body_id(&body)?;
    let action = if id.is_some() { "edit" } else { "add" };
    require_any(
        &state,
        &caller,
        &[&format!("owner_{action}"), &format!("user_{action}")],
    )
    .await?;
    let mut p = read_profile(&body)?;
    // Owners get the owner role and a department here; the form does not pick them.
    p.roles = None;
    p.depts = None;
    let password = text_of(&body, "password", 64)?;
    if let Some(pw) = &password
        && pw.chars().count() <= 6
    {
        return Err(ApiError::BadRequest(OWNER_PASSWORD_SHORT));
    }
    match id {
        None => {
            let account = p.account.as_deref().ok_or(ApiError::BadRequest(ACCOUNT_EMPTY))?;
            let pw = password.ok_or(ApiError::BadRequest(PASSWORD_EMPTY))?;
            if p.phone.is_none() {
                return Err(ApiError::BadRequest(PHONE_EMPTY));
            }
            if account_taken(&state, &caller, account, None).await? {
                return Err(ApiError::BadRequest(ACCOUNT_TAKEN));
            }
            check_quota(&state, &caller).await?;
            let role = ensure_role(&state, &caller, OWNER_ROLE, "业主").await?;
            p.roles = Some(vec![role]);
            p.depts = default_dept(&state, &caller).await?.map(|d| vec![d]);
            if p.real_name.is_none() {
                p.real_name = p.company_name.clone().or(p.account.clone());
            }
            let phc = password_hash_of(&pw).await?;
            match insert_user(&state, &caller, &p, phc, STATUS_ACTIVE).await {
                Err(e) if unique_violation(&e) => Err(ApiError::BadRequest(ACCOUNT_TAKEN)),
                other => other.map(|id| Data(id.to_string())),
            }
        }
        Some(id) => {
            // Only owners are edited through the owner screen.
            let mut sql = Sql::new("SELECT id");
            sql.append(&visible_users(&state, &caller).await?);
            sql.push_bind(" AND id = ?", [id.into()]);
            sql.append(&has_role_alias(OWNER_ROLE));
            if id_list(&state, sql).await?.is_empty() {
                return Err(ApiError::not_found());
            }
            if body.contains_key("phone") && p.phone.is_none() {
                return Err(ApiError::BadRequest(PHONE_EMPTY));
            }
            save_update(&state, &caller, id, &body).await?;
            if let Some(pw) = password {
                let phc = password_hash_of(&pw).await?;
                super::store::set_password(&state.db, &caller.tenant_id, id, &phc, caller.user_id).await?;
                session::revoke_user(&state.db, id, Some(caller.session_id)).await?;
            }
            Ok(Data(id.to_string()))
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct IdsParam {
    /// Comma-joined ids.
    pub ids: String,
}

/// Removes users (never the caller); their sessions end at once.
#[utoipa::path(post, path = "/api/blade-user/remove", tag = "user", params(IdsParam),
    responses((status = 200, body = Envelope<u64>), (status = 400), (status = 403)))]
pub async fn remove(
    State(state): State<Core>,
    caller: Caller,
    Query(p): Query<IdsParam>,
) -> ApiResult<Data<u64>> {
    require_any(
        &state,
        &caller,
        &["user_delete", "personnel_delete", "owner_delete"],
    )
    .await?;
    let ids = ids_param(&p.ids)?;
    if ids.contains(&caller.user_id) {
        return Err(ApiError::BadRequest(NOT_SELF));
    }
    let ids = visible_ids(&state, &caller, &ids).await?;
    if ids.is_empty() {
        return Ok(Data(0));
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_user SET is_deleted = 1, update_user = ?, update_time = ? WHERE id IN (",
        [caller.user_id.into(), Value::Int(time::now_ms())],
    );
    sql.push_ids(&ids);
    sql.push(")");
    let n = exec(&state, sql).await?;
    for id in ids {
        session::revoke_user(&state.db, id, None).await?;
    }
    Ok(Data(n))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct UserIdsParam {
    /// Comma-joined user ids.
    pub user_ids: String,
}

const RESET_DONE: Text = Text::new("重置密码成功", "Password reset");

/// Resets passwords to the initial password (parameter `account.initPassword`, else the
/// configured one), clears lock-outs and ends the users' sessions.
#[utoipa::path(post, path = "/api/blade-user/reset-password", tag = "user", params(UserIdsParam),
    responses((status = 200, body = Envelope<String>), (status = 400), (status = 403)))]
pub async fn reset_password(
    State(state): State<Core>,
    caller: Caller,
    Query(p): Query<UserIdsParam>,
) -> ApiResult<Data<String>> {
    require_any(&state, &caller, &["user_reset", "personnel_reset"]).await?;
    let ids = visible_ids(&state, &caller, &ids_param(&p.user_ids)?).await?;
    let phc = password_hash_of(&initial_password(&state).await?).await?;
    for id in &ids {
        super::store::set_password(&state.db, &caller.tenant_id, *id, &phc, caller.user_id).await?;
        session::revoke_user(&state.db, *id, Some(caller.session_id)).await?;
    }
    super::store::unlock(&state.db, &caller.tenant_id, &ids).await?;
    let list = ids.iter().map(|i| i.0.to_string()).collect::<Vec<_>>().join(",");
    audit(&state, &caller, "password_reset", &format!("users {list}")).await;
    Ok(Data(RESET_DONE.render()))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct GrantParams {
    /// Comma-joined user ids.
    pub user_ids: String,
    /// Comma-joined role ids (the users' complete new role set).
    pub role_ids: String,
}

/// Replaces the roles of users; their sessions end so the new roles apply at once.
#[utoipa::path(post, path = "/api/blade-user/grant", tag = "user", params(GrantParams),
    responses((status = 200, body = Envelope<u64>), (status = 400), (status = 403)))]
pub async fn grant(
    State(state): State<Core>,
    caller: Caller,
    Query(p): Query<GrantParams>,
) -> ApiResult<Data<u64>> {
    require_any(&state, &caller, &["user_role", "personnel_role"]).await?;
    let users = visible_ids(&state, &caller, &ids_param(&p.user_ids)?).await?;
    let roles = parse_id_list(&p.role_ids)
        .map_err(|e| ApiError::bad_request(format!("无效的ID：{}", e.0), e.to_string()))?;
    if roles.is_empty() {
        return Err(ApiError::BadRequest(ROLE_EMPTY));
    }
    check_owned(&state, &caller, "blade_role", &roles, NO_SUCH_ROLE).await?;
    let mut tx = state.db.pool().begin().await?;
    for user in &users {
        link(&mut tx, *user, Some(&roles), None).await?;
    }
    tx.commit().await?;
    for user in &users {
        session::revoke_user(&state.db, *user, Some(caller.session_id)).await?;
    }
    let list = |ids: &[Id]| ids.iter().map(|i| i.0.to_string()).collect::<Vec<_>>().join(",");
    audit(
        &state,
        &caller,
        "user_grant",
        &format!("users {} now hold roles {}", list(&users), list(&roles)),
    )
    .await;
    Ok(Data(users.len() as u64))
}

/// Approves pending guest registrations: they become active and, when they hold no role, get
/// the tenant's `user` role.
#[utoipa::path(post, path = "/api/blade-user/audit-pass", tag = "user", params(UserIdsParam),
    responses((status = 200, body = Envelope<u64>), (status = 400), (status = 403)))]
pub async fn audit_pass(
    State(state): State<Core>,
    caller: Caller,
    Query(p): Query<UserIdsParam>,
) -> ApiResult<Data<u64>> {
    require_any(&state, &caller, &["user_edit", "personnel_edit"]).await?;
    let ids = pending(&state, &caller, &ids_param(&p.user_ids)?).await?;
    if ids.is_empty() {
        return Ok(Data(0));
    }
    let role = ensure_role(&state, &caller, DEFAULT_ROLE, "普通用户").await?;
    let dept = default_dept(&state, &caller).await?;
    let mut tx = state.db.pool().begin().await?;
    for id in &ids {
        let mut sql = Sql::default();
        sql.push_bind(
            "UPDATE blade_user SET status = ?, update_user = ?, update_time = ? WHERE id = ?",
            [
                Value::Int(STATUS_ACTIVE),
                caller.user_id.into(),
                Value::Int(time::now_ms()),
                (*id).into(),
            ],
        );
        exec_on(&mut tx, sql).await?;
        let mut has = Sql::default();
        has.push_bind(
            "SELECT COUNT(*) FROM blade_user_role WHERE user_id = ?",
            [(*id).into()],
        );
        let (text, args) = has.build()?;
        let n: i64 = sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_one(&mut *tx)
            .await?;
        if n == 0 {
            link(
                &mut tx,
                *id,
                Some(&[role]),
                dept.as_ref().map(std::slice::from_ref),
            )
            .await?;
        }
    }
    tx.commit().await?;
    Ok(Data(ids.len() as u64))
}

/// Refuses pending guest registrations (they are removed; active users are left alone).
#[utoipa::path(post, path = "/api/blade-user/audit-refuse", tag = "user", params(UserIdsParam),
    responses((status = 200, body = Envelope<u64>), (status = 400), (status = 403)))]
pub async fn audit_refuse(
    State(state): State<Core>,
    caller: Caller,
    Query(p): Query<UserIdsParam>,
) -> ApiResult<Data<u64>> {
    require_any(&state, &caller, &["user_edit", "personnel_edit"]).await?;
    let ids = pending(&state, &caller, &ids_param(&p.user_ids)?).await?;
    if ids.is_empty() {
        return Ok(Data(0));
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_user SET is_deleted = 1, update_user = ?, update_time = ? WHERE id IN (",
        [caller.user_id.into(), Value::Int(time::now_ms())],
    );
    sql.push_ids(&ids);
    sql.push(")");
    Ok(Data(exec(&state, sql).await?))
}

async fn pending(state: &Core, caller: &Caller, ids: &[Id]) -> Result<Vec<Id>, ApiError> {
    let mut sql = Sql::new("SELECT id");
    sql.append(&visible_users(state, caller).await?);
    sql.push_bind(" AND status = ? AND id IN (", [Value::Int(STATUS_PENDING)]);
    sql.push_ids(ids);
    sql.push(")");
    id_list(state, sql).await
}

/// A usual-log line for an administrative act on accounts.
async fn audit(state: &Core, caller: &Caller, id: &str, data: &str) {
    crate::log::usual::record_event(
        state,
        crate::log::usual::Event {
            tenant: &caller.tenant_id,
            account: Some(&caller.account),
            level: crate::log::usual::INFO,
            id,
            data,
            request_uri: None,
        },
    )
    .await;
}
