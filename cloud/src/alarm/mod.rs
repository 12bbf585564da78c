//! Alarms and smart warnings: where they are kept (`store`, with the numbers of `codes`), what
//! evaluators report (`condition`), the evaluators (`faults` tables, `thresholds` on inverter
//! samples with the tenant's `threshold_settings` and each site's `irradiance`), the `engine`
//! task that runs them on every stored sample, the `debounce` that turns conditions into
//! alarms, communication loss (`comm`, gateway outages in `outage`), the solar tracker's bracket rules (`flex`: "flex", for
//! flexible PV bracket, is the legacy word for a solar tracker, kept in its URLs
//! `/api/alarmSettingFlex` and `/api/alarmDataFlex`), the calls (`api`, `message`), the live
//! feed that the console's bell listens to (`feed`), and the evaluation benchmark's entry
//! (`bench`).

pub mod api;
pub mod bench;
pub mod codes;
pub mod comm;
pub mod condition;
pub mod context;
pub mod debounce;
pub mod engine;
pub mod faults;
pub mod feed;
pub mod flex;
pub mod irradiance;
pub mod message;
pub mod outage;
pub mod store;
pub mod threshold_settings;
pub mod thresholds;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use context::{AlarmCtx, AlarmServices};

/// The alarm (feed, alarm data, smart warnings, rules, messages, bracket rules) routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    AlarmCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(feed::connect))
        .routes(routes!(api::alarm_page))
        .routes(routes!(api::list_alarm_status))
        .routes(routes!(api::detail))
        .routes(routes!(api::handle))
        .routes(routes!(api::warn_page))
        .routes(routes!(api::get_rule, api::put_rule))
        .routes(routes!(message::list))
        .routes(routes!(message::read))
        .merge(flex::routes())
}
