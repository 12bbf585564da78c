//! `/api/energyCorrection/...`: the counter steps that were not counted as read, for the
//! administrators of the stations they belong to, and the corrections they make: exclude an
//! interval, accept a rejected step as energy, confirm a step as found. A correction is never
//! deleted: it is withdrawn, with who and why. Making or withdrawing one marks the rolled-up
//! buckets it touches, and the rollup worker recomputes them with everything summed above them,
//! so reports, bills and revenue follow. Rules: `docs/reports.md`, "Counters" and "Corrections".

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::{IntoParams, ToSchema};

use super::counter::Kind;
use super::store::{BUCKET_MS, mark_for_recompute};
use crate::auth::scope::Scoped;
use crate::kernel::extract::{Json, Query};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::time::{self, Timestamp};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page};

/// The page (menu) whose holders see the steps and corrections.
pub const MENU: &str = "energyCorrection";
/// The button that makes and withdraws corrections.
pub const CORRECT: &str = "energyCorrection_correct";
const REASON_MAX: usize = 500;
/// The longest interval one exclusion may cover.
const EXCLUDE_MAX_MS: i64 = 366 * 86_400_000;

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct EventQuery {
    pub station_id: Option<Id>,
    pub device_id: Option<Id>,
    /// glitch | reset | rebase | rejected
    pub kind: Option<String>,
    /// `yyyy-MM-dd HH:mm:ss` (or `yyyy-MM-dd`): steps from then on.
    pub start_time: Option<String>,
    /// Steps before then.
    pub end_time: Option<String>,
    pub current: Option<i64>,
    pub size: Option<i64>,
}

/// The correction that decides about a step, if any.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepDecision {
    pub id: Id,
    /// accept | confirm
    pub kind: String,
    pub reason: String,
    pub create_time: Timestamp,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CounterStep {
    pub station_id: Id,
    pub station_name: String,
    pub device_id: Id,
    pub device_name: Option<String>,
    pub device_sn: Option<String>,
    /// inverter | meter | ...
    pub device_kind: String,
    /// energy_total | energy_import | energy_export
    pub metric: String,
    /// glitch | reset | rebase | rejected
    pub kind: String,
    /// The step's first reading.
    pub time: Timestamp,
    /// The reading counted from before the step (kWh) and when it was read.
    pub old_kwh: f64,
    pub old_time: Timestamp,
    /// The step's first and last reading (kWh).
    pub new_kwh: f64,
    pub last_kwh: f64,
    pub readings: i64,
    /// What the step itself counted (kWh): the new reading for a reset, an accepted step, else 0.
    pub counted_kwh: f64,
    pub decided_time: Timestamp,
    pub decision: Option<StepDecision>,
}

fn paging(current: Option<i64>, size: Option<i64>) -> (i64, i64) {
    (current.unwrap_or(1).max(1), size.unwrap_or(10).clamp(1, 200))
}

fn time_param(v: Option<&str>, zh: &str, en: &str) -> Result<Option<i64>, ApiError> {
    match v.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => time::parse_ms(s).map(Some).ok_or_else(|| {
            ApiError::bad_request(
                format!("{zh}格式应为 yyyy-MM-dd HH:mm:ss"),
                format!("{en} must be yyyy-MM-dd HH:mm:ss"),
            )
        }),
    }
}

/// Fails with 403 unless the caller holds `code`.
async fn require(core: &Core, scoped: &Scoped, code: &str) -> Result<(), ApiError> {
    scoped.caller.require(core, code).await
}

fn step_of(r: &AnyRow) -> Result<CounterStep, ApiError> {
    let decision = match r.try_get::<Option<i64>, _>("c_id")? {
        Some(id) => Some(StepDecision {
            id: Id(id),
            kind: r.try_get("c_kind")?,
            reason: r.try_get("c_reason")?,
            create_time: Timestamp(r.try_get("c_time")?),
        }),
        None => None,
    };
    Ok(CounterStep {
        station_id: Id(r.try_get("station_id")?),
        station_name: r.try_get("station_name")?,
        device_id: Id(r.try_get("device_id")?),
        device_name: r.try_get("device_name")?,
        device_sn: r.try_get("device_sn")?,
        device_kind: r.try_get("device_kind")?,
        metric: r.try_get("metric")?,
        kind: r.try_get("kind")?,
        time: Timestamp(r.try_get("ts")?),
        old_kwh: r.try_get::<f64, _>("old_value")? / 1000.0,
        old_time: Timestamp(r.try_get("old_ts")?),
        new_kwh: r.try_get::<f64, _>("new_value")? / 1000.0,
        last_kwh: r.try_get::<f64, _>("last_value")? / 1000.0,
        readings: r.try_get("readings")?,
        counted_kwh: r.try_get::<f64, _>("counted_wh")? / 1000.0,
        decided_time: Timestamp(r.try_get("decided_ts")?),
        decision,
    })
}

