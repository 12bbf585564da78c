//! Reference data every installation starts with: the platform dictionaries
//! (`seed/dicts.toml`) and China's administrative regions (`seed/regions.tsv`).
//!
//! Dictionaries are synced at every start: an entry is added only when no row (live or deleted)
//! has its code and key, so what an administrator edited or deleted stays that way. Regions are
//! loaded once, when the table is empty, in one transaction of multi-row inserts.

use std::collections::HashSet;
use std::time::Instant;

use serde::Deserialize;

use crate::kernel::db::Db;
use crate::kernel::id::IdGenerator;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, time};

const DICTS: &str = include_str!("seed/dicts.toml");
const REGIONS: &str = include_str!("seed/regions.tsv");
/// Rows per INSERT: 6 values each stays far below both back-ends' parameter limits.
const BATCH: usize = 500;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DictFile {
    dict: Vec<SeedDict>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedDict {
    code: String,
    name: String,
    en: String,
    items: Vec<SeedItem>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedItem {
    key: String,
    value: String,
    en: String,
    #[serde(default)]
    remark: Option<String>,
}

fn dict_file() -> Result<DictFile, String> {
    toml::from_str(DICTS).map_err(|e| format!("seed/dicts.toml: {e}"))
}

/// One region of the data file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRegion {
    pub code: String,
    pub parent: String,
    pub name: String,
    pub level: i64,
}

/// The regions of the data file, parents first, with their levels.
pub fn regions() -> Result<Vec<SeedRegion>, String> {
    let mut out: Vec<SeedRegion> = Vec::with_capacity(3300);
    let mut levels: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
    for (n, line) in REGIONS.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut cols = line.split('\t');
        let (Some(code), Some(parent), Some(name), None) =
            (cols.next(), cols.next(), cols.next(), cols.next())
        else {
            return Err(format!("seed/regions.tsv line {}: expected 3 columns", n + 1));
        };
        let level = if parent == super::region::ROOT {
            1
        } else {
            levels
                .get(parent)
                .map(|l| l + 1)
                .ok_or_else(|| format!("seed/regions.tsv line {}: parent {parent} not above", n + 1))?
        };
        levels.insert(code.to_owned(), level);
        out.push(SeedRegion {
            code: code.to_owned(),
            parent: parent.to_owned(),
            name: name.to_owned(),
            level,
        });
    }
    Ok(out)
}

pub async fn run(db: &Db, ids: &IdGenerator) -> Result<(), ApiError> {
    sync_dicts(db, ids).await?;
    if let Err(e) = load_regions(db).await {
        // Another replica loading at the same moment wins on the primary key; that is fine.
        if region_count(db).await? == 0 {
            return Err(e);
        }
        tracing::info!("regions were loaded by another replica");
    }
    Ok(())
}

async fn sync_dicts(db: &Db, ids: &IdGenerator) -> Result<(), ApiError> {
    let file = dict_file().map_err(ApiError::Internal)?;
    let present: HashSet<(String, String)> = Sql::new("SELECT code, dict_key FROM blade_dict")
        .fetch_all::<(String, String), _>(db.pool())
        .await?
        .into_iter()
        .collect();
    let roots: Vec<(i64, String)> =
        Sql::new("SELECT id, code FROM blade_dict WHERE parent_id = 0 AND is_deleted = 0")
            .fetch_all::<(i64, String), _>(db.pool())
            .await?;
    let now = time::now_ms();
    let mut rows: Vec<[Value; 9]> = Vec::new();
    let root_key = super::dict::ROOT_KEY;
    for d in &file.dict {
        let known = present.contains(&(d.code.clone(), root_key.to_owned()));
        let parent = match roots.iter().find(|(_, c)| c == &d.code) {
            Some((id, _)) => *id,
            // The dictionary row was deleted by an administrator: leave the whole code alone.
            None if known => continue,
            None => {
                let id = ids.next().0;
                rows.push([
                    Value::Int(id),
                    Value::Int(0),
                    d.code.clone().into(),
                    root_key.into(),
                    d.name.clone().into(),
                    d.en.clone().into(),
                    Value::Int(rows.len() as i64 + 1),
                    Value::NullText,
                    Value::Int(now),
                ]);
                id
            }
        };
        for (i, item) in d.items.iter().enumerate() {
            if present.contains(&(d.code.clone(), item.key.clone())) {
                continue;
            }
            rows.push([
                Value::Int(ids.next().0),
                Value::Int(parent),
                d.code.clone().into(),
                item.key.clone().into(),
                item.value.clone().into(),
                item.en.clone().into(),
                Value::Int(i as i64 + 1),
                item.remark.clone().into(),
                Value::Int(now),
            ]);
        }
    }
    if rows.is_empty() {
        return Ok(());
    }
    let added = rows.len();
    let mut tx = db.begin_write().await?;
    for chunk in rows.chunks(BATCH) {
        let mut sql = Sql::new(
            "INSERT INTO blade_dict (id, parent_id, code, dict_key, dict_value, dict_value_en, sort, remark, create_time) VALUES ",
        );
        for (i, row) in chunk.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            sql.push_bind("(?, ?, ?, ?, ?, ?, ?, ?, ?)", row.iter().cloned());
        }
        sql.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    tracing::info!(added, "dictionary rows added from seed/dicts.toml");
    Ok(())
}

