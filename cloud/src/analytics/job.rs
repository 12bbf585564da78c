//! The smart-warning job: every `interval` (and whenever woken) it grades every tenant's
//! inverters and stations and raises or clears type-2 warnings through `alarm::store`.
//!
//! - `warn:dispersion` (category `dispersion`, on the inverter): today's dispersion (station-local
//!   day, 10:00-14:00 so far) is poor once at least [`JobConfig::min_instants`] instants passed
//!   the gate, and it was poor on the `poorDays − 1` days before as well. It clears when today's
//!   figure (with enough instants) is no longer poor, or the inverter left the analysis
//!   (deleted, fewer than 6 strings). Too few instants today decides nothing either way, so a
//!   warning raised yesterday stays until today's data says otherwise.
//! - `warn:hday` (category `hday`, on the station (device 0) or the inverter): the full-load
//!   hours of the last `minDays` complete days (ending yesterday) are below the threshold
//!   against the tenant's stations (stations) or their station's inverters (inverters), and
//!   each of those days has enough data to say so (`hours::covered_days`); cleared when no
//!   longer flagged with that evidence. Without it nothing is decided (an open warning stays).
//!
//! An open warning is touched again (occurrences + 1, new figures) at most once per local day,
//! so `occurrences` counts the days it was seen rather than the job's passes.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use chrono::Duration as Days;
use sqlx::Row;

use super::data::{self, InverterRow, MIN_STRINGS, StationRow};
use super::dispersion::{self, Figure, Level};
use super::hours;
use super::settings::{self, DISPERSION_KEY, HDAY_KEY};
use crate::alarm::context::AlarmCtx;
use crate::alarm::store::{self, LEVEL_MINOR, Raise, TYPE_WARNING};
use crate::kernel::ApiError;
use crate::kernel::Core;
use crate::kernel::sql::{Sql, Value};

pub const KIND_DISPERSION: &str = "warn:dispersion";
pub const KIND_HDAY: &str = "warn:hday";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobConfig {
    /// Time between passes.
    pub interval: Duration,
    /// Gated 5-minute instants today before today's dispersion decides anything (6 = half an
    /// hour of good light: one passing cloud should not decide the day).
    pub min_instants: usize,
}

impl Default for JobConfig {
    fn default() -> Self {
        JobConfig {
            interval: Duration::from_secs(600),
            min_instants: 6,
        }
    }
}

/// What one pass changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outcome {
    pub raised: usize,
    pub cleared: usize,
}

/// Its name for the cluster-wide lock (`kernel::leader`).
const JOB: &str = "analytics.warnings";

/// Starts the job; the returned `Notify` wakes it for an immediate pass (tests, or after a
/// setting changed).
pub fn spawn(state: AlarmCtx, config: JobConfig) -> Arc<tokio::sync::Notify> {
    let wake = Arc::new(tokio::sync::Notify::new());
    let woken = wake.clone();
    tokio::spawn(async move {
        loop {
            let Some(busy) = state.shutdown.pass() else {
                return;
            };
            // One replica of a cluster runs a pass (another skips it); the pass is idempotent
            // anyway: the open-alarm index keeps one warning per inverter and kind.
            let pass = run_once(&state, &config, crate::kernel::time::now_ms());
            match crate::kernel::leader::run_exclusive(&state.db, JOB, pass).await {
                Ok(Some(Ok(o))) if o.raised + o.cleared > 0 => {
                    tracing::info!(raised = o.raised, cleared = o.cleared, "analytics warnings")
                }
                Ok(Some(Ok(_))) => {}
                Ok(None) => tracing::debug!("analytics warnings: another replica runs the pass"),
                Ok(Some(Err(e))) => tracing::warn!(error = %e, "analytics warning pass failed"),
                Err(e) => tracing::warn!(error = %e, "analytics warning pass: no leader lock"),
            }
            drop(busy);
            tokio::select! {
                _ = tokio::time::sleep(config.interval) => {}
                _ = woken.notified() => {}
                _ = state.shutdown.stopping() => return,
            }
        }
    });
    wake
}

