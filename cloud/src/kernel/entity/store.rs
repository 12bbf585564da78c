//! The statements of a declared entity, run through the kernel's executors. Every read and
//! write carries `scope`: a predicate (no leading `WHERE`/`AND`) the adapter built from the
//! caller, covering tenant, liveness and station visibility, so no statement can miss it.

use sqlx::any::AnyRow;

use super::def::Table;
use super::field::Parsed;
use crate::kernel::db::Db;
use crate::kernel::list::{Field, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id, Page, time};

/// `SELECT {columns} FROM {table} WHERE {scope}`.
fn select(table: &Table, columns: &str, scope: &Sql) -> Sql {
    let mut sql = Sql::new(&format!("SELECT {columns} FROM {} WHERE ", table.name));
    sql.append(scope);
    sql
}

/// One visible row, read by `map`.
pub async fn find<T>(
    db: &Db,
    table: &Table,
    columns: &str,
    scope: &Sql,
    id: Id,
    map: impl Fn(&AnyRow) -> Result<T, ApiError>,
) -> Result<Option<T>, ApiError> {
    let mut sql = select(table, columns, scope);
    sql.push_bind(" AND id = ?", [Value::Int(id.0)]);
    sql.row(db.pool()).await?.map(|r| map(&r)).transpose()
}

/// Every visible row that also matches `extra` (leading ` AND`), in the entity's order.
pub async fn list<T>(
    db: &Db,
    table: &Table,
    columns: &str,
    scope: &Sql,
    extra: &Sql,
    map: impl Fn(&AnyRow) -> Result<T, ApiError>,
) -> Result<Vec<T>, ApiError> {
    let mut sql = select(table, columns, scope);
    sql.append(extra);
    sql.push(&format!(" ORDER BY {}", table.order));
    sql.rows(db.pool()).await?.iter().map(map).collect()
}

/// A page of the visible rows that match `extra` (leading ` AND`) and the request's filters.
#[allow(clippy::too_many_arguments)]
pub async fn page<T>(
    db: &Db,
    table: &Table,
    columns: &str,
    scope: &Sql,
    extra: &Sql,
    query: &ListQuery,
    fields: &[Field],
    map: impl Fn(&AnyRow) -> Result<T, ApiError>,
) -> Result<Page<T>, ApiError> {
    let mut from_where = Sql::new(&format!("FROM {} WHERE ", table.name));
    from_where.append(scope);
    from_where.append(extra);
    fetch_page_with(db, columns, from_where, query, fields, table.order, map).await
}

/// The INSERT of a checked record owned by `tenant`, created by `user`.
pub fn insert(table: &Table, id: Id, tenant: &str, user: Id, parsed: &[Parsed]) -> Sql {
    let mut cols = vec!["id", "tenant_id", "create_user", "create_time"];
    let mut values = vec![
        Value::Int(id.0),
        Value::Text(tenant.to_owned()),
        Value::Int(user.0),
        Value::Int(time::now_ms()),
    ];
    for p in parsed {
        cols.push(p.col.column);
        values.push(p.value.clone());
    }
    let mut sql = Sql::default();
    sql.push_bind(
        &format!(
            "INSERT INTO {} ({}) VALUES ({})",
            table.name,
            cols.join(", "),
            vec!["?"; cols.len()].join(", ")
        ),
        values,
    );
    sql
}

/// The UPDATE of the parsed fields of the visible row `id`, changed by `user`.
pub fn update(table: &Table, id: Id, user: Id, parsed: &[Parsed], scope: &Sql) -> Sql {
    let mut sql = Sql::new(&format!("UPDATE {} SET ", table.name));
    for p in parsed {
        sql.push_bind(&format!("{} = ?, ", p.col.column), [p.value.clone()]);
    }
    sql.push_bind(
        "update_user = ?, update_time = ? WHERE id = ? AND ",
        [Value::Int(user.0), Value::Int(time::now_ms()), Value::Int(id.0)],
    );
    sql.append(scope);
    sql
}

/// Logically deletes the rows `ids`, all visible through `scope` or none (404); answers them.
pub async fn remove(db: &Db, table: &Table, ids: &[Id], user: Id, scope: &Sql) -> Result<Vec<Id>, ApiError> {
    let mut visible = select(table, "id", scope);
    visible.push(" AND id IN (");
    visible.push_ids(ids);
    visible.push(")");
    let found: Vec<Id> = visible
        .scalars::<i64, _>(db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect();
    let found = super::super::id::all_found(ids, found)?;
    let mut sql = Sql::new(&format!("UPDATE {} SET is_deleted = 1", table.name));
    sql.push_bind(
        ", update_user = ?, update_time = ? WHERE is_deleted = 0 AND id IN (",
        [Value::Int(user.0), Value::Int(time::now_ms())],
    );
    sql.push_ids(&found);
    sql.push(")");
    sql.execute(db.pool()).await?;
    Ok(found)
}
