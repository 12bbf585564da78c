//! Excel templates, imports and exports of stations and inverters.
//!
//! The sheets are the declared field tables (`station_store::COLS`, `inverter::COLS`): the header of a
//! column is the field's Chinese label (with `*` when required), and every imported row is
//! checked by the same parsing and record checks as the forms. An import is all or nothing: when
//! any row is invalid nothing is written and the answer lists every problem by row and field.
//! Exports write labels, not codes (`excel_labels`), and imports take either.
//! Written with rust_xlsxwriter, read with calamine (`.xlsx` and the older `.xls`).

use std::collections::HashMap;
use std::io::Cursor;

use axum::extract::{Multipart, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use calamine::{Data as Cell, Reader};
use serde::Serialize;
use serde_json::{Map, Value as Json, json};
use sqlx::Row;
use utoipa::ToSchema;

use super::device::{self, inverter::INVERTER};
use super::excel_labels::{self, Labels};
use super::fields::{self, Col, Parsed, Ty, value_of};
use super::{station_checks, station_store};
use crate::auth::Caller;
use crate::auth::scope::Scoped;
use crate::auth::scope::StationScope;
use crate::kernel::Core;
use crate::kernel::lang::{Lang, Text};
use crate::kernel::list::{ListQuery, MAX_SIZE};
use crate::kernel::sql::{Sql, UniqueAs, Value};
use crate::kernel::{ApiError, Data, Envelope, Page};
use crate::station::context::StationCtx;

const WRONG_TYPE: Text = Text::new(
    "请上传 .xls 或 .xlsx 格式的文件",
    "Please upload an .xls or .xlsx file",
);
const NO_FILE: Text = Text::new("请选择要导入的文件", "Please choose a file to import");
const UNREADABLE: Text = Text::new(
    "无法读取该Excel文件，请使用导入模板",
    "The Excel file cannot be read; please use the import template",
);
const NO_ROWS: Text = Text::new("文件中没有数据", "The file has no data rows");
const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// What a sheet holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sheet {
    Station,
    Inverter,
}

impl Sheet {
    fn all_cols(self) -> &'static [Col] {
        match self {
            Sheet::Station => station_store::COLS,
            Sheet::Inverter => super::device::inverter::COLS,
        }
    }

    /// The columns of the sheet: every declared field a cell can carry (not write-only
    /// secrets, not ids other than the station, which travels by name).
    fn cols(self) -> Vec<&'static Col> {
        self.all_cols()
            .iter()
            .filter(|c| match c.ty {
                Ty::Secret(_) => false,
                Ty::Id => c.name == "stationId",
                _ => true,
            })
            .collect()
    }

    fn menu(self) -> &'static str {
        match self {
            Sheet::Station => "station",
            Sheet::Inverter => "inverter",
        }
    }

    fn sheet_name(self) -> &'static str {
        match self {
            Sheet::Station => "电站",
            Sheet::Inverter => "逆变器",
        }
    }
}

/// The column header of a field (the station travels by its name).
fn label_zh(col: &Col) -> &'static str {
    if col.name == "stationId" {
        "电站名称"
    } else {
        col.zh
    }
}

fn label_en(col: &Col) -> &'static str {
    if col.name == "stationId" {
        "station name"
    } else {
        col.en
    }
}

fn xlsx_error(e: rust_xlsxwriter::XlsxError) -> ApiError {
    ApiError::Internal(format!("xlsx: {e}"))
}

