//! The inverter realtime page (`/api/inverterReal`): the live table of the caller's inverters,
//! the metrics that can be charted and their day curves.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use pv_shared::metrics::{self, Dimension};
use serde::Serialize;
use serde_json::Value as Json;
use sqlx::Row;
use utoipa::ToSchema;

use super::curve::{self, BUCKET_MS};
use super::fleet;
use super::{Day, Params, kilo, round, site_day};
use crate::auth::scope::Scoped;
use crate::auth::scope::StationScope;
use crate::kernel::Core;
use crate::kernel::clock::SiteClock;
use crate::kernel::lang::{Lang, Text};
use crate::kernel::list::{DEFAULT_SIZE, MAX_SIZE};
use crate::kernel::sql::{Sql, Value, like_contains};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page, time};
use crate::telemetry::context::TelemetryCtx;
use crate::telemetry::realtime::{DeviceLive, KIND_INVERTER};

/// Most inverters and metrics one curve request may ask for (20 × 10 series of ≤ 288 points).
pub const MAX_WAVE_DEVICES: usize = 20;
pub const MAX_WAVE_NAMES: usize = 10;
/// Most PV inputs listed (the registry allows 64 strings).
const MAX_STRINGS: i64 = 64;

/// One row of the realtime table. Numbers are `null` when the inverter has not reported them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InverterReal {
    pub id: Id,
    pub name: String,
    pub sn: String,
    pub station_id: Id,
    pub station_name: String,
    /// Rated power, kW (registry).
    pub rated_power_kw: Option<f64>,
    pub strings_count: i64,
    /// Communicating now. `false` also when it never reported (`updateTime` null).
    pub online: bool,
    /// `fault` (an open device-fault alarm, active or acknowledged: the alarm engine's word),
    /// else `online` or `offline` by presence.
    pub status: String,
    /// Why its gateway holds its values back (layout or identity changed, not confirmed yet),
    /// as the gateway words it; absent while they flow or when the gateway is offline.
    pub withheld: Option<String>,
    /// Active power fed to the grid, kW (`ac_power`); 0 when offline.
    pub ac_power_kw: Option<f64>,
    /// Generation today, kWh: the counted energy of the inverter's rollups of its station's
    /// today (the figure the reports show; it trails the live counter by the rollup delay);
    /// null without a rollup today.
    pub today_energy_kwh: Option<f64>,
    /// Lifetime generation, kWh: the counted energy of all its days (not its own
    /// `energy_total` register); null before its first counted day.
    pub total_energy_kwh: Option<f64>,
    /// DC input power, kW (`dc_power`).
    pub dc_power_kw: Option<f64>,
    /// Conversion efficiency, %: the device's own `efficiency`, else AC / DC power × 100.
    pub efficiency: Option<f64>,
    /// Internal temperature, °C (`temperature`).
    pub temperature: Option<f64>,
    /// Device state code (`status_code`), as the register map's status table defines it.
    pub status_code: Option<f64>,
    /// Fault code (`fault_code`); 0 = none.
    pub fault_code: Option<f64>,
    /// Grid voltage, V (`grid_voltage`, else the mean of the phase voltages reported).
    pub grid_voltage: Option<f64>,
    /// Phase voltages a/b/c, V (`grid_voltage_a/b/c`).
    pub grid_voltages: Vec<Option<f64>>,
    /// Grid frequency, Hz.
    pub grid_frequency: Option<f64>,
    /// AC current, A.
    pub ac_current: Option<f64>,
    /// Per-string currents, A: index i is `pv{i+1}_current`; length = max(stringsCount, highest
    /// input reported).
    pub pv_currents: Vec<Option<f64>>,
    /// Per-string voltages, V (`pv{n}_voltage`), same indexing.
    pub pv_voltages: Vec<Option<f64>>,
    /// Sample time of the values, `yyyy-MM-dd HH:mm:ss`; null when never reported.
    pub update_time: Option<String>,
}

