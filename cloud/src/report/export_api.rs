//! Excel exports of the reports: every report path + `/export`, with the same query, answers the
//! same figures as an `.xlsx` (what the console shows, with human labels and units, dictionary
//! keys turned into their names). Each needs the page's `export` button.

use axum::extract::State;
use axum::response::Response;

use super::bill_api::{self, BillFigures, StationBill};
use super::common::{InvertersQuery, StationQuery, StationsQuery, id_list, required_station};
use super::generation_api::{self, StationGeneration};
use super::irradiance_api;
use super::meter_api::{self, DateQuery, MeterCounter, MeterReport};
use super::performance_api::{self, StationPerformance};
use super::period::{TimeQuery, TimeType};
use super::store;
use super::workbook::{Cell, Table, download, tr};
use crate::auth::scope::Scoped;
use crate::kernel::extract::Query;
use crate::kernel::{ApiError, Core};

const XLSX_DOC: &str = "xlsx";

fn label(l: &str) -> String {
    if l == "total" {
        tr("合计", "Total")
    } else {
        l.to_owned()
    }
}

fn segment_name(kind: &str) -> String {
    match kind {
        "1" => tr("尖", "Sharp"),
        "2" => tr("峰", "Peak"),
        "3" => tr("平", "Flat"),
        "4" => tr("谷", "Valley"),
        other => other.to_owned(),
    }
}

fn role_name(role: &str) -> String {
    match role {
        "1" => tr("并网表", "Grid"),
        "2" => tr("发电表", "Generation"),
        "3" => tr("用电表", "Consumption"),
        other => other.to_owned(),
    }
}

/// The header of the column that states a row's clock.
fn clock_header() -> String {
    tr("时钟", "Clock")
}

/// A row's clock, `UTC-12:00`: the station's, which its time labels are in.
fn clock(offset: &str) -> Cell {
    format!("UTC{offset}").into()
}

fn pct(v: Option<f64>) -> Option<f64> {
    v.map(|x| (x * 10_000.0).round() / 100.0)
}

fn file(kind: &str, q: &TimeQuery) -> String {
    let period = match q.time_type.unwrap_or_default() {
        TimeType::Years | TimeType::Range => format!(
            "{}_{}",
            q.start.as_deref().unwrap_or(""),
            q.end.as_deref().unwrap_or("")
        ),
        _ => q.date.clone().unwrap_or_default(),
    };
    let safe: String = period
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect();
    if safe.is_empty() {
        format!("{kind}.xlsx")
    } else {
        format!("{kind}-{safe}.xlsx")
    }
}

async fn require(core: &Core, scoped: &Scoped, code: &str) -> Result<(), ApiError> {
    scoped.caller.require(core, code).await
}

/// Station generation (one or several stations).
#[utoipa::path(get, path = "/api/report/station/multiple/electricity/export", tag = "report",
    params(StationsQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn station_multiple_electricity(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationsQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    require(&core, &scoped, "stationElectricity_export").await?;
    let ids = id_list(s.station_ids.as_deref())?;
    station_generation_file(&core, &scoped, &ids, &q).await
}

/// Station generation of one station.
#[utoipa::path(get, path = "/api/report/station/electricity/export", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn station_electricity(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    require(&core, &scoped, "stationElectricity_export").await?;
    let id = required_station(s.station_id)?;
    station_generation_file(&core, &scoped, &[id], &q).await
}

async fn station_generation_file(
    core: &Core,
    scoped: &Scoped,
    ids: &[crate::kernel::Id],
    q: &TimeQuery,
) -> Result<Response, ApiError> {
    let reports = generation_api::stations_generation(core, &scoped.stations, ids, q).await?;
    let t = generation_table(&reports);
    download(&[t], &file("station-generation", q))
}