/// Writes a workbook of one sheet: the header row (labels in `lang`), then `rows` (cells as
/// JSON values).
fn workbook(sheet: Sheet, rows: &[Vec<Json>], lang: Lang) -> Result<Vec<u8>, ApiError> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let ws = book.add_worksheet();
    ws.set_name(sheet.sheet_name()).map_err(xlsx_error)?;
    let bold = rust_xlsxwriter::Format::new().set_bold();
    for (i, col) in sheet.cols().into_iter().enumerate() {
        let c = i as u16;
        let label = match lang {
            Lang::Zh => label_zh(col),
            Lang::En => label_en(col),
        };
        let header = if col.required {
            format!("{label}*")
        } else {
            label.to_owned()
        };
        ws.write_string_with_format(0, c, header, &bold)
            .map_err(xlsx_error)?;
        ws.set_column_width(c, 18).map_err(xlsx_error)?;
    }
    for (r, row) in rows.iter().enumerate() {
        let r = r as u32 + 1;
        for (c, v) in row.iter().enumerate() {
            let c = c as u16;
            match v {
                Json::Null => {}
                Json::Number(n) => {
                    ws.write_number(r, c, n.as_f64().unwrap_or_default())
                        .map_err(xlsx_error)?;
                }
                Json::String(s) => {
                    ws.write_string(r, c, s).map_err(xlsx_error)?;
                }
                Json::Array(items) => {
                    let joined = items
                        .iter()
                        .map(|i| match i {
                            Json::String(s) => s.clone(),
                            other => other.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join(",");
                    ws.write_string(r, c, joined).map_err(xlsx_error)?;
                }
                other => {
                    ws.write_string(r, c, other.to_string()).map_err(xlsx_error)?;
                }
            }
        }
    }
    book.save_to_buffer().map_err(xlsx_error)
}

fn xlsx_response(bytes: Vec<u8>, file: &str) -> Response {
    let mut response = bytes.into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(XLSX));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{file}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    response
}

/// The import template of stations: one header row of the fields' Chinese labels.
#[utoipa::path(get, path = "/api/station/import-template", tag = "station",
    responses((status = 200, description = "xlsx", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 401)))]
pub async fn station_template(_caller: Caller) -> Result<Response, ApiError> {
    Ok(xlsx_response(
        workbook(Sheet::Station, &[], Lang::Zh)?,
        "station-template.xlsx",
    ))
}

/// The import template of inverters (the station column takes the station's name).
#[utoipa::path(get, path = "/api/inverter/import-template", tag = "inverter",
    responses((status = 200, description = "xlsx", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 401)))]
pub async fn inverter_template(_caller: Caller) -> Result<Response, ApiError> {
    Ok(xlsx_response(
        workbook(Sheet::Inverter, &[], Lang::Zh)?,
        "inverter-template.xlsx",
    ))
}

// ---- import ----

/// One problem of an import, by row (as Excel numbers it) and field.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RowError {
    pub row: usize,
    /// Wire name of the field; empty for a problem of the whole row.
    pub field: String,
    /// The column's label in the caller's language.
    pub label: String,
    pub message: String,
}