/// An open warning: when it was last seen.
type OpenKey = (i64, i64, String);

async fn open_warnings(state: &Core, tenant: &str) -> Result<HashMap<OpenKey, i64>, ApiError> {
    let mut sql = Sql::default();
    // By tenant: the job acts for each tenant in turn, with no caller.
    sql.push_bind(
        "SELECT station_id, device_id, kind, last_time FROM pv_alarm WHERE tenant_id = ? AND status < 2 \
         AND kind IN (?, ?)",
        [
            Value::from(tenant),
            Value::from(KIND_DISPERSION),
            Value::from(KIND_HDAY),
        ],
    );
    let rows = sql.rows(state.db.pool()).await?;
    let mut out = HashMap::new();
    for r in rows {
        out.insert(
            (
                r.try_get::<i64, _>("station_id")?,
                r.try_get::<i64, _>("device_id")?,
                r.try_get::<String, _>("kind")?,
            ),
            r.try_get::<i64, _>("last_time")?,
        );
    }
    Ok(out)
}

async fn tenants(state: &Core) -> Result<Vec<String>, ApiError> {
    Sql::new("SELECT DISTINCT tenant_id FROM pv_station WHERE is_deleted = 0 ORDER BY tenant_id")
        .scalars(state.db.pool())
        .await
}

/// One pass over every tenant at `now_ms`.
pub async fn run_once(state: &AlarmCtx, config: &JobConfig, now_ms: i64) -> Result<Outcome, ApiError> {
    let mut total = Outcome::default();
    for tenant in tenants(state).await? {
        // One tenant's bad data must not keep the others' warnings from being raised.
        match run_tenant(state, config, &tenant, now_ms).await {
            Ok(o) => {
                total.raised += o.raised;
                total.cleared += o.cleared;
            }
            Err(e) => tracing::warn!(tenant, error = %e, "analytics warnings of a tenant failed"),
        }
    }
    Ok(total)
}

/// What one tenant's pass decided: warnings to raise, and (station, device, kind) to clear.
struct Decisions {
    raise: Vec<(Raise, i64)>,
    keep: HashSet<OpenKey>,
}

async fn run_tenant(
    state: &AlarmCtx,
    config: &JobConfig,
    tenant: &str,
    now_ms: i64,
) -> Result<Outcome, ApiError> {
    let stations = data::tenant_stations(state, tenant).await?;
    let open = open_warnings(state, tenant).await?;
    let mut d = Decisions {
        raise: Vec::new(),
        keep: HashSet::new(),
    };
    dispersion_decisions(state, config, tenant, &stations, &open, now_ms, &mut d).await?;
    hday_decisions(state, tenant, &stations, &open, now_ms, &mut d).await?;
    let mut out = Outcome::default();
    for (r, day_start) in &d.raise {
        let key = (r.station_id, r.device_id, r.kind.clone());
        // Touch an open warning once per local day only (see the module comment).
        if open.get(&key).is_some_and(|last| *last >= *day_start) {
            continue;
        }
        if let store::Raised::New(id) = store::raise(state, r).await? {
            out.raised += 1;
            // SMS and e-mail to those subscribed to smart warnings; a failure here must not
            // stop the other warnings.
            if let Err(e) = crate::alarm::message::notify_only(state, id, r).await {
                tracing::warn!(warning = %id, error = %e, "smart warning notifications not queued");
            }
        }
    }
    for (station, device, kind) in open.keys() {
        let key = (*station, *device, kind.clone());
        if d.keep.contains(&key)
            || d.raise
                .iter()
                .any(|(r, _)| (r.station_id, r.device_id, &r.kind) == (*station, *device, kind))
        {
            continue;
        }
        if store::clear_auto(state, tenant, *station, *device, kind, now_ms)
            .await?
            .is_some()
        {
            out.cleared += 1;
        }
    }
    Ok(out)
}