struct Registered {
    id: i64,
    name: String,
    sn: String,
    station_id: i64,
    station_name: String,
    rated_power: Option<f64>,
    strings_count: i64,
    /// The station's clock (`pv_station.utc_offset_minutes`).
    utc_offset_minutes: Option<i64>,
    gateway_id: Option<String>,
}

/// Highest `n` of the `{prefix}{n}_{suffix}` metrics a sample carries.
fn highest_input(d: &DeviceLive) -> usize {
    d.values
        .keys()
        .filter_map(|k| {
            let rest = k.strip_prefix("pv")?;
            let (n, metric) = rest.split_once('_')?;
            matches!(metric, "current" | "voltage")
                .then(|| n.parse::<usize>().ok())
                .flatten()
        })
        .max()
        .unwrap_or(0)
}

fn row_of(
    r: &Registered,
    live: Option<&DeviceLive>,
    // (today, lifetime) counted energy, Wh.
    energy: (Option<f64>, Option<f64>),
    faulty: bool,
    withheld: Option<String>,
) -> InverterReal {
    let n = |m: &str| live.and_then(|d| d.number(m));
    let online = live.is_some_and(|d| d.online);
    let ac = n("ac_power");
    let dc = n("dc_power");
    let strings = (r.strings_count.max(0) as usize).max(live.map(highest_input).unwrap_or(0));
    let phases: Vec<Option<f64>> = ["a", "b", "c"]
        .iter()
        .map(|p| n(&format!("grid_voltage_{p}")))
        .collect();
    let reported: Vec<f64> = phases.iter().flatten().copied().collect();
    let grid_voltage = n("grid_voltage").or_else(|| {
        (!reported.is_empty()).then(|| round(reported.iter().sum::<f64>() / reported.len() as f64, 2))
    });
    let efficiency = n("efficiency").or_else(|| match (ac, dc) {
        (Some(ac), Some(dc)) if dc > 0.0 => Some(round(ac / dc * 100.0, 2)),
        _ => None,
    });
    InverterReal {
        id: Id(r.id),
        name: r.name.clone(),
        sn: r.sn.clone(),
        station_id: Id(r.station_id),
        station_name: r.station_name.clone(),
        rated_power_kw: r.rated_power,
        strings_count: r.strings_count,
        online,
        status: if faulty {
            "fault"
        } else if online {
            "online"
        } else {
            "offline"
        }
        .to_owned(),
        withheld,
        ac_power_kw: if online { ac.map(kilo) } else { live.map(|_| 0.0) },
        today_energy_kwh: energy.0.map(kilo),
        total_energy_kwh: energy.1.map(kilo),
        dc_power_kw: dc.map(kilo),
        efficiency,
        temperature: n("temperature"),
        status_code: n("status_code"),
        fault_code: n("fault_code"),
        grid_voltage,
        grid_voltages: phases,
        grid_frequency: n("grid_frequency"),
        ac_current: n("ac_current"),
        pv_currents: (1..=strings).map(|i| n(&format!("pv{i}_current"))).collect(),
        pv_voltages: (1..=strings).map(|i| n(&format!("pv{i}_voltage"))).collect(),
        update_time: live.map(|d| time::format_ms(d.ts)),
    }
}

/// The registered inverters in scope matching the filters, by station then name.
async fn registered(
    state: &Core,
    scope: &StationScope,
    station: Option<Id>,
    keyword: Option<&str>,
    ids: Option<&[Id]>,
) -> Result<Vec<Registered>, ApiError> {
    let mut sql = Sql::new(
        "SELECT i.id, i.name, i.sn, i.station_id, s.name AS station_name, i.rated_power, i.strings_count, \
         s.utc_offset_minutes, s.gateway_id FROM pv_inverter i JOIN pv_station s ON s.id = i.station_id WHERE i.is_deleted = 0 AND ",
    );
    sql.append(&scope.stations("s"));
    if let Some(st) = station {
        sql.push_bind(" AND i.station_id = ?", [Value::Int(st.0)]);
    }
    if let Some(k) = keyword {
        let pattern = like_contains(k);
        sql.push_bind(
            " AND (LOWER(i.name) LIKE LOWER(?) ESCAPE '\\' OR LOWER(i.sn) LIKE LOWER(?) ESCAPE '\\')",
            [Value::Text(pattern.clone()), Value::Text(pattern)],
        );
    }
    if let Some(ids) = ids {
        sql.push(" AND i.id IN (");
        sql.push_ids(ids);
        sql.push(")");
    }
    sql.push(" ORDER BY s.name, s.id, i.name, i.id");
    sql.rows(state.db.pool())
        .await?
        .iter()
        .map(|r| {
            Ok(Registered {
                id: r.try_get("id")?,
                name: r.try_get("name")?,
                sn: r.try_get("sn")?,
                station_id: r.try_get("station_id")?,
                station_name: r.try_get("station_name")?,
                rated_power: r.try_get("rated_power")?,
                strings_count: r.try_get("strings_count")?,
                utc_offset_minutes: r.try_get("utc_offset_minutes")?,
                gateway_id: r.try_get("gateway_id")?,
            })
        })
        .collect()
}