/// The steps of counters that were not counted as read, newest first.
#[utoipa::path(get, path = "/api/energyCorrection/events", tag = "energy",
    params(EventQuery),
    responses((status = 200, body = Envelope<Page<CounterStep>>), (status = 400), (status = 403)))]
pub async fn events(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<EventQuery>,
) -> ApiResult<Data<Page<CounterStep>>> {
    require(&core, &scoped, MENU).await?;
    let from = time_param(q.start_time.as_deref(), "开始时间", "Start time")?;
    let to = time_param(q.end_time.as_deref(), "结束时间", "End time")?;
    let kind = match q.kind.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        None => None,
        Some(k) => Some(Kind::parse(k).ok_or_else(|| {
            ApiError::bad_request(
                "类型应为 glitch、reset、rebase 或 rejected",
                "kind must be glitch, reset, rebase or rejected",
            )
        })?),
    };
    let filters = base_filters(&scoped, &q, kind, from, to);
    let mut count =
        Sql::new("SELECT COUNT(*) FROM pv_counter_event e JOIN pv_station s ON s.id = e.station_id WHERE ");
    count.append(&filters);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let (current, size) = paging(q.current, q.size);
    // With the newest decision in force about each step.
    let mut sql = Sql::new(
        "SELECT e.station_id, s.name AS station_name, e.device_id, COALESCE(i.name, m.name) AS device_name, \
         COALESCE(i.sn, m.sn) AS device_sn, e.device_kind, e.metric, e.kind, e.ts, e.old_value, e.old_ts, \
         e.new_value, e.last_value, e.readings, e.counted_wh, e.decided_ts, \
         c.id AS c_id, c.kind AS c_kind, c.reason AS c_reason, c.create_time AS c_time \
         FROM pv_counter_event e JOIN pv_station s ON s.id = e.station_id \
         LEFT JOIN pv_inverter i ON i.id = e.device_id LEFT JOIN pv_meter m ON m.id = e.device_id \
         LEFT JOIN pv_energy_correction c ON c.id = (SELECT MAX(c2.id) FROM pv_energy_correction c2 \
           WHERE c2.device_id = e.device_id AND c2.metric = e.metric AND c2.event_ts = e.ts \
           AND c2.withdrawn = 0 AND c2.kind IN ('accept', 'confirm')) WHERE ",
    );
    sql.append(&filters);
    sql.push_bind(
        " ORDER BY e.ts DESC, e.device_id, e.metric LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let records = sql
        .rows(core.db.pool())
        .await?
        .iter()
        .map(step_of)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Data(Page::new(records, total, size, current)))
}

