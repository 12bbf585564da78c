//! The fleet's power curve of today (`/api/homePage/powerCurve`, the big screen's 全站今日功率曲线):
//! per 5-minute bucket, the sum of the mean AC power (`power_avg_w`) of the 5-minute rollups of
//! every live inverter of the caller's stations, each station over its own today (its clock).
//!
//! Why on the hub: the console used to add the inverters' curves itself, drawing its axis over
//! the browser's today and reading each curve's times (written in its station's clock) as the
//! browser's. The demo's stations run shifted clocks (their today is not the browser's), so every
//! point fell outside the axis and the panel stayed empty while the fleet produced megawatts;
//! stations on different clocks were also added at different instants. Here every point is an
//! instant (epoch ms) and the answer names the span it covers, so the console draws it as is.

use std::collections::{BTreeMap, HashMap};

use axum::extract::State;
use serde::Serialize;
use sqlx::Row;
use utoipa::ToSchema;

use crate::auth::scope::Scoped;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiResult, Data, Envelope, Id};
use crate::telemetry::api::site_day::today_of;
use crate::telemetry::api::{fleet, round};
use crate::telemetry::context::TelemetryCtx;
use crate::telemetry::realtime::KIND_INVERTER;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FleetCurve {
    /// The span the stations' todays cover, `[start, end)`, epoch ms (one day when they share a
    /// clock).
    pub start: i64,
    pub end: i64,
    /// Width of a bucket, minutes.
    pub interval_minutes: i64,
    /// `[bucket start (epoch ms), W]`, ascending; buckets without any inverter's rollup are left
    /// out (the rollups trail the live values by the rollup delay).
    #[schema(value_type = Vec<Vec<f64>>)]
    pub points: Vec<(i64, f64)>,
}

/// The fleet's power today from the inverters' 5-minute rollups.
#[utoipa::path(get, path = "/api/homePage/powerCurve", tag = "home",
    responses((status = 200, body = Envelope<FleetCurve>), (status = 401)))]
pub async fn power_curve(
    State(state): State<TelemetryCtx>,
    Scoped { stations: scope, .. }: Scoped,
) -> ApiResult<Data<FleetCurve>> {
    let stations = fleet::stations(&state, &scope).await?;
    let now = state.clock.now_ms();
    // Stations sharing a today share one query.
    let mut by_day: BTreeMap<(i64, i64), Vec<Id>> = BTreeMap::new();
    for s in &stations {
        let day = today_of(s.clock, now);
        by_day.entry((day.start, day.end)).or_default().push(Id(s.id));
    }
    let mut sums: HashMap<i64, f64> = HashMap::new();
    for ((start, end), ids) in &by_day {
        let mut sql = Sql::default();
        // The tenant leads the rollup index; the station ids come from the caller's scope, and
        // only registered inverters count (a deleted one's rollups stay in the table).
        sql.push_bind(
            "SELECT r.bucket, SUM(r.power_avg_w) AS w FROM pv_telemetry_rollup r \
             JOIN pv_inverter i ON i.id = r.device_id AND i.is_deleted = 0 \
             WHERE r.tenant_id = ? AND r.period = '5m' AND r.device_kind = ? AND r.bucket >= ? AND r.bucket < ? \
             AND r.power_avg_w IS NOT NULL AND r.station_id IN (",
            [
                Value::Text(scope.tenant_id.clone()),
                KIND_INVERTER.into(),
                Value::Int(*start),
                Value::Int(*end),
            ],
        );
        sql.push_ids(ids);
        sql.push(") GROUP BY r.bucket");
        for r in sql.rows(state.db.pool()).await? {
            if let Some(w) = r.try_get::<Option<f64>, _>("w")? {
                *sums.entry(r.try_get::<i64, _>("bucket")?).or_default() += w;
            }
        }
    }
    let mut points: Vec<(i64, f64)> = sums.into_iter().map(|(t, w)| (t, round(w, 1))).collect();
    points.sort_by_key(|(t, _)| *t);
    let fallback = today_of(crate::kernel::clock::SiteClock::hub(), now);
    Ok(Data(FleetCurve {
        start: by_day.keys().map(|k| k.0).min().unwrap_or(fallback.start),
        end: by_day.keys().map(|k| k.1).max().unwrap_or(fallback.end),
        interval_minutes: 5,
        points,
    }))
}