fn weakest(f: &Figure) -> Option<(usize, f64)> {
    f.strings
        .iter()
        .filter_map(|s| Some((s.index, s.deviation_pct?)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

#[allow(clippy::too_many_arguments)]
async fn dispersion_decisions(
    state: &Core,
    config: &JobConfig,
    tenant: &str,
    stations: &[StationRow],
    open: &HashMap<OpenKey, i64>,
    now_ms: i64,
    d: &mut Decisions,
) -> Result<(), ApiError> {
    let setting: dispersion::Setting = settings::load(state, tenant, DISPERSION_KEY).await?;
    let ids: Vec<i64> = stations.iter().map(|s| s.id).collect();
    let inverters = data::inverters(state, &ids, MIN_STRINGS).await?;
    for s in stations {
        let invs: Vec<&InverterRow> = inverters.iter().filter(|i| i.station_id == s.id).collect();
        if invs.is_empty() {
            continue;
        }
        let today = s.local_date(now_ms);
        let figures = data::dispersion_of_day(state, s, &invs, today, &setting).await?;
        let mut poor_today = Vec::new();
        for inv in &invs {
            let Some(f) = figures.get(&inv.id) else { continue };
            let key = (s.id, inv.id, KIND_DISPERSION.to_owned());
            if f.instants < config.min_instants {
                // Not enough light yet today: keep whatever is open.
                if open.contains_key(&key) {
                    d.keep.insert(key);
                }
                continue;
            }
            if dispersion::grade(f.rate_pct, &setting) == Level::Poor {
                poor_today.push(*inv);
            }
        }
        // Earlier days only for the inverters poor today (most days nothing is).
        let mut still_poor: Vec<&InverterRow> = poor_today.clone();
        for back in 1..setting.poor_days {
            if still_poor.is_empty() {
                break;
            }
            let day = today - Days::days(back);
            let past = data::dispersion_of_day(state, s, &still_poor, day, &setting).await?;
            still_poor.retain(|inv| {
                past.get(&inv.id).is_some_and(|f| {
                    f.instants >= config.min_instants
                        && dispersion::grade(f.rate_pct, &setting) == Level::Poor
                })
            });
        }
        for inv in poor_today {
            let key = (s.id, inv.id, KIND_DISPERSION.to_owned());
            if !still_poor.iter().any(|i| i.id == inv.id) {
                // Poor today but not yet for poorDays days: an open warning stays.
                if open.contains_key(&key) {
                    d.keep.insert(key);
                }
                continue;
            }
            let Some(f) = figures.get(&inv.id) else { continue };
            let rate = f.rate_pct.unwrap_or_default();
            let (zh_weak, en_weak) = match weakest(f) {
                Some((k, dev)) => (
                    format!("，最弱组串PV{k}偏离均值{dev:.1}%"),
                    format!("; weakest string PV{k} at {dev:.1} % from the mean"),
                ),
                None => (String::new(), String::new()),
            };
            d.raise.push((
                Raise {
                    tenant_id: tenant.to_owned(),
                    station_id: s.id,
                    device_id: inv.id,
                    device_kind: "inverter".into(),
                    device_name: inv.name.clone(),
                    kind: KIND_DISPERSION.into(),
                    category: "dispersion".into(),
                    r#type: TYPE_WARNING,
                    level: LEVEL_MINOR,
                    code: "dispersion".into(),
                    name: "组串离散率偏高".into(),
                    name_en: "High string current dispersion".into(),
                    detail: format!(
                        "今日组串电流离散率{rate:.1}%，高于{:.0}%（连续{}天）{zh_weak}",
                        setting.attention_max, setting.poor_days
                    ),
                    detail_en: format!(
                        "String current dispersion today {rate:.1} %, above {:.0} % ({} day(s) in a row){en_weak}",
                        setting.attention_max, setting.poor_days
                    ),
                    value: Some(crate::telemetry::api::round(rate, 2)),
                    threshold: Some(setting.attention_max),
                    at: now_ms,
                },
                s.midnight(today),
            ));
        }
    }
    Ok(())
}

async fn hday_decisions(
    state: &Core,
    tenant: &str,
    stations: &[StationRow],
    open: &HashMap<OpenKey, i64>,
    now_ms: i64,
    d: &mut Decisions,
) -> Result<(), ApiError> {
    let setting: hours::Setting = settings::load(state, tenant, HDAY_KEY).await?;
    // The same calendar days for every station (each in its own local days), as the pages.
    let hub_today = data::local_date(now_ms, data::hub_offset_ms());
    let to = hub_today - Days::days(1);
    let from = to - Days::days(setting.min_days.max(1) - 1);
    let day_start = data::midnight(hub_today, data::hub_offset_ms());
    let report = data::hours_report(state, stations, from, to, setting.threshold_pct).await?;
    let range = if from == to {
        to.format("%Y-%m-%d").to_string()
    } else {
        format!("{}~{}", from.format("%Y-%m-%d"), to.format("%Y-%m-%d"))
    };
    let raise = |station: i64, device: i64, kind_of: &str, name: &str, f: &data::HoursFigure| Raise {
        tenant_id: tenant.to_owned(),
        station_id: station,
        device_id: device,
        device_kind: kind_of.into(),
        device_name: name.to_owned(),
        kind: KIND_HDAY.into(),
        category: "hday".into(),
        r#type: TYPE_WARNING,
        level: LEVEL_MINOR,
        code: "hday".into(),
        name: "满发小时数偏低".into(),
        name_en: "Low full-load hours".into(),
        detail: format!(
            "{range}等效满发小时{:.2}h，参考{:.2}h，偏差{:.1}%（阈值{:.0}%）",
            f.hours.unwrap_or_default(),
            f.ref_hours.unwrap_or_default(),
            f.deviation_pct.unwrap_or_default(),
            setting.threshold_pct
        ),
        detail_en: format!(
            "Full-load hours {range}: {:.2} h against {:.2} h, {:.1} % (threshold {:.0} %)",
            f.hours.unwrap_or_default(),
            f.ref_hours.unwrap_or_default(),
            f.deviation_pct.unwrap_or_default(),
            setting.threshold_pct
        ),
        value: f.deviation_pct.map(|v| crate::telemetry::api::round(v, 2)),
        threshold: Some(setting.threshold_pct),
        at: now_ms,
    };
    // A unit is judged only with every day of the range covered (evidence: see
    // `hours::covered_days`); without it nothing is decided either way, so an open warning stays.
    // The figures, reference included, stay the pages' own.
    let days = setting.min_days.max(1);
    let is_open = |station: i64, device: i64| open.contains_key(&(station, device, KIND_HDAY.to_owned()));
    for s in stations {
        let station_figure = report
            .stations
            .get(&s.id)
            .filter(|f| f.flagged || is_open(s.id, 0));
        let inverters: Vec<_> = report
            .inverters
            .iter()
            .filter(|(inv, f)| inv.station_id == s.id && (f.flagged || is_open(s.id, inv.id)))
            .collect();
        if station_figure.is_none() && inverters.is_empty() {
            continue;
        }
        let buckets = data::hour_buckets(state, s, from, to).await?;
        let covered = |b: &BTreeSet<i64>| hours::covered_days(b, s.midnight(from), days) >= days;
        let mut judge = |device: i64, kind_of: &str, name: &str, f: &data::HoursFigure, evidence: bool| {
            let key = (s.id, device, KIND_HDAY.to_owned());
            if !evidence {
                if open.contains_key(&key) {
                    d.keep.insert(key);
                }
            } else if f.flagged {
                d.raise.push((raise(s.id, device, kind_of, name, f), day_start));
            }
        };
        if let Some(f) = station_figure {
            let station_hours: BTreeSet<i64> = buckets.values().flatten().copied().collect();
            judge(0, "station", &s.name, f, covered(&station_hours));
        }
        for (inv, f) in inverters {
            judge(
                inv.id,
                "inverter",
                &inv.name,
                f,
                buckets.get(&inv.id).is_some_and(covered),
            );
        }
    }
    Ok(())
}