fn base_filters(
    scoped: &Scoped,
    q: &EventQuery,
    kind: Option<Kind>,
    from: Option<i64>,
    to: Option<i64>,
) -> Sql {
    let mut base = scoped.stations.stations("s");
    if let Some(s) = q.station_id {
        base.push_bind(" AND e.station_id = ?", [Value::Int(s.0)]);
    }
    if let Some(d) = q.device_id {
        base.push_bind(" AND e.device_id = ?", [Value::Int(d.0)]);
    }
    if let Some(k) = kind {
        base.push_bind(" AND e.kind = ?", [Value::from(k.as_str())]);
    }
    if let Some(f) = from {
        base.push_bind(" AND e.ts >= ?", [Value::Int(f)]);
    }
    if let Some(t) = to {
        base.push_bind(" AND e.ts < ?", [Value::Int(t)]);
    }
    base
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct CorrectionQuery {
    pub station_id: Option<Id>,
    /// Include withdrawn corrections (default: only those in force).
    pub with_withdrawn: Option<bool>,
    pub current: Option<i64>,
    pub size: Option<i64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Correction {
    pub id: Id,
    pub station_id: Id,
    pub station_name: String,
    /// None: every device of the station.
    pub device_id: Option<Id>,
    pub device_name: Option<String>,
    /// exclude | accept | confirm
    pub kind: String,
    pub metric: Option<String>,
    pub from_time: Option<Timestamp>,
    pub to_time: Option<Timestamp>,
    pub event_time: Option<Timestamp>,
    pub reason: String,
    pub create_user: Id,
    pub create_user_name: Option<String>,
    pub create_time: Timestamp,
    pub withdrawn: bool,
    pub withdraw_time: Option<Timestamp>,
    pub withdraw_reason: Option<String>,
}

fn correction_of(r: &AnyRow) -> Result<Correction, ApiError> {
    let ts = |name: &str| -> Result<Option<Timestamp>, ApiError> {
        Ok(r.try_get::<Option<i64>, _>(name)?.map(Timestamp))
    };
    Ok(Correction {
        id: Id(r.try_get("id")?),
        station_id: Id(r.try_get("station_id")?),
        station_name: r.try_get("station_name")?,
        device_id: r.try_get::<Option<i64>, _>("device_id")?.map(Id),
        device_name: r.try_get("device_name")?,
        kind: r.try_get("kind")?,
        metric: r.try_get("metric")?,
        from_time: ts("from_ts")?,
        to_time: ts("to_ts")?,
        event_time: ts("event_ts")?,
        reason: r.try_get("reason")?,
        create_user: Id(r.try_get("create_user")?),
        create_user_name: r.try_get("create_user_name")?,
        create_time: Timestamp(r.try_get("create_time")?),
        withdrawn: r.try_get::<i64, _>("withdrawn")? != 0,
        withdraw_time: ts("withdraw_time")?,
        withdraw_reason: r.try_get("withdraw_reason")?,
    })
}

const CORRECTION_COLUMNS: &str = "c.id, c.station_id, s.name AS station_name, c.device_id, \
    COALESCE(i.name, m.name) AS device_name, c.kind, c.metric, c.from_ts, c.to_ts, c.event_ts, c.reason, \
    c.create_user, u.real_name AS create_user_name, c.create_time, c.withdrawn, c.withdraw_time, c.withdraw_reason \
    FROM pv_energy_correction c JOIN pv_station s ON s.id = c.station_id \
    LEFT JOIN pv_inverter i ON i.id = c.device_id LEFT JOIN pv_meter m ON m.id = c.device_id \
    LEFT JOIN blade_user u ON u.id = c.create_user WHERE ";

/// The corrections of the caller's stations, newest first.
#[utoipa::path(get, path = "/api/energyCorrection/list", tag = "energy",
    params(CorrectionQuery),
    responses((status = 200, body = Envelope<Page<Correction>>), (status = 403)))]
pub async fn list(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<CorrectionQuery>,
) -> ApiResult<Data<Page<Correction>>> {
    require(&core, &scoped, MENU).await?;
    let mut filters = scoped.stations.stations("s");
    if let Some(s) = q.station_id {
        filters.push_bind(" AND c.station_id = ?", [Value::Int(s.0)]);
    }
    if !q.with_withdrawn.unwrap_or(false) {
        filters.push(" AND c.withdrawn = 0");
    }
    let mut count = Sql::new(
        "SELECT COUNT(*) FROM pv_energy_correction c JOIN pv_station s ON s.id = c.station_id WHERE ",
    );
    count.append(&filters);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let (current, size) = paging(q.current, q.size);
    let mut sql = Sql::new(&format!("SELECT {CORRECTION_COLUMNS}"));
    sql.append(&filters);
    sql.push_bind(
        " ORDER BY c.create_time DESC, c.id DESC LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let records = sql
        .rows(core.db.pool())
        .await?
        .iter()
        .map(correction_of)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Data(Page::new(records, total, size, current)))
}

/// A new correction.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CorrectionForm {
    pub station_id: Id,
    /// The device; none for `exclude` means every device of the station.
    pub device_id: Option<Id>,
    /// exclude | accept | confirm
    pub kind: String,
    /// The counter of the step (`accept`, `confirm`).
    pub metric: Option<String>,
    /// The interval excluded (`exclude`), `yyyy-MM-dd HH:mm:ss`.
    pub from_time: Option<String>,
    pub to_time: Option<String>,
    /// The step's first reading (`accept`, `confirm`): the `time` of a listed step.
    pub event_time: Option<String>,
    pub reason: Option<String>,
}

fn reason_of(v: Option<&str>) -> Result<String, ApiError> {
    let v = v.map(str::trim).unwrap_or("");
    if v.is_empty() {
        return Err(ApiError::bad_request("请填写修正原因", "Please enter the reason"));
    }
    if v.chars().count() > REASON_MAX {
        return Err(ApiError::bad_request(
            format!("修正原因不能超过{REASON_MAX}个字符"),
            format!("The reason must not exceed {REASON_MAX} characters"),
        ));
    }
    Ok(v.to_owned())
}

