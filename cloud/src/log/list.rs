//! `/api/blade-log/{usual,api,error}/list|detail`: reading the logs. Platform administrators see
//! every tenant's rows (and may filter by tenantId); everyone else only their own tenant's.

use axum::extract::State;
use serde::Deserialize;
use serde_json::{Map, Value as Json};
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::IntoParams;

use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Id, Page, time};
use crate::system::entities::PLATFORM_TENANT;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Id,
    Text,
    Int,
    Time,
}

/// One log table as the API shows it.
struct LogDef {
    table: &'static str,
    menu: &'static str,
    /// (wire name, column, type)
    columns: &'static [(&'static str, &'static str, Col)],
    filters: &'static [Field],
}

const COMMON_FILTERS: [Field; 5] = [
    Field::new("tenantId", "tenant_id", Kind::Text),
    Field::new("requestUri", "request_uri", Kind::Text),
    Field::new("method", "method", Kind::Text),
    Field::new("createBy", "create_by", Kind::Text),
    Field::new("createTime", "create_time", Kind::Time),
];

static API: LogDef = LogDef {
    table: "blade_log_api",
    menu: "log_api",
    columns: &[
        ("id", "id", Col::Id),
        ("tenantId", "tenant_id", Col::Text),
        ("serviceId", "service_id", Col::Text),
        ("serverHost", "server_host", Col::Text),
        ("env", "env", Col::Text),
        ("type", "type", Col::Text),
        ("title", "title", Col::Text),
        ("method", "method", Col::Text),
        ("requestUri", "request_uri", Col::Text),
        ("status", "status", Col::Int),
        ("userAgent", "user_agent", Col::Text),
        ("remoteIp", "remote_ip", Col::Text),
        ("params", "params", Col::Text),
        ("time", "time_cost", Col::Int),
        ("createBy", "create_by", Col::Text),
        ("createTime", "create_time", Col::Time),
    ],
    filters: &[
        COMMON_FILTERS[0],
        COMMON_FILTERS[1],
        COMMON_FILTERS[2],
        COMMON_FILTERS[3],
        COMMON_FILTERS[4],
        Field::new("title", "title", Kind::Text),
        Field::new("status", "status", Kind::Int),
    ],
};

static USUAL: LogDef = LogDef {
    table: "blade_log_usual",
    menu: "log_usual",
    columns: &[
        ("id", "id", Col::Id),
        ("tenantId", "tenant_id", Col::Text),
        ("serviceId", "service_id", Col::Text),
        ("serverHost", "server_host", Col::Text),
        ("env", "env", Col::Text),
        ("logLevel", "log_level", Col::Text),
        ("logId", "log_id", Col::Text),
        ("logData", "log_data", Col::Text),
        ("method", "method", Col::Text),
        ("requestUri", "request_uri", Col::Text),
        ("userAgent", "user_agent", Col::Text),
        ("remoteIp", "remote_ip", Col::Text),
        ("params", "params", Col::Text),
        ("createBy", "create_by", Col::Text),
        ("createTime", "create_time", Col::Time),
    ],
    filters: &[
        COMMON_FILTERS[0],
        COMMON_FILTERS[1],
        COMMON_FILTERS[2],
        COMMON_FILTERS[3],
        COMMON_FILTERS[4],
        Field::new("logLevel", "log_level", Kind::Text),
        Field::new("logId", "log_id", Kind::Text),
    ],
};

static ERROR: LogDef = LogDef {
    table: "blade_log_error",
    menu: "log_error",
    columns: &[
        ("id", "id", Col::Id),
        ("tenantId", "tenant_id", Col::Text),
        ("serviceId", "service_id", Col::Text),
        ("serverHost", "server_host", Col::Text),
        ("env", "env", Col::Text),
        ("method", "method", Col::Text),
        ("requestUri", "request_uri", Col::Text),
        ("userAgent", "user_agent", Col::Text),
        ("remoteIp", "remote_ip", Col::Text),
        ("stackTrace", "stack_trace", Col::Text),
        ("exceptionName", "exception_name", Col::Text),
        ("message", "message", Col::Text),
        ("params", "params", Col::Text),
        ("createBy", "create_by", Col::Text),
        ("createTime", "create_time", Col::Time),
    ],
    filters: &[
        COMMON_FILTERS[0],
        COMMON_FILTERS[1],
        COMMON_FILTERS[2],
        COMMON_FILTERS[3],
        COMMON_FILTERS[4],
        Field::new("exceptionName", "exception_name", Kind::Text),
        Field::new("serviceId", "service_id", Kind::Text),
    ],
};