/// Station generation rows: one per slot and a total per station.
pub(super) fn generation_table(reports: &[StationGeneration]) -> Table {
    let mut t = Table::new(
        tr("电站发电量", "Station generation"),
        vec![
            tr("电站", "Station"),
            tr("时间", "Time"),
            tr("发电量 (kWh)", "Generation (kWh)"),
            tr("等效利用小时 (h)", "Equivalent hours (h)"),
            tr("辐照量 (kWh/m²)", "Irradiation (kWh/m²)"),
            tr("上网电量 (kWh)", "Exported (kWh)"),
            tr("下网电量 (kWh)", "Imported (kWh)"),
            tr("装机容量 (kWp)", "Capacity (kWp)"),
            clock_header(),
            tr("电量修正 (条)", "Energy corrections"),
        ],
    );
    for r in reports {
        for p in r.points.iter().chain(std::iter::once(&r.total)) {
            // On the total row: how many administrators' corrections the figures include.
            let corrections = (p.label == "total").then_some(r.corrections as f64);
            t.push(vec![
                r.station_name.as_str().into(),
                label(&p.label).into(),
                p.energy_kwh.into(),
                p.equivalent_hours.into(),
                p.irradiation_kwh_m2.into(),
                p.export_kwh.into(),
                p.import_kwh.into(),
                r.capacity_kwp.into(),
                clock(&r.utc_offset),
                corrections.into(),
            ]);
        }
    }
    t
}

/// Performance (PR) of one station.
#[utoipa::path(get, path = "/api/report/station/electricity/rate/export", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn station_performance(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    require(&core, &scoped, "stationElectricity_export").await?;
    let id = required_station(s.station_id)?;
    let r = performance_api::station_performance_of(&core, &scoped.stations, id, &q).await?;
    let t = performance_table(&r);
    download(&[t], &file("station-performance", &q))
}

/// Performance rows of one station: one per slot and the total.
pub(super) fn performance_table(r: &StationPerformance) -> Table {
    let mut t = Table::new(
        tr("性能比", "Performance ratio"),
        vec![
            tr("时间", "Time"),
            tr("发电量 (kWh)", "Generation (kWh)"),
            tr("PR计入电量 (kWh)", "Energy counted for PR (kWh)"),
            tr("斜面辐照量 (kWh/m²)", "Plane-of-array irradiation (kWh/m²)"),
            tr("最终产能 Yf (h)", "Final yield Yf (h)"),
            tr("参考产能 Yr (h)", "Reference yield Yr (h)"),
            tr("PR (IEC 61724-1, %)", "PR (IEC 61724-1, %)"),
            tr("温度修正PR (%)", "Temperature-corrected PR (%)"),
            tr("预期发电量 (kWh)", "Expected energy (kWh)"),
            tr("可利用率 (%)", "Availability (%)"),
            tr("计入区间数", "Intervals counted"),
            tr("不合理区间数", "Implausible intervals"),
            tr("缺数区间数", "Missing intervals"),
            clock_header(),
        ],
    );
    for (name, f) in r
        .points
        .iter()
        .map(|p| (p.label.as_str(), &p.figures))
        .chain(std::iter::once(("total", &r.total)))
    {
        t.push(vec![
            label(name).into(),
            f.energy_kwh.into(),
            f.pr_energy_kwh.into(),
            f.irradiation_kwh_m2.into(),
            f.final_yield.into(),
            f.reference_yield.into(),
            pct(f.pr).into(),
            pct(f.pr_temperature_corrected).into(),
            f.expected_energy_kwh.into(),
            pct(f.availability).into(),
            (f.counted_intervals as f64).into(),
            (f.implausible_intervals as f64).into(),
            (f.missing_intervals as f64).into(),
            clock(&r.utc_offset),
        ]);
    }
    t
}

