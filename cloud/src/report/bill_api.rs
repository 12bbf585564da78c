//! The station's bill and energy balance (`/api/stationMeterReport/...`): the settlement of any
//! period by time-of-use segment and tariff version (`electricityBillSettlement`), its
//! self-consumption and feed-in ratios (`rate`), and the savings of the energy generated
//! (`energyConservation`). Formulas: `docs/reports.md`, "Bill settlement".

use std::collections::HashMap;

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use super::common::{StationQuery, StationsQuery, axis_of, id_list, kwh, required_station, round};
use super::conservation::{self, Factors, Savings};
use super::period::{Axis, TimeQuery, TimeType};
use super::settings::{REPORT_KEY, ReportSetting};
use super::settlement::{self, Bill, GridConnection, Interval, SegmentLine, Terms};
use super::store::{self, Devices};
use super::tariff_store;
use crate::analytics::data::{StationRow, hub_offset_ms};
use crate::analytics::settings as tenant_settings;
use crate::auth::scope::{Scoped, StationScope};
use crate::kernel::extract::Query;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id};
use crate::telemetry::realtime::{KIND_INVERTER, KIND_METER};
use crate::telemetry::{station_day, station_hour};

const HOUR_MS: i64 = 3_600_000;
const FIVE_MINUTES_MS: i64 = 300_000;

#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillFigures {
    pub generation_kwh: f64,
    pub self_consumed_kwh: f64,
    pub exported_kwh: f64,
    pub imported_kwh: f64,
    pub self_consumed_amount: f64,
    pub exported_amount: f64,
    /// self-consumed amount + exported amount, in the setting's currency.
    pub amount: f64,
    /// By time-of-use segment type (1 sharp, 2 peak, 3 flat, 4 valley), those present.
    pub segments: Vec<SegmentLine>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillPoint {
    pub label: String,
    #[serde(flatten)]
    pub figures: BillFigures,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationBill {
    pub station_id: Id,
    pub station_name: String,
    pub title: String,
    pub time_type: TimeType,
    /// The station's UTC offset (`+13:00`): the clock its slots are cut and labelled in.
    pub utc_offset: String,
    /// ISO 4217 code of every amount.
    pub currency: String,
    /// `connected_type` key the bill applied (absent: billed as full feed-in).
    pub connected_type: Option<String>,
    pub grid_connection: GridConnection,
    pub contribution_way: Option<String>,
    /// Share of the grid price charged for self-consumed energy (1 = no discount).
    pub discount_factor: f64,
    pub points: Vec<BillPoint>,
    pub total: BillFigures,
    /// `yyyy-MM-dd` days with generation but no grid price version in force.
    pub unpriced_days: Vec<String>,
    /// Days with exported energy but no feed-in price.
    pub no_feed_in_days: Vec<String>,
    /// kWh left unvalued on those days.
    pub unpriced_kwh: f64,
    /// Intervals where the grid meter's export exceeded the inverters' generation (export taken
    /// as the generation).
    pub export_capped_intervals: usize,
    /// Rollup interval the energy was split by: `1h` or `5m`.
    pub interval: String,
}

fn figures(b: &Bill) -> BillFigures {
    BillFigures {
        generation_kwh: round(b.generation_kwh, 3),
        self_consumed_kwh: round(b.self_consumed_kwh, 3),
        exported_kwh: round(b.exported_kwh, 3),
        imported_kwh: round(b.imported_kwh, 3),
        self_consumed_amount: round(b.self_consumed_amount, 2),
        exported_amount: round(b.exported_amount, 2),
        amount: round(b.amount(), 2),
        segments: b
            .segments
            .values()
            .map(|l| SegmentLine {
                kind: l.kind.clone(),
                generation_kwh: round(l.generation_kwh, 3),
                self_consumed_kwh: round(l.self_consumed_kwh, 3),
                exported_kwh: round(l.exported_kwh, 3),
                self_consumed_amount: round(l.self_consumed_amount, 2),
                exported_amount: round(l.exported_amount, 2),
                min_price: l.min_price,
                max_price: l.max_price,
            })
            .collect(),
    }
}

/// The energy of one station per rollup interval over `axis`: inverters' generation, the grid
/// meter's import and export.
pub async fn intervals(
    core: &Core,
    station: &StationRow,
    devices: &Devices,
    axis: &Axis,
    period: &str,
) -> Result<Vec<Interval>, ApiError> {
    let len = if period == "5m" { FIVE_MINUTES_MS } else { HOUR_MS };
    if period == "1h" {
        // The station-hour summary holds these sums for the station's live devices.
        station_day::ensure_current(&core.db, &[station.id]).await?;
        let hours = station_hour::hours(&core.db, station.id, axis.start(), axis.end()).await?;
        return Ok(hours
            .into_iter()
            .map(|h| Interval {
                start: h.bucket,
                len,
                generation_wh: h.energy_wh.filter(|_| h.inverter_rows > 0),
                export_wh: h.export_wh.filter(|_| h.meter_rows > 0),
                import_wh: h.import_wh.filter(|_| h.meter_rows > 0),
            })
            .collect());
    }
    let ids = devices.ids();
    let rows = store::bucket_sums(core, station.id, &ids, period, axis.start(), axis.end()).await?;
    let mut by_bucket: std::collections::BTreeMap<i64, Interval> = Default::default();
    for (bucket, kind, sums) in rows {
        let iv = by_bucket.entry(bucket).or_insert(Interval {
            start: bucket,
            len,
            ..Interval::default()
        });
        if kind == KIND_INVERTER {
            iv.generation_wh = sums.energy_wh;
        } else if kind == KIND_METER {
            iv.export_wh = sums.export_wh;
            iv.import_wh = sums.import_wh;
        }
    }
    Ok(by_bucket.into_values().collect())
}

/// Hour rows when the station's hours and every tariff boundary fall on whole hours, else
/// 5-minute rows, so no interval straddles a price change.
fn interval_period(station: &StationRow, terms: &Terms) -> &'static str {
    let whole_hours = (station.offset_ms() - hub_offset_ms()) % HOUR_MS == 0;
    let on_hours = terms
        .tariff
        .iter()
        .flat_map(|v| &v.segments)
        .all(|s| s.start % 60 == 0 && s.end % 60 == 0);
    if whole_hours && on_hours { "1h" } else { "5m" }
}

