//! Reading and writing users, always within one tenant.
//!
//! `find_by_account` and `find` take the tenant as a value rather than a caller: sign-in and the
//! token refresh look users up before there is a caller.

use serde_json::{Map, Value as Json};

use super::model::{
    ACCOUNT_TAKEN, NO_SUCH_DEPT, NO_SUCH_POST, NO_SUCH_ROLE, PlatformDetail, QUOTA, UserForm,
};
use super::validate::{distinct, joined};
use crate::auth::caller::Caller;
use crate::auth::session;
use crate::kernel::db::Db;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, UniqueAs, Value};
use crate::kernel::{ApiError, Core, Id, time};

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

pub async fn find_by_account(db: &Db, tenant_id: &str, account: &str) -> Result<Option<UserRow>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_user"));
    // The tenant as a value: sign-in and guest registration have no caller yet.
    sql.push_bind(
        " WHERE tenant_id = ? AND account = ? AND is_deleted = 0",
        [tenant_id.into(), account.into()],
    );
    sql.fetch_optional(db.pool()).await
}

pub async fn find(db: &Db, tenant_id: &str, id: Id) -> Result<Option<UserRow>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_user"));
    // The tenant as a value: the token refresh reads the user of a session, not of a caller.
    sql.push_bind(
        " WHERE tenant_id = ? AND id = ? AND is_deleted = 0",
        [tenant_id.into(), id.into()],
    );
    sql.fetch_optional(db.pool()).await
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
    sql.fetch_all(db.pool()).await
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
    sql.fetch_all(db.pool()).await
}

pub async fn set_password(db: &Db, caller: &Caller, id: Id, phc: &str) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_user SET password = ?, update_user = ?, update_time = ? WHERE ",
        [phc.into(), caller.user_id.into(), Value::Int(time::now_ms())],
    );
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push_bind(" AND id = ?", [id.into()]);
    sql.execute(db.pool()).await.map(|_| ())
}

/// Clears the sign-in throttle of the given users of the caller's tenant, from every address;
/// returns how many users were changed.
pub async fn unlock(db: &Db, caller: &Caller, ids: &[Id]) -> Result<u64, ApiError> {
    if ids.is_empty() {
        return Ok(0);
    }
    let mut throttle = Sql::new(
        "DELETE FROM auth_throttle WHERE EXISTS (SELECT 1 FROM blade_user u \
         WHERE u.tenant_id = auth_throttle.tenant_id AND u.account = auth_throttle.account AND ",
    );
    throttle.append(&caller.tenant_filter("u.tenant_id"));
    throttle.push(" AND u.id IN (");
    throttle.push_ids(ids);
    throttle.push("))");
    throttle.execute(db.pool()).await?;
    let mut sql = Sql::new("UPDATE blade_user SET fail_count = 0, locked_until = NULL WHERE ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push(" AND id IN (");
    sql.push_ids(ids);
    sql.push(")");
    sql.execute(db.pool()).await
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
    sql.execute(db.pool()).await.map(|_| ())
}

pub struct Profile<'a> {
    pub avatar: Option<&'a str>,
    pub real_name: &'a str,
    pub name: &'a str,
    pub phone: &'a str,
    pub email: &'a str,
}

/// The caller's own profile.
pub async fn update_profile(db: &Db, caller: &Caller, p: Profile<'_>) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_user SET avatar = ?, real_name = ?, name = ?, phone = ?, email = ?, update_user = ?, \
         update_time = ? WHERE ",
        [
            p.avatar.map(str::to_owned).into(),
            p.real_name.into(),
            p.name.into(),
            p.phone.into(),
            p.email.into(),
            caller.user_id.into(),
            Value::Int(time::now_ms()),
        ],
    );
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push_bind(" AND id = ?", [caller.user_id.into()]);
    sql.execute(db.pool()).await.map(|_| ())
}

/// Whether `account` names another live user of the caller's tenant.
pub async fn account_taken(
    db: &Db,
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
    Ok(sql.scalar::<i64, _>(db.pool()).await? > 0)
}

