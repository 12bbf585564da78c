//! `/api/repair/stats`: open and overdue orders, completions of the last 30 days and MTTR, for
//! the caller's orders (overall and per station); also what the home page shows. The formulas
//! are in `stats` and `docs/repair.md`.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::stats::{COMPLETED_DAYS, DAY_MS, Figures, MTTR_DAYS, Times, summarize};
use super::store;
use crate::auth::scope::Scoped;
use crate::kernel::extract::Query;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, time};

#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct StatsQuery {
    pub station_id: Option<Id>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationRepairStats {
    pub station_id: Id,
    pub station_name: String,
    pub open: i64,
    pub overdue: i64,
    pub mttr_hours: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairStats {
    /// Orders not completed nor canceled.
    pub open: i64,
    /// Open orders past a deadline now (not accepted, or not repaired, in time).
    pub overdue: i64,
    /// Orders completed in the last 30 days.
    pub completed30d: i64,
    /// Mean hours from creation to finish over the orders finished in the last 90 days.
    pub mttr_hours: Option<f64>,
    /// Stations with orders, by name.
    pub stations: Vec<StationRepairStats>,
}

/// The figures of the caller's orders (of one station when given).
pub async fn summary(
    core: &Core,
    scope: &Scoped,
    station: Option<Id>,
) -> Result<(Figures, Vec<(i64, String, Figures)>), ApiError> {
    let now = time::now_ms();
    let mut sql = Sql::new(
        "SELECT o.station_id, s.name AS station_name, o.status, o.create_time, o.finish_time, o.complete_time, \
         o.response_deadline, o.repair_deadline",
    );
    sql.push(store::FROM);
    sql.append(&store::visible(scope));
    if let Some(id) = station {
        sql.push_bind(" AND o.station_id = ?", [Value::from(id)]);
    }
    let since = now - MTTR_DAYS.max(COMPLETED_DAYS) * DAY_MS;
    sql.push_bind(
        " AND (o.status < 7 OR o.finish_time >= ? OR o.complete_time >= ?)",
        [Value::Int(since), Value::Int(since)],
    );
    let times = sql.fetch_all::<Times, _>(core.db.pool()).await?;
    Ok(summarize(&times, now))
}

/// Repair figures of the caller's stations (or of one station).
#[utoipa::path(get, path = "/api/repair/stats", tag = "repair", params(StatsQuery),
    responses((status = 200, body = Envelope<RepairStats>), (status = 400), (status = 401)))]
pub async fn stats(
    State(core): State<Core>,
    scope: Scoped,
    Query(q): Query<StatsQuery>,
) -> ApiResult<Data<RepairStats>> {
    let (all, by) = summary(&core, &scope, q.station_id).await?;
    Ok(Data(RepairStats {
        open: all.open,
        overdue: all.overdue,
        completed30d: all.completed30d,
        mttr_hours: all.mttr_hours,
        stations: by
            .into_iter()
            .map(|(id, name, f)| StationRepairStats {
                station_id: Id(id),
                station_name: name,
                open: f.open,
                overdue: f.overdue,
                mttr_hours: f.mttr_hours,
            })
            .collect(),
    }))
}
