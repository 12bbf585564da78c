//! Commissioning a station's gateway from the console: list its buses and maps, scan a bus,
//! probe a unit with a map and see its live values, add the device to the station and to the
//! gateway's configuration. Every call goes to the running gateway over the downlink
//! (`telemetry::commands`) and is answered from its `CommandAck`; it sits above the station
//! domain (device registries, the station's gateway) and the telemetry domain (the downlink).

pub mod answers;
pub mod api;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The commissioning routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    crate::station::StationCtx: axum::extract::FromRef<S>,
    crate::telemetry::context::TelemetryCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(api::buses))
        .routes(routes!(api::scan))
        .routes(routes!(api::probe))
        .routes(routes!(api::add_device))
}
