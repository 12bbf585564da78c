//! `/api/blade-log/{usual,api,error}/list|detail`: reading the logs. Platform administrators see
//! every tenant's rows (and may filter by tenantId); everyone else only their own tenant's.

use axum::extract::State;
use serde::Deserialize;
use sqlx::FromRow;
use sqlx::any::AnyRow;
use utoipa::IntoParams;

use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page};
use crate::log::records::{ApiLog, ErrorLog, UsualLog};
use crate::system::entities::PLATFORM_TENANT;

/// One log table as the API shows it.
struct LogDef {
    table: &'static str,
    menu: &'static str,
    /// The columns its record reads.
    columns: &'static [&'static str],
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
        "id",
        "tenant_id",
        "service_id",
        "server_host",
        "env",
        "type",
        "title",
        "method",
        "request_uri",
        "status",
        "user_agent",
        "remote_ip",
        "params",
        "time_cost",
        "create_by",
        "create_time",
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
        "id",
        "tenant_id",
        "service_id",
        "server_host",
        "env",
        "log_level",
        "log_id",
        "log_data",
        "method",
        "request_uri",
        "user_agent",
        "remote_ip",
        "params",
        "create_by",
        "create_time",
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
        "id",
        "tenant_id",
        "service_id",
        "server_host",
        "env",
        "method",
        "request_uri",
        "user_agent",
        "remote_ip",
        "stack_trace",
        "exception_name",
        "message",
        "params",
        "create_by",
        "create_time",
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
        self.columns.join(", ")
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

    async fn list<R>(&self, state: Core, caller: Caller, query: ListQuery) -> ApiResult<Data<Page<R>>>
    where
        R: for<'r> FromRow<'r, AnyRow>,
    {
        caller.require(&state, self.menu).await?;
        let page = fetch_page_with(
            &state.db,
            &self.select(),
            self.from(&caller),
            &query,
            self.filters,
            "create_time DESC, id DESC",
            |row| Ok(R::from_row(row)?),
        )
        .await?;
        Ok(Data(page))
    }

    async fn detail<R>(&self, state: Core, caller: Caller, id: Id) -> ApiResult<Data<R>>
    where
        R: for<'r> FromRow<'r, AnyRow>,
    {
        caller.require(&state, self.menu).await?;
        let mut sql = Sql::new(&format!("SELECT {}", self.select()));
        sql.append(&self.from(&caller));
        sql.push_bind(" AND id = ?", [Value::from(id)]);
        let row = sql.row(state.db.pool()).await?.ok_or_else(ApiError::not_found)?;
        Ok(Data(R::from_row(&row)?))
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
    responses((status = 200, description = "Page of API log rows", body = Envelope<Page<ApiLog>>), (status = 401), (status = 403)))]
pub async fn api_list(State(s): State<Core>, c: Caller, q: ListQuery) -> ApiResult<Data<Page<ApiLog>>> {
    API.list(s, c, q).await
}

/// `GET /api/blade-log/api/detail?id=`
#[utoipa::path(get, path = "/api/blade-log/api/detail", tag = "log", params(DetailParams),
    responses((status = 200, description = "One API log row", body = Envelope<ApiLog>), (status = 401), (status = 403), (status = 404)))]
pub async fn api_detail(
    State(s): State<Core>,
    c: Caller,
    Query(p): Query<DetailParams>,
) -> ApiResult<Data<ApiLog>> {
    API.detail(s, c, p.id).await
}

/// `GET /api/blade-log/usual/list`: usual log rows, newest first (filters as the API log, plus
/// logLevel and logId).
#[utoipa::path(get, path = "/api/blade-log/usual/list", tag = "log",
    params(("logId" = Option<String>, Query), ("logLevel" = Option<String>, Query), ("createBy" = Option<String>, Query),
        ("createTime_datege" = Option<String>, Query), ("createTime_datelt" = Option<String>, Query), ("current" = Option<i64>, Query), ("size" = Option<i64>, Query)),
    responses((status = 200, description = "Page of usual log rows", body = Envelope<Page<UsualLog>>), (status = 401), (status = 403)))]
pub async fn usual_list(State(s): State<Core>, c: Caller, q: ListQuery) -> ApiResult<Data<Page<UsualLog>>> {
    USUAL.list(s, c, q).await
}

/// `GET /api/blade-log/usual/detail?id=`
#[utoipa::path(get, path = "/api/blade-log/usual/detail", tag = "log", params(DetailParams),
    responses((status = 200, description = "One usual log row", body = Envelope<UsualLog>), (status = 401), (status = 403), (status = 404)))]
pub async fn usual_detail(
    State(s): State<Core>,
    c: Caller,
    Query(p): Query<DetailParams>,
) -> ApiResult<Data<UsualLog>> {
    USUAL.detail(s, c, p.id).await
}

/// `GET /api/blade-log/error/list`: server errors and the console's uploaded errors.
#[utoipa::path(get, path = "/api/blade-log/error/list", tag = "log",
    params(("requestUri" = Option<String>, Query), ("method" = Option<String>, Query), ("createBy" = Option<String>, Query),
        ("createTime_datege" = Option<String>, Query), ("createTime_datelt" = Option<String>, Query), ("current" = Option<i64>, Query), ("size" = Option<i64>, Query)),
    responses((status = 200, description = "Page of error log rows", body = Envelope<Page<ErrorLog>>), (status = 401), (status = 403)))]
pub async fn error_list(State(s): State<Core>, c: Caller, q: ListQuery) -> ApiResult<Data<Page<ErrorLog>>> {
    ERROR.list(s, c, q).await
}

/// `GET /api/blade-log/error/detail?id=`
#[utoipa::path(get, path = "/api/blade-log/error/detail", tag = "log", params(DetailParams),
    responses((status = 200, description = "One error log row", body = Envelope<ErrorLog>), (status = 401), (status = 403), (status = 404)))]
pub async fn error_detail(
    State(s): State<Core>,
    c: Caller,
    Query(p): Query<DetailParams>,
) -> ApiResult<Data<ErrorLog>> {
    ERROR.detail(s, c, p.id).await
}
