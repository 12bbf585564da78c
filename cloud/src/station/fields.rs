//! Declared fields of the station domain's records: how each travels on the wire, how it is
//! checked (with the message in both languages) and how it is stored. Stations and every device
//! registry declare their columns once here and share parsing, checking and serialising.

use std::collections::HashMap;

use pv_shared::regmap::DeviceKind;
use serde_json::{Map, Value as Json};
use sqlx::Row;
use sqlx::any::AnyRow;

use crate::kernel::list::{Field, Kind};
use crate::kernel::sql::Value;
use crate::kernel::{ApiError, time};
use crate::station::context::StationCtx;

#[derive(Debug, Clone, Copy)]
pub enum Ty {
    /// Text of at most this many characters.
    Text(usize),
    /// A mobile number: 11 digits starting with 1 (spec section 5).
    Phone,
    /// A number within bounds with at most `decimals` places (spec: 2 or 4).
    Float {
        min: f64,
        max: f64,
        decimals: usize,
    },
    Int {
        min: i64,
        max: i64,
    },
    /// The key of an entry of the platform dictionary with this code, stored as text.
    Dict(&'static str),
    /// The id of a register map of this kind (`firmware-configs`).
    MapModel(DeviceKind),
    /// Write-only: stored encrypted, never answered (the answer says `{name}Set`).
    Secret(usize),
    /// A wire date-time stored as epoch ms.
    Time,
    /// A day `yyyy-MM-dd`, stored as epoch ms of its midnight in the wire offset.
    Date,
    /// A 64-bit id (string on the wire).
    Id,
    /// Positive integers, at most this many, stored comma-joined.
    IntList(usize),
}

#[derive(Debug, Clone, Copy)]
pub struct Col {
    /// camelCase wire name.
    pub name: &'static str,
    pub column: &'static str,
    pub ty: Ty,
    pub zh: &'static str,
    pub en: &'static str,
    pub required: bool,
    /// Offered as a list filter (`name=`; text contains, others equal).
    pub filter: bool,
    /// A NOT NULL column with a default: left blank, it takes the default on insert and keeps
    /// its value on update instead of becoming NULL.
    pub defaulted: bool,
}

impl Col {
    pub const fn new(
        name: &'static str,
        column: &'static str,
        ty: Ty,
        zh: &'static str,
        en: &'static str,
    ) -> Self {
        Col {
            name,
            column,
            ty,
            zh,
            en,
            required: false,
            filter: false,
            defaulted: false,
        }
    }

    pub const fn defaulted(mut self) -> Self {
        self.defaulted = true;
        self
    }

    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }

    pub const fn filter(mut self) -> Self {
        self.filter = true;
        self
    }

    pub fn missing(&self) -> ApiError {
        match self.ty {
            Ty::Dict(_) | Ty::MapModel(_) | Ty::Id | Ty::Time | Ty::Date => ApiError::bad_request(
                format!("请选择{}", self.zh),
                format!("Please select the {}", self.en),
            ),
            _ => ApiError::bad_request(
                format!("请输入{}", self.zh),
                format!("Please enter the {}", self.en),
            ),
        }
    }

    fn invalid(&self, raw: &str) -> ApiError {
        ApiError::bad_request(
            format!("{}无效：{raw}", self.zh),
            format!("Invalid {}: {raw}", self.en),
        )
    }
}

/// A parsed field ready to bind.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub col: &'static Col,
    pub value: Value,
}

/// The value a parsed record gives `name`, if it was submitted.
pub fn value_of<'a>(parsed: &'a [Parsed], name: &str) -> Option<&'a Value> {
    parsed.iter().find(|p| p.col.name == name).map(|p| &p.value)
}

fn scalar_text(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.trim().to_owned()),
        Json::Number(n) => Some(n.to_string()),
        Json::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn is_blank(v: &Json) -> bool {
    match v {
        Json::Null => true,
        Json::String(s) => s.trim().is_empty(),
        Json::Array(a) => a.is_empty(),
        _ => false,
    }
}

fn null_of(ty: Ty) -> Value {
    match ty {
        Ty::Text(_) | Ty::Phone | Ty::Dict(_) | Ty::MapModel(_) | Ty::Secret(_) | Ty::IntList(_) => {
            Value::NullText
        }
        // Typed like the column: a cached PostgreSQL statement keeps its first parameter types.
        Ty::Float { .. } => Value::NullFloat,
        Ty::Int { .. } | Ty::Time | Ty::Date | Ty::Id => Value::Null,
    }
}

fn decimals_of(s: &str) -> usize {
    s.split_once('.')
        .map(|(_, d)| d.trim_end_matches('0').len())
        .unwrap_or(0)
}

