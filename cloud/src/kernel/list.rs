//! Paging and list filters of the API conventions: `current`, `size`, `ascs`, `descs`, and
//! filters named after whitelisted fields with optional suffixes (`name_like`,
//! `createTime_datege`, ...). A request can only pick among the fields a list declares; field
//! names map to columns written in the code, and every value is bound.

use std::collections::HashMap;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use sqlx::{Any, FromRow, any::AnyRow};

use super::db::Db;
use super::envelope::Page;
use super::error::ApiError;
use super::sql::{Sql, Value, like_contains};
use super::time;

pub const DEFAULT_SIZE: i64 = 10;
pub const MAX_SIZE: i64 = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Free text: no suffix means "contains".
    Text,
    /// Integers and ids.
    Int,
    Float,
    /// Epoch-millisecond column, filtered with wire date-times.
    Time,
}

/// A field a list may be filtered and sorted by.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// camelCase name used on the wire.
    pub name: &'static str,
    /// Column (or qualified column) in the SQL, written by us.
    pub column: &'static str,
    pub kind: Kind,
}

impl Field {
    pub const fn new(name: &'static str, column: &'static str, kind: Kind) -> Self {
        Field { name, column, kind }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Default,
    Equal,
    NotEqual,
    Like,
    Ge,
    Le,
    Gt,
    Lt,
    DateGe,
    DateGt,
    DateLt,
    DateLe,
    Null,
    NotNull,
}

const SUFFIXES: &[(&str, Op)] = &[
    ("_equal", Op::Equal),
    ("_notequal", Op::NotEqual),
    ("_like", Op::Like),
    ("_ge", Op::Ge),
    ("_le", Op::Le),
    ("_gt", Op::Gt),
    ("_lt", Op::Lt),
    ("_datege", Op::DateGe),
    ("_dategt", Op::DateGt),
    ("_datelt", Op::DateLt),
    ("_datele", Op::DateLe),
    ("_null", Op::Null),
    ("_notnull", Op::NotNull),
];

/// The list parameters of one request, taken from its query string.
#[derive(Debug, Clone)]
pub struct ListQuery {
    pub current: i64,
    pub size: i64,
    ascs: Vec<String>,
    descs: Vec<String>,
    params: Vec<(String, String)>,
}

impl ListQuery {
    pub fn from_pairs(pairs: Vec<(String, String)>) -> Result<Self, ApiError> {
        let mut q = ListQuery {
            current: 1,
            size: DEFAULT_SIZE,
            ascs: vec![],
            descs: vec![],
            params: vec![],
        };
        for (key, value) in pairs {
            match key.as_str() {
                "current" => q.current = parse_positive("current", &value)?,
                "size" => {
                    q.size = parse_positive("size", &value)?;
                    if q.size > MAX_SIZE {
                        return Err(ApiError::bad_request(
                            format!("每页条数不能超过{MAX_SIZE}"),
                            format!("size must not exceed {MAX_SIZE}"),
                        ));
                    }
                }
                "ascs" => q.ascs.extend(split_list(&value)),
                "descs" => q.descs.extend(split_list(&value)),
                _ => q.params.push((key, value)),
            }
        }
        Ok(q)
    }

    /// Removes and returns a parameter that the handler treats itself (not a field filter).
    pub fn take(&mut self, name: &str) -> Option<String> {
        let pos = self.params.iter().position(|(k, _)| k == name)?;
        Some(self.params.remove(pos).1)
    }

    /// Turns the filters into a `WHERE` addition (` AND ...` per filter) and the sort into an
    /// `ORDER BY` list, refusing anything not declared in `fields`.
    pub fn compile(&self, fields: &[Field]) -> Result<Compiled, ApiError> {
        let by_name: HashMap<&str, &Field> = fields.iter().map(|f| (f.name, f)).collect();
        let mut filter = Sql::default();
        for (key, raw) in &self.params {
            let (name, op) = SUFFIXES
                .iter()
                .find_map(|(suffix, op)| key.strip_suffix(suffix).map(|n| (n, *op)))
                .unwrap_or((key.as_str(), Op::Default));
            let Some(field) = by_name.get(name) else {
                return Err(ApiError::bad_request(
                    format!("不支持的查询条件：{key}"),
                    format!("unknown filter field: {key}"),
                ));
            };
            // Consoles send blank search boxes as empty values: they mean "no filter".
            if raw.is_empty() && !matches!(op, Op::Null | Op::NotNull) {
                continue;
            }
            add_condition(&mut filter, field, op, raw, key)?;
        }
        let mut order = Vec::new();
        for (names, dir) in [(&self.ascs, "ASC"), (&self.descs, "DESC")] {
            for name in names {
                let field = fields
                    .iter()
                    .find(|f| f.name == name || f.column.rsplit('.').next() == Some(name.as_str()))
                    .ok_or_else(|| {
                        ApiError::bad_request(
                            format!("不支持的排序字段：{name}"),
                            format!("unknown sort column: {name}"),
                        )
                    })?;
                order.push(format!("{} {dir}", field.column));
            }
        }
        Ok(Compiled { filter, order })
    }

