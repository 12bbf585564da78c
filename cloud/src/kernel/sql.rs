//! Dynamic SQL with bound values only. Fragments mark each value with `?`; rendering turns the
//! marks into `$1, $2, ...`, which both PostgreSQL and SQLite (through sqlx) accept, so one
//! statement text serves both back-ends. No value is ever formatted into the text.

use sqlx::any::{AnyArguments, AnyRow};
use sqlx::{Any, Arguments, Executor, FromRow};

use super::error::ApiError;
use super::id::Id;
use super::lang::Text;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(String),
    Int(i64),
    Float(f64),
    /// NULL for an integer column. PostgreSQL checks a parameter's declared type against its
    /// column, so a NULL must be declared with the column's type.
    Null,
    /// NULL for a text column.
    NullText,
    /// NULL for a DOUBLE PRECISION column, written into the text as a literal `NULL` rather than
    /// bound. Not `Null`: PostgreSQL prepares a statement with the parameter types of its first
    /// execution and sqlx caches it by text, so a statement first run with an integer-typed NULL
    /// would later read a float's bytes as an integer; and the Any driver's float-typed NULL is
    /// refused by PostgreSQL. With the literal, "with a value" and "without" are two statements.
    NullFloat,
    /// Binary content (BLOB on SQLite, BYTEA on PostgreSQL).
    Bytes(Vec<u8>),
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(v.to_owned())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Text(v)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<Option<String>> for Value {
    fn from(v: Option<String>) -> Self {
        v.map(Value::Text).unwrap_or(Value::NullText)
    }
}
impl From<crate::kernel::id::Id> for Value {
    fn from(v: crate::kernel::id::Id) -> Self {
        Value::Int(v.0)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}

/// A statement being built: text with `?` marks and the values in mark order.
#[derive(Debug, Clone, Default)]
pub struct Sql {
    text: String,
    values: Vec<Value>,
    /// Marks rendered as SQLite's anonymous `?` instead of `$n` (see [`Sql::anonymous_marks`]).
    anonymous: bool,
}

impl Sql {
    pub fn new(text: &str) -> Self {
        Sql {
            text: text.to_owned(),
            values: Vec::new(),
            anonymous: false,
        }
    }

    /// Renders the marks as anonymous `?` (SQLite only; PostgreSQL needs `$n`). sqlx's SQLite
    /// driver asks for every parameter's name before binding it, and SQLite finds a named
    /// parameter's name by walking the statement's list of names: binding `$1..$n` costs the
    /// square of `n` (a 3 500-value insert spent most of the writer's time there), while an
    /// anonymous mark has no name to look up. For the large multi-row statements of ingest.
    pub fn anonymous_marks(&mut self) -> &mut Self {
        self.anonymous = true;
        self
    }

    /// Appends trusted SQL text (written in the code, never from a request).
    pub fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    /// Appends a fragment whose `?` marks take `values` in order.
    pub fn push_bind(&mut self, fragment: &str, values: impl IntoIterator<Item = Value>) -> &mut Self {
        self.text.push_str(fragment);
        self.values.extend(values);
        self
    }

    pub fn append(&mut self, other: &Sql) -> &mut Self {
        self.text.push_str(&other.text);
        self.values.extend(other.values.iter().cloned());
        self
    }

