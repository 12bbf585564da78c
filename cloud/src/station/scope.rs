//! Which stations a caller may see: the one rule every station, device, price, report and
//! alarm query of the product applies.
//!
//! A caller is *restricted* to the stations assigned to them (`pv_user_station`) when they are
//! not an administrator (role alias `administrator`) and either hold the role alias `owner` or
//! `maintenance`, or have at least one station assigned. Everyone else sees every station of
//! their tenant. So assigning stations to an operator narrows what they see, and an owner with
//! no assignment sees nothing rather than everything.

use sqlx::Any;

use crate::auth::Caller;
use crate::auth::caller::push_id_list;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id};
use crate::state::AppState;
use crate::user::admin::{MAINTENANCE_ROLE, OWNER_ROLE};

pub const ADMIN_ROLE: &str = "administrator";

#[derive(Debug, Clone)]
pub struct StationScope {
    pub tenant_id: String,
    /// `Some(user)` when the caller sees only the stations assigned to `user`.
    pub assigned_to: Option<Id>,
}

impl StationScope {
    /// ` AND {column} IN (assigned stations)` when restricted, else nothing. `column` holds a
    /// station id (a NULL station never matches a restricted caller).
    pub fn condition(&self, column: &str) -> Sql {
        let mut sql = Sql::default();
        if let Some(user) = self.assigned_to {
            sql.push_bind(
                &format!(" AND {column} IN (SELECT station_id FROM pv_user_station WHERE user_id = ?)"),
                [Value::Int(user.0)],
            );
        }
        sql
    }

    /// `{alias}.tenant_id = ? AND {alias}.is_deleted = 0` plus [`Self::condition`] on
    /// `{alias}.id`: the live stations of the caller's tenant that the caller may see.
    pub fn stations(&self, alias: &str) -> Sql {
        let mut sql = Sql::default();
        sql.push_bind(
            &format!("{alias}.tenant_id = ? AND {alias}.is_deleted = 0"),
            [Value::Text(self.tenant_id.clone())],
        );
        sql.append(&self.condition(&format!("{alias}.id")));
        sql
    }

    pub fn is_restricted(&self) -> bool {
        self.assigned_to.is_some()
    }
}

/// The role aliases of the caller's roles (as their token carries them).
pub async fn role_aliases(state: &AppState, caller: &Caller) -> Result<Vec<String>, ApiError> {
    if caller.role_ids.is_empty() {
        return Ok(vec![]);
    }
    let mut sql = Sql::new("SELECT role_alias FROM blade_role WHERE is_deleted = 0 AND id IN (");
    push_id_list(&mut sql, &caller.role_ids);
    sql.push(")");
    let (text, args) = sql.build()?;
    Ok(
        sqlx::query_scalar_with::<Any, Option<String>, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_all(state.db.pool())
            .await?
            .into_iter()
            .flatten()
            .collect(),
    )
}

/// The caller's station scope (see the module comment for the rule).
pub async fn visible_stations(state: &AppState, caller: &Caller) -> Result<StationScope, ApiError> {
    let aliases = role_aliases(state, caller).await?;
    let restricted = if aliases.iter().any(|a| a == ADMIN_ROLE) {
        false
    } else if aliases.iter().any(|a| a == OWNER_ROLE || a == MAINTENANCE_ROLE) {
        true
    } else {
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT COUNT(*) FROM pv_user_station WHERE user_id = ?",
            [Value::Int(caller.user_id.0)],
        );
        let (text, args) = sql.build()?;
        sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_one(state.db.pool())
            .await?
            > 0
    };
    Ok(StationScope {
        tenant_id: caller.tenant_id.clone(),
        assigned_to: restricted.then_some(caller.user_id),
    })
}

/// The station `id` when the caller may see it (live, own tenant, in scope).
pub async fn visible_station(state: &AppState, scope: &StationScope, id: Id) -> Result<bool, ApiError> {
    let mut sql = Sql::new("SELECT COUNT(*) FROM pv_station s WHERE ");
    sql.append(&scope.stations("s"));
    sql.push_bind(" AND s.id = ?", [Value::Int(id.0)]);
    let (text, args) = sql.build()?;
    Ok(
        sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_one(state.db.pool())
            .await?
            > 0,
    )
}