/// What a station's bill was computed with.
pub struct Priced {
    pub setting: ReportSetting,
    pub facts: store::BillFacts,
    pub terms: Terms,
    /// The rollup interval: `1h` or `5m`.
    pub period: &'static str,
    pub intervals: Vec<Interval>,
}

/// The energy of `station` over `axis` with the prices and terms of its bill.
pub async fn priced(core: &Core, station: &StationRow, axis: &Axis) -> Result<Priced, ApiError> {
    let setting: ReportSetting = tenant_settings::load(core, &station.tenant_id, REPORT_KEY).await?;
    let facts = store::bill_facts(core, station.id).await?;
    let terms = Terms {
        connection: GridConnection::from_key(facts.connected_type.as_deref()),
        offset_ms: station.offset_ms(),
        tariff: tariff_store::tariff(core, station.id).await?,
        feed_in: tariff_store::feed_in(core, station.id, &facts).await?,
        discount_factor: setting.discount_factor(facts.contribution_way.as_deref()),
    };
    let devices = store::devices(core, &[station.id]).await?;
    let period = interval_period(station, &terms);
    let intervals = intervals(core, station, &devices, axis, period).await?;
    Ok(Priced {
        setting,
        facts,
        terms,
        period,
        intervals,
    })
}

/// One station's bill over `q`'s period.
pub async fn station_bill(
    core: &Core,
    scope: &StationScope,
    station_id: Id,
    q: &TimeQuery,
) -> Result<(StationBill, Bill), ApiError> {
    let stations = store::stations(core, scope, &[station_id]).await?;
    let station = stations.first().ok_or_else(ApiError::not_found)?;
    let axis = axis_of(q, station)?;
    let Priced {
        setting,
        facts,
        terms,
        period,
        intervals: all,
    } = priced(core, station, &axis).await?;
    let mut per_slot: Vec<Vec<Interval>> = vec![Vec::new(); axis.slots.len()];
    for iv in &all {
        if let Some(i) = axis.slot_of(iv.start) {
            per_slot[i].push(*iv);
        }
    }
    let mut total = settlement::settle(&all, &terms);
    let days = |start: i64, end: i64| settlement::days_of(start, end, terms.offset_ms);
    settlement::zero_priced_segments(&mut total, &terms, days(axis.start(), axis.end()));
    let points = axis
        .slots
        .iter()
        .zip(&per_slot)
        .map(|(slot, ivs)| {
            let mut bill = settlement::settle(ivs, &terms);
            settlement::zero_priced_segments(&mut bill, &terms, days(slot.start, slot.end));
            BillPoint {
                label: slot.label.clone(),
                figures: figures(&bill),
            }
        })
        .collect();
    let day = |d: &chrono::NaiveDate| d.format("%Y-%m-%d").to_string();
    Ok((
        StationBill {
            station_id: Id(station.id),
            station_name: station.name.clone(),
            title: axis.title.clone(),
            time_type: axis.time_type,
            utc_offset: station.clock().label(),
            currency: setting.currency.clone(),
            connected_type: facts.connected_type.clone(),
            grid_connection: terms.connection,
            contribution_way: facts.contribution_way.clone(),
            discount_factor: terms.discount_factor,
            points,
            total: figures(&total),
            unpriced_days: total.unpriced_days.iter().map(day).collect(),
            no_feed_in_days: total.no_feed_in_days.iter().map(day).collect(),
            unpriced_kwh: round(total.unpriced_kwh, 3),
            export_capped_intervals: total.export_capped_intervals,
            interval: period.to_owned(),
        },
        total,
    ))
}