/// Fails when the tenant already holds as many users as its account limit (negative: none).
pub async fn check_quota(db: &Db, caller: &Caller) -> Result<(), ApiError> {
    let mut sql = Sql::new("SELECT account_number FROM blade_tenant WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    let limit = sql.scalar::<i64, _>(db.pool()).await.unwrap_or(-1);
    if limit < 0 {
        return Ok(());
    }
    let mut sql = Sql::new("SELECT COUNT(*) FROM blade_user WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    if sql.scalar::<i64, _>(db.pool()).await? >= limit {
        return Err(ApiError::BadRequest(QUOTA));
    }
    Ok(())
}

/// Checks that every id names a live row of `table` in the caller's tenant.
pub async fn check_owned(
    db: &Db,
    caller: &Caller,
    table: &str,
    ids: &[Id],
    missing: Text,
) -> Result<(), ApiError> {
    if ids.is_empty() {
        return Ok(());
    }
    let unique = distinct(ids);
    let mut sql = Sql::new(&format!("SELECT COUNT(*) FROM {table} WHERE is_deleted = 0 AND "));
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push(" AND id IN (");
    sql.push_ids(&unique);
    sql.push(")");
    if sql.scalar::<i64, _>(db.pool()).await? != unique.len() as i64 {
        return Err(ApiError::BadRequest(missing));
    }
    Ok(())
}

/// The roles, departments and posts a form names all belong to the caller's tenant.
pub async fn check_refs(db: &Db, caller: &Caller, form: &UserForm) -> Result<(), ApiError> {
    let ids = |v: &Option<Vec<Id>>| v.clone().unwrap_or_default();
    check_owned(db, caller, "blade_role", &ids(&form.roles), NO_SUCH_ROLE).await?;
    check_owned(db, caller, "blade_dept", &ids(&form.depts), NO_SUCH_DEPT).await?;
    check_owned(db, caller, "blade_post", &ids(&form.posts), NO_SUCH_POST).await
}

/// The tenant's role with `alias`, created when missing (owners need one to exist).
pub async fn ensure_role(core: &Core, caller: &Caller, alias: &str, zh_name: &str) -> Result<Id, ApiError> {
    let mut sql = Sql::new("SELECT id FROM blade_role WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push_bind(" AND role_alias = ? ORDER BY sort, id", [alias.into()]);
    if let Some(id) = sql.scalar_optional::<Id, _>(core.db.pool()).await? {
        return Ok(id);
    }
    let id = core.ids.next();
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_role (id, tenant_id, parent_id, role_name, role_alias, sort) VALUES (?, ?, 0, ?, ?, 99)",
        [id.into(), caller.tenant_id.clone().into(), zh_name.into(), alias.into()],
    );
    sql.execute(core.db.pool()).await?;
    Ok(id)
}

/// The department new owners join: the caller's own, else the tenant's first root department.
pub async fn default_dept(db: &Db, caller: &Caller) -> Result<Option<Id>, ApiError> {
    if let Some(d) = caller.dept_id {
        return Ok(Some(d));
    }
    let mut sql = Sql::new("SELECT id FROM blade_dept WHERE is_deleted = 0 AND parent_id = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push(" ORDER BY sort, id");
    sql.scalar_optional::<Id, _>(db.pool()).await
}

/// Inserts a user with its links in one transaction; a taken account is refused.
pub async fn insert_user(
    core: &Core,
    caller: &Caller,
    form: &UserForm,
    phc: String,
    status: i64,
) -> Result<Id, ApiError> {
    let id = core.ids.next();
    let mut tx = core.db.begin_write().await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO blade_user (id, tenant_id, code, user_type, account, password, name, real_name, avatar, email, \
         phone, birthday, sex, post_id, company_name, create_user, create_dept, create_time, status) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            id.into(),
            caller.tenant_id.clone().into(),
            form.code.clone().into(),
            Value::Int(form.user_type.unwrap_or(1)),
            form.account.clone().into(),
            phc.into(),
            form.name.clone().or(form.real_name.clone()).into(),
            form.real_name.clone().into(),
            form.avatar.clone().into(),
            form.email.clone().into(),
            form.phone.clone().into(),
            form.birthday.map(Value::Int).unwrap_or(Value::Null),
            form.sex.map(Value::Int).unwrap_or(Value::Null),
            Value::Text(joined(form.posts.as_deref().unwrap_or(&[]))),
            form.company_name.clone().into(),
            caller.user_id.into(),
            caller.dept_id.map(Value::from).unwrap_or(Value::Null),
            Value::Int(time::now_ms()),
            Value::Int(status),
        ],
    );
    sql.execute(&mut *tx).await.unique_as(ACCOUNT_TAKEN)?;
    link(&mut tx, id, form.roles.as_deref(), form.depts.as_deref()).await?;
    tx.commit().await?;
    Ok(id)
}

/// Replaces a user's roles and/or departments (each only when given).
pub async fn link(
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
        del.execute(&mut *tx).await?;
        for id in distinct(ids) {
            let mut ins = Sql::default();
            ins.push_bind(
                &format!("INSERT INTO {table} (user_id, {column}) VALUES (?, ?)"),
                [user.into(), id.into()],
            );
            ins.execute(&mut *tx).await?;
        }
    }
    Ok(())
}

