//! 设备总览 (`/equipment`, issue 30): every device of the caller's stations in one list — its
//! station, kind, model, serial, firmware, source (our gateway or a vendor cloud), status, newest
//! sample and its communication quality over the last day — with a summary by kind and status and
//! an Excel export of the same rows. `docs/equipment.md` says where each figure comes from.
//!
//! One load answers all three calls: the registry rows (one query over the five device tables),
//! then one query per source of figures (vendor devices, open fault alarms, suspect samples in
//! rows and in packed blocks, counter rebases) and the realtime view in memory, whatever the
//! number of devices; filters, sorting and paging then run over that list.

pub mod api;
pub mod model;
pub mod store;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    crate::telemetry::TelemetryCtx: axum::extract::FromRef<S>,
    crate::station::StationCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(api::page))
        .routes(routes!(api::summary))
        .routes(routes!(api::export))
}