/// The view's sample of a registered inverter (same tenant and station, inverter kind).
fn live_of(state: &TelemetryCtx, tenant: &str, r: &Registered) -> Option<DeviceLive> {
    state
        .realtime
        .device(r.id)
        .filter(|d| d.tenant_id == tenant && d.station_id == r.station_id && d.kind == KIND_INVERTER)
}

/// The optional body of the realtime table: the query string's keys (numbers and flags may
/// also come as text, as forms send them; the handler reads the raw body so every refusal keeps
/// its own message).
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InverterRealFilter {
    /// Page, from 1.
    pub current: Option<i64>,
    /// Page size (at most 1000).
    pub size: Option<i64>,
    /// Only this station's inverters.
    pub station_id: Option<Id>,
    /// Name or SN contains.
    pub keyword: Option<String>,
    /// Name contains.
    pub name: Option<String>,
    /// SN contains.
    pub sn: Option<String>,
    /// Only online (true) or offline (false) inverters.
    pub online: Option<bool>,
    /// Only these inverters (comma-joined ids, or an array).
    pub inverter_ids: Option<Json>,
}

/// The realtime table of the caller's inverters, paged. Parameters in the query string or a JSON
/// body (the body wins): `current` (1), `size` (10, ≤ 1000), `stationId`, `keyword` (name or
/// SN contains; `name` and `sn` filter each field), `online` (true/false), `inverterIds` (only
/// these; the registry list asks for its page's live status and power this way).
#[utoipa::path(post, path = "/api/inverterReal/list", tag = "realtime", request_body(content = InverterRealFilter, description = "Optional JSON object with the same keys as the query string"),
    params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("stationId" = Option<String>, Query),
           ("keyword" = Option<String>, Query), ("online" = Option<bool>, Query),
           ("inverterIds" = Option<String>, Query, description = "comma-joined inverter ids")),
    responses((status = 200, body = Envelope<Page<InverterReal>>), (status = 400), (status = 401)))]
