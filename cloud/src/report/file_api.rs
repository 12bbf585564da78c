//! Report files (`/api/blade-report/report/rest/...`, menu 报表文件 `reportFile`): the stored
//! monthly reports of the caller's stations, listed, downloaded, produced on demand and removed
//! (button `reportFile_delete`).

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::monthly;
use super::store;
use super::workbook::XLSX;
use crate::auth::scope::Scoped;
use crate::kernel::extract::{Json as JsonBody, Path, Query};
use crate::kernel::id::ids_param;
use crate::kernel::list::{DEFAULT_SIZE, MAX_SIZE};
use crate::kernel::sql::{Sql, Value, like_contains};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page, time};

const MENU: &str = "reportFile";
const DELETE_BUTTON: &str = "reportFile_delete";

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportFile {
    pub id: Id,
    pub name: String,
    pub station_id: Id,
    pub station_name: String,
    /// `monthly`.
    pub kind: String,
    /// `yyyy-MM`.
    pub period: String,
    /// Bytes.
    pub file_size: i64,
    /// Produced by the job (absent) or by this user.
    pub create_user: Option<Id>,
    /// `yyyy-MM-dd HH:mm:ss`.
    pub create_time: String,
}

#[derive(Debug, sqlx::FromRow)]
struct Row {
    id: i64,
    name: String,
    station_id: i64,
    station_name: String,
    kind: String,
    period: String,
    file_size: i64,
    create_user: Option<i64>,
    create_time: i64,
}

impl From<Row> for ReportFile {
    fn from(r: Row) -> Self {
        ReportFile {
            id: Id(r.id),
            name: r.name,
            station_id: Id(r.station_id),
            station_name: r.station_name,
            kind: r.kind,
            period: r.period,
            file_size: r.file_size,
            create_user: r.create_user.map(Id),
            create_time: time::format_ms(r.create_time),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FileQuery {
    /// Page number, from 1.
    pub current: Option<i64>,
    /// Page size (default 10, at most 200).
    pub size: Option<i64>,
    pub station_id: Option<Id>,
    /// Part of the file name.
    pub name: Option<String>,
    /// `yyyy-MM`.
    pub period: Option<String>,
}

const COLUMNS: &str = "f.id, f.name, f.station_id, s.name AS station_name, f.kind, f.period, f.file_size, \
     f.create_user, f.create_time";

/// `FROM` and the conditions every read applies: live files of the caller's visible stations.
fn visible(scoped: &Scoped) -> Sql {
    let mut sql = Sql::new(
        " FROM pv_report_file f JOIN pv_station s ON s.id = f.station_id WHERE f.is_deleted = 0 AND ",
    );
    sql.append(&scoped.stations.stations("s"));
    sql
}

/// The caller's report files, newest first.
#[utoipa::path(get, path = "/api/blade-report/report/rest/list", tag = "report",
    params(FileQuery),
    responses((status = 200, body = Envelope<Page<ReportFile>>), (status = 403)))]
pub async fn list(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<FileQuery>,
) -> ApiResult<Data<Page<ReportFile>>> {
    scoped.caller.require(&core, MENU).await?;
    let size = q.size.unwrap_or(DEFAULT_SIZE).clamp(1, MAX_SIZE);
    let current = q.current.unwrap_or(1).max(1);
    let mut cond = visible(&scoped);
    if let Some(s) = q.station_id {
        cond.push_bind(" AND f.station_id = ?", [Value::Int(s.0)]);
    }
    if let Some(n) = q.name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        cond.push_bind(" AND f.name LIKE ?", [Value::from(like_contains(n))]);
    }
    if let Some(p) = q.period.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
        cond.push_bind(" AND f.period = ?", [Value::from(p)]);
    }
    let mut count = Sql::new("SELECT COUNT(*)");
    count.append(&cond);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let mut sql = Sql::new(&format!("SELECT {COLUMNS}"));
    sql.append(&cond);
    sql.push_bind(
        " ORDER BY f.create_time DESC, f.id DESC LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let rows: Vec<Row> = sql.fetch_all(core.db.pool()).await?;
    Ok(Data(Page::new(
        rows.into_iter().map(ReportFile::from).collect(),
        total,
        size,
        current,
    )))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct IdQuery {
    pub id: Id,
}

async fn one(core: &Core, scoped: &Scoped, id: Id) -> Result<ReportFile, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS}"));
    sql.append(&visible(scoped));
    sql.push_bind(" AND f.id = ?", [Value::Int(id.0)]);
    sql.fetch_optional::<Row, _>(core.db.pool())
        .await?
        .map(ReportFile::from)
        .ok_or_else(ApiError::not_found)
}

