//! Reading a data source's catalogue: its tables and their columns (SQLite pragmas, PostgreSQL
//! `information_schema`), over a connection of its own that is closed after each call.
//!
//! A SQLite data source is a file inside the data directory's `datasources` folder, opened
//! read-only: the tools never create or change a file, and an address cannot reach any other
//! file of the server.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use sqlx::{AnyConnection, Connection};
use utoipa::ToSchema;

use crate::kernel::ApiError;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};

/// `category` of a SQLite file.
pub const SQLITE: i64 = 1;
/// `category` of a PostgreSQL server.
pub const POSTGRES: i64 = 2;

/// The folder of the data directory SQLite data sources live in.
pub const FOLDER: &str = "datasources";

/// Where a data source points, its password in the clear (never stored like this).
#[derive(Debug, Clone)]
pub struct Target {
    pub category: i64,
    pub url: String,
    pub username: Option<String>,
    pub password: Option<String>,
}

const BAD_SQLITE_NAME: Text = Text::new(
    "SQLite 数据源须为数据目录 datasources 文件夹中的文件名（如 spare.db），不能含路径",
    "A SQLite data source is a file name in the data directory's datasources folder (e.g. spare.db), without a path",
);
const BAD_PG_URL: Text = Text::new(
    "PostgreSQL 连接地址须形如 postgres://主机:端口/数据库",
    "A PostgreSQL address looks like postgres://host:port/database",
);

/// Refuses an address that cannot be one of `category`.
pub fn check_address(category: i64, url: &str) -> Result<(), ApiError> {
    if category == SQLITE {
        let ok = !url.is_empty()
            && url.len() <= 128
            && !url.starts_with('.')
            && url
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        return if ok {
            Ok(())
        } else {
            Err(ApiError::BadRequest(BAD_SQLITE_NAME))
        };
    }
    let rest = url
        .strip_prefix("postgres://")
        .or_else(|| url.strip_prefix("postgresql://"))
        .ok_or(ApiError::BadRequest(BAD_PG_URL))?;
    let (host, database) = rest.split_once('/').ok_or(ApiError::BadRequest(BAD_PG_URL))?;
    let database = database.split('?').next().unwrap_or("");
    if host.is_empty() || database.is_empty() {
        return Err(ApiError::BadRequest(BAD_PG_URL));
    }
    Ok(())
}

fn failed(detail: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(
        format!("连接失败：{detail}"),
        format!("Connection failed: {detail}"),
    )
}

/// The URL sqlx dials: the SQLite file read-only, or the PostgreSQL address with the user and
/// password of the form (percent-encoded) in place of any the address carries.
fn dial_url(data_dir: &Path, t: &Target) -> Result<String, ApiError> {
    check_address(t.category, &t.url)?;
    if t.category == SQLITE {
        // Read-only: a missing file fails to open (SQLite's own message) instead of being made.
        let file = data_dir.join(FOLDER).join(&t.url);
        return Ok(format!("sqlite://{}?mode=ro", file.display()));
    }
    let (scheme, rest) = t.url.split_once("://").ok_or(ApiError::BadRequest(BAD_PG_URL))?;
    let (authority, path) = rest.split_once('/').ok_or(ApiError::BadRequest(BAD_PG_URL))?;
    let (given, host) = match authority.rsplit_once('@') {
        Some((user, host)) => (Some(user), host),
        None => (None, authority),
    };
    let user = match (&t.username, given) {
        (Some(u), _) => {
            let mut s = encode(u);
            if let Some(p) = &t.password {
                s.push(':');
                s.push_str(&encode(p));
            }
            Some(s)
        }
        (None, Some(g)) => Some(g.to_owned()),
        (None, None) => None,
    };
    Ok(match user {
        Some(u) => format!("{scheme}://{u}@{host}/{path}"),
        None => format!("{scheme}://{host}/{path}"),
    })
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Opens a connection to the data source within 5 s.
pub async fn connect(data_dir: &Path, t: &Target) -> Result<AnyConnection, ApiError> {
    let url = dial_url(data_dir, t)?;
    match tokio::time::timeout(Duration::from_secs(5), AnyConnection::connect(&url)).await {
        Ok(Ok(conn)) => Ok(conn),
        Ok(Err(e)) => Err(failed(error_text(&e))),
        Err(_) => Err(failed("timed out after 5 s")),
    }
}

/// The server's own words: a database error's message, not sqlx's wrapping of it.
fn error_text(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(d) => d.message().to_owned(),
        other => other.to_string(),
    }
}

/// What the server says it is.
pub async fn version(conn: &mut AnyConnection, category: i64) -> Result<String, ApiError> {
    let sql = if category == POSTGRES {
        "SELECT version()"
    } else {
        "SELECT 'SQLite ' || sqlite_version()"
    };
    Sql::new(sql)
        .scalar::<String, _>(&mut *conn)
        .await
        .map_err(|e| failed(e.to_string()))
}

