//! Where alarms are kept (`pv_alarm`, migration 0011): raising, re-triggering and clearing.
//!
//! "At most one open alarm per (station, device, kind)" is the partial unique index
//! `ux_pv_alarm_open`, not a check here: `raise` tries to insert and, when an open row already
//! exists (or another evaluator won the race), updates that row instead. Every change that the
//! bell shows wakes the tenant's feeds through `notify`.

use sqlx::Row;

use crate::alarm::context::AlarmCtx;
use crate::kernel::db::Db;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id};

pub use crate::alarm::codes::*;

/// A condition seen now, to be raised (or to re-trigger the open alarm of the same kind).
#[derive(Debug, Clone, PartialEq)]
pub struct Raise {
    pub tenant_id: String,
    pub station_id: i64,
    /// 0 for the station or its gateway.
    pub device_id: i64,
    /// `inverter`, `meter`, `weather`, `flex`, `gateway` or `station`.
    pub device_kind: String,
    pub device_name: String,
    /// Identifies the condition within the device, e.g. `fault:fault_code:2001`, `comm:device`.
    pub kind: String,
    /// `fault`, `comm`, `threshold`, `flex`, `dispersion` or `hday`.
    pub category: String,
    pub r#type: i64,
    pub level: i64,
    pub code: String,
    pub name: String,
    pub name_en: String,
    pub detail: String,
    pub detail_en: String,
    pub value: Option<f64>,
    pub threshold: Option<f64>,
    /// When the condition was seen (epoch ms, the sample's time).
    pub at: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raised {
    /// A new alarm row.
    New(Id),
    /// The open alarm of this kind was re-triggered.
    Updated(Id),
}

impl Raised {
    pub fn id(self) -> Id {
        match self {
            Raised::New(id) | Raised::Updated(id) => id,
        }
    }
}

async fn open_id(db: &Db, station_id: i64, device_id: i64, kind: &str) -> Result<Option<Id>, ApiError> {
    let mut sql = Sql::new("SELECT id FROM pv_alarm WHERE ");
    sql.push_bind(
        "station_id = ? AND device_id = ? AND kind = ? AND status < 2",
        [Value::Int(station_id), Value::Int(device_id), Value::from(kind)],
    );
    Ok(sql.scalar_optional::<i64, _>(db.pool()).await?.map(Id))
}

/// Re-triggers the open alarm of the condition's kind, or opens a new one.
pub async fn raise(state: &AlarmCtx, r: &Raise) -> Result<Raised, ApiError> {
    // Stored at most 96 characters long: every statement must use the same key.
    let kind = truncate(&r.kind, 96);
    // Twice at most: if the open row is cleared between the failed insert and the update,
    // the second insert succeeds.
    for _ in 0..2 {
        let id = state.ids.next();
        let mut ins = Sql::new(
            "INSERT INTO pv_alarm (id, tenant_id, station_id, device_id, device_kind, device_name, kind, \
             category, type, level, code, name, name_en, detail, detail_en, value, threshold, status, \
             first_time, last_time, occurrences, create_time) VALUES ",
        );
        ins.push_bind(
            "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,0,?,?,1,?)",
            [
                Value::from(id),
                Value::from(r.tenant_id.as_str()),
                Value::Int(r.station_id),
                Value::Int(r.device_id),
                Value::from(r.device_kind.as_str()),
                Value::from(truncate(&r.device_name, 100)),
                Value::from(kind.as_str()),
                Value::from(r.category.as_str()),
                Value::Int(r.r#type),
                Value::Int(r.level),
                Value::from(truncate(&r.code, 32)),
                Value::from(truncate(&r.name, 200)),
                Value::from(truncate(&r.name_en, 200)),
                Value::from(truncate(&r.detail, 1000)),
                Value::from(truncate(&r.detail_en, 1000)),
                opt_float(r.value),
                opt_float(r.threshold),
                Value::Int(r.at),
                Value::Int(r.at),
                Value::Int(crate::kernel::time::now_ms()),
            ],
        );
        ins.push(" ON CONFLICT DO NOTHING");
        if ins.execute(state.db.pool()).await? == 1 {
            notify(state, &r.tenant_id);
            return Ok(Raised::New(id));
        }
        let mut up = Sql::new("UPDATE pv_alarm SET ");
        up.push_bind(
            "occurrences = occurrences + 1, last_time = CASE WHEN last_time < ? THEN ? ELSE last_time END, \
             level = ?, value = ?, threshold = ?, detail = ?, detail_en = ?, condition_end_time = NULL \
             WHERE station_id = ? AND device_id = ? AND kind = ? AND status < 2",
            [
                Value::Int(r.at),
                Value::Int(r.at),
                Value::Int(r.level),
                opt_float(r.value),
                opt_float(r.threshold),
                Value::from(truncate(&r.detail, 1000)),
                Value::from(truncate(&r.detail_en, 1000)),
                Value::Int(r.station_id),
                Value::Int(r.device_id),
                Value::from(kind.as_str()),
            ],
        );
        if up.execute(state.db.pool()).await? > 0
            && let Some(id) = open_id(&state.db, r.station_id, r.device_id, &kind).await?
        {
            return Ok(Raised::Updated(id));
        }
    }
    Err(ApiError::Internal(format!(
        "alarm {} of device {} could be neither opened nor updated",
        r.kind, r.device_id
    )))
}

/// Clears the open alarm of a condition that has ended (by the system: `clear_user` 0).
/// Returns its id, or `None` when no alarm of that kind was open. An alarm with an open repair
/// order stays open instead: the end is recorded on it (`repair::link::hold_open`) and `None`
/// is returned.
pub async fn clear_auto(
    state: &AlarmCtx,
    tenant_id: &str,
    station_id: i64,
    device_id: i64,
    kind: &str,
    at: i64,
) -> Result<Option<Id>, ApiError> {
    let kind = truncate(kind, 96);
    let Some(id) = open_id(&state.db, station_id, device_id, &kind).await? else {
        return Ok(None);
    };
    if crate::repair::link::hold_open(&state.core, id, at).await? {
        notify(state, tenant_id);
        return Ok(None);
    }
    let mut sql = Sql::new("UPDATE pv_alarm SET ");
    sql.push_bind(
        "status = 2, clear_user = 0, clear_time = ? WHERE id = ? AND status < 2",
        [Value::Int(at), Value::from(id)],
    );
    if sql.execute(state.db.pool()).await? == 0 {
        return Ok(None);
    }
    notify(state, tenant_id);
    // SMS and e-mail off the evaluation path, as the raise's messages are.
    let core = state.core.clone();
    let busy = core.shutdown.busy();
    tokio::spawn(async move {
        let _busy = busy;
        if let Err(e) = crate::alarm::message::notify_cleared(&core, id).await {
            tracing::warn!(alarm = %id, error = %e, "cleared-alarm notifications not queued");
        }
    });
    Ok(Some(id))
}

/// What was removed from the registry: its open alarms can never clear by themselves.
#[derive(Debug, Clone, Copy)]
pub enum Removed<'a> {
    Devices(&'a [i64]),
    Stations(&'a [i64]),
}

/// Clears the open alarms of removed devices or stations, as done by `user` with a note saying
/// why (a removed device sends no sample that could end its condition). Returns how many.
pub async fn clear_removed(
    state: &AlarmCtx,
    tenant_id: &str,
    removed: Removed<'_>,
    user: i64,
    at: i64,
) -> Result<u64, ApiError> {
    let (column, ids) = match removed {
        Removed::Devices(ids) => ("device_id", ids),
        Removed::Stations(ids) => ("station_id", ids),
    };
    if ids.is_empty() {
        return Ok(0);
    }
    let mut sql = Sql::new("UPDATE pv_alarm SET ");
    // By tenant: `tenant_id` is the tenant of the caller who removed the devices or stations.
    sql.push_bind(
        "status = 2, clear_user = ?, clear_time = ?, clear_note = ? WHERE tenant_id = ? AND status < 2 AND ",
        [
            Value::Int(user),
            Value::Int(at),
            Value::from("设备或电站已删除 / device or station removed"),
            Value::from(tenant_id),
        ],
    );
    sql.push(column);
    sql.push(" IN (");
    sql.push_ids(&ids.iter().copied().map(Id).collect::<Vec<_>>());
    sql.push(")");
    let n = sql.execute(state.db.pool()).await?;
    if n > 0 {
        notify(state, tenant_id);
    }
    Ok(n)
}

/// The kinds of the open alarms of one device (0: the station / gateway itself).
pub async fn open_kinds(db: &Db, station_id: i64, device_id: i64) -> Result<Vec<String>, ApiError> {
    let mut sql = Sql::new("SELECT kind FROM pv_alarm WHERE ");
    sql.push_bind(
        "station_id = ? AND device_id = ? AND status < 2 ORDER BY kind",
        [Value::Int(station_id), Value::Int(device_id)],
    );
    sql.scalars(db.pool()).await
}

/// Every open alarm as (tenant, station, device, kind): what an evaluator starting up must know
/// so that conditions which ended while it was down still get cleared.
pub async fn open_all(db: &Db) -> Result<Vec<(String, i64, i64, String)>, ApiError> {
    let rows = Sql::new("SELECT tenant_id, station_id, device_id, kind FROM pv_alarm WHERE status < 2")
        .rows(db.pool())
        .await?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("tenant_id")?,
                r.try_get("station_id")?,
                r.try_get("device_id")?,
                r.try_get("kind")?,
            ))
        })
        .collect()
}

/// Wakes the bell feeds of a tenant (each connection re-reads its own, scoped list).
pub fn notify(state: &AlarmCtx, tenant_id: &str) {
    // No receiver (nobody signed in) is not an error.
    let _ = state.alarms.changes.send(tenant_id.to_owned());
    // Browsers signed in on other replicas ring too (they re-read the same tables).
    state.cluster.publish(BELL, tenant_id);
}

/// The cluster topic that wakes the bell feeds of a tenant on every replica (the key is the tenant).
pub const BELL: &str = "bell";

fn truncate(s: &str, max_chars: usize) -> String {
    s.chars().take(max_chars).collect()
}

/// A float or a float-typed NULL (an integer-typed one would fix the cached statement's
/// parameter type on PostgreSQL, and a later float would be read as an integer's bytes).
fn opt_float(v: Option<f64>) -> Value {
    v.map(Value::Float).unwrap_or(Value::NullFloat)
}