/// The uploaded file (multipart field `file`): its name and bytes.
async fn upload(state: &Core, mut form: Multipart) -> Result<(String, Vec<u8>), ApiError> {
    let bad = |e: axum::extract::multipart::MultipartError| {
        ApiError::bad_request(format!("上传内容有误：{e}"), format!("malformed upload: {e}"))
    };
    while let Some(mut field) = form.next_field().await.map_err(bad)? {
        if field.name() != Some("file") {
            continue;
        }
        let name = field.file_name().unwrap_or_default().to_owned();
        let lower = name.to_ascii_lowercase();
        if !(lower.ends_with(".xlsx") || lower.ends_with(".xls")) {
            return Err(ApiError::BadRequest(WRONG_TYPE));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(bad)? {
            bytes.extend_from_slice(&chunk);
            if bytes.len() > state.config.files.max_upload_bytes {
                return Err(ApiError::bad_request("文件过大", "The file is too large"));
            }
        }
        return Ok((name, bytes));
    }
    Err(ApiError::BadRequest(NO_FILE))
}

/// A cell as the forms would send it.
fn cell_json(cell: &Cell, col: &Col) -> Option<Json> {
    Some(match cell {
        Cell::Empty => return None,
        Cell::Int(i) => json!(i),
        Cell::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => json!(*f as i64),
        Cell::Float(f) => json!(f),
        Cell::String(s) if s.trim().is_empty() => return None,
        Cell::String(s) => Json::String(s.trim().to_owned()),
        Cell::Bool(b) => json!(b),
        Cell::DateTime(d) => {
            // Excel serial days since 1899-12-30, local wall-clock time.
            let ms = ((d.as_f64() - 25_569.0) * 86_400_000.0).round() as i64;
            let t = chrono::DateTime::from_timestamp_millis(ms)?.naive_utc();
            let format = if matches!(col.ty, Ty::Date) {
                "%Y-%m-%d"
            } else {
                "%Y-%m-%d %H:%M:%S"
            };
            Json::String(t.format(format).to_string())
        }
        Cell::DateTimeIso(s) | Cell::DurationIso(s) => Json::String(s.replace('T', " ")),
        Cell::Error(e) => Json::String(format!("#{e:?}")),
    })
}

/// The data rows of the first sheet as form bodies, with their Excel row numbers.
/// A data row: its Excel row number and its cells as a form body.
type SheetRow = (usize, Map<String, Json>);

fn read_rows(sheet: Sheet, bytes: Vec<u8>) -> Result<Vec<SheetRow>, ApiError> {
    let mut book = calamine::open_workbook_auto_from_rs(Cursor::new(bytes))
        .map_err(|_| ApiError::BadRequest(UNREADABLE))?;
    let range = book
        .worksheet_range_at(0)
        .ok_or(ApiError::BadRequest(UNREADABLE))?
        .map_err(|_| ApiError::BadRequest(UNREADABLE))?;
    let first_row = range.start().map_or(0, |(r, _)| r as usize);
    let mut rows = range.rows();
    let header = rows.next().ok_or(ApiError::BadRequest(NO_ROWS))?;
    let cols = sheet.cols();
    let mut by_position: Vec<Option<&'static Col>> = Vec::new();
    for cell in header {
        let text = match cell {
            Cell::String(s) => s.trim().trim_end_matches('*').trim().to_owned(),
            Cell::Empty => String::new(),
            other => other.to_string(),
        };
        if text.is_empty() {
            by_position.push(None);
            continue;
        }
        let col = cols.iter().copied().find(|c| {
            label_zh(c) == text || c.zh == text || c.name == text || label_en(c).eq_ignore_ascii_case(&text)
        });
        match col {
            Some(c) => by_position.push(Some(c)),
            None => {
                return Err(ApiError::bad_request(
                    format!("未知的列：{text}，请使用导入模板"),
                    format!("Unknown column {text}; please use the import template"),
                ));
            }
        }
    }
    let mut out = Vec::new();
    for (i, row) in rows.enumerate() {
        let mut body = Map::new();
        for (cell, col) in row.iter().zip(&by_position) {
            if let (Some(col), Some(v)) = (col, col.and_then(|c| cell_json(cell, c))) {
                body.insert(col.name.to_owned(), v);
            }
        }
        if !body.is_empty() {
            // +1 for the header, +1 because Excel counts from 1.
            out.push((first_row + i + 2, body));
        }
    }
    if out.is_empty() {
        return Err(ApiError::BadRequest(NO_ROWS));
    }
    Ok(out)
}

/// Rows with labels and region names turned back into the keys and codes the forms send.
async fn with_keys(state: &Core, sheet: Sheet, rows: Vec<SheetRow>) -> Result<Vec<SheetRow>, ApiError> {
    let cols = sheet.cols();
    let labels = Labels::load(state, &cols).await?;
    let mut out = Vec::with_capacity(rows.len());
    for (row, mut body) in rows {
        for col in &cols {
            if let Some(v) = body.get_mut(col.name) {
                *v = labels.key(col, v);
            }
        }
        excel_labels::region_codes(state, &mut body).await?;
        out.push((row, body));
    }
    Ok(out)
}

fn col_of(sheet: Sheet, name: &str) -> Option<&'static Col> {
    sheet.all_cols().iter().find(|c| c.name == name)
}

