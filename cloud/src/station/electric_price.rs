//! Electricity price per station (`/api/electricPrice`): a fixed price, or a peak/valley
//! time-of-use schedule (at most 10 effective dates, at most 5 time segments
//! each). Each date's segments cover the whole day, 00:00-24:00, without overlap or gap, each
//! with a price type from the `price_segment_type` dictionary (sharp, peak, flat, valley).
//!
//! Versioning: every effective date is a version; the schedule in force on day D is the version
//! with the latest effective date not after D ([`schedule_on`]), so adding a new tariff never
//! changes the prices of earlier days. A save replaces the station's set of versions; the
//! replaced rows are kept (`is_deleted = 1`, with their revision number) for audit.

use axum::extract::State;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::device::{IdPath, NO_STATION};
use super::fields::{format_day, parse_day};
use crate::auth::scope;
use crate::auth::scope::Scoped;
use crate::kernel::Core;
use crate::kernel::extract::{Json as JsonBody, Path};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::station::context::StationCtx;

pub const FIXED: &str = "1";
pub const PEAK_VALLEY: &str = "2";
/// The segment type a fixed price is stored under (flat).
const FLAT: &str = "3";
pub const MAX_DATES: usize = 10;
pub const MAX_SEGMENTS: usize = 5;
const DAY_MINUTES: i64 = 24 * 60;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Segment {
    /// `HH:mm`, from 00:00.
    pub start_time: String,
    /// `HH:mm`, up to 24:00.
    pub end_time: String,
    /// `price_segment_type` key: 1 sharp, 2 peak, 3 flat, 4 valley.
    #[serde(rename = "type")]
    pub segment_type: String,
    pub price: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DatedSchedule {
    /// `yyyy-MM-dd`: in force from this day until the next version's date.
    pub effective_date: String,
    pub segments: Vec<Segment>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ElectricPriceForm {
    pub station_id: Id,
    /// `electricity_price_type` key: 1 fixed, 2 peak/valley.
    pub price_type: String,
    /// Fixed price per kWh (type 1).
    pub fixed_price: Option<f64>,
    /// From when the fixed price applies (type 1); absent = always.
    pub effective_date: Option<String>,
    /// The time-of-use versions (type 2).
    #[serde(default)]
    pub schedules: Vec<DatedSchedule>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ElectricPrice {
    pub station_id: Id,
    pub price_type: Option<String>,
    pub fixed_price: Option<f64>,
    pub schedules: Vec<DatedSchedule>,
}

fn bad(zh: String, en: String) -> ApiError {
    ApiError::bad_request(zh, en)
}

/// `HH:mm` (or `HH:mm:ss`) → minutes of the day. `end` accepts 24:00 and the 23:59(:59)
/// some consoles send for the end of the day.
fn minutes(s: &str, end: bool) -> Option<i64> {
    let s = s.trim();
    if end && (s == "23:59" || s == "23:59:59") {
        return Some(DAY_MINUTES);
    }
    let mut parts = s.split(':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    if let Some(sec) = parts.next()
        && sec != "00"
    {
        return None;
    }
    let total = h * 60 + m;
    let ok = (0..60).contains(&m) && (0..=24).contains(&h) && total <= DAY_MINUTES;
    ok.then_some(total)
}

fn hhmm(m: i64) -> String {
    format!("{:02}:{:02}", m / 60, m % 60)
}

/// A checked segment: (start, end, type, price).
type Checked = (i64, i64, String, f64);

/// Checks one day's segments: at most 5, valid times and types, prices, the whole day covered
/// without overlap or gap.
fn check_day(day: &str, segments: &[Segment], types: &[String]) -> Result<Vec<Checked>, ApiError> {
    if segments.is_empty() {
        return Err(bad(
            format!("{day}：请设置电价时段"),
            format!("{day}: please set the time segments"),
        ));
    }
    if segments.len() > MAX_SEGMENTS {
        return Err(bad(
            format!("{day}：每个日期最多设置{MAX_SEGMENTS}个时段"),
            format!("{day}: at most {MAX_SEGMENTS} time segments per date"),
        ));
    }
    let mut out = Vec::new();
    for s in segments {
        let (Some(a), Some(b)) = (minutes(&s.start_time, false), minutes(&s.end_time, true)) else {
            return Err(bad(
                format!(
                    "{day}：时间格式有误（{}-{}），应为HH:mm",
                    s.start_time, s.end_time
                ),
                format!(
                    "{day}: invalid time ({}-{}), expected HH:mm",
                    s.start_time, s.end_time
                ),
            ));
        };
        if a >= b {
            return Err(bad(
                format!(
                    "{day}：时段结束时间必须晚于开始时间（{}-{}）",
                    s.start_time, s.end_time
                ),
                format!(
                    "{day}: a segment must end after it starts ({}-{})",
                    s.start_time, s.end_time
                ),
            ));
        }
        if !types.contains(&s.segment_type) {
            return Err(bad(
                format!("{day}：电价时段类型无效：{}", s.segment_type),
                format!("{day}: invalid price segment type {}", s.segment_type),
            ));
        }
        let decimals = format!("{}", s.price)
            .split_once('.')
            .map(|(_, d)| d.len())
            .unwrap_or(0);
        if !s.price.is_finite() || s.price < 0.0 || s.price > 100.0 || decimals > 4 {
            return Err(bad(
                format!("{day}：电价：请输入正确的数字"),
                format!("{day}: price: please enter a valid number (0-100, at most 4 decimals)"),
            ));
        }
        out.push((a, b, s.segment_type.clone(), s.price));
    }
    out.sort_by_key(|s| s.0);
    let mut reached = 0;
    for (i, (a, b, ..)) in out.iter().enumerate() {
        if *a < reached {
            let (pa, pb, ..) = &out[i - 1];
            return Err(bad(
                format!(
                    "{day}：时段重叠：{}-{} 与 {}-{}",
                    hhmm(*pa),
                    hhmm(*pb),
                    hhmm(*a),
                    hhmm(*b)
                ),
                format!(
                    "{day}: time segments overlap: {}-{} and {}-{}",
                    hhmm(*pa),
                    hhmm(*pb),
                    hhmm(*a),
                    hhmm(*b)
                ),
            ));
        }
        if *a > reached {
            return Err(gap(day, reached, *a));
        }
        reached = *b;
    }
    if reached < DAY_MINUTES {
        return Err(gap(day, reached, DAY_MINUTES));
    }
    Ok(out)
}

fn gap(day: &str, from: i64, to: i64) -> ApiError {
    bad(
        format!("{day}：时段未覆盖全天，缺少 {}-{}", hhmm(from), hhmm(to)),
        format!(
            "{day}: the segments must cover the whole day; {}-{} is missing",
            hhmm(from),
            hhmm(to)
        ),
    )
}

async fn dict_keys(state: &Core, code: &str) -> Result<Vec<String>, ApiError> {
    Ok(crate::system::dict::system_entries(state, code)
        .await?
        .into_iter()
        .map(|e| e.dict_key)
        .collect())
}

/// Checks a form into (effective day ms, segments) versions.
async fn versions_of(state: &Core, form: &ElectricPriceForm) -> Result<Vec<(i64, Vec<Checked>)>, ApiError> {
    if !dict_keys(state, "electricity_price_type")
        .await?
        .contains(&form.price_type)
    {
        return Err(ApiError::bad_request(
            "请选择电价类型",
            "Please select the electricity price type",
        ));
    }
    if form.price_type == FIXED {
        let price = form
            .fixed_price
            .ok_or_else(|| ApiError::bad_request("请输入固定电价", "Please enter the fixed price"))?;
        let day = match form.effective_date.as_deref().filter(|d| !d.trim().is_empty()) {
            Some(d) => parse_day(d).ok_or_else(|| {
                bad(
                    format!("生效日期无效：{d}"),
                    format!("Invalid effective date: {d}"),
                )
            })?,
            None => 0,
        };
        let segment = Segment {
            start_time: "00:00".into(),
            end_time: "24:00".into(),
            segment_type: FLAT.into(),
            price,
        };
        let checked =
            check_day("固定电价", std::slice::from_ref(&segment), &[FLAT.to_owned()]).map_err(|_| {
                ApiError::bad_request(
                    "固定电价：请输入正确的数字",
                    "Fixed price: please enter a valid number",
                )
            })?;
        return Ok(vec![(day, checked)]);
    }
    if form.schedules.is_empty() {
        return Err(ApiError::bad_request(
            "请设置峰谷电价",
            "Please set the peak/valley schedule",
        ));
    }
    if form.schedules.len() > MAX_DATES {
        return Err(bad(
            format!("峰谷电价最多设置{MAX_DATES}个日期"),
            format!("At most {MAX_DATES} effective dates can be set"),
        ));
    }
    let types = dict_keys(state, "price_segment_type").await?;
    let mut out: Vec<(i64, Vec<Checked>)> = Vec::new();
    for s in &form.schedules {
        let day = parse_day(&s.effective_date).ok_or_else(|| {
            bad(
                format!("生效日期无效：{}", s.effective_date),
                format!("Invalid effective date: {}", s.effective_date),
            )
        })?;
        if out.iter().any(|(d, _)| *d == day) {
            return Err(bad(
                format!("生效日期重复：{}", s.effective_date),
                format!("The effective date {} is given twice", s.effective_date),
            ));
        }
        out.push((day, check_day(&s.effective_date, &s.segments, &types)?));
    }
    out.sort_by_key(|(d, _)| *d);
    Ok(out)
}

/// Sets a station's electricity price (replacing its versions; see the module comment).
#[utoipa::path(put, path = "/api/electricPrice", tag = "electricPrice", request_body = ElectricPriceForm,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403)))]
pub async fn save(
    State(state): State<StationCtx>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    JsonBody(form): JsonBody<ElectricPriceForm>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, "electricPrice_edit").await?;
    if !scope::visible_station(&state, &scope, form.station_id).await? {
        return Err(ApiError::BadRequest(NO_STATION));
    }
    let versions = versions_of(&state, &form).await?;
    let station = form.station_id;
    let mut tx = state.db.begin_write().await?;
    let mut q = Sql::default();
    q.push_bind(
        "SELECT COALESCE(MAX(revision), 0) FROM pv_electric_price WHERE station_id = ?",
        [Value::Int(station.0)],
    );
    let revision: i64 = q.scalar::<i64, _>(&mut *tx).await? + 1;
    let mut q = Sql::default();
    q.push_bind(
        "UPDATE pv_electric_price SET is_deleted = 1 WHERE station_id = ? AND is_deleted = 0",
        [Value::Int(station.0)],
    );
    q.execute(&mut *tx).await?;
    let now = time::now_ms();
    for (day, segments) in versions {
        let id = state.ids.next();
        let mut q = Sql::default();
        q.push_bind(
            "INSERT INTO pv_electric_price (id, tenant_id, station_id, price_type, effective_date, revision, create_user, create_time) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                Value::Int(id.0),
                Value::Text(caller.tenant_id.clone()),
                Value::Int(station.0),
                Value::Text(form.price_type.clone()),
                Value::Int(day),
                Value::Int(revision),
                Value::Int(caller.user_id.0),
                Value::Int(now),
            ],
        );
        q.execute(&mut *tx).await?;
        for (a, b, kind, price) in segments {
            let mut q = Sql::default();
            q.push_bind(
                "INSERT INTO pv_electric_price_segment (id, price_id, start_minute, end_minute, segment_type, price) \
                 VALUES (?, ?, ?, ?, ?, ?)",
                [
                    Value::Int(state.ids.next().0),
                    Value::Int(id.0),
                    Value::Int(a),
                    Value::Int(b),
                    Value::Text(kind),
                    Value::Float(price),
                ],
            );
            q.execute(&mut *tx).await?;
        }
    }
    // The station's price type follows its schedule (the archive shows it).
    let mut q = Sql::default();
    q.push_bind(
        "UPDATE pv_station SET electricity_price_type = ? WHERE id = ?",
        [Value::Text(form.price_type.clone()), Value::Int(station.0)],
    );
    q.execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(Data(true))
}

/// The live versions of a station, by effective date: (price type, effective day ms, segments).
async fn versions(
    state: &Core,
    station: Id,
    on_or_before: Option<i64>,
) -> Result<Vec<(String, i64, Vec<Segment>)>, ApiError> {
    let mut sql =
        Sql::new("SELECT id, price_type, effective_date FROM pv_electric_price WHERE is_deleted = 0");
    sql.push_bind(" AND station_id = ?", [Value::Int(station.0)]);
    if let Some(day) = on_or_before {
        sql.push_bind(
            " AND effective_date <= ? ORDER BY effective_date DESC LIMIT 1",
            [Value::Int(day)],
        );
    } else {
        sql.push(" ORDER BY effective_date");
    }
    let heads = sql.fetch_all::<(i64, String, i64), _>(state.db.pool()).await?;
    let mut out = Vec::new();
    for (id, kind, day) in heads {
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT start_minute, end_minute, segment_type, price FROM pv_electric_price_segment \
             WHERE price_id = ? ORDER BY start_minute",
            [Value::Int(id)],
        );
        let segments = sql
            .fetch_all::<(i64, i64, String, f64), _>(state.db.pool())
            .await?
            .into_iter()
            .map(|(a, b, t, p)| Segment {
                start_time: hhmm(a),
                end_time: hhmm(b),
                segment_type: t,
                price: p,
            })
            .collect();
        out.push((kind, day, segments));
    }
    Ok(out)
}

/// The station's price setting: type, fixed price (type 1) and the dated schedules.
#[utoipa::path(get, path = "/api/electricPrice/getByStationId/{id}", tag = "electricPrice", params(IdPath),
    responses((status = 200, body = Envelope<ElectricPrice>), (status = 404)))]
