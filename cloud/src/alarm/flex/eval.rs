//! The bracket evaluator the alarm engine calls for every tracker sample: the station's enabled
//! rules (cached), each reporting its condition when its comparison holds.
//!
//! Rules are read per station and kept [`TTL`]; the setting API drops the cache of its hub on
//! every change and tells the other replicas ([`TOPIC`]), so an edit applies at the next sample
//! on every replica ([`TTL`] bounds what a lost signal could leave behind).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock, Mutex, Weak};
use std::time::{Duration, Instant};

use pv_shared::wire::Value as WireValue;
use sqlx::Row;

use super::bracket_rule::{Comparison, Rule};
use crate::alarm::condition::Condition;
use crate::kernel::id::IdGenerator;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core};
use crate::telemetry::realtime::KIND_FLEX;

/// The device a sample came from, as evaluators need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRef {
    pub device_id: i64,
    pub tenant_id: String,
    pub station_id: i64,
    /// One of `telemetry::realtime::KIND_*`; bracket rules watch `flex` devices only.
    pub kind: &'static str,
    pub name: String,
}

/// How long a station's rules are reused before being read again.
pub const TTL: Duration = Duration::from_secs(10);

struct Entry {
    read: Instant,
    rules: Arc<Vec<Rule>>,
}

/// The cache of one hub (one `Core` and its clones).
struct HubCache {
    /// `Core` has no slot for this module, so hubs are told apart by their shared id
    /// generator. Holding a `Weak` keeps that allocation, so its address cannot be reused by a
    /// later hub (tests start many in one process) while this entry exists.
    owner: Weak<IdGenerator>,
    stations: HashMap<i64, Entry>,
}

static CACHE: LazyLock<Mutex<Vec<HubCache>>> = LazyLock::new(|| Mutex::new(Vec::new()));

fn with_hub<T>(state: &Core, f: impl FnOnce(&mut HashMap<i64, Entry>) -> T) -> T {
    // A panic while holding the lock cannot leave the map half-changed in a way that matters
    // (entries are replaced whole), so a poisoned lock is used as is.
    let mut hubs = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    hubs.retain(|h| h.owner.strong_count() > 0);
    let me = Arc::downgrade(&state.ids);
    let at = match hubs.iter().position(|h| h.owner.ptr_eq(&me)) {
        Some(i) => i,
        None => {
            hubs.push(HubCache {
                owner: me,
                stations: HashMap::new(),
            });
            hubs.len() - 1
        }
    };
    f(&mut hubs[at].stations)
}

/// The cluster topic of a changed bracket rule.
pub const TOPIC: &str = "flex_rules";

/// Forgets every cached rule of this hub and of the other replicas (after a setting is added,
/// changed or removed).
pub fn invalidate(state: &Core) {
    forget(state);
    state.cluster.publish(TOPIC, crate::kernel::cluster::ALL);
}

/// Forgets every cached rule of this hub only (told by another replica).
pub fn forget(state: &Core) {
    with_hub(state, HashMap::clear);
}

/// The enabled, live rules of a station (all tenants' rows are filtered by the caller).
async fn load(state: &Core, station_id: i64) -> Result<Vec<Rule>, ApiError> {
    let mut sql = Sql::new(
        "SELECT id, tenant_id, station_id, variable, comparison, threshold, threshold_high, \
         duration_seconds, level, remark FROM pv_alarm_setting_flex WHERE ",
    );
    sql.push_bind(
        "station_id = ? AND is_deleted = 0 AND enabled = 1 ORDER BY id",
        [Value::Int(station_id)],
    );
    let rows = sql.rows(state.db.pool()).await?;
    let mut rules = Vec::with_capacity(rows.len());
    for r in rows {
        let id: i64 = r.try_get("id")?;
        let raw: String = r.try_get("comparison")?;
        // The API writes only known comparisons; a row changed by hand is skipped, not guessed.
        let Some(comparison) = Comparison::parse(&raw) else {
            tracing::warn!(setting = id, comparison = %raw, "bracket alarm rule with an unknown comparison skipped");
            continue;
        };
        rules.push(Rule {
            id,
            tenant_id: r.try_get("tenant_id")?,
            station_id: r.try_get("station_id")?,
            variable: r.try_get("variable")?,
            comparison,
            threshold: r.try_get("threshold")?,
            threshold_high: r.try_get("threshold_high")?,
            duration_seconds: r.try_get("duration_seconds")?,
            level: r.try_get("level")?,
            remark: r.try_get("remark")?,
        });
    }
    Ok(rules)
}

/// The station's rules, from the cache when fresh. When the database cannot be read, the last
/// rules known are used however old: answering "no rule" would make the engine clear every open
/// bracket alarm of the station on a passing database fault.
async fn rules_of(state: &Core, station_id: i64) -> Arc<Vec<Rule>> {
    let cached = with_hub(state, |m| {
        m.get(&station_id)
            .map(|e| (e.read.elapsed() < TTL, e.rules.clone()))
    });
    if let Some((true, rules)) = &cached {
        return rules.clone();
    }
    match load(state, station_id).await {
        Ok(rules) => {
            let rules = Arc::new(rules);
            with_hub(state, |m| {
                m.insert(
                    station_id,
                    Entry {
                        read: Instant::now(),
                        rules: rules.clone(),
                    },
                )
            });
            rules
        }
        Err(e) => {
            tracing::error!(station = station_id, error = %e, "bracket alarm rules could not be read");
            cached.map(|(_, r)| r).unwrap_or_default()
        }
    }
}

/// The alarm conditions a tracker sample shows: one per enabled rule of the device's station
/// whose comparison holds (kind `flex:<setting id>`, category `flex`, type 1, the rule's level,
/// `hold_ms` = its duration). Devices other than brackets, and samples lacking a rule's variable,
/// give nothing for that rule. `ts` is the sample's time; rules do not depend on it (the engine
/// applies the hold), it is taken so evaluators share one shape.
pub async fn conditions(
    state: &Core,
    device: &DeviceRef,
    ts: i64,
    values: &BTreeMap<String, WireValue>,
) -> Vec<Condition> {
    let _ = ts;
    if device.kind != KIND_FLEX {
        return Vec::new();
    }
    rules_of(state, device.station_id)
        .await
        .iter()
        // A station belongs to one tenant; the check keeps a mis-keyed device from borrowing
        // another tenant's rules all the same.
        .filter(|r| r.tenant_id == device.tenant_id)
        .filter_map(|r| r.evaluate(values))
        .collect()
}