fn row_error(sheet: Sheet, row: usize, field: &str, e: ApiError) -> Result<RowError, ApiError> {
    let ApiError::BadRequest(text) = e else {
        return Err(e);
    };
    let label = match col_of(sheet, field) {
        Some(c) => match crate::kernel::lang::Lang::current() {
            crate::kernel::lang::Lang::Zh => label_zh(c).to_owned(),
            _ => label_en(c).to_owned(),
        },
        None => String::new(),
    };
    Ok(RowError {
        row,
        field: field.to_owned(),
        label,
        message: text.render(),
    })
}

/// Parses every field of a row on its own, so one row reports all its bad fields.
async fn parse_fields(
    state: &StationCtx,
    sheet: Sheet,
    row: usize,
    body: &Map<String, Json>,
    errors: &mut Vec<RowError>,
) -> Result<Vec<Parsed>, ApiError> {
    let mut parsed = Vec::new();
    for col in sheet.all_cols() {
        match fields::parse(state, std::slice::from_ref(col), body).await {
            Ok(p) => parsed.extend(p),
            Err(e) => errors.push(row_error(sheet, row, col.name, e)?),
        }
    }
    Ok(parsed)
}

/// Station names the caller may see → ids (a name can be ambiguous).
async fn station_ids_by_name(
    state: &Core,
    scope: &StationScope,
) -> Result<HashMap<String, Vec<i64>>, ApiError> {
    let mut sql = Sql::new("SELECT s.id, s.name FROM pv_station s WHERE ");
    sql.append(&scope.stations("s"));
    let mut out: HashMap<String, Vec<i64>> = HashMap::new();
    for row in sql.rows(state.db.pool()).await? {
        out.entry(row.try_get::<String, _>("name")?)
            .or_default()
            .push(row.try_get::<i64, _>("id")?);
    }
    Ok(out)
}

/// What an import answers when every row went in.
#[derive(Debug, Serialize, ToSchema)]
pub struct Imported {
    /// Rows imported.
    pub imported: usize,
}

fn failed(errors: Vec<RowError>) -> Response {
    let n = errors.len();
    let msg = Text::owned(
        format!("导入失败：共{n}处错误，未导入任何数据"),
        format!("Import failed: {n} problems found; nothing was imported"),
    )
    .render();
    (
        StatusCode::BAD_REQUEST,
        axum::Json(json!({"code": 400, "success": false, "msg": msg, "data": {"errors": errors}})),
    )
        .into_response()
}

/// Imports stations from an .xls/.xlsx file made from the template; all rows or none.
#[utoipa::path(post, path = "/api/station/import", tag = "station",
    request_body(content_type = "multipart/form-data", description = "field `file` (.xls/.xlsx)"),
    responses((status = 200, body = Envelope<Imported>), (status = 400, description = "`data.errors`: row, field, label, message"), (status = 403)))]
pub async fn import_stations(
    State(state): State<StationCtx>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    form: Multipart,
) -> Result<Response, ApiError> {
    caller.require(&state, "station_import").await?;
    let (_, bytes) = upload(&state, form).await?;
    let rows = read_rows(Sheet::Station, bytes)?;
    let rows = with_keys(&state, Sheet::Station, rows).await?;
    let mut errors = Vec::new();
    let mut records = Vec::new();
    for (row, body) in &rows {
        let before = errors.len();
        let mut parsed = parse_fields(&state, Sheet::Station, *row, body, &mut errors).await?;
        if errors.len() == before {
            match station_checks::check(&state, &caller, &mut parsed).await {
                Ok(_) => records.push(parsed),
                Err(e) => errors.push(row_error(Sheet::Station, *row, "", e)?),
            }
        }
    }
    if !errors.is_empty() {
        return Ok(failed(errors));
    }
    let mut tx = state.db.begin_write().await?;
    for parsed in &records {
        station_store::insert(&state, &mut tx, &caller, &scope, parsed, None).await?;
    }
    tx.commit().await?;
    Ok(Data(Imported {
        imported: records.len(),
    })
    .into_response())
}

