//! Performance of a station (`/api/report/station/electricity/rate`): IEC 61724-1 PR, the
//! temperature-corrected PR, expected energy and availability per slot, from hour rows (day rows
//! for a span of years), with the intervals left out counted. Formulas: `docs/reports.md`,
//! "Performance".

use std::collections::BTreeMap;

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use super::common::{StationQuery, axis_of, required_station, round};
use super::performance::{self, Performance, PerformanceSetting, Sample};
use super::period::{TimeQuery, TimeType};
use super::settings::{REPORT_KEY, ReportSetting};
use super::store;
use crate::analytics::data::hub_offset_ms;
use crate::analytics::settings as tenant_settings;
use crate::auth::scope::{Scoped, StationScope};
use crate::kernel::extract::Query;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id};
use crate::telemetry::{station_day, station_hour};

const HOUR_MS: i64 = 3_600_000;

/// Which PR the figures are: the console names it on every screen.
pub const PR_KIND: &str = "IEC 61724-1";

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PerformancePoint {
    pub label: String,
    #[serde(flatten)]
    pub figures: Performance,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationPerformance {
    pub station_id: Id,
    pub station_name: String,
    /// P0, kWp (DC).
    pub capacity_kwp: Option<f64>,
    pub title: String,
    pub time_type: TimeType,
    /// The station's UTC offset (`+13:00`): the clock its slots are cut and labelled in.
    pub utc_offset: String,
    /// `IEC 61724-1`: PR = (E / P0) / (H_POA / 1 kW/m²); `prTemperatureCorrected` rates P0 at
    /// the module temperature of each interval.
    pub pr_kind: String,
    /// Whether the irradiation is in the plane of array (else horizontal: PR is then lower
    /// than the plane-of-array PR of a tilted array and says so).
    pub plane_of_array: bool,
    /// Rollup interval the figures were computed on.
    pub interval: String,
    pub setting: PerformanceSetting,
    pub points: Vec<PerformancePoint>,
    pub total: Performance,
}

fn rounded(p: Performance) -> Performance {
    let r4 = |v: Option<f64>| v.map(|x| round(x, 4));
    Performance {
        energy_kwh: p.energy_kwh.map(|v| round(v, 3)),
        pr_energy_kwh: round(p.pr_energy_kwh, 3),
        irradiation_kwh_m2: round(p.irradiation_kwh_m2, 3),
        final_yield: r4(p.final_yield),
        reference_yield: r4(p.reference_yield),
        pr: r4(p.pr),
        pr_temperature_corrected: r4(p.pr_temperature_corrected),
        expected_energy_kwh: p.expected_energy_kwh.map(|v| round(v, 3)),
        availability: r4(p.availability),
        ..p
    }
}

/// The intervals of one station from the station-hour summary: the same figures the hour
/// rollups give, one row per hour, without reading the weather station's metrics.
async fn summary_samples(
    core: &Core,
    station: i64,
    from: i64,
    to: i64,
) -> Result<(BTreeMap<i64, Sample>, bool), ApiError> {
    station_day::ensure_current(&core.db, &[station]).await?;
    let mut plane_of_array = false;
    let mut samples = BTreeMap::new();
    for h in station_hour::hours(&core.db, station, from, to).await? {
        if h.inverter_rows == 0 && h.weather_rows == 0 {
            continue;
        }
        plane_of_array |= h.poa;
        let weather = h.weather_rows > 0;
        samples.insert(
            h.bucket,
            Sample {
                hours: 1.0,
                energy_wh: h.energy_wh.filter(|_| h.inverter_rows > 0),
                irradiation_wh_m2: h.irradiation_wh_m2.filter(|_| weather),
                irradiance: h.irradiance.filter(|_| weather),
                module_temp: h.module_temp.filter(|_| weather),
            },
        );
    }
    Ok((samples, plane_of_array))
}

/// The intervals of one station from rollup rows of `period` within `span`.
async fn rollup_samples(
    core: &Core,
    station: i64,
    devices: &store::Devices,
    period: &str,
    hours: f64,
    span: (i64, i64),
) -> Result<(BTreeMap<i64, Sample>, bool), ApiError> {
    let inverter_ids: Vec<Id> = devices.inverters.iter().map(|i| Id(i.id)).collect();
    let weather_ids: Vec<Id> = devices.weather.iter().map(|w| Id(w.0)).collect();
    let energy = store::bucket_sums(core, station, &inverter_ids, period, span.0, span.1).await?;
    let weather = store::rows(core, station, &weather_ids, period, span.0, span.1).await?;
    let mut samples: BTreeMap<i64, Sample> = BTreeMap::new();
    for (bucket, _, sums) in energy {
        samples
            .entry(bucket)
            .or_insert(Sample {
                hours,
                ..Sample::default()
            })
            .energy_wh = sums.energy_wh;
    }
    let mut plane_of_array = false;
    for row in &weather {
        plane_of_array |= row.stat("irradiance_poa", 0).is_some();
        let s = samples.entry(row.bucket).or_insert(Sample {
            hours,
            ..Sample::default()
        });
        s.irradiation_wh_m2 = row.irradiation_wh_m2;
        s.irradiance = row
            .irradiance_avg
            .or_else(|| row.stat("irradiance_poa", 0))
            .or_else(|| row.stat("irradiance_ghi", 0));
        s.module_temp = row.stat("module_temperature", 0);
    }
    Ok((samples, plane_of_array))
}

/// The performance of one station over `q`.
pub(super) async fn station_performance_of(
    core: &Core,
    scope: &StationScope,
    id: Id,
    q: &TimeQuery,
) -> Result<StationPerformance, ApiError> {
    let stations = store::stations(core, scope, &[id]).await?;
    let station = stations.first().ok_or_else(ApiError::not_found)?;
    let setting: ReportSetting = tenant_settings::load(core, &station.tenant_id, REPORT_KEY).await?;
    let setting = setting.performance();
    let axis = axis_of(q, station)?;
    let devices = store::devices(core, &[station.id]).await?;
    let whole_hours = (station.offset_ms() - hub_offset_ms()) % HOUR_MS == 0;
    let period = match axis.time_type {
        TimeType::Years => "1d",
        _ if whole_hours => "1h",
        _ => "5m",
    };
    let hours = match period {
        "1d" => 24.0,
        "1h" => 1.0,
        _ => 5.0 / 60.0,
    };
    let (samples, plane_of_array) = if period == "1h" {
        summary_samples(core, station.id, axis.start(), axis.end()).await?
    } else {
        rollup_samples(
            core,
            station.id,
            &devices,
            period,
            hours,
            (axis.start(), axis.end()),
        )
        .await?
    };
    let mut per_slot: Vec<Vec<Sample>> = vec![Vec::new(); axis.slots.len()];
    for (bucket, s) in &samples {
        if let Some(i) = axis.slot_of(*bucket) {
            per_slot[i].push(*s);
        }
    }
    // A day's mean module temperature includes the night: no temperature correction on day rows.
    let strip = |v: &Vec<Sample>| -> Vec<Sample> {
        v.iter()
            .map(|s| Sample {
                module_temp: if period == "1d" { None } else { s.module_temp },
                ..*s
            })
            .collect()
    };
    let p0 = station.component_capacity;
    let all: Vec<Sample> = per_slot.iter().flat_map(strip).collect();
    Ok(StationPerformance {
        station_id: Id(station.id),
        station_name: station.name.clone(),
        capacity_kwp: p0,
        title: axis.title.clone(),
        time_type: axis.time_type,
        utc_offset: station.clock().label(),
        pr_kind: PR_KIND.into(),
        plane_of_array,
        interval: period.into(),
        setting,
        points: axis
            .slots
            .iter()
            .zip(&per_slot)
            .map(|(slot, v)| PerformancePoint {
                label: slot.label.clone(),
                figures: rounded(performance::performance(&strip(v), p0, &setting)),
            })
            .collect(),
        total: rounded(performance::performance(&all, p0, &setting)),
    })
}

/// PR, temperature-corrected PR, expected energy and availability of a station per slot.
#[utoipa::path(get, path = "/api/report/station/electricity/rate", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, body = Envelope<StationPerformance>), (status = 400), (status = 404)))]
pub async fn station_performance(
    State(core): State<Core>,
    Scoped { stations: scope, .. }: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> ApiResult<Data<StationPerformance>> {
    let id = required_station(s.station_id)?;
    Ok(Data(station_performance_of(&core, &scope, id, &q).await?))
}
