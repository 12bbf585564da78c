//! The analytics calls (contracts/alarms.md, "Analytics"): `discreteRate` (dispersion per
//! inverter with its strings, and its setting) and `hdayRate` (full-load hours deviation of
//! stations and inverters, and its setting). Every call is signed in and station-scoped: a
//! caller sees figures of the stations of their scope (`auth::scope::Scoped`) only, and the
//! station references (fleet mean) are taken over that same set.

use axum::extract::{RawQuery, State};
use chrono::{Duration, NaiveDate};
use serde::Serialize;
use serde_json::Value as Json;
use utoipa::ToSchema;

use super::data::{self, MIN_STRINGS, StationRow};
use super::dispersion::{self, StringFigure};
use super::hours;
use super::settings::{self, DISPERSION_KEY, HDAY_KEY};
use crate::auth::Caller;
use crate::auth::scope::{Scoped, StationScope};
use crate::kernel::Core;
use crate::kernel::extract::Json as JsonBody;
use crate::kernel::list::{DEFAULT_SIZE, MAX_SIZE};
use crate::kernel::sql::Value;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page, time};
use crate::telemetry::api::{Params, round};

/// Analytics settings hold for the whole tenant.
const TENANT_WIDE: crate::kernel::lang::Text = crate::kernel::lang::Text::new(
    "该设置对整个租户生效，仅限不受电站分配限制的用户修改",
    "This setting applies to the whole tenant; only users not limited to assigned stations may change it",
);

/// Button that may change the dispersion setting (menu seed `discreteRate`, button `setting`).
pub const DISPERSION_SETTING_BUTTON: &str = "discreteRate_setting";
/// The menu whose holders may change the hours setting (the seed gives the page no button).
pub const HDAY_MENU: &str = "hdayRate";
/// Longest date range of an hours page.
pub const MAX_RANGE_DAYS: i64 = 366;

fn params(query: Option<String>) -> Result<Params, ApiError> {
    Params::from_parts(query.as_deref(), b"")
}

fn parse_date(p: &Params, key: &str) -> Result<Option<NaiveDate>, ApiError> {
    p.text(key)
        .map(|s| {
            NaiveDate::parse_from_str(s.get(..10).unwrap_or(&s), "%Y-%m-%d").map_err(|_| {
                ApiError::bad_request(
                    format!("日期格式不正确：{s}（应为yyyy-MM-dd）"),
                    format!("Invalid date {s} (expected yyyy-MM-dd)"),
                )
            })
        })
        .transpose()
}

/// The caller's visible stations, or the one asked for (404 when it is not visible).
async fn scoped_stations(
    state: &Core,
    scope: &StationScope,
    station: Option<Id>,
) -> Result<Vec<StationRow>, ApiError> {
    let mut cond = scope.stations("s");
    if let Some(id) = station {
        cond.push_bind(" AND s.id = ?", [Value::Int(id.0)]);
    }
    let rows = data::stations(state, &cond).await?;
    if station.is_some() && rows.is_empty() {
        return Err(ApiError::not_found());
    }
    Ok(rows)
}

// ---- dispersion ----

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DispersionRecord {
    pub inverter_id: Id,
    pub inverter_name: String,
    pub station_id: Id,
    pub station_name: String,
    pub string_count: i64,
    /// Dispersion rate, % (mean over the counted instants, 2 decimals); null without any.
    pub rate: Option<f64>,
    /// `excellent`, `good`, `attention`, `poor`, or `none` without a figure.
    pub level: String,
    /// 5-minute instants within 10:00-14:00 local time that passed the light gate.
    pub instants: usize,
    /// Per string: modules, mean current, normalised mean current and its deviation from the
    /// inverter's mean of strings (%): the weak string shows the most negative deviation.
    pub strings: Vec<StringFigure>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DispersionList {
    /// The day analysed, `yyyy-MM-dd` (each station's own local day of that date).
    pub date: String,
    /// The UTC offset (`+13:00`) of the stations listed when they share one clock: the clock
    /// the day and its 10:00-14:00 window are taken in. Absent when they differ or none is listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utc_offset: Option<String>,
    pub setting: dispersion::Setting,
    pub records: Vec<DispersionRecord>,
}

fn rounded_strings(strings: Vec<StringFigure>) -> Vec<StringFigure> {
    strings
        .into_iter()
        .map(|s| StringFigure {
            current_a: s.current_a.map(|v| round(v, 4)),
            normalised_a: s.normalised_a.map(|v| round(v, 4)),
            deviation_pct: s.deviation_pct.map(|v| round(v, 2)),
            ..s
        })
        .collect()
}

/// Dispersion rate of the caller's inverters with at least 6 strings on a day (default: today,
/// the station's local day when `stationId` is given, else the hub's), from the 5-minute
/// rollups within 10:00-14:00 station-local time, graded by the tenant's setting.
#[utoipa::path(get, path = "/api/discreteRate/list", tag = "analytics",
    params(("stationId" = Option<String>, Query, description = "one station (404 when not visible)"),
           ("date" = Option<String>, Query, description = "yyyy-MM-dd, default today")),
    responses((status = 200, body = Envelope<DispersionList>), (status = 400), (status = 404)))]
