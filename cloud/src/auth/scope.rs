//! Which stations a caller may see: the one rule every station, device, price, report and
//! alarm query of the product applies, and the `Scoped` extractor that hands a handler the
//! caller together with that scope, so a handler cannot forget it.
//!
//! A caller is *restricted* to the stations assigned to them (`pv_user_station`) when they are
//! not an administrator (role alias `administrator`) and either hold the role alias `owner` or
//! `maintenance`, or have at least one station assigned. Everyone else sees every station of
//! their tenant. So assigning stations to an operator narrows what they see, and an owner with
//! no assignment sees nothing rather than everything.

use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;

use crate::auth::caller::Caller;
use crate::kernel::Core;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id};

pub const ADMIN_ROLE: &str = "administrator";
/// Plant owners: see only the stations assigned to them.
pub const OWNER_ROLE: &str = "owner";
/// Maintenance staff: see only the stations assigned to them.
pub const MAINTENANCE_ROLE: &str = "maintenance";

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

/// A signed-in caller with the stations they may see. Handlers of station-scoped data take this
/// instead of a bare [`Caller`]: the scope is resolved once per request, and the SQL builders
/// below put the tenant and station predicates into every query.
#[derive(Debug, Clone)]
pub struct Scoped {
    pub caller: Caller,
    pub stations: StationScope,
}

impl<S> FromRequestParts<S> for Scoped
where
    Core: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let caller = Caller::from_request_parts(parts, state).await?;
        let stations = visible_stations(&Core::from_ref(state), &caller).await?;
        Ok(Scoped { caller, stations })
    }
}

impl StationScope {
    /// `{alias}.tenant_id = ? AND {alias}.is_deleted = 0` and, for a restricted caller,
    /// `{alias}.{station_column} IN (assigned)`: the live rows of a table that hangs off
    /// stations (devices, prices, alarms...) that the caller may see.
    pub fn rows(&self, alias: &str, station_column: &str) -> Sql {
        let mut sql = Sql::default();
        sql.push_bind(
            &format!("{alias}.tenant_id = ? AND {alias}.is_deleted = 0"),
            [Value::Text(self.tenant_id.clone())],
        );
        sql.append(&self.condition(&format!("{alias}.{station_column}")));
        sql
    }
}

/// The role aliases of the caller's roles (as their token carries them).
pub async fn role_aliases(state: &Core, caller: &Caller) -> Result<Vec<String>, ApiError> {
    if caller.role_ids.is_empty() {
        return Ok(vec![]);
    }
    let mut sql = Sql::new("SELECT role_alias FROM blade_role WHERE is_deleted = 0 AND id IN (");
    sql.push_ids(&caller.role_ids);
    sql.push(")");
    Ok(sql
        .scalars::<Option<String>, _>(state.db.pool())
        .await?
        .into_iter()
        .flatten()
        .collect())
}

/// The caller's station scope (see the module comment for the rule).
pub async fn visible_stations(state: &Core, caller: &Caller) -> Result<StationScope, ApiError> {
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
        sql.scalar::<i64, _>(state.db.pool()).await? > 0
    };
    Ok(StationScope {
        tenant_id: caller.tenant_id.clone(),
        assigned_to: restricted.then_some(caller.user_id),
    })
}

/// The station `id` when the caller may see it (live, own tenant, in scope).
pub async fn visible_station(state: &Core, scope: &StationScope, id: Id) -> Result<bool, ApiError> {
    let mut sql = Sql::new("SELECT COUNT(*) FROM pv_station s WHERE ");
    sql.append(&scope.stations("s"));
    sql.push_bind(" AND s.id = ?", [Value::Int(id.0)]);
    Ok(sql.scalar::<i64, _>(state.db.pool()).await? > 0)
}
