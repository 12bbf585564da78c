//! Human cells in station and inverter workbooks: a dictionary-coded field is written as its
//! label in the caller's language and a region code as the region's name; an import reads back
//! a label (in either language), a name or the raw key, so an exported sheet imports again.

use std::collections::HashMap;

use serde_json::{Map, Value as Json};

use super::fields::{Col, Ty};
use crate::kernel::lang::Lang;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core};
use crate::system::dict::{self, Entry};
use crate::system::region::ROOT;

/// Region fields, outermost first: each one's parent is the one before it.
const REGION_FIELDS: [&str; 3] = ["provinceCode", "cityCode", "districtCode"];

/// The dictionaries a sheet's columns name, read once per export or import.
pub struct Labels {
    dicts: HashMap<&'static str, Vec<Entry>>,
}

impl Labels {
    pub async fn load(state: &Core, cols: &[&'static Col]) -> Result<Labels, ApiError> {
        let mut dicts = HashMap::new();
        for col in cols {
            if let Ty::Dict(code) = col.ty
                && !dicts.contains_key(code)
            {
                dicts.insert(code, dict::system_entries(state, code).await?);
            }
        }
        Ok(Labels { dicts })
    }

    /// The cell of a dictionary field: the entry's label in `lang`, or the stored value itself
    /// when it is no key of the dictionary (kept rather than lost).
    pub fn label(&self, col: &Col, value: &Json, lang: Lang) -> Json {
        let (Ty::Dict(code), Some(key)) = (col.ty, key_text(value)) else {
            return value.clone();
        };
        match self
            .dicts
            .get(code)
            .and_then(|entries| entries.iter().find(|e| e.dict_key == key))
        {
            Some(entry) => Json::String(entry.clone().in_lang(lang).dict_value),
            None => value.clone(),
        }
    }

    /// An imported dictionary cell back to its key: a key, or a label in either language.
    pub fn key(&self, col: &Col, value: &Json) -> Json {
        let (Ty::Dict(code), Some(text)) = (col.ty, key_text(value)) else {
            return value.clone();
        };
        let Some(entries) = self.dicts.get(code) else {
            return value.clone();
        };
        if entries.iter().any(|e| e.dict_key == text) {
            return value.clone();
        }
        entries
            .iter()
            .find(|e| {
                e.dict_value == text
                    || e.dict_value_en
                        .as_deref()
                        .is_some_and(|en| en.trim().eq_ignore_ascii_case(&text))
            })
            .map_or_else(|| value.clone(), |e| Json::String(e.dict_key.clone()))
    }
}

fn key_text(value: &Json) -> Option<String> {
    match value {
        Json::String(s) => Some(s.trim().to_owned()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Whether `name` is one of the region fields.
pub fn is_region(name: &str) -> bool {
    REGION_FIELDS.contains(&name)
}

/// Names of the region codes found in `records` (code → name).
pub async fn region_names(state: &Core, records: &[Json]) -> Result<HashMap<String, String>, ApiError> {
    let mut codes: Vec<String> = records
        .iter()
        .flat_map(|r| REGION_FIELDS.iter().filter_map(|f| r.get(*f).and_then(key_text)))
        .filter(|c| !c.is_empty())
        .collect();
    codes.sort();
    codes.dedup();
    let mut out = HashMap::new();
    for chunk in codes.chunks(500) {
        let mut sql = Sql::new("SELECT code, name FROM blade_region WHERE code IN (");
        for (i, c) in chunk.iter().enumerate() {
            sql.push_bind(if i == 0 { "?" } else { ", ?" }, [Value::Text(c.clone())]);
        }
        sql.push(")");
        out.extend(sql.fetch_all::<(String, String), _>(state.db.pool()).await?);
    }
    Ok(out)
}

/// An imported row's region names back to codes, each looked up under its parent (a province
/// among provinces, a city within its province...). A code, or a name that matches nothing, is
/// left for the field checks to judge.
pub async fn region_codes(state: &Core, body: &mut Map<String, Json>) -> Result<(), ApiError> {
    let mut parent = ROOT.to_owned();
    for field in REGION_FIELDS {
        let Some(text) = body.get(field).and_then(key_text).filter(|t| !t.is_empty()) else {
            return Ok(());
        };
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT code FROM blade_region WHERE parent_code = ? AND (code = ? OR name = ?) ORDER BY code LIMIT 1",
            [Value::Text(parent.clone()), Value::Text(text.clone()), Value::Text(text.clone())],
        );
        let Some(code) = sql.scalar_optional::<String, _>(state.db.pool()).await? else {
            return Ok(());
        };
        body.insert(field.to_owned(), Json::String(code.clone()));
        parent = code;
    }
    Ok(())
}