pub async fn dispersion_list(
    State(state): State<Core>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    RawQuery(query): RawQuery,
) -> ApiResult<Data<DispersionList>> {
    let p = params(query)?;
    let station_id = p.id("stationId")?;
    let stations = scoped_stations(&state, &scope, station_id).await?;
    let setting: dispersion::Setting = settings::load(&state, &caller.tenant_id, DISPERSION_KEY).await?;
    let date = match parse_date(&p, "date")? {
        Some(d) => d,
        None => match (station_id, stations.first()) {
            (Some(_), Some(s)) => s.local_date(time::now_ms()),
            _ => data::local_date(time::now_ms(), data::hub_offset_ms()),
        },
    };
    let ids: Vec<i64> = stations.iter().map(|s| s.id).collect();
    let inverters = data::inverters(&state, &ids, MIN_STRINGS).await?;
    let mut records = Vec::new();
    for s in &stations {
        let invs: Vec<&data::InverterRow> = inverters.iter().filter(|i| i.station_id == s.id).collect();
        let figures = data::dispersion_of_day(&state, s, &invs, date, &setting).await?;
        for inv in invs {
            let Some(f) = figures.get(&inv.id).cloned() else {
                continue;
            };
            records.push(DispersionRecord {
                inverter_id: Id(inv.id),
                inverter_name: inv.name.clone(),
                station_id: Id(s.id),
                station_name: s.name.clone(),
                string_count: inv.strings_count,
                rate: f.rate_pct.map(|r| round(r, 2)),
                level: dispersion::grade(f.rate_pct, &setting).as_str().to_owned(),
                instants: f.instants,
                strings: rounded_strings(f.strings),
            });
        }
    }
    let mut clocks = stations.iter().map(|s| s.clock().label());
    let first = clocks.next();
    let utc_offset = first.filter(|f| clocks.all(|c| &c == f));
    Ok(Data(DispersionList {
        date: date.format("%Y-%m-%d").to_string(),
        utc_offset,
        setting,
        records,
    }))
}

/// The tenant's dispersion setting (defaults when never saved).
#[utoipa::path(get, path = "/api/discreteRate/setting", tag = "analytics",
    responses((status = 200, body = Envelope<dispersion::Setting>)))]
pub async fn dispersion_setting(
    State(state): State<Core>,
    caller: Caller,
) -> ApiResult<Data<dispersion::Setting>> {
    Ok(Data(
        settings::load(&state, &caller.tenant_id, DISPERSION_KEY).await?,
    ))
}

/// Changes the tenant's dispersion setting (fields not sent keep their value). Button
/// `discreteRate_setting`. Refused unless 0 < excellentMax < goodMax < attentionMax ≤ 100,
/// light gates are non-negative (power ratio ≤ 1) and poorDays is 1..30.
#[utoipa::path(post, path = "/api/discreteRate/updateSetting", tag = "analytics",
    request_body = dispersion::Setting,
    responses((status = 200, body = Envelope<dispersion::Setting>), (status = 400), (status = 403)))]
pub async fn dispersion_update_setting(
    State(state): State<Core>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    JsonBody(body): JsonBody<Json>,
) -> ApiResult<Data<dispersion::Setting>> {
    caller.require(&state, DISPERSION_SETTING_BUTTON).await?;
    // Tenant-wide settings: not for callers limited to assigned stations (owners, staff).
    if scope.is_restricted() {
        return Err(ApiError::Forbidden(TENANT_WIDE));
    }
    let current: dispersion::Setting = settings::load(&state, &caller.tenant_id, DISPERSION_KEY).await?;
    let next = settings::merge(&current, body, dispersion::Setting::validate)?;
    settings::save(&state, &caller.tenant_id, DISPERSION_KEY, &next, caller.user_id.0).await?;
    Ok(Data(next))
}

