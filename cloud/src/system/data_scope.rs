//! Data scopes: which rows of a resource's lists a caller's roles let them see.
//!
//! The scopes granted to the caller's roles for a resource are OR-ed: a row shows when any of
//! them lets it through, so adding a role never hides rows. A granted "all" (type 1) therefore
//! lifts the narrowing entirely. With no scope granted for the resource nothing narrows (scopes
//! restrict; they are not needed to see anything).

use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id, id::parse_id_list};

pub const ALL: i64 = 1;
pub const OWN: i64 = 2;
pub const OWN_DEPT: i64 = 3;
pub const OWN_DEPT_AND_BELOW: i64 = 4;
pub const CUSTOM: i64 = 5;

/// The columns a scope may name. They are spliced into list queries, so only these exist.
pub const COLUMNS: &[&str] = &["create_user", "create_dept"];

/// A condition that matches no row (for scopes that cannot apply to this caller).
const NOTHING: &str = "1 = 0";

/// The condition (no leading `AND`) narrowing rows of `resource` (a menu code) for the caller, or
/// `None` when no data scope granted to the caller's roles covers that resource.
///
/// The condition names the scope's column unqualified (`create_user`, `create_dept`): a list
/// that joins tables must keep those names unambiguous.
pub async fn narrow(state: &Core, caller: &Caller, resource: &str) -> Result<Option<Sql>, ApiError> {
    if caller.role_ids.is_empty() {
        return Ok(None);
    }
    let mut sql = Sql::new(
        "SELECT d.scope_column, d.scope_type, d.scope_value FROM blade_scope_data d \
         JOIN blade_role_scope rs ON rs.scope_id = d.id AND rs.scope_category = 1 \
         JOIN blade_role r ON r.id = rs.role_id AND r.is_deleted = 0",
    );
    sql.push_bind(
        " WHERE d.is_deleted = 0 AND d.status = 1 AND d.resource_code = ? AND ",
        [Value::from(resource)],
    );
    sql.append(&caller.tenant_filter("r.tenant_id"));
    sql.push(" AND rs.role_id IN (");
    sql.push_ids(&caller.role_ids);
    sql.push(") ORDER BY d.id");
    let scopes: Vec<(String, i64, Option<String>)> = sql
        .fetch_all::<(String, i64, Option<String>), _>(state.db.pool())
        .await?;
    if scopes.is_empty() {
        return Ok(None);
    }
    let mut out = Sql::default();
    for (column, scope_type, value) in &scopes {
        let Some(column) = COLUMNS.iter().find(|c| **c == column.as_str()) else {
            // Validation keeps other names out; a row written around it narrows to nothing.
            tracing::warn!(
                column,
                resource,
                "data scope names a column outside the whitelist"
            );
            continue;
        };
        let condition = match *scope_type {
            ALL => return Ok(None),
            OWN => condition_in(column, &[caller.user_id]),
            OWN_DEPT => match caller.dept_id {
                Some(dept) => condition_in(column, &[dept]),
                None => Sql::new(NOTHING),
            },
            OWN_DEPT_AND_BELOW => match caller.dept_id {
                Some(dept) => dept_and_below(column, caller, dept),
                None => Sql::new(NOTHING),
            },
            CUSTOM => {
                let ids = parse_id_list(value.as_deref().unwrap_or("")).unwrap_or_default();
                condition_in(column, &ids)
            }
            _ => Sql::new(NOTHING),
        };
        out.push(if out.is_empty() { "(" } else { " OR (" });
        out.append(&condition);
        out.push(")");
    }
    if out.is_empty() {
        return Ok(Some(Sql::new(NOTHING)));
    }
    Ok(Some(out))
}

/// `column IN (ids)`, or nothing at all for an empty list.
fn condition_in(column: &str, ids: &[Id]) -> Sql {
    if ids.is_empty() {
        return Sql::new(NOTHING);
    }
    let mut sql = Sql::new(&format!("{column} IN ("));
    sql.push_ids(ids);
    sql.push(")");
    sql
}

/// The dept and every dept below it: `ancestors` lists a dept's ancestor ids comma-joined
/// (root `0`), so a descendant's list, wrapped in commas, contains `,{dept},`.
fn dept_and_below(column: &str, caller: &Caller, dept: Id) -> Sql {
    let mut sql = Sql::new(&format!(
        "{column} IN (SELECT sd.id FROM blade_dept sd WHERE sd.is_deleted = 0 AND "
    ));
    sql.append(&caller.tenant_filter("sd.tenant_id"));
    sql.push_bind(
        " AND (sd.id = ? OR (',' || sd.ancestors || ',') LIKE ?))",
        [Value::Int(dept.0), Value::Text(format!("%,{},%", dept.0))],
    );
    sql
}