async fn region_count(db: &Db) -> Result<i64, ApiError> {
    Sql::new("SELECT COUNT(*) FROM blade_region")
        .scalar::<i64, _>(db.pool())
        .await
}

async fn load_regions(db: &Db) -> Result<(), ApiError> {
    if region_count(db).await? > 0 {
        return Ok(());
    }
    let started = Instant::now();
    let all = regions().map_err(ApiError::Internal)?;
    let mut tx = db.begin_write().await?;
    // Sort within a parent follows the code, which is the official order.
    let mut sort = std::collections::HashMap::<&str, i64>::new();
    for chunk in all.chunks(BATCH) {
        let mut sql = Sql::new("INSERT INTO blade_region (code, parent_code, name, level, sort) VALUES ");
        for (i, r) in chunk.iter().enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            let n = sort.entry(r.parent.as_str()).or_insert(0);
            *n += 1;
            sql.push_bind(
                "(?, ?, ?, ?, ?)",
                [
                    r.code.clone().into(),
                    r.parent.clone().into(),
                    r.name.clone().into(),
                    Value::Int(r.level),
                    Value::Int(*n),
                ],
            );
        }
        sql.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    tracing::info!(
        regions = all.len(),
        ms = started.elapsed().as_millis() as u64,
        "regions loaded from seed/regions.tsv"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dictionary_file_parses_with_unique_keys() {
        let file = dict_file().unwrap();
        let mut codes = HashSet::new();
        for d in &file.dict {
            assert!(codes.insert(d.code.clone()), "duplicate {}", d.code);
            let keys: HashSet<&str> = d.items.iter().map(|i| i.key.as_str()).collect();
            assert_eq!(keys.len(), d.items.len(), "{}", d.code);
            assert!(!d.items.is_empty() && !d.en.is_empty(), "{}", d.code);
            assert!(d.items.iter().all(|i| i.key != super::super::dict::ROOT_KEY));
        }
        for code in [
            "yes_no",
            "is_sealed",
            "sex",
            "org_category",
            "post_category",
            "station_state",
            "station_type",
            "installation_status",
            "electricity_price_type",
            "price_segment_type",
            "inverter_manufacturer",
            "contribution_way",
            "connected_type",
            "device_type",
            "meter_role",
            "camera_brand",
            "repair_status",
            "inspection_status",
            "run_situation",
            "alarm_type",
            "alarm_level",
            "flow",
            "data_scope_type",
            "api_scope_type",
        ] {
            assert!(codes.contains(code), "{code} seeded");
        }
    }

    #[test]
    fn the_region_file_is_a_three_level_tree_of_unique_codes() {
        let all = regions().unwrap();
        let codes: HashSet<&str> = all.iter().map(|r| r.code.as_str()).collect();
        assert_eq!(codes.len(), all.len());
        assert!(all.len() > 3000, "{}", all.len());
        assert_eq!(all.iter().filter(|r| r.level == 1).count(), 34);
        assert!(all.iter().all(|r| (1..=3).contains(&r.level)));
        assert!(
            all.iter()
                .all(|r| r.code.len() == 6 && r.code.bytes().all(|b| b.is_ascii_digit()))
        );
    }
}
