//! Smart-warning analytics (issue 8): string-current dispersion rate per inverter and
//! equivalent full-load-hours deviation per station and inverter — the pure formulas
//! ([`dispersion`], [`hours`]), what they read from the rollups ([`data`]), the tenant settings
//! ([`settings`]), the calls ([`api`]) and the warning job ([`job`]). Formulas, sources and
//! choices: `docs/analytics.md`.

pub mod api;
pub mod data;
pub mod dispersion;
pub mod hours;
pub mod job;
pub mod settings;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::kernel::Core;

/// The analytics routes (`/api/discreteRate/...`, `/api/hdayRate/...`).
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Core: axum::extract::FromRef<S>,
    crate::alarm::context::AlarmCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(api::dispersion_list))
        .routes(routes!(api::dispersion_setting))
        .routes(routes!(api::dispersion_update_setting))
        .routes(routes!(api::hday_page_station))
        .routes(routes!(api::hday_page_inverter))
        .routes(routes!(api::hday_setting, api::hday_update_setting))
}
