//! The operator's view of ingest (`GET /api/telemetry/gateways`): per gateway of the stations
//! the caller may see, whether it is online, when it was last heard, how many samples were
//! stored and what was refused by reason (each replica's ingest adds its counts every
//! `state_flush_seconds`, so these are totals over all replicas).

use std::collections::BTreeMap;

use axum::extract::State;
use serde::Serialize;
use sqlx::Row;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::auth::scope;
use crate::kernel::sql::Sql;
use crate::kernel::{ApiResult, Data, Envelope, Id, time};
use crate::telemetry::context::TelemetryCtx;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayIngest {
    pub gateway_id: String,
    pub station_id: Id,
    pub station_name: String,
    pub online: bool,
    /// Last message from the gateway (`yyyy-MM-dd HH:mm:ss`).
    pub last_seen: String,
    /// Samples stored (a replayed sample counts each time it is accepted).
    pub accepted: i64,
    /// Refusals by reason: malformed, oversized, wrong_version, gateway_mismatch (messages);
    /// unknown_device, time_out_of_range (samples).
    pub rejected: BTreeMap<String, i64>,
}

/// Ingest state of the gateways of the stations the caller can see.
#[utoipa::path(get, path = "/api/telemetry/gateways", tag = "telemetry",
    responses((status = 200, body = Envelope<Vec<GatewayIngest>>), (status = 401)))]
pub async fn gateways(
    State(state): State<TelemetryCtx>,
    caller: Caller,
) -> ApiResult<Data<Vec<GatewayIngest>>> {
    let scope = scope::visible_stations(&state, &caller).await?;
    let mut sql = Sql::new(
        "SELECT g.gateway_id, g.station_id, s.name, g.online, g.last_seen, g.accepted, g.rejected \
         FROM pv_gateway_state g JOIN pv_station s ON s.id = g.station_id WHERE ",
    );
    sql.append(&scope.stations("s"));
    sql.push(" ORDER BY g.gateway_id");
    let (text, args) = sql.build()?;
    let rows = sqlx::query_with(sqlx::AssertSqlSafe(text), args)
        .fetch_all(state.db.pool())
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let rejected: String = r.try_get("rejected")?;
        out.push(GatewayIngest {
            gateway_id: r.try_get("gateway_id")?,
            station_id: Id(r.try_get("station_id")?),
            station_name: r.try_get("name")?,
            online: r.try_get::<i64, _>("online")? != 0,
            last_seen: time::format_ms(r.try_get("last_seen")?),
            accepted: r.try_get("accepted")?,
            rejected: serde_json::from_str(&rejected).unwrap_or_default(),
        });
    }
    Ok(Data(out))
}