    pub fn is_empty(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// The statement text with numbered placeholders, and its arguments.
    pub fn build(&self) -> Result<(String, AnyArguments), ApiError> {
        let marks = self.text.matches('?').count();
        if marks != self.values.len() {
            return Err(ApiError::Internal(format!(
                "statement has {marks} marks but {} values: {}",
                self.values.len(),
                self.text
            )));
        }
        let mut text = String::with_capacity(self.text.len() + marks * 2);
        let mut mark = 0;
        let mut n = 0;
        for ch in self.text.chars() {
            if ch == '?' {
                if self.values[mark] == Value::NullFloat {
                    text.push_str("NULL");
                } else if self.anonymous {
                    text.push('?');
                } else {
                    n += 1;
                    text.push('$');
                    text.push_str(&n.to_string());
                }
                mark += 1;
            } else {
                text.push(ch);
            }
        }
        let mut args = AnyArguments::default();
        for v in self.values.iter().filter(|v| **v != Value::NullFloat) {
            let added = match v {
                Value::Text(s) => args.add(s.clone()),
                Value::Int(i) => args.add(*i),
                Value::Float(f) => args.add(*f),
                Value::Null => args.add(Option::<i64>::None),
                Value::NullText => args.add(Option::<String>::None),
                Value::NullFloat => Ok(()),
                Value::Bytes(b) => args.add(b.clone()),
            };
            added.map_err(|e| ApiError::Internal(format!("bind: {e}")))?;
        }
        Ok((text, args))
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Appends `?, ?, ?` bound to `ids` (callers guarantee at least one).
    pub fn push_ids(&mut self, ids: &[Id]) -> &mut Self {
        let marks = vec!["?"; ids.len()].join(", ");
        self.push_bind(&marks, ids.iter().map(|i| Value::Int(i.0)))
    }
}

/// Running a statement. Every domain reads and writes through these, on a pool
/// (`db.pool()`) or inside a transaction (`&mut *tx`), so there is one place where a statement
/// is built, bound and run.
impl Sql {
    /// Runs a statement; answers the number of rows it changed.
    pub async fn execute<'e, E: Executor<'e, Database = Any>>(&self, ex: E) -> Result<u64, ApiError> {
        let (text, args) = self.build()?;
        Ok(sqlx::query_with(sqlx::AssertSqlSafe(text), args)
            .execute(ex)
            .await?
            .rows_affected())
    }

    /// The first column of the one row the statement yields (`COUNT(*)`, `MAX(...)`...).
    pub async fn scalar<'e, T, E>(&self, ex: E) -> Result<T, ApiError>
    where
        T: for<'r> sqlx::Decode<'r, Any> + sqlx::Type<Any> + Send + Unpin,
        E: Executor<'e, Database = Any>,
    {
        let (text, args) = self.build()?;
        Ok(
            sqlx::query_scalar_with::<Any, T, _>(sqlx::AssertSqlSafe(text), args)
                .fetch_one(ex)
                .await?,
        )
    }

    /// The first column of the first row, if there is one.
    pub async fn scalar_optional<'e, T, E>(&self, ex: E) -> Result<Option<T>, ApiError>
    where
        T: for<'r> sqlx::Decode<'r, Any> + sqlx::Type<Any> + Send + Unpin,
        E: Executor<'e, Database = Any>,
    {
        let (text, args) = self.build()?;
        Ok(
            sqlx::query_scalar_with::<Any, T, _>(sqlx::AssertSqlSafe(text), args)
                .fetch_optional(ex)
                .await?,
        )
    }

    /// The first column of every row (ids, names...).
    pub async fn scalars<'e, T, E>(&self, ex: E) -> Result<Vec<T>, ApiError>
    where
        T: for<'r> sqlx::Decode<'r, Any> + sqlx::Type<Any> + Send + Unpin,
        E: Executor<'e, Database = Any>,
    {
        let (text, args) = self.build()?;
        Ok(
            sqlx::query_scalar_with::<Any, T, _>(sqlx::AssertSqlSafe(text), args)
                .fetch_all(ex)
                .await?,
        )
    }

    /// The one row the statement yields, read into a typed record; none is an error.
    pub async fn fetch_one<'e, T, E>(&self, ex: E) -> Result<T, ApiError>
    where
        T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
        E: Executor<'e, Database = Any>,
    {
        let (text, args) = self.build()?;
        Ok(sqlx::query_as_with::<Any, T, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_one(ex)
            .await?)
    }

    /// The first row, read into a typed record, if there is one.
    pub async fn fetch_optional<'e, T, E>(&self, ex: E) -> Result<Option<T>, ApiError>
    where
        T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
        E: Executor<'e, Database = Any>,
    {
        let (text, args) = self.build()?;
        Ok(sqlx::query_as_with::<Any, T, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_optional(ex)
            .await?)
    }

    /// Every row, read into typed records.
    pub async fn fetch_all<'e, T, E>(&self, ex: E) -> Result<Vec<T>, ApiError>
    where
        T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
        E: Executor<'e, Database = Any>,
    {
        let (text, args) = self.build()?;
        Ok(sqlx::query_as_with::<Any, T, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_all(ex)
            .await?)
    }

    /// Every row as it comes, for readers that pick columns by name (declared entities).
    pub async fn rows<'e, E: Executor<'e, Database = Any>>(&self, ex: E) -> Result<Vec<AnyRow>, ApiError> {
        let (text, args) = self.build()?;
        Ok(sqlx::query_with(sqlx::AssertSqlSafe(text), args)
            .fetch_all(ex)
            .await?)
    }

    /// The first row as it comes, if there is one.
    pub async fn row<'e, E: Executor<'e, Database = Any>>(&self, ex: E) -> Result<Option<AnyRow>, ApiError> {
        let (text, args) = self.build()?;
        Ok(sqlx::query_with(sqlx::AssertSqlSafe(text), args)
            .fetch_optional(ex)
            .await?)
    }
}

/// Whether a failure is the database refusing a duplicate under a unique index.
pub fn is_unique_violation(e: &ApiError) -> bool {
    matches!(e, ApiError::Database(sqlx::Error::Database(d)) if d.is_unique_violation())
}

/// Turns a unique-index refusal into the message a user understands ("this code already
/// exists"); every other failure passes through unchanged. The index is the guard (two requests
/// racing cannot both pass a check-then-insert); this only words its refusal.
pub trait UniqueAs<T> {
    fn unique_as(self, message: Text) -> Result<T, ApiError>;
    /// As `unique_as`, for messages that are built from the refused row.
    fn unique_with(self, error: impl FnOnce() -> ApiError) -> Result<T, ApiError>;
}

impl<T, E: Into<ApiError>> UniqueAs<T> for Result<T, E> {
    fn unique_as(self, message: Text) -> Result<T, ApiError> {
        self.unique_with(|| ApiError::BadRequest(message))
    }
    fn unique_with(self, error: impl FnOnce() -> ApiError) -> Result<T, ApiError> {
        self.map_err(|e| {
            let e = e.into();
            if is_unique_violation(&e) { error() } else { e }
        })
    }
}

/// Escapes `%`, `_` and `\` so a user's text matches literally inside `LIKE ... ESCAPE '\'`.
pub fn like_contains(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('%');
    for ch in s.chars() {
        if matches!(ch, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(ch);
    }
    out.push('%');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_become_numbered_placeholders() {
        let mut sql = Sql::new("SELECT * FROM t WHERE a = ?");
        sql.push_bind(" AND b IN (?, ?)", [Value::Int(1), Value::Int(2)]);
        assert!(sql.build().is_err(), "three marks, two values");
        let mut ok = Sql::new("SELECT * FROM t WHERE a = ?");
        ok.values.push("x".into());
        ok.push_bind(" AND b > ?", [Value::Float(1.5)]);
        let (text, _) = ok.build().unwrap();
        assert_eq!(text, "SELECT * FROM t WHERE a = $1 AND b > $2");
    }

    #[test]
    fn float_nulls_are_literals_and_the_rest_renumbered() {
        let mut sql = Sql::new("UPDATE t SET ");
        sql.push_bind(
            "a = ?, b = ?, c = ?",
            [Value::Float(1.5), Value::NullFloat, Value::Int(3)],
        );
        let (text, args) = sql.build().unwrap();
        assert_eq!(text, "UPDATE t SET a = $1, b = NULL, c = $2");
        assert_eq!(sqlx::Arguments::len(&args), 2);
    }

    #[test]
    fn anonymous_marks_stay_question_marks_in_order() {
        let mut sql = Sql::new("INSERT INTO t (a, b, c) VALUES ");
        sql.anonymous_marks();
        sql.push_bind(
            "(?,?,?),(?,?,?)",
            [
                Value::Int(1),
                Value::NullFloat,
                Value::from("x"),
                Value::Int(2),
                Value::Float(0.5),
                Value::NullText,
            ],
        );
        let (text, args) = sql.build().unwrap();
        assert_eq!(text, "INSERT INTO t (a, b, c) VALUES (?,NULL,?),(?,?,?)");
        assert_eq!(sqlx::Arguments::len(&args), 5);
    }

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(like_contains("50%_a\\b"), "%50\\%\\_a\\\\b%");
    }
}