/// A table of a data source.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TableName {
    pub name: String,
    /// The table's comment (PostgreSQL), if any.
    pub comment: Option<String>,
}

/// The tables a model can be made from, by name.
pub async fn tables(conn: &mut AnyConnection, category: i64) -> Result<Vec<TableName>, ApiError> {
    let sql = if category == POSTGRES {
        "SELECT CAST(c.relname AS TEXT), CAST(obj_description(c.oid, 'pg_class') AS TEXT) \
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1"
    } else {
        "SELECT name, CAST(NULL AS TEXT) FROM sqlite_master \
         WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY 1"
    };
    let rows = Sql::new(sql)
        .fetch_all::<(String, Option<String>), _>(&mut *conn)
        .await
        .map_err(|e| failed(e.to_string()))?;
    Ok(rows
        .into_iter()
        .map(|(name, comment)| TableName { name, comment })
        .collect())
}

/// A column of a table as the catalogue declares it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ColumnInfo {
    pub name: String,
    /// The declared type (`VARCHAR(64)`, `INTEGER`, `numeric`...).
    #[serde(rename = "type")]
    pub ty: String,
    pub nullable: bool,
    pub primary_key: bool,
    /// The declared length of a text column.
    pub max_length: Option<i64>,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TableInfo {
    pub table_name: String,
    pub columns: Vec<ColumnInfo>,
}

const NO_TABLE: Text = Text::new("数据源中没有该表", "The data source has no such table");

/// The columns of `table`, in their declared order; 400 when there is no such table.
pub async fn columns(conn: &mut AnyConnection, category: i64, table: &str) -> Result<TableInfo, ApiError> {
    let known = tables(conn, category).await?;
    if !known.iter().any(|t| t.name == table) {
        return Err(ApiError::BadRequest(NO_TABLE));
    }
    let columns = if category == POSTGRES {
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT CAST(c.column_name AS TEXT), \
             CAST(CASE WHEN c.character_maximum_length IS NOT NULL \
                  THEN c.data_type || '(' || c.character_maximum_length || ')' ELSE c.data_type END AS TEXT), \
             CAST(CASE WHEN c.is_nullable = 'YES' THEN 1 ELSE 0 END AS BIGINT), \
             CAST(CASE WHEN k.column_name IS NULL THEN 0 ELSE 1 END AS BIGINT), \
             CAST(c.character_maximum_length AS BIGINT), \
             CAST(col_description(CAST(quote_ident(c.table_name) AS regclass), CAST(c.ordinal_position AS INTEGER)) AS TEXT) \
             FROM information_schema.columns c \
             LEFT JOIN (SELECT ku.column_name FROM information_schema.table_constraints tc \
                JOIN information_schema.key_column_usage ku ON ku.constraint_name = tc.constraint_name \
                 AND ku.table_schema = tc.table_schema AND ku.table_name = tc.table_name \
                WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = 'public' AND tc.table_name = ?) k \
               ON k.column_name = c.column_name \
             WHERE c.table_schema = 'public' AND c.table_name = ? ORDER BY c.ordinal_position",
            [Value::from(table), Value::from(table)],
        );
        sql.fetch_all::<(String, String, i64, i64, Option<i64>, Option<String>), _>(&mut *conn)
            .await
            .map_err(|e| failed(e.to_string()))?
            .into_iter()
            .map(|(name, ty, nullable, pk, max_length, comment)| ColumnInfo {
                name,
                ty,
                nullable: nullable == 1,
                primary_key: pk == 1,
                max_length,
                comment,
            })
            .collect()
    } else {
        // The table name comes from the catalogue itself (checked above), quoted as an identifier.
        let sql = format!(
            "SELECT name, type, \"notnull\", pk FROM pragma_table_info('{}')",
            table.replace('\'', "''")
        );
        Sql::new(&sql)
            .fetch_all::<(String, String, i64, i64), _>(&mut *conn)
            .await
            .map_err(|e| failed(e.to_string()))?
            .into_iter()
            .map(|(name, ty, notnull, pk)| ColumnInfo {
                max_length: if is_text(&ty) { declared_length(&ty) } else { None },
                name,
                ty,
                nullable: notnull == 0 && pk == 0,
                primary_key: pk > 0,
                comment: None,
            })
            .collect()
    };
    Ok(TableInfo {
        table_name: table.to_owned(),
        columns,
    })
}

/// Whether a declared SQLite type holds text (SQLite's own affinity rule: CHAR, CLOB or TEXT).
fn is_text(ty: &str) -> bool {
    let t = ty.to_ascii_uppercase();
    ["CHAR", "CLOB", "TEXT"].iter().any(|k| t.contains(k))
}

/// `VARCHAR(64)` → 64.
pub fn declared_length(ty: &str) -> Option<i64> {
    let open = ty.find('(')?;
    let close = ty[open..].find(')')? + open;
    ty[open + 1..close].split(',').next()?.trim().parse().ok()
}