/// One report file.
#[utoipa::path(get, path = "/api/blade-report/report/rest/detail", tag = "report",
    params(IdQuery),
    responses((status = 200, body = Envelope<ReportFile>), (status = 403), (status = 404)))]
pub async fn detail(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<IdQuery>,
) -> ApiResult<Data<ReportFile>> {
    scoped.caller.require(&core, MENU).await?;
    Ok(Data(one(&core, &scoped, q.id).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct FilePath {
    pub id: Id,
}

/// The workbook of a report file.
#[utoipa::path(get, path = "/api/blade-report/report/rest/download/{id}", tag = "report",
    params(FilePath),
    responses((status = 200, description = "xlsx", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), (status = 403), (status = 404)))]
pub async fn download(
    State(core): State<Core>,
    scoped: Scoped,
    Path(p): Path<FilePath>,
) -> Result<Response, ApiError> {
    use axum::http::{HeaderValue, header};
    use axum::response::IntoResponse;
    scoped.caller.require(&core, MENU).await?;
    let file = one(&core, &scoped, p.id).await?;
    let mut sql = Sql::default();
    // Visibility was checked just above through the caller's scope.
    sql.push_bind(
        "SELECT content FROM pv_report_file WHERE id = ?",
        [Value::Int(p.id.0)],
    );
    let bytes: Vec<u8> = sql.scalar(core.db.pool()).await?;
    let mut response = bytes.into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(XLSX));
    // The name may hold Chinese: RFC 6266 `filename*`, with an ASCII fallback.
    let encoded: String = file
        .name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let disposition = format!(
        "attachment; filename=\"report-{}-{}.xlsx\"; filename*=UTF-8''{encoded}",
        file.station_id.0, file.period
    );
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(response)
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GenerateForm {
    pub station_id: Id,
    /// `yyyy-MM`; default the station's previous month.
    pub period: Option<String>,
}

/// Produces (or replaces) the monthly report of a station now.
#[utoipa::path(post, path = "/api/blade-report/report/rest/generate", tag = "report",
    request_body = GenerateForm,
    responses((status = 200, body = Envelope<ReportFile>), (status = 400), (status = 403), (status = 404)))]
pub async fn generate(
    State(core): State<Core>,
    scoped: Scoped,
    JsonBody(form): JsonBody<GenerateForm>,
) -> ApiResult<Data<ReportFile>> {
    scoped.caller.require(&core, MENU).await?;
    let stations = store::stations(&core, &scoped.stations, &[form.station_id]).await?;
    let station = stations.first().ok_or_else(ApiError::not_found)?;
    let month = match form.period.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
        Some(p) => {
            chrono::NaiveDate::parse_from_str(&format!("{p}-01"), "%Y-%m-%d").map_err(|_| {
                ApiError::bad_request(
                    format!("月份格式不正确：{p}（应为yyyy-MM）"),
                    format!("Invalid month {p} (expected yyyy-MM)"),
                )
            })?;
            p.to_owned()
        }
        None => monthly::previous_month(super::common::today(station)),
    };
    let id = monthly::produce(&core, station, &month, Some(scoped.caller.user_id.0), true)
        .await?
        .ok_or_else(|| ApiError::Internal("report not stored".into()))?;
    Ok(Data(one(&core, &scoped, id).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct IdsQuery {
    /// Comma-joined ids.
    pub ids: String,
}

/// Removes report files. Every id must be one of the caller's files, else nothing is removed
/// and the answer is 404.
#[utoipa::path(post, path = "/api/blade-report/report/rest/remove", tag = "report",
    params(IdsQuery),
    responses((status = 200, body = Envelope<bool>), (status = 400, description = "No id, or an id that is not a number"),
        (status = 403), (status = 404, description = "An id is not a report the caller may remove: nothing is removed")))]
pub async fn remove(
    State(core): State<Core>,
    scoped: Scoped,
    Query(q): Query<IdsQuery>,
) -> ApiResult<Data<bool>> {
    scoped.caller.require(&core, DELETE_BUTTON).await?;
    let mut ids = ids_param(&q.ids)?;
    ids.sort_by_key(|i| i.0);
    ids.dedup();
    let mut check = Sql::new("SELECT COUNT(*)");
    check.append(&visible(&scoped));
    check.push(" AND f.id IN (");
    check.push_ids(&ids);
    check.push(")");
    if check.scalar::<i64, _>(core.db.pool()).await? != ids.len() as i64 {
        return Err(ApiError::not_found());
    }
    let mut sql = Sql::new("UPDATE pv_report_file SET is_deleted = 1 WHERE is_deleted = 0 AND id IN (");
    sql.push_ids(&ids);
    sql.push(")");
    sql.execute(core.db.pool()).await?;
    Ok(Data(true))
}