/// Imports inverters from an .xls/.xlsx file made from the template (stations by name); all
/// rows or none. SNs must be new to the tenant and unique within the file.
#[utoipa::path(post, path = "/api/inverter/import", tag = "inverter",
    request_body(content_type = "multipart/form-data", description = "field `file` (.xls/.xlsx)"),
    responses((status = 200, body = Envelope<Imported>), (status = 400, description = "`data.errors`: row, field, label, message"), (status = 403)))]
pub async fn import_inverters(
    State(state): State<StationCtx>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    form: Multipart,
) -> Result<Response, ApiError> {
    caller.require(&state, "inverter_import").await?;
    let (_, bytes) = upload(&state, form).await?;
    let rows = read_rows(Sheet::Inverter, bytes)?;
    let rows = with_keys(&state, Sheet::Inverter, rows).await?;
    let stations = station_ids_by_name(&state, &scope).await?;
    let mut errors = Vec::new();
    let mut records = Vec::new();
    let mut sns: HashMap<String, usize> = HashMap::new();
    for (row, body) in &rows {
        let mut body = body.clone();
        if let Some(name) = body.get("stationId").cloned() {
            let name = match &name {
                Json::String(s) => s.clone(),
                other => other.to_string(),
            };
            match stations.get(&name).map(Vec::as_slice) {
                Some([id]) => {
                    body.insert("stationId".into(), Json::String(id.to_string()));
                }
                Some(_) => {
                    errors.push(row_error(
                        Sheet::Inverter,
                        *row,
                        "stationId",
                        ApiError::bad_request(
                            format!("电站名称不唯一：{name}"),
                            format!("More than one station is named {name}"),
                        ),
                    )?);
                    continue;
                }
                None => {
                    errors.push(row_error(
                        Sheet::Inverter,
                        *row,
                        "stationId",
                        ApiError::bad_request(
                            format!("电站不存在：{name}"),
                            format!("No such station: {name}"),
                        ),
                    )?);
                    continue;
                }
            }
        }
        let before = errors.len();
        let parsed = parse_fields(&state, Sheet::Inverter, *row, &body, &mut errors).await?;
        if errors.len() != before {
            continue;
        }
        if let Some(Value::Text(sn)) = value_of(&parsed, "sn") {
            if let Some(first) = sns.get(sn) {
                errors.push(row_error(
                    Sheet::Inverter,
                    *row,
                    "sn",
                    ApiError::bad_request(
                        format!("SN与第{first}行重复：{sn}"),
                        format!("SN {sn} repeats row {first}"),
                    ),
                )?);
                continue;
            }
            sns.insert(sn.clone(), *row);
        }
        match device::check_record(&INVERTER, &state, &scope, &parsed, None).await {
            Ok(()) => records.push(parsed),
            Err(e) => {
                let field = if matches!(&e, ApiError::BadRequest(t) if t.get(crate::kernel::lang::Lang::Zh).starts_with("设备SN"))
                {
                    "sn"
                } else {
                    ""
                };
                errors.push(row_error(Sheet::Inverter, *row, field, e)?);
            }
        }
    }
    if !errors.is_empty() {
        return Ok(failed(errors));
    }
    let mut tx = state.db.begin_write().await?;
    for parsed in &records {
        device::insert_sql(&INVERTER, state.ids.next(), &caller, parsed)
            .execute(&mut *tx)
            .await
            .unique_with(|| device::duplicate_message(&INVERTER, parsed))?;
    }
    tx.commit().await?;
    Ok(Data(Imported {
        imported: records.len(),
    })
    .into_response())
}