/// Inverter generation (one inverter or a station's inverters).
#[utoipa::path(get, path = "/api/report/inverter/multiple/electricity/export", tag = "report",
    params(InvertersQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn inverter_multiple_electricity(
    State(core): State<Core>,
    scoped: Scoped,
    Query(i): Query<InvertersQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    require(&core, &scoped, "inverterElectricity_export").await?;
    inverter_file(&core, &scoped, &i, &q).await
}

/// Generation of one inverter.
#[utoipa::path(get, path = "/api/report/inverter/electricity/export", tag = "report",
    params(InvertersQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn inverter_electricity(
    State(core): State<Core>,
    scoped: Scoped,
    Query(i): Query<InvertersQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    require(&core, &scoped, "inverterElectricity_export").await?;
    if i.inverter_id.is_none() {
        return Err(ApiError::bad_request("请选择逆变器", "Please choose an inverter"));
    }
    let one = InvertersQuery {
        inverter_ids: None,
        ..i
    };
    inverter_file(&core, &scoped, &one, &q).await
}

async fn inverter_file(
    core: &Core,
    scoped: &Scoped,
    i: &InvertersQuery,
    q: &TimeQuery,
) -> Result<Response, ApiError> {
    let reports = generation_api::inverters_generation(core, &scoped.stations, i, q).await?;
    let mut t = Table::new(
        tr("逆变器发电量", "Inverter generation"),
        vec![
            tr("逆变器", "Inverter"),
            tr("电站", "Station"),
            tr("时间", "Time"),
            tr("发电量 (kWh)", "Generation (kWh)"),
            tr("等效利用小时 (h)", "Equivalent hours (h)"),
            tr("占电站比例 (%)", "Share of station (%)"),
            tr("容量 (kWp)", "Capacity (kWp)"),
            clock_header(),
        ],
    );
    for r in &reports {
        for p in r.points.iter().chain(std::iter::once(&r.total)) {
            t.push(vec![
                r.inverter_name.as_str().into(),
                r.station_name.as_str().into(),
                label(&p.label).into(),
                p.energy_kwh.into(),
                p.equivalent_hours.into(),
                p.share_pct.into(),
                r.capacity_kwp.into(),
                clock(&r.utc_offset),
            ]);
        }
    }
    download(&[t], &file("inverter-generation", q))
}

/// Insolation of one or several stations.
#[utoipa::path(get, path = "/api/report/irradiance/mulitiple/list/export", tag = "report",
    params(StationsQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn irradiance_multiple(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationsQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    require(&core, &scoped, "irradiance_export").await?;
    let ids = id_list(s.station_ids.as_deref())?;
    irradiance_file(&core, &scoped, &ids, &q).await
}

/// Insolation of one station.
#[utoipa::path(get, path = "/api/report/irradiance/list/export", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn irradiance(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    require(&core, &scoped, "irradiance_export").await?;
    let id = required_station(s.station_id)?;
    irradiance_file(&core, &scoped, &[id], &q).await
}

async fn irradiance_file(
    core: &Core,
    scoped: &Scoped,
    ids: &[crate::kernel::Id],
    q: &TimeQuery,
) -> Result<Response, ApiError> {
    let reports = irradiance_api::irradiance_of(core, &scoped.stations, ids, q).await?;
    let mut t = Table::new(
        tr("辐照量", "Irradiation"),
        vec![
            tr("电站", "Station"),
            tr("时间", "Time"),
            tr("斜面辐照量 (kWh/m²)", "Plane-of-array irradiation (kWh/m²)"),
            tr("水平面辐照量 (kWh/m²)", "Horizontal irradiation (kWh/m²)"),
            tr("峰值辐照度 (W/m²)", "Peak irradiance (W/m²)"),
            tr("平均环境温度 (°C)", "Mean ambient temperature (°C)"),
            clock_header(),
        ],
    );
    for r in &reports {
        for p in r.points.iter().chain(std::iter::once(&r.total)) {
            t.push(vec![
                r.station_name.as_str().into(),
                label(&p.label).into(),
                p.poa_kwh_m2.into(),
                p.ghi_kwh_m2.into(),
                p.peak_irradiance.into(),
                p.ambient_temperature.into(),
                clock(&r.utc_offset),
            ]);
        }
    }
    download(&[t], &file("irradiation", q))
}

fn meter_table(r: &MeterReport) -> Table {
    let counters: [(&str, &str, &str); 4] = [
        ("import", "正向有功", "Active import"),
        ("export", "反向有功", "Active export"),
        ("rimport", "正向无功", "Reactive import"),
        ("rexport", "反向无功", "Reactive export"),
    ];
    let mut headers = vec![tr("电表", "Meter"), tr("用途", "Role"), tr("时间", "Time")];
    for (key, zh, en) in counters {
        let unit = if key.starts_with('r') { "kvarh" } else { "kWh" };
        headers.push(format!("{} ({unit})", tr(zh, en)));
        headers.push(format!(
            "{} ({unit})",
            tr(&format!("{zh}起始读数"), &format!("{en} start reading"))
        ));
        headers.push(format!(
            "{} ({unit})",
            tr(&format!("{zh}结束读数"), &format!("{en} end reading"))
        ));
    }
    headers.push(tr("缺数小时 (h)", "Hours without reading (h)"));
    headers.push(tr("计数器复位", "Counter resets"));
    headers.push(clock_header());
    let mut t = Table::new(tr("电表报表", "Meter report"), headers);
    for m in &r.meters {
        for p in m.points.iter().chain(std::iter::once(&m.total)) {
            let mut row: Vec<Cell> = vec![
                m.meter_name.as_str().into(),
                role_name(&m.meter_role).into(),
                label(&p.label).into(),
            ];
            let mut resets = Vec::new();
            for c in [
                &p.energy_import,
                &p.energy_export,
                &p.reactive_energy_import,
                &p.reactive_energy_export,
            ] {
                let c: Option<&MeterCounter> = c.as_ref();
                row.push(c.and_then(|c| c.energy).into());
                row.push(c.and_then(|c| c.start_reading).into());
                row.push(c.and_then(|c| c.end_reading).into());
                resets.extend(c.map(|c| c.resets.clone()).unwrap_or_default());
            }
            row.push(p.missing_hours.into());
            row.push(resets.join(", ").into());
            row.push(clock(&r.utc_offset));
            t.push(row);
        }
    }
    t
}

/// A meter report (`reportDaily`, `reportMonthly`, `reportYearly`, `reportOfYears`).
#[utoipa::path(get, path = "/api/meterReport/{kind}/export", tag = "report",
    params(("kind" = String, Path, description = "reportDaily, reportMonthly, reportYearly or reportOfYears"), StationQuery, DateQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn meter_report(
    State(core): State<Core>,
    scoped: Scoped,
    crate::kernel::extract::Path(kind): crate::kernel::extract::Path<String>,
    Query(s): Query<StationQuery>,
    Query(d): Query<DateQuery>,
) -> Result<Response, ApiError> {
    let time_type = match kind.as_str() {
        "reportDaily" => TimeType::Day,
        "reportMonthly" => TimeType::Month,
        "reportYearly" => TimeType::Year,
        "reportOfYears" => TimeType::Years,
        _ => return Err(ApiError::not_found()),
    };
    require(&core, &scoped, "meterReport_export").await?;
    meter_file(&core, &scoped, s.station_id, d.with(time_type)).await
}

/// The meters' readings over any period.
#[utoipa::path(get, path = "/api/stationMeterReport/historyMeter/export", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn history_meter(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    require(&core, &scoped, "meterReport_export").await?;
    meter_file(&core, &scoped, s.station_id, q).await
}

async fn meter_file(
    core: &Core,
    scoped: &Scoped,
    station: Option<crate::kernel::Id>,
    q: TimeQuery,
) -> Result<Response, ApiError> {
    let id = required_station(station)?;
    let stations = store::stations(core, &scoped.stations, &[id]).await?;
    let station = stations.first().ok_or_else(ApiError::not_found)?;
    let r = meter_api::report(core, station, &q).await?;
    download(&[meter_table(&r)], &file("meter-report", &q))
}

pub(super) fn bill_tables(b: &StationBill) -> Vec<Table> {
    let kinds = ["1", "2", "3", "4"];
    let money = |zh: &str, en: &str| format!("{} ({})", tr(zh, en), b.currency);
    let mut headers = vec![
        tr("时间", "Time"),
        tr("发电量 (kWh)", "Generation (kWh)"),
        tr("自用电量 (kWh)", "Self-consumed (kWh)"),
        tr("上网电量 (kWh)", "Exported (kWh)"),
        tr("下网电量 (kWh)", "Imported (kWh)"),
    ];
    for k in kinds {
        headers.push(format!(
            "{}{} (kWh)",
            segment_name(k),
            tr("时段发电量", " generation")
        ));
    }
    headers.push(money("自用电费", "Self-consumed value"));
    headers.push(money("上网电费", "Export value"));
    headers.push(money("合计电费", "Total"));
    headers.push(clock_header());
    let mut t = Table::new(tr("电费结算", "Electricity bill"), headers);
    let row = |name: &str, f: &BillFigures| -> Vec<Cell> {
        let mut r: Vec<Cell> = vec![
            label(name).into(),
            f.generation_kwh.into(),
            f.self_consumed_kwh.into(),
            f.exported_kwh.into(),
            f.imported_kwh.into(),
        ];
        for k in kinds {
            r.push(
                f.segments
                    .iter()
                    .find(|s| s.kind == k)
                    .map(|s| s.generation_kwh)
                    .into(),
            );
        }
        r.push(f.self_consumed_amount.into());
        r.push(f.exported_amount.into());
        r.push(f.amount.into());
        r.push(clock(&b.utc_offset));
        r
    };
    for p in &b.points {
        t.push(row(&p.label, &p.figures));
    }
    t.push(row("total", &b.total));
    let mut segments = Table::new(
        tr("分时段明细", "By time-of-use segment"),
        vec![
            tr("时段", "Segment"),
            tr("发电量 (kWh)", "Generation (kWh)"),
            tr("自用电量 (kWh)", "Self-consumed (kWh)"),
            tr("上网电量 (kWh)", "Exported (kWh)"),
            money("自用电费", "Self-consumed value"),
            money("上网电费", "Export value"),
            tr("最低电价", "Lowest price"),
            tr("最高电价", "Highest price"),
        ],
    );
    for s in &b.total.segments {
        segments.push(vec![
            segment_name(&s.kind).into(),
            s.generation_kwh.into(),
            s.self_consumed_kwh.into(),
            s.exported_kwh.into(),
            s.self_consumed_amount.into(),
            s.exported_amount.into(),
            s.min_price.into(),
            s.max_price.into(),
        ]);
    }
    if !b.unpriced_days.is_empty() || !b.no_feed_in_days.is_empty() {
        segments.push(vec![
            tr("无电价日期", "Days without a price").into(),
            b.unpriced_days
                .iter()
                .chain(&b.no_feed_in_days)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
                .into(),
        ]);
    }
    vec![t, segments]
}

/// The bill of one station.
#[utoipa::path(get, path = "/api/stationMeterReport/electricityBillSettlement/export", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn electricity_bill(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    require(&core, &scoped, "electricityBill_export").await?;
    let id = required_station(s.station_id)?;
    let (bill, _) = bill_api::station_bill(&core, &scoped.stations, id, &q).await?;
    download(&bill_tables(&bill), &file("electricity-bill", &q))
}

/// Self-consumption and feed-in ratios of one station.
#[utoipa::path(get, path = "/api/stationMeterReport/rate/export", tag = "report",
    params(StationQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn rate(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    require(&core, &scoped, "electricityBill_export").await?;
    let id = required_station(s.station_id)?;
    let r = bill_api::station_rates(&core, &scoped.stations, id, &q).await?;
    let mut t = Table::new(
        tr("自用率与上网率", "Self-consumption and feed-in"),
        vec![
            tr("时间", "Time"),
            tr("发电量 (kWh)", "Generation (kWh)"),
            tr("自用电量 (kWh)", "Self-consumed (kWh)"),
            tr("上网电量 (kWh)", "Exported (kWh)"),
            tr("下网电量 (kWh)", "Imported (kWh)"),
            tr("自发自用率 (%)", "Self-consumption ratio (%)"),
            tr("上网率 (%)", "Feed-in ratio (%)"),
            tr("自给率 (%)", "Self-sufficiency ratio (%)"),
            clock_header(),
        ],
    );
    for p in r.points.iter().chain(std::iter::once(&r.total)) {
        t.push(vec![
            label(&p.label).into(),
            p.generation_kwh.into(),
            p.self_consumed_kwh.into(),
            p.exported_kwh.into(),
            p.imported_kwh.into(),
            pct(p.self_consumption_ratio).into(),
            pct(p.feed_in_ratio).into(),
            pct(p.self_sufficiency_ratio).into(),
            clock(&r.utc_offset),
        ]);
    }
    download(&[t], &file("self-consumption", &q))
}

/// Savings of the chosen stations, with the coefficients used on a second sheet.
#[utoipa::path(get, path = "/api/stationMeterReport/energyConservation/export", tag = "report",
    params(StationsQuery, TimeQuery),
    responses((status = 200, description = XLSX_DOC, content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 403), (status = 404)))]
