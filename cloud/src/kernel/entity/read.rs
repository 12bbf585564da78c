//! A declared entity's rows on the wire, and its list filters.

use serde_json::{Map, Value as Json};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::field::{Col, Ty, format_day};
use crate::kernel::list::{Field, Kind, ListQuery};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, time};

/// `alias.column` for every declared column.
pub fn select_list(cols: &[Col], alias: &str) -> String {
    cols.iter()
        .map(|c| format!("{alias}.{}", c.column))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The wire form of a row's declared columns (secrets become `{name}Set`).
pub fn row_json(cols: &[Col], row: &AnyRow, into: &mut Map<String, Json>) -> Result<(), ApiError> {
    for c in cols {
        if let Ty::Secret(_) = c.ty {
            let set = row.try_get::<Option<String>, _>(c.column)?.is_some();
            into.insert(format!("{}Set", c.name), Json::Bool(set));
            continue;
        }
        into.insert(c.name.to_owned(), value(c, row)?);
    }
    Ok(())
}

/// The wire value of one column of a row (`null` when unset; a secret reads as unset).
pub fn value(c: &Col, row: &AnyRow) -> Result<Json, ApiError> {
    let text = || row.try_get::<Option<String>, _>(c.column);
    let int = || row.try_get::<Option<i64>, _>(c.column);
    Ok(match c.ty {
        Ty::Text(_) | Ty::Phone | Ty::Dict(_) | Ty::MapModel(_) => text()?.map(Json::String),
        Ty::Secret(_) => None,
        Ty::Float { .. } => row.try_get::<Option<f64>, _>(c.column)?.map(Json::from),
        Ty::Int { .. } => int()?.map(Json::from),
        Ty::Time => int()?.map(|ms| Json::String(time::format_ms(ms))),
        Ty::Date => int()?.map(|ms| Json::String(format_day(ms))),
        Ty::Id => int()?.map(|i| Json::String(i.to_string())),
        Ty::IntList(_) => text()?.map(|s| {
            Json::Array(
                s.split(',')
                    .filter_map(|p| p.trim().parse::<i64>().ok())
                    .map(Json::from)
                    .collect(),
            )
        }),
    }
    .unwrap_or(Json::Null))
}

/// List filters for the declared `filter` columns (unqualified: list queries read one table).
/// Text filters mean "contains"; dictionary keys compare exactly through [`exact_filters`].
pub fn list_fields(cols: &'static [Col], extra: &[Field]) -> Vec<Field> {
    let mut out: Vec<Field> = extra.to_vec();
    for c in cols.iter().filter(|c| c.filter) {
        if let Some(kind) = kind(c.ty) {
            out.push(Field::new(c.name, c.column, kind));
        }
    }
    out
}

/// How a field of `ty` is filtered; `None` for fields compared exactly or not at all.
pub fn kind(ty: Ty) -> Option<Kind> {
    match ty {
        Ty::Text(_) | Ty::Phone => Some(Kind::Text),
        Ty::Float { .. } => Some(Kind::Float),
        Ty::Int { .. } | Ty::Id => Some(Kind::Int),
        Ty::Time | Ty::Date => Some(Kind::Time),
        Ty::Dict(_) | Ty::MapModel(_) | Ty::Secret(_) | Ty::IntList(_) => None,
    }
}

/// Takes dictionary-key filters (`state=1`) out of `query` as exact conditions.
pub fn exact_filters(cols: &'static [Col], query: &mut ListQuery) -> Sql {
    let mut sql = Sql::default();
    for c in cols
        .iter()
        .filter(|c| c.filter && matches!(c.ty, Ty::Dict(_) | Ty::MapModel(_)))
    {
        for key in [c.name.to_owned(), format!("{}_equal", c.name)] {
            if let Some(v) = query.take(&key).filter(|v| !v.trim().is_empty()) {
                sql.push_bind(
                    &format!(" AND {} = ?", c.column),
                    [Value::Text(v.trim().to_owned())],
                );
            }
        }
    }
    sql
}