pub async fn get_by_station_id(
    State(state): State<StationCtx>,
    Scoped { stations: scope, .. }: Scoped,
    Path(p): Path<IdPath>,
) -> ApiResult<Data<ElectricPrice>> {
    let station = p.one()?;
    let Some(record) = super::station_store::find(&state, &scope, station).await? else {
        return Err(ApiError::not_found());
    };
    let versions = versions(&state, station, None).await?;
    let price_type = versions
        .last()
        .map(|(k, ..)| k.clone())
        .or(record.electricity_price_type);
    let fixed_price = match (price_type.as_deref(), versions.last()) {
        (Some(FIXED), Some((_, _, segments))) => segments.first().map(|s| s.price),
        _ => None,
    };
    Ok(Data(ElectricPrice {
        station_id: station,
        price_type,
        fixed_price,
        schedules: versions
            .into_iter()
            .map(|(_, day, segments)| DatedSchedule {
                effective_date: format_day(day),
                segments,
            })
            .collect(),
    }))
}

/// The schedule in force at a station on `day` (for bills and reports): the version with the
/// latest effective date not after `day`. The caller has checked the station's tenant/scope.
pub async fn schedule_on(
    state: &Core,
    station: Id,
    day: NaiveDate,
) -> Result<Option<DatedSchedule>, ApiError> {
    let midnight = parse_day(&day.format("%Y-%m-%d").to_string())
        .ok_or_else(|| ApiError::Internal(format!("day {day}")))?;
    Ok(versions(state, station, Some(midnight))
        .await?
        .into_iter()
        .next()
        .map(|(_, d, segments)| DatedSchedule {
            effective_date: format_day(d),
            segments,
        }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(a: &str, b: &str) -> Segment {
        Segment {
            start_time: a.into(),
            end_time: b.into(),
            segment_type: "3".into(),
            price: 0.5,
        }
    }

    #[test]
    fn segments_must_tile_the_day() {
        let types = vec!["3".to_owned()];
        assert!(check_day("d", &[seg("00:00", "08:00"), seg("08:00", "24:00")], &types).is_ok());
        assert!(check_day("d", &[seg("08:00", "23:59"), seg("00:00", "08:00")], &types).is_ok());
        let e = check_day("d", &[seg("00:00", "09:00"), seg("08:00", "24:00")], &types).unwrap_err();
        assert!(e.to_string().contains("overlap"), "{e}");
        let e = check_day("d", &[seg("00:00", "07:00"), seg("08:00", "24:00")], &types).unwrap_err();
        assert!(e.to_string().contains("07:00-08:00"), "{e}");
        let e = check_day("d", &[seg("00:00", "22:00")], &types).unwrap_err();
        assert!(e.to_string().contains("22:00-24:00"), "{e}");
        assert!(check_day("d", &[seg("00:00", "25:00")], &types).is_err());
        assert!(check_day("d", &[seg("10:00", "09:00")], &types).is_err());
    }
}