pub async fn list(
    State(state): State<TelemetryCtx>,
    Scoped { stations: scope, .. }: Scoped,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> ApiResult<Data<Page<InverterReal>>> {
    let p = Params::from_parts(query.as_deref(), &body)?;
    let current = p.positive("current", 1, i64::MAX)?;
    let size = p.positive("size", DEFAULT_SIZE, MAX_SIZE)?;
    let station = p.id("stationId")?;
    let online = p.flag("online")?;
    let only = p.ids("inverterIds")?;
    let mut rows = registered(
        &state,
        &scope,
        station,
        p.text("keyword").as_deref(),
        (!only.is_empty()).then_some(only.as_slice()),
    )
    .await?;
    // Name and SN filters apply to their own field (the registry page's contains rule).
    for (key, field) in [("name", 0), ("sn", 1)] {
        if let Some(v) = p.text(key).map(|v| v.to_lowercase()) {
            rows.retain(|r| {
                let text = if field == 0 { &r.name } else { &r.sn };
                text.to_lowercase().contains(&v)
            });
        }
    }
    // Online state lives in the realtime view, not in SQL: filter, then page, in memory. The
    // registry rows are light, and a tenant's inverters number in the thousands at most.
    let mut with_live: Vec<(Registered, Option<DeviceLive>)> = rows
        .into_iter()
        .map(|r| {
            let live = live_of(&state, &scope.tenant_id, &r);
            (r, live)
        })
        .collect();
    if let Some(want) = online {
        with_live.retain(|(_, live)| live.as_ref().is_some_and(|d| d.online) == want);
    }
    let total = with_live.len() as i64;
    let offset = usize::try_from((current - 1).saturating_mul(size)).unwrap_or(usize::MAX);
    let page: Vec<(Registered, Option<DeviceLive>)> =
        with_live.into_iter().skip(offset).take(size as usize).collect();
    // Each inverter's today is its station's (the one clock rule).
    let now = state.clock.now_ms();
    let mut days: Vec<(i64, Day)> = page
        .iter()
        .map(|(r, _)| {
            (
                r.station_id,
                site_day::today_of(SiteClock::of(r.utc_offset_minutes), now),
            )
        })
        .collect();
    days.sort_by_key(|(s, _)| *s);
    days.dedup_by_key(|(s, _)| *s);
    let ids: Vec<i64> = page.iter().map(|(r, _)| r.id).collect();
    let rollups = site_day::day_rollups(&state, &scope, &days, Some(&ids)).await?;
    let lifetime = site_day::inverter_lifetime_wh(&state, &scope.tenant_id, &ids).await?;
    let faulty = with_open_faults(
        &state,
        &scope,
        &page.iter().map(|(r, _)| r.id).collect::<Vec<_>>(),
    )
    .await?;
    let records = page
        .iter()
        .map(|(r, live)| {
            let energy = (
                fleet::today_energy_wh(rollups.get(&r.id).map(|(_, d)| d)),
                lifetime.get(&r.id).copied(),
            );
            let withheld = r
                .gateway_id
                .as_deref()
                .and_then(|g| state.realtime.withheld(g, &scope.tenant_id, r.station_id, &r.sn));
            row_of(r, live.as_ref(), energy, faulty.contains(&r.id), withheld)
        })
        .collect();
    Ok(Data(Page::new(records, total, size, current)))
}

/// The listed inverters with an open device-fault alarm (type 1, active or acknowledged).
async fn with_open_faults(
    state: &Core,
    scope: &StationScope,
    ids: &[i64],
) -> Result<std::collections::HashSet<i64>, ApiError> {
    if ids.is_empty() {
        return Ok(Default::default());
    }
    let mut sql = Sql::default();
    // Tenant and `condition` by hand, not `rows(..)`: alarms have no deleted flag.
    sql.push_bind(
        "SELECT DISTINCT a.device_id FROM pv_alarm a WHERE a.tenant_id = ? AND a.type = ? AND a.status < ?",
        [
            Value::from(scope.tenant_id.as_str()),
            Value::Int(crate::alarm::store::TYPE_FAULT),
            Value::Int(crate::alarm::store::STATUS_CLEARED),
        ],
    );
    sql.append(&scope.condition("a.station_id"));
    sql.push(" AND a.device_id IN (");
    sql.push_ids(&ids.iter().map(|i| Id(*i)).collect::<Vec<_>>());
    sql.push(")");
    Ok(sql
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .collect())
}

// ---- curves ----

/// Inverter metrics that can be charted: vocabulary name (`{n}` = PV input), labels.
const WAVE: &[(&str, &str, &str)] = &[
    ("ac_power", "交流功率", "AC power"),
    ("dc_power", "直流功率", "DC power"),
    ("ac_reactive_power", "无功功率", "Reactive power"),
    ("power_factor", "功率因数", "Power factor"),
    ("energy_today", "当日发电量", "Energy today"),
    ("grid_voltage", "电网电压", "Grid voltage"),
    ("grid_voltage_a", "A相电压", "Phase A voltage"),
    ("grid_voltage_b", "B相电压", "Phase B voltage"),
    ("grid_voltage_c", "C相电压", "Phase C voltage"),
    ("grid_voltage_ab", "AB线电压", "Line voltage AB"),
    ("grid_voltage_bc", "BC线电压", "Line voltage BC"),
    ("grid_voltage_ca", "CA线电压", "Line voltage CA"),
    ("ac_current", "交流电流", "AC current"),
    ("ac_current_a", "A相电流", "Phase A current"),
    ("ac_current_b", "B相电流", "Phase B current"),
    ("ac_current_c", "C相电流", "Phase C current"),
    ("grid_frequency", "电网频率", "Grid frequency"),
    ("dc_voltage", "直流电压", "DC voltage"),
    ("dc_current", "直流电流", "DC current"),
    ("temperature", "内部温度", "Internal temperature"),
    ("heatsink_temperature", "散热器温度", "Heat-sink temperature"),
    ("efficiency", "转换效率", "Efficiency"),
    ("insulation_resistance", "绝缘阻抗", "Insulation resistance"),
    ("pv{n}_voltage", "PV{n}电压", "PV{n} voltage"),
    ("pv{n}_current", "PV{n}电流", "PV{n} current"),
    ("pv{n}_power", "PV{n}功率", "PV{n} power"),
];

/// The unit a chart shows a metric in, and the factor from the vocabulary's canonical unit:
/// powers and energies in k-units like every other figure of the console.
pub fn display_unit(metric: &str) -> Option<(String, f64)> {
    let m = metrics::lookup(metric)?;
    Some(match m.def.dimension {
        Dimension::Power => ("kW".into(), 1e-3),
        Dimension::ReactivePower => ("kvar".into(), 1e-3),
        Dimension::ApparentPower => ("kVA".into(), 1e-3),
        Dimension::Energy => ("kWh".into(), 1e-3),
        Dimension::Resistance => ("kOhm".into(), 1e-3),
        _ => (m.unit().symbol.to_owned(), 1.0),
    })
}

/// The labels of a chartable inverter metric (`pv3_current` → PV3电流 / PV3 current).
fn wave_label(name: &str) -> Option<Text> {
    for (pattern, zh, en) in WAVE {
        match pattern.split_once("{n}") {
            None if name == *pattern => return Some(Text::new(zh, en)),
            None => {}
            Some((pre, post)) => {
                let Some(n) = name.strip_prefix(pre).and_then(|r| r.strip_suffix(post)) else {
                    continue;
                };
                if n.parse::<u32>().is_ok_and(|n| n >= 1 && n as i64 <= MAX_STRINGS) && !n.starts_with('0') {
                    return Some(Text::owned(zh.replace("{n}", n), en.replace("{n}", n)));
                }
            }
        }
    }
    None
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaveName {
    /// Metric name to pass to `listWaveTag` (`names`).
    pub name: String,
    /// Label in the request's language.
    pub label: String,
    pub label_zh: String,
    pub label_en: String,
    /// Unit of the curve's values (kW, kWh, V, A, Hz, degC, %, kOhm, 1).
    pub unit: String,
}

fn wave_name(name: &str, label: &Text) -> Option<WaveName> {
    Some(WaveName {
        name: name.to_owned(),
        label: label.get(Lang::current()).to_owned(),
        label_zh: label.zh.to_string(),
        label_en: label.en.to_string(),
        unit: display_unit(name)?.0,
    })
}

/// The inverter metrics that can be charted, with zh/en labels and units, from the metric
/// vocabulary (`shared/src/metrics.rs`). Per-string metrics are listed for PV1..PVn, n the most
/// strings among the chosen inverters (`inverterIds`), else the station's (`stationId`), else
/// the caller's.
#[utoipa::path(get, path = "/api/inverterReal/listWaveName", tag = "realtime",
    params(("inverterIds" = Option<String>, Query, description = "comma-joined inverter ids"),
           ("stationId" = Option<String>, Query)),
    responses((status = 200, body = Envelope<Vec<WaveName>>), (status = 400), (status = 401)))]