/// Updates the form fields present in the body, and roles/departments when given, in one
/// transaction; a taken account is refused. New roles end the user's sessions.
pub async fn update_user(
    db: &Db,
    caller: &Caller,
    id: Id,
    body: &Map<String, Json>,
    form: &UserForm,
) -> Result<(), ApiError> {
    let mut sets = Sql::new("UPDATE blade_user SET ");
    let mut set = |col: &str, key: &str, v: Value| {
        if body.contains_key(key) {
            sets.push_bind(&format!("{col} = ?, "), [v]);
        }
    };
    set("account", "account", form.account.clone().into());
    set("real_name", "realName", form.real_name.clone().into());
    set("name", "name", form.name.clone().into());
    set("phone", "phone", form.phone.clone().into());
    set("email", "email", form.email.clone().into());
    set("code", "code", form.code.clone().into());
    set("company_name", "companyName", form.company_name.clone().into());
    set("avatar", "avatar", form.avatar.clone().into());
    set("sex", "sex", form.sex.map(Value::Int).unwrap_or(Value::Null));
    set(
        "birthday",
        "birthday",
        form.birthday.map(Value::Int).unwrap_or(Value::Null),
    );
    if let Some(t) = form.user_type {
        set("user_type", "userType", Value::Int(t));
    }
    if let Some(posts) = &form.posts {
        set("post_id", "postId", Value::Text(joined(posts)));
    }
    sets.push_bind(
        "update_user = ?, update_time = ? WHERE is_deleted = 0 AND id = ?",
        [caller.user_id.into(), Value::Int(time::now_ms()), id.into()],
    );
    let mut tx = db.begin_write().await?;
    sets.execute(&mut *tx).await.unique_as(ACCOUNT_TAKEN)?;
    link(&mut tx, id, form.roles.as_deref(), form.depts.as_deref()).await?;
    tx.commit().await?;
    if form.roles.is_some() {
        session::revoke_user(db, id, Some(caller.session_id)).await?;
    }
    Ok(())
}

/// Marks users removed; answers how many.
pub async fn remove(db: &Db, caller: &Caller, ids: &[Id]) -> Result<u64, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE blade_user SET is_deleted = 1, update_user = ?, update_time = ? WHERE id IN (",
        [caller.user_id.into(), Value::Int(time::now_ms())],
    );
    sql.push_ids(ids);
    sql.push(")");
    sql.execute(db.pool()).await
}

/// Activates approved registrations; one holding no role gets `role` (and `dept`).
pub async fn activate(
    db: &Db,
    caller: &Caller,
    ids: &[Id],
    role: Id,
    dept: Option<Id>,
) -> Result<(), ApiError> {
    let mut tx = db.begin_write().await?;
    for id in ids {
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
        sql.execute(&mut *tx).await?;
        let mut has = Sql::default();
        has.push_bind(
            "SELECT COUNT(*) FROM blade_user_role WHERE user_id = ?",
            [(*id).into()],
        );
        if has.scalar::<i64, _>(&mut *tx).await? == 0 {
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
    Ok(())
}

/// A user's platform type and extension data, when set.
pub async fn platform(db: &Db, user: Id) -> Result<Option<(i64, Option<String>)>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT user_type, user_ext FROM blade_user_platform WHERE user_id = ?",
        [user.into()],
    );
    sql.fetch_optional(db.pool()).await
}

/// Replaces a user's platform settings and mirrors the type onto the user.
pub async fn set_platform(db: &Db, caller: &Caller, p: &PlatformDetail) -> Result<(), ApiError> {
    let mut tx = db.begin_write().await?;
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM blade_user_platform WHERE user_id = ?",
        [p.user_id.into()],
    );
    del.execute(&mut *tx).await?;
    let mut ins = Sql::default();
    ins.push_bind(
        "INSERT INTO blade_user_platform (user_id, tenant_id, user_type, user_ext) VALUES (?, ?, ?, ?)",
        [
            p.user_id.into(),
            caller.tenant_id.clone().into(),
            Value::Int(p.user_type),
            p.user_ext.clone().into(),
        ],
    );
    ins.execute(&mut *tx).await?;
    let mut upd = Sql::default();
    upd.push_bind(
        "UPDATE blade_user SET user_type = ? WHERE id = ?",
        [Value::Int(p.user_type), p.user_id.into()],
    );
    upd.execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(())
}