/// Checks the submitted `body` against `cols`. Every declared field present is parsed; a
/// required field must be present and not blank (except write-only ones, which callers check
/// on insert: an update that leaves them out keeps the stored value); present-but-blank
/// optional fields become NULL. Dictionary keys and map models are checked against their lists.
pub async fn parse(
    state: &StationCtx,
    cols: &'static [Col],
    body: &Map<String, Json>,
) -> Result<Vec<Parsed>, ApiError> {
    let mut out = Vec::new();
    let mut dicts: HashMap<&'static str, Vec<String>> = HashMap::new();
    for col in cols {
        let raw = body.get(col.name);
        let blank = raw.is_none_or(is_blank);
        if blank {
            if col.required && !matches!(col.ty, Ty::Secret(_)) {
                return Err(col.missing());
            }
            // Absent: the column default applies (insert) or the value stays (update's merge
            // carries stored values, so only write-only fields are ever absent there).
            // A blank write-only field means "unchanged": forms never show the stored value.
            if raw.is_none() || col.required || col.defaulted || matches!(col.ty, Ty::Secret(_)) {
                continue;
            }
            out.push(Parsed {
                col,
                value: null_of(col.ty),
            });
            continue;
        }
        let raw = raw.unwrap_or(&Json::Null);
        let value = match col.ty {
            Ty::IntList(max) => {
                let items: Vec<Json> = match raw {
                    Json::Array(a) => a.clone(),
                    Json::String(s) => s
                        .split(',')
                        .filter(|p| !p.trim().is_empty())
                        .map(|p| Json::String(p.trim().to_owned()))
                        .collect(),
                    other => vec![other.clone()],
                };
                if items.len() > max {
                    return Err(col.invalid(&raw.to_string()));
                }
                let mut nums = Vec::new();
                for item in &items {
                    let n = scalar_text(item)
                        .and_then(|t| t.parse::<i64>().ok())
                        .filter(|n| (1..=10_000).contains(n))
                        .ok_or_else(|| col.invalid(&raw.to_string()))?;
                    nums.push(n.to_string());
                }
                Value::Text(nums.join(","))
            }
            _ => {
                let text = scalar_text(raw).ok_or_else(|| col.invalid(&raw.to_string()))?;
                parse_scalar(state, col, &text, &mut dicts).await?
            }
        };
        out.push(Parsed { col, value });
    }
    Ok(out)
}

