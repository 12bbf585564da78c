//! Sign-in sessions. A token is honoured only while its session exists and is not revoked, so
//! logging out (or an administrator locking a user) takes effect on the very next call.

use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Session {
    pub id: Id,
    pub tenant_id: String,
    pub user_id: Id,
    pub client_id: String,
    pub dept_id: Option<Id>,
    pub role_ids: String,
    pub refresh_time: i64,
    pub expire_time: i64,
    pub revoked: i64,
}

pub struct NewSession<'a> {
    pub id: Id,
    pub tenant_id: &'a str,
    pub user_id: Id,
    pub client_id: &'a str,
    pub dept_id: Option<Id>,
    pub role_ids: &'a [Id],
    pub refresh_time: i64,
    pub expire_time: i64,
}

pub fn join_ids(ids: &[Id]) -> String {
    ids.iter().map(Id::to_string).collect::<Vec<_>>().join(",")
}

pub async fn create(db: &Db, s: NewSession<'_>) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_auth_session (id, tenant_id, user_id, client_id, dept_id, role_ids, create_time, \
         refresh_time, expire_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            Value::Int(s.id.0),
            s.tenant_id.into(),
            Value::Int(s.user_id.0),
            s.client_id.into(),
            s.dept_id.map(|d| Value::Int(d.0)).unwrap_or(Value::Null),
            join_ids(s.role_ids).into(),
            Value::Int(crate::kernel::time::now_ms()),
            Value::Int(s.refresh_time),
            Value::Int(s.expire_time),
        ],
    );
    sql.execute(db.pool()).await?;
    Ok(())
}

pub async fn find(db: &Db, id: Id) -> Result<Option<Session>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT id, tenant_id, user_id, client_id, dept_id, role_ids, refresh_time, expire_time, revoked \
         FROM blade_auth_session WHERE id = ?",
        [Value::Int(id.0)],
    );
    sql.fetch_optional::<Session, _>(db.pool()).await
}

/// Moves a session to its next refresh token, with the dept and roles now in force. Succeeds
/// only if `expected_refresh_time` is still the latest: two uses of one refresh token cannot
/// both win.
pub async fn rotate(
    db: &Db,
    id: Id,
    expected_refresh_time: i64,
    new_refresh_time: i64,
    dept_id: Option<Id>,
    role_ids: &[Id],
) -> Result<bool, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_auth_session SET refresh_time = ?, dept_id = ?, role_ids = ? \
         WHERE id = ? AND refresh_time = ? AND revoked = 0",
        [
            Value::Int(new_refresh_time),
            dept_id.map(|d| Value::Int(d.0)).unwrap_or(Value::Null),
            join_ids(role_ids).into(),
            Value::Int(id.0),
            Value::Int(expected_refresh_time),
        ],
    );
    let done = sql.execute(db.pool()).await?;
    Ok(done == 1)
}

pub async fn revoke(db: &Db, id: Id) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_auth_session SET revoked = 1 WHERE id = ?",
        [Value::Int(id.0)],
    );
    sql.execute(db.pool()).await?;
    Ok(())
}

/// Ends every session of a user (password changed, account locked or removed).
pub async fn revoke_user(db: &Db, user_id: Id, except: Option<Id>) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_auth_session SET revoked = 1 WHERE user_id = ? AND id <> ?",
        [
            Value::Int(user_id.0),
            Value::Int(except.map(|e| e.0).unwrap_or(-1)),
        ],
    );
    sql.execute(db.pool()).await?;
    Ok(())
}