    pub fn offset(&self) -> i64 {
        (self.current - 1).saturating_mul(self.size)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ListQuery {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(parts.uri.query().unwrap_or(""))
            .map_err(|e| {
                ApiError::bad_request(
                    format!("查询参数有误：{e}"),
                    format!("malformed query string: {e}"),
                )
            })?;
        ListQuery::from_pairs(pairs)
    }
}

/// Filters and sort of a request, ready to splice into a statement.
#[derive(Debug)]
pub struct Compiled {
    /// Zero or more ` AND cond` fragments.
    pub filter: Sql,
    /// `column DIR` items; empty when the request asked for no sort.
    pub order: Vec<String>,
}

fn parse_positive(name: &str, value: &str) -> Result<i64, ApiError> {
    match value.trim().parse::<i64>() {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(ApiError::bad_request(
            format!("参数 {name} 必须是正整数"),
            format!("{name} must be a positive integer"),
        )),
    }
}

fn split_list(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn add_condition(sql: &mut Sql, field: &Field, op: Op, raw: &str, key: &str) -> Result<(), ApiError> {
    let col = field.column;
    let bad_value = || {
        ApiError::bad_request(
            format!("查询条件 {key} 的值无效：{raw}"),
            format!("invalid value for filter {key}: {raw}"),
        )
    };
    let typed = |raw: &str| -> Result<Value, ApiError> {
        match field.kind {
            Kind::Text => Ok(Value::Text(raw.to_owned())),
            Kind::Int => raw.trim().parse::<i64>().map(Value::Int).map_err(|_| bad_value()),
            Kind::Float => raw
                .trim()
                .parse::<f64>()
                .map(Value::Float)
                .map_err(|_| bad_value()),
            Kind::Time => time::parse_ms(raw).map(Value::Int).ok_or_else(bad_value),
        }
    };
    let compare = |sql: &mut Sql, cmp: &str, v: Value| {
        sql.push_bind(&format!(" AND {col} {cmp} ?"), [v]);
    };
    match op {
        Op::Null => {
            sql.push(&format!(" AND {col} IS NULL"));
        }
        Op::NotNull => {
            sql.push(&format!(" AND {col} IS NOT NULL"));
        }
        Op::Like => like(sql, col, raw),
        Op::Default if field.kind == Kind::Text => like(sql, col, raw),
        Op::Default | Op::Equal => compare(sql, "=", typed(raw)?),
        Op::NotEqual => compare(sql, "<>", typed(raw)?),
        Op::Ge => compare(sql, ">=", typed(raw)?),
        Op::Le => compare(sql, "<=", typed(raw)?),
        Op::Gt => compare(sql, ">", typed(raw)?),
        Op::Lt => compare(sql, "<", typed(raw)?),
        Op::DateGe | Op::DateGt | Op::DateLt | Op::DateLe => {
            if field.kind != Kind::Time {
                return Err(bad_value());
            }
            let ms = time::parse_ms(raw).ok_or_else(bad_value)?;
            let cmp = match op {
                Op::DateGe => ">=",
                Op::DateGt => ">",
                Op::DateLt => "<",
                _ => "<=",
            };
            compare(sql, cmp, Value::Int(ms));
        }
    }
    Ok(())
}

/// Case-insensitive "contains" on both back-ends (PostgreSQL's LIKE is case-sensitive).
fn like(sql: &mut Sql, col: &str, raw: &str) {
    sql.push_bind(
        &format!(" AND LOWER({col}) LIKE LOWER(?) ESCAPE '\\'"),
        [Value::Text(like_contains(raw))],
    );
}

/// Runs a paged list: `SELECT {columns} {from_where}{filters} ORDER BY ... LIMIT/OFFSET`, plus the
/// matching count. `from_where` is trusted text such as `FROM t WHERE tenant_id = ?` with its
/// values; `default_order` applies when the request names no sort.
pub async fn fetch_page<T>(
    db: &Db,
    columns: &str,
    from_where: Sql,
    query: &ListQuery,
    fields: &[Field],
    default_order: &str,
) -> Result<Page<T>, ApiError>
where
    T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
{
    fetch_page_with(db, columns, from_where, query, fields, default_order, |row| {
        Ok(T::from_row(row)?)
    })
    .await
}

/// [`fetch_page`] with each row turned into a record by `map`.
pub async fn fetch_page_with<T>(
    db: &Db,
    columns: &str,
    from_where: Sql,
    query: &ListQuery,
    fields: &[Field],
    default_order: &str,
    map: impl Fn(&AnyRow) -> Result<T, ApiError>,
) -> Result<Page<T>, ApiError> {
    let compiled = query.compile(fields)?;
    let mut base = from_where;
    base.append(&compiled.filter);

    let mut count = Sql::new("SELECT COUNT(*) ");
    count.append(&base);
    let (text, args) = count.build()?;
    let total: i64 = sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
        .fetch_one(db.pool())
        .await?;

    let order = if compiled.order.is_empty() {
        default_order.to_owned()
    } else {
        compiled.order.join(", ")
    };
    let mut select = Sql::new(&format!("SELECT {columns} "));
    select.append(&base);
    select.push_bind(
        &format!(" ORDER BY {order} LIMIT ? OFFSET ?"),
        [Value::Int(query.size), Value::Int(query.offset())],
    );
    let (text, args) = select.build()?;
    let rows = sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_all(db.pool())
        .await?;
    let records = rows.iter().map(map).collect::<Result<Vec<T>, ApiError>>()?;
    Ok(Page::new(records, total, query.size, query.current))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[Field] = &[
        Field::new("paramName", "param_name", Kind::Text),
        Field::new("status", "status", Kind::Int),
        Field::new("createTime", "create_time", Kind::Time),
    ];

    fn q(s: &str) -> Result<ListQuery, ApiError> {
        ListQuery::from_pairs(serde_urlencoded::from_str(s).unwrap())
    }

    #[test]
    fn paging_defaults_and_limits() {
        let d = q("").unwrap();
        assert_eq!((d.current, d.size, d.offset()), (1, 10, 0));
        let p = q("current=3&size=30").unwrap();
        assert_eq!(p.offset(), 60);
        assert!(q("size=0").is_err());
        assert!(q("size=1001").is_err());
        assert!(q("current=abc").is_err());
    }

    #[test]
    fn filters_compile_to_bound_conditions() {
        let c = q("paramName=key%25&status_ge=1&createTime_datege=2026-01-01%2000:00:00&createTime_null=&descs=createTime&ascs=param_name")
            .unwrap()
            .compile(FIELDS)
            .unwrap();
        let (text, _) = c.filter.build().unwrap();
        assert_eq!(
            text,
            " AND LOWER(param_name) LIKE LOWER($1) ESCAPE '\\' AND status >= $2 AND create_time >= $3 AND create_time IS NULL"
        );
        assert_eq!(c.order, vec!["param_name ASC", "create_time DESC"]);
    }

    #[test]
    fn anything_undeclared_is_refused_not_spliced() {
        let e = q("paramName_like=x&password=1")
            .unwrap()
            .compile(FIELDS)
            .unwrap_err();
        assert!(e.to_string().contains("password"), "{e}");
        let e = q("descs=1;DROP TABLE x").unwrap().compile(FIELDS).unwrap_err();
        assert!(e.to_string().contains("DROP"), "{e}");
        assert!(
            q("status=abc").unwrap().compile(FIELDS).is_err(),
            "int field with text"
        );
        assert!(
            q("status_datege=2026-01-01").unwrap().compile(FIELDS).is_err(),
            "date op on int"
        );
        assert!(q("createTime_datege=yesterday").unwrap().compile(FIELDS).is_err());
    }

    #[test]
    fn blank_values_mean_no_filter() {
        let c = q("paramName=&status=").unwrap().compile(FIELDS).unwrap();
        assert!(c.filter.is_empty());
    }
}
