//! Reading and writing users, always within one tenant.

use sqlx::Any;

use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id, time};

pub const STATUS_ACTIVE: i64 = 1;
pub const STATUS_PENDING: i64 = 2;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct UserRow {
    pub id: Id,
    pub tenant_id: String,
    pub account: String,
    pub password: String,
    pub name: Option<String>,
    pub real_name: Option<String>,
    pub avatar: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub post_id: String,
    pub oauth_id: Option<String>,
    pub fail_count: i64,
    pub locked_until: Option<i64>,
    pub status: i64,
}

const COLUMNS: &str = "id, tenant_id, account, password, name, real_name, avatar, email, phone, post_id, \
                       oauth_id, fail_count, locked_until, status";

async fn one(db: &Db, sql: Sql) -> Result<Option<UserRow>, ApiError> {
    let (text, args) = sql.build()?;
    Ok(
        sqlx::query_as_with::<Any, UserRow, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_optional(db.pool())
            .await?,
    )
}

async fn exec(db: &Db, sql: Sql) -> Result<u64, ApiError> {
    let (text, args) = sql.build()?;
    Ok(sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .execute(db.pool())
        .await?
        .rows_affected())
}

pub async fn find_by_account(db: &Db, tenant_id: &str, account: &str) -> Result<Option<UserRow>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_user"));
    sql.push_bind(
        " WHERE tenant_id = ? AND account = ? AND is_deleted = 0",
        [tenant_id.into(), account.into()],
    );
    one(db, sql).await
}

pub async fn find(db: &Db, tenant_id: &str, id: Id) -> Result<Option<UserRow>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_user"));
    sql.push_bind(
        " WHERE tenant_id = ? AND id = ? AND is_deleted = 0",
        [tenant_id.into(), id.into()],
    );
    one(db, sql).await
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RoleRef {
    pub id: Id,
    pub role_alias: String,
    pub role_name: String,
}

/// The user's live roles, in role order.
pub async fn roles(db: &Db, user_id: Id) -> Result<Vec<RoleRef>, ApiError> {
    let mut sql = Sql::new(
        "SELECT r.id, r.role_alias, r.role_name FROM blade_role r JOIN blade_user_role ur ON ur.role_id = r.id",
    );
    sql.push_bind(
        " WHERE ur.user_id = ? AND r.is_deleted = 0 ORDER BY r.sort, r.id",
        [user_id.into()],
    );
    let (text, args) = sql.build()?;
    Ok(
        sqlx::query_as_with::<Any, RoleRef, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_all(db.pool())
            .await?,
    )
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DeptRef {
    pub id: Id,
    pub dept_name: String,
}

pub async fn depts(db: &Db, user_id: Id) -> Result<Vec<DeptRef>, ApiError> {
    let mut sql =
        Sql::new("SELECT d.id, d.dept_name FROM blade_dept d JOIN blade_user_dept ud ON ud.dept_id = d.id");
    sql.push_bind(
        " WHERE ud.user_id = ? AND d.is_deleted = 0 ORDER BY d.sort, d.id",
        [user_id.into()],
    );
    let (text, args) = sql.build()?;
    Ok(
        sqlx::query_as_with::<Any, DeptRef, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_all(db.pool())
            .await?,
    )
}

/// Counts a wrong password; the `attempts`-th in a row locks the account for `minutes`.
/// Returns whether this failure locked it. One statement, so concurrent failures all count.
pub async fn record_failure(db: &Db, id: Id, attempts: i64, minutes: i64) -> Result<bool, ApiError> {
    let now = time::now_ms();
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_user SET fail_count = fail_count + 1, \
         locked_until = CASE WHEN fail_count + 1 >= ? THEN ? ELSE locked_until END WHERE id = ?",
        [
            Value::Int(attempts),
            Value::Int(now + minutes * 60_000),
            id.into(),
        ],
    );
    exec(db, sql).await?;
    let mut check = Sql::default();
    check.push_bind("SELECT fail_count FROM blade_user WHERE id = ?", [id.into()]);
    let (text, args) = check.build()?;
    let count: i64 = sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
        .fetch_one(db.pool())
        .await?;
    if count >= attempts {
        let mut reset = Sql::default();
        reset.push_bind("UPDATE blade_user SET fail_count = 0 WHERE id = ?", [id.into()]);
        exec(db, reset).await?;
        return Ok(true);
    }
    Ok(false)
}

pub async fn record_success(db: &Db, id: Id) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_user SET fail_count = 0, locked_until = NULL WHERE id = ?",
        [id.into()],
    );
    exec(db, sql).await.map(|_| ())
}

pub async fn set_password(db: &Db, tenant_id: &str, id: Id, phc: &str, by: Id) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_user SET password = ?, update_user = ?, update_time = ? WHERE tenant_id = ? AND id = ?",
        [
            phc.into(),
            by.into(),
            Value::Int(time::now_ms()),
            tenant_id.into(),
            id.into(),
        ],
    );
    exec(db, sql).await.map(|_| ())
}

/// Clears lock-outs of the given users in a tenant; returns how many were changed.
pub async fn unlock(db: &Db, tenant_id: &str, ids: &[Id]) -> Result<u64, ApiError> {
    if ids.is_empty() {
        return Ok(0);
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_user SET fail_count = 0, locked_until = NULL WHERE tenant_id = ?",
        [tenant_id.into()],
    );
    sql.push(" AND id IN (");
    sql.push_ids(ids);
    sql.push(")");
    exec(db, sql).await
}

pub struct NewUser<'a> {
    pub id: Id,
    pub tenant_id: &'a str,
    pub account: &'a str,
    pub password_phc: &'a str,
    pub name: &'a str,
    pub real_name: &'a str,
    pub oauth_id: Option<String>,
    pub status: i64,
}

pub async fn insert(db: &Db, u: NewUser<'_>) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_user (id, tenant_id, account, password, name, real_name, oauth_id, create_time, status) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            u.id.into(),
            u.tenant_id.into(),
            u.account.into(),
            u.password_phc.into(),
            u.name.into(),
            u.real_name.into(),
            u.oauth_id.into(),
            Value::Int(time::now_ms()),
            Value::Int(u.status),
        ],
    );
    exec(db, sql).await.map(|_| ())
}

pub struct Profile<'a> {
    pub avatar: Option<&'a str>,
    pub real_name: &'a str,
    pub name: &'a str,
    pub phone: &'a str,
    pub email: &'a str,
}

pub async fn update_profile(db: &Db, tenant_id: &str, id: Id, p: Profile<'_>) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_user SET avatar = ?, real_name = ?, name = ?, phone = ?, email = ?, update_user = ?, \
         update_time = ? WHERE tenant_id = ? AND id = ?",
        [
            p.avatar.map(str::to_owned).into(),
            p.real_name.into(),
            p.name.into(),
            p.phone.into(),
            p.email.into(),
            id.into(),
            Value::Int(time::now_ms()),
            tenant_id.into(),
            id.into(),
        ],
    );
    exec(db, sql).await.map(|_| ())
}