// ---- full-load hours ----

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationHours {
    pub station_id: Id,
    pub station_name: String,
    /// P0: the station's component capacity, kWp.
    pub capacity_kwp: Option<f64>,
    /// Generation of its inverters over the range, kWh (null: no data).
    pub energy_kwh: Option<f64>,
    /// Equivalent full-load hours, h = kWh / kWp.
    pub hours: Option<f64>,
    /// Mean hours of the caller's stations with data.
    pub ref_hours: Option<f64>,
    /// (hours − refHours) / refHours × 100.
    pub deviation_pct: Option<f64>,
    /// Deviation below the setting's threshold.
    pub flagged: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InverterHours {
    pub inverter_id: Id,
    pub inverter_name: String,
    pub station_id: Id,
    pub station_name: String,
    /// P0: modules × module Wp (the station's component capacity / count), else rated kW.
    pub capacity_kwp: Option<f64>,
    pub energy_kwh: Option<f64>,
    pub hours: Option<f64>,
    /// Mean hours of its station's inverters with data.
    pub ref_hours: Option<f64>,
    pub deviation_pct: Option<f64>,
    pub flagged: bool,
}

/// `startDate..=endDate`; defaults: the setting's `minDays` complete days ending yesterday.
fn date_range(p: &Params, min_days: i64) -> Result<(NaiveDate, NaiveDate), ApiError> {
    let today = data::local_date(time::now_ms(), data::hub_offset_ms());
    let end = parse_date(p, "endDate")?.unwrap_or(today - Duration::days(1));
    let start = parse_date(p, "startDate")?.unwrap_or(end - Duration::days(min_days.max(1) - 1));
    if start > end {
        return Err(ApiError::bad_request(
            "开始日期不能晚于结束日期",
            "The start date must not be after the end date",
        ));
    }
    if (end - start).num_days() >= MAX_RANGE_DAYS {
        return Err(ApiError::bad_request(
            format!("日期范围不能超过{MAX_RANGE_DAYS}天"),
            format!("The date range must not exceed {MAX_RANGE_DAYS} days"),
        ));
    }
    Ok((start, end))
}

fn paging(p: &Params) -> Result<(i64, i64), ApiError> {
    Ok((
        p.positive("current", 1, i64::MAX)?,
        p.positive("size", DEFAULT_SIZE, MAX_SIZE)?,
    ))
}

fn page_of<T>(mut all: Vec<T>, current: i64, size: i64) -> Page<T> {
    let total = all.len() as i64;
    let skip = ((current - 1).saturating_mul(size)).min(total) as usize;
    let records: Vec<T> = all.drain(skip..).take(size as usize).collect();
    Page::new(records, total, size, current)
}

/// Worst first: lowest deviation first, units without a figure last.
fn by_deviation(a: Option<f64>, b: Option<f64>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.total_cmp(&b),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}

fn r4(v: Option<f64>) -> Option<f64> {
    v.map(|x| round(x, 4))
}

fn r2(v: Option<f64>) -> Option<f64> {
    v.map(|x| round(x, 2))
}

/// Equivalent full-load hours of the caller's stations over a date range (each station's local
/// days), their deviation from the mean of the caller's stations with data and whether it is
/// below the threshold; worst first.
#[utoipa::path(get, path = "/api/hdayRate/pageStation", tag = "analytics",
    params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query),
           ("startDate" = Option<String>, Query, description = "yyyy-MM-dd"),
           ("endDate" = Option<String>, Query, description = "yyyy-MM-dd, default yesterday")),
    responses((status = 200, body = Envelope<Page<StationHours>>), (status = 400)))]
pub async fn hday_page_station(
    State(state): State<Core>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    RawQuery(query): RawQuery,
) -> ApiResult<Data<Page<StationHours>>> {
    let p = params(query)?;
    let (current, size) = paging(&p)?;
    let setting: hours::Setting = settings::load(&state, &caller.tenant_id, HDAY_KEY).await?;
    let (from, to) = date_range(&p, setting.min_days)?;
    let stations = scoped_stations(&state, &scope, None).await?;
    let report = data::hours_report(&state, &stations, from, to, setting.threshold_pct).await?;
    let mut rows: Vec<StationHours> = stations
        .iter()
        .filter_map(|s| {
            let f = report.stations.get(&s.id)?;
            Some(StationHours {
                station_id: Id(s.id),
                station_name: s.name.clone(),
                capacity_kwp: f.capacity_kwp,
                energy_kwh: f.energy_kwh.map(|e| round(e, 3)),
                hours: r4(f.hours),
                ref_hours: r4(f.ref_hours),
                deviation_pct: r2(f.deviation_pct),
                flagged: f.flagged,
            })
        })
        .collect();
    rows.sort_by(|a, b| by_deviation(a.deviation_pct, b.deviation_pct));
    Ok(Data(page_of(rows, current, size)))
}