/// The station if the caller may see it.
async fn visible_station(core: &Core, scoped: &Scoped, station: Id) -> Result<(), ApiError> {
    let mut sql = Sql::new("SELECT s.id FROM pv_station s WHERE ");
    sql.append(&scoped.stations.stations("s"));
    sql.push_bind(" AND s.id = ?", [Value::Int(station.0)]);
    match sql.scalar_optional::<i64, _>(core.db.pool()).await? {
        Some(_) => Ok(()),
        None => Err(ApiError::not_found()),
    }
}

/// The devices of `station` whose counters are counted (every one with telemetry).
async fn station_devices(core: &Core, station: Id) -> Result<Vec<i64>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT device_id FROM pv_telemetry_latest WHERE station_id = ? ORDER BY device_id",
        [Value::Int(station.0)],
    );
    sql.scalars::<i64, _>(core.db.pool()).await
}

/// The step a correction refers to: its kind and the bucket that decided it.
async fn step_at(
    core: &Core,
    device: Id,
    metric: &str,
    ts: i64,
) -> Result<Option<(String, f64, f64, i64)>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT kind, old_value, new_value, decided_bucket FROM pv_counter_event \
         WHERE device_id = ? AND metric = ? AND ts = ?",
        [Value::Int(device.0), Value::from(metric), Value::Int(ts)],
    );
    let Some(r) = sql.row(core.db.pool()).await? else {
        return Ok(None);
    };
    Ok(Some((
        r.try_get("kind")?,
        r.try_get("old_value")?,
        r.try_get("new_value")?,
        r.try_get("decided_bucket")?,
    )))
}

/// What a correction touches: devices and the [from, to) span of their buckets to recompute.
struct Reach {
    devices: Vec<i64>,
    from: i64,
    to: i64,
}

async fn reach_of(core: &Core, row: &AnyRow) -> Result<Option<Reach>, ApiError> {
    let station: i64 = row.try_get("station_id")?;
    let device: Option<i64> = row.try_get("device_id")?;
    let kind: String = row.try_get("kind")?;
    match kind.as_str() {
        "exclude" => {
            let devices = match device {
                Some(d) => vec![d],
                None => station_devices(core, Id(station)).await?,
            };
            let (Some(from), Some(to)) = (row.try_get::<Option<i64>, _>("from_ts")?, row.try_get("to_ts")?)
            else {
                return Ok(None);
            };
            Ok(Some(Reach { devices, from, to }))
        }
        "accept" => {
            let (Some(d), Some(metric), Some(ts)) = (
                device,
                row.try_get::<Option<String>, _>("metric")?,
                row.try_get::<Option<i64>, _>("event_ts")?,
            ) else {
                return Ok(None);
            };
            Ok(step_at(core, Id(d), &metric, ts)
                .await?
                .map(|(_, _, _, bucket)| Reach {
                    devices: vec![d],
                    from: bucket,
                    to: bucket + BUCKET_MS,
                }))
        }
        _ => Ok(None),
    }
}

async fn load_correction(core: &Core, scoped: &Scoped, id: Id) -> Result<AnyRow, ApiError> {
    let mut sql =
        Sql::new("SELECT c.* FROM pv_energy_correction c JOIN pv_station s ON s.id = c.station_id WHERE ");
    sql.append(&scoped.stations.stations("s"));
    sql.push_bind(" AND c.id = ?", [Value::Int(id.0)]);
    sql.row(core.db.pool()).await?.ok_or_else(ApiError::not_found)
}

/// Makes a correction; reports, bills and revenue are recomputed by the rollup worker within its
/// next passes. Answers the correction's id.
#[utoipa::path(post, path = "/api/energyCorrection/submit", tag = "energy",
    request_body = CorrectionForm,
    responses((status = 200, body = Envelope<Id>), (status = 400), (status = 403), (status = 404)))]
