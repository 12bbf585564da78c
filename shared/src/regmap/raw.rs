//! A map as written in its file, before any check.
//!
//! Every value keeps its span so a later check can name the line; `deny_unknown_fields` turns a
//! misspelt key (`scael`) into an error instead of a silently ignored default.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMap {
    pub device: Spanned<RawDevice>,
    pub limits: Option<Spanned<RawLimits>>,
    pub sunspec: Option<Spanned<RawSunSpec>>,
    #[serde(default)]
    pub setting: Vec<Spanned<RawSetting>>,
    #[serde(default)]
    pub point: Vec<Spanned<RawPoint>>,
    #[serde(default)]
    pub status: Vec<Spanned<RawStatus>>,
    #[serde(default)]
    pub fault: Vec<Spanned<RawFault>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDevice {
    pub manufacturer: Spanned<String>,
    pub model: Spanned<String>,
    pub kind: Spanned<String>,
    pub source: Spanned<String>,
    /// Patterns (`*`, `?`) for the model a unit reports, to suggest this map when scanning.
    #[serde(default)]
    pub match_model: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLimits {
    pub max_block: Option<Spanned<i64>>,
    pub function: Option<Spanned<i64>>,
    pub word_order: Option<Spanned<String>>,
    pub byte_order: Option<Spanned<String>>,
    pub max_gap: Option<Spanned<i64>>,
    pub sentinels: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSunSpec {
    pub models: Vec<Spanned<RawModel>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawModel {
    pub id: i64,
    pub length: i64,
    #[serde(default)]
    pub accept: Vec<i64>,
    /// An optional extension (e.g. 160 MPPT): its absence is reported, but it does not make the
    /// map fit on its own.
    #[serde(default)]
    pub extension: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPoint {
    pub metric: Spanned<String>,
    pub unit: Spanned<String>,
    #[serde(rename = "type")]
    pub data_type: Spanned<String>,
    pub address: Option<Spanned<i64>>,
    pub model: Option<Spanned<i64>>,
    pub offset: Option<Spanned<i64>>,
    pub words: Option<Spanned<i64>>,
    pub scale: Option<Spanned<f64>>,
    /// Scale-factor register: an offset in the same SunSpec model, or an absolute address.
    pub sf: Option<Spanned<i64>>,
    pub function: Option<Spanned<i64>>,
    /// Expand `{n}` in the metric into this many points, `stride` registers apart.
    pub repeat: Option<Spanned<i64>>,
    pub stride: Option<Spanned<i64>>,
    /// First `n` of a repeated point (default 1).
    pub first: Option<Spanned<i64>>,
    /// A set-point the gateway may write on command.
    pub writable: Option<Spanned<bool>>,
    /// Settings under which the point exists (a map variant), e.g. `{ output_type = "3p3w" }`.
    pub when: Option<Spanned<BTreeMap<String, Spanned<String>>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSetting {
    pub name: Spanned<String>,
    pub values: Spanned<Vec<Spanned<String>>>,
    pub default: Spanned<String>,
    pub zh: String,
    pub en: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStatus {
    pub code: Spanned<i64>,
    pub zh: String,
    pub en: String,
    pub state: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFault {
    pub point: Option<Spanned<String>>,
    pub code: Option<Spanned<i64>>,
    pub bit: Option<Spanned<i64>>,
    pub id: Option<i64>,
    pub zh: String,
    pub en: String,
    pub severity: Spanned<String>,
}