/// Equivalent full-load hours of the caller's inverters (of one station with `stationId`), each
/// compared with the mean of its station's inverters with data; worst first.
#[utoipa::path(get, path = "/api/hdayRate/pageInverter", tag = "analytics",
    params(("stationId" = Option<String>, Query, description = "one station (404 when not visible)"),
           ("current" = Option<i64>, Query), ("size" = Option<i64>, Query),
           ("startDate" = Option<String>, Query, description = "yyyy-MM-dd"),
           ("endDate" = Option<String>, Query, description = "yyyy-MM-dd, default yesterday")),
    responses((status = 200, body = Envelope<Page<InverterHours>>), (status = 400), (status = 404)))]
pub async fn hday_page_inverter(
    State(state): State<Core>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    RawQuery(query): RawQuery,
) -> ApiResult<Data<Page<InverterHours>>> {
    let p = params(query)?;
    let (current, size) = paging(&p)?;
    let setting: hours::Setting = settings::load(&state, &caller.tenant_id, HDAY_KEY).await?;
    let (from, to) = date_range(&p, setting.min_days)?;
    let stations = scoped_stations(&state, &scope, p.id("stationId")?).await?;
    let report = data::hours_report(&state, &stations, from, to, setting.threshold_pct).await?;
    let name_of = |id: i64| {
        stations
            .iter()
            .find(|s| s.id == id)
            .map(|s| s.name.clone())
            .unwrap_or_default()
    };
    let mut rows: Vec<InverterHours> = report
        .inverters
        .iter()
        .map(|(inv, f)| InverterHours {
            inverter_id: Id(inv.id),
            inverter_name: inv.name.clone(),
            station_id: Id(inv.station_id),
            station_name: name_of(inv.station_id),
            capacity_kwp: r4(f.capacity_kwp),
            energy_kwh: f.energy_kwh.map(|e| round(e, 3)),
            hours: r4(f.hours),
            ref_hours: r4(f.ref_hours),
            deviation_pct: r2(f.deviation_pct),
            flagged: f.flagged,
        })
        .collect();
    rows.sort_by(|a, b| by_deviation(a.deviation_pct, b.deviation_pct));
    Ok(Data(page_of(rows, current, size)))
}

/// The tenant's hours setting `{thresholdPct, minDays}` (defaults −10 and 3).
#[utoipa::path(get, path = "/api/hdayRate/setting", tag = "analytics",
    responses((status = 200, body = Envelope<hours::Setting>)))]
pub async fn hday_setting(State(state): State<Core>, caller: Caller) -> ApiResult<Data<hours::Setting>> {
    Ok(Data(settings::load(&state, &caller.tenant_id, HDAY_KEY).await?))
}

/// Changes the tenant's hours setting (fields not sent keep their value); needs the
/// `hdayRate` menu. Refused unless −100 < thresholdPct < 0 and minDays is 1..31.
#[utoipa::path(put, path = "/api/hdayRate/setting", tag = "analytics",
    request_body = hours::Setting,
    responses((status = 200, body = Envelope<hours::Setting>), (status = 400), (status = 403)))]
pub async fn hday_update_setting(
    State(state): State<Core>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    JsonBody(body): JsonBody<Json>,
) -> ApiResult<Data<hours::Setting>> {
    caller.require(&state, HDAY_MENU).await?;
    // Tenant-wide settings: not for callers limited to assigned stations (owners, staff).
    if scope.is_restricted() {
        return Err(ApiError::Forbidden(TENANT_WIDE));
    }
    let current: hours::Setting = settings::load(&state, &caller.tenant_id, HDAY_KEY).await?;
    let next = settings::merge(&current, body, hours::Setting::validate)?;
    settings::save(&state, &caller.tenant_id, HDAY_KEY, &next, caller.user_id.0).await?;
    Ok(Data(next))
}