pub async fn list_wave_name(
    State(state): State<TelemetryCtx>,
    Scoped { stations: scope, .. }: Scoped,
    RawQuery(query): RawQuery,
) -> ApiResult<Data<Vec<WaveName>>> {
    let p = Params::from_parts(query.as_deref(), b"")?;
    let ids = p.ids("inverterIds")?;
    let rows = registered(
        &state,
        &scope,
        p.id("stationId")?,
        None,
        (!ids.is_empty()).then_some(ids.as_slice()),
    )
    .await?;
    let strings = rows
        .iter()
        .map(|r| r.strings_count)
        .max()
        .unwrap_or(0)
        .clamp(0, MAX_STRINGS);
    let mut out = Vec::new();
    for (pattern, zh, en) in WAVE {
        if pattern.contains("{n}") {
            for n in 1..=strings {
                let name = pattern.replace("{n}", &n.to_string());
                let label = Text::owned(
                    zh.replace("{n}", &n.to_string()),
                    en.replace("{n}", &n.to_string()),
                );
                out.extend(wave_name(&name, &label));
            }
        } else {
            out.extend(wave_name(pattern, &Text::new(zh, en)));
        }
    }
    Ok(Data(out))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaveSeries {
    pub inverter_id: Id,
    pub inverter_name: String,
    pub station_name: String,
    /// Metric name.
    pub name: String,
    pub label: String,
    pub unit: String,
    /// The UTC offset of this series' times (`-12:00`): its own station's clock, whose day
    /// (`date`, midnight to midnight there) it covers.
    pub utc_offset: String,
    pub utc_offset_minutes: i64,
    /// `[time, value]` pairs: the start of each 5-minute bucket (`yyyy-MM-dd HH:mm:ss`, in the
    /// series' clock) and the bucket's mean in `unit`; buckets without data are left out.
    #[schema(value_type = Vec<Vec<Json>>)]
    pub points: Vec<(String, f64)>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaveDay {
    /// The day, `yyyy-MM-dd`, in the station's clock.
    pub date: String,
    /// The station's midnight to the next, `[start, end)`, in the station's clock.
    pub start: String,
    pub end: String,
    /// The UTC offset of `date`, `start` and `end` (`+13:00`): the clock of the first inverter's
    /// station, which also names the day when none is asked. Each series states its own.
    pub utc_offset: String,
    /// The same offset in minutes east of UTC.
    pub utc_offset_minutes: i64,
    /// Width of a point's bucket, minutes (5: at most 288 points per series).
    pub interval_minutes: i64,
    pub series: Vec<WaveSeries>,
}

/// Day curves of chosen metrics (`names`, ≤ 10, from `listWaveName`) for chosen inverters
/// (`inverterIds`, ≤ 20) on `date` (`yyyy-MM-dd`, default today in the first inverter's station's
/// clock): one series per inverter and metric, 5-minute means (see `telemetry::api::curve`), each
/// over that date in its own station's clock (midnight to midnight there), with its `utcOffset`.
#[utoipa::path(get, path = "/api/inverterReal/listWaveTag", tag = "realtime",
    params(("inverterIds" = String, Query, description = "comma-joined inverter ids"),
           ("names" = String, Query, description = "comma-joined metric names"),
           ("date" = Option<String>, Query, description = "yyyy-MM-dd, default today")),
    responses((status = 200, body = Envelope<WaveDay>), (status = 400), (status = 401), (status = 404)))]