/// The bill of a station for a day, month, year, years or range of days: energy per
/// time-of-use segment × the tariff version in force on each day, by grid-connection type and
/// contract; days without a price are named.
#[utoipa::path(get, path = "/api/stationMeterReport/electricityBillSettlement", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, body = Envelope<StationBill>), (status = 400), (status = 404)))]
pub async fn electricity_bill_settlement(
    State(core): State<Core>,
    Scoped { stations: scope, .. }: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> ApiResult<Data<StationBill>> {
    let id = required_station(s.station_id)?;
    Ok(Data(station_bill(&core, &scope, id, &q).await?.0))
}

#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatePoint {
    pub label: String,
    pub generation_kwh: Option<f64>,
    /// Generation minus export (what the site used of its own power).
    pub self_consumed_kwh: Option<f64>,
    pub exported_kwh: Option<f64>,
    pub imported_kwh: Option<f64>,
    /// self-consumed / generation, 0..1.
    pub self_consumption_ratio: Option<f64>,
    /// exported / generation, 0..1.
    pub feed_in_ratio: Option<f64>,
    /// self-consumed / (self-consumed + imported): the share of the site's use it covered.
    pub self_sufficiency_ratio: Option<f64>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationRates {
    pub station_id: Id,
    pub station_name: String,
    pub title: String,
    pub time_type: TimeType,
    /// The station's UTC offset (`+13:00`): the clock its slots are cut and labelled in.
    pub utc_offset: String,
    /// Whether a grid meter measured the export (else the grid-connection type decides it).
    pub metered: bool,
    pub points: Vec<RatePoint>,
    pub total: RatePoint,
}

fn rate_point(
    label: String,
    gen_wh: Option<f64>,
    export_wh: Option<f64>,
    import_wh: Option<f64>,
) -> RatePoint {
    let ratio = |a: f64, b: f64| (b > 0.0).then(|| round(a / b, 4));
    let Some(generation) = gen_wh else {
        return RatePoint {
            label,
            imported_kwh: import_wh.map(kwh),
            ..RatePoint::default()
        };
    };
    let exported = export_wh.unwrap_or(0.0).clamp(0.0, generation.max(0.0));
    let own = generation.max(0.0) - exported;
    let import = import_wh.unwrap_or(0.0).max(0.0);
    RatePoint {
        label,
        generation_kwh: Some(kwh(generation)),
        self_consumed_kwh: Some(kwh(own)),
        exported_kwh: Some(kwh(exported)),
        imported_kwh: import_wh.map(kwh),
        self_consumption_ratio: ratio(own, generation),
        feed_in_ratio: ratio(exported, generation),
        self_sufficiency_ratio: import_wh.and_then(|_| ratio(own, own + import)),
    }
}

/// Self-consumption, feed-in and self-sufficiency ratios of one station over `q`.
pub(super) async fn station_rates(
    core: &Core,
    scope: &StationScope,
    id: Id,
    q: &TimeQuery,
) -> Result<StationRates, ApiError> {
    let stations = store::stations(core, scope, &[id]).await?;
    let station = stations.first().ok_or_else(ApiError::not_found)?;
    let facts = store::bill_facts(core, station.id).await?;
    let connection = GridConnection::from_key(facts.connected_type.as_deref());
    let axis = axis_of(q, station)?;
    let devices = store::devices(core, &[station.id]).await?;
    let sums = store::slot_sums(
        core,
        &[station.id],
        &devices.ids(),
        &axis,
        store::period_for(&axis, station),
        false,
    )
    .await?;
    let metered = !devices.grid_meters.is_empty();
    let get = |kind: &str, i: usize| sums.get(&(station.id, 0, kind.to_owned(), i)).copied();
    let mut totals = (None::<f64>, None::<f64>, None::<f64>);
    let add = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    let mut points = Vec::new();
    for (i, slot) in axis.slots.iter().enumerate() {
        let generation = get(KIND_INVERTER, i).and_then(|s| s.energy_wh);
        let meter = get(KIND_METER, i);
        let export = match (metered, connection) {
            (true, _) => meter.and_then(|m| m.export_wh),
            (false, GridConnection::FullFeedIn) => generation,
            (false, _) => Some(0.0),
        };
        let import = meter.and_then(|m| m.import_wh);
        totals = (
            add(totals.0, generation),
            add(totals.1, export),
            add(totals.2, import),
        );
        points.push(rate_point(slot.label.clone(), generation, export, import));
    }
    Ok(StationRates {
        station_id: Id(station.id),
        station_name: station.name.clone(),
        title: axis.title.clone(),
        time_type: axis.time_type,
        utc_offset: station.clock().label(),
        metered,
        points,
        total: rate_point("total".into(), totals.0, totals.1, totals.2),
    })
}

/// Self-consumption, feed-in and self-sufficiency ratios of a station per slot, from the
/// inverters' generation and the grid meter's export and import.
#[utoipa::path(get, path = "/api/stationMeterReport/rate", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, body = Envelope<StationRates>), (status = 400), (status = 404)))]
pub async fn rate(
    State(core): State<Core>,
    Scoped { stations: scope, .. }: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> ApiResult<Data<StationRates>> {
    let id = required_station(s.station_id)?;
    Ok(Data(station_rates(&core, &scope, id, &q).await?))
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SavingsPoint {
    pub label: String,
    #[serde(flatten)]
    pub savings: Savings,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnergyConservation {
    pub title: String,
    pub time_type: TimeType,
    /// The stations counted.
    pub station_ids: Vec<Id>,
    /// The clocks of those stations (`-12:00`, `+08:00`), each station's slots cut in its own:
    /// the figures of a slot add each station's same-named day, month or year.
    pub utc_offsets: Vec<String>,
    pub points: Vec<SavingsPoint>,
    pub total: Savings,
    /// The coefficients used (kg per kWh, kg CO2 per tree and year).
    pub factors: Factors,
}

fn rounded(s: Savings) -> Savings {
    Savings {
        energy_kwh: round(s.energy_kwh, 3),
        coal_t: round(s.coal_t, 4),
        co2_t: round(s.co2_t, 4),
        so2_t: round(s.so2_t, 4),
        nox_t: round(s.nox_t, 4),
        dust_t: round(s.dust_t, 4),
        trees: round(s.trees, 1),
    }
}

pub(super) async fn savings_of(
    core: &Core,
    scope: &StationScope,
    ids: &[Id],
    q: &TimeQuery,
    factors: &Factors,
) -> Result<EnergyConservation, ApiError> {
    let stations = store::stations(core, scope, ids).await?;
    let station_ids: Vec<i64> = stations.iter().map(|s| s.id).collect();
    let devices = store::devices(core, &station_ids).await?;
    let only = Devices {
        inverters: devices.inverters,
        ..Devices::default()
    };
    // Slots are labelled the same in every clock; each station's energy goes to its own slots.
    let mut axis_shown: Option<Axis> = None;
    let mut energy: HashMap<usize, f64> = HashMap::new();
    let mut by_clock: std::collections::BTreeMap<i64, Vec<&StationRow>> = Default::default();
    for s in &stations {
        by_clock.entry(s.offset_ms()).or_default().push(s);
    }
    for group in by_clock.values() {
        let axis = axis_of(q, group[0])?;
        let ids: Vec<i64> = group.iter().map(|s| s.id).collect();
        let sums = store::slot_sums(
            core,
            &ids,
            &only.ids(),
            &axis,
            store::period_for(&axis, group[0]),
            false,
        )
        .await?;
        for ((_, _, kind, slot), s) in sums {
            if kind == KIND_INVERTER
                && let Some(e) = s.energy_wh
            {
                *energy.entry(slot).or_default() += e / 1000.0;
            }
        }
        axis_shown.get_or_insert(axis);
    }
    let axis = match axis_shown {
        Some(a) => a,
        None => q.axis(
            hub_offset_ms(),
            super::period::local_date(crate::kernel::time::now_ms(), hub_offset_ms()),
        )?,
    };
    let points: Vec<SavingsPoint> = axis
        .slots
        .iter()
        .enumerate()
        .map(|(i, slot)| SavingsPoint {
            label: slot.label.clone(),
            savings: rounded(conservation::savings(
                energy.get(&i).copied().unwrap_or(0.0),
                factors,
            )),
        })
        .collect();
    let total_kwh: f64 = energy.values().sum();
    Ok(EnergyConservation {
        title: axis.title.clone(),
        time_type: axis.time_type,
        station_ids: station_ids.into_iter().map(Id).collect(),
        utc_offsets: by_clock.values().map(|group| group[0].clock().label()).collect(),
        points,
        total: rounded(conservation::savings(total_kwh, factors)),
        factors: *factors,
    })
}

/// Standard coal saved, CO2, SO2, NOx and dust avoided and trees equivalent of the energy
/// generated by the chosen stations (every visible one without `stationIds`), with the
/// coefficients used.
#[utoipa::path(get, path = "/api/stationMeterReport/energyConservation", tag = "report",
    params(StationsQuery, TimeQuery),
    responses((status = 200, body = Envelope<EnergyConservation>), (status = 400), (status = 404)))]
pub async fn energy_conservation(
    State(core): State<Core>,
    Scoped { stations: scope, .. }: Scoped,
    Query(s): Query<StationsQuery>,
    Query(q): Query<TimeQuery>,
) -> ApiResult<Data<EnergyConservation>> {
    let ids = id_list(s.station_ids.as_deref())?;
    let factors = conservation::factors(&core).await?;
    Ok(Data(savings_of(&core, &scope, &ids, &q, &factors).await?))
}