pub async fn energy_conservation(
    State(core): State<Core>,
    scoped: Scoped,
    Query(s): Query<StationsQuery>,
    Query(q): Query<TimeQuery>,
) -> Result<Response, ApiError> {
    // The page has no export button of its own: holding the page is enough.
    require(&core, &scoped, "energyConservation").await?;
    let ids = id_list(s.station_ids.as_deref())?;
    let factors = super::conservation::factors(&core).await?;
    let r = bill_api::savings_of(&core, &scoped.stations, &ids, &q, &factors).await?;
    let mut t = Table::new(
        tr("节能减排", "Energy conservation"),
        vec![
            tr("时间", "Time"),
            tr("发电量 (kWh)", "Generation (kWh)"),
            tr("节约标准煤 (t)", "Standard coal saved (t)"),
            tr("减排CO2 (t)", "CO2 avoided (t)"),
            tr("减排SO2 (t)", "SO2 avoided (t)"),
            tr("减排NOx (t)", "NOx avoided (t)"),
            tr("减排粉尘 (t)", "Dust avoided (t)"),
            tr("等效植树 (棵)", "Equivalent trees"),
            clock_header(),
        ],
    );
    // Each station's slot is cut in its own clock: a row states every clock it adds up.
    let clocks = if r.utc_offsets.is_empty() {
        vec![crate::kernel::clock::SiteClock::hub().label()]
    } else {
        r.utc_offsets.clone()
    };
    let clocks: Vec<String> = clocks.iter().map(|o| format!("UTC{o}")).collect();
    let clocks = clocks.join(", ");
    for (name, s) in r
        .points
        .iter()
        .map(|p| (p.label.as_str(), &p.savings))
        .chain(std::iter::once(("total", &r.total)))
    {
        t.push(vec![
            label(name).into(),
            s.energy_kwh.into(),
            s.coal_t.into(),
            s.co2_t.into(),
            s.so2_t.into(),
            s.nox_t.into(),
            s.dust_t.into(),
            s.trees.into(),
            clocks.as_str().into(),
        ]);
    }
    let mut c = Table::new(
        tr("系数", "Coefficients"),
        vec![tr("系数", "Coefficient"), tr("取值", "Value"), tr("单位", "Unit")],
    );
    for (zh, en, v, unit) in [
        ("标准煤", "Standard coal", r.factors.coal_kg_per_kwh, "kg/kWh"),
        ("CO2", "CO2", r.factors.co2_kg_per_kwh, "kg/kWh"),
        ("SO2", "SO2", r.factors.so2_kg_per_kwh, "kg/kWh"),
        ("NOx", "NOx", r.factors.nox_kg_per_kwh, "kg/kWh"),
        ("粉尘", "Dust", r.factors.dust_kg_per_kwh, "kg/kWh"),
        (
            "每棵树年吸收CO2",
            "CO2 per tree and year",
            r.factors.co2_kg_per_tree,
            "kg",
        ),
    ] {
        c.push(vec![tr(zh, en).into(), v.into(), unit.into()]);
    }
    download(&[t, c], &file("energy-conservation", &q))
}
