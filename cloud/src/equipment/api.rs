//! The overview's calls: a page, the summary by kind and status, and the workbook. All three read
//! the same load with the same filters, so their rows and counts agree. Each needs the menu
//! `equipment`; the workbook also its `export` button.

use axum::extract::State;
use axum::response::Response;

use super::model::{self, Equipment, EquipmentQuery, EquipmentSummary, summarize};
use super::store;
use crate::auth::scope::Scoped;
use crate::kernel::extract::Query;
use crate::kernel::list::MAX_SIZE;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Page};
use crate::report::workbook::{Cell, Table, download, tr};
use crate::station::StationCtx;
use crate::telemetry::TelemetryCtx;

/// Menu code of the page; its export button is `equipment_export`.
pub const MENU: &str = "equipment";
pub const EXPORT_BUTTON: &str = "equipment_export";

/// Rows a workbook holds at most.
const MAX_ROWS: usize = 10_000;

async fn rows(
    tele: &TelemetryCtx,
    station: &StationCtx,
    scoped: &Scoped,
    q: &EquipmentQuery,
    permission: &str,
) -> Result<Vec<Equipment>, ApiError> {
    scoped.caller.require(tele, permission).await?;
    let filter = q.filter()?;
    store::load(tele, &station.services.maps, &scoped.stations, &filter).await
}

/// A page of the caller's devices (filters and sort as the query says).
#[utoipa::path(get, path = "/api/equipment/page", tag = "equipment", params(EquipmentQuery),
    responses((status = 200, body = Envelope<Page<Equipment>>), (status = 400), (status = 401), (status = 403)))]
pub async fn page(
    State(tele): State<TelemetryCtx>,
    State(station): State<StationCtx>,
    scoped: Scoped,
    Query(q): Query<EquipmentQuery>,
) -> ApiResult<Data<Page<Equipment>>> {
    let all = rows(&tele, &station, &scoped, &q, MENU).await?;
    let size = q.size.unwrap_or(10).clamp(1, MAX_SIZE);
    let current = q.current.unwrap_or(1).max(1);
    let total = all.len() as i64;
    let skip = usize::try_from((current - 1).saturating_mul(size)).unwrap_or(usize::MAX);
    let records = all
        .into_iter()
        .skip(skip)
        .take(usize::try_from(size).unwrap_or(0))
        .collect();
    Ok(Data(Page::new(records, total, size, current)))
}

/// Counts by kind and status of the devices the same filters list.
#[utoipa::path(get, path = "/api/equipment/summary", tag = "equipment", params(EquipmentQuery),
    responses((status = 200, body = Envelope<EquipmentSummary>), (status = 400), (status = 401), (status = 403)))]
pub async fn summary(
    State(tele): State<TelemetryCtx>,
    State(station): State<StationCtx>,
    scoped: Scoped,
    Query(q): Query<EquipmentQuery>,
) -> ApiResult<Data<EquipmentSummary>> {
    Ok(Data(summarize(&rows(&tele, &station, &scoped, &q, MENU).await?)))
}

pub fn kind_label(kind: &str) -> String {
    match kind {
        model::KIND_INVERTER => tr("逆变器", "Inverter"),
        model::KIND_METER => tr("电表", "Meter"),
        model::KIND_WEATHER => tr("气象站", "Weather station"),
        model::KIND_TRACKER => tr("跟踪支架", "Tracker"),
        model::KIND_CAMERA => tr("摄像头", "Camera"),
        other => other.to_owned(),
    }
}

pub fn status_label(status: &str) -> String {
    match status {
        model::STATUS_ONLINE => tr("在线", "Online"),
        model::STATUS_OFFLINE => tr("离线", "Offline"),
        model::STATUS_FAULT => tr("故障", "Fault"),
        model::STATUS_WITHHELD => tr("数据暂停", "Withheld"),
        model::STATUS_NEVER => tr("从未上报", "Never reported"),
        _ => "—".to_owned(),
    }
}

pub fn source_label(source: &str) -> String {
    match source {
        model::SOURCE_VENDOR => tr("厂商云", "Vendor cloud"),
        _ => tr("网关", "Gateway"),
    }
}

fn count(n: i64) -> Cell {
    Cell::Number(Some(n as f64))
}

/// The devices the same filters list, in the same order, as a workbook (headers and labels in
/// the request's language; an absent figure is an empty cell, never 0).
#[utoipa::path(get, path = "/api/equipment/export", tag = "equipment", params(EquipmentQuery),
    responses((status = 200, description = "xlsx", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 400), (status = 401), (status = 403)))]
pub async fn export(
    State(tele): State<TelemetryCtx>,
    State(station): State<StationCtx>,
    scoped: Scoped,
    Query(q): Query<EquipmentQuery>,
) -> Result<Response, ApiError> {
    let all = rows(&tele, &station, &scoped, &q, EXPORT_BUTTON).await?;
    let mut t = Table::new(
        tr("设备总览", "Equipment"),
        vec![
            tr("电站", "Station"),
            tr("设备类型", "Kind"),
            tr("设备名称", "Name"),
            tr("型号", "Model"),
            tr("SN", "SN"),
            tr("固件版本", "Firmware"),
            tr("数据来源", "Source"),
            tr("状态", "Status"),
            tr("最新数据时间", "Last sample"),
            tr("失败轮询（近24小时）", "Failed polls (last 24 h)"),
            tr("可疑值（近24小时）", "Suspect values (last 24 h)"),
            tr("计数器重基（近24小时）", "Counter rebases (last 24 h)"),
        ],
    );
    for e in all.into_iter().take(MAX_ROWS) {
        t.push(vec![
            e.station_name.into(),
            kind_label(&e.kind).into(),
            e.name.into(),
            e.model.into(),
            e.sn.into(),
            e.firmware.into(),
            source_label(&e.source).into(),
            status_label(&e.status).into(),
            e.last_sample.unwrap_or_default().into(),
            Cell::Number(e.missed_polls.map(|n| n as f64)),
            count(e.suspect_values),
            count(e.counter_rebases),
        ]);
    }
    download(&[t], "equipment.xlsx")
}