async fn parse_scalar(
    state: &StationCtx,
    col: &'static Col,
    text: &str,
    dicts: &mut HashMap<&'static str, Vec<String>>,
) -> Result<Value, ApiError> {
    let too_long = |max: usize| {
        ApiError::bad_request(
            format!("{}长度不能超过{max}个字符", col.zh),
            format!("The {} must be at most {max} characters", col.en),
        )
    };
    Ok(match col.ty {
        Ty::Text(max) | Ty::Secret(max) => {
            if text.chars().count() > max {
                return Err(too_long(max));
            }
            if let Ty::Secret(_) = col.ty {
                Value::Text(
                    state
                        .services
                        .seal(text)
                        .map_err(|e| ApiError::Internal(format!("seal: {e}")))?,
                )
            } else {
                Value::Text(text.to_owned())
            }
        }
        Ty::Phone => {
            if text.len() != 11 || !text.starts_with('1') || !text.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ApiError::bad_request(
                    format!("{}：请输入正确的11位手机号码", col.zh),
                    format!("{}: please enter a valid 11-digit mobile number", col.en),
                ));
            }
            Value::Text(text.to_owned())
        }
        Ty::Float { min, max, decimals } => {
            let v = text
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && decimals_of(text) <= decimals)
                .ok_or_else(|| {
                    ApiError::bad_request(
                        format!("{}：请输入正确的数字", col.zh),
                        format!(
                            "{}: please enter a valid number (at most {decimals} decimals)",
                            col.en
                        ),
                    )
                })?;
            if v < min || v > max {
                return Err(ApiError::bad_request(
                    format!("{}必须在{min}到{max}之间", col.zh),
                    format!("The {} must be between {min} and {max}", col.en),
                ));
            }
            Value::Float(v)
        }
        Ty::Int { min, max } => {
            let v = text.parse::<i64>().map_err(|_| col.invalid(text))?;
            if v < min || v > max {
                return Err(ApiError::bad_request(
                    format!("{}必须在{min}到{max}之间", col.zh),
                    format!("The {} must be between {min} and {max}", col.en),
                ));
            }
            Value::Int(v)
        }
        Ty::Dict(code) => {
            if !dicts.contains_key(code) {
                let keys = crate::system::dict::system_entries(state, code)
                    .await?
                    .into_iter()
                    .map(|e| e.dict_key)
                    .collect();
                dicts.insert(code, keys);
            }
            if !dicts.get(code).is_some_and(|keys| keys.iter().any(|k| k == text)) {
                return Err(col.invalid(text));
            }
            Value::Text(text.to_owned())
        }
        Ty::MapModel(kind) => {
            if !state.services.map_model(text).is_some_and(|m| m.kind == kind) {
                return Err(ApiError::bad_request(
                    format!("{}不存在：{text}", col.zh),
                    format!(
                        "Unknown {} {text}: it must name a register map in firmware-configs",
                        col.en
                    ),
                ));
            }
            Value::Text(text.to_owned())
        }
        Ty::Time => Value::Int(time::parse_ms(text).ok_or_else(|| col.invalid(text))?),
        Ty::Date => Value::Int(parse_day(text).ok_or_else(|| col.invalid(text))?),
        Ty::Id => Value::Int(
            text.parse::<crate::kernel::Id>()
                .map_err(|_| col.invalid(text))?
                .0,
        ),
        Ty::IntList(_) => Value::Text(text.to_owned()),
    })
}

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
        let v = match c.ty {
            Ty::Text(_) | Ty::Phone | Ty::Dict(_) | Ty::MapModel(_) => row
                .try_get::<Option<String>, _>(c.column)?
                .map(Json::String)
                .unwrap_or(Json::Null),
            Ty::Secret(_) => {
                let set = row.try_get::<Option<String>, _>(c.column)?.is_some();
                into.insert(format!("{}Set", c.name), Json::Bool(set));
                continue;
            }
            Ty::Float { .. } => row
                .try_get::<Option<f64>, _>(c.column)?
                .map(Json::from)
                .unwrap_or(Json::Null),
            Ty::Int { .. } => row
                .try_get::<Option<i64>, _>(c.column)?
                .map(Json::from)
                .unwrap_or(Json::Null),
            Ty::Time => row
                .try_get::<Option<i64>, _>(c.column)?
                .map(|ms| Json::String(time::format_ms(ms)))
                .unwrap_or(Json::Null),
            Ty::Date => row
                .try_get::<Option<i64>, _>(c.column)?
                .map(|ms| Json::String(format_day(ms)))
                .unwrap_or(Json::Null),
            Ty::Id => row
                .try_get::<Option<i64>, _>(c.column)?
                .map(|i| Json::String(i.to_string()))
                .unwrap_or(Json::Null),
            Ty::IntList(_) => row
                .try_get::<Option<String>, _>(c.column)?
                .map(|s| {
                    Json::Array(
                        s.split(',')
                            .filter_map(|p| p.trim().parse::<i64>().ok())
                            .map(Json::from)
                            .collect(),
                    )
                })
                .unwrap_or(Json::Null),
        };
        into.insert(c.name.to_owned(), v);
    }
    Ok(())
}

/// List filters for the declared `filter` columns (unqualified: list queries read one table).
/// Text filters mean "contains"; dictionary keys compare exactly through [`exact_filters`].
pub fn list_fields(cols: &'static [Col], extra: &[Field]) -> Vec<Field> {
    let mut out: Vec<Field> = extra.to_vec();
    for c in cols.iter().filter(|c| c.filter) {
        let kind = match c.ty {
            Ty::Text(_) | Ty::Phone => Kind::Text,
            Ty::Float { .. } => Kind::Float,
            Ty::Int { .. } | Ty::Id => Kind::Int,
            Ty::Time | Ty::Date => Kind::Time,
            Ty::Dict(_) | Ty::MapModel(_) | Ty::Secret(_) | Ty::IntList(_) => continue,
        };
        out.push(Field::new(c.name, c.column, kind));
    }
    out
}

/// Takes dictionary-key filters (`state=1`) out of `query` as exact conditions.
pub fn exact_filters(
    cols: &'static [Col],
    query: &mut crate::kernel::list::ListQuery,
) -> crate::kernel::sql::Sql {
    let mut sql = crate::kernel::sql::Sql::default();
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

/// `yyyy-MM-dd` (a date-time's day also counts) → epoch ms of that day's midnight.
pub fn parse_day(text: &str) -> Option<i64> {
    let day = text.trim().get(..10)?;
    chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()?;
    time::parse_ms(day)
}

/// Epoch ms → `yyyy-MM-dd` in the wire offset.
pub fn format_day(ms: i64) -> String {
    time::format_ms(ms).chars().take(10).collect()
}
