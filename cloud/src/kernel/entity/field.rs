//! Declared fields of an entity: how each travels on the wire, how it is checked (with the
//! message in both languages) and how it is stored. What only a domain can tell (whether a
//! dictionary key exists, whether a register map fits a device kind, how a secret is sealed)
//! comes in through [`Validate`], so this file depends on no domain.

use std::collections::HashMap;

use pv_shared::regmap::DeviceKind;
use serde_json::{Map, Value as Json};

use crate::kernel::sql::Value;
use crate::kernel::{ApiError, Id, time};

/// A boxed future of a domain check (object-safe, `Send` so handlers stay `Send`).
pub type CheckFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, ApiError>> + Send + 'a>>;

/// The domain's answers that field checks need; the adapter that parses a body passes its own.
pub trait Validate: Sync {
    /// The keys of the platform dictionary `code`.
    fn dict_keys<'a>(&'a self, code: &'static str) -> CheckFuture<'a, Vec<String>>;
    /// Whether `id` names a register map of `kind`.
    fn map_model_fits(&self, id: &str, kind: DeviceKind) -> bool;
    /// The stored (encrypted) form of a write-only value.
    fn seal(&self, plain: &str) -> Result<String, ApiError>;
}

#[derive(Debug, Clone, Copy)]
pub enum Ty {
    /// Text of at most this many characters.
    Text(usize),
    /// A mobile number: 11 digits starting with 1.
    Phone,
    /// A number within bounds with at most `decimals` places (2 for sizes, 4 for prices).
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

impl Ty {
    /// Text without a length limit.
    pub const TEXT: Ty = Ty::Text(0);

    /// Integers from `min` to `max` (how the code generator's entities spell bounds).
    pub const fn int(min: i64, max: i64) -> Ty {
        Ty::Int { min, max }
    }

    /// A number from `min` to `max` with at most four decimals.
    pub const fn number(min: f64, max: f64) -> Ty {
        Ty::Float {
            min,
            max,
            decimals: 4,
        }
    }
    /// Any integer (sort orders, categories...): a JSON number.
    pub const INT: Ty = Ty::Int {
        min: i64::MIN,
        max: i64::MAX,
    };
    /// Any finite number.
    pub const FLOAT: Ty = Ty::Float {
        min: f64::MIN,
        max: f64::MAX,
        decimals: usize::MAX,
    };
}

/// A message in zh and en, kept as plain strings so declarations can be `static`.
pub type Msg = (&'static str, &'static str);

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
    /// The message when a submit leaves it empty, for fields declared without a label
    /// (the admin console's entities); labelled fields say "please enter {label}".
    pub required_as: Option<Msg>,
    /// The message when another live row (of the tenant) already has this value.
    pub unique: Option<Msg>,
    /// Accepted from a body (read-only fields such as `createTime` are not).
    pub writable: bool,
    /// Accepted from a body but never read back (a secret a hook stores hashed).
    pub write_only: bool,
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
            required_as: None,
            unique: None,
            writable: true,
            write_only: false,
        }
    }

    /// A field without a label; its messages are declared with it or generic.
    pub const fn of(name: &'static str, column: &'static str, ty: Ty) -> Self {
        Col::new(name, column, ty, "", "")
    }

    /// Required, with this message when left empty.
    pub const fn required_as(mut self, zh: &'static str, en: &'static str) -> Self {
        self.required = true;
        self.required_as = Some((zh, en));
        self
    }

    /// Longest text accepted, in characters.
    pub const fn max(mut self, len: usize) -> Self {
        if let Ty::Text(_) = self.ty {
            self.ty = Ty::Text(len);
        }
        self
    }

    pub const fn unique(mut self, zh: &'static str, en: &'static str) -> Self {
        self.unique = Some((zh, en));
        self
    }

    pub const fn write_only(mut self) -> Self {
        self.write_only = true;
        self
    }

    pub const fn read_only(mut self) -> Self {
        self.writable = false;
        self
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
        if let Some((zh, en)) = self.required_as {
            return ApiError::BadRequest(crate::kernel::lang::Text::new(zh, en));
        }
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
    state: &dyn Validate,
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
    state: &dyn Validate,
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
            if max > 0 && text.chars().count() > max {
                return Err(too_long(max));
            }
            if let Ty::Secret(_) = col.ty {
                Value::Text(state.seal(text)?)
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
                dicts.insert(code, state.dict_keys(code).await?);
            }
            if !dicts.get(code).is_some_and(|keys| keys.iter().any(|k| k == text)) {
                return Err(col.invalid(text));
            }
            Value::Text(text.to_owned())
        }
        Ty::MapModel(kind) => {
            if !state.map_model_fits(text, kind) {
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
        Ty::Id => Value::Int(text.parse::<Id>().map_err(|_| col.invalid(text))?.0),
        Ty::IntList(_) => Value::Text(text.to_owned()),
    })
}

