//! Station assignment (`pageAssignment`, `updateUserStation`): which stations each user of the
//! tenant is given. What an assignment means for visibility is decided in one place,
//! [`crate::auth::scope::visible_stations`].

use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use sqlx::Row;
use utoipa::ToSchema;

use super::device::SELECT_ONE;
use crate::auth::Caller;
use crate::kernel::extract::Json as JsonBody;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page, id::parse_id_list};
use crate::station::context::StationCtx;

const FIELDS: &[Field] = &[
    Field::new("account", "u.account", Kind::Text),
    Field::new("realName", "u.real_name", Kind::Text),
    Field::new("phone", "u.phone", Kind::Text),
];

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssignedStation {
    pub id: Id,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserStations {
    pub id: Id,
    pub account: String,
    pub real_name: Option<String>,
    pub phone: Option<String>,
    /// Names of the user's roles, comma-joined.
    pub role_name: String,
    pub station_ids: Vec<Id>,
    pub stations: Vec<AssignedStation>,
}

/// Users of the tenant with the stations given to them. Filters: account, realName, phone
/// (contains); roleAlias (exact, e.g. `owner`, `maintenance`).
#[utoipa::path(get, path = "/api/station/pageAssignment", tag = "station",
    params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("account" = Option<String>, Query),
           ("realName" = Option<String>, Query), ("roleAlias" = Option<String>, Query)),
    responses((status = 200, body = Envelope<Page<UserStations>>), (status = 401), (status = 403)))]
pub async fn page_assignment(
    State(state): State<StationCtx>,
    caller: Caller,
    mut query: ListQuery,
) -> ApiResult<Data<Page<UserStations>>> {
    caller.require(&state, "stationAssignment").await?;
    let mut from = Sql::new("FROM blade_user u WHERE u.is_deleted = 0 AND ");
    from.append(&caller.tenant_filter("u.tenant_id"));
    if let Some(alias) = query.take("roleAlias").filter(|a| !a.trim().is_empty()) {
        from.push_bind(
            " AND EXISTS (SELECT 1 FROM blade_user_role ur JOIN blade_role r ON r.id = ur.role_id \
             WHERE ur.user_id = u.id AND r.is_deleted = 0 AND r.role_alias = ?)",
            [Value::Text(alias.trim().to_owned())],
        );
    }
    let page = fetch_page_with(
        &state.db,
        "u.id, u.account, u.real_name, u.phone",
        from,
        &query,
        FIELDS,
        "u.account ASC, u.id ASC",
        |row| {
            Ok(UserStations {
                id: Id(row.try_get::<i64, _>("id")?),
                account: row.try_get("account")?,
                real_name: row.try_get("real_name")?,
                phone: row.try_get("phone")?,
                role_name: String::new(),
                station_ids: vec![],
                stations: vec![],
            })
        },
    )
    .await?;
    let mut page = page;
    for user in &mut page.records {
        let mut sql = Sql::new(
            "SELECT s.id, s.name FROM pv_user_station us JOIN pv_station s ON s.id = us.station_id \
             WHERE s.is_deleted = 0 AND us.user_id = ?",
        );
        sql.push_bind("", [Value::Int(user.id.0)]);
        sql.push(" ORDER BY s.name, s.id");
        let rows = sql.fetch_all::<(i64, String), _>(state.db.pool()).await?;
        user.station_ids = rows.iter().map(|(id, _)| Id(*id)).collect();
        user.stations = rows
            .into_iter()
            .map(|(id, name)| AssignedStation { id: Id(id), name })
            .collect();
        let mut sql = Sql::new(
            "SELECT r.role_name FROM blade_user_role ur JOIN blade_role r ON r.id = ur.role_id \
             WHERE r.is_deleted = 0 AND ur.user_id = ?",
        );
        sql.push_bind("", [Value::Int(user.id.0)]);
        sql.push(" ORDER BY r.sort, r.id");
        user.role_name = sql.scalars::<String, _>(state.db.pool()).await?.join(",");
    }
    Ok(Data(page))
}

/// The body of `updateUserStation`. What the document says; the handler reads ids as a list,
/// comma-joined text or a number, each refusal with its own message.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserStationsForm {
    pub user_id: Id,
    /// Every station the user is to be given; empty takes every station away.
    pub station_ids: Option<Vec<Id>>,
}

fn ids_of(body: &Map<String, Json>, key: &str) -> Result<Vec<Id>, ApiError> {
    let bad = || ApiError::bad_request(format!("字段 {key} 的值无效"), format!("invalid value for {key}"));
    match body.get(key) {
        None | Some(Json::Null) => Ok(vec![]),
        Some(Json::String(s)) => parse_id_list(s).map_err(|_| bad()),
        Some(Json::Number(n)) => n
            .as_i64()
            .filter(|n| *n >= 0)
            .map(|i| vec![Id(i)])
            .ok_or_else(bad),
        Some(Json::Array(items)) => items
            .iter()
            .map(|v| match v {
                Json::String(s) => s.trim().parse().map(Id).map_err(|_| bad()),
                Json::Number(n) => n.as_i64().filter(|n| *n >= 0).map(Id).ok_or_else(bad),
                _ => Err(bad()),
            })
            .collect(),
        Some(_) => Err(bad()),
    }
}

/// Replaces the stations given to a user: `{userId, stationIds}` (ids as a list or
/// comma-joined; empty takes every station away). The user and every station must be the
/// caller's tenant's, or nothing changes.
#[utoipa::path(post, path = "/api/station/updateUserStation", tag = "station", request_body = UserStationsForm,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn update_user_station(
    State(state): State<StationCtx>,
    caller: Caller,
    JsonBody(body): JsonBody<Map<String, Json>>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, "stationAssignment_assign").await?;
    let user = ids_of(&body, "userId")?
        .into_iter()
        .next()
        .ok_or(ApiError::BadRequest(SELECT_ONE))?;
    let mut stations = ids_of(&body, "stationIds")?;
    stations.sort();
    stations.dedup();
    let mut sql = Sql::new("SELECT COUNT(*) FROM blade_user WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push_bind(" AND id = ?", [Value::Int(user.0)]);
    let found: i64 = sql.scalar::<i64, _>(state.db.pool()).await?;
    if found == 0 {
        return Err(ApiError::bad_request("用户不存在", "No such user"));
    }
    if !stations.is_empty() {
        let mut sql = Sql::new("SELECT COUNT(*) FROM pv_station WHERE is_deleted = 0 AND ");
        sql.append(&caller.tenant_filter("tenant_id"));
        sql.push(" AND id IN (");
        sql.push_ids(&stations);
        sql.push(")");
        let found: i64 = sql.scalar::<i64, _>(state.db.pool()).await?;
        if found != stations.len() as i64 {
            return Err(ApiError::BadRequest(super::device::NO_STATION));
        }
    }
    let mut tx = state.db.begin_write().await?;
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM pv_user_station WHERE user_id = ?",
        [Value::Int(user.0)],
    );
    del.execute(&mut *tx).await?;
    for s in stations {
        super::station_store::assign(&mut tx, &caller.tenant_id, user, s).await?;
    }
    tx.commit().await?;
    Ok(Data(true))
}
