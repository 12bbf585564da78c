//! Counted energy: how cumulative counters become the energy every report, bill and revenue
//! figure rests on, the steps that were not counted as read, and the administrators'
//! corrections. The rule ([`counter`]) is pure and unit-tested against hand-made series; the
//! rollup worker (`telemetry::rollup`) applies it with each device's bound ([`limits`]) and the
//! corrections in force ([`store`]); [`api`] lists the steps and takes corrections.
//! Formulas and choices: `docs/reports.md`, "Counters".

pub mod api;
pub mod counter;
pub mod limits;
pub mod store;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::kernel::Core;

/// `/api/energyCorrection/...`.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Core: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(api::events))
        .routes(routes!(api::list))
        .routes(routes!(api::submit))
        .routes(routes!(api::withdraw))
}