/// The admin console's check of one submitted value (its messages name the field, not a
/// label); `None` when absent or blank.
pub fn parse_plain(col: &Col, raw: Option<&Json>) -> Result<Option<Value>, ApiError> {
    let bad = || {
        ApiError::bad_request(
            format!("字段 {} 的值无效", col.name),
            format!("invalid value for {}", col.name),
        )
    };
    let Some(raw) = raw.filter(|v| !v.is_null() && v.as_str().is_none_or(|s| !s.trim().is_empty())) else {
        return Ok(None);
    };
    let text = || match raw {
        Json::String(s) => Some(s.trim().to_owned()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    };
    // A labelled column (the code generator's entities) is checked and named like the rich
    // path does; the unlabelled admin-console ones keep their terse answers.
    let labelled = !col.zh.is_empty();
    let out_of_range = |min: &dyn std::fmt::Display, max: &dyn std::fmt::Display| {
        ApiError::bad_request(
            format!("{}必须在{min}到{max}之间", col.zh),
            format!("The {} must be between {min} and {max}", col.en),
        )
    };
    let v = match col.ty {
        Ty::Text(max) => {
            let s = text().ok_or_else(bad)?;
            if max > 0 && s.chars().count() > max {
                if labelled {
                    return Err(ApiError::bad_request(
                        format!("{}长度不能超过{max}个字符", col.zh),
                        format!("The {} must be at most {max} characters", col.en),
                    ));
                }
                return Err(ApiError::BadRequest(TOO_LONG));
            }
            Value::Text(s)
        }
        Ty::Int { min, max } if labelled => {
            let v: i64 = text().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
            if v < min || v > max {
                return Err(out_of_range(&min, &max));
            }
            Value::Int(v)
        }
        Ty::Float { min, max, .. } if labelled => {
            let v: f64 = text()
                .and_then(|s| s.parse().ok())
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(bad)?;
            if v < min || v > max {
                return Err(out_of_range(&min, &max));
            }
            Value::Float(v)
        }
        Ty::Int { .. } | Ty::Id => Value::Int(text().and_then(|s| s.parse().ok()).ok_or_else(bad)?),
        Ty::Float { .. } => Value::Float(text().and_then(|s| s.parse().ok()).ok_or_else(bad)?),
        Ty::Time => Value::Int(text().and_then(|s| time::parse_ms(&s)).ok_or_else(bad)?),
        Ty::Date => Value::Int(text().and_then(|s| parse_day(&s)).ok_or_else(bad)?),
        _ => return Err(bad()),
    };
    Ok(Some(v))
}

const TOO_LONG: crate::kernel::lang::Text =
    crate::kernel::lang::Text::new("输入内容过长", "The text is too long");

/// The NULL a blank optional field stores, typed like its column: a cached PostgreSQL
/// statement keeps its first parameter types.
pub fn null_value(col: &Col) -> Value {
    null_of(col.ty)
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
