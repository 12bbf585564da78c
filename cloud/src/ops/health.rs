//! `GET /api/health`: whether this process can serve, for load balancers and the console's
//! login page. It touches the database so a broken connection shows as unhealthy.

use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::kernel::Core;
use crate::kernel::sql::Sql;
use crate::kernel::{ApiResult, Data, Envelope};

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// `ok` when the database answered.
    pub status: &'static str,
    pub version: &'static str,
    /// `sqlite` or `postgres`.
    pub database: &'static str,
    pub uptime_seconds: u64,
    /// The demo's tenant id while the demo runs: the sign-in form offers it (a newcomer
    /// otherwise meets the platform tenant's id there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demo_tenant: Option<&'static str>,
}

#[utoipa::path(
    get,
    path = "/api/health",
    tag = "ops",
    responses((status = 200, description = "The hub and its database answer", body = Envelope<Health>))
)]
pub async fn health(State(state): State<Core>) -> ApiResult<Data<Health>> {
    Sql::new("SELECT 1").execute(state.db.pool()).await?;
    Ok(Data(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
        database: state.db.backend().name(),
        uptime_seconds: state.started.elapsed().as_secs(),
        demo_tenant: state.config.demo.enabled.then_some(crate::demo::TENANT),
    }))
}