pub async fn list_wave_tag(
    State(state): State<TelemetryCtx>,
    Scoped { stations: scope, .. }: Scoped,
    RawQuery(query): RawQuery,
) -> ApiResult<Data<WaveDay>> {
    let p = Params::from_parts(query.as_deref(), b"")?;
    let ids = distinct(p.ids("inverterIds")?);
    let names = distinct(p.names("names"));
    let date = p.text("date");
    if ids.is_empty() || names.is_empty() {
        return Err(ApiError::bad_request(
            "请选择逆变器和测点",
            "Choose the inverters (inverterIds) and the metrics (names)",
        ));
    }
    if ids.len() > MAX_WAVE_DEVICES || names.len() > MAX_WAVE_NAMES {
        return Err(ApiError::bad_request(
            format!("最多选择{MAX_WAVE_DEVICES}台逆变器和{MAX_WAVE_NAMES}个测点"),
            format!("At most {MAX_WAVE_DEVICES} inverters and {MAX_WAVE_NAMES} metrics at a time"),
        ));
    }
    let mut labels = Vec::new();
    for n in &names {
        let label = wave_label(n).ok_or_else(|| {
            ApiError::bad_request(format!("不支持的测点：{n}"), format!("Unknown metric {n}"))
        })?;
        labels.push(label);
    }
    let rows = registered(&state, &scope, None, None, Some(&ids)).await?;
    if rows.len() != ids.len() {
        // An id of another tenant or station is as unknown as a made-up one.
        return Err(ApiError::not_found());
    }
    let by_id: HashMap<i64, &Registered> = rows.iter().map(|r| (r.id, r)).collect();
    let first = ids.first().and_then(|id| by_id.get(&id.0));
    let clock = SiteClock::of(first.and_then(|r| r.utc_offset_minutes));
    let day = Day::parse_in(date.as_deref(), clock)?;
    // The same date in each station's clock: one read per clock.
    let mut by_clock: Vec<(SiteClock, Vec<i64>)> = Vec::new();
    for id in &ids {
        let Some(r) = by_id.get(&id.0) else { continue };
        let c = SiteClock::of(r.utc_offset_minutes);
        match by_clock.iter_mut().find(|(k, _)| *k == c) {
            Some((_, devices)) => devices.push(id.0),
            None => by_clock.push((c, vec![id.0])),
        }
    }
    let mut curves = HashMap::new();
    for (c, devices) in &by_clock {
        let own = Day::of_in(day.date, *c);
        curves.extend(curve::day_curves(&state, &scope.tenant_id, devices, &names, &own).await?);
    }
    let mut series = Vec::new();
    for id in &ids {
        let Some(r) = by_id.get(&id.0) else { continue };
        let own = Day::of_in(day.date, SiteClock::of(r.utc_offset_minutes));
        for (name, label) in names.iter().zip(&labels) {
            let (unit, factor) = display_unit(name).unwrap_or_else(|| ("1".into(), 1.0));
            let points = curves
                .get(&(id.0, name.clone()))
                .map(|pts| {
                    pts.iter()
                        .map(|(t, v)| (own.format_ms(*t), round(v * factor, 4)))
                        .collect()
                })
                .unwrap_or_default();
            series.push(WaveSeries {
                inverter_id: *id,
                inverter_name: r.name.clone(),
                station_name: r.station_name.clone(),
                name: name.clone(),
                label: label.render(),
                unit,
                utc_offset: own.clock.label(),
                utc_offset_minutes: own.clock.offset_minutes(),
                points,
            });
        }
    }
    Ok(Data(WaveDay {
        date: day.date.to_string(),
        start: day.format_ms(day.start),
        end: day.format_ms(day.end),
        utc_offset: clock.label(),
        utc_offset_minutes: clock.offset_minutes(),
        interval_minutes: BUCKET_MS / 60_000,
        series,
    }))
}

/// `items` without repeats, first occurrence kept (the order of the request is the order of
/// the series).
fn distinct<T: PartialEq>(items: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(items.len());
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_wave_metric_is_in_the_vocabulary_with_a_unit() {
        for (pattern, _, _) in WAVE {
            let name = pattern.replace("{n}", "1");
            assert!(metrics::lookup(&name).is_some(), "{name}");
            assert!(display_unit(&name).is_some(), "{name}");
            assert!(wave_label(&name).is_some(), "{name}");
        }
        assert_eq!(display_unit("ac_power").unwrap(), ("kW".to_string(), 1e-3));
        assert_eq!(display_unit("pv2_current").unwrap().0, "A");
        assert_eq!(wave_label("pv12_current").unwrap().zh, "PV12电流");
        for bad in [
            "pv0_current",
            "pv01_current",
            "pv65_current",
            "wind_speed",
            "status_code",
        ] {
            assert!(wave_label(bad).is_none(), "{bad}");
        }
    }
}