pub async fn submit(
    State(core): State<Core>,
    scoped: Scoped,
    Json(f): Json<CorrectionForm>,
) -> ApiResult<Data<Id>> {
    require(&core, &scoped, CORRECT).await?;
    visible_station(&core, &scoped, f.station_id).await?;
    let reason = reason_of(f.reason.as_deref())?;
    if let Some(d) = f.device_id
        && !station_devices(&core, f.station_id).await?.contains(&d.0)
    {
        return Err(ApiError::bad_request(
            "设备不属于该电站",
            "The device is not of this station",
        ));
    }
    let (mut metric, mut from, mut to, mut event) = (None, None, None, None);
    match f.kind.as_str() {
        "exclude" => {
            let a = time_param(f.from_time.as_deref(), "开始时间", "Start time")?;
            let b = time_param(f.to_time.as_deref(), "结束时间", "End time")?;
            let (Some(a), Some(b)) = (a, b) else {
                return Err(ApiError::bad_request(
                    "请选择排除的时间段",
                    "Please choose the interval to exclude",
                ));
            };
            if b <= a || b - a > EXCLUDE_MAX_MS {
                return Err(ApiError::bad_request(
                    "结束时间须晚于开始时间，且时间段不超过366天",
                    "The end must be after the start, and the interval at most 366 days",
                ));
            }
            (from, to) = (Some(a), Some(b));
        }
        "accept" | "confirm" => {
            let Some(device) = f.device_id else {
                return Err(ApiError::bad_request("请选择设备", "Please choose the device"));
            };
            let m = f.metric.as_deref().unwrap_or("");
            let ts = time_param(f.event_time.as_deref(), "跳变时间", "Step time")?
                .ok_or_else(|| ApiError::bad_request("请选择跳变", "Please choose the step"))?;
            let Some((kind, old, new, _)) = step_at(&core, device, m, ts).await? else {
                return Err(ApiError::bad_request("未找到该跳变", "No such step"));
            };
            if f.kind == "accept" && !(matches!(kind.as_str(), "rebase" | "rejected") && new > old) {
                return Err(ApiError::bad_request(
                    "只有被拒绝的向上跳变可以计入电量",
                    "Only a rejected step upwards can be counted as energy",
                ));
            }
            (metric, event) = (Some(m.to_owned()), Some(ts));
        }
        _ => {
            return Err(ApiError::bad_request(
                "修正类型应为 exclude、accept 或 confirm",
                "kind must be exclude, accept or confirm",
            ));
        }
    }
    let id = core.ids.next();
    let opt_int = |v: Option<i64>| v.map_or(Value::Null, Value::Int);
    let mut sql = Sql::default();
    sql.push_bind(
        "INSERT INTO pv_energy_correction (id, tenant_id, station_id, device_id, kind, metric, from_ts, to_ts, \
         event_ts, reason, create_user, create_time) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            id.into(),
            Value::Text(scoped.caller.tenant_id.clone()),
            f.station_id.into(),
            opt_int(f.device_id.map(|d| d.0)),
            Value::from(f.kind.as_str()),
            metric.into(),
            opt_int(from),
            opt_int(to),
            opt_int(event),
            Value::Text(reason),
            scoped.caller.user_id.into(),
            Value::Int(time::now_ms()),
        ],
    );
    sql.execute(core.db.pool()).await?;
    let row = load_correction(&core, &scoped, id).await?;
    if let Some(r) = reach_of(&core, &row).await? {
        mark_for_recompute(&core.db, &r.devices, r.from, r.to).await?;
    }
    Ok(Data(id))
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WithdrawForm {
    pub id: Id,
    pub reason: Option<String>,
}

/// Withdraws a correction (kept, with who and why); the figures are recomputed without it.
#[utoipa::path(post, path = "/api/energyCorrection/withdraw", tag = "energy",
    request_body = WithdrawForm,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn withdraw(
    State(core): State<Core>,
    scoped: Scoped,
    Json(f): Json<WithdrawForm>,
) -> ApiResult<Data<bool>> {
    require(&core, &scoped, CORRECT).await?;
    let reason = reason_of(f.reason.as_deref())?;
    let row = load_correction(&core, &scoped, f.id).await?;
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE pv_energy_correction SET withdrawn = 1, withdraw_user = ?, withdraw_time = ?, withdraw_reason = ? \
         WHERE id = ? AND withdrawn = 0",
        [
            scoped.caller.user_id.into(),
            Value::Int(time::now_ms()),
            Value::Text(reason),
            f.id.into(),
        ],
    );
    if sql.execute(core.db.pool()).await? == 0 {
        return Err(ApiError::bad_request(
            "该修正已撤销",
            "This correction was already withdrawn",
        ));
    }
    if let Some(r) = reach_of(&core, &row).await? {
        mark_for_recompute(&core.db, &r.devices, r.from, r.to).await?;
    }
    Ok(Data(true))
}