impl LogDef {
    fn select(&self) -> String {
        self.columns
            .iter()
            .map(|(_, c, _)| *c)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `FROM table WHERE 1 = 1 [AND tenant_id = ?]`: the platform tenant reads everything.
    fn from(&self, caller: &Caller) -> Sql {
        let mut sql = Sql::new(&format!(" FROM {} WHERE 1 = 1", self.table));
        if caller.tenant_id != PLATFORM_TENANT {
            sql.push(" AND ");
            sql.append(&caller.tenant_filter("tenant_id"));
        }
        sql
    }

    fn to_json(&self, row: &AnyRow) -> Result<Json, ApiError> {
        let mut map = Map::new();
        for (name, column, col) in self.columns {
            let v = match col {
                Col::Text => row.try_get::<Option<String>, _>(*column)?.map(Json::String),
                Col::Int => row.try_get::<Option<i64>, _>(*column)?.map(Json::from),
                Col::Id => row
                    .try_get::<Option<i64>, _>(*column)?
                    .map(|v| Json::String(v.to_string())),
                Col::Time => row
                    .try_get::<Option<i64>, _>(*column)?
                    .map(|v| Json::String(time::format_ms(v))),
            };
            map.insert((*name).to_owned(), v.unwrap_or(Json::Null));
        }
        Ok(Json::Object(map))
    }

    async fn list(&self, state: Core, caller: Caller, query: ListQuery) -> ApiResult<Data<Page<Json>>> {
        caller.require(&state, self.menu).await?;
        let page = fetch_page_with(
            &state.db,
            &self.select(),
            self.from(&caller),
            &query,
            self.filters,
            "create_time DESC, id DESC",
            |row| self.to_json(row),
        )
        .await?;
        Ok(Data(page))
    }

    async fn detail(&self, state: Core, caller: Caller, id: Id) -> ApiResult<Data<Json>> {
        caller.require(&state, self.menu).await?;
        let mut sql = Sql::new(&format!("SELECT {}", self.select()));
        sql.append(&self.from(&caller));
        sql.push_bind(" AND id = ?", [Value::from(id)]);
        let row = sql.row(state.db.pool()).await?.ok_or_else(ApiError::not_found)?;
        Ok(Data(self.to_json(&row)?))
    }
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct DetailParams {
    pub id: Id,
}

/// `GET /api/blade-log/api/list`: API log rows, newest first (filters requestUri, method,
/// createBy, createTime_datege/_datelt, title, status; tenantId for platform administrators).
#[utoipa::path(get, path = "/api/blade-log/api/list", tag = "log",
    params(("requestUri" = Option<String>, Query), ("method" = Option<String>, Query), ("createBy" = Option<String>, Query),
        ("createTime_datege" = Option<String>, Query), ("createTime_datelt" = Option<String>, Query), ("current" = Option<i64>, Query), ("size" = Option<i64>, Query)),
    responses((status = 200, description = "Page of API log rows"), (status = 401), (status = 403)))]
pub async fn api_list(State(s): State<Core>, c: Caller, q: ListQuery) -> ApiResult<Data<Page<Json>>> {
    API.list(s, c, q).await
}

/// `GET /api/blade-log/api/detail?id=`
#[utoipa::path(get, path = "/api/blade-log/api/detail", tag = "log", params(DetailParams),
    responses((status = 200, description = "One API log row"), (status = 401), (status = 403), (status = 404)))]
pub async fn api_detail(
    State(s): State<Core>,
    c: Caller,
    Query(p): Query<DetailParams>,
) -> ApiResult<Data<Json>> {
    API.detail(s, c, p.id).await
}

/// `GET /api/blade-log/usual/list`: usual log rows, newest first (filters as the API log, plus
/// logLevel and logId).
#[utoipa::path(get, path = "/api/blade-log/usual/list", tag = "log",
    params(("logId" = Option<String>, Query), ("logLevel" = Option<String>, Query), ("createBy" = Option<String>, Query),
        ("createTime_datege" = Option<String>, Query), ("createTime_datelt" = Option<String>, Query), ("current" = Option<i64>, Query), ("size" = Option<i64>, Query)),
    responses((status = 200, description = "Page of usual log rows"), (status = 401), (status = 403)))]
pub async fn usual_list(State(s): State<Core>, c: Caller, q: ListQuery) -> ApiResult<Data<Page<Json>>> {
    USUAL.list(s, c, q).await
}

/// `GET /api/blade-log/usual/detail?id=`
#[utoipa::path(get, path = "/api/blade-log/usual/detail", tag = "log", params(DetailParams),
    responses((status = 200, description = "One usual log row"), (status = 401), (status = 403), (status = 404)))]
pub async fn usual_detail(
    State(s): State<Core>,
    c: Caller,
    Query(p): Query<DetailParams>,
) -> ApiResult<Data<Json>> {
    USUAL.detail(s, c, p.id).await
}

/// `GET /api/blade-log/error/list`: server errors and the console's uploaded errors.
#[utoipa::path(get, path = "/api/blade-log/error/list", tag = "log",
    params(("requestUri" = Option<String>, Query), ("method" = Option<String>, Query), ("createBy" = Option<String>, Query),
        ("createTime_datege" = Option<String>, Query), ("createTime_datelt" = Option<String>, Query), ("current" = Option<i64>, Query), ("size" = Option<i64>, Query)),
    responses((status = 200, description = "Page of error log rows"), (status = 401), (status = 403)))]
pub async fn error_list(State(s): State<Core>, c: Caller, q: ListQuery) -> ApiResult<Data<Page<Json>>> {
    ERROR.list(s, c, q).await
}

/// `GET /api/blade-log/error/detail?id=`
#[utoipa::path(get, path = "/api/blade-log/error/detail", tag = "log", params(DetailParams),
    responses((status = 200, description = "One error log row"), (status = 401), (status = 403), (status = 404)))]
pub async fn error_detail(
    State(s): State<Core>,
    c: Caller,
    Query(p): Query<DetailParams>,
) -> ApiResult<Data<Json>> {
    ERROR.detail(s, c, p.id).await
}