// ---- export ----

/// Every record of a list (all pages of at most `MAX_SIZE`).
async fn all_pages<T, F, Fut>(mut query: ListQuery, mut page: F) -> Result<Vec<Json>, ApiError>
where
    T: Serialize,
    F: FnMut(ListQuery) -> Fut,
    Fut: std::future::Future<Output = Result<Page<T>, ApiError>>,
{
    query.size = MAX_SIZE;
    query.current = 1;
    let mut out = Vec::new();
    loop {
        let p = page(query.clone()).await?;
        let n = p.records.len();
        // Cells are picked by field name from each record's wire form.
        for r in &p.records {
            out.push(serde_json::to_value(r).map_err(|e| ApiError::Internal(format!("export: {e}")))?);
        }
        if n < MAX_SIZE as usize || query.current >= p.pages {
            return Ok(out);
        }
        query.current += 1;
    }
}

/// The cells of `records` as people read them: dictionary labels in `lang`, region names, the
/// station by name.
async fn export_rows(
    state: &Core,
    sheet: Sheet,
    records: &[Json],
    lang: Lang,
) -> Result<Vec<Vec<Json>>, ApiError> {
    let cols = sheet.cols();
    let labels = Labels::load(state, &cols).await?;
    let regions = excel_labels::region_names(state, records).await?;
    Ok(records
        .iter()
        .map(|r| {
            cols.iter()
                .map(|c| {
                    let key = if c.name == "stationId" {
                        "stationName"
                    } else {
                        c.name
                    };
                    let value = r.get(key).cloned().unwrap_or(Json::Null);
                    match &value {
                        Json::String(code) if excel_labels::is_region(c.name) => regions
                            .get(code)
                            .map_or(value.clone(), |name| Json::String(name.clone())),
                        _ => labels.label(c, &value, lang),
                    }
                })
                .collect()
        })
        .collect())
}

/// The stations of the list (same filters as `/api/station/page`) as .xlsx, in the import
/// template's layout: headers and dictionary labels in the request's language, regions by name
/// (the import reads them back).
#[utoipa::path(get, path = "/api/station/export", tag = "station",
    responses((status = 200, description = "xlsx", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 403)))]
pub async fn export_stations(
    State(state): State<StationCtx>,
    Scoped { caller, stations }: Scoped,
    query: ListQuery,
) -> Result<Response, ApiError> {
    caller.require(&state, "station_export").await?;
    let records = all_pages(query, |q| {
        let (state, stations) = (state.clone(), stations.clone());
        async move { station_store::page_of(&state, &stations, q).await }
    })
    .await?;
    Ok(xlsx_response(
        workbook(
            Sheet::Station,
            &export_rows(&state, Sheet::Station, &records, Lang::current()).await?,
            Lang::current(),
        )?,
        "stations.xlsx",
    ))
}

/// The inverters of the list (same filters as `/api/inverter/page`) as .xlsx, in the import
/// template's layout.
#[utoipa::path(get, path = "/api/inverter/export", tag = "inverter",
    responses((status = 200, description = "xlsx", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 403)))]
pub async fn export_inverters(
    State(state): State<StationCtx>,
    caller: Caller,
    query: ListQuery,
) -> Result<Response, ApiError> {
    caller
        .require(&state, &format!("{}_export", Sheet::Inverter.menu()))
        .await?;
    let records = all_pages(query, |q| {
        let (state, caller) = (state.clone(), caller.clone());
        async move { device::page(&INVERTER, &state, &caller, q).await }
    })
    .await?;
    Ok(xlsx_response(
        workbook(
            Sheet::Inverter,
            &export_rows(&state, Sheet::Inverter, &records, Lang::current()).await?,
            Lang::current(),
        )?,
        "inverters.xlsx",
    ))
}
